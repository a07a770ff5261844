// The verification entry (`backend-targets/verify`): `detect` and `probe`
// that take `verify` (crates/browser/src/verify.rs: the workload run on the adapter
// through wgpu, its WebAssembly reference, the kept verdicts), over a module
// of their own (verified_bg.wasm: the detect-only module, the strict JSON
// reader and wgpu's device layers). The other entries load it on demand: a
// `detect({ verify })` or `probe({ verify })` where there is WebGPU to verify
// is handed here. scripts/build.sh bundles it, as detect.js, with
// wasm-bindgen's glue and the JS halves.
import init, * as glue from './backend_targets.js';
// scripts/bundle.mjs points these at wasm-bindgen's copies, as for index.js.
import { forgetEarly, now, settle } from './probe.js';
import { clearVerdicts } from './verify.js';
import {
  adopt, boundOf, byDeadline, causeOf, compileEarly, instantiateOnce, requestFirst, sharing, unreached, withoutModule,
} from './early.js';

export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './early.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./verified_bg.wasm', import.meta.url);

let early;
const instance = instantiateOnce(init, url, ['probe', 'detect', 'callWith'], () => {
  const compiling = early;
  early = undefined;
  return compiling;
}, 'verified_bg.wasm', '__backendTargetsVerify');

/** Starts fetching and compiling the module, unless that is under way. */
const compileNow = () => {
  if (!instance.started() && early === undefined) early = compileEarly(url);
};

// The adapter request first, as the detect-only entry makes it (early.js's
// `requestFirst`: the module is fetched and compiled once it answers
// anything but `null`): by the first call, or a task after evaluation. Where
// another entry loaded this one (`taken`, before any timer runs), it hands
// its own request, and none is made here.
let handing = false;
let asking = false;
const askFirst = () => {
  if (asking || handing) return;
  asking = true;
  requestFirst(compileNow);
};
setTimeout(askFirst, 0);

/** Instantiates the module (once), as the detect-only entry does. */
export default function initVerified(moduleOrPath) {
  return instance.initEntry(moduleOrPath);
}

/** Probes WebGPU and, with `verify`, verifies the adapter; then answers the
 *  `wasm` target resolved by the report. `timeoutMs` (and `budgetMs`) count
 *  from the call, the module's download and instantiation included. */
export function detect(options) {
  return sharedCall(options, 'detect', now());
}

/** Probes WebGPU afresh and, with `verify`, verifies the adapter. */
export function probe(options) {
  return sharedCall(options, 'probe', now());
}

/** The module's answer to one call (`answer`: `'probe'` or `'detect'`),
 *  with the call's own `call` object (the module's `callWith`), its time
 *  counted from `began`. */
function answerWith(options, answer, began, call) {
  const callWith = /** @type {any} */ (glue).callWith;
  return settle((given) => callWith(given, answer === 'detect', call), options, began)
    .catch((error) => Promise.reject(adopt(error)));
}

/** `probe` or `detect` (`answer`) that began at `began`, concurrent
 *  identical calls sharing one verification (early.js's `sharing`). The
 *  module is had within the call's bound (`timeoutMs` + `budgetMs`), or the
 *  call answers, by then, that it could not be had and why
 *  (`module-unavailable`, from the core's table): WebGPU is not used, and
 *  the next call tries again. */
const sharedCall = sharing(async (options, answer, began) => {
  askFirst();
  const nested = answer === 'detect';
  // Without an adapter to probe, the core's answer, and no module fetched.
  const asked = {};
  const fixed = await withoutModule(options, nested, began, asked);
  if (fixed !== undefined) return fixed;
  const probedAt = asked.request === undefined ? undefined : now();
  const { timeoutMs, budgetMs } = boundOf(options);
  const had = await byDeadline(initVerified(), began + timeoutMs + budgetMs);
  if (had.late || 'error' in had) {
    const cause = had.late ? `verified_bg.wasm was not downloaded and compiled within ${timeoutMs + budgetMs} ms`
      : causeOf(had.error);
    return unreached('module-unavailable', timeoutMs, began, nested, cause);
  }
  // The module's probe takes the request answered here; the verification's
  // budget counts from that answer (the module's download included).
  if (asked.request !== undefined) forgetEarly(asked.request);
  return answerWith(options, answer, began, { adapter: asked.request, probedAt });
});

/** What the other entries call once their own probe found an adapter
 *  (`answer`: `'probe'` or `'detect'`), having had this module (its default
 *  export) within their call's bound: this module's answer to `options`,
 *  its probe taking that call's adapter request (`handoff.adapter`, a
 *  promise already answered; none to ask anew), its `timeoutMs` counted
 *  from `handoff.began` and the verification's budget from
 *  `handoff.probedAt` (`now()` times; from its own probe where undefined):
 *  one adapter request, and one time bound, for the caller's one call. Not
 *  part of the package's API. */
export function afterProbe(answer, options, handoff) {
  handing = true;
  return sharedAfterProbe(options, answer, handoff.began, handoff);
}

/** What another entry calls as soon as it has loaded this one (before any
 *  timer runs), to hand it its adapter requests: this module makes no early
 *  request of its own. Not part of the package's API. */
export function taken() {
  handing = true;
}

/** `afterProbe`, concurrent identical calls (from other entries' concurrent
 *  calls) sharing one verification. */
const sharedAfterProbe = sharing(async (options, answer, began, handoff) => {
  await initVerified();
  return answerWith(options, answer, began, { adapter: handoff.adapter, probedAt: handoff.probedAt });
});

/** Forgets every kept verdict (this page's memory, localStorage, IndexedDB). */
export function clearVerifications() {
  return clearVerdicts();
}
