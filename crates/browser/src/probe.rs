//! The browser probe (`wasm32-unknown-unknown` only): asks for a WebGPU
//! adapter through wgpu's browser backend and fills a [`ProbeReport`], then the
//! JS exports [`probe`], [`resolve`] and [`detect`].
//!
//! wgpu decides whether the adapter is usable. wgpu answers a rejection and a
//! `null` alike and, on the web, leaves [`AdapterInfo`] empty, so the probe also
//! awaits the very promise wgpu's `requestAdapter()` call returned (captured
//! for that one call): it tells `no-adapter` from `adapter-request-failed`,
//! and gives `GPUAdapterInfo`, the features and the limits in WebGPU spelling,
//! from the same adapter, with a single request. With `verifyDevice`, that
//! adapter is asked for a device (and the device destroyed). `timeoutMs`
//! bounds the whole probe. Nothing is cached: every call probes afresh, and
//! asks the `navigator.gpu` the page has now.
//!
//! What an adapter offers is read within `plan()`'s default limits (a
//! bounded number of features and limits, names of valid text within
//! `nameBytes`): what [`detect()`] answers can be planned against as it is, and
//! an adapter that cannot be read so is dropped (`adapter-unreadable`).
//!
//! The reading, the capture of the request, the timer, the clock and the
//! restart of a probe whose instance ended are in `probe.js`: one call each
//! instead of a boundary crossing per property.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};

use super::api::js_error;
use super::api::to_js;
use super::host::{get, now_ms, within};
use backend_targets::FromJsonText;
use backend_targets::Limits;
use backend_targets::Target;
use backend_targets::ToJsonText;
use backend_targets::probe::web::{
    AdapterInfo, AdapterReport, PowerPreference, ProbeOptions, ProbeReason, ProbeReport, Unreached,
    resolve as resolve_report,
};
use backend_targets::webgpu::LimitMap;

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

#[wasm_bindgen(module = "/src/probe.js")]
extern "C" {
    /// Info, features and limits of a `GPUAdapter` (an `AdapterReport`,
    /// flat: see `adapterFields`) within the given bounds; throws an Error
    /// saying why when it cannot be read so.
    #[wasm_bindgen(js_name = adapterFields, catch)]
    fn read_adapter(
        adapter: &JsValue,
        max_features: u32,
        max_limits: u32,
        max_name_bytes: u32,
    ) -> Result<Array, JsValue>;
    /// `now()`, or the first start of a probe started again in a fresh instance.
    #[wasm_bindgen(js_name = probeStart)]
    fn probe_start() -> f64;
    /// Makes `navigator.gpu` read `gpu` until `unpinGpu`; `undefined` when it cannot.
    #[wasm_bindgen(js_name = pinGpu)]
    fn pin_gpu(gpu: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = unpinGpu)]
    fn unpin_gpu(pin: &JsValue);
    /// Requests a device from the adapter and destroys it: resolves, or
    /// rejects with why there is none.
    #[wasm_bindgen(js_name = verifyDevice)]
    fn verify_device(adapter: &JsValue) -> Promise;
    /// Wraps `gpu.requestAdapter` to keep what its next call answers (and,
    /// given `wrap`, to hand wgpu `wrap(answer)` instead: the guarded adapter
    /// of a verification). `call` is the caller's own (see [`call_with`]):
    /// an adapter request it already made, taken instead of asking again,
    /// and `keep`, handed the request.
    #[wasm_bindgen(js_name = captureRequest, catch)]
    fn capture_request(gpu: &JsValue, wrap: &JsValue, call: &JsValue) -> Result<JsValue, JsValue>;
    /// Unwraps it: the call's promise, `undefined` if none, or what it threw.
    #[wasm_bindgen(js_name = releaseRequest, catch)]
    fn release_request(gpu: &JsValue, capture: &JsValue) -> Result<JsValue, JsValue>;
}

/// Both futures, polled concurrently.
async fn both<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut out_a, mut out_b) = (None, None);
    poll_fn(|cx| {
        if out_a.is_none()
            && let Poll::Ready(v) = a.as_mut().poll(cx)
        {
            out_a = Some(v);
        }
        if out_b.is_none()
            && let Poll::Ready(v) = b.as_mut().poll(cx)
        {
            out_b = Some(v);
        }
        match (out_a.take(), out_b.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                out_a = x;
                out_b = y;
                Poll::Pending
            }
        }
    })
    .await
}

fn error_text(error: &JsValue) -> String {
    let message = get(error, "message");
    message.as_string().or_else(|| error.as_string()).unwrap_or_else(|| "unknown error".to_string())
}

/// wgpu's adapter, if it obtained one. Its one failure on the web is
/// `RequestAdapterError::NotFound` (for a `null` answer and a rejection
/// alike), which the captured promise already tells apart, so its text (and
/// the formatting code behind it, some 750 B gzipped) is not kept.
type WgpuOutcome = Option<AdapterHandle>;

/// What the probe keeps of wgpu's adapter: the adapter itself where it may
/// be verified; nothing elsewhere (dropped at once, which keeps wgpu's
/// adapter layer out of the detect-only module).
#[cfg(feature = "verify")]
type AdapterHandle = wgpu::Adapter;
#[cfg(not(feature = "verify"))]
type AdapterHandle = ();

#[cfg(feature = "verify")]
fn keep(adapter: wgpu::Adapter) -> AdapterHandle {
    adapter
}
#[cfg(not(feature = "verify"))]
fn keep(_: wgpu::Adapter) -> AdapterHandle {}

thread_local! {
    /// wgpu's handle on `navigator.gpu`, with the object it was made for:
    /// creating it is most of a probe's own cost, so it is kept while the page's
    /// `navigator.gpu` is that object, and made again when the page has wrapped
    /// or replaced it (wgpu keeps the object it read). It holds no answer; every
    /// probe asks afresh.
    static INSTANCE: RefCell<Option<(JsValue, wgpu::Instance)>> = const { RefCell::new(None) };
}

/// wgpu's instance over `gpu`; `None` when wgpu could not be made to read it.
fn instance_for(gpu: &JsValue) -> Option<wgpu::Instance> {
    INSTANCE.with(|cell| {
        if let Some((made_for, instance)) = &*cell.borrow()
            && Object::is(made_for, gpu)
        {
            return Some(instance.clone());
        }
        // wgpu reads `navigator.gpu` itself: pinned to `gpu` meanwhile, so that
        // a getter that gives a fresh wrapper on each read cannot make wgpu ask
        // another object than the one whose `requestAdapter` is captured.
        let pin = pin_gpu(gpu);
        if pin.is_undefined() {
            return None;
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        unpin_gpu(&pin);
        *cell.borrow_mut() = Some((gpu.clone(), instance.clone()));
        Some(instance)
    })
}

fn adapter_options(options: &ProbeOptions) -> wgpu::RequestAdapterOptions<'static, 'static> {
    wgpu::RequestAdapterOptions {
        power_preference: match options.power_preference {
            None => wgpu::PowerPreference::None,
            Some(PowerPreference::LowPower) => wgpu::PowerPreference::LowPower,
            Some(PowerPreference::HighPerformance) => wgpu::PowerPreference::HighPerformance,
        },
        force_fallback_adapter: options.force_fallback_adapter,
        compatible_surface: None,
        apply_limit_buckets: false,
    }
}

/// The one `requestAdapter()` call of a probe, seen from our side: the
/// promise it returned, or what it threw.
type Captured = Option<Result<Promise, JsValue>>;

/// Starts wgpu's adapter request, capturing the `requestAdapter()` promise it
/// makes: `navigator.gpu.requestAdapter` is wrapped (in `probe.js`) for
/// the duration of that synchronous call only, then put back. One request
/// serves both wgpu (which decides) and us (who read info, features and limits
/// off the same adapter). A call that throws is turned into a rejection, so it
/// cannot escape wgpu.
fn start_wgpu_request(
    gpu: &JsValue,
    instance: &wgpu::Instance,
    options: &ProbeOptions,
    wrap: &JsValue,
    call: &JsValue,
) -> Result<(impl Future<Output = WgpuOutcome>, Captured), JsValue> {
    let capture = capture_request(gpu, wrap, call)?;
    let request = instance.request_adapter(&adapter_options(options));
    // Put the method back before anything else can run.
    let captured = match release_request(gpu, &capture) {
        Ok(answer) if answer.is_undefined() => None,
        Ok(answer) => Some(Ok(answer.unchecked_into::<Promise>())),
        Err(thrown) => Some(Err(thrown)),
    };
    // wgpu's adapter is kept for a verification only (`verify`, which runs
    // its workload through it); `verifyDevice` asks the same GPUAdapter for
    // a device from the JS half (`probe.js`), which keeps wgpu's device
    // machinery (some 4 KB gzipped) out of the detect-only module.
    let outcome = async move { request.await.ok().map(keep) };
    Ok((outcome, captured))
}

/// Whether this global is a page or a web worker (Node 21+ and Deno also
/// define `navigator`, without being either).
fn is_browser_context() -> bool {
    let global = js_sys::global();
    !absent(&get(&global, "document")) || !absent(&get(&global, "WorkerGlobalScope"))
}

/// Whether wgpu can reach `navigator.gpu` here: its browser backend reads it
/// through the global's `Window` or `WorkerGlobalScope` (whichever is not
/// `undefined`), and panics, trapping the module, where neither is: a DOM
/// emulation that defines `document` alone (a bare shim in Node).
fn wgpu_reaches_gpu() -> bool {
    let global = js_sys::global();
    !get(&global, "Window").is_undefined() || !get(&global, "WorkerGlobalScope").is_undefined()
}

/// Whether this is Deno, whose `navigator.gpu` is WebGPU itself (wgpu's
/// native implementation, outside a page).
fn is_deno() -> bool {
    !absent(&get(&get(&js_sys::global(), "Deno"), "version"))
}

/// Reads info, features and limits off a `GPUAdapter`, in WebGPU spelling
/// (features sorted, without repeats, by the reader), within `plan()`'s
/// default limits, which the reader is given from their table: what
/// [`detect()`] answers is plannable as it is. (The reader applies
/// [`Limits::check_webgpu`]'s rule itself: checking it again here cost the
/// detect-only module 461 B gzipped; tests/js/hostile-browser.test.mjs plans
/// against what it answers.)
/// With the report, the adapter's name for messages, which the JS half
/// chooses from the info (`adapterName`: the description where the vendor
/// is a number, as Deno's wgpu gives it).
fn adapter_report(adapter: &JsValue) -> Result<(AdapterReport, String), String> {
    let limits = Limits::DEFAULT;
    let flat = read_adapter(adapter, limits.features as u32, limits.limits as u32, limits.name_bytes as u32)
        .map_err(|error| error_text(&error))?;
    // What the reader gives is an `AdapterReport` as it is (strings of valid
    // text, limits as safe integers), flat: taken item by item, with no JSON.
    let text = |i: u32| flat.get(i).as_string().unwrap_or_default();
    let features = flat.get(6).as_f64().unwrap_or_default() as u32;
    let report = AdapterReport {
        info: AdapterInfo { vendor: text(0), architecture: text(1), device: text(2), description: text(3) },
        is_fallback_adapter: flat.get(5).is_truthy(),
        features: (7..7 + features).map(text).collect(),
        limits: LimitMap::from_sorted(
            (7 + features..flat.length())
                .step_by(2)
                .map(|i| (text(i), flat.get(i + 1).as_f64().unwrap_or_default() as u64))
                .collect(),
        )
        .ok_or("its limits are not listed in name order")?,
    };
    Ok((report, text(4)))
}

/// Probes WebGPU once. Never fails for unavailability: the outcome is a reason.
pub async fn run_probe(options: &ProbeOptions) -> ProbeReport {
    run_probe_from(options, now_ms(), &JsValue::UNDEFINED).await
}

/// [`run_probe`], counting `timeoutMs` from `started` ([`now_ms()`] when the
/// probe was asked for, or earlier for one started again: `probeStart`),
/// for the caller's `call` (see [`call_with`]).
async fn run_probe_from(options: &ProbeOptions, started: f64, call: &JsValue) -> ProbeReport {
    let mut adapter = None;
    #[cfg(feature = "verify")]
    let (faults, wrap) = match options.verify {
        Some(_) => super::verify::guard(),
        None => (JsValue::UNDEFINED, JsValue::UNDEFINED),
    };
    #[cfg(not(feature = "verify"))]
    let wrap = JsValue::UNDEFINED;
    let mut report = probe_once(options, started, &wrap, call, &mut adapter).await.under(options);
    // A verification, once an adapter has passed every other check: its
    // budget counts from the caller's probe where another entry probed
    // (`probedAt`), else from now.
    #[cfg(feature = "verify")]
    if let (Some(verify), Some(adapter), true) = (&options.verify, adapter, report.available) {
        let probed_at = get(call, "probedAt").as_f64();
        report = super::verify::verified(report, adapter, verify, &faults, probed_at).await;
    }
    // (A module without the verification, the full one, probes as if
    // `verify` were not given: its entry hands `verify` to
    // `backend-targets/verify` wherever there is WebGPU, and only a direct
    // call of its glue could reach here with an adapter.)
    #[cfg(not(feature = "verify"))]
    let _ = adapter;
    // Microseconds are all a timer in a browser resolves; the rounding also
    // keeps the figure exact when a report is read back (`resolve`).
    report.elapsed_ms = ((now_ms() - started) * 1000.0).round() / 1000.0;
    report
}

/// Milliseconds left until `deadline` ([`now_ms()`] time), none if it has passed.
fn left_until(deadline: f64) -> f64 {
    (deadline - now_ms()).max(0.0)
}

/// One probe that began at `started` ([`now_ms()`]), which `timeoutMs` counts
/// from; wgpu's adapter, when one answered, in `adapter_out` (`wrap` and
/// `call`: see `captureRequest`).
async fn probe_once(
    options: &ProbeOptions,
    started: f64,
    wrap: &JsValue,
    call: &JsValue,
    adapter_out: &mut Option<AdapterHandle>,
) -> ProbeReport {
    let timeout = options.timeout_ms;
    let deadline = started + f64::from(timeout);
    let unavailable = |reason, message: String, api| ProbeReport::unavailable(reason, message, api, timeout);
    let navigator = get(&js_sys::global(), "navigator");
    if absent(&navigator) {
        let message = "there is no navigator here (not a browser or web worker)".to_string();
        return unavailable(ProbeReason::NoNavigator, message, false);
    }
    let gpu = get(&navigator, "gpu");
    if absent(&gpu) && !is_browser_context() {
        let message = "navigator has no gpu and this is not a browser or web worker".to_string();
        return unavailable(ProbeReason::NoNavigator, message, false);
    }
    if absent(&gpu) {
        // Which absence: a `null` API, a page that is not a secure context
        // (`isSecureContext` false; a context that does not say is taken as
        // secure), or no WebGPU in this browser.
        let row = if gpu.is_null() {
            Unreached::NULL_WEBGPU_API
        } else if get(&js_sys::global(), "isSecureContext").as_bool() == Some(false) {
            Unreached::INSECURE_CONTEXT
        } else {
            Unreached::NO_WEBGPU_API
        };
        return row.report(timeout);
    }
    // wgpu's browser backend expects a page, a worker, or Deno's own WebGPU:
    // elsewhere (Node with a WebGPU polyfill, even `{}`) creating its
    // instance traps. Such a `navigator.gpu` is not probed.
    if !is_browser_context() && !is_deno() {
        let message = "navigator.gpu exists, but this is not a browser, a web worker or Deno (a WebGPU polyfill?): \
                       it is not probed"
            .to_string();
        return unavailable(ProbeReason::NoNavigator, message, false);
    }
    if !wgpu_reaches_gpu() {
        let message = "navigator.gpu exists, but this global has neither Window nor WorkerGlobalScope, through which \
                       wgpu reads it (a DOM emulation such as a bare document shim): it is not probed"
            .to_string();
        return unavailable(ProbeReason::NoNavigator, message, false);
    }
    if left_until(deadline) == 0.0 {
        // No time left to ask the page anything (`timeoutMs: 0`, or a probe
        // started again in a fresh instance, see `probeStart`, whose time
        // has run out). What is absent was said above, whatever the time.
        return Unreached::NO_TIME.report(timeout);
    }
    let Some(instance) = instance_for(&gpu) else {
        let message = "navigator.gpu gives another object on every read, and wgpu cannot be made to ask the one read \
                       here: it is not probed"
            .to_string();
        return unavailable(ProbeReason::AdapterRequestFailed, message, true);
    };
    let (through_wgpu, captured) = match start_wgpu_request(&gpu, &instance, options, wrap, call) {
        Ok(started) => started,
        Err(error) => {
            let message = format!("requestAdapter() could not be called: {}", error_text(&error));
            return unavailable(ProbeReason::AdapterRequestFailed, message, true);
        }
    };
    let direct = match captured {
        Some(Ok(promise)) => JsFuture::from(promise),
        Some(Err(thrown)) => {
            let message = format!("requestAdapter() threw: {}", error_text(&thrown));
            return unavailable(ProbeReason::AdapterRequestFailed, message, true);
        }
        None => {
            let message = "wgpu did not call navigator.gpu.requestAdapter()".to_string();
            return unavailable(ProbeReason::AdapterRequestFailed, message, true);
        }
    };
    let Some((direct, through_wgpu)) = within(left_until(deadline), both(direct, through_wgpu)).await else {
        return Unreached::ADAPTER_TIMEOUT.report(timeout);
    };
    let ((adapter, name), handle) = match direct {
        Err(error) => {
            let message = format!("requestAdapter() failed: {}", error_text(&error));
            return unavailable(ProbeReason::AdapterRequestFailed, message, true);
        }
        Ok(adapter) if absent(&adapter) => {
            return Unreached::NO_ADAPTER.report(timeout);
        }
        Ok(adapter) => match adapter_report(&adapter) {
            Ok(report) => (report, adapter),
            Err(error) => {
                let message = format!("requestAdapter() answered what cannot be read as a GPUAdapter: {error}");
                return unavailable(ProbeReason::AdapterUnreadable, message, true);
            }
        },
    };
    let Some(through_wgpu) = through_wgpu else {
        let message = "wgpu found no adapter in what requestAdapter() answered".to_string();
        return unavailable(ProbeReason::AdapterRequestFailed, message, true);
    };
    *adapter_out = Some(through_wgpu);
    // `timeoutMs` bounds the whole probe: the device gets what is left of it.
    let device = if options.verify_device {
        let Some(device) = within(left_until(deadline), JsFuture::from(verify_device(&handle))).await else {
            let message = format!("no answer from requestDevice() within {timeout} ms");
            return unavailable(ProbeReason::Timeout, message, true);
        };
        Some(device.map(drop).map_err(|error| error_text(&error)))
    } else {
        None
    };
    let kind = if adapter.is_fallback_adapter { "fallback adapter" } else { "adapter" };
    let mut report = ProbeReport {
        available: true,
        reason: ProbeReason::AdapterAvailable,
        // (The name is the JS half's `adapterName`, not trimmed here:
        // `char::is_whitespace`'s tables were some 0.3 KB of the detect-only
        // module gzipped.)
        message: if name.is_empty() { kind.to_string() } else { format!("{kind} {name}") },
        api_present: true,
        adapter: Some(adapter),
        device_verified: None,
        verification: None,
        timeout_ms: timeout,
        elapsed_ms: 0.0,
    };
    if let Some(device) = device {
        report.device_verified = Some(device.is_ok());
        if let Err(error) = device {
            report.available = false;
            report.reason = ProbeReason::DeviceRequestFailed;
            report.message = format!("requestDevice() failed: {error}");
        }
    }
    report
}

/// The options of [`probe()`] and [`detect()`]; none given (`undefined`,
/// `null`), as most pages call them: nothing is read. Otherwise their JSON
/// text, read by the core's strict reader, as every module reads them.
fn probe_options(options: &JsValue) -> Result<ProbeOptions, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(ProbeOptions::default());
    }
    let read = super::api::json_text(options, true, Limits::CEILING.request_bytes)
        .and_then(|text| text.map(|text| ProbeOptions::from_json_text(&text)).transpose());
    Ok(read.map_err(js_error)?.unwrap_or_default())
}

/// What a call answers once the probe is done: the report, or the `wasm`
/// target resolved by it.
#[derive(Clone, Copy)]
enum Answer {
    Report,
    Resolution,
}

/// [`probe`] and [`detect`] in one future type: a single state machine and a
/// single promise adapter in the module, not one of each per export.
/// `started` is when the call was made (see `probeStart`).
/// `unloaded`: why the verification's module could not be loaded, for a
/// probe asked to verify that cannot ([`call_with`]'s `cause`).
async fn probe_and_answer(
    options: JsValue,
    answer: Answer,
    started: f64,
    unloaded: Option<String>,
    call: JsValue,
) -> Result<JsValue, JsValue> {
    let options = probe_options(&options)?;
    let mut report = run_probe_from(&options, started, &call).await;
    if let (Some(cause), Some(_)) = (unloaded, &options.verify) {
        report = report.without_verification(&cause);
    }
    let text = match answer {
        Answer::Report => report.to_json_text(),
        Answer::Resolution => resolve_report(&Target::wasm(), &report).to_json_text(),
    };
    Ok(to_js(&text))
}

/// Probes WebGPU afresh (pages, workers; in Node or WASI it answers
/// `no-navigator`). Rejects only for invalid options.
#[wasm_bindgen(unchecked_return_type = "Promise<ProbeReport>")]
pub fn probe(#[wasm_bindgen(unchecked_optional_param_type = "Partial<ProbeOptions>")] options: JsValue) -> Promise {
    future_to_promise(probe_and_answer(options, Answer::Report, probe_start(), None, JsValue::UNDEFINED))
}

/// Decides the target's `webGpu` feature from a probe report; every other
/// feature stays as declared.
#[cfg(feature = "planner-exports")]
#[wasm_bindgen(unchecked_return_type = "Resolution")]
pub fn resolve(
    #[wasm_bindgen(unchecked_param_type = "Target")] target: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProbeReport")] report: JsValue,
) -> Result<JsValue, JsValue> {
    let target = super::planning::target_from(&target).map_err(js_error)?;
    let report =
        super::planning::required(&report, "a probe report", Limits::CEILING.request_bytes).map_err(js_error)?;
    let report = ProbeReport::from_json_text(&report).map_err(|e| js_error(e.under("report")))?;
    Ok(to_js(&resolve_report(&target, &report).to_json_text()))
}

/// What the options ask of a verification, read by the strict reader as
/// [`probe()`] reads them (the same errors), defaults filled in:
/// `{ verify: { budgetMs, precision, cache }, verifyDevice, timeoutMs }`, or `undefined`
/// when they ask for none. The full package's entry asks this before it
/// looks up a kept verdict (pkg-template/index.js), so that it judges no
/// option itself.
#[cfg(feature = "planner-exports")]
#[wasm_bindgen(js_name = verifySettings, skip_typescript)]
pub fn verify_settings(options: JsValue) -> Result<JsValue, JsValue> {
    let options = probe_options(&options)?;
    Ok(match &options.verify {
        None => JsValue::UNDEFINED,
        Some(verify) => to_js(&format!(
            "{{\"verify\":{},\"verifyDevice\":{},\"timeoutMs\":{}}}",
            backend_targets::json::to_json(verify),
            options.verify_device,
            options.timeout_ms
        )),
    })
}

/// The probe report `report` (its JSON text) with the verdict kept in `kept`
/// (the cache's text, under `key`) applied, as the verification module
/// applies it: the core's one reader ([`ProbeReport::with_kept_verdict`]),
/// `elapsedMs` the call's time so far; `undefined` where the core does not
/// read the text (the entry hands the call to the verification, which
/// verifies afresh and replaces it). The full package's entry calls it
/// (pkg-template/index.js); not part of the package's API.
#[cfg(feature = "planner-exports")]
#[wasm_bindgen(js_name = withKeptVerdict, skip_typescript)]
pub fn with_kept_verdict(report: &str, kept: &str, key: &str, elapsed_ms: f64) -> JsValue {
    let Ok(report) = ProbeReport::from_json_text(report) else { return JsValue::UNDEFINED };
    match report.with_kept_verdict(kept, key, js_sys::Date::now()) {
        Some(mut answered) => {
            answered.elapsed_ms = (elapsed_ms * 1000.0).round() / 1000.0;
            to_js(&answered.to_json_text())
        }
        None => JsValue::UNDEFINED,
    }
}

/// `probe(options)` (`nested`: `detect(options)`) for one call of an entry
/// of the package, whose own `call` object (`{ adapter?, probedAt?, keep? }`)
/// carries what belongs to that call alone, whatever other calls run
/// meanwhile: the adapter request it already made (`adapter`, a promise:
/// taken instead of asking again), when its probe answered (`probedAt`,
/// where the verification's budget counts from), and `keep`, a function
/// handed the adapter request this probe makes or takes. With `cause` (the
/// runtime's error), the call was asked to verify and the verification's
/// module could not be had: an adapter the probe found usable is not kept
/// ([`ProbeReport::without_verification`]). Never a rejection but for
/// invalid options. The entries' JS calls it (pkg-template/); not part of
/// the package's API.
#[wasm_bindgen(js_name = callWith, skip_typescript)]
pub fn call_with(options: JsValue, nested: bool, call: JsValue, cause: Option<String>) -> Promise {
    let answer = if nested { Answer::Resolution } else { Answer::Report };
    future_to_promise(probe_and_answer(options, answer, probe_start(), cause, call))
}

/// `probe(options)`, then `resolve(wasm(), report)`.
#[wasm_bindgen(unchecked_return_type = "Promise<Resolution>")]
pub fn detect(#[wasm_bindgen(unchecked_optional_param_type = "Partial<ProbeOptions>")] options: JsValue) -> Promise {
    future_to_promise(probe_and_answer(options, Answer::Resolution, probe_start(), None, JsValue::UNDEFINED))
}
