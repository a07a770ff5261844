// The built npm package through the web glue (pkg/backend_targets.js, as
// browsers and bundlers load it), initialised with initSync({ module: bytes });
// and the browser entry pkg/index.js over it. The test bodies are shared with
// package.test.mjs (api-cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';
import { defineApiSuite } from './api-cases.mjs';

const PKG = process.env.BACKEND_TARGETS_PKG ?? join(ROOT, 'pkg');
const glue = await import(pathToFileURL(join(PKG, 'backend_targets.js')).href);
const index = await import(pathToFileURL(join(PKG, 'index.js')).href);

test('before init, calls fail; initSync({ module }) initialises once', async () => {
  assert.throws(() => glue.presets(), TypeError, 'no instance before init');
  const exports = glue.initSync({ module: readFileSync(join(PKG, 'backend_targets_bg.wasm')) });
  assert.ok(exports.memory instanceof WebAssembly.Memory);
  assert.equal(glue.initSync({ module: new Uint8Array([0]) }), exports, 'a second initSync is a no-op');
  assert.equal(await glue.default(), exports, 'init() after initSync resolves to the same instance');
  assert.equal(glue.presets().length, 13);
});

test('the raw glue exports the wasm preset as wasmPreset only; index.js adds `wasm`', () => {
  assert.equal('wasm' in glue, false, 'wasm-bindgen reserves `wasm`');
  assert.equal(typeof glue.wasmPreset, 'function');
  assert.equal(index.wasm, glue.wasmPreset);
  assert.equal(index.wasmPreset, glue.wasmPreset);
  assert.equal(index.default, glue.default);
  assert.equal(index.plan, glue.plan);
});

defineApiSuite('web glue (pkg/backend_targets.js, initSync)', () => glue, { wasmExport: 'wasmPreset' });
