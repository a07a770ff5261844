//! The native decision's two calls from JS (`detectNative()`, written in
//! pkg-template/native.js, which spawns the platform package's command):
//! what to ask the command (the target, the host's default one where none
//! is named, and the bound), and the core's answer where the command could
//! not answer (no platform package, a browser, a probe past its bound or
//! one that crashed). The decisions are the core's
//! (`backend_targets::probe::native`, `probe::native_table`); this module
//! only reads the arguments and carries the answer across. Not part of the
//! package's API: the entries' JS calls these.

use std::str::FromStr;

use wasm_bindgen::prelude::*;

use super::api::{js_error, json_text, string_from_js, to_js};
use super::planning::target_from;
use backend_targets::probe::native::{NativeOptions, NativeReason, NativeResolution, host_default_target};
use backend_targets::vocab::{Architecture, OperatingSystem};
use backend_targets::{Error, ErrorCode, Limits, Preset, PresetOptions};
use backend_targets::{FromJsonText, ToJsonText};

#[wasm_bindgen(typescript_custom_section)]
const TS_NATIVE_CHANGE: &str = r#"
/** One accelerator or feature the native probe decided: `{ accelerator }` or
 *  `{ feature }`, kept, dropped or left as declared, with the reason and the
 *  decision as a sentence. */
export type NativeChange = Subject & {
  /** Kept, dropped, or left as declared. */
  action: ChangeAction;
  /** Why: the deciding check's reason, or `requires-accelerator`, `not-probeable`. */
  reason: NativeReason;
  /** The decision as a sentence. */
  detail: string;
};
"#;

/// The host as Node names it (`process.platform`, `process.arch`), in the
/// core's vocabulary: what Node does not name here is `unknown`.
fn host(platform: &str, arch: &str) -> (OperatingSystem, Architecture) {
    let os = match platform {
        "linux" => OperatingSystem::Linux,
        "darwin" => OperatingSystem::MacOS,
        "win32" => OperatingSystem::Windows,
        _ => OperatingSystem::Unknown,
    };
    let arch = match arch {
        "x64" => Architecture::X86_64,
        "arm64" => Architecture::Aarch64,
        _ => Architecture::Unknown,
    };
    (os, arch)
}

/// `detectNative(target?, options?)`'s arguments, read: `{ target, timeoutMs }`
/// with the target to send the command (the host's default where `target`
/// is absent, a preset's shape where it is a preset's name, else the
/// Target given, validated). An invalid argument is a BackendTargetsError.
#[wasm_bindgen(js_name = nativeCall, skip_typescript)]
pub fn native_call(target: JsValue, options: JsValue, platform: String, arch: String) -> Result<JsValue, JsValue> {
    let (os, arch) = host(&platform, &arch);
    let target = if target.is_undefined() || target.is_null() {
        host_default_target(os, arch)
    } else if let Some(name) = string_from_js(&target) {
        let preset = Preset::from_str(&name).map_err(|e| js_error(e.under("target")))?;
        preset.build(&PresetOptions::default()).map_err(js_error)?
    } else {
        target_from(&target).map_err(|e| js_error(e.under("target")))?
    };
    let options = match json_text(&options, true, Limits::CEILING.request_bytes).map_err(js_error)? {
        None => NativeOptions::default(),
        Some(text) => NativeOptions::from_json_text(&text).map_err(|e| js_error(e.under("options")))?,
    };
    options.validate().map_err(|e| js_error(e.under("options")))?;
    Ok(to_js(&format!(r#"{{"target":{},"timeoutMs":{}}}"#, target.to_json_text(), options.timeout_ms)))
}

/// The core's answer where no check could run ([`NativeResolution::without_probe`]):
/// `reason` is `unsupported-platform`, `timeout` or `check-crashed`, and
/// `message` says why in words.
#[wasm_bindgen(js_name = nativeWithoutProbe, skip_typescript)]
pub fn native_without_probe(
    target: JsValue,
    platform: String,
    arch: String,
    reason: String,
    message: String,
    timeout_ms: u32,
    elapsed_ms: f64,
) -> Result<JsValue, JsValue> {
    let target = target_from(&target).map_err(|e| js_error(e.under("target")))?;
    let reason = NativeReason::from_str(&reason).map_err(js_error)?;
    if reason.is_available() {
        return Err(js_error(Error::new(ErrorCode::InvalidValue, "reason", "a probe that did not run kept nothing")));
    }
    let elapsed_ms = if elapsed_ms.is_finite() && elapsed_ms >= 0.0 { elapsed_ms } else { 0.0 };
    let resolution =
        NativeResolution::without_probe(&target, host(&platform, &arch), (reason, &message), (timeout_ms, elapsed_ms));
    Ok(to_js(&resolution.to_json_text()))
}
