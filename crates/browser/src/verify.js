// The JavaScript half of the verification (src/verify.rs): the guard
// around the adapter and device wgpu is given, and the verdicts kept.
//
// The guard. wgpu calls WebGPU's methods without catching: a call that
// throws (a polyfill, a stand-in, a browser bug) would unwind through the
// module's frames. The guarded adapter, device, queue and every WebGPU
// object their methods make (Proxies over the real objects, handed to wgpu
// alone: the page's objects are untouched; the browser is handed back its
// own objects) catch what a method throws, note it as a fault and return
// undefined; the module reads the fault after each step and stops there.
// The device's `lost` promise is a fault too.
//
// The cache. A verdict (JSON text with the time it was kept) under its key:
// `persistent` is localStorage (pages, Deno) or IndexedDB (workers, which
// have no localStorage), a page's verdicts copied to IndexedDB and a
// worker's read there by a page: a page and its workers share them;
// `session` is this module's memory, `none` nothing.

const messageOf = (error) => {
  try {
    return String(error?.message ?? error);
  } catch {
    return 'an error that cannot be read';
  }
};

/** A fresh record of faults. */
export function newFaults() {
  return { fault: undefined };
}

/** The first fault noted since the last call (`{ kind, message }`), or undefined. */
export function takeFault(faults) {
  return faults.fault;
}

function note(faults, kind, message) {
  faults.fault ??= { kind, message };
}

// The WebGPU methods that answer a promise: one that throws instead answers
// a rejected promise through the guard (wgpu awaits what they return: an
// undefined there left the verification waiting for ever).
const ANSWER_PROMISES = new Set(['requestDevice', 'mapAsync', 'onSubmittedWorkDone', 'popErrorScope',
  'createComputePipelineAsync', 'createRenderPipelineAsync', 'getCompilationInfo', 'requestAdapterInfo']);

/** The guard's Proxies, by the verification's faults and then by the
 *  object each stands for (one Proxy an object, so that wgpu sees the same
 *  object each time), and the objects, by their Proxy (what the browser is
 *  handed back). */
const proxies = new WeakMap();
const targets = new WeakMap();

/** `value` with every guarded object in it (at any depth of a plain object
 *  or array: a descriptor's `layout`, a bind group's `resource.buffer`)
 *  replaced by the object itself: the browser's methods take their own
 *  objects, not Proxies over them. */
function unwrap(value) {
  if (value === null || typeof value !== 'object') return value;
  const target = targets.get(value);
  if (target !== undefined) return target;
  if (Array.isArray(value)) return value.some(holdsProxy) ? value.map(unwrap) : value;
  if (Object.getPrototypeOf(value) !== Object.prototype || !holdsProxy(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unwrap(item)]));
}

/** Whether a guarded object is anywhere in `value` (a plain object or array). */
function holdsProxy(value) {
  if (value === null || typeof value !== 'object') return false;
  if (targets.has(value)) return true;
  if (Array.isArray(value)) return value.some(holdsProxy);
  return Object.getPrototypeOf(value) === Object.prototype && Object.values(value).some(holdsProxy);
}

/** Whether a method's answer is a WebGPU object to guard in turn (a
 *  buffer, an encoder, a pass, a pipeline, a bind group, ...): an object,
 *  but not a promise (wgpu awaits it as it is), bytes or a plain value. */
const guardable = (value) => value !== null && typeof value === 'object' && typeof value.then !== 'function'
  && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer) && Object.getPrototypeOf(value) !== Object.prototype
  && !Array.isArray(value);

/** What a method that threw answers (its fault noted): an object whose
 *  every method answers it again and does nothing, so that wgpu's next
 *  calls on what it was to make (a pass on an encoder that was never made)
 *  end harmlessly where the module reads the fault and stops. */
const INERT = new Proxy(function inert() {}, {
  get: (_, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 0 : INERT),
  apply: () => INERT,
});

/** A Proxy over `target` whose methods note what they throw (and return
 *  undefined, or a rejected promise for a method that answers one), take
 *  guarded objects unwrapped, and answer the WebGPU objects they make
 *  guarded too: every call wgpu makes on the adapter, the device, the queue
 *  and what they make (buffers, encoders, passes, pipelines) is caught the
 *  same way. `wrapResult(name, value)` may guard what a method returns. */
function guarded(target, faults, wrapResult = (name, value) => value) {
  if (!proxies.has(faults)) proxies.set(faults, new WeakMap());
  const made = proxies.get(faults);
  const known = made.get(target);
  if (known !== undefined) return known;
  const proxy = new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (typeof value !== 'function') {
        return key === 'queue' && value !== null && typeof value === 'object' ? guarded(value, faults) : value;
      }
      return function guardedMethod(...args) {
        let result;
        try {
          result = value.apply(object, args.map(unwrap));
        } catch (error) {
          note(faults, 'verify-failed', `${String(key)}() threw: ${messageOf(error)}`);
          if (!ANSWER_PROMISES.has(/** @type {string} */ (key))) return INERT;
          const rejected = Promise.reject(error);
          rejected.catch(() => {});
          return rejected;
        }
        const answer = wrapResult(key, result);
        return answer === result && guardable(result) ? guarded(result, faults) : answer;
      };
    },
    set(object, key, value) {
      object[key] = value;
      return true;
    },
  });
  made.set(target, proxy);
  targets.set(proxy, target);
  return proxy;
}

function watchDevice(device, faults) {
  if (device === null || typeof device !== 'object') return device;
  try {
    Promise.resolve(device.lost).then((info) => {
      if (info?.reason === 'destroyed') return;
      const words = info?.message ? `: ${messageOf(info.message)}` : '';
      note(faults, 'device-lost', `the device was lost (${info?.reason ?? 'unknown'})${words}`);
    }, () => {});
  } catch {
    // A device without `lost` is watched through its calls alone.
  }
  return guarded(device, faults);
}

/** What `captureRequest` hands wgpu's adapter promise to: the answer, with
 *  the adapter guarded. */
export function adapterGuard(faults) {
  return (answer) =>
    Promise.resolve(answer).then((adapter) => {
      if (adapter === null || typeof adapter !== 'object') return adapter;
      // A device refused is said with the browser's words (wgpu's error
      // for it carries none on the web).
      return guarded(adapter, faults, (name, value) => (name === 'requestDevice'
        ? Promise.resolve(value).then((device) => watchDevice(device, faults), (error) => {
          note(faults, 'device-lost', `requestDevice() failed: ${messageOf(error)}`);
          throw error;
        })
        : value));
    });
}

// The package's version, defined by scripts/bundle.mjs when it bundles an
// entry (unbundled, as wasm-bindgen's tests load it, a name of its own).
const VERSION = typeof __BACKEND_TARGETS_VERSION__ === 'string' ? __BACKEND_TARGETS_VERSION__ : 'unbundled';
const PREFIX = 'backend-targets:verify:';
const utf8 = new TextEncoder();

/** The cache key of a verdict: what identifies the adapter and browser
 *  (`GPUAdapterInfo`'s four strings, whether it is a fallback adapter, its
 *  features and limits), the user agent, this package's version and the
 *  precision checked, hashed into 16 hex digits after a readable prefix: two
 *  FNV-1a hashes of 32 bits (two offset bases) over the UTF-8 of each text,
 *  each text followed by a 0 byte. A cache key, not a defence: nothing is
 *  trusted because of it. (32-bit arithmetic: the same hash over BigInt made
 *  a cached decision some 5 ms slower.) `adapter` is a probe report's adapter
 *  (features and limits in the core's order). The one key function: the
 *  verification module and the other entries' cache lookup both call it. */
export function verdictKey(adapter, precision) {
  const { info } = adapter;
  const texts = [info.vendor, info.architecture, info.device, info.description,
    adapter.isFallbackAdapter ? 'fallback' : 'adapter', ...adapter.features];
  for (const [name, value] of Object.entries(adapter.limits)) texts.push(name, value);
  texts.push(userAgent(), VERSION, precision, '');
  // The texts joined by U+0000, which is the 0 byte in UTF-8, and one more
  // at the end: one encoding, and an indexed loop, not one iterator a text
  // (a cached decision waits on this; measured in Chromium, cold: 0.7-1.4 ms
  // against 1.9-7.2 ms one text at a time).
  const bytes = utf8.encode(texts.map(String).join('\0'));
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  for (let i = 0; i < bytes.length; i++) {
    low = Math.imul(low ^ bytes[i], 0x01000193);
    high = Math.imul(high ^ bytes[i], 0x01000193);
  }
  const hex = (n) => (n >>> 0).toString(16).padStart(8, '0');
  return `${PREFIX}${hex(high)}${hex(low)}`;
}

/** `verdictKey` of an adapter given as JSON text (the module's side). */
export function verdictKeyOf(adapterText, precision) {
  return verdictKey(JSON.parse(adapterText), precision);
}

/** `navigator.userAgent`, or ''. */
export function userAgent() {
  try {
    const agent = globalThis.navigator?.userAgent;
    return typeof agent === 'string' ? agent : '';
  } catch {
    return '';
  }
}

// The `session` cache, and `persistent` where there is no storage.
const session = new Map();
const DATABASE = 'backend-targets';
const STORE = 'verdicts';

function local() {
  try {
    const storage = globalThis.localStorage;
    return storage && typeof storage.getItem === 'function' ? storage : undefined;
  } catch {
    return undefined; // a sandboxed frame throws on the read
  }
}

function database() {
  return new Promise((resolve) => {
    // Reading `indexedDB` or opening it throws where storage is denied (a
    // sandboxed iframe: SecurityError): no database, as where there is none.
    try {
      const factory = globalThis.indexedDB;
      if (!factory) {
        resolve(undefined);
        return;
      }
      const request = factory.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(undefined);
      request.onblocked = () => resolve(undefined);
    } catch {
      resolve(undefined);
    }
  });
}

async function withStore(mode, use) {
  const db = await database();
  if (!db) return undefined;
  try {
    return await new Promise((resolve) => {
      const transaction = db.transaction(STORE, mode);
      const request = use(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => resolve(undefined);
      transaction.onabort = () => resolve(undefined);
    });
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/** How long a page waits for IndexedDB, the store it shares with its
 *  workers (a worker has no localStorage): on a localStorage miss, for what
 *  a worker kept there (a miss means a verification of some 300 ms or more
 *  follows), and for its own verdict's copy there (so that a page that ends
 *  on its answer shares it). An IndexedDB held by another tab must not eat
 *  the budget. (In headless Chromium here, opening it and reading took
 *  7-30 ms where it was created, 1-3 ms after; opening it and writing a
 *  verdict, 13-31 ms and 1-9 ms.) */
const SHARED_STORE_WAIT_MS = 100;

/** `promise`, or undefined after `SHARED_STORE_WAIT_MS`. */
function sharedStoreWait(promise) {
  let timer;
  const given = new Promise((resolve) => { timer = setTimeout(resolve, SHARED_STORE_WAIT_MS); });
  return Promise.race([promise, given]).finally(() => clearTimeout(timer));
}

async function read(cache, key) {
  if (cache === 'persistent') {
    const storage = local();
    const here = storage?.getItem(key);
    if (typeof here === 'string') return here;
    const lookup = withStore('readonly', (store) => store.get(key));
    const kept = await (storage ? sharedStoreWait(lookup) : lookup);
    if (typeof kept === 'string') {
      // A worker's verdict, now on the page's fast path too.
      try {
        storage?.setItem(key, kept);
      } catch {
        // Full or refused: read from IndexedDB again next time.
      }
      return kept;
    }
  }
  return session.get(key);
}

/** Loads this origin's localStorage now, where a page has one: its first
 *  read is a synchronous load (1-5 ms measured in Chromium), which a kept
 *  verdict's lookup would otherwise wait for. The full entry calls it when
 *  its early adapter request answers with an adapter, while the module is
 *  still compiling. Reads one absent key; writes nothing. */
export function warmVerdicts() {
  try {
    local()?.getItem(PREFIX);
  } catch {
    // No storage to load.
  }
}

/** How long a kept verdict is used: 7 days. */
export const VERDICT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** The verdict kept under `key` (JSON text), if kept less than `maxAgeMs`
 *  (7 days unless given) ago; undefined otherwise, and for one kept "in the
 *  future" (while the clock ran ahead: its age cannot be told). Never rejects. */
export async function cachedVerdict(cache, key, maxAgeMs = VERDICT_MAX_AGE_MS) {
  try {
    const kept = await read(cache, key);
    if (typeof kept !== 'string') return undefined;
    const { at, verdict } = JSON.parse(kept);
    const age = Date.now() - at;
    if (typeof at !== 'number' || !(age >= 0 && age < maxAgeMs) || typeof verdict !== 'string') return undefined;
    return verdict;
  } catch {
    return undefined;
  }
}

/** Keeps `verdict` (JSON text) under `key`; resolves once it is written
 *  (a worker's IndexedDB write is done, so that a worker that ends on its
 *  answer keeps it; a page's localStorage, with a copy to IndexedDB for its
 *  workers, waited for up to `SHARED_STORE_WAIT_MS`): to true where the
 *  cache asked for kept it, false where persistent storage refused it
 *  (full, or none: this page's memory keeps it then). Never rejects. */
export function keepVerdict(cache, key, verdict) {
  const kept = JSON.stringify({ at: Date.now(), verdict });
  session.set(key, kept);
  if (cache !== 'persistent') return Promise.resolve(true);
  const stored = () => withStore('readwrite', (store) => store.put(kept, key)).then((done) => done !== undefined, () => false);
  const storage = local();
  if (!storage) return stored();
  // A page: kept once localStorage has it; IndexedDB gets a copy for its
  // workers, waited for a short while (one held by another tab must not
  // delay the answer: the page's own verdict is kept already).
  let here;
  try {
    storage.setItem(key, kept);
    here = true;
  } catch {
    here = false; // storage full or refused: the session keeps it
  }
  const copied = stored();
  return here ? sharedStoreWait(copied).then(() => true) : copied;
}

/** Forgets every kept verdict (this module's memory, localStorage and
 *  IndexedDB): the next `detect({ verify })` verifies again. */
export async function clearVerdicts() {
  session.clear();
  try {
    const storage = local();
    if (storage) {
      const keys = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (key?.startsWith(PREFIX)) keys.push(key);
      }
      for (const key of keys) storage.removeItem(key);
    }
  } catch {
    // Nothing kept there.
  }
  await withStore('readwrite', (store) => store.clear());
}
