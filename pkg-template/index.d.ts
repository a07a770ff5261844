import type { Resolution } from './backend_targets.js';
export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';

/** Forgets every verdict `detect({ verify })` kept (this page's memory,
 *  localStorage, IndexedDB): the next verification runs on the GPU again. */
export function clearVerifications(): Promise<void>;

/** ONNX Runtime Web's `executionProviders` for a `detect()` resolution:
 *  `['webgpu', 'wasm']` where WebGPU was kept, else `['wasm']`. */
export function executionProviders(resolution: Resolution): ['webgpu', 'wasm'] | ['wasm'];

/** Transformers.js's `{ device, dtype }` for a `detect()` resolution: `webgpu`
 *  (`fp16` only where the adapter has `shader-f16`, else `fp32`) where WebGPU
 *  was kept, else `wasm` with `q8`. */
export function transformersOptions(resolution: Resolution):
  { device: 'webgpu'; dtype: 'fp16' | 'fp32' } | { device: 'wasm'; dtype: 'q8' };
