import type {
  FeatureChange, NativeOptions, NativeResolution, Preset, ProbeOptions, ProbeReport, Resolution, Target,
} from './backend_targets.js';
export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';

/** What `detect()` answers: the `wasm` preset resolved by the probe. The one
 *  feature a probe decides is `webGpu`, which that preset declares, so
 *  `changes` holds exactly its entry: `changes[0].reason` needs no check,
 *  also under `noUncheckedIndexedAccess`. */
export type Detection = Resolution & { changes: [FeatureChange & { feature: 'webGpu' }] };

/** `probe(options)`, then `resolve(wasm(), report)`. */
export function detect(options?: Partial<ProbeOptions>): Promise<Detection>;

/** Forgets every verdict `detect({ verify })` kept (this page's memory,
 *  localStorage, IndexedDB): the next verification runs on the GPU again. */
export function clearVerifications(): Promise<void>;

/** onnxruntime-node's `executionProviders` for a `detectNative()`
 *  resolution: `['cuda', 'cpu']` where CUDA was kept and cuDNN (its CUDA
 *  provider loads it) was not dropped, `['coreml', 'cpu']` where Metal was
 *  kept, else `['cpu']`. Anything that is neither resolution throws a
 *  `BackendTargetsError` (`invalid-value`). */
export function executionProviders(resolution: NativeResolution): ['cuda', 'cpu'] | ['coreml', 'cpu'] | ['cpu'];
/** ONNX Runtime Web's `executionProviders` for a `detect()` resolution:
 *  `['webgpu', 'wasm']` where WebGPU was kept, else `['wasm']`. */
export function executionProviders(resolution: Resolution): ['webgpu', 'wasm'] | ['wasm'];

/** A text to paste into a bug report, from a `detect()` resolution (or a
 *  `probe()` report) and, where given, the options the app passed: the
 *  package's version, the runtime, where it ran (page, worker, service
 *  worker, Node), whether the page is a secure context and cross-origin
 *  isolated, the options, the decision and its reason, whether the verdict
 *  came from the cache, and the probe's whole report as JSON. Every foreign
 *  string is escaped: one line a fact, one fenced block. It reads what it is
 *  given. */
export function supportReport(answer: Resolution | ProbeReport | NativeResolution, options?: unknown): string;

/** A dtype Transformers.js loads (the model file it names: `fp32` is
 *  `model.onnx`, `fp16` `model_fp16.onnx`, `q8` `model_quantized.onnx`, ...). */
export type TransformersDtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'q4f16';

/** Transformers.js's `{ device, dtype }` in Node for a `detectNative()`
 *  resolution: `cuda` or `coreml` as `executionProviders` decides, else
 *  `cpu`, with `fp32` (or, given `available`, the best of those dtypes the
 *  device loads: on cuda fp32, fp16, q4f16, q4, q8, int8, uint8; on coreml
 *  fp32, fp16, q4, q8, int8, uint8; on cpu fp32, q8, int8, uint8, q4). */
export function transformersOptions(resolution: NativeResolution):
  { device: 'cuda' | 'coreml' | 'cpu'; dtype: 'fp32' };
export function transformersOptions<D extends TransformersDtype>(resolution: NativeResolution, available: readonly D[]):
  { device: 'cuda' | 'coreml' | 'cpu'; dtype: D };
/** Transformers.js's `{ device, dtype }` for a `detect()` resolution: `webgpu`
 *  (`fp16` only where the adapter has `shader-f16`, else `fp32`) where WebGPU
 *  was kept, else `wasm` with `q8`. Given the dtypes the model's files offer
 *  (`available`), the best of them the device can load (on WebGPU with
 *  `shader-f16`: fp16, q4f16, fp32, q4, q8, int8, uint8; without it: fp32, q4,
 *  q8, int8, uint8; on wasm: q8, int8, uint8, fp32, q4); none of them throws a
 *  `BackendTargetsError` (`invalid-value` at `available`) naming what the
 *  device can load. The answer's dtype is one of `available`; a name not in
 *  `TransformersDtype` (a misspelling such as `'fp3'`) fails to compile. */
export function transformersOptions(resolution: Resolution):
  { device: 'webgpu'; dtype: 'fp16' | 'fp32' } | { device: 'wasm'; dtype: 'q8' };
export function transformersOptions<D extends TransformersDtype>(resolution: Resolution, available: readonly D[]):
  { device: 'webgpu' | 'wasm'; dtype: D };

/** The host's native decision (Node, Deno and Bun with this host's platform
 *  package, `backend-targets-linux-x64-gnu` and the like, or a command named
 *  by `BACKEND_TARGETS_COMMAND`): the native command's `probe` of `target`
 *  (default: the host's, CUDA with cuDNN on Linux and Windows, Metal on
 *  macOS; or a preset's name, or a Target), each check in a child process,
 *  within `timeoutMs` (default 5000) from the call. It never rejects for
 *  what the host lacks: a missing driver or library is a change's reason;
 *  no command (a browser, a host without a platform package) is
 *  `unsupported-platform`, no answer in time `timeout`. Only invalid
 *  arguments reject (a `BackendTargetsError`). */
export function detectNative(target?: Target | Preset, options?: Partial<NativeOptions>): Promise<NativeResolution>;
