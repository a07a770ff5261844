// Shared by the three browser entries (index.js, detect.js, verified.js),
// bundled into each by scripts/build.sh: the .wasm fetched and compiled
// (streaming) from the moment the entry is evaluated, not from the first call;
// any other module given to init() compiled the same way and checked before it
// is instantiated; the errors the entries answer without the module; and each
// call's supervision: its bound from its first line (`boundOf`, `byDeadline`),
// the verification's module had within it or why not (`verifierBy`), the
// answers without a module (`unreached`, from core.generated.js), and the
// sharing of identical calls (`sharing`). Unit-tested on the source with a
// stub for the module (tests/js/shell.test.mjs).
import { CAUSE, DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_VERIFY_BUDGET_MS, TIMEOUT_MS, UNREACHED } from './core.generated.js';
// scripts/bundle.mjs points this at wasm-bindgen's copy (the module's own).
import { cancelDelay, delay, earlyAnswer, forgetEarly, now, readAdapter, requestEarly } from './probe.js';

/** What every function throws for invalid input: an `Error` with `code`,
 *  `path` and, for a bad spelling, `expected`. The module makes plain errors
 *  of that name; `adopt` gives them this class on their way out. */
export class BackendTargetsError extends Error {
  get name() {
    return 'BackendTargetsError';
  }
}
// The class's own name, which the minifier would shorten (Node's report of
// an uncaught error prints it).
Object.defineProperty(BackendTargetsError, 'name', { value: 'BackendTargetsError' });

/** Whether `value` is a BackendTargetsError: of this class, or an `Error` of
 *  that name with a code (another copy of the package, another realm). */
export function isBackendTargetsError(value) {
  return value instanceof BackendTargetsError
    || (value instanceof Error && value.name === 'BackendTargetsError' && typeof /** @type {any} */ (value).code === 'string');
}

/** `error`, made an instance of BackendTargetsError when it is one in all but
 *  its class (as the module throws them); anything else as it is. */
export function adopt(error) {
  if (isBackendTargetsError(error) && !(error instanceof BackendTargetsError)) {
    Object.setPrototypeOf(error, BackendTargetsError.prototype);
  }
  return error;
}

/** How a call's error leaves the entry: thrown as it is; the Node entry
 *  throws a fresh copy from its own (readable) file instead, so that Node's
 *  report of an uncaught error shows that short line, not the minified one. */
let thrower = (error) => {
  throw error;
};

/** Replaces how errors leave the entry (node.js). */
export function throwWith(throwing) {
  thrower = throwing;
}

/** Throws `error` (a BackendTargetsError given its class) the entry's way. */
export function raise(error) {
  thrower(adopt(error));
}

/** Where the Node entry finds `throwWith`: on the default export, under a
 *  symbol, out of the package's API and types. */
export const THROW_WITH = Symbol.for('backend-targets.throwWith');

/** The key under which the Node entry gives the full entry's `init` its
 *  native runner (native.js): how `detectNative()` reaches the command
 *  without the browser's bundle naming Node's modules. */
export const NATIVE_RUNNER = Symbol.for('backend-targets.nativeRunner');

/** A `BackendTargetsError` made here, with the fields the module's own have. */
export function backendError(code, message, path = '') {
  const error = new BackendTargetsError(`[${code}] at ${path === '' ? '(top level)' : path}: ${message}`);
  return Object.assign(error, { code, path });
}

/** What a call before init() throws (and probe/detect reject with). */
export const notInitialised = () =>
  backendError('usage', 'call init() first: the module is not instantiated yet (await init(), or initSync({ module }))');

/** The error for a `.wasm` that could not be fetched: its URL, why, and
 *  what usually causes it there: in Deno, a read it was not allowed (run with
 *  `--allow-read`, or `--allow-net` for an http(s) URL); elsewhere, a bundler
 *  that does not copy the file (esbuild's default, which gives a 404). */
function notFetched(url, why, error) {
  const denied = error?.name === 'NotCapable' || error?.name === 'PermissionDenied';
  const inNode = typeof globalThis.process?.versions?.node === 'string' && globalThis.Deno === undefined;
  let hint = 'a bundler that does not copy it, such as esbuild, needs it copied beside the bundle and its URL given to '
    + 'init(): see the package README, "Bundlers"';
  if (denied && globalThis.Deno !== undefined) {
    hint = 'Deno needs the permission to read it: run with --allow-read (or --allow-net for an http(s) URL)';
  } else if (inNode && String(url).startsWith('file:')) {
    hint = 'Node\'s fetch reads no file: URL: under a DOM emulation in Node, give init() the bytes, and expect no '
      + 'verification (it runs in a browser)';
  }
  return backendError('io', `could not fetch the module's .wasm from ${url}: ${why} (${hint})`);
}

/** A compiled module from a `fetch` answer (or its promise): streaming, or
 *  its bytes when the server does not send `application/wasm`. A failed
 *  fetch names the URL and the HTTP status. */
async function compileResponse(pending, url) {
  let response;
  try {
    response = await pending;
  } catch (error) {
    throw notFetched(url, error?.message ?? String(error), error);
  }
  if (!response.ok) throw notFetched(response.url || url, `HTTP ${response.status} ${response.statusText}`.trim());
  if (typeof WebAssembly.compileStreaming !== 'function') return WebAssembly.compile(await response.arrayBuffer());
  return WebAssembly.compileStreaming(response).catch(async (error) => {
    // compileStreaming checks the MIME type before it reads the body.
    if (!response.bodyUsed) return WebAssembly.compile(await response.arrayBuffer());
    throw error;
  });
}

/** What the engine's compile error says, as the package's own error: the
 *  bytes given are no WebAssembly module (never instantiated). */
function notAModule(error) {
  if (!(error instanceof WebAssembly.CompileError)) return error;
  return backendError('invalid-value', `init() was given bytes that are not a WebAssembly module (${error.message}); `
    + 'it was not instantiated');
}

async function compileBytes(source) {
  if (typeof Response === 'function' && source instanceof Response) return compileResponse(source, source.url);
  return WebAssembly.compile(source).catch((error) => Promise.reject(notAModule(error)));
}

/** The module compiling since evaluation; undefined off http(s), as in Node. */
export function compileEarly(url) {
  if (!/^https?:$/.test(url.protocol) || typeof fetch !== 'function') return undefined;
  const compiled = compileResponse(fetch(url), url);
  compiled.catch(() => {}); // reported by init(), if it is called
  return compiled;
}

/** What init() was given (wasm-bindgen's forms: `{ module_or_path }`, a URL,
 *  a `Request` or `Response`, bytes, a `WebAssembly.Module`, or a promise of
 *  one) as a compiled module. */
export async function compile(input) {
  let source = input;
  if (source !== null && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    source = source.module_or_path;
  }
  source = await source;
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === 'string' || source instanceof URL || (typeof Request === 'function' && source instanceof Request)) {
    return compileResponse(fetch(source), typeof source === 'object' && 'url' in source ? source.url : String(source));
  }
  return compileBytes(source);
}

/** What initSync() was given (`{ module }`, bytes or a module), compiled. */
export function compileSync(input) {
  let module = input;
  if (module !== null && typeof module === 'object' && Object.getPrototypeOf(module) === Object.prototype) {
    module = module.module;
  }
  if (module instanceof WebAssembly.Module) return module;
  try {
    return new WebAssembly.Module(module);
  } catch (error) {
    throw notAModule(error);
  }
}

/** Refuses a module that lacks one of `names` among its exports (another
 *  package's .wasm, a stale one) or that is another entry's (it lacks
 *  `mark`, the export naming this entry's module, crates/browser/src/lib.rs,
 *  or imports from another glue than `file`'s) before it is instantiated,
 *  so that a later init() with the right one still can be. (The mark is
 *  each entry's own: an entry names no other module's file.) */
export function checkModule(module, names, file, mark) {
  const exported = new Set(WebAssembly.Module.exports(module).map((entry) => entry.name));
  const missing = names.find((name) => !exported.has(name));
  if (missing !== undefined) {
    throw backendError('invalid-value', `init() was given a .wasm that is not this package's module (it has no export ${missing}); it was not instantiated`);
  }
  // wasm-bindgen names the glue a module imports from after the module
  // (`./detect_bg.js` for detect_bg.wasm): another entry's module imports
  // from another glue, which this entry does not have; and each module
  // names itself by an export, which renaming its imports does not change.
  const glue = `./${file.replace(/\.wasm$/, '.js')}`;
  const ownGlue = WebAssembly.Module.imports(module).some((entry) => entry.module === glue);
  if (!ownGlue || !exported.has(mark)) {
    throw backendError('invalid-value', `init() was given a .wasm that is not this entry's module (${file}): another `
      + `entry's, to init through that entry; it was not instantiated`);
  }
}

/** An entry's `init(moduleOrPath?)` (the detect-only and verification
 *  entries'): instantiates its module once, with the glue's `instantiate`,
 *  from `moduleOrPath` given before the first call, else the module
 *  compiling early (`takeEarly()` hands it over, once), else `url`; a module
 *  lacking one of `names`, or another entry's (not `file`'s, the name
 *  wasm-bindgen gave this entry's module, without `mark`, its export), is
 *  refused before it is instantiated; after a failure, the next call tries
 *  again. `started()`: whether a call began. */
export function instantiateOnce(instantiate, url, names, takeEarly, file, mark) {
  let ready;
  const initEntry = (moduleOrPath) => {
    if (ready === undefined) {
      const compiling = takeEarly();
      ready = compile(moduleOrPath ?? compiling ?? url).then((module) => {
        checkModule(module, names, file, mark);
        return instantiate({ module_or_path: module });
      });
      ready.catch(() => {
        ready = undefined;
      });
    }
    return ready;
  };
  return { initEntry, started: () => ready !== undefined };
}

// The decision an inference app makes, in one call per runtime (all three
// entries export these; they read a resolution, and need no module): ONNX
// Runtime Web's and Transformers.js's in a browser from `detect()`'s
// resolution, onnxruntime-node's and Transformers.js's in Node from
// `detectNative()`'s.

/** Which answer `answer` is: `'web'` (a `detect()` resolution), `'native'`
 *  (a `detectNative()` resolution: the command's `probe`), `'report'` (a
 *  `probe()` report), else undefined. Read from the forms' own fields: a
 *  native probe's report has `isolation` and `checks`, a web one `reason`. */
function kindOf(answer) {
  if (answer === null || typeof answer !== 'object') return undefined;
  const { probe, effective, changes } = answer;
  if (effective !== null && typeof effective === 'object' && Array.isArray(changes)
    && probe !== null && typeof probe === 'object') {
    if (typeof probe.isolation === 'string' && Array.isArray(probe.checks)) return 'native';
    if (typeof probe.reason === 'string') return 'web';
  }
  if (typeof answer.reason === 'string' && typeof answer.available === 'boolean') return 'report';
  return undefined;
}

/** The resolution's kind, `'web'` or `'native'`; anything else is a
 *  BackendTargetsError (`invalid-value`) naming what was expected. */
function resolutionKind(resolution) {
  const kind = kindOf(resolution);
  if (kind === 'web' || kind === 'native') return kind;
  throw backendError('invalid-value', 'expected a resolution: detect()\'s (a browser\'s WebGPU) or detectNative()\'s '
    + `(the host's native probe), not ${kind === 'report' ? "a probe() report (pass detect()'s answer)" : describe(resolution)}`,
  'resolution');
}

/** A value in a few words, for an error's sentence. */
function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object without a resolution\'s fields' : `a ${typeof value}`;
}

/** Whether the resolution kept WebGPU (`detect()`'s answer, with or without `verify`). */
const keptWebGpu = (resolution) => resolution.effective.features?.includes('webGpu') === true;

/** onnxruntime-node's accelerated provider for a native resolution, or
 *  undefined: `cuda` where the CUDA accelerator was kept and cuDNN (which
 *  its CUDA provider loads) was not dropped, `coreml` where Metal was kept.
 *  DirectML has no probe here: never `dml`. */
function nativeAccelerated(resolution) {
  const { accelerator } = resolution.effective;
  const droppedCuDnn = resolution.changes.some((change) => change.feature === 'cuDNN' && change.action === 'dropped');
  if (accelerator === 'cuda' && !droppedCuDnn) return 'cuda';
  if (accelerator === 'metal') return 'coreml';
  return undefined;
}

/** The `executionProviders` for a resolution: ONNX Runtime Web's for
 *  `detect()`'s (`['webgpu', 'wasm']` where WebGPU was kept, wasm as its
 *  fallback for the ops WebGPU lacks, else `['wasm']`), onnxruntime-node's
 *  for `detectNative()`'s (`['cuda', 'cpu']` where CUDA and cuDNN were kept,
 *  `['coreml', 'cpu']` where Metal was, else `['cpu']`). Anything else is a
 *  BackendTargetsError (`invalid-value`). */
export function executionProviders(resolution) {
  if (resolutionKind(resolution) === 'native') {
    const accelerated = nativeAccelerated(resolution);
    return accelerated === undefined ? ['cpu'] : [accelerated, 'cpu'];
  }
  return keptWebGpu(resolution) ? ['webgpu', 'wasm'] : ['wasm'];
}

/** The dtypes Transformers.js can load on each device, best first: on
 *  WebGPU half precision only where the adapter has `shader-f16`; on wasm
 *  `q8` first (Transformers.js's own default there), never half precision;
 *  in Node `fp32` first (its default on every native device), half precision
 *  only on a GPU. */
const DTYPES = {
  webgpuF16: ['fp16', 'q4f16', 'fp32', 'q4', 'q8', 'int8', 'uint8'],
  webgpu: ['fp32', 'q4', 'q8', 'int8', 'uint8'],
  wasm: ['q8', 'int8', 'uint8', 'fp32', 'q4'],
  cuda: ['fp32', 'fp16', 'q4f16', 'q4', 'q8', 'int8', 'uint8'],
  coreml: ['fp32', 'fp16', 'q4', 'q8', 'int8', 'uint8'],
  cpu: ['fp32', 'q8', 'int8', 'uint8', 'q4'],
};

/** Transformers.js's `{ device, dtype }` for a resolution. For `detect()`'s:
 *  `webgpu` where WebGPU was kept (`fp16` only where the adapter has
 *  `shader-f16`, else `fp32`), otherwise `wasm` with `q8`. For
 *  `detectNative()`'s (Transformers.js in Node, over onnxruntime-node):
 *  `cuda` or `coreml` as `executionProviders` decides, else `cpu`, each with
 *  `fp32`. Given the dtypes the model's files offer (`available`, e.g.
 *  `['fp32', 'q8']` for `model.onnx` and `model_quantized.onnx`), the best of
 *  those the device can load; none of them is a BackendTargetsError
 *  (`invalid-value`, path `available`) that names what the device could
 *  load. */
export function transformersOptions(resolution, available) {
  let device;
  let order;
  if (resolutionKind(resolution) === 'native') {
    device = nativeAccelerated(resolution) ?? 'cpu';
    order = DTYPES[device];
  } else {
    const webgpu = keptWebGpu(resolution);
    const f16 = webgpu && resolution.availability?.webGpu?.features?.includes('shader-f16') === true;
    device = webgpu ? 'webgpu' : 'wasm';
    order = webgpu ? (f16 ? DTYPES.webgpuF16 : DTYPES.webgpu) : DTYPES.wasm;
  }
  if (available === undefined) return { device, dtype: order[0] };
  if (!Array.isArray(available)) {
    throw backendError('invalid-value', 'expected the dtypes the model offers, as an array of strings', 'available');
  }
  const dtype = order.find((candidate) => available.includes(candidate));
  if (dtype === undefined) {
    const offered = JSON.stringify(available);
    throw backendError('invalid-value', `the model offers ${offered}, none of which ${device} can load here (it can `
      + `load ${order.join(', ')})`, 'available');
  }
  return { device, dtype };
}


/** Control characters (C0, DEL, C1) and bidirectional overrides and
 *  isolates: what lets a foreign string forge a line, a fence or the order
 *  of a text. */
// oxlint-disable-next-line no-control-regex -- matching them is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with every unprintable character (and, `fenced`, the backtick,
 *  which could close a code fence) written as its `\uXXXX` escape: what a
 *  report says of a foreign string (an adapter's info, a feature's name, a
 *  browser's message) stays on its line. */
function printable(text, fenced = false) {
  const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const plain = String(text).replace(UNPRINTABLE, escape);
  return bounded(fenced ? plain.replaceAll('`', escape('`')) : plain);
}

/** The most characters a support report's line keeps: a foreign string
 *  (an adapter's description, a browser's message) of any length leaves
 *  the report readable, and the report's length bounded by its lines. */
const REPORT_LINE_MAX = 1000;

/** `line` cut at REPORT_LINE_MAX characters, saying how many were left out. */
function bounded(line) {
  if (line.length <= REPORT_LINE_MAX) return line;
  return `${line.slice(0, REPORT_LINE_MAX)}… (${line.length - REPORT_LINE_MAX} more characters left out)`;
}

/** A kept verdict's date and age: `measured <ISO date>, <age> before this report`. */
function measured(keptAt) {
  if (!Number.isFinite(keptAt)) return '';
  const hours = (Date.now() - keptAt) / 3_600_000;
  const age = hours < 48 ? `${Math.max(0, hours).toFixed(1)} hours` : `${(hours / 24).toFixed(1)} days`;
  return `, measured ${new Date(keptAt).toISOString()}, ${age} before this report`;
}

/** Where this runs: a page, a kind of worker, Node, Deno, Bun, or unknown. */
function contextKind() {
  const scope = globalThis;
  if (typeof scope.ServiceWorkerGlobalScope === 'function' && scope instanceof scope.ServiceWorkerGlobalScope) return 'service worker';
  if (typeof scope.SharedWorkerGlobalScope === 'function' && scope instanceof scope.SharedWorkerGlobalScope) return 'shared worker';
  if (typeof scope.WorkerGlobalScope === 'function' && scope instanceof scope.WorkerGlobalScope) return 'dedicated worker';
  if (scope.Deno?.version !== undefined) return 'Deno';
  if (scope.Bun !== undefined) return 'Bun';
  if (typeof scope.document !== 'undefined') return scope.process?.versions?.node !== undefined ? 'Node.js with a DOM emulation' : 'page';
  return scope.process?.versions?.node !== undefined ? 'Node.js' : 'unknown';
}

const yesNo = (value) => (value === true ? 'yes' : value === false ? 'no' : 'unknown');

/** A text to paste into a bug report, from a `detect()` resolution (or a
 *  `probe()` report) or a `detectNative()` resolution and, where given, the
 *  options the app passed: the package's version, the runtime (user agent),
 *  where it ran (page, worker, service worker, Node), whether the page is a
 *  secure context and cross-origin isolated, the options, the decision and
 *  its reason (natively: every accelerator and feature decided, and each
 *  check's library and version), whether the verdict came from the cache,
 *  and the probe's whole report (the adapter's info, whether it is a
 *  software one, its features and limits, the verdict and its figures; or
 *  the host's checks), as JSON. Every foreign string is escaped (no
 *  control, C1 or bidirectional character, no backtick in the block): one
 *  line a fact, one fenced block; a line over 1000 characters is cut there,
 *  saying how much was left out, so the report's length is bounded. Reads
 *  what it is given; asks nothing. Anything that is neither a resolution
 *  nor a report is a BackendTargetsError (`invalid-value`). */
export function supportReport(answer, options) {
  const kind = kindOf(answer);
  if (kind === undefined) {
    throw backendError('invalid-value', 'expected a resolution (detect()\'s or detectNative()\'s) or a probe() report, '
      + `not ${describe(answer)}`, 'answer');
  }
  const report = kind === 'report' ? answer : answer.probe;
  const version = typeof __BACKEND_TARGETS_VERSION__ === 'string' ? __BACKEND_TARGETS_VERSION__ : 'unbundled';
  const userAgent = globalThis.navigator?.userAgent
    ?? (globalThis.process?.versions?.node !== undefined ? `Node.js ${globalThis.process.versions.node}` : 'unknown');
  let given;
  try {
    given = options === undefined ? undefined : JSON.stringify(options) ?? String(options);
  } catch {
    given = 'options that cannot be written as JSON';
  }
  const lines = [
    `backend-targets ${version}`,
    `runtime: ${printable(userAgent)}`,
    `context: ${contextKind()}; secure context: ${yesNo(globalThis.isSecureContext)}; cross-origin isolated: `
      + `${yesNo(globalThis.crossOriginIsolated)}`,
    ...(given === undefined ? [] : [`options: ${printable(given)}`]),
    ...(kind === 'native' ? nativeLines(answer) : webLines(kind === 'web' ? answer : undefined, report)),
    '```json',
    // (JSON.stringify escapes C0 controls in strings; each line of its text
    // is escaped for the rest.)
    ...JSON.stringify(report ?? null, null, 2).split('\n').map((line) => printable(line, true)),
    '```',
  ];
  return `${lines.join('\n')}\n`;
}

/** A browser's decision and probe, in a support report's lines. */
function webLines(resolution, report) {
  const change = resolution?.changes.find((entry) => entry.feature === 'webGpu');
  const cached = report?.verification?.cached;
  const keptAt = report?.verification?.keptAt;
  return [
    ...(resolution === undefined ? [] : [`decision: ${executionProviders(resolution)[0]} `
      + `(${printable(change?.reason ?? report?.reason)}): ${printable(change?.detail ?? '')}`]),
    `probe: ${printable(report?.reason)} in ${report?.elapsedMs} ms (timeoutMs ${report?.timeoutMs})`
      + (cached === true ? '; the verdict from the cache (kept by an earlier verification'
        + `${measured(keptAt)})` : ''),
  ];
}

/** A host's native decision, in a support report's lines: onnxruntime-node's
 *  first provider and why, each accelerator and feature decided, and each
 *  check with the library it loaded and that library's version. */
function nativeLines(resolution) {
  const { probe } = resolution;
  const accelerator = resolution.changes.find((change) => change.accelerator !== undefined);
  const subject = (change) => (change.accelerator !== undefined ? `accelerator ${change.accelerator}` : change.feature);
  // Where no check ran, the report says why (also where nothing was declared to check).
  const why = accelerator ?? (probe.reason === undefined ? undefined : { reason: probe.reason, detail: probe.message });
  return [
    `decision: ${executionProviders(resolution)[0]} (${printable(why?.reason ?? 'no accelerator declared')}): `
      + `${printable(why?.detail ?? '')}`,
    ...resolution.changes.map((change) => `- ${printable(change.action)} ${printable(subject(change))} `
      + `(${printable(change.reason)}): ${printable(change.detail)}`),
    `probe: checks ${probe.checks.length} (${printable(probe.isolation)}) on ${printable(probe.os)} `
      + `${printable(probe.arch)} in ${probe.elapsedMs} ms (timeoutMs ${probe.timeoutMs})`,
    ...probe.checks.map((check) => `- check ${printable(check.check)}: ${printable(check.reason)}`
      + (check.library === undefined ? '' : `; ${printable(check.library)}`)
      + (check.libraryVersion === undefined ? '' : ` ${printable(check.libraryVersion)}`)
      + (check.driverVersion === undefined ? '' : `; driver ${printable(check.driverVersion)}`)),
  ];
}

/** Whether an answer (a resolution or a report) is one a time bound
 *  decided: the adapter or the verification ran out of time. */
const timeBound = (answer) => {
  const reason = (answer?.probe ?? answer)?.reason;
  return reason === 'timeout' || reason === 'verify-timeout';
};

/** `call(options, answer, began, ...rest)` shared by concurrent callers
 *  (`began`: when the caller called, `now()` time; now unless given): while
 *  one call with the same `answer` and the same options (as JSON text) is in
 *  flight, another gets a copy of its answer (each caller its own), not a
 *  second verification: one device, one budget, for the same adapter. A
 *  caller that joined later, and that has more than a quarter of its own
 *  `timeoutMs` left when the shared call answers that time ran out, makes
 *  its own call instead: an answer does not say time ran out long before
 *  the caller's own bound (a caller that joined at once shares the answer:
 *  its own call would have no time left to ask). */
export function sharing(call) {
  const inFlight = new Map();
  return (options, answer, began = now(), ...rest) => {
    let key;
    try {
      key = `${answer} ${typeof options === 'string' ? options : JSON.stringify(options)}`;
    } catch {
      return call(options, answer, began, ...rest);
    }
    const shared = inFlight.get(key);
    if (shared !== undefined) {
      return shared.then((value) => {
        const { timeoutMs } = boundOf(options);
        const left = began + timeoutMs - now();
        return timeBound(value) && left > timeoutMs / 4 ? call(options, answer, began, ...rest) : structuredClone(value);
      });
    }
    const started = call(options, answer, began, ...rest).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    // A copy for this caller too: the answer joiners copy stays as it was,
    // whatever this caller does to its own.
    return started.then((value) => structuredClone(value));
  };
}

/** The plain object `options` are, read from JSON text where given so
 *  (undefined where they are neither). */
function plainOptions(options) {
  let value = options;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' ? value : undefined;
}

/** A bound in milliseconds, as the core reads one (an integer of 0 to
 *  2^32 - 1), or `fallback`. */
const millis = (value, fallback) => (Number.isInteger(value) && value >= 0 && value <= 0xffffffff ? value : fallback);

/** A call's bound, from its first line: its probe's `timeoutMs` and, where
 *  it verifies, the verification's `budgetMs` (0 where it does not). These
 *  two numbers alone are read here, where no module may be yet (the
 *  module's download and compilation count against them); a value the core
 *  would refuse counts as the core's default (core.generated.js), and the
 *  module says what is wrong once it reads the options. */
export function boundOf(options) {
  const value = plainOptions(options);
  const timeoutMs = millis(value?.timeoutMs, DEFAULT_PROBE_TIMEOUT_MS);
  const verify = value?.verify;
  const budgetMs = verify === undefined || verify === false || verify === null ? 0
    : millis(verify?.budgetMs, DEFAULT_VERIFY_BUDGET_MS);
  return { timeoutMs, budgetMs };
}

/** `work`'s outcome by `deadline` (a `now()` time): `{ value }`, `{ error }`,
 *  or `{ late: true }` once the deadline passed first. Never rejects.
 *  @returns {Promise<{ value?: any, error?: any, late?: boolean }>} */
export async function byDeadline(work, deadline) {
  const [expired, timer] = /** @type {[Promise<undefined>, any]} */ (delay(Math.max(0, deadline - now())));
  try {
    return await Promise.race([
      Promise.resolve(work).then((value) => ({ value }), (error) => ({ error })),
      expired.then(() => ({ late: true })),
    ]);
  } finally {
    cancelDelay(timer);
  }
}

/** The verification's module, loaded (`load`: its `import()`) and
 *  instantiated (its default export) by `deadline` (a `now()` time):
 *  `{ verifier }`, or `{ cause }`, the reason it could not be had (the
 *  runtime's words, or that its download and compilation had not finished
 *  within the call's bound; it goes on for the next call). Never rejects. */
export async function verifierBy(load, deadline) {
  const allowed = Math.round(Math.max(0, deadline - now()));
  const had = byDeadline((async () => {
    const verifier = await load();
    // Before any of its timers runs: it makes no adapter request of its own
    // (this call hands it one).
    verifier.taken?.();
    await verifier.default();
    return verifier;
  })(), deadline);
  const outcome = await had;
  if (outcome.late) return { cause: `its download and compilation did not finish within the ${allowed} ms left of the call's bound` };
  if ('error' in outcome) return { cause: causeOf(outcome.error) };
  return { verifier: outcome.value };
}

/** The answer named `name` in the core's table (core.generated.js) for a
 *  call that began at `started` (a `now()` time) with the bound `timeoutMs`:
 *  the `wasm` target's resolution (`nested`) or its probe's report, with the
 *  bound, the time taken and (`module-unavailable`) the `cause` written in,
 *  as the module writes them. */
export function unreached(name, timeoutMs, started, nested, cause = '') {
  const resolution = structuredClone(UNREACHED[name]);
  const report = resolution.probe;
  const say = (text) => text.replaceAll(TIMEOUT_MS, String(timeoutMs)).replaceAll(CAUSE, cause);
  report.timeoutMs = timeoutMs;
  report.elapsedMs = Math.round((now() - started) * 1000) / 1000;
  report.message = say(report.message);
  for (const change of resolution.changes) change.detail = say(change.detail);
  return nested ? resolution : report;
}

// Answers without a module (the detect-only and verification entries): where
// there is no adapter to probe, the answer is the core's (core.generated.js),
// given without fetching or compiling any module, byte for byte what the
// module answers (tests/js/no-adapter.test.mjs holds the two equal).

/** A page or a web worker: where the early request is made, and where this
 *  file answers without the module (elsewhere, Deno, the module does). */
const inBrowser = () => typeof globalThis.document !== 'undefined' || typeof globalThis.WorkerGlobalScope !== 'undefined';

/** The entry's first adapter request, made now (in a page or a worker with
 *  WebGPU), and `compileNow` (its module's fetch and compilation) called
 *  once it answers anything but `null`, or at once where no answer can be
 *  had without the module (no page or worker: Deno; a request that could
 *  not be made). */
export function requestFirst(compileNow) {
  requestEarly();
  if (!inBrowser() || globalThis.navigator == null) {
    compileNow();
  } else if (gpuOf() != null) {
    const answer = earlyAnswer(false);
    if (answer === undefined) compileNow();
    else answer.then((adapter) => adapter != null && compileNow(), compileNow);
  }
}

/** `probe()`'s `timeoutMs` when `options` are ones whose answer without an
 *  adapter this file gives as the module would: none, or a plain object of
 *  valid fields that leave the adapter request as WebGPU's default (no
 *  `powerPreference`, no `forceFallbackAdapter: true`) and verify nothing
 *  (`verify` false, or true: the verification's own answer without an
 *  adapter is the probe's). Undefined for anything else: the module (or,
 *  for `verify`, the verification's) reads those, and says what is wrong. */
function plainTimeout(options) {
  if (options == null) return DEFAULT_PROBE_TIMEOUT_MS;
  const proto = typeof options === 'object' ? Object.getPrototypeOf(options) : undefined;
  if (proto !== Object.prototype && proto !== null) return undefined;
  let timeout = DEFAULT_PROBE_TIMEOUT_MS;
  for (const key of Reflect.ownKeys(options)) {
    const field = Object.getOwnPropertyDescriptor(options, key);
    if (!field.enumerable || !('value' in field)) return undefined;
    const value = field.value;
    // Left out of the options' JSON text, as if not given.
    if (value === undefined) continue;
    if (key === 'timeoutMs') {
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) return undefined;
      timeout = value + 0; // -0 is written 0
    } else if (key === 'verifyDevice' || key === 'allowFallbackAdapter') {
      if (typeof value !== 'boolean') return undefined;
    } else if (key === 'forceFallbackAdapter') {
      if (value !== false) return undefined;
    } else if (key !== 'verify' || typeof value !== 'boolean') {
      return undefined;
    }
  }
  return timeout;
}

/** `probe(options)`'s answer (`detect`'s where `nested`) where it needs no
 *  module: no `navigator.gpu`, a `null` adapter, or no answer within
 *  `timeoutMs`, as crates/browser/src/probe.rs answers them (its first checks, in its
 *  order); undefined where the module answers (an adapter, a request that
 *  failed, options this file does not judge). The request is the one waiting
 *  (the first call takes the request made at evaluation) or one made now, which
 *  the module's probe then takes; where it answered with an adapter, it is
 *  in `asked.request` (for the verification's module, which takes it too).
 *  `timeoutMs` counts from `started`. */
export async function withoutModule(options, nested, started, asked = {}) {
  if (!inBrowser() || globalThis.navigator == null) return undefined;
  const gpu = gpuOf();
  const timeout = plainTimeout(options);
  if (timeout === undefined) return undefined;
  const answer = (name) => unreached(name, timeout, started, nested);
  // (Which absence, as the module's probe tells them apart.)
  if (gpu === null) return answer('null-webgpu-api');
  if (gpu === undefined) return answer(globalThis.isSecureContext === false ? 'insecure-context' : 'no-webgpu-api');
  if (now() - started >= timeout) return answer('no-time');
  const request = earlyAnswer(true);
  if (request === undefined) return undefined;
  const [expired, timer] = delay(Math.max(0, started + timeout - now()));
  // A rejection is the module's to report (adapter-request-failed).
  const outcome = await Promise.race([request.then((adapter) => adapter == null, () => false), expired]);
  cancelDelay(timer);
  if (outcome === undefined) {
    forgetEarly(request);
    return answer('adapter-timeout');
  }
  if (!outcome) {
    asked.request = request;
    return undefined;
  }
  forgetEarly(request);
  return answer('no-adapter');
}

/** Whether `request` (an adapter request that answered with an adapter)
 *  answered a software adapter that `options` (plain, as `withoutModule`
 *  took them) refuse. */
export async function refusedSoftware(options, request) {
  if (request === undefined || options?.allowFallbackAdapter !== false) return false;
  try {
    return readAdapter(await request).isFallbackAdapter === true;
  } catch {
    return false; // the module reads it, and says what is wrong
  }
}

/** An entry's loader of the verification's module (`load`: its
 *  `import()`), loaded once: a load that failed (a network error; a service
 *  worker, which refuses `import()`) is tried again on the next call. */
export function loaderOf(load) {
  let loading;
  return () => (loading ??= load().catch((error) => {
    loading = undefined;
    throw error;
  }));
}

/** Why a load failed, as the runtime said it (for the module's
 *  `callWith` with a cause, which says it in the answer). */
export function causeOf(error) {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'an error that cannot be read';
  }
}

/** `navigator.gpu`, or undefined where there is none or reading it throws
 *  (a getter that throws is no WebGPU, as the module's probe reads it). */
export function gpuOf() {
  try {
    return globalThis.navigator?.gpu;
  } catch {
    return undefined;
  }
}

/** Whether `options` ask for a verification where there is WebGPU to verify
 *  (a page, a worker, Deno), or anywhere with `anywhere`: such a call is
 *  handed to `backend-targets/verify`, loaded on demand. Elsewhere (Node) the
 *  full entry's own module answers it: no adapter. The detect-only module
 *  has no verification (it probes as if `verify` were not given), so its
 *  entry hands every such call on (its answers without an adapter, and a
 *  software adapter the options refuse, aside). */
export function verifying(options, anywhere = false) {
  // (Text that is not JSON: the module says what is wrong with it.)
  const verify = plainOptions(options)?.verify;
  return verify !== undefined && verify !== false && (anywhere || gpuOf() != null);
}
