export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';
