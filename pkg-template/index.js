// Browser and bundler entry. scripts/build.sh bundles this file with
// wasm-bindgen's glue and the JS halves (snippets) into one module, pkg/index.js,
// so a page makes one request for the JS. Evaluating it starts fetching and
// compiling the .wasm (streaming) and the probe's adapter request, in parallel
// with whatever the page does next; `init()` without an argument instantiates
// that module. The rest is wasm-bindgen's own glue, with the `wasm` preset
// under its seed name (the glue reserves `wasm`).
import init from './backend_targets.js';
// The probe's JS half: scripts/build.sh points this at wasm-bindgen's copy
// (snippets/<crate-hash>/src/wasm/probe.js), the very module the glue uses.
import { requestEarly } from './probe.js';
import { compileEarly } from './early.js';

export * from './backend_targets.js';
export { wasmPreset as wasm } from './backend_targets.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./backend_targets_bg.wasm', import.meta.url);

// The first probe's adapter request, started now (in a page or worker with
// WebGPU), before the module's fetch: the first detect() or probe() with
// default options takes its answer instead of asking again after init(). It
// goes first because its answer is what a page without an adapter waits for
// last (see detect.js).
requestEarly();
let early = compileEarly(url);

/** wasm-bindgen's init; without an argument, it uses the module fetched at evaluation. */
export default function initEntry(moduleOrPath) {
  if (moduleOrPath !== undefined || early === undefined) return init(moduleOrPath);
  const module_or_path = early;
  early = undefined;
  return init({ module_or_path });
}
