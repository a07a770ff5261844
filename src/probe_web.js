// The JavaScript half of the browser probe (src/probe_web.rs): reads what a
// GPUAdapter offers, in WebGPU spelling, as JSON text for the core's strict
// parser. One call instead of some eighty property reads across the boundary.

const read = (object, key) => {
  try {
    return object == null ? undefined : object[key];
  } catch {
    return undefined;
  }
};
const text = (value) => (typeof value === 'string' ? value : '');

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
      for (const owner of [supported, Object.getPrototypeOf(supported)]) {
        for (const name of owner ? Object.getOwnPropertyNames(owner) : []) {
          const value = read(supported, name);
          if (Number.isSafeInteger(value) && value >= 0) limits[name] = value;
        }
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
