//! The two probe outcomes a real browser cannot be made to produce on demand,
//! simulated in a real headless Chromium by swapping `navigator.gpu
//! .requestAdapter` for the length of one probe:
//!
//! * `timeout`: `requestAdapter()` never answers, or (with `verifyDevice`)
//!   the adapter's `requestDevice()` never does;
//! * `adapter-request-failed`: `requestAdapter()` throws or rejects;
//! * `device-request-failed`: the adapter's `requestDevice()` rejects.
//!
//! Why only these: every other outcome is real browser behaviour that
//! tests/js/browser.test.mjs obtains from Chromium itself, without any
//! stand-in — `adapter-available` (SwiftShader with `--enable-unsafe-webgpu`),
//! `no-adapter` (default flags: `requestAdapter()` answers `null`) and
//! `no-webgpu-api` (an insecure context has no `navigator.gpu`); and
//! `no-navigator` is Node (tests/js/probe-node.test.mjs). A browser that hangs
//! or fails inside `requestAdapter()` cannot be provoked with a flag, so only
//! the method is replaced here — on the real `navigator.gpu` object, which
//! both the probe's direct request and wgpu's request go through — and put
//! back afterwards. For the device, the shim hands out the real adapter with
//! its `requestDevice` replaced.
//!
//! Run in Chromium by wasm-bindgen-test-runner (see scripts/test-browser.sh):
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test -p backend-targets-browser --target wasm32-unknown-unknown \
//!     --test probe_browser
//! with the browser's flags in webdriver.json (Chromium needs
//! `--enable-unsafe-webgpu` to expose an adapter headless).
#![cfg(browser)]

use backend_targets_browser::probe;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The real `navigator.gpu` (page or worker); the test needs WebGPU exposed.
fn navigator_gpu() -> Object {
    let gpu = get(&get(&js_sys::global(), "navigator"), "gpu");
    assert!(
        !gpu.is_undefined() && !gpu.is_null(),
        "navigator.gpu is missing: run in Chromium from a secure context with --enable-unsafe-webgpu"
    );
    gpu.unchecked_into()
}

/// Replaces `navigator.gpu.requestAdapter` with `replacement` (an own
/// property shadowing `GPU.prototype.requestAdapter`) until dropped.
struct SwappedRequestAdapter {
    gpu: Object,
    /// The own property that was there before, if any (normally none).
    previous_own: Option<JsValue>,
}

impl SwappedRequestAdapter {
    fn install(replacement: &Function) -> Self {
        let gpu = navigator_gpu();
        let key = JsValue::from_str("requestAdapter");
        let previous_own = Object::has_own(&gpu, &key).then(|| get(&gpu, "requestAdapter"));
        assert!(Reflect::set(&gpu, &key, replacement).unwrap(), "navigator.gpu.requestAdapter is writable");
        Self { gpu, previous_own }
    }
}

impl Drop for SwappedRequestAdapter {
    fn drop(&mut self) {
        let key = JsValue::from_str("requestAdapter");
        match &self.previous_own {
            Some(value) => Reflect::set(&self.gpu, &key, value).unwrap(),
            None => Reflect::delete_property(&self.gpu, &key).unwrap(),
        };
        assert!(!Object::has_own(&self.gpu, &key) || self.previous_own.is_some());
    }
}

/// `probe(options)`: the exported async function, awaited directly.
async fn run_probe(options: &str) -> JsValue {
    let options = js_sys::JSON::parse(options).expect("valid JSON options");
    probe(options).await.expect("probe() rejects only for invalid options")
}

fn string(report: &JsValue, key: &str) -> String {
    get(report, key).as_string().unwrap_or_else(|| panic!("{key} is a string"))
}

fn number(report: &JsValue, key: &str) -> f64 {
    get(report, key).as_f64().unwrap_or_else(|| panic!("{key} is a number"))
}

/// The report of an unavailable outcome, whatever its reason.
fn assert_unavailable(report: &JsValue, reason: &str, timeout_ms: f64) {
    assert_eq!(get(report, "available").as_bool(), Some(false));
    assert_eq!(string(report, "reason"), reason, "message: {}", string(report, "message"));
    assert_eq!(get(report, "apiPresent").as_bool(), Some(true));
    assert!(get(report, "adapter").is_undefined());
    assert_eq!(number(report, "timeoutMs"), timeout_ms);
}

/// Probes with `navigator.gpu.requestAdapter` swapped for `shim`, restored
/// afterwards.
async fn probe_with(shim: &Function, options: &str) -> JsValue {
    let _swap = SwappedRequestAdapter::install(shim);
    run_probe(options).await
}

#[wasm_bindgen_test]
async fn a_request_adapter_that_never_answers_gives_timeout() {
    let never = Function::new_no_args("return new Promise(() => {});");
    let report = probe_with(&never, r#"{"timeoutMs": 200}"#).await;
    assert_unavailable(&report, "timeout", 200.0);
    assert_eq!(string(&report, "message"), "no answer from requestAdapter() within 200 ms");
    let elapsed = number(&report, "elapsedMs");
    assert!((190.0..2000.0).contains(&elapsed), "elapsedMs {elapsed}: the timeout, not the default 2000 ms");

    // Restored: the real adapter answers again (SwiftShader here).
    let again = run_probe(r#"{"timeoutMs": 2000}"#).await;
    assert_eq!(string(&again, "reason"), "adapter-available", "message: {}", string(&again, "message"));
}

#[wasm_bindgen_test]
async fn a_request_adapter_that_fails_gives_adapter_request_failed() {
    // A rejected promise: what a browser's requestAdapter() gives for an
    // internal failure (a WebIDL operation returning a promise never throws).
    let rejects = Function::new_no_args("return Promise.reject(new Error('simulated GPU process crash'));");
    let report = probe_with(&rejects, "{}").await;
    assert_unavailable(&report, "adapter-request-failed", 2000.0);
    assert_eq!(string(&report, "message"), "requestAdapter() failed: simulated GPU process crash");

    // A non-Error rejection value still gives a message.
    let rejects_string = Function::new_no_args("return Promise.reject('out of memory');");
    let report = probe_with(&rejects_string, "{}").await;
    assert_unavailable(&report, "adapter-request-failed", 2000.0);
    assert_eq!(string(&report, "message"), "requestAdapter() failed: out of memory");

    // A shim that throws synchronously: answered before wgpu is involved
    // (wgpu's own call is not guarded and would escape the probe).
    let throws = Function::new_no_args("throw new TypeError('shimmed away');");
    let report = probe_with(&throws, r#"{"timeoutMs": 500}"#).await;
    assert_unavailable(&report, "adapter-request-failed", 500.0);
    assert_eq!(string(&report, "message"), "requestAdapter() threw: shimmed away");

    let again = run_probe("{}").await;
    assert_eq!(string(&again, "reason"), "adapter-available", "message: {}", string(&again, "message"));
}

/// A `requestAdapter` that answers the real adapter, with its `requestDevice`
/// replaced by `request_device` (the body of a JS function).
fn adapter_whose_request_device(request_device: &str) -> Function {
    let real = get(&navigator_gpu(), "requestAdapter");
    let make = Function::new_with_args(
        "real, requestDevice",
        "return async function (options) { \
           const adapter = await real.call(navigator.gpu, options); \
           Object.defineProperty(adapter, 'requestDevice', { value: requestDevice }); \
           return adapter; };",
    );
    make.call2(&JsValue::NULL, &real, &Function::new_no_args(request_device))
        .expect("the shim is made")
        .unchecked_into()
}

#[wasm_bindgen_test]
async fn a_device_request_that_fails_gives_device_request_failed() {
    let rejects = adapter_whose_request_device("return Promise.reject(new Error('simulated device loss'));");
    let report = probe_with(&rejects, r#"{"verifyDevice": true}"#).await;
    assert_eq!(string(&report, "reason"), "device-request-failed", "message: {}", string(&report, "message"));
    assert_eq!(get(&report, "available").as_bool(), Some(false));
    assert_eq!(get(&report, "deviceVerified").as_bool(), Some(false));
    assert_eq!(string(&report, "message"), "requestDevice() failed: simulated device loss");
    // The adapter itself answered, and is reported.
    assert_eq!(string(&get(&get(&report, "adapter"), "info"), "architecture"), "swiftshader");

    // Without verifyDevice, the device is never asked for.
    let report = probe_with(&rejects, "{}").await;
    assert_eq!(string(&report, "reason"), "adapter-available", "message: {}", string(&report, "message"));
    assert!(get(&report, "deviceVerified").is_undefined());
}

#[wasm_bindgen_test]
async fn a_device_request_that_never_answers_gives_timeout() {
    let never = adapter_whose_request_device("return new Promise(() => {});");
    let report = probe_with(&never, r#"{"verifyDevice": true, "timeoutMs": 300}"#).await;
    assert_unavailable(&report, "timeout", 300.0);
    assert_eq!(string(&report, "message"), "no answer from requestDevice() within 300 ms");
    let elapsed = number(&report, "elapsedMs");
    assert!((250.0..2000.0).contains(&elapsed), "elapsedMs {elapsed}: the probe's whole timeout");
}
