// Short import and export names for a browser module built by wasm-bindgen
// (scripts/build.sh, after wasm-opt), with its JS glue rewritten to match:
//
//   node scripts/wasm-names.mjs MODULE.wasm GLUE.js [TYPES.d.ts...]
//
// wasm-bindgen names every import after its JS function and a 16-digit hash
// ("./backend_targets_bg.js" "__wbg_static_accessor_GLOBAL_THIS_003ee833af9699fc")
// and its closure adapters after their whole Rust types (up to 330 bytes):
// 4.2 KB of the detect-only module's 64 KB, a fifth of it gzipped (hashes do
// not compress). Here every import comes from one module "a" under a short
// name, and wasm-bindgen's own exports (`__wbindgen_…`, `wasm_bindgen_…`) get short names;
// the API's exports (`probe`, `plan`, `memory`, ...) keep theirs, which the
// entries check before they instantiate a module (crates/browser/pkg-template/early.js).
//
// The glue is rewritten by its exact text, and the script fails, leaving the
// build to fail, when that text is not what it expects (another wasm-bindgen
// version): each import's key once in the glue's import object, each snippet
// module once in the object it returns, no old name left afterwards.
import { readFileSync, writeFileSync } from 'node:fs';

const [wasmPath, gluePath, ...typesPaths] = process.argv.slice(2);
if (!wasmPath || !gluePath) {
  console.error('usage: node scripts/wasm-names.mjs MODULE.wasm GLUE.js [TYPES.d.ts...]');
  process.exit(2);
}
const fail = (why) => {
  console.error(`wasm-names.mjs: ${why} (${gluePath})`);
  process.exit(1);
};

// --- The module's import and export sections, read and written back. ---

const bytes = readFileSync(wasmPath);
let at = 8;
const u32 = () => {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
  }
};
const name = () => {
  const length = u32();
  const text = bytes.subarray(at, at + length).toString('utf8');
  at += length;
  return text;
};
const leb = (value) => {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
};
const encodeName = (text) => {
  const utf8 = Buffer.from(text, 'utf8');
  return Buffer.concat([leb(utf8.length), utf8]);
};
/** Skips a limits field (tables, memories). */
const limits = () => {
  const flags = bytes[at++];
  u32();
  if (flags & 1) u32();
};

const sections = [];
while (at < bytes.length) {
  const id = bytes[at++];
  const size = u32();
  sections.push({ id, start: at, end: at + size });
  at += size;
}

const imports = [];
const exports = [];
for (const section of sections) {
  at = section.start;
  if (section.id === 2) {
    for (let count = u32(); count > 0; count--) {
      const module = name();
      const field = name();
      const from = at;
      const kind = bytes[at++];
      if (kind === 0) u32();
      else if (kind === 1) {
        at += 1;
        limits();
      } else if (kind === 2) limits();
      else if (kind === 3) at += 2;
      else fail(`an import of kind ${kind}, which this script does not read`);
      imports.push({ module, field, desc: bytes.subarray(from, at) });
    }
  } else if (section.id === 7) {
    for (let count = u32(); count > 0; count--) {
      const field = name();
      const from = at;
      at += 1;
      u32();
      exports.push({ field, desc: bytes.subarray(from, at) });
    }
  }
}

// --- Short names: a, b, ... z, A, ... Z, then two letters. ---

const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const shortName = (index) => (index < letters.length ? letters[index]
  : shortName(Math.floor(index / letters.length) - 1) + letters[index % letters.length]);
// wasm-bindgen's own exports, which only its glue reads (the test hooks'
// `__…ForTesting` are API to the suites, and keep their names).
const internal = (field) => /^(__wbindgen_|__wbg_|__externref_|wasm_bindgen_)/.test(field);
const kept = new Set(exports.filter((e) => !internal(e.field)).map((e) => e.field));
let next = 0;
const fresh = () => {
  let candidate;
  do candidate = shortName(next++);
  while (kept.has(candidate));
  return candidate;
};
// An import named twice (the same module and field) keeps one short name.
const importNames = new Map();
for (const entry of imports) {
  const key = `${entry.module}\0${entry.field}`;
  if (!importNames.has(key)) importNames.set(key, fresh());
  entry.short = importNames.get(key);
}
const distinct = imports.filter((entry, index) => imports.findIndex((e) => e.short === entry.short) === index);
next = 0;
for (const entry of exports) entry.short = internal(entry.field) ? fresh() : entry.field;

// --- The glue. ---

let glue = readFileSync(gluePath, 'utf8');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const once = (pattern, replacement, what) => {
  const matches = glue.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1) fail(`${what}: expected once in the glue, found ${matches.length} times`);
  glue = glue.replace(pattern, replacement);
};

const GLUE_MODULE = './backend_targets_bg.js';
// The snippet modules' namespaces, as the glue's returned object maps them
// (a module imported twice is one namespace under two names: the first serves).
const namespaces = new Map();
for (const [, path, namespace] of glue.matchAll(/^\s*"([^"]+)": (import\d+),$/gm)) {
  if (!namespaces.has(path)) namespaces.set(path, namespace);
}
const added = [];
for (const entry of distinct) {
  if (entry.module === GLUE_MODULE) {
    once(new RegExp(`^(\\s*)${escape(entry.field)}: `, 'm'), `$1${entry.short}: `, `the import ${entry.field}`);
  } else {
    const namespace = namespaces.get(entry.module);
    if (!namespace) fail(`no namespace for the module ${entry.module}`);
    added.push(`        ${entry.short}: ${namespace}.${entry.field},`);
  }
}
if (namespaces.get(GLUE_MODULE) !== 'import0') fail(`"${GLUE_MODULE}" is not import0`);
once(/^(\s*)const import0 = \{\n\s*__proto__: null,\n/m, (text) => `${text}${added.map((line) => `${line}\n`).join('')}`,
  'the import object import0');
// The returned object: one module, "a".
glue = glue.replace(/^\s*"([^"]+)": (import\d+),\n/gm, (line, path) => (path === GLUE_MODULE ? '        a: import0,\n' : ''));
once(/^\s*a: import0,$/m, (line) => line, 'the module a in the returned object');

const renamed = exports.filter((e) => e.short !== e.field);
for (const entry of renamed) {
  glue = glue.replace(new RegExp(`\\bwasm\\.${escape(entry.field)}\\b`, 'g'), `wasm.${entry.short}`);
}
// (The glue's own JS functions may share an export's name: the bundler
// shortens those; only `wasm.NAME` reads the module.)
for (const entry of distinct.filter((e) => e.module === GLUE_MODULE)) {
  if (new RegExp(`\\b${escape(entry.field)}\\b`).test(glue)) fail(`the import ${entry.field} is still named in the glue`);
}
for (const entry of exports) {
  if (entry.short !== entry.field && new RegExp(`\\bwasm\\.${escape(entry.field)}\\b`).test(glue)) {
    fail(`the export ${entry.field} is still read in the glue`);
  }
}
writeFileSync(gluePath, glue);
for (const path of typesPaths) {
  let types = readFileSync(path, 'utf8');
  for (const entry of renamed) types = types.replace(new RegExp(`\\b${escape(entry.field)}\\b`, 'g'), entry.short);
  writeFileSync(path, types);
}

// --- The module, with the two sections written anew. ---

const vector = (entries, encode) => Buffer.concat([leb(entries.length), ...entries.map(encode)]);
const body = {
  2: vector(imports, (e) => Buffer.concat([encodeName('a'), encodeName(e.short), e.desc])),
  7: vector(exports, (e) => Buffer.concat([encodeName(e.short), e.desc])),
};
const parts = [bytes.subarray(0, 8)];
for (const section of sections) {
  const content = body[section.id] ?? bytes.subarray(section.start, section.end);
  parts.push(Buffer.from([section.id]), leb(content.length), content);
}
const out = Buffer.concat(parts);
new WebAssembly.Module(out); // fails here, not in a page, if the module is not valid
writeFileSync(wasmPath, out);
console.log(`${wasmPath}: ${distinct.length} imports and ${renamed.length} exports renamed, ${bytes.length} -> ${out.length} bytes`);
