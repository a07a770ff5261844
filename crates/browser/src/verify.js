// The JavaScript half of the verification (src/verify.rs): the guard
// around the adapter and device wgpu is given, and the verdicts kept.
//
// The guard. wgpu calls WebGPU's methods and reads WebGPU's members without
// catching, and trusts what they answer: a call or read that throws, a
// method that is not a function, a promise that is not one, would unwind
// through the module's frames or trap it. So wgpu is handed the adapter, and
// everything reached from it, through one membrane (below): the page's
// objects are untouched, the browser is handed back its own objects, and
// whatever a WebGPU object does becomes a fault with the browser's words,
// which the module reads after each step, and stops there. The device's
// `lost` promise is a fault too.
//
// The cache. A verdict (JSON text with the time it was kept) under its key:
// `persistent` is localStorage (pages, Deno) or IndexedDB (workers, which
// have no localStorage), a page's verdicts copied to IndexedDB and a
// worker's read there by a page: a page and its workers share them;
// `session` is this module's memory, `none` nothing.

/** What an error (or any value) says, read so that nothing it does can
 *  throw: a `message` that is a string, else its text, else a placeholder. */
export const messageOf = (error) => {
  try {
    const message = error !== null && (typeof error === 'object' || typeof error === 'function') ? error.message : undefined;
    return typeof message === 'string' ? message : String(message ?? error);
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

// The membrane. Every value wgpu takes from the page passes through it:
// objects and functions as membrane objects (Proxies over a shadow target of
// their own, so that no invariant of the page's object, frozen, sealed or a
// revoked Proxy, binds them), promises as real promises of this realm,
// primitives and bytes as they are. On a membrane object:
// - a property read that throws, or a method that throws, is a fault;
// - a member WebGPU defines as a method that is not a function is a fault
//   when called;
// - a method's answer is checked against what WebGPU says it answers (a
//   promise, an object, an ArrayBuffer of the size asked, a GPUError or
//   null): anything else is a fault;
// - after a fault, wgpu gets an inert stand-in (`INERT`) or a rejected
//   promise, and the module stops at its next look at the faults.
// Nothing reaches wgpu's frames as an exception, and every promise it
// awaits settles.

/** WebGPU's methods that answer a promise (WebGPU IDL). */
const PROMISE_METHODS = new Set(['requestDevice', 'requestAdapterInfo', 'mapAsync', 'onSubmittedWorkDone',
  'popErrorScope', 'createComputePipelineAsync', 'createRenderPipelineAsync', 'getCompilationInfo']);
/** WebGPU's methods that answer an object (WebGPU IDL). */
const OBJECT_METHODS = new Set(['createBuffer', 'createTexture', 'createSampler', 'createBindGroupLayout',
  'createPipelineLayout', 'createBindGroup', 'createShaderModule', 'createComputePipeline', 'createRenderPipeline',
  'createCommandEncoder', 'createRenderBundleEncoder', 'createQuerySet', 'createView', 'beginComputePass',
  'beginRenderPass', 'finish', 'getBindGroupLayout', 'getMappedRange', 'importExternalTexture', 'getCurrentTexture']);
/** WebGPU's methods that answer nothing (WebGPU IDL), and `has`, the
 *  feature set's, which answers a boolean. */
const OTHER_METHODS = ['destroy', 'unmap', 'submit', 'writeBuffer', 'writeTexture', 'copyExternalImageToTexture',
  'setPipeline', 'setBindGroup', 'dispatchWorkgroups', 'dispatchWorkgroupsIndirect', 'end', 'copyBufferToBuffer',
  'copyBufferToTexture', 'copyTextureToBuffer', 'copyTextureToTexture', 'clearBuffer', 'resolveQuerySet',
  'pushErrorScope', 'pushDebugGroup', 'popDebugGroup', 'insertDebugMarker', 'writeTimestamp', 'setVertexBuffer',
  'setIndexBuffer', 'draw', 'drawIndexed', 'drawIndirect', 'drawIndexedIndirect', 'setViewport', 'setScissorRect',
  'setBlendConstant', 'setStencilReference', 'beginOcclusionQuery', 'endOcclusionQuery', 'executeBundles', 'has'];
const METHODS = new Set([...PROMISE_METHODS, ...OBJECT_METHODS, ...OTHER_METHODS]);

/** WebGPU's members that are objects wgpu calls methods on (a device's
 *  queue, an adapter's features and limits): anything else is a fault. */
const OBJECT_MEMBERS = new Set(['queue', 'features', 'limits', 'info']);

/** `GPUAdapterInfo`'s strings: anything else reads as ''. */
const STRING_MEMBERS = new Set(['vendor', 'architecture', 'device', 'description', 'label']);
/** A limit (`maxBindGroups`, `minUniformBufferOffsetAlignment`, ...), a
 *  buffer's `size` and `usage`: anything but a number is a fault. */
const isNumberMember = (key) => key === 'size' || key === 'usage' || /^(max|min)[A-Z]/.test(key);

/** What a value is, for a fault's sentence ('undefined', 'a number', 'an object'). */
function kindOf(value) {
  if (value === undefined || value === null) return String(value);
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** A promise rejected with `error`, its rejection handled (the module reads the fault). */
function rejected(error) {
  const promise = Promise.reject(error);
  promise.catch(() => {});
  return promise;
}

/** An error of this realm with `reason`'s words: a page's rejection reason
 *  is never handed to wgpu as it is (its `message` may be a getter that throws). */
const plainError = (reason) => new Error(messageOf(reason));

/** What wgpu gets once something failed: every member is the stand-in
 *  again (a method WebGPU says answers a promise answers a rejected one),
 *  a call answers it, `then` rejects (so that a promise wgpu awaits
 *  settles, and one it chains on never waits), a number it reads is 0, a
 *  set it asks is empty, a text is ''. */
const INERT = new Proxy(() => {}, {
  get(_, key) {
    if (key === 'then') return (_resolve, reject) => typeof reject === 'function' && reject(new Error('an earlier WebGPU call failed'));
    if (key === Symbol.toPrimitive || key === 'valueOf') return () => 0;
    if (key === 'toString') return () => '';
    if (key === Symbol.iterator) return () => ({ next: () => ({ done: true, value: undefined }) });
    if (key === 'has') return () => false;
    if (typeof key === 'string' && (isNumberMember(key) || key === 'length' || key === 'byteLength')) return 0;
    if (typeof key === 'string' && STRING_MEMBERS.has(key)) return '';
    if (typeof key === 'string' && PROMISE_METHODS.has(key)) return () => rejected(new Error('an earlier WebGPU call failed'));
    return INERT;
  },
  apply: () => INERT,
  set: () => true,
  has: () => false,
});

/** A real ArrayBuffer (its internal slot, not its prototype, is asked). */
const byteLengthOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
function isArrayBuffer(value) {
  try {
    byteLengthOf.call(value);
    return true;
  } catch {
    return false;
  }
}

/** The page's object behind each membrane object. */
const REAL = new WeakMap();
/** The membrane objects, by the verification's faults and then by the page's object (one
 *  membrane object a page object, so that wgpu sees the same object each time). */
const MADE = new WeakMap();

/** `value` with every membrane object in it (at any depth of a plain object
 *  or array: a descriptor's `layout`, a bind group's `resource.buffer`)
 *  replaced by the page's object: the browser's methods take their own
 *  objects. What cannot be looked at is handed on as it is. */
function unwrap(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  const real = REAL.get(value);
  if (real !== undefined) return real;
  try {
    if (Array.isArray(value)) return value.some(holdsMembrane) ? value.map(unwrap) : value;
    if (Object.getPrototypeOf(value) !== Object.prototype || !holdsMembrane(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unwrap(item)]));
  } catch {
    return value;
  }
}

/** Whether a membrane object is anywhere in `value` (a plain object or array). */
function holdsMembrane(value) {
  if (value === null || typeof value !== 'object') return false;
  if (REAL.has(value)) return true;
  if (Array.isArray(value)) return value.some(holdsMembrane);
  return Object.getPrototypeOf(value) === Object.prototype && Object.values(value).some(holdsMembrane);
}

/** Whether `value` has a `then` to call. Where WebGPU answers a promise
 *  (`promised`), a `then` that throws counts (adopting it rejects, as it
 *  must); elsewhere such a value is an object like any other. */
function isThenable(value, promised = false) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    return typeof value.then === 'function';
  } catch {
    return promised;
  }
}

/** A promise of this realm for `thenable`, resolved with `settled(value)`
 *  (through the membrane) or rejected with a plain error of its words
 *  (`failed(reason)` runs first). A `then` that throws, or never calls
 *  back, is the page's: a throw rejects.
 *  @param {any} thenable
 *  @param {(value: any) => any} settled
 *  @param {(reason: any) => void} [failed] */
function promiseOf(thenable, settled, failed = () => {}) {
  const adopted = new Promise((resolve) => { resolve(thenable); });
  const answer = adopted.then(settled, (reason) => {
    failed(reason);
    throw plainError(reason);
  });
  answer.catch(() => {}); // wgpu's own `then` gets the rejection; none is left unhandled
  return answer;
}

/** `value`, as wgpu may hold it: through the membrane (objects and
 *  functions), as a promise of this realm (thenables), or as it is
 *  (primitives, bytes). */
function inside(value, faults) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  if (REAL.has(value) || value === INERT) return value;
  if (ArrayBuffer.isView(value) || isArrayBuffer(value)) return value;
  if (isThenable(value)) return promiseOf(value, (settled) => inside(settled, faults));
  return membrane(value, faults);
}

/** The membrane object over `real` (an object or function of the page). */
function membrane(real, faults) {
  let made = MADE.get(faults);
  if (made === undefined) MADE.set(faults, (made = new WeakMap()));
  const known = made.get(real);
  if (known !== undefined) return known;
  const shadow = typeof real === 'function' ? () => {} : {};
  const proxy = new Proxy(shadow, {
    get(_, key) {
      if (key === 'then') return undefined; // a membrane object is never a thenable
      const name = String(key);
      let value;
      try {
        value = Reflect.get(real, key);
      } catch (error) {
        note(faults, 'verify-failed', `reading ${name} threw: ${messageOf(error)}`);
        return INERT[key];
      }
      if (typeof value === 'function') return method(real, name, value, faults);
      if (typeof key === 'string' && METHODS.has(key)) {
        return () => {
          note(faults, 'verify-failed', `${key} is ${kindOf(value)}, not a function`);
          return PROMISE_METHODS.has(key) ? rejected(new Error(`${key} is not a function`)) : INERT;
        };
      }
      if (typeof key === 'string' && STRING_MEMBERS.has(key) && typeof value !== 'string') return '';
      if (typeof key === 'string' && OBJECT_MEMBERS.has(key) && (value === null || typeof value !== 'object')) {
        note(faults, 'verify-failed', `${key} is ${kindOf(value)}, not an object`);
        return INERT;
      }
      // A device without a `lost` promise is watched through its calls
      // alone: one that never settles, for wgpu to chain on.
      if (key === 'lost' && !isThenable(value, true)) return new Promise(() => {});
      if (typeof key === 'string' && isNumberMember(key) && typeof value !== 'number') {
        note(faults, 'verify-failed', `${key} is ${kindOf(value)}, not a number`);
        return 0;
      }
      return inside(value, faults);
    },
    set(_, key, value) {
      try {
        Reflect.set(real, key, unwrap(value));
      } catch (error) {
        note(faults, 'verify-failed', `setting ${String(key)} threw: ${messageOf(error)}`);
      }
      return true;
    },
    has(_, key) {
      try {
        return Reflect.has(real, key);
      } catch {
        return false;
      }
    },
    getPrototypeOf() {
      try {
        return Reflect.getPrototypeOf(real);
      } catch {
        return null;
      }
    },
    apply(_, self, args) {
      return call(real, REAL.get(self) ?? self, 'a function', args, faults);
    },
  });
  made.set(real, proxy);
  REAL.set(proxy, real);
  return proxy;
}

/** What wgpu gets for the page object's method `name` (`value`). */
function method(real, name, value, faults) {
  return (...args) => call(value, real, name, args, faults);
}

/** `fn` called on `self` with `args` (membrane objects unwrapped), its
 *  answer checked against what WebGPU says `name` answers. */
function call(fn, self, name, args, faults) {
  let result;
  try {
    result = Reflect.apply(fn, self, args.map(unwrap));
  } catch (error) {
    note(faults, 'verify-failed', `${name}() threw: ${messageOf(error)}`);
    return PROMISE_METHODS.has(name) ? rejected(plainError(error)) : INERT;
  }
  if (PROMISE_METHODS.has(name)) {
    if (!isThenable(result, true)) {
      note(faults, 'verify-failed', `${name}() answered ${kindOf(result)}, not a promise`);
      return rejected(new Error(`${name}() answered no promise`));
    }
    return promiseOf(result, (value) => settledAs(name, value, faults), (reason) => {
      if (name === 'requestDevice') note(faults, 'device-lost', `requestDevice() failed: ${messageOf(reason)}`);
    });
  }
  if (name === 'getMappedRange') {
    // wgpu views the range it asked for (offset, size) in what this answers.
    const size = typeof args[1] === 'number' && args[1] >= 0 ? args[1] : 0;
    if (isArrayBuffer(result) && byteLengthOf.call(result) >= size) return result;
    note(faults, 'verify-failed', `getMappedRange() answered ${isArrayBuffer(result) ? 'too few bytes' : kindOf(result)}, `
      + 'not an ArrayBuffer of the size asked');
    return new ArrayBuffer(size);
  }
  if (OBJECT_METHODS.has(name)) {
    if (result !== null && (typeof result === 'object' || typeof result === 'function')) return membrane(result, faults);
    note(faults, 'verify-failed', `${name}() answered ${kindOf(result)}, not an object`);
    return INERT;
  }
  if (name === 'has') return result === true;
  return inside(result, faults);
}

/** What a promise of WebGPU's method `name` resolved to, as wgpu may hold it. */
function settledAs(name, value, faults) {
  switch (name) {
    case 'mapAsync':
    case 'onSubmittedWorkDone':
      return undefined;
    case 'popErrorScope':
      return errorOf(value, faults);
    case 'requestDevice':
    case 'createComputePipelineAsync':
    case 'createRenderPipelineAsync':
      if (value === null || typeof value !== 'object') {
        note(faults, 'verify-failed', `${name}() resolved to ${kindOf(value)}, not an object`);
        throw new Error(`${name}() resolved to no object`);
      }
      return name === 'requestDevice' ? watchDevice(value, faults) : membrane(value, faults);
    default:
      return inside(value, faults);
  }
}

/** What popErrorScope() resolved to, as wgpu reads it: `null`, or a
 *  validation or out-of-memory error (wgpu panics on any other); any other
 *  error (an internal one) or value is a fault, and `null` to wgpu. */
function errorOf(value, faults) {
  if (value === null || value === undefined) return null;
  const kinds = ['GPUValidationError', 'GPUOutOfMemoryError'].map((name) => globalThis[name]).filter((k) => typeof k === 'function');
  let known = false;
  try {
    known = kinds.some((kind) => value instanceof kind);
  } catch {
    known = false;
  }
  if (known) return membrane(value, faults);
  note(faults, 'verify-failed', `an error scope caught ${kindOf(value)}: ${messageOf(value)}`);
  return null;
}

/** Reads `object[key]` so that nothing it does can throw. */
function readSafely(object, key) {
  try {
    return object === null || (typeof object !== 'object' && typeof object !== 'function') ? undefined : object[key];
  } catch {
    return undefined;
  }
}

/** The device through the membrane, its `lost` watched: a loss (but the
 *  destroy at the end) is a fault of its own kind. */
function watchDevice(device, faults) {
  let lost;
  try {
    const promised = device.lost;
    // (A device without a `lost` promise is watched through its calls alone.)
    if (isThenable(promised, true)) lost = new Promise((resolve) => { resolve(promised); });
  } catch {
    lost = undefined;
  }
  lost?.then((info) => {
    const reason = readSafely(info, 'reason');
    if (reason === 'destroyed') return;
    const message = readSafely(info, 'message');
    const words = typeof message === 'string' && message !== '' ? `: ${message}` : '';
    note(faults, 'device-lost', `the device was lost (${typeof reason === 'string' ? reason : 'unknown'})${words}`);
  }).catch(() => {});
  return membrane(device, faults);
}

/** What `captureRequest` hands wgpu's adapter promise to: the answer, with
 *  the adapter through the membrane (a promise of this realm whatever the
 *  page's request answered). */
export function adapterGuard(faults) {
  return (answer) =>
    promiseOf(answer, (adapter) => (adapter === null || typeof adapter !== 'object' ? adapter : membrane(adapter, faults)));
}

// The package's version, defined by scripts/bundle.mjs when it bundles an
// entry (unbundled, as wasm-bindgen's tests load it, a name of its own).
const VERSION = typeof __BACKEND_TARGETS_VERSION__ === 'string' ? __BACKEND_TARGETS_VERSION__ : 'unbundled';
const PREFIX = 'backend-targets:verify:';
const utf8 = new TextEncoder();

/** The cache key of a verdict: what identifies the adapter and browser
 *  (`GPUAdapterInfo`'s four strings, whether it is a fallback adapter, its
 *  features and limits), the user agent, this package's version, the kept
 *  verdicts' form (`format`: the core's `VERDICT_FORMAT`) and the
 *  precision checked, hashed into 16 hex digits after a readable prefix: two
 *  FNV-1a hashes of 32 bits (two offset bases) over the UTF-8 of each text,
 *  each text followed by a 0 byte. A cache key, not a defence: nothing is
 *  trusted because of it. (32-bit arithmetic: the same hash over BigInt made
 *  a cached decision some 5 ms slower.) `adapter` is a probe report's adapter
 *  (features and limits in the core's order). The one key function: the
 *  verification module and the other entries' cache lookup both call it. */
export function verdictKey(adapter, precision, format) {
  const { info } = adapter;
  const texts = [info.vendor, info.architecture, info.device, info.description,
    adapter.isFallbackAdapter ? 'fallback' : 'adapter', ...adapter.features];
  for (const [name, value] of Object.entries(adapter.limits)) texts.push(name, value);
  texts.push(userAgent(), VERSION, format, precision, '');
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
export function verdictKeyOf(adapterText, precision, format) {
  return verdictKey(JSON.parse(adapterText), precision, format);
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

// The `session` cache, and `persistent` where there is no storage. What is
// kept is the core's text (a `KeptVerdict`: when, and the verdict), read by
// the core alone; this file only stores and fetches it.
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

/** `promise`, or undefined after `waitMs` (`SHARED_STORE_WAIT_MS` unless given). */
function sharedStoreWait(promise, waitMs = SHARED_STORE_WAIT_MS) {
  let timer;
  const given = new Promise((resolve) => { timer = setTimeout(resolve, waitMs); });
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

/** The text kept under `key` (the core's `KeptVerdict`, which the core
 *  reads: its form, key and age), or undefined. Never rejects. */
export async function cachedVerdict(cache, key) {
  try {
    const kept = await read(cache, key);
    return typeof kept === 'string' ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `kept` (the core's text) under `key`; resolves once it is written
 *  (a worker's IndexedDB write is done, so that a worker that ends on its
 *  answer keeps it; a page's localStorage, with a copy to IndexedDB for its
 *  workers, waited for up to `SHARED_STORE_WAIT_MS`): to true where the
 *  cache asked for kept it, false where persistent storage refused it
 *  (full, or none: this page's memory keeps it then). Never rejects. */
export function keepVerdict(cache, key, kept) {
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

/** How long `clearVerdicts` waits for IndexedDB (one held by another tab,
 *  or that never answers, must not leave the call unsettled). */
const CLEAR_WAIT_MS = 1000;

/** Forgets every kept verdict (this module's memory, localStorage and
 *  IndexedDB): the next `detect({ verify })` verifies again. Settles within
 *  `CLEAR_WAIT_MS` whatever IndexedDB does (memory and localStorage are
 *  cleared at once; IndexedDB's copy as soon as it answers). */
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
  await sharedStoreWait(withStore('readwrite', (store) => store.clear()), CLEAR_WAIT_MS);
}
