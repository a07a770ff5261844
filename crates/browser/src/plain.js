// The JavaScript half of the detect-only module's direct reader
// (the core's src/json/plain.rs, src/api.rs `read_plain`): JSON text parsed here,
// then handed to the module flat, field by field, so that the module holds no
// JSON reader. Only the detect-only module imports it (the full package reads
// its options with the strict reader).

const encoder = new TextEncoder();

/** What the strict reader's parser (serde_json) refuses in `text`, a JSON
 *  text that JSON.parse accepts, as its message: nesting deeper than 127
 *  arrays and objects, or a lone surrogate written as a \u escape (what
 *  JSON.stringify writes for one in a key). Undefined when there is none. */
function strictRefusal(text) {
  if (text.length < 128 && !/\\u[dD][89a-fA-F]/.test(text)) return undefined;
  const at = (i, why) => {
    const start = text.lastIndexOf('\n', i - 1) + 1;
    const line = text.slice(0, start).split('\n').length;
    return `${why} at line ${line} column ${encoder.encode(text.slice(start, i)).length + 1}`;
  };
  const hex = (i) => parseInt(text.slice(i, i + 4), 16);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '"') inString = false;
      else if (c === '\\' && text[i + 1] !== 'u') i += 1;
      else if (c === '\\') {
        const n = hex(i + 2);
        i += 5;
        if (n >= 0xdc00 && n <= 0xdfff) return at(i, 'lone leading surrogate in hex escape');
        if (n < 0xd800 || n > 0xdbff) continue;
        // A leading surrogate: a trailing one's escape must follow.
        if (text[i + 1] !== '\\') return at(i + 1, 'unexpected end of hex escape');
        if (text[i + 2] !== 'u') return at(i + 2, 'unexpected end of hex escape');
        const m = hex(i + 3);
        i += 6;
        if (m < 0xdc00 || m > 0xdfff) return at(i, 'lone leading surrogate in hex escape');
      }
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth === 128) return at(i, 'recursion limit exceeded');
    } else if (c === ']' || c === '}') depth -= 1;
  }
  return undefined;
}

/** A JSON number's text, from where it starts. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** The top-level value of `text`, a JSON text that JSON.parse and
 *  `strictRefusal` accept, read as the strict reader reads it: an object's
 *  fields in the text's order (Object.entries would put integer-like keys
 *  first), a repeated key as often as it is written (JSON.parse keeps the
 *  last; the strict reader says duplicate-field), and a number with its own
 *  text (`5.0`, `1e2`, `-0`, `1e-400`: JSON.parse's value would read as the
 *  integer the strict reader refuses). Throws `OutOfRange` for a number too
 *  large for a double anywhere in the text (`1e400`, which JSON.parse reads
 *  as Infinity and serde_json refuses). */
function scan(text) {
  let i = 0;
  const space = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i += 1;
  };
  const skipString = () => {
    i += 1;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
  };
  const string = () => {
    const start = i;
    skipString();
    return JSON.parse(text.slice(start, i));
  };
  const skipContainer = () => {
    let depth = 0;
    do {
      const c = text[i];
      if (c === '"') {
        skipString();
        continue;
      }
      if (c === '-' || (c >= '0' && c <= '9')) {
        number();
        continue;
      }
      if (c === '[' || c === '{') depth += 1;
      else if (c === ']' || c === '}') depth -= 1;
      i += 1;
    } while (depth > 0);
  };
  // A number, wherever it stands: serde_json refuses one past a double's
  // range inside a container too.
  const number = () => {
    NUMBER.lastIndex = i;
    const written = NUMBER.exec(text)[0];
    i += written.length;
    const value = Number(written);
    if (!Number.isFinite(value)) throw new OutOfRange(i - 1);
    return [2, value, written];
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === '"') return [3, string(), 0];
    if (c === '[' || c === '{') {
      skipContainer();
      return [c === '[' ? 4 : 5, 0, 0];
    }
    if (c === 'n') return (i += 4), [0, 0, 0];
    if (c === 't') return (i += 4), [1, true, 0];
    if (c === 'f') return (i += 5), [1, false, 0];
    return number();
  };
  space();
  if (text[i] !== '{') return value();
  const flat = [5, 0, 0];
  i += 1;
  space();
  if (text[i] === '}') return flat;
  for (;;) {
    space();
    const key = string();
    space();
    i += 1; // the colon
    flat.push(key, ...value());
    space();
    if (text[i] === '}') return flat;
    i += 1; // the comma
  }
}

/** A number past a double's range, at `at` (the index of its last character). */
class OutOfRange {
  constructor(at) {
    this.at = at;
  }
}

/** serde_json's position of the character at `i`: its line, and its column
 *  in UTF-8 bytes, from 1. */
function position(text, i) {
  const start = text.lastIndexOf('\n', i - 1) + 1;
  const line = text.slice(0, start).split('\n').length;
  return `line ${line} column ${encoder.encode(text.slice(start, i)).length + 1}`;
}

/** The JSON text `text` parsed for the core's direct reader
 *  (src/json/plain.rs), flat: the value's kind and two slots, then for an
 *  object each field's key, kind and two slots, in the text's order, as
 *  often as written (`scan`). Kinds: 0 null, 1 a boolean (its value), 2 a
 *  number (its value, and its text as written), 3 a string (it), 4 an
 *  array, 5 an object; a container's content is not read (no form read so
 *  has one). A string instead says why the text is not JSON the strict
 *  reader accepts. */
export function plainFields(text) {
  try {
    JSON.parse(text);
  } catch (error) {
    return String(error.message);
  }
  const refusal = strictRefusal(text);
  if (refusal !== undefined) return refusal;
  try {
    return scan(text);
  } catch (error) {
    if (error instanceof OutOfRange) return `number out of range at ${position(text, error.at)}`;
    throw error;
  }
}
