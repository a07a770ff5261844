// Node entry: instantiates the WebAssembly module synchronously at import, with
// wasm-bindgen's own `initSync`, so Node users need no init call. The API is
// the browser entry's (index.js, one module), which fetches nothing under Node.
import { readFileSync } from 'node:fs';
import { initSync } from './index.js';

// The floor the package is built for and tested on: Node 20 (its JSON
// boundary checks strings with String.prototype.isWellFormed, which Node 18
// lacks: there every call failed with a misleading message).
const NODE_FLOOR = 20;
if (Number(process.versions.node.split('.')[0]) < NODE_FLOOR) {
  throw new Error(`backend-targets needs Node.js ${NODE_FLOOR} or later; this is Node.js ${process.versions.node}`);
}

initSync({ module: readFileSync(new URL('./backend_targets_bg.wasm', import.meta.url)) });

export * from './index.js';
export { default } from './index.js';
