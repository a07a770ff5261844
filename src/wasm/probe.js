// The JavaScript half of the browser probe (src/wasm/probe.rs): reads what a
// GPUAdapter offers, in WebGPU spelling, as JSON text for the core's strict
// parser. One call instead of some eighty property reads across the boundary.
// Also the capture of wgpu's `requestAdapter()` call, the timer and the clock.

const read = (object, key) => {
  try {
    return object == null ? undefined : object[key];
  } catch {
    return undefined;
  }
};
const text = (value) => (typeof value === 'string' ? value : '');

// The names a GPUSupportedLimits offers (own properties, then its prototype's
// getters), listed once per prototype: listing a prototype's properties costs
// more than reading them all. Only the list is kept, never a value.
let namesOf = { proto: undefined, names: [] };
function limitNames(supported) {
  const proto = Object.getPrototypeOf(supported);
  if (namesOf.proto !== proto) {
    const names = proto ? Object.getOwnPropertyNames(proto) : [];
    namesOf = { proto, names };
  }
  const own = Object.getOwnPropertyNames(supported);
  return own.length === 0 ? namesOf.names : [...own, ...namesOf.names];
}

/** `{ info, isFallbackAdapter, features, limits }` of a GPUAdapter, as JSON
 *  text. Features are every string the set yields, sorted, once each; limits
 *  are every own or prototype property of `adapter.limits`
 *  (GPUSupportedLimits exposes them as prototype getters) whose value is a
 *  non-negative safe integer. */
export function readAdapter(adapter) {
  const info = read(adapter, 'info');
  const fallback = [read(info, 'isFallbackAdapter'), read(adapter, 'isFallbackAdapter')]
    .find((value) => typeof value === 'boolean');
  const names = new Set();
  try {
    for (const name of read(adapter, 'features') ?? []) if (typeof name === 'string') names.add(name);
  } catch {
    // An unreadable set offers no features.
  }
  // Sorted here, not in Rust (the sort would cost the module some 3 KB):
  // WebGPU's feature names are ASCII, where UTF-16 order is byte order.
  const features = [...names].sort();
  const limits = {};
  const supported = read(adapter, 'limits');
  try {
    if (supported !== null && typeof supported === 'object') {
      for (const name of limitNames(supported)) {
        const value = read(supported, name);
        if (Number.isSafeInteger(value) && value >= 0) limits[name] = value;
      }
    }
  } catch {
    // Limits that cannot be listed are not offered.
  }
  return JSON.stringify({
    info: {
      vendor: text(read(info, 'vendor')),
      architecture: text(read(info, 'architecture')),
      device: text(read(info, 'device')),
      description: text(read(info, 'description')),
    },
    isFallbackAdapter: fallback ?? false,
    features,
    limits,
  });
}

// An adapter request made when the package's browser entry is evaluated
// (`requestEarly`), so that it runs while the module downloads and compiles:
// handed, once, to the first probe whose request has WebGPU's default options,
// as its own request. Later probes ask afresh.
let early;

/** Asks `navigator.gpu` for an adapter now (default options), for the first
 *  probe to use; does nothing where there is no page or worker WebGPU. */
export function requestEarly() {
  const scope = globalThis;
  const gpu = read(read(scope, 'navigator'), 'gpu');
  if (gpu == null || typeof read(gpu, 'requestAdapter') !== 'function') return;
  if (typeof scope.document === 'undefined' && typeof scope.WorkerGlobalScope === 'undefined') return;
  try {
    const answer = Promise.resolve(gpu.requestAdapter());
    answer.catch(() => {}); // the probe that takes it reports a rejection
    early = { gpu, answer };
  } catch {
    // A request that throws is left to the probe, which asks again.
  }
}

const isDefault = (options) =>
  options == null || (options.powerPreference === undefined && !options.forceFallbackAdapter);

/** Wraps `gpu.requestAdapter` so that the promise of the next call (or what
 *  it threw, as a rejection) is kept; undo with `releaseRequest`. Throws when
 *  there is no `requestAdapter` function to wrap. A call with default options
 *  takes the early request, if one is waiting (`requestEarly`). */
export function captureRequest(gpu) {
  const original = gpu.requestAdapter;
  if (typeof original !== 'function') throw new TypeError('navigator.gpu.requestAdapter is not a function');
  const capture = { original, own: Object.hasOwn(gpu, 'requestAdapter'), called: false, threw: false, answer: undefined };
  gpu.requestAdapter = function requestAdapter(options) {
    capture.called = true;
    if (early?.gpu === gpu && isDefault(options)) {
      capture.answer = early.answer;
      early = undefined;
      return capture.answer;
    }
    try {
      capture.answer = Promise.resolve(original.call(gpu, options));
    } catch (error) {
      capture.threw = true;
      capture.answer = error;
      return Promise.reject(error);
    }
    return capture.answer;
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

/** A promise resolved after `ms` milliseconds, and the timer to clear. */
export function delay(ms) {
  let timer;
  const promise = new Promise((resolve) => {
    // Pages and workers have setTimeout; without it there is no time limit.
    if (typeof setTimeout === 'function') timer = setTimeout(resolve, ms);
  });
  return [promise, timer];
}

export function cancelDelay(timer) {
  if (timer !== undefined) clearTimeout(timer);
}

/** Milliseconds from the page's (or worker's) time origin. */
export function now() {
  return globalThis.performance?.now() ?? Date.now();
}
