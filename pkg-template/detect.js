// The detect-only entry (`backend-targets/detect`), for a page that must decide
// where its model runs before it loads anything else. scripts/build.sh bundles
// it, as index.js, with wasm-bindgen's glue and the probe's JS half, over a
// module built without the planner's exports (feature `planner-exports` off):
// `probe` and `detect` only, the same code as the full package's, in about
// 60 % of its bytes. Evaluating it starts fetching and compiling that module
// and the first adapter request; no init call is needed.
import init, { detect as detectNow, probe as probeNow } from './backend_targets.js';
// scripts/build.sh points this at wasm-bindgen's copy, as for index.js.
import { requestEarly, settle } from './probe.js';
import { adopt, checkModule, compile, compileEarly, verifying } from './early.js';

export { BackendTargetsError, executionProviders, isBackendTargetsError, transformersOptions } from './early.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./detect_bg.wasm', import.meta.url);

// The adapter request first: without an adapter, its answer (not the
// module's compilation) is what a cold page waits for last, and starting
// fetch() and compileStreaming() before it delayed it by the milliseconds
// they take (BENCHMARKS.md).
requestEarly();
let early = compileEarly(url);

let ready;

/** Instantiates the module (once): the one compiling since evaluation, or
 *  `moduleOrPath` (a URL, a `Response`, a `WebAssembly.Module`, bytes) given
 *  before the first call; a module that is not this entry's is refused before
 *  it is instantiated. `detect` and `probe` call it themselves; after a
 *  failure, the next call tries again. */
export default function initDetect(moduleOrPath) {
  if (ready === undefined) {
    const source = moduleOrPath ?? early ?? url;
    early = undefined;
    ready = compile(source).then((module) => {
      checkModule(module, ['probe', 'detect']);
      return init({ module_or_path: module });
    });
    ready.catch(() => {
      ready = undefined;
    });
  }
  return ready;
}


/** The verification entry, loaded on first use. */
let verifier;
const verification = () => (verifier ??= import('./verified.js'));

/** Probes WebGPU, then answers the `wasm` target resolved by the probe: the
 *  full package's `detect`. */
export async function detect(options) {
  if (verifying(options)) return (await verification()).detect(options);
  await initDetect();
  return settle(detectNow, options).catch((error) => Promise.reject(adopt(error)));
}

/** Probes WebGPU afresh: the full package's `probe`. */
export async function probe(options) {
  if (verifying(options)) return (await verification()).probe(options);
  await initDetect();
  return settle(probeNow, options).catch((error) => Promise.reject(adopt(error)));
}

/** Forgets every verdict `detect({ verify })` kept: the full package's. */
export async function clearVerifications() {
  if (globalThis.navigator?.gpu == null) return;
  await (await verification()).clearVerifications();
}
