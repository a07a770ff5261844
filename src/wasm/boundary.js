// The JavaScript half of the boundary (src/wasm/api.rs): a JS value becomes
// JSON text in one call, without crossing into the module for every key.
//
// JSON.stringify would silently drop a function or a symbol property, print a
// non-finite number as null, and throw on a BigInt. The replacer turns each of
// them into null, so that the core's strict parser refuses the value at its
// exact path, and remembers the first one for the error message.

let unrepresentable = null;

function replacer(_key, value) {
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
 *  JSON.stringify throws, such as for a cycle. */
export function jsonText(value) {
  unrepresentable = null;
  return JSON.stringify(value, replacer);
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
