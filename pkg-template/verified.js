// The verification entry (`backend-targets/verify`): `detect` and `probe`
// that take `verify` (crates/browser/src/verify.rs: the workload run on the adapter
// through wgpu, its WebAssembly reference, the kept verdicts), over a module
// of their own (verified_bg.wasm: the detect-only module, the strict JSON
// reader and wgpu's device layers). The other entries load it on demand: a
// `detect({ verify })` or `probe({ verify })` where there is WebGPU to verify
// is handed here. scripts/build.sh bundles it, as detect.js, with
// wasm-bindgen's glue and the JS halves.
import init, { detect as detectNow, probe as probeNow } from './backend_targets.js';
// scripts/bundle.mjs points these at wasm-bindgen's copies, as for index.js.
import { endHandOver, handOver, now, requestEarly, settle } from './probe.js';
import { clearVerdicts } from './verify.js';
import { adopt, compileEarly, instantiateOnce, sharing } from './early.js';

export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './early.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./verified_bg.wasm', import.meta.url);

// The early adapter request, a task later: where another entry loaded this
// one to hand it an adapter request already answered (`afterProbe`, called
// before any timer runs), none is made.
let handing = false;
setTimeout(() => {
  if (!handing) requestEarly();
}, 0);
let early = compileEarly(url);

const instance = instantiateOnce(init, url, ['probe', 'detect'], () => {
  const compiling = early;
  early = undefined;
  return compiling;
}, 'verified_bg.wasm');

/** Instantiates the module (once), as the detect-only entry does. */
export default function initVerified(moduleOrPath) {
  return instance.initEntry(moduleOrPath);
}

/** Probes WebGPU and, with `verify`, verifies the adapter; then answers the
 *  `wasm` target resolved by the report. `timeoutMs` counts from the call,
 *  the module's instantiation included. */
export function detect(options) {
  return sharedCall(options, 'detect');
}

/** Probes WebGPU afresh and, with `verify`, verifies the adapter. */
export function probe(options) {
  return sharedCall(options, 'probe');
}

/** `probe` or `detect` (`answer`), concurrent identical calls sharing one
 *  verification (early.js's `sharing`). */
const sharedCall = sharing(async (options, answer) => {
  const began = now();
  await initVerified();
  return settle(answer === 'probe' ? probeNow : detectNow, options, began).catch((error) => Promise.reject(adopt(error)));
});

/** What the other entries call once their own probe found an adapter
 *  (`answer`: `'probe'` or `'detect'`): this module's answer to `options`,
 *  its probe taking that entry's adapter request (`handoff.adapter`, a
 *  promise already answered; none to ask anew), its `timeoutMs` counted
 *  from `handoff.began` and the verification's budget from
 *  `handoff.probedAt` (`now()` times): one adapter request, and one time
 *  bound, for the caller's one call. Not part of the package's API. */
export function afterProbe(answer, options, handoff) {
  return sharedAfterProbe(options, answer, handoff);
}

/** `afterProbe`, concurrent identical calls (from other entries' concurrent
 *  calls) sharing one verification. */
const sharedAfterProbe = sharing(async (options, answer, handoff) => {
  handing = true;
  await initVerified();
  handOver(handoff.adapter, handoff.probedAt);
  const start = answer === 'probe' ? probeNow : detectNow;
  return settle(start, options, handoff.began).finally(endHandOver).catch((error) => Promise.reject(adopt(error)));
});

/** Forgets every kept verdict (this page's memory, localStorage, IndexedDB). */
export function clearVerifications() {
  return clearVerdicts();
}
