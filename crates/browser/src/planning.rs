//! The planner's JavaScript API: presets, targets, availability, plans, the
//! reference catalog and the schemas. Left out (feature `planner-exports`
//! off) of the detect-only module, which exports only `probe` and `detect`.

use wasm_bindgen::prelude::*;

use super::api::{js_error, json_text, text_from_js, to_js};
use backend_targets::Limits;
use backend_targets::SchemaName;
use backend_targets::parse_target;
use backend_targets::{Error, ErrorCode};
use backend_targets::{FromJsonText, PlanOptions, ToJsonText};
use backend_targets::{Preset, PresetOptions, Target, preset_table, presets as all_presets};

/// A required argument as JSON text of at most `max_bytes`: `missing-field`,
/// naming `what`, when it is `undefined`.
pub(crate) fn required(value: &JsValue, what: &str, max_bytes: usize) -> Result<String, Error> {
    json_text(value, false, max_bytes)?
        .ok_or_else(|| Error::new(ErrorCode::MissingField, "", format!("{what} is required")))
}

/// A Target argument (an object, or JSON text), parsed strictly and validated.
pub(crate) fn target_from(value: &JsValue) -> Result<Target, Error> {
    parse_target(&required(value, "a Target", Limits::CEILING.request_bytes)?)
}

fn build_preset(preset: Preset, options: &JsValue) -> Result<JsValue, JsValue> {
    let options: PresetOptions = match json_text(options, true, Limits::CEILING.request_bytes).map_err(js_error)? {
        None => PresetOptions::default(),
        Some(text) => PresetOptions::from_json_text(&text).map_err(js_error)?,
    };
    let target = preset.build(&options).map_err(js_error)?;
    Ok(to_js(&target.to_json_text()))
}

/// The edge's expansion of [`preset_table!`]: one JS function per preset, its
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
    to_js(&all_presets().to_json_text())
}

/// Validates a Target (an object, or JSON text) and returns it with defaults filled in.
#[wasm_bindgen(js_name = parseTarget, unchecked_return_type = "Required<Target>")]
pub fn parse_target_js(
    #[wasm_bindgen(unchecked_param_type = "Target | string")] value: JsValue,
) -> Result<JsValue, JsValue> {
    let target = target_from(&value).map_err(js_error)?;
    Ok(to_js(&target.to_json_text()))
}

/// Validates a target, then answers `derive(target)` as a plain JS value.
fn about_target<T: ToJsonText>(target: &JsValue, derive: impl FnOnce(&Target) -> T) -> Result<JsValue, JsValue> {
    let target = target_from(target).map_err(js_error)?;
    Ok(to_js(&derive(&target).to_json_text()))
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
#[wasm_bindgen(js_name = declaredAvailability, unchecked_return_type = "Omit<Required<Availability>, \"webGpu\">")]
pub fn declared_availability(
    #[wasm_bindgen(unchecked_param_type = "Target")] target: JsValue,
) -> Result<JsValue, JsValue> {
    about_target(&target, |target| target.declared_availability())
}

#[wasm_bindgen(typescript_custom_section)]
const TS_PLAN_OPTIONS: &str = r#"
/** Options of `plan` and `planJson`: raise (or lower) the limits a request meets, up to their ceilings. */
export interface PlanOptions {
  limits?: Partial<Limits>;
}

/** A plan: one kernel per requested op (`ok: true`). */
export type Planned = PlanResultFields & { ok: true; kernels: Kernel[] };
/** No plan: why, per config tried (`ok: false`); no kernel, no winning config. */
export type NotPlanned = PlanResultFields & { ok: false; kernels?: undefined; configIndex?: undefined; config?: undefined };
/**
 * The answer to a plan request, which narrows on `ok`:
 * `if (result.ok) result.kernels.map(...)` compiles under `strict`.
 */
export type PlanResult = Planned | NotPlanned;
"#;

fn plan_options(options: &JsValue) -> Result<Limits, JsValue> {
    match json_text(options, true, Limits::CEILING.request_bytes).map_err(js_error)? {
        None => Ok(Limits::DEFAULT),
        Some(text) => {
            let options = PlanOptions::from_json_text(&text).map_err(|e| js_error(e.under("options")))?;
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
    // A string is the request's text; an object is written as JSON text, and
    // refused once that is longer than `requestBytes`, before it is copied.
    let text = required(&request, "a plan request", limits.request_bytes).map_err(js_error)?;
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
    backend_targets::plan_json(text, limits).map(|(_, json)| json).map_err(js_error)
}

/// The built-in catalog: a `reference` capsule on `cpu` for every op.
#[wasm_bindgen(js_name = referenceCapsules, unchecked_return_type = "Required<KernelCapsule>[]")]
pub fn reference_capsules() -> JsValue {
    to_js(&backend_targets::reference_capsules().to_json_text())
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
/// out-of-bounds access. Not part of the API: built only with the
/// `test-hooks` feature (the suites' pkg-test/).
#[cfg(feature = "test-hooks")]
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
/// answers. Not part of the API: built only with the `test-hooks` feature.
#[cfg(feature = "test-hooks")]
#[wasm_bindgen(js_name = __forcePanicForTesting)]
pub fn force_panic_for_testing() {
    panic!("forced panic for testing");
}
