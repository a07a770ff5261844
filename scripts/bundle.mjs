// Bundles one entry of the npm package (pkg-template/ENTRY) with the
// wasm-bindgen output in GLUE_DIR into OUT, minified, with rolldown's own
// options only: no text of a generated file is rewritten.
//
//   node scripts/bundle.mjs ENTRY GLUE_DIR GLUE_NAME OUT
//
// The entries import wasm-bindgen's glue as './backend_targets.js' and the JS
// halves as './probe.js', './boundary.js', './verify.js' (crates/browser/src):
// a resolver points those at GLUE_DIR/GLUE_NAME.js and at the glue's own copies
// of the halves (GLUE_DIR/snippets/.../src/*.js), so that the entry and the
// glue share one instance of each module. `verify.js` is the glue's copy where
// the module links it (the verification module), else the source (the full
// entry reads kept verdicts with it: the same file). The verification entry
// (`./verified.js`) stays a module of its own, loaded on demand.
//
// One constant is defined for the bundle: `__BACKEND_TARGETS_VERSION__`, the
// package's version (the kept verdicts' cache key, crates/browser/src/verify.js).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// rolldown, as the test suites install it (tests/js/package.json, scripts/setup.sh).
const rolldown = createRequire(join(ROOT, 'tests', 'js', 'package.json')).resolve('rolldown');
const { build } = await import(pathToFileURL(rolldown).href);
const [entry, glueDir, glueName, out] = process.argv.slice(2);
if (out === undefined) {
  console.error('usage: node scripts/bundle.mjs ENTRY GLUE_DIR GLUE_NAME OUT');
  process.exit(2);
}
const template = join(ROOT, 'pkg-template');
const glue = resolve(glueDir);
const snippets = join(glue, 'snippets');
const halves = existsSync(snippets)
  ? readdirSync(snippets).filter((name) => name.startsWith('backend-targets-browser-')).map((name) => join(snippets, name, 'src'))
  : [];
if (halves.length !== 1) {
  console.error(`bundle.mjs: expected one snippets folder of backend-targets-browser in ${glue}, found ${halves.length}`);
  process.exit(1);
}
const half = (name) => {
  const copy = join(halves[0], name);
  if (existsSync(copy)) return copy;
  if (name === 'verify.js') return join(ROOT, 'crates', 'browser', 'src', name);
  throw new Error(`bundle.mjs: wasm-bindgen's output has no ${name} (${halves[0]})`);
};
const targets = {
  './backend_targets.js': join(glue, `${glueName}.js`),
  './probe.js': half('probe.js'),
  './boundary.js': half('boundary.js'),
  './verify.js': half('verify.js'),
};
const { version } = JSON.parse(readFileSync(join(template, 'package.json'), 'utf8'));

await build({
  input: join(template, entry),
  platform: 'browser',
  external: ['./verified.js'],
  plugins: [{
    name: 'backend-targets-halves',
    resolveId(source, importer) {
      // Only the template's own imports: the glue resolves its snippets itself.
      if (importer !== undefined && dirname(importer) === template && source in targets) return targets[source];
      return null;
    },
  }],
  transform: {
    define: { __BACKEND_TARGETS_VERSION__: JSON.stringify(version) },
  },
  output: {
    file: out,
    format: 'esm',
    minify: true,
    postBanner: `// backend-targets: pkg-template/${entry}, wasm-bindgen glue and JS halves in one module (scripts/bundle.mjs).`,
  },
});
