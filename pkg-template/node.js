// Node entry: instantiates the WebAssembly module synchronously at import, with
// wasm-bindgen's own `initSync`, so Node users need no init call. The API is
// the browser entry's (index.js, one module), which fetches nothing under Node.
import { readFileSync } from 'node:fs';
import { initSync } from './index.js';

initSync({ module: readFileSync(new URL('./backend_targets_bg.wasm', import.meta.url)) });

export * from './index.js';
export { default } from './index.js';
