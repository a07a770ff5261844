//! The JavaScript API (wasm-bindgen, `wasm32-unknown-unknown` only): plain JS
//! objects in and out, over the same text entry points as the command line.
//!
//! Values cross the boundary as JSON text: `JSON.stringify` in, the core's
//! strict parser, the core's serializer, `JSON.parse` out. So a request gives
//! the same errors (code and path) and the same bytes as the command.
//! Invalid input throws an `Error` with `code`, `path` and, for a bad
//! spelling, `expected`; an unplannable request returns `{ ok: false, ... }`.

use js_sys::{Array, JSON, JsString, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode};
use crate::json::{from_json, to_json};
use crate::limits::Limits;
use crate::request::{parse_target, plan_request_json_with};
use crate::schema::SchemaName;
use crate::target::{Preset, PresetOptions, Target, preset_table, presets as all_presets};

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR: &str = r#"
/** What every function throws for invalid input. */
export interface BackendTargetsError extends Error {
  name: "BackendTargetsError";
  /** A stable kind: "unknown-field", "missing-field", "wrong-type", "unknown-variant", ... */
  code: ErrorCode;
  /** Where: a path such as "capsules[3].trustLevel"; "" for the whole value. */
  path: string;
  /** For an unknown spelling: the valid spellings, in order. */
  expected?: string[];
}
"#;

#[wasm_bindgen(start, private)]
fn install_panic_recovery() {
    // A panic traps and would poison the instance; schedule a fresh instance
    // for the next call instead. (No input is known to panic: this is the
    // second line of defence.)
    std::panic::set_hook(Box::new(|_| wasm_bindgen::handler::schedule_reinit()));
}

/// The `Error` thrown to JavaScript.
pub(crate) fn js_error(mut error: Error) -> JsValue {
    if let Some(kind) = take_unrepresentable()
        && error.code == ErrorCode::WrongType
    {
        error.message = format!("{} ({kind} was given, which JSON cannot represent)", error.message);
    }
    let js = js_sys::Error::new(&error.one_line());
    js.set_name("BackendTargetsError");
    let object: &JsValue = js.as_ref();
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(object, &JsValue::from_str(key), &value);
    };
    set("code", JsValue::from_str(error.code.as_str()));
    set("path", JsValue::from_str(&error.path));
    if !error.expected.is_empty() {
        let expected: Array = error.expected.iter().map(|s| JsValue::from_str(s)).collect();
        set("expected", expected.into());
    }
    js.into()
}

#[wasm_bindgen(module = "/src/wasm/boundary.js")]
extern "C" {
    /// `JSON.stringify` with a replacer that turns functions, symbols, BigInts
    /// and non-finite numbers into null: a string, or `undefined` where JSON
    /// has no text.
    #[wasm_bindgen(js_name = jsonText, catch)]
    fn stringify(value: &JsValue) -> Result<JsValue, JsValue>;
    /// What the last `stringify` turned into null ("a function", ...), once.
    #[wasm_bindgen(js_name = takeUnrepresentable)]
    fn take_unrepresentable() -> Option<String>;
    /// The UTF-16 index of the first lone surrogate in `text`, or -1.
    #[wasm_bindgen(js_name = loneSurrogate)]
    fn lone_surrogate(text: &JsString) -> i32;
    /// `TextEncoder.encodeInto(text, into).written`.
    #[wasm_bindgen(js_name = encodeInto)]
    fn encode_into(text: &JsString, into: &Uint8Array) -> u32;
}

/// A JS string's text; `None` when `value` is not a string.
///
/// wasm-bindgen's glue copies a string into the module one UTF-16 unit at a
/// time in JavaScript (for its ASCII part): 15 % of a 1,000-capsule
/// `planJson`. `TextEncoder.encodeInto` writes it in one native call.
pub(crate) fn string_from_js(value: &JsValue) -> Option<String> {
    let text: &JsString = value.dyn_ref()?;
    let units = text.length() as usize;
    // UTF-8 cannot carry a lone surrogate: `text_from_js` refuses it first.
    // Room for ASCII (a byte per UTF-16 unit) first; when that runs out, the
    // worst case (3 bytes per unit), as wasm-bindgen's glue would grow to.
    let worst = units.checked_mul(3).and_then(|bytes| bytes.checked_add(4));
    for capacity in [units.checked_add(4), worst].into_iter().flatten() {
        let mut bytes = Vec::<u8>::with_capacity(capacity);
        // SAFETY: the view covers the vector's spare capacity, and no code of
        // the module runs (nothing can allocate or grow the memory) while
        // JavaScript writes through it.
        let view = unsafe { Uint8Array::view_mut_raw(bytes.as_mut_ptr(), capacity) };
        let written = (encode_into(text, &view) as usize).min(capacity);
        // encodeInto stops early only when the next character (at most
        // 4 bytes) does not fit: with 4 bytes to spare, it wrote everything.
        if capacity - written >= 4 {
            // SAFETY: encodeInto initialised the first `written` bytes.
            unsafe { bytes.set_len(written) };
            return String::from_utf8(bytes).ok();
        }
    }
    value.as_string()
}

/// A JS string as request text, refused (not changed) when it holds a lone
/// surrogate or has more UTF-16 units than `max_bytes` (each is at least a
/// byte of UTF-8), before it is copied.
pub(crate) fn text_from_js(value: &JsValue, max_bytes: usize) -> Result<Option<String>, Error> {
    let Some(text) = value.dyn_ref::<JsString>() else { return Ok(None) };
    Limits::check("", "requestBytes", "UTF-16 units", text.length() as usize, max_bytes)?;
    let at = lone_surrogate(text);
    if at >= 0 {
        let message = format!("the text has a lone surrogate at UTF-16 index {at}, which is not Unicode text");
        return Err(Error::new(ErrorCode::InvalidJson, "", message));
    }
    Ok(string_from_js(value))
}

/// A JS value as JSON text; `None` for `undefined` (and `null`, when `absent_ok`).
pub(crate) fn json_text(value: &JsValue, absent_ok: bool) -> Result<Option<String>, Error> {
    if value.is_undefined() || (absent_ok && value.is_null()) {
        return Ok(None);
    }
    if let Some(text) = text_from_js(value, Limits::CEILING.request_bytes)? {
        // A string is taken as JSON text (e.g. a request read from a file).
        return Ok(Some(text));
    }
    // A function, symbol or BigInt inside the value becomes null (see
    // `boundary.js`), so the strict parser refuses it with its exact path.
    let not_json = || Error::new(ErrorCode::WrongType, "", "the value cannot be represented as JSON");
    let text = stringify(value).map_err(|_| not_json())?;
    string_from_js(&text).map(Some).ok_or_else(not_json)
}

/// Parses compact JSON produced by the core into a JS value.
pub(crate) fn to_js(text: &str) -> JsValue {
    // The core's own output is always valid JSON.
    JSON::parse(text).unwrap_or(JsValue::NULL)
}

pub(crate) fn required(value: &JsValue, what: &str) -> Result<String, Error> {
    json_text(value, false)?.ok_or_else(|| Error::new(ErrorCode::MissingField, "", format!("{what} is required")))
}

pub(crate) fn target_from(value: &JsValue) -> Result<Target, Error> {
    parse_target(&required(value, "a Target")?)
}

fn build_preset(preset: Preset, options: &JsValue) -> Result<JsValue, JsValue> {
    let options: PresetOptions = match json_text(options, true).map_err(js_error)? {
        None => PresetOptions::default(),
        Some(text) => from_json(&text).map_err(js_error)?,
    };
    let target = preset.build(&options).map_err(js_error)?;
    Ok(to_js(&to_json(&target)))
}

/// The edge's expansion of `preset_table!`: one JS function per preset, its
/// options typed from the preset's parameters.
macro_rules! preset_functions {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $spelling:literal (js $js:literal, fn $rust:ident):
            $parameters:ident, os $os:ident, arch $arch:ident, accelerator $accelerator:ident,
            features [$($feature:ident),*];
    )+) => {
        $(preset_functions!(@function $(#[doc = $doc])* $rust, $js, $variant, $parameters);)+
    };
    (@function $(#[doc = $doc:literal])* $rust:ident, $js:literal, $variant:ident, OsArch) => {
        preset_functions!(@emit $(#[doc = $doc])* $rust, $js, $variant, "{ os?: OperatingSystem; arch?: Architecture }");
    };
    (@function $(#[doc = $doc:literal])* $rust:ident, $js:literal, $variant:ident, Arch) => {
        preset_functions!(@emit $(#[doc = $doc])* $rust, $js, $variant, "{ arch?: Architecture }");
    };
    (@function $(#[doc = $doc:literal])* $rust:ident, $js:literal, $variant:ident, EnableLibTorch) => {
        preset_functions!(@emit $(#[doc = $doc])* $rust, $js, $variant, "{ enableLibTorch?: boolean }");
    };
    (@function $(#[doc = $doc:literal])* $rust:ident, $js:literal, $variant:ident, None) => {
        preset_functions!(@emit $(#[doc = $doc])* $rust, $js, $variant, "Record<string, never>");
    };
    (@emit $(#[doc = $doc:literal])* $rust:ident, $js:literal, $variant:ident, $options:literal) => {
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $js, unchecked_return_type = "Required<Target>")]
        pub fn $rust(
            #[wasm_bindgen(unchecked_optional_param_type = $options)] options: JsValue,
        ) -> Result<JsValue, JsValue> {
            build_preset(Preset::$variant, &options)
        }
    };
}

preset_table!(preset_functions);

/// The 13 presets with default parameters, in the seed's order.
#[wasm_bindgen(unchecked_return_type = "NamedPreset[]")]
pub fn presets() -> JsValue {
    to_js(&to_json(&all_presets()))
}

/// Validates a Target (an object, or JSON text) and returns it with defaults filled in.
#[wasm_bindgen(js_name = parseTarget, unchecked_return_type = "Required<Target>")]
pub fn parse_target_js(
    #[wasm_bindgen(unchecked_param_type = "Target | string")] value: JsValue,
) -> Result<JsValue, JsValue> {
    let target = target_from(&value).map_err(js_error)?;
    Ok(to_js(&to_json(&target)))
}

/// Validates a target, then answers `derive(target)` as a plain JS value.
fn about_target<T: serde::Serialize>(target: &JsValue, derive: impl FnOnce(&Target) -> T) -> Result<JsValue, JsValue> {
    let target = target_from(target).map_err(js_error)?;
    Ok(to_js(&to_json(&derive(&target))))
}

/// The target's devices: `cpu`, then its accelerator's device.
#[wasm_bindgen(unchecked_return_type = "Device[]")]
pub fn devices(#[wasm_bindgen(unchecked_param_type = "Target")] target: JsValue) -> Result<JsValue, JsValue> {
    about_target(&target, |target| target.devices())
}

/// The target's providers: `reference`, `torchLean`, then its features' providers.
#[wasm_bindgen(unchecked_return_type = "Provider[]")]
pub fn providers(#[wasm_bindgen(unchecked_param_type = "Target")] target: JsValue) -> Result<JsValue, JsValue> {
    about_target(&target, |target| target.providers())
}

/// What the target declares; probes nothing (see `detect` for the browser).
#[wasm_bindgen(js_name = declaredAvailability, unchecked_return_type = "Required<Availability>")]
pub fn declared_availability(
    #[wasm_bindgen(unchecked_param_type = "Target")] target: JsValue,
) -> Result<JsValue, JsValue> {
    about_target(&target, |target| target.declared_availability())
}

/// The options of `plan` and `planJson`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct PlanOptions {
    limits: Limits,
}

#[wasm_bindgen(typescript_custom_section)]
const TS_PLAN_OPTIONS: &str = r#"
/** Options of `plan` and `planJson`: raise (or lower) the limits a request meets, up to their ceilings. */
export interface PlanOptions {
  limits?: Partial<Limits>;
}
"#;

fn plan_options(options: &JsValue) -> Result<Limits, JsValue> {
    match json_text(options, true).map_err(js_error)? {
        None => Ok(Limits::DEFAULT),
        Some(text) => {
            let options: PlanOptions = from_json(&text).map_err(|e| js_error(e.under("options")))?;
            options.limits.validate("options.limits").map_err(js_error)?;
            Ok(options.limits)
        }
    }
}

/// Plans a request (an object, or JSON text). Throws only for invalid input
/// (`limit-exceeded` beyond a limit); an unplannable request returns
/// `{ ok: false, ... }` with the reasons.
#[wasm_bindgen(unchecked_return_type = "PlanResult")]
pub fn plan(
    #[wasm_bindgen(unchecked_param_type = "PlanRequest | string")] request: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "PlanOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let limits = plan_options(&options)?;
    let text = match text_from_js(&request, limits.request_bytes).map_err(js_error)? {
        Some(text) => text,
        None => required(&request, "a plan request").map_err(js_error)?,
    };
    Ok(to_js(&plan_text(&text, &limits)?))
}

/// `plan` on JSON text, returning the compact JSON text: byte-identical to
/// `backend-targets plan`.
#[wasm_bindgen(js_name = planJson)]
pub fn plan_json(
    // A JsValue, not `&str`: the glue would copy a string into the old
    // instance before a scheduled re-initialisation swaps in a fresh one.
    #[wasm_bindgen(unchecked_param_type = "string")] request: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "PlanOptions")] options: JsValue,
) -> Result<String, JsValue> {
    let limits = plan_options(&options)?;
    let text = text_from_js(&request, limits.request_bytes).map_err(js_error)?.ok_or_else(|| {
        js_error(Error::new(ErrorCode::WrongType, "", "planJson takes the request as JSON text (a string)"))
    })?;
    plan_text(&text, &limits)
}

fn plan_text(text: &str, limits: &Limits) -> Result<String, JsValue> {
    plan_request_json_with(text, limits).map(|(_, json)| json).map_err(js_error)
}

/// The built-in catalog: a `reference` capsule on `cpu` for every op.
#[wasm_bindgen(js_name = referenceCapsules, unchecked_return_type = "Required<KernelCapsule>[]")]
pub fn reference_capsules() -> JsValue {
    to_js(&to_json(&crate::capsule::reference_capsules()))
}

#[wasm_bindgen(typescript_custom_section)]
const TS_SCHEMA_NAME: &str = r#"
/** The forms whose schema the browser build serves (the native probe's answers are the command's). */
export type WebSchemaName = Exclude<SchemaName, "NativeResolution" | "ProbedPlanResult">;
"#;

/// The JSON Schema of a form. The native probe's forms (`NativeResolution`,
/// `ProbedPlanResult`) throw `unsupported-platform`: only the command serves them.
#[wasm_bindgen(unchecked_return_type = "object")]
pub fn schema(#[wasm_bindgen(unchecked_param_type = "WebSchemaName")] name: JsValue) -> Result<JsValue, JsValue> {
    let name = name
        .as_string()
        .ok_or_else(|| Error::new(ErrorCode::WrongType, "", "the schema name must be a string"))
        .and_then(|text| text.parse::<SchemaName>())
        .map_err(js_error)?;
    let text = name.text().ok_or_else(|| {
        js_error(Error::new(
            ErrorCode::UnsupportedPlatform,
            "",
            format!("{name} is the native command's answer; the browser build carries no schema for it (run `backend-targets schema {name}`)"),
        ))
    })?;
    Ok(to_js(&text))
}

/// Test hook: fills memory as a large plan did, many blocks taken while
/// one output vector grows, infallibly, until the allocator gives up at the
/// module's 2 GiB cap: a clean trap (an allocation failure), never an
/// out-of-bounds access. Not part of the API.
#[wasm_bindgen(js_name = __exhaustMemoryForTesting)]
pub fn exhaust_memory_for_testing() -> f64 {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut out: Vec<u8> = Vec::new();
    let piece = [b'x'; 65_536];
    loop {
        blocks.push(Vec::with_capacity(1 << 20));
        out.extend_from_slice(&piece);
        if out.len() as f64 > 4e9 {
            return (out.len() + blocks.len()) as f64;
        }
    }
}

/// Test hook: panics inside the instance, to prove the next call still
/// answers. Not part of the API.
#[wasm_bindgen(js_name = __forcePanicForTesting)]
pub fn force_panic_for_testing() {
    panic!("forced panic for testing");
}
