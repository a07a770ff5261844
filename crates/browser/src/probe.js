// The JavaScript half of the browser probe (src/probe.rs): reads what a
// GPUAdapter offers, in WebGPU spelling, as a plain object that the module
// takes as it is (no JSON). One call instead of some eighty property reads
// across the boundary.
// Also the capture of wgpu's `requestAdapter()` call, the timer and the clock.

import { onInstanceLost } from './boundary.js';

const read = (object, key) => {
  try {
    return object == null ? undefined : object[key];
  } catch {
    return undefined;
  }
};

// The names a GPUSupportedLimits offers (own properties, then its prototype's
// getters), listed once per prototype: listing a prototype's properties costs
// more than reading them all. Only the list is kept, never a value.
let namesOf = { proto: undefined, names: [] };
function limitNames(supported) {
  const proto = Object.getPrototypeOf(supported);
  if (namesOf.proto !== proto) {
    // Object.prototype's properties are never limits (a plain object's).
    const names = proto && proto !== Object.prototype ? Object.getOwnPropertyNames(proto) : [];
    namesOf = { proto, names };
  }
  const own = Object.getOwnPropertyNames(supported);
  return own.length === 0 ? namesOf.names : [...own, ...namesOf.names];
}

const encoder = new TextEncoder();

/** How many UTF-16 units of `text` fit in `bytes` bytes of UTF-8, whole characters only. */
const fitting = (text, bytes) => encoder.encodeInto(text, new Uint8Array(bytes)).read;

/** A GPUAdapterInfo string: '' for anything else; cut to `maxBytes` of UTF-8
 *  (ending with an ellipsis), a lone surrogate as U+FFFD. Only described, never
 *  planned against. */
function infoText(value, maxBytes) {
  if (typeof value !== 'string') return '';
  const text = (value.length > maxBytes ? value.slice(0, maxBytes) : value).toWellFormed();
  if (!(maxBytes < Infinity) || fitting(text, maxBytes) === value.length) return text;
  return `${text.slice(0, fitting(text, maxBytes - 3))}\u2026`;
}

/** A name for a message: JSON-quoted (a lone surrogate as its escape), in part
 *  beyond 64 UTF-16 units, with its length. */
const quoted = (name) =>
  name.length <= 64 ? JSON.stringify(name) : `${JSON.stringify(name.slice(0, 32))}… (${name.length} UTF-16 units)`;

/** Why an adapter cannot be read, as the sentence that says so. */
class Unreadable extends Error {}

const messageOf = (error) => String(read(error, 'message') ?? error);

/** A feature or limit name plan() accepts with its default limits: valid text
 *  of at most `maxBytes` bytes. */
function checkName(kind, name, index, maxBytes) {
  const where = `the ${kind} listed at index ${index}`;
  if (!name.isWellFormed()) {
    const at = name.search(/\p{Surrogate}/u);
    throw new Unreadable(`${where}, ${quoted(name)}, is not valid Unicode text (a lone surrogate at UTF-16 index ${at})`);
  }
  if (name.length > maxBytes || (maxBytes < Infinity && fitting(name, maxBytes) < name.length)) {
    throw new Unreadable(`${where}, ${quoted(name)}, is longer than ${maxBytes} bytes (the limit nameBytes)`);
  }
}

/** `read(adapter[key])`, where `adapter[key]` must be an object; an error that
 *  is not already a sentence says that the part cannot be read. */
function readPart(adapter, key, read) {
  try {
    const part = adapter[key];
    if (part === null || typeof part !== 'object') throw new Unreadable(`its ${key} are not an object`);
    return read(part);
  } catch (error) {
    throw error instanceof Unreadable ? error : new Unreadable(`its ${key} cannot be read (${messageOf(error)})`);
  }
}

/** `{ info, isFallbackAdapter, features, limits }` of a GPUAdapter, a plain
 *  object that plan() accepts with its default limits, given to this function
 *  (at most `maxFeatures` features, `maxLimits` limits, names of at most
 *  `maxNameBytes` bytes of valid text, read no further than that). Throws an
 *  Error whose message says why when the answer cannot be read as an adapter:
 *  not an object, features or limits that cannot be read, or more than plan()
 *  accepts. Info strings are only described: cut to `maxNameBytes`. */
export function readAdapter(adapter, maxFeatures = Infinity, maxLimits = Infinity, maxNameBytes = Infinity) {
  if (adapter === null || typeof adapter !== 'object') {
    const kind = typeof adapter;
    const what = ['number', 'boolean', 'bigint'].includes(kind) ? String(adapter) : `a ${kind}`;
    throw new Unreadable(`it is ${what}, not an object`);
  }
  // The features: at most `maxFeatures` + 1 entries are read (an endless
  // set is refused, never read to its end); anything but a string is not a
  // feature name, and is skipped.
  const features = readPart(adapter, 'features', (set) => {
    const names = new Set();
    let index = 0;
    for (const name of set) {
      if (index >= maxFeatures) throw new Unreadable(`it lists more than ${maxFeatures} features (the limit features)`);
      if (typeof name === 'string') {
        checkName('feature', name, index, maxNameBytes);
        names.add(name);
      }
      index += 1;
    }
    // Sorted here, not in Rust (the sort would cost the module some 3 KB):
    // WebGPU's feature names are ASCII, where UTF-16 order is byte order.
    return [...names].sort();
  });
  // The limits: every own or prototype property (GPUSupportedLimits exposes
  // them as prototype getters) whose value is a non-negative safe integer,
  // at most `maxLimits` of them, among at most 4 × `maxLimits` properties.
  const limits = readPart(adapter, 'limits', (supported) => {
    const found = [];
    const names = limitNames(supported);
    if (names.length > 4 * maxLimits) throw new Unreadable(`its limits have more than ${4 * maxLimits} properties`);
    for (const name of names) {
      const value = read(supported, name);
      if (!Number.isSafeInteger(value) || value < 0) continue;
      if (found.length >= maxLimits) throw new Unreadable(`it has more than ${maxLimits} limits (the limit limits)`);
      checkName('limit', name, found.length, maxNameBytes);
      found.push([name, value]);
    }
    return Object.fromEntries(found);
  });
  const info = read(adapter, 'info');
  const fallback = [read(info, 'isFallbackAdapter'), read(adapter, 'isFallbackAdapter')]
    .find((value) => typeof value === 'boolean');
  const text = (key) => infoText(read(info, key), maxNameBytes);
  return {
    info: { vendor: text('vendor'), architecture: text('architecture'), device: text('device'), description: text('description') },
    isFallbackAdapter: fallback ?? false,
    features,
    limits,
  };
}

/** Code point order, which is UTF-8's byte order (the core's order of names;
 *  UTF-16's differs where a surrogate pair meets U+E000–U+FFFF). */
function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** The adapter's name in the probe's messages, from its (read) info: vendor
 *  and architecture, as browsers fill them ("google swiftshader"); the
 *  description instead where those say nothing a person reads, that is where
 *  they are empty or the vendor is a number (Deno's wgpu gives Mesa's PCI
 *  vendor id, "65541", no architecture, and "llvmpipe (LLVM 15.0.6, 256
 *  bits)" as the description). '' when the info has none of them. */
export function adapterName({ vendor, architecture, description }) {
  const name = [vendor, architecture].filter((part) => part !== '').join(' ');
  return (name === '' || /^[0-9]+$/.test(vendor)) && description !== '' ? description : name;
}

/** `readAdapter`'s answer flat, as the module takes it: vendor, architecture,
 *  device, description, the adapter's name for messages (`adapterName`),
 *  isFallbackAdapter, the number of features, the features, then each
 *  limit's name and value, in the core's order of names (sorted here: the
 *  sort would cost the module some 0.5 KB gzipped). */
export function adapterFields(adapter, maxFeatures, maxLimits, maxNameBytes) {
  const { info, isFallbackAdapter, features, limits } = readAdapter(adapter, maxFeatures, maxLimits, maxNameBytes);
  const sorted = Object.entries(limits).sort(([a], [b]) => byCodePoint(a, b));
  return [info.vendor, info.architecture, info.device, info.description, adapterName(info), isFallbackAdapter,
    features.length, ...features, ...sorted.flat()];
}

// An adapter request made when the package's browser entry is evaluated
// (`requestEarly`), so that it runs while the module downloads and compiles:
// handed, once, to the first probe whose request has WebGPU's default options,
// as its own request. Later probes ask afresh.
let early;

/** Asks `navigator.gpu` for an adapter now (default options), for the first
 *  probe to use, and gives the request's promise (which never rejects:
 *  undefined then); does nothing, and gives undefined, where there is no page
 *  or worker WebGPU. */
export function requestEarly() {
  const scope = globalThis;
  const gpu = read(read(scope, 'navigator'), 'gpu');
  if (gpu == null || typeof read(gpu, 'requestAdapter') !== 'function') return;
  if (typeof scope.document === 'undefined' && typeof scope.WorkerGlobalScope === 'undefined') return;
  try {
    const answer = Promise.resolve(gpu.requestAdapter());
    answer.catch(() => {}); // the probe that takes it reports a rejection
    early = { gpu, answer };
    return answer.catch(() => undefined);
  } catch {
    // A request that throws is left to the probe, which asks again.
  }
}

/** The adapter request waiting for the next probe, as the page's
 *  `requestAdapter()` answered it (a promise, which may reject), for the
 *  detect-only entry to look at without taking it: its answer without the
 *  module where that answer is `null` (pkg-template/detect.js). With `fresh`
 *  and none waiting, one is asked for now (`requestEarly`), which the probe
 *  that follows takes instead of asking again. Undefined where there is none,
 *  or the one waiting was asked of another `navigator.gpu`. */
export function earlyAnswer(fresh) {
  if (early === undefined && fresh) requestEarly();
  return early !== undefined && early.gpu === read(read(globalThis, 'navigator'), 'gpu') ? early.answer : undefined;
}

/** Empties the slot if it still holds `answer`, as a probe that takes it
 *  does: the entry answered from it without the module. */
export function forgetEarly(answer) {
  if (early?.answer === answer) early = undefined;
}

const isDefault = (options) =>
  options == null || (options.powerPreference === undefined && !options.forceFallbackAdapter);

/** Wraps `gpu.requestAdapter` so that the promise of the next call (or what
 *  it threw, as a rejection) is kept; undo with `releaseRequest`. Given
 *  `wrap`, wgpu is handed `wrap(answer)`. `call` is the caller's own
 *  (the module's `callWith`): its `adapter`, a request it already made,
 *  is taken (once) instead of asking again, and its `keep` is handed the
 *  request (`keep(answer)`, the promise). Throws when there is no
 *  `requestAdapter` function to wrap. Otherwise a call with default
 *  options takes the early request, if one is waiting (`requestEarly`). */
export function captureRequest(gpu, wrap, call) {
  const original = gpu.requestAdapter;
  if (typeof original !== 'function') throw new TypeError('navigator.gpu.requestAdapter is not a function');
  const capture = { original, own: Object.hasOwn(gpu, 'requestAdapter'), called: false, threw: false, answer: undefined };
  // What wgpu is handed: the answer, or `wrap(answer)` (a verification's
  // guarded adapter, src/verify.js); the probe reads the answer itself.
  const wgpuGets = () => (typeof wrap === 'function' ? wrap(capture.answer) : capture.answer);
  gpu.requestAdapter = function requestAdapter(options) {
    capture.called = true;
    const given = read(call, 'adapter');
    if (given !== undefined) {
      capture.answer = given;
      call.adapter = undefined;
    } else if (early?.gpu === gpu && isDefault(options)) {
      capture.answer = early.answer;
      early = undefined;
    } else {
      try {
        capture.answer = Promise.resolve(original.call(gpu, options));
      } catch (error) {
        capture.threw = true;
        capture.answer = error;
        return Promise.reject(error);
      }
    }
    const keep = read(call, 'keep');
    if (typeof keep === 'function') keep(capture.answer);
    return wgpuGets();
  };
  return capture;
}

/** Puts `gpu.requestAdapter` back, then gives the captured call's promise,
 *  throws what that call threw, or gives undefined when it was not called. */
export function releaseRequest(gpu, capture) {
  if (capture.own) gpu.requestAdapter = capture.original;
  else delete gpu.requestAdapter;
  if (capture.threw) throw capture.answer;
  return capture.called ? capture.answer : undefined;
}

/** Requests a device from `adapter` (WebGPU's default limits, no features)
 *  and destroys it at once: resolves to undefined, or rejects with why the
 *  adapter gives none. */
export async function verifyDevice(adapter) {
  const device = await adapter.requestDevice();
  device.destroy();
}

// setTimeout holds a delay of at most 2^31 - 1 ms; a longer one fires at once.
const LONGEST_TIMER = 2 ** 31 - 1;

/** A promise resolved after `ms` milliseconds, and the timer to clear: a
 *  chain of timers for a delay setTimeout cannot hold in one. */
export function delay(ms) {
  const timer = { id: undefined };
  const promise = new Promise((resolve) => {
    // Pages and workers have setTimeout; without it there is no time limit.
    if (typeof setTimeout !== 'function') return;
    const wait = (left) => {
      timer.id = setTimeout(() => (left > LONGEST_TIMER ? wait(left - LONGEST_TIMER) : resolve(undefined)), Math.min(left, LONGEST_TIMER));
    };
    wait(ms);
  });
  return [promise, timer];
}

export function cancelDelay(timer) {
  if (timer?.id !== undefined) clearTimeout(timer.id);
}

/** Milliseconds from the page's (or worker's) time origin. */
export function now() {
  return globalThis.performance?.now() ?? Date.now();
}

// The time the probe being started by `settle` counts from.
let restartedFrom;

/** When the probe being started began: when `settle` was called (also for a
 *  probe started again in a fresh instance, so that `timeoutMs` still bounds
 *  it), or now for a call of the module's own export. */
export function probeStart() {
  return restartedFrom ?? now();
}

/** Calls `start(options)` (the module's `probe` or `detect`) and settles with
 *  its answer, its `timeoutMs` counted from `began` (when the caller's call
 *  was made: now, unless given). When the module's instance ends while the
 *  probe waits (a panic or a failed allocation in any call: wasm-bindgen's
 *  glue swaps in a fresh instance, and the old one's callbacks never run),
 *  the probe is started again in the fresh one, its time counted from the
 *  same start, so that it still answers within `timeoutMs`. After three such
 *  ends it rejects. */
export function settle(start, options, began = now()) {
  return new Promise((resolve, reject) => {
    let done = false;
    let starts = 0;
    const finish = (settleWith) => (value) => {
      if (done) return;
      done = true;
      stopListening();
      settleWith(value);
    };
    const run = () => {
      if (done) return;
      starts += 1;
      // The first start, then one after each end: a fourth start is the third end.
      if (starts > 3) {
        const error = new Error('[unsupported-platform] at (top level): the module failed three times while this probe waited');
        Object.assign(error, { name: 'BackendTargetsError', code: 'unsupported-platform', path: '' });
        finish(reject)(error);
        return;
      }
      let answer;
      restartedFrom = began;
      try {
        answer = start(options);
      } catch (error) {
        finish(reject)(error);
        return;
      } finally {
        restartedFrom = undefined;
      }
      answer.then(finish(resolve), finish(reject));
    };
    const stopListening = onInstanceLost(run);
    run();
  });
}

/** Makes `navigator.gpu` read `gpu` while wgpu creates its instance (which
 *  reads it, and keeps what it read), so that wgpu asks the very object this
 *  probe read, even where the page's getter gives a fresh wrapper on each
 *  read. Undo with `unpinGpu`. `undefined` when it cannot be pinned and a
 *  second read gives another object. */
export function pinGpu(gpu) {
  const navigator = read(globalThis, 'navigator');
  try {
    const own = Object.getOwnPropertyDescriptor(navigator, 'gpu');
    Object.defineProperty(navigator, 'gpu', { value: gpu, configurable: true, enumerable: true, writable: true });
    return { navigator, own };
  } catch {
    return read(navigator, 'gpu') === gpu ? {} : undefined;
  }
}

/** Puts back what `pinGpu` replaced. */
export function unpinGpu(pin) {
  if (pin.navigator === undefined) return;
  try {
    if (pin.own) Object.defineProperty(pin.navigator, 'gpu', pin.own);
    else delete pin.navigator.gpu;
  } catch {
    // A navigator that let us define the property lets us delete it.
  }
}
