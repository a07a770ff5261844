// Browser and bundler entry: wasm-bindgen's glue (call the default `init` once),
// with the `wasm` preset under its seed name (the glue reserves `wasm`).
export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';
