// The JavaScript half of the boundary (src/api.rs): a JS value becomes
// JSON text in one call, without crossing into the module for every key.
//
// JSON.stringify would silently drop a function or a symbol property, print a
// non-finite number as null, and throw on a BigInt. The replacer turns each of
// them into null, so that the core's strict parser refuses the value at its
// exact path, and remembers the first one for the error message. It also
// counts what the text will at least take, and stops JSON.stringify once that
// is above the caller's byte limit, so that a huge object is refused after
// reading about as much of it as the limit allows (never copied whole).
//
// Also the module's news of its own end: a panic or a failed allocation
// (src/api.rs) makes wasm-bindgen's glue start a fresh instance on the
// next call, and `instanceLost` tells the package's entries and the probes
// waiting in the old instance.

let unrepresentable = null;
// What the text being written will at least take, and where to stop.
let atLeast = 0;
let stopAbove = Infinity;
const TOO_LONG = Symbol('too long');

function replacer(key, value) {
  // What the value adds to the text, at least (UTF-16 units, at most its
  // UTF-8 bytes): a character, or a string's length and quotes; in an array
  // its comma (or the opening bracket); in an object its key, quotes, colon
  // and comma, unless it is left out (undefined).
  const inArray = Array.isArray(this);
  if (value !== undefined || inArray) {
    atLeast += (typeof value === 'string' ? value.length + 2 : 1) + (inArray ? 1 : key === '' ? 0 : key.length + 4);
    if (atLeast > stopAbove) throw TOO_LONG;
  }
  let kind;
  switch (typeof value) {
    case 'string':
      // A lone surrogate: UTF-8 cannot carry it, and nothing replaces it silently.
      if (value.isWellFormed()) return value;
      kind = 'a string with a lone surrogate';
      break;
    case 'object':
      // JSON.stringify skips symbol-keyed properties: refuse the object instead.
      if (value === null || !Object.getOwnPropertySymbols(value).some((s) => Object.prototype.propertyIsEnumerable.call(value, s))) return value;
      kind = 'an object with a symbol-keyed property';
      break;
    case 'function': kind = 'a function'; break;
    case 'symbol': kind = 'a symbol'; break;
    case 'bigint': kind = 'a BigInt'; break;
    case 'number':
      if (Number.isFinite(value)) return value;
      kind = 'a non-finite number';
      break;
    default:
      return value;
  }
  unrepresentable ??= kind;
  return null;
}

/** `value` as JSON text (undefined when JSON has no text for it); throws what
 *  JSON.stringify throws, such as for a cycle. Once the text would take more
 *  than `maxBytes` (UTF-8), stops and answers how much it had counted (a
 *  number), without writing the rest. */
export function jsonText(value, maxBytes = Infinity) {
  unrepresentable = null;
  atLeast = 0;
  stopAbove = maxBytes;
  try {
    return JSON.stringify(value, replacer);
  } catch (error) {
    if (error === TOO_LONG) return atLeast;
    throw error;
  } finally {
    stopAbove = Infinity;
  }
}

/** What the last `jsonText` turned into null ("a function", ...), once; or null. */
export function takeUnrepresentable() {
  const kind = unrepresentable;
  unrepresentable = null;
  return kind;
}

const encoder = new TextEncoder();

/** Writes as much of `text` as fits, as UTF-8, into `into` (a view of the
 *  module's memory) and returns the number of bytes written. */
export function encodeInto(text, into) {
  return encoder.encodeInto(text, into).written;
}

/** The UTF-16 index of the first lone surrogate in `text`, or -1. */
export function loneSurrogate(text) {
  if (text.isWellFormed()) return -1;
  return text.search(/\p{Surrogate}/u);
}

// Why the module's instance ends: set by the module just before it traps,
// read (once) by the entry that called it.
let outOfMemory = false;
const lossListeners = new Set();

/** Called by the module just before it traps (src/api.rs): after a panic,
 *  or an allocation its memory cannot hold (`memory`). wasm-bindgen's glue
 *  swaps in a fresh instance on the next call; the listeners (the probes
 *  waiting in this instance) are told once the trap has unwound. */
export function instanceLost(memory) {
  outOfMemory ||= memory;
  if (lossListeners.size > 0) queueMicrotask(() => { for (const listener of Array.from(lossListeners)) listener(); });
}

/** Calls `listener` after each loss of the instance, until it is removed. */
export function onInstanceLost(listener) {
  lossListeners.add(listener);
  return () => lossListeners.delete(listener);
}

/** Whether the instance ran out of memory since the last call; clears it. */
export function takeOutOfMemory() {
  const was = outOfMemory;
  outOfMemory = false;
  return was;
}
