// Node entry: instantiates the WebAssembly module synchronously at import, with
// wasm-bindgen's own `initSync`, so Node users need no init call. The API is
// the browser entry's (index.js, one module), which fetches nothing under Node.
import { readFileSync } from 'node:fs';
import init, { BackendTargetsError, initSync, isBackendTargetsError } from './index.js';
import { nativeRunner } from './native.js';

// The floor the package is built for and tested on: Node 20 (its JSON
// boundary checks strings with String.prototype.isWellFormed, which Node 18
// lacks: there every call failed with a misleading message).
const NODE_FLOOR = 20;
if (Number(process.versions.node.split('.')[0]) < NODE_FLOOR) {
  throw new Error(`backend-targets needs Node.js ${NODE_FLOOR} or later; this is Node.js ${process.versions.node}`);
}

initSync({ module: readFileSync(new URL('./backend_targets_bg.wasm', import.meta.url)) });

// An uncaught error is reported with the line it was thrown from: throw a
// fresh copy here, so that the report shows this line and the message, not
// the 15 KB minified line of index.js.
init[Symbol.for('backend-targets.throwWith')]((error) => {
  if (!isBackendTargetsError(error)) throw error;
  const fresh = new (/** @type {any} */ (BackendTargetsError))(error.message);
  for (const key of ['code', 'path', 'expected']) if (error[key] !== undefined) fresh[key] = error[key];
  throw fresh;
});

// detectNative() runs the platform package's command (native.js).
init[Symbol.for('backend-targets.nativeRunner')](nativeRunner);

export * from './index.js';
export { default } from './index.js';
