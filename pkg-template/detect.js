// The detect-only entry (`backend-targets/detect`), for a page that must decide
// where its model runs before it loads anything else. scripts/build.sh bundles
// it, as index.js, with wasm-bindgen's glue and the probe's JS half, over a
// module built without the planner's exports (feature `planner-exports` off):
// `probe` and `detect` only, the same code as the full package's, in about
// 60 % of its bytes. No init call is needed.
//
// Evaluating it sends the first adapter request, and nothing else. Where
// there is no adapter to probe (no `navigator.gpu`: no WebGPU, or not a
// secure context; `requestAdapter()` answering `null`; no answer within
// `timeoutMs`), the answer is fixed text, and this file gives it without the
// module (`withoutModule`), byte for byte what the module answers
// (tests/js/no-adapter.test.mjs holds the two equal, options included): the
// module is fetched and compiled only once an adapter (or anything but `null`)
// answers, or a call needs it. Every real adapter is probed by the module,
// through wgpu, as before.
import init, * as glue from './backend_targets.js';
// scripts/bundle.mjs points this at wasm-bindgen's copy, as for index.js.
import { forgetEarly, now, settle } from './probe.js';
import {
  adopt, boundOf, byDeadline, causeOf, compileEarly, gpuOf, instantiateOnce, loaderOf, refusedSoftware, requestFirst,
  unreached, verifierBy, verifying, withoutModule,
} from './early.js';

export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './early.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./detect_bg.wasm', import.meta.url);

let early;
/** The module's one instantiation (early.js): from the module compiling
 *  since an adapter answered, handed over once. */
const instance = instantiateOnce(init, url, ['probe', 'detect', 'callWith'], () => {
  const compiling = early;
  early = undefined;
  return compiling;
}, 'detect_bg.wasm', '__backendTargetsDetect');

/** Starts fetching and compiling the module, unless that is under way. */
const compileNow = () => {
  if (!instance.started() && early === undefined) early = compileEarly(url);
};

// The adapter request first (early.js's `requestFirst`): without an
// adapter, its answer is all a cold page waits for (BENCHMARKS.md); the
// module is fetched and compiled once it answers anything but `null`.
requestFirst(compileNow);

/** Instantiates the module (once): the one compiling since an adapter
 *  answered, or `moduleOrPath` (a URL, a `Response`, a `WebAssembly.Module`,
 *  bytes) given before the first call; a module that is not this entry's is
 *  refused before it is instantiated. `detect` and `probe` call it themselves
 *  when they need the module; after a failure, the next call tries again. */
export default function initDetect(moduleOrPath) {
  return instance.initEntry(moduleOrPath);
}

/** The verification entry, loaded on first use. */
const verification = loaderOf(() => import('./verified.js'));

/** Probes WebGPU, then answers the `wasm` target resolved by the probe: the
 *  full package's `detect`. */
export function detect(options) {
  return answer(options, 'detect');
}

/** Probes WebGPU afresh: the full package's `probe`. */
export function probe(options) {
  return answer(options, 'probe');
}

/** `detect` (`which`: `'detect'`) or `probe`: without the module where it
 *  can; with `verify`, by the verification's module, handed the adapter
 *  request already answered here and the call's start (one request, one
 *  time bound), once it is had within the call's bound (`verifierBy`).
 *  Where a module cannot be had by the bound (a held download, a refused
 *  fetch or `import()`), the call still answers by then: this module's
 *  probe says the adapter was not verified and why, or, without this
 *  module either, the core's `module-unavailable` answer. */
async function answer(options, which) {
  const began = now();
  const nested = which === 'detect';
  const { timeoutMs, budgetMs } = boundOf(options);
  const deadline = began + timeoutMs + budgetMs;
  const asked = {};
  const fixed = await withoutModule(options, nested, began, asked);
  if (fixed !== undefined) return fixed;
  // A software adapter the options refuse (`allowFallbackAdapter: false`)
  // has nothing to verify: the probe's own answer (this module's, which
  // probes as if `verify` were not given) says so, and the verification's
  // module is not fetched.
  let cause;
  let ready;
  if (verifying(options, true) && !(await refusedSoftware(options, asked.request))) {
    // This module, instantiated meanwhile (its download began when the
    // adapter answered): it answers if the verification's cannot be had.
    ready = initDetect();
    ready.catch(() => {}); // its failure is answered below, if it is needed
    // Had within the call's bound (the verification's budget counts from
    // the probe's answer, where it is in: a module that arrives after it
    // answers `verify-timeout` itself).
    const probedAt = asked.request === undefined ? undefined : now();
    const had = await verifierBy(verification, deadline);
    if (had.verifier !== undefined) {
      if (asked.request !== undefined) forgetEarly(asked.request);
      return had.verifier.afterProbe(which, options, { adapter: asked.request, began, probedAt });
    }
    // No verification here (a service worker refuses import(); its
    // download held past the bound): this module's probe, taking the
    // adapter request answered above, answers that it was not verified
    // and why, as the core words it.
    cause = had.cause;
  }
  const had = await byDeadline(ready ?? initDetect(), deadline);
  if (had.late || 'error' in had) {
    const why = had.late ? `detect_bg.wasm was not downloaded and compiled within ${timeoutMs + budgetMs} ms`
      : causeOf(had.error);
    return unreached('module-unavailable', timeoutMs, began, nested, why);
  }
  const call = { adapter: cause === undefined ? undefined : asked.request };
  if (call.adapter !== undefined) forgetEarly(call.adapter);
  const start = cause === undefined ? began : now();
  const callWith = /** @type {any} */ (glue).callWith;
  return settle((given) => callWith(given, nested, call, cause), options, start)
    .catch((failure) => Promise.reject(adopt(failure)));
}

/** Forgets every verdict `detect({ verify })` kept: the full package's. */
export async function clearVerifications() {
  if (gpuOf() == null) return;
  await (await verification()).clearVerifications();
}
