// The JavaScript half of the detect-only module's direct reader
// (src/json/plain.rs, src/wasm/api.rs `read_plain`): JSON text parsed here,
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

/** The JSON text `text` parsed for the core's direct reader
 *  (src/json/plain.rs), flat: the value's kind and two slots, then for an
 *  object each field's key, kind and two slots. Kinds: 0 null, 1 a boolean
 *  (its value), 2 a number (its value, and its text as JSON.stringify
 *  writes it), 3 a string (it), 4 an array, 5 an object; a container's
 *  content is not read (no form read so has one). A string instead says
 *  why the text is not JSON the strict reader accepts. */
export function plainFields(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return String(error.message);
  }
  const refusal = strictRefusal(text);
  if (refusal !== undefined) return refusal;
  const kind = (v) => {
    if (v === null) return [0, 0, 0];
    switch (typeof v) {
      case 'boolean': return [1, v, 0];
      case 'number': return [2, v, String(v)];
      case 'string': return [3, v, 0];
      default: return [Array.isArray(v) ? 4 : 5, 0, 0];
    }
  };
  const flat = kind(value);
  if (flat[0] === 5) for (const [key, field] of Object.entries(value)) flat.push(key, ...kind(field));
  return flat;
}
