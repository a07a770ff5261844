//! The verification's edge (`detect({ verify })`, the full package only):
//! runs [`probe::verify`](backend_targets::probe::verify)'s workload on the adapter through wgpu (WGSL
//! passed to the browser as it is), computes it in this module's
//! WebAssembly too, times both in the same call, and turns what it saw into
//! a verdict within the budget. The JS half (`verify.js`) keeps verdicts
//! (localStorage, IndexedDB or this module's memory) and watches the
//! device wgpu is given: a lost device, and any WebGPU call that throws
//! (which would otherwise unwind through wgpu's frames), become faults that
//! this side reads after each step — never an exception out of [`detect()`](crate::detect).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::host::{get, now_ms, within};
use backend_targets::ToJsonText;
use backend_targets::probe::verify::{
    F16_TOLERANCE, F32_TOLERANCE, LAYERS, NOT_KEPT, PASSES, ROWS, SPEED_MARGIN, Verification, VerifyCache,
    VerifyOptions, VerifyPrecision, WIDTH, Workload, compare, middle_run, reference_repeats, shader, slower_than_wasm,
    warm_passes, warm_runs_decided, workload_text,
};
use backend_targets::probe::web::{KeptVerdict, ProbeReason, ProbeReport, VERDICT_FORMAT, WebGpuVerdict};

#[wasm_bindgen(module = "/src/verify.js")]
extern "C" {
    /// A fresh record of faults (`{}`).
    #[wasm_bindgen(js_name = newFaults)]
    fn new_faults() -> JsValue;
    /// The function `captureRequest` hands wgpu's adapter promise to: the
    /// adapter wgpu gets is guarded, its faults noted in `faults`.
    #[wasm_bindgen(js_name = adapterGuard)]
    fn adapter_guard(faults: &JsValue) -> JsValue;
    /// The cache key of a verdict on the adapter (an `AdapterReport`'s
    /// JSON text), for `precision`, in the kept verdicts' form `format`: the
    /// JS half's `verdictKey`, which the other entries' cache lookup calls too.
    #[wasm_bindgen(js_name = verdictKeyOf)]
    fn verdict_key(adapter: &str, precision: &str, format: u32) -> String;
    /// The first fault seen on the guarded adapter and device (`{ kind,
    /// message }`), or `undefined`.
    #[wasm_bindgen(js_name = takeFault)]
    fn take_fault(faults: &JsValue) -> JsValue;
    /// The text kept under `key` (a `KeptVerdict`'s JSON, as storage holds
    /// it: the core reads it), or `undefined`. Never rejects.
    #[wasm_bindgen(js_name = cachedVerdict)]
    fn cached_verdict(cache: &str, key: &str) -> Promise;
    /// Keeps a `KeptVerdict`'s JSON text under `key`: resolves once it is
    /// written (to whether storage took it). Never rejects.
    #[wasm_bindgen(js_name = keepVerdict)]
    fn keep_verdict(cache: &str, key: &str, text: &str) -> Promise;
}

/// The faults of one verification and the guard that notes them.
pub(super) fn guard() -> (JsValue, JsValue) {
    let faults = new_faults();
    let wrap = adapter_guard(&faults);
    (faults, wrap)
}

/// Why the verification stopped short of a verdict on the numbers and the
/// speed: a reason and the sentence that says so.
type Stop = (ProbeReason, String);

/// The verdict of `options` on the adapter `report` describes, which wgpu
/// holds as `adapter` (its device calls guarded by `faults`): from the
/// cache when one is kept, else verified within the budget. The report
/// comes back with the verdict applied.
pub(super) async fn verified(
    report: ProbeReport,
    adapter: wgpu::Adapter,
    options: &VerifyOptions,
    faults: &JsValue,
    probed_at: Option<f64>,
) -> ProbeReport {
    let Some(described) = report.adapter.as_ref() else { return report };
    let key = verdict_key(&described.to_json_text(), options.precision.as_str(), VERDICT_FORMAT);
    let cache = options.cache.as_str();
    // The budget counts from the probe's answer: where another entry probed
    // and handed its adapter over, from that answer, so that loading this
    // module counts against the budget too. It bounds the storage as well
    // (an IndexedDB that never answers is a verdict not found, then not kept).
    let started = probed_at.unwrap_or_else(now_ms);
    let deadline = started + f64::from(options.budget_ms);
    let left = || (deadline - now_ms()).max(0.0);
    // The core reads what is kept (`KeptVerdict::read`: its form, key and
    // age); a text it does not read is verified afresh, and replaced.
    if options.cache != VerifyCache::None
        && let Some(Ok(text)) = within(left(), JsFuture::from(cached_verdict(cache, &key))).await
        && let Some(text) = text.as_string()
        && let Some(kept) = report.with_kept_verdict(&text, &key, js_sys::Date::now())
    {
        return kept;
    }
    let device: Rc<RefCell<Option<wgpu::Device>>> = Rc::default();
    let mut figures = Figures::default();
    let outcome = within(left(), run(&adapter, options, faults, &device, &mut figures, deadline)).await;
    if let Some(device) = device.borrow_mut().take() {
        device.destroy();
    }
    let (reason, message) = match outcome {
        Some(Ok(())) => (ProbeReason::Verified, String::new()),
        Some(Err(stop)) => stop,
        None => match fault(faults) {
            Some(stop) => stop,
            None if figures.stopped_slower(now_ms()) => (ProbeReason::SlowerThanWasm, String::new()),
            None => (
                ProbeReason::VerifyTimeout,
                format!("the verification did not finish within its budget of {} ms", options.budget_ms),
            ),
        },
    };
    let verification = figures.into_verification(options, key.clone(), now_ms() - started);
    let mut verdict = WebGpuVerdict::new(reason, &message, &report.message, verification);
    // Kept before `detect()` answers (within what is left of the budget): a
    // worker that ends on its answer keeps it too. Where persistent storage
    // refused it, the answer says so (the kept text does not).
    if options.cache != VerifyCache::None && verdict.reason.is_lasting() {
        let text = KeptVerdict { at: js_sys::Date::now(), verdict: verdict.clone() }.to_json_text();
        let kept = within(left(), JsFuture::from(keep_verdict(cache, &key, &text))).await;
        if !matches!(kept, Some(Ok(kept)) if kept.as_bool() == Some(true)) {
            verdict.verification.not_kept = Some(NOT_KEPT.to_string());
        }
    }
    report.with_verdict(verdict)
}

/// What the verification measured, as far as it got.
#[derive(Default)]
struct Figures {
    checked: Vec<VerifyPrecision>,
    timer_resolution_ms: f64,
    wasm_ms: Option<f64>,
    /// Each finished warm run's time per pass.
    warm_runs: Vec<f64>,
    /// The passes per readback of the warm runs.
    warm_passes: usize,
    /// When the warm run in flight started, if one is.
    warm_started: Option<f64>,
    /// The run in flight's time per pass when the budget stopped it, where
    /// that was already slower than WebAssembly: a lower bound.
    gpu_ms_more_than: Option<f64>,
    max_error: Option<f64>,
    max_error_at: Option<String>,
}

impl Figures {
    /// Whether the warm run in flight when the budget ran out (at `now`) had
    /// already taken longer than WebAssembly would, with the margin: then the
    /// GPU is slower, by at least that time, which is kept as a lower bound.
    fn stopped_slower(&mut self, now: f64) -> bool {
        let (Some(started), Some(wasm_ms)) = (self.warm_started, self.wasm_ms) else { return false };
        let so_far = (now - started) / self.warm_passes.max(1) as f64;
        let slower = slower_than_wasm(so_far, wasm_ms);
        if slower {
            self.gpu_ms_more_than = Some(so_far);
        }
        slower
    }

    fn into_verification(self, options: &VerifyOptions, adapter_key: String, elapsed_ms: f64) -> Verification {
        let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
        // A measurement, or a lower bound: never both.
        let measured = if self.gpu_ms_more_than.is_some() { None } else { middle_run(&self.warm_runs) };
        let (gpu_ms, wasm_ms) = (measured.map(round), self.wasm_ms.map(round));
        Verification {
            workload: workload_text(if self.warm_passes == 0 { PASSES } else { self.warm_passes }),
            checked: self.checked,
            gpu_ms,
            gpu_ms_more_than: self.gpu_ms_more_than.map(round),
            wasm_ms,
            ratio: match (gpu_ms, wasm_ms) {
                (Some(gpu), Some(wasm)) if wasm > 0.0 => Some((gpu / wasm * 1000.0).round() / 1000.0),
                _ => None,
            },
            timer_resolution_ms: self.timer_resolution_ms,
            margin: SPEED_MARGIN,
            max_error: self.max_error.filter(|e| e.is_finite()),
            max_error_at: self.max_error_at,
            tolerance: F32_TOLERANCE,
            budget_ms: options.budget_ms,
            elapsed_ms: round(elapsed_ms),
            adapter_key,
            cached: false,
            not_kept: None,
            kept_at: None,
        }
    }
}

/// The first fault the JS half saw, as a stop.
fn fault(faults: &JsValue) -> Option<Stop> {
    let found = take_fault(faults);
    if found.is_undefined() {
        return None;
    }
    let reason = match get(&found, "kind").as_string().as_deref() {
        Some("device-lost") => ProbeReason::DeviceLost,
        _ => ProbeReason::VerifyFailed,
    };
    Some((reason, get(&found, "message").as_string().unwrap_or_default()))
}

/// `Err` with the first fault, if any.
fn check(faults: &JsValue) -> Result<(), Stop> {
    fault(faults).map_or(Ok(()), Err)
}

/// The buffers of one workload on one device.
struct Buffers {
    input: wgpu::Buffer,
    ping: wgpu::Buffer,
    pong: wgpu::Buffer,
    weights: wgpu::Buffer,
    biases: wgpu::Buffer,
    layers: Vec<wgpu::Buffer>,
    /// Where every run's output is read back: each run is waited for, and
    /// unmapped, before the next (a fresh buffer's first map is slower, which
    /// a warm run would otherwise be timed with).
    readback: wgpu::Buffer,
}

fn bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

const OUTPUT_BYTES: u64 = (ROWS * WIDTH * 4) as u64;

impl Buffers {
    fn new(device: &wgpu::Device, queue: &wgpu::Queue, workload: &Workload) -> Self {
        let storage = |data: &[f32], copy_src: bool| {
            let usage = wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | if copy_src { wgpu::BufferUsages::COPY_SRC } else { wgpu::BufferUsages::empty() };
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (data.len() * 4) as u64,
                usage,
                mapped_at_creation: false,
            });
            queue.write_buffer(&buffer, 0, &bytes(data));
            buffer
        };
        let activations = vec![0.0; ROWS * WIDTH];
        let layers = (0..LAYERS as u32)
            .map(|layer| {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: 16,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let relu = u32::from(layer as usize + 1 < LAYERS);
                let words: Vec<u8> = [layer, relu, 0, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
                queue.write_buffer(&buffer, 0, &words);
                buffer
            })
            .collect();
        Self {
            input: storage(&workload.input, false),
            ping: storage(&activations, true),
            pong: storage(&activations, true),
            weights: storage(&workload.weights, false),
            biases: storage(&workload.biases, false),
            layers,
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: OUTPUT_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    /// Layer `l` reads the input (`l` = 0) or the previous layer's output,
    /// and writes `ping` (even `l`) or `pong` (odd): the last writes `pong`.
    fn bind_groups(&self, device: &wgpu::Device, pipeline: &wgpu::ComputePipeline) -> Vec<wgpu::BindGroup> {
        let layout = pipeline.get_bind_group_layout(0);
        let output = |layer: usize| if layer.is_multiple_of(2) { &self.ping } else { &self.pong };
        (0..LAYERS)
            .map(|layer| {
                let source = if layer == 0 { &self.input } else { output(layer - 1) };
                let entries = [source, output(layer), &self.weights, &self.biases, &self.layers[layer]];
                let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
                    .iter()
                    .enumerate()
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &entries })
            })
            .collect()
    }
}

/// `passes` passes of the layers, then the output copied for reading back.
fn commands(
    device: &wgpu::Device,
    pipeline: &wgpu::ComputePipeline,
    groups: &[wgpu::BindGroup],
    buffers: &Buffers,
    passes: usize,
    readback: &wgpu::Buffer,
) -> wgpu::CommandBuffer {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        for _ in 0..passes {
            for group in groups {
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups((WIDTH / 64) as u32, ROWS as u32, 1);
            }
        }
    }
    encoder.copy_buffer_to_buffer(&buffers.pong, 0, readback, 0, OUTPUT_BYTES);
    encoder.finish()
}

/// Maps the readback buffer and copies its values out; `Err` with the
/// browser's words when the map fails.
async fn read_back(readback: &wgpu::Buffer, faults: &JsValue) -> Result<Vec<f32>, Stop> {
    let slot: Rc<RefCell<Option<Function>>> = Rc::default();
    let resolve = slot.clone();
    let mapped = Promise::new(&mut |done, _| *resolve.borrow_mut() = Some(done));
    let ready = slot.borrow_mut().take();
    readback.map_async(wgpu::MapMode::Read, .., move |result| {
        if let Some(done) = ready {
            let _ = done.call1(&JsValue::NULL, &JsValue::from_bool(result.is_ok()));
        }
    });
    check(faults)?;
    let ok = JsFuture::from(mapped).await.map(|ok| ok.is_truthy()).unwrap_or(false);
    check(faults)?;
    if !ok {
        return Err((ProbeReason::VerifyFailed, "mapAsync() of the result failed".into()));
    }
    let values = match readback.get_mapped_range(..) {
        Ok(view) => view.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        Err(error) => return Err((ProbeReason::VerifyFailed, format!("getMappedRange() failed: {error}"))),
    };
    readback.unmap();
    check(faults)?;
    Ok(values)
}

/// One compiled path (a precision's pipeline and bind groups).
struct Path {
    pipeline: wgpu::ComputePipeline,
    groups: Vec<wgpu::BindGroup>,
}

fn path(device: &wgpu::Device, buffers: &Buffers, precision: VerifyPrecision, faults: &JsValue) -> Result<Path, Stop> {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(shader(precision).into()),
    });
    check(faults)?;
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    check(faults)?;
    let groups = buffers.bind_groups(device, &pipeline);
    check(faults)?;
    Ok(Path { pipeline, groups })
}

/// Submits `passes` passes on `path` and reads the output back.
async fn compute(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    path: &Path,
    buffers: &Buffers,
    passes: usize,
    faults: &JsValue,
) -> Result<Vec<f32>, Stop> {
    let readback = &buffers.readback;
    let commands = commands(device, &path.pipeline, &path.groups, buffers, passes, readback);
    check(faults)?;
    queue.submit([commands]);
    check(faults)?;
    read_back(readback, faults).await
}

/// Error scopes around the work. wgpu requires them popped in reverse
/// order (else it panics): a verification that stops early drops them so,
/// last pushed first.
struct Scopes(Vec<wgpu::ErrorScopeGuard>);

impl Scopes {
    fn push(device: &wgpu::Device) -> Self {
        Self(vec![
            device.push_error_scope(wgpu::ErrorFilter::Validation),
            device.push_error_scope(wgpu::ErrorFilter::Internal),
            device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
        ])
    }

    /// Pops them, last pushed first: the first error any of them caught.
    async fn first_error(mut self) -> Option<String> {
        let mut first = None;
        while let Some(scope) = self.0.pop() {
            if let Some(error) = scope.pop().await {
                first.get_or_insert_with(|| error.to_string());
            }
        }
        first
    }
}

impl Drop for Scopes {
    fn drop(&mut self) {
        while let Some(scope) = self.0.pop() {
            drop(scope);
        }
    }
}

/// The resolution of the clock ([`now_ms`]), in milliseconds: the smallest
/// step seen between two readings, over three steps; 1 where it never moves.
fn timer_resolution() -> f64 {
    let mut smallest = f64::INFINITY;
    for _ in 0..3 {
        let first = now_ms();
        let mut next = first;
        // A clock that never moves (a stand-in's) is not waited for forever.
        for _ in 0..1_000_000 {
            next = now_ms();
            if next != first {
                break;
            }
        }
        if next > first {
            smallest = smallest.min(next - first);
        }
    }
    if smallest.is_finite() { (smallest * 1000.0).round().max(1.0) / 1000.0 } else { 1.0 }
}

/// The WebAssembly reference's time for one pass, in milliseconds, on a
/// clock of `resolution` ms, and its output: the pass repeated until a
/// timing spans [`REFERENCE_TICKS`](backend_targets::probe::verify::REFERENCE_TICKS) ticks, the fastest of three timings (a
/// computation on the CPU is only ever slowed by what else runs; the first
/// pass also warms the module's memory).
fn reference(workload: &Workload, resolution: f64) -> (f64, Vec<f32>) {
    let start = now_ms();
    let mut expected = std::hint::black_box(workload.forward(VerifyPrecision::F32));
    let repeats = reference_repeats(now_ms() - start, resolution);
    let mut fastest = f64::INFINITY;
    for _ in 0..3 {
        let start = now_ms();
        for _ in 0..repeats {
            expected = std::hint::black_box(workload.forward(VerifyPrecision::F32));
        }
        fastest = fastest.min((now_ms() - start) / f64::from(repeats));
    }
    // No figure below what the clock can tell apart.
    (fastest.max(resolution / f64::from(repeats)), expected)
}

/// The verification itself: the reference in WebAssembly (timed), a device,
/// both paths, a first run checked for its numbers, then warm runs timed
/// against the reference, each waited for to its readback. Figures are
/// filled as they are found.
async fn run(
    adapter: &wgpu::Adapter,
    options: &VerifyOptions,
    faults: &JsValue,
    device_slot: &Rc<RefCell<Option<wgpu::Device>>>,
    figures: &mut Figures,
    deadline: f64,
) -> Result<(), Stop> {
    let workload = Workload::new();
    figures.timer_resolution_ms = timer_resolution();
    let (wasm_ms, expected) = reference(&workload, figures.timer_resolution_ms);
    figures.wasm_ms = Some(wasm_ms);
    let half = options.precision == VerifyPrecision::F16 && adapter.features().contains(wgpu::Features::SHADER_F16);
    let required_features = if half { wgpu::Features::SHADER_F16 } else { wgpu::Features::empty() };
    let requested = adapter.request_device(&wgpu::DeviceDescriptor {
        required_features,
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    });
    let (device, queue) = match requested.await {
        Ok(pair) => pair,
        Err(error) => {
            check(faults)?;
            return Err((ProbeReason::DeviceLost, format!("requestDevice() failed: {error}")));
        }
    };
    *device_slot.borrow_mut() = Some(device.clone());
    check(faults)?;
    let scopes = Scopes::push(&device);
    let buffers = Buffers::new(&device, &queue, &workload);
    check(faults)?;
    let single = path(&device, &buffers, VerifyPrecision::F32, faults)?;
    let half_path = if half { Some(path(&device, &buffers, VerifyPrecision::F16, faults)?) } else { None };
    // The first run: the numbers (and whatever the driver compiles late).
    let first_started = now_ms();
    let answered = compute(&device, &queue, &single, &buffers, 1, faults).await?;
    let first_run_ms = now_ms() - first_started;
    let half_answer = match &half_path {
        Some(path) => Some(compute(&device, &queue, path, &buffers, 1, faults).await?),
        None => None,
    };
    if let Some(error) = scopes.first_error().await {
        check(faults)?;
        return Err((ProbeReason::VerifyFailed, format!("WebGPU reported an error: {error}")));
    }
    figures.checked.push(VerifyPrecision::F32);
    let found = compare(&expected, &answered, F32_TOLERANCE);
    figures.max_error = Some(found.max_error);
    figures.max_error_at = Some(format!("{} (f32)", found.at));
    if !found.within {
        return Err((ProbeReason::WrongResults, format!("wrong results (f32): {}", found.why)));
    }
    if let Some(answered) = half_answer {
        figures.checked.push(VerifyPrecision::F16);
        let found_half = compare(&workload.forward(VerifyPrecision::F16), &answered, F16_TOLERANCE);
        if !found_half.within {
            figures.max_error = Some(found_half.max_error);
            figures.max_error_at = Some(format!("{} (f16)", found_half.at));
            return Err((ProbeReason::WrongResults, format!("wrong results (f16): {}", found_half.why)));
        }
    }
    // The warm runs, timed: `passes` passes per readback each (`PASSES`, or
    // fewer where the first run says that many would not fit the budget),
    // each waited for to its readback (so that the figure is a measurement, and no work
    // is left queued when `detect()` answers), until one run decides alone
    // or most of `WARM_RUNS` agree (a GPU shares its machine with everything
    // else; one run near the margin is one sample of its noise).
    let passes = warm_passes(first_run_ms, deadline - now_ms());
    figures.warm_passes = passes;
    while !warm_runs_decided(&figures.warm_runs, wasm_ms) {
        let start = now_ms();
        figures.warm_started = Some(start);
        let answered = compute(&device, &queue, &single, &buffers, passes, faults).await?;
        figures.warm_runs.push((now_ms() - start) / passes as f64);
        figures.warm_started = None;
        let found = compare(&expected, &answered, F32_TOLERANCE);
        if !found.within {
            return Err((ProbeReason::WrongResults, format!("wrong results (f32) on a warm run: {}", found.why)));
        }
    }
    let gpu_ms = middle_run(&figures.warm_runs).unwrap_or(f64::INFINITY);
    if slower_than_wasm(gpu_ms, wasm_ms) {
        return Err((ProbeReason::SlowerThanWasm, String::new()));
    }
    Ok(())
}
