// The built npm package through its browser and bundler entry, pkg/index.js:
// one module (wasm-bindgen's glue and the JS halves bundled by scripts/build.sh),
// initialised here with initSync({ module: bytes }). The test bodies are
// shared with package.test.mjs (api-cases.mjs). That the entry starts the
// .wasm request when a page evaluates it is checked in Chromium
// (browser.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';
import { defineApiSuite } from './api-cases.mjs';

const PKG = process.env.BACKEND_TARGETS_PKG ?? join(ROOT, 'pkg');
const source = readFileSync(join(PKG, 'index.js'), 'utf8');
const index = await import(pathToFileURL(join(PKG, 'index.js')).href);

test('pkg/index.js is one module: it imports nothing, and names the .wasm for bundlers', () => {
  assert.doesNotMatch(source, /\bimport\s*[\w{*]|\bimport\s*\(|\bfrom\s*["'`]/, 'no static or dynamic import');
  assert.match(source, /new URL\([`'"]\.\/backend_targets_bg\.wasm[`'"],\s*import\.meta\.url\)/);
});

test('before init, calls fail; initSync({ module }) initialises once', async () => {
  assert.throws(() => index.presets(), TypeError, 'no instance before init');
  const exports = index.initSync({ module: readFileSync(join(PKG, 'backend_targets_bg.wasm')) });
  assert.ok(exports.memory instanceof WebAssembly.Memory);
  assert.equal(index.initSync({ module: new Uint8Array([0]) }), exports, 'a second initSync is a no-op');
  assert.equal(await index.default(), exports, 'init() after initSync resolves to the same instance');
  assert.equal(index.presets().length, 13);
});

test('the wasm preset is exported as `wasm` (its seed name) and as wasm-bindgen’s `wasmPreset`', () => {
  assert.equal(index.wasm, index.wasmPreset);
  assert.deepEqual(index.wasm(), { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
});

defineApiSuite('browser entry (pkg/index.js, initSync)', () => index, { wasmExport: 'wasmPreset' });
