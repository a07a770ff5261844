export * from './backend_targets.js';
export { default, wasmPreset as wasm } from './backend_targets.js';

/** Forgets every verdict `detect({ verify })` kept (this page's memory,
 *  localStorage, IndexedDB): the next verification runs on the GPU again. */
export function clearVerifications(): Promise<void>;
