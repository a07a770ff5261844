// Node entry: instantiates the WebAssembly module synchronously at import, with
// wasm-bindgen's own `initSync`, so Node users need no init call.
import { readFileSync } from 'node:fs';
import { initSync } from './backend_targets.js';

initSync({ module: readFileSync(new URL('./backend_targets_bg.wasm', import.meta.url)) });

export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';
