//! The binding layer (`backend_targets_browser`) called from Rust with
//! `JsValue` inputs, in a real JavaScript engine: presets, the declaration
//! functions, plan (plannable and not), planJson, schemas, and the thrown
//! `Error`s with their `code`, `path` and `expected` properties.
//!
//! Run under Node by wasm-bindgen-test-runner (see .cargo/config.toml):
//!   cargo test -p backend-targets-browser --target wasm32-unknown-unknown --test wasm_bindings
#![cfg(browser)]

use backend_targets::Preset;
use backend_targets_browser as api;
use js_sys::{Array, BigInt, Function, JSON, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// A golden output of the native command, without its final newline.
macro_rules! golden {
    ($name:literal) => {
        include_str!(concat!("../../../tests/vectors/cli/", $name, ".out")).trim_end_matches('\n')
    };
}

fn parse(text: &str) -> JsValue {
    JSON::parse(text).expect("valid JSON")
}

fn stringify(value: &JsValue) -> String {
    JSON::stringify(value).expect("JSON-able").as_string().expect("a string")
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).expect("readable property")
}

fn get_str(value: &JsValue, key: &str) -> Option<String> {
    get(value, key).as_string()
}

/// Asserts a thrown value is a `BackendTargetsError` with this code and path.
fn assert_error(result: Result<JsValue, JsValue>, code: &str, path: &str) -> JsValue {
    let error = match result {
        Ok(value) => panic!("expected [{code}] at {path:?}, got {}", stringify(&value)),
        Err(error) => error,
    };
    assert!(error.is_instance_of::<js_sys::Error>(), "an Error instance");
    assert_eq!(get_str(&error, "name").as_deref(), Some("BackendTargetsError"));
    assert_eq!(get_str(&error, "code").as_deref(), Some(code), "code");
    assert_eq!(get_str(&error, "path").as_deref(), Some(path), "path");
    let message = get_str(&error, "message").unwrap();
    assert!(message.contains(&format!("[{code}]")), "message: {message}");
    error
}

fn expected_list(error: &JsValue) -> Vec<String> {
    let expected = get(error, "expected");
    assert!(Array::is_array(&expected), "expected is an array");
    Array::from(&expected).iter().map(|s| s.as_string().unwrap()).collect()
}

type PresetFn = fn(JsValue) -> Result<JsValue, JsValue>;

/// The core's preset table (`preset_table!`, src/target.rs) as this module's
/// rows: each preset, its spelling, the binding's function and the
/// command's golden target (`target-<spelling>.out`), in the table's order.
macro_rules! preset_rows {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $spelling:literal (js $js:literal, fn $rust:ident):
            $parameters:ident, os $os:ident, arch $arch:ident, accelerator $accelerator:ident,
            features [$($feature:ident),*];
    )+) => {
        [$((
            Preset::$variant,
            $spelling,
            api::$rust as PresetFn,
            include_str!(concat!("../../../tests/vectors/cli/target-", $spelling, ".out")).trim_end_matches('\n'),
        )),+]
    };
}

fn presets_table() -> Vec<(&'static str, PresetFn, &'static str)> {
    let rows = backend_targets::preset_table!(preset_rows);
    let presets: Vec<Preset> = rows.iter().map(|(preset, ..)| *preset).collect();
    assert_eq!(presets, Preset::ALL, "the table's rows are Preset::ALL, in its order");
    rows.iter()
        .map(|&(preset, spelling, function, golden)| {
            assert_eq!(preset.as_str(), spelling);
            (spelling, function, golden)
        })
        .collect()
}

#[wasm_bindgen_test]
fn presets_list_the_thirteen_presets_byte_for_byte() {
    let list = api::presets();
    assert!(Array::is_array(&list));
    assert_eq!(stringify(&list), golden!("presets"));
    let names: Vec<String> = Array::from(&list).iter().map(|p| get_str(&p, "name").unwrap()).collect();
    let expected: Vec<&str> = presets_table().iter().map(|(name, _, _)| *name).collect();
    assert_eq!(names, expected);
}

#[wasm_bindgen_test]
fn every_preset_with_default_options_gives_the_golden_target() {
    for (name, preset, golden) in presets_table() {
        for options in [JsValue::UNDEFINED, JsValue::NULL, parse("{}")] {
            let target = preset(options).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!(stringify(&target), golden, "{name}");
        }
    }
}

#[wasm_bindgen_test]
fn preset_options_are_taken_from_a_js_object() {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"enableLibTorch".into(), &JsValue::TRUE).unwrap();
    assert_eq!(stringify(&api::linux_cuda(options.into()).unwrap()), golden!("target-linuxCuda-libtorch"));
    let os_arch = parse(r#"{"os": "windows", "arch": "aarch64"}"#);
    assert_eq!(stringify(&api::portable_cpu(os_arch.clone()).unwrap()), golden!("target-portableCpu-os-arch"));
    assert_eq!(stringify(&api::custom_chip(os_arch.clone()).unwrap()), golden!("target-customChip-os-arch"));
    assert_eq!(stringify(&api::external(os_arch).unwrap()), golden!("target-external-os-arch"));
    let arch = parse(r#"{"arch": "wasm32"}"#);
    assert_eq!(stringify(&api::linux_cpu(arch.clone()).unwrap()), golden!("target-linuxCpu-arch"));
    assert_eq!(stringify(&api::macos_cpu(arch.clone()).unwrap()), golden!("target-macOSCpu-arch"));
    assert_eq!(stringify(&api::windows_cpu(arch).unwrap()), golden!("target-windowsCpu-arch"));
}

#[wasm_bindgen_test]
fn an_option_a_preset_does_not_take_throws_unsupported_option() {
    assert_error(api::linux_rocm(parse(r#"{"arch": "x86_64"}"#)), "unsupported-option", "arch");
    assert_error(api::linux_cpu(parse(r#"{"os": "linux"}"#)), "unsupported-option", "os");
    assert_error(api::macos_metal(parse(r#"{"enableLibTorch": true}"#)), "unsupported-option", "enableLibTorch");
    assert_error(api::wasm(parse(r#"{"os": "wasi"}"#)), "unsupported-option", "os");
    assert_error(api::linux_cuda(parse(r#"{"arch": "aarch64"}"#)), "unsupported-option", "arch");
    let error = assert_error(api::linux_cpu(parse(r#"{"arch": "arm64"}"#)), "unknown-variant", "arch");
    assert_eq!(expected_list(&error), ["x86_64", "aarch64", "wasm32", "unknown"]);
}

#[wasm_bindgen_test]
fn declaration_functions_take_a_target_object_or_text() {
    let target = api::linux_cuda(parse(r#"{"enableLibTorch": true}"#)).unwrap();
    let availability = api::declared_availability(target.clone()).unwrap();
    assert_eq!(stringify(&availability), golden!("availability-linuxCuda-libtorch"));
    assert_eq!(stringify(&api::devices(target.clone()).unwrap()), r#"["cpu","cuda"]"#);
    assert_eq!(
        stringify(&api::providers(target).unwrap()),
        r#"["reference","torchLean","nativeCuda","cuBLAS","cuFFT","libTorch"]"#
    );
    let text = JsValue::from_str(include_str!("../../../tests/vectors/targets/custom.json"));
    let parsed = api::parse_target_js(text.clone()).unwrap();
    assert_eq!(stringify(&api::declared_availability(parsed).unwrap()), golden!("availability-stdin"));
    assert_eq!(stringify(&api::declared_availability(text).unwrap()), golden!("availability-stdin"));
    assert_eq!(
        stringify(&api::parse_target_js(parse("{}")).unwrap()),
        r#"{"os":"unknown","arch":"unknown","accelerator":"none","features":[]}"#
    );
    let error = assert_error(api::devices(parse(r#"{"os": "MacOS"}"#)), "unknown-variant", "os");
    assert_eq!(expected_list(&error), ["linux", "macOS", "windows", "wasi", "unknown"]);
    assert_error(api::providers(JsValue::UNDEFINED), "missing-field", "");
}

#[wasm_bindgen_test]
fn plan_of_a_plannable_request_matches_the_command() {
    let request = include_str!("../../../tests/vectors/requests/default-explained.json");
    let result = api::plan(parse(request), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&result, "ok"), JsValue::TRUE);
    assert_eq!(stringify(&result), golden!("plan-default-explained"));
    // The same request as JSON text, through plan and planJson.
    assert_eq!(
        stringify(&api::plan(JsValue::from_str(request), JsValue::UNDEFINED).unwrap()),
        golden!("plan-default-explained")
    );
    assert_eq!(api::plan_json(request.into(), JsValue::UNDEFINED).unwrap(), golden!("plan-default-explained"));
}

#[wasm_bindgen_test]
fn plan_of_an_unplannable_request_returns_ok_false_not_an_error() {
    let request = include_str!("../../../tests/vectors/requests/unplannable.json");
    let result = api::plan(parse(request), JsValue::UNDEFINED).expect("not plannable is data, not an exception");
    assert_eq!(get(&result, "ok"), JsValue::FALSE);
    assert!(get(&result, "kernels").is_undefined());
    assert!(Array::from(&get(&result, "attempts")).length() > 0);
    assert_eq!(stringify(&result), golden!("plan-unplannable"));
    assert_eq!(api::plan_json(request.into(), JsValue::UNDEFINED).unwrap(), golden!("plan-unplannable"));
}

#[wasm_bindgen_test]
fn invalid_requests_throw_errors_with_code_path_and_expected() {
    let error =
        assert_error(api::plan(parse(r#"{"ops": ["matMul"]}"#), JsValue::UNDEFINED), "unknown-variant", "ops[0]");
    assert_eq!(expected_list(&error).len(), 68);
    let capsules = r#"{"ops": [], "capsules": [{"name": "x", "op": "matmul", "provider": "cuBLAS",
        "device": "cuda", "trustLevel": "trusted"}]}"#;
    let error =
        assert_error(api::plan(parse(capsules), JsValue::UNDEFINED), "unknown-variant", "capsules[0].trustLevel");
    assert_eq!(expected_list(&error), ["verified", "checked", "fuzzed", "trustedExternal"]);
    assert_error(api::plan(parse(r#"{"ops": [], "opz": 1}"#), JsValue::UNDEFINED), "unknown-field", "opz");
    assert_error(api::plan(parse("{}"), JsValue::UNDEFINED), "missing-field", "ops");
    assert_error(api::plan(parse(r#"{"ops": [], "configs": []}"#), JsValue::UNDEFINED), "empty-list", "configs");
    // Text keeps what an object cannot: a duplicate field.
    assert_error(
        api::plan(JsValue::from_str(r#"{"ops": [], "ops": []}"#), JsValue::UNDEFINED),
        "duplicate-field",
        "ops",
    );
    let error = api::plan_json(r#"{"ops": [], "target": {"os": "MacOS"}}"#.into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(get_str(&error, "code").as_deref(), Some("unknown-variant"));
    assert_eq!(get_str(&error, "path").as_deref(), Some("target.os"));
    let error = api::plan_json("plan please".into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(get_str(&error, "code").as_deref(), Some("invalid-json"));
    assert_eq!(get_str(&error, "path").as_deref(), Some(""));
}

#[wasm_bindgen_test]
fn non_json_values_throw_with_a_code() {
    assert_error(api::plan(JsValue::UNDEFINED, JsValue::UNDEFINED), "missing-field", "");
    assert_error(api::plan(BigInt::from(1u32).into(), JsValue::UNDEFINED), "wrong-type", "");
    let with_bigint = parse(r#"{"ops": []}"#);
    Reflect::set(&with_bigint, &"explain".into(), &BigInt::from(1u32).into()).unwrap();
    assert_error(api::plan(with_bigint, JsValue::UNDEFINED), "wrong-type", "explain"); // refused where it stands
    let function: Function = Function::new_no_args("return 1");
    assert_error(api::plan(function.into(), JsValue::UNDEFINED), "wrong-type", "");
    assert_error(api::parse_target_js(JsValue::symbol(Some("t"))), "wrong-type", "");
    assert_error(api::linux_cuda(JsValue::from_f64(1.0)), "wrong-type", "");
    // The instance still answers.
    assert_eq!(stringify(&api::presets()), golden!("presets"));
}

#[wasm_bindgen_test]
fn reference_capsules_and_schemas() {
    let capsules = Array::from(&api::reference_capsules());
    assert_eq!(capsules.length(), 68);
    for capsule in capsules.iter() {
        assert_eq!(get_str(&capsule, "provider").as_deref(), Some("reference"));
        assert_eq!(get_str(&capsule, "device").as_deref(), Some("cpu"));
    }
    for (name, golden) in [
        ("Target", golden!("schema-Target")),
        ("Availability", golden!("schema-Availability")),
        ("ExecutionConfig", golden!("schema-ExecutionConfig")),
        ("KernelCapsule", golden!("schema-KernelCapsule")),
        ("PlanRequest", golden!("schema-PlanRequest")),
        ("PlanResult", golden!("schema-PlanResult")),
    ] {
        let schema = api::schema(JsValue::from_str(name)).unwrap();
        assert!(schema.is_object(), "{name}");
        assert_eq!(stringify(&schema), stringify(&parse(golden)), "{name}");
    }
    // The native probe's answers: only the command carries their schemas.
    for name in ["NativeResolution", "ProbedPlanResult"] {
        assert_error(api::schema(JsValue::from_str(name)), "unsupported-platform", "");
    }
    let error = assert_error(api::schema(JsValue::from_str("Plan")), "unknown-variant", "");
    assert_eq!(expected_list(&error).len(), 8);
    assert_error(api::schema(JsValue::from_f64(3.0)), "wrong-type", "");
}

#[wasm_bindgen_test]
fn thrown_errors_are_js_errors_with_a_one_line_message() {
    let error = api::linux_rocm(parse(r#"{"arch": "x86_64"}"#)).unwrap_err();
    let error: js_sys::Error = error.dyn_into().expect("a js_sys::Error");
    assert_eq!(String::from(error.name()), "BackendTargetsError");
    let message = String::from(error.message());
    assert!(message.starts_with("[unsupported-option] at arch: "), "{message}");
    assert!(!message.contains('\n'));
}

#[wasm_bindgen_test]
fn plan_json_refuses_a_non_string_with_a_code() {
    let error = api::plan_json(JsValue::from_f64(5.0), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(Reflect::get(&error, &"code".into()).unwrap().as_string().as_deref(), Some("wrong-type"));
}
