//! The verification's edge (`detect({ verify })`, the full package only):
//! runs `probe::verify`'s workload on the adapter through wgpu (WGSL
//! passed to the browser as it is), computes it in this module's
//! WebAssembly too, times both in the same call, and turns what it saw into
//! a verdict within the budget. The JS half (`verify.js`) keeps verdicts
//! (localStorage, IndexedDB or this module's memory) and watches the
//! device wgpu is given: a lost device, and any WebGPU call that throws
//! (which would otherwise unwind through wgpu's frames), become faults that
//! this side reads after each step — never an exception out of `detect()`.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::probe::{get, now_ms, within};
use backend_targets::probe::verify::{
    F16_TOLERANCE, F32_TOLERANCE, LAYERS, PASSES, ROWS, SPEED_MARGIN, Verification, VerifyCache, VerifyOptions,
    VerifyPrecision, WIDTH, Workload, compare, shader, slower_than_wasm, workload_text,
};
use backend_targets::probe::web::{ProbeReason, ProbeReport, WebGpuVerdict};
use backend_targets::{FromJsonText, ToJsonText};

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
    /// JSON text), for `precision`: the JS half's `verdictKey`, which the
    /// other entries' cache lookup calls too.
    #[wasm_bindgen(js_name = verdictKeyOf)]
    fn verdict_key(adapter: &str, precision: &str) -> String;
    /// The first fault seen on the guarded adapter and device (`{ kind,
    /// message }`), or `undefined`.
    #[wasm_bindgen(js_name = takeFault)]
    fn take_fault(faults: &JsValue) -> JsValue;
    /// The verdict kept under `key` (JSON text), if younger than its maximum
    /// age (the JS half's); resolves to `undefined` otherwise. Never rejects.
    #[wasm_bindgen(js_name = cachedVerdict)]
    fn cached_verdict(cache: &str, key: &str) -> Promise;
    /// Keeps a verdict (JSON text) under `key`; storage that fails is ignored.
    #[wasm_bindgen(js_name = keepVerdict)]
    fn keep_verdict(cache: &str, key: &str, text: &str);
}

/// The faults of one verification and the guard that notes them.
pub(super) fn guard() -> (JsValue, JsValue) {
    let faults = new_faults();
    let wrap = adapter_guard(&faults);
    (faults, wrap)
}

/// Warm runs timed on the GPU: the verdict is most of them.
const WARM_RUNS: usize = 3;

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
) -> ProbeReport {
    let Some(described) = report.adapter.as_ref() else { return report };
    let key = verdict_key(&described.to_json_text(), options.precision.as_str());
    let cache = options.cache.as_str();
    if options.cache != VerifyCache::None
        && let Ok(text) = JsFuture::from(cached_verdict(cache, &key)).await
        && let Some(text) = text.as_string()
        && let Ok(mut verdict) = WebGpuVerdict::from_json_text(&text)
        && verdict.verification.adapter_key == key
    {
        verdict.verification.cached = true;
        verdict.verification.elapsed_ms = 0.0;
        return report.with_verdict(verdict);
    }
    let started = now_ms();
    let device: Rc<RefCell<Option<wgpu::Device>>> = Rc::default();
    let mut figures = Figures::default();
    let outcome = within(f64::from(options.budget_ms), run(&adapter, options, faults, &device, &mut figures)).await;
    if let Some(device) = device.borrow_mut().take() {
        device.destroy();
    }
    let (reason, message) = match outcome {
        Some(Ok(())) => (ProbeReason::Verified, String::new()),
        Some(Err(stop)) => stop,
        None => match fault(faults) {
            Some(stop) => stop,
            None => (
                ProbeReason::VerifyTimeout,
                format!("the verification did not finish within its budget of {} ms", options.budget_ms),
            ),
        },
    };
    let verification = figures.into_verification(options, key.clone(), now_ms() - started);
    let verdict = WebGpuVerdict::new(reason, &message, &report.message, verification);
    if options.cache != VerifyCache::None && verdict.reason.is_lasting() {
        keep_verdict(cache, &key, &verdict.to_json_text());
    }
    report.with_verdict(verdict)
}

/// What the verification measured, as far as it got.
#[derive(Default)]
struct Figures {
    checked: Vec<VerifyPrecision>,
    wasm_ms: Option<f64>,
    gpu_ms: Option<f64>,
    max_error: Option<f64>,
    max_error_at: Option<String>,
}

impl Figures {
    fn into_verification(self, options: &VerifyOptions, adapter_key: String, elapsed_ms: f64) -> Verification {
        let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
        let (gpu_ms, wasm_ms) = (self.gpu_ms.map(round), self.wasm_ms.map(round));
        Verification {
            workload: workload_text(),
            checked: self.checked,
            gpu_ms,
            wasm_ms,
            ratio: match (gpu_ms, wasm_ms) {
                (Some(gpu), Some(wasm)) if wasm > 0.0 => Some((gpu / wasm * 1000.0).round() / 1000.0),
                _ => None,
            },
            margin: SPEED_MARGIN,
            max_error: self.max_error.filter(|e| e.is_finite()),
            max_error_at: self.max_error_at,
            tolerance: F32_TOLERANCE,
            budget_ms: options.budget_ms,
            elapsed_ms: round(elapsed_ms),
            adapter_key,
            cached: false,
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
    /// One for each run: the first, the f16 one, each warm one. A warm run
    /// cut short is left mapping its own (Chromium resolves such a map at
    /// its next poll, some 100 ms on: waiting for it cost that much a run).
    readbacks: Vec<wgpu::Buffer>,
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
            readbacks: (0..2 + WARM_RUNS)
                .map(|_| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: None,
                        size: OUTPUT_BYTES,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })
                .collect(),
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
    run: usize,
    faults: &JsValue,
) -> Result<Vec<f32>, Stop> {
    let readback = &buffers.readbacks[run];
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

/// The verification itself: the reference in WebAssembly (timed), a device,
/// both paths, a first run checked for its numbers, then a warm run timed
/// against the reference. Figures are filled as they are found.
async fn run(
    adapter: &wgpu::Adapter,
    options: &VerifyOptions,
    faults: &JsValue,
    device_slot: &Rc<RefCell<Option<wgpu::Device>>>,
    figures: &mut Figures,
) -> Result<(), Stop> {
    let workload = Workload::new();
    // The reference, three times: the fastest is the time (a computation on
    // the CPU is only ever slowed by what else runs; the first also warms the
    // module's memory).
    let mut wasm_ms = f64::INFINITY;
    let mut expected = Vec::new();
    for _ in 0..3 {
        let start = now_ms();
        expected = std::hint::black_box(workload.forward(VerifyPrecision::F32));
        wasm_ms = wasm_ms.min(now_ms() - start);
    }
    // A timer's resolution (100 µs in a page) bounds what is measured.
    figures.wasm_ms = Some(wasm_ms.max(0.1));
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
    let answered = compute(&device, &queue, &single, &buffers, 1, 0, faults).await?;
    let half_answer = match &half_path {
        Some(path) => Some(compute(&device, &queue, path, &buffers, 1, 1, faults).await?),
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
    // The warm runs, timed: `PASSES` passes per readback each, until most of
    // `WARM_RUNS` agree (a GPU shares its machine with everything else; one
    // run is one sample of its noise). A run that has taken longer than
    // WebAssembly would, with the margin, is slower whenever it finishes:
    // it is cut there. (setTimeout truncates a fraction of a millisecond,
    // and may fire that early: the cut comes a whole millisecond later.)
    let slower_after = figures.wasm_ms.unwrap_or(wasm_ms) * PASSES as f64 * SPEED_MARGIN;
    let mut totals = Vec::new();
    let mut slow = 0;
    while totals.len() < WARM_RUNS && slow * 2 <= WARM_RUNS && (totals.len() - slow) * 2 <= WARM_RUNS {
        let start = now_ms();
        let run = 2 + totals.len();
        let cut =
            within(slower_after.ceil() + 1.0, compute(&device, &queue, &single, &buffers, PASSES, run, faults)).await;
        let total = now_ms() - start;
        slow += usize::from(total > slower_after);
        totals.push(total);
        // A run cut short is slower, and left unchecked on its own buffer.
        let Some(answered) = cut else { continue };
        let answered = answered?;
        let found = compare(&expected, &answered, F32_TOLERANCE);
        if !found.within {
            return Err((ProbeReason::WrongResults, format!("wrong results (f32) on a warm run: {}", found.why)));
        }
    }
    // The middle run's time (the slower of two that agree).
    totals.sort_by(f64::total_cmp);
    let gpu_ms = totals[totals.len() / 2] / PASSES as f64;
    figures.gpu_ms = Some(gpu_ms);
    if slower_than_wasm(gpu_ms, figures.wasm_ms.unwrap_or(wasm_ms)) {
        return Err((ProbeReason::SlowerThanWasm, String::new()));
    }
    Ok(())
}
