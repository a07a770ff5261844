// Browser and bundler entry. scripts/bundle.mjs bundles this file with
// wasm-bindgen's glue and the JS halves (snippets) into one module, pkg/index.js,
// so a page makes one request for the JS. Evaluating it starts fetching and
// compiling the .wasm (streaming) and the probe's adapter request, in parallel
// with whatever the page does next; `init()` without an argument instantiates
// that module. Each export is wasm-bindgen's, with the `wasm` preset under its
// seed name (the glue reserves `wasm`), behind one guard: a call before init()
// says so, a call whose allocation the module's memory could not hold answers
// a BackendTargetsError (the next call gets a fresh instance), and probe() and
// detect() survive the instance ending while they wait.
import init, * as glue from './backend_targets.js';
// The JS halves: scripts/bundle.mjs points these at wasm-bindgen's copies
// (snippets/backend-targets-browser-<hash>/src/*.js, from crates/browser/src/),
// the very modules the glue uses.
import { cancelDelay, delay, now, requestEarly, settle } from './probe.js';
import { cachedVerdict, verdictKey, warmVerdicts } from './verify.js';
import {
  NATIVE_RUNNER, THROW_WITH, adopt, checkModule, compile, compileEarly, compileSync, gpuOf, loaderOf, notInitialised, sharing,
  throwWith, verifierBy, verifying,
} from './early.js';
import { VERDICT_FORMAT } from './core.generated.js';
import { guarded, instance } from './guard.js';

export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './early.js';

// Written out for bundlers, which copy the asset and rewrite this URL.
const url = new URL('./backend_targets_bg.wasm', import.meta.url);

// The first probe's adapter request, started now (in a page or worker with
// WebGPU), before the module's fetch: the first detect() or probe() with
// default options takes its answer instead of asking again after init(). It
// goes first because its answer is what a page without an adapter waits for
// last (see detect.js). When it answers with an adapter, the page's
// localStorage is loaded, off a kept verdict's path (see warmVerdicts).
requestEarly()?.then((adapter) => adapter && warmVerdicts());
let early = compileEarly(url);

export const presets = guarded('presets');
export const devices = guarded('devices');
export const providers = guarded('providers');
export const declaredAvailability = guarded('declaredAvailability');
export const parseTarget = guarded('parseTarget');
export const plan = guarded('plan');
export const planJson = guarded('planJson');
export const referenceCapsules = guarded('referenceCapsules');
export const schema = guarded('schema');
export const resolve = guarded('resolve');
// The 13 presets (and `wasm`, the `wasmPreset` export under its seed name),
// guarded as above: generated from the core's preset table by
// tests/generated_js.rs.
export * from './presets.generated.js';


/** The verification entry, loaded on first use. */
const verification = loaderOf(() => import('./verified.js'));

/** The `wasm` preset's target as JSON text, once. */
let wasmTarget;

/** The answer (`'probe'`: the report; `'detect'`: the `wasm` target resolved
 *  by it) to the report `report`, written by this module's `resolve`, so in
 *  the core's order and form. */
function answerOf(report, answer) {
  // As JSON text, both: the engine's own JSON.stringify, not the boundary's
  // checks over every value of a report this module wrote.
  wasmTarget ??= JSON.stringify(glue.wasmPreset());
  // (`resolve` takes a report's JSON text as well as the report.)
  const resolution = glue.resolve(wasmTarget, /** @type {any} */ (JSON.stringify(report)));
  return answer === 'probe' ? resolution.probe : resolution;
}

/** A call with `verify` that began at `began` (a `now()` time), answered
 *  with one adapter request, its own, within `timeoutMs` + `budgetMs` from
 *  there: this module probes (without `verify`), handing the request it
 *  makes to this call alone; where that decides (no API, no adapter, a
 *  refused software adapter, a timeout), its answer is the verification's,
 *  and no verification module is fetched; where a verdict is kept for the
 *  adapter and the core reads it (`withKeptVerdict`, the one reader), it
 *  is applied as the verification module applies it; else the verification
 *  module answers, taking this call's adapter request and time, once it is
 *  had within the budget (`verifierBy`). Where it cannot be had (a held
 *  download, a refused `import()`, a `file:` URL in Node), this module's
 *  probe answers that the adapter was not verified, and why. This module's
 *  strict reader reads the options (`verifySettings`), as the
 *  verification's would, and throws what is wrong.
 *  tests/js/verify-browser.test.mjs holds the answers equal. */
async function verifyingCall(options, answer, began) {
  const nested = answer === 'detect';
  const callWith = /** @type {any} */ (glue).callWith;
  // Read by this module's strict reader, as the verification's reads them:
  // invalid options throw here, the same error.
  const read = /** @type {any} */ (glue).verifySettings(options);
  if (read === undefined) return settle((given) => callWith(given, nested, {}), options, began);
  // The options as given, `verify` too: this module's strict reader checks
  // them all before any kept verdict is looked up (its probe leaves `verify`
  // to the verification's module), so that a kept verdict never answers
  // options a fresh profile refuses.
  let request;
  const report = await settle((given) => callWith(given, false, { keep: (asked) => { request = asked; } }), options, began);
  const probedAt = now();
  if (!report.available || report.adapter === undefined) return answerOf(report, answer);
  if (read.verify.cache !== 'none') {
    const kept = await keptVerdict(report, read, began);
    if (kept !== undefined) return answerOf(kept, answer);
  }
  // An adapter that was asked for a device (`verifyDevice`) gives no other:
  // the verification module asks for its own.
  const adapter = read.verifyDevice ? undefined : request;
  // Had within the call's bound: one that arrives after the budget (counted
  // from the probe's answer) answers `verify-timeout` itself.
  const had = await verifierBy(verification, began + read.timeoutMs + read.verify.budgetMs);
  if (had.cause !== undefined) {
    // Its probe takes this call's adapter request, which has answered: it
    // counts from now, so that a bound spent on the download is no timeout.
    return settle((given) => callWith(given, nested, { adapter }, had.cause), options, now());
  }
  return had.verifier.afterProbe(answer, options, { adapter, began, probedAt });
}

/** The report `report` (a probe's, with an adapter) with the verdict kept
 *  for its adapter applied by the core, or undefined where none is kept or
 *  the core does not read what is (the verification module verifies afresh
 *  then, and replaces it). */
async function keptVerdict(report, { verify: { cache, precision, budgetMs } }, began) {
  const key = verdictKey(report.adapter, precision, VERDICT_FORMAT);
  // Storage that never answers (an IndexedDB held by another tab) is a
  // verdict not found, within the budget.
  const [expired, timer] = delay(budgetMs);
  const text = await Promise.race([cachedVerdict(cache, key), expired]);
  cancelDelay(timer);
  if (text === undefined) return undefined;
  const withKept = /** @type {any} */ (glue).withKeptVerdict;
  return withKept(JSON.stringify(report), text, key, now() - began) ?? undefined;
}

/** One verification at a time for the same call (early.js's `sharing`). */
const sharedVerifyingCall = sharing(verifyingCall);

/** Probes WebGPU afresh (see the module's `probe`). */
export function probe(options) {
  if (!instance.instantiated) return Promise.reject(notInitialised());
  if (verifying(options)) return sharedVerifyingCall(options, 'probe', now()).catch((error) => Promise.reject(adopt(error)));
  return settle(glue.probe, options).catch((error) => Promise.reject(adopt(error)));
}

/** `probe(options)`, then the `wasm` target resolved by it. */
export function detect(options) {
  if (!instance.instantiated) return Promise.reject(notInitialised());
  if (verifying(options)) return sharedVerifyingCall(options, 'detect', now()).catch((error) => Promise.reject(adopt(error)));
  return settle(glue.detect, options).catch((error) => Promise.reject(adopt(error)));
}

/** The native decision's two calls into the module (crates/browser/src/native.rs). */
const nativeCall = guarded('nativeCall');
const nativeWithoutProbe = guarded('nativeWithoutProbe');

/** Where the native command runs: the Node entry installs it (native.js,
 *  through `init[NATIVE_RUNNER]`); a browser has none. */
let nativeRunner;

/** The host's native decision: the native command's `probe` of `target`
 *  (the host's default where absent: CUDA with cuDNN on Linux and Windows,
 *  Metal on macOS; a preset's name; or a Target) within `timeoutMs`
 *  (default 5000) from this line, as a NativeResolution. Where no command
 *  can run (a browser, Node without this host's platform package), it did
 *  not answer in time, or it failed, the core answers: every row a check
 *  decides dropped with `unsupported-platform`, `timeout` or
 *  `check-crashed` and why. Only invalid arguments reject. */
export async function detectNative(target, options) {
  const began = now();
  const host = nativeRunner?.host() ?? { platform: 'unknown', arch: 'unknown' };
  const call = nativeCall(target, options, host.platform, host.arch);
  const without = (reason, message) => nativeWithoutProbe(call.target, host.platform, host.arch, reason, message,
    call.timeoutMs, now() - began);
  if (nativeRunner === undefined) {
    return without('unsupported-platform', 'this runtime cannot probe the host: detectNative() runs the native '
      + 'command from Node (a server, not a page or a worker)');
  }
  const outcome = await nativeRunner.run(call.target, call.timeoutMs, began);
  return outcome.resolution ?? without(outcome.reason, outcome.message);
}

/** Forgets every verdict `detect({ verify })` kept (this page's memory,
 *  localStorage, IndexedDB): the next verification runs on the GPU again.
 *  Where there is no WebGPU (Node), nothing was kept. */
export async function clearVerifications() {
  if (gpuOf() == null) return;
  await (await verification()).clearVerifications();
}

/** wasm-bindgen's initSync, over a module checked first: one that is not this
 *  package's is refused before it is instantiated, and a later call with the
 *  right one instantiates it. */
export function initSync(input) {
  if (instance.instantiated) return /** @type {any} */ (glue).initSync();
  const module = compileSync(input);
  checkModule(module, instance.names, 'backend_targets_bg.wasm', '__backendTargetsFull');
  const exports = glue.initSync({ module });
  instance.instantiated = true;
  return exports;
}

/** wasm-bindgen's init; without an argument, it uses the module fetched at
 *  evaluation. The module is checked as by initSync, and a failed init can be
 *  followed by one that succeeds. */
export default async function initEntry(moduleOrPath) {
  if (instance.instantiated) return /** @type {any} */ (glue).initSync();
  let source = moduleOrPath;
  if (source === undefined) {
    source = early ?? url;
    early = undefined;
  }
  const module = await compile(source);
  checkModule(module, instance.names, 'backend_targets_bg.wasm', '__backendTargetsFull');
  const exports = await init({ module_or_path: module });
  instance.instantiated = true;
  return exports;
}
initEntry[THROW_WITH] = throwWith;
initEntry[NATIVE_RUNNER] = (runner) => {
  nativeRunner = runner;
};
