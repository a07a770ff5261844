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
import { serve } from './static-server.mjs';

const PKG = process.env.BACKEND_TARGETS_PKG ?? join(ROOT, 'pkg');
const source = readFileSync(join(PKG, 'index.js'), 'utf8');
const index = await import(pathToFileURL(join(PKG, 'index.js')).href);

test('pkg/index.js is one module: it imports nothing but the verification, on demand, and names the .wasm for bundlers', () => {
  // The one import: `backend-targets/verify`, loaded only by a call that asks
  // for `verify` (a module of its own: its size is not the entry's).
  const onDemand = /\bimport\(\s*[`'"]\.\/verified\.js[`'"]\s*\)/g;
  assert.equal(source.match(onDemand)?.length, 1, 'the verification entry, imported on demand');
  assert.doesNotMatch(source.replace(onDemand, ''), /\bimport\b\s*[\w{*]|\bimport\s*\(|\bfrom\s*["'`]/, 'no other static or dynamic import');
  assert.match(source, /new URL\([`'"]\.\/backend_targets_bg\.wasm[`'"],\s*import\.meta\.url\)/);
});

test('before init, calls fail; initSync({ module }) initialises once', async () => {
  // Every function says so (a raw TypeError before), and probe, detect and
  // detectNative reject rather than throw.
  const first = /^\[usage\] at \(top level\): call init\(\) first/;
  for (const [name, fn] of Object.entries(index)) {
    // clearVerifications needs no module: it clears kept verdicts (none in Node);
    // executionProviders and transformersOptions read a resolution.
    if (typeof fn !== 'function' || ['default', 'initSync', 'probe', 'detect', 'detectNative', 'BackendTargetsError', 'isBackendTargetsError', 'clearVerifications', 'executionProviders', 'transformersOptions', 'supportReport'].includes(name)) continue;
    assert.throws(() => fn({}), (e) => e.name === 'BackendTargetsError' && e.code === 'usage' && first.test(e.message), name);
  }
  assert.equal(await index.clearVerifications(), undefined, 'clearVerifications needs no init');
  for (const name of ['probe', 'detect', 'detectNative']) {
    const answer = index[name]();
    assert.ok(answer instanceof Promise, `${name} returns a promise`);
    await assert.rejects(answer, (e) => e.name === 'BackendTargetsError' && first.test(e.message), name);
  }
  const exports = index.initSync({ module: readFileSync(join(PKG, 'backend_targets_bg.wasm')) });
  assert.ok(exports.memory instanceof WebAssembly.Memory);
  assert.equal(index.initSync({ module: new Uint8Array([0]) }), exports, 'a second initSync is a no-op');
  assert.equal(await index.default(), exports, 'init() after initSync resolves to the same instance');
  assert.equal(index.presets().length, 13);
  // The browser's entry has no command to run: the core's answer, saying why
  // (the default target here is the portable CPU one: no row to drop).
  const native = await index.detectNative();
  assert.deepEqual([native.probe.isolation, native.probe.reason], ['not-run', 'unsupported-platform']);
  assert.match(native.probe.message, /this runtime cannot probe the host/);
  assert.deepEqual(index.executionProviders(native), ['cpu']);
  const cuda = await index.detectNative('linuxCuda');
  assert.deepEqual(cuda.changes.map((c) => [c.accelerator ?? c.feature, c.action, c.reason])[0], ['cuda', 'dropped', 'unsupported-platform']);
});

test('init() that cannot fetch the .wasm names its URL and why (esbuild, which copies no .wasm, gave "HTTP status code is not ok")', async () => {
  const server = await serve(ROOT);
  try {
    const missing = `${server.origin}/dist/not-there_bg.wasm`;
    const fresh = await import(`${pathToFileURL(join(PKG, 'index.js')).href}?fetch-404`);
    await assert.rejects(fresh.default(missing), (e) => {
      assert.ok(e instanceof fresh.BackendTargetsError, e.stack);
      assert.equal(e.code, 'io');
      assert.ok(e.message.includes(`could not fetch the module's .wasm from ${missing}: HTTP 404`), e.message);
      assert.match(e.message, /see the package README, "Bundlers"/);
      return true;
    });
    const unreachable = 'http://127.0.0.1:9/backend_targets_bg.wasm';
    await assert.rejects(fresh.default(new URL(unreachable)), (e) => e.code === 'io' && e.message.includes(unreachable));
    // After those failures, the right module instantiates.
    await fresh.default(`${server.origin}/pkg/backend_targets_bg.wasm`);
    assert.equal(fresh.presets().length, 13);
  } finally {
    await server.close();
  }
});

test('the wasm preset is exported as `wasm` (its seed name) and as wasm-bindgen’s `wasmPreset`', () => {
  assert.equal(index.wasm, index.wasmPreset);
  assert.deepEqual(index.wasm(), { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
});

// The suites' copy with the test hooks, instantiated the same way.
const testIndex = await import(pathToFileURL(join(ROOT, 'pkg-test', 'index.js')).href);
testIndex.initSync({ module: readFileSync(join(ROOT, 'pkg-test', 'backend_targets_bg.wasm')) });
defineApiSuite('browser entry (pkg/index.js, initSync)', () => index, { wasmExport: 'wasmPreset', getTestApi: () => testIndex });

// A failed init once left the glue holding the wrong module, and a later
// correct init was ignored. Each case loads the entry afresh.
test('a .wasm that is not this package\'s is refused before it is instantiated; the right one still initialises', async () => {
  const right = readFileSync(join(PKG, 'backend_targets_bg.wasm'));
  const wrongs = [
    ['an empty module', new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])],
    ['the detect-only module', readFileSync(join(PKG, 'detect_bg.wasm'))],
  ];
  const notThis = (e) => e.name === 'BackendTargetsError' && e.code === 'invalid-value' && /not this package's module/.test(e.message);
  const fresh = (tag) => import(`${pathToFileURL(join(PKG, 'index.js')).href}?${tag}`);
  const sync = await fresh('initSync');
  for (const [what, bytes] of wrongs) {
    assert.throws(() => sync.initSync({ module: bytes }), notThis, what);
    assert.throws(() => sync.presets(), (e) => e.code === 'usage', `${what}: still not initialised`);
  }
  // Bytes that are no WebAssembly: the package's invalid-value, with the engine's words, not its CompileError.
  assert.throws(() => sync.initSync({ module: new Uint8Array([1, 2, 3]) }),
    (e) => e.name === 'BackendTargetsError' && e.code === 'invalid-value' && /not a WebAssembly module \(/.test(e.message));
  sync.initSync({ module: right });
  assert.equal(sync.presets().length, 13);
  const later = await fresh('init');
  for (const [what, bytes] of wrongs) await assert.rejects(later.default(bytes), notThis, what);
  await later.default(right);
  assert.equal(later.presets().length, 13);
  // The detect-only entry: refused the full module, then takes its own.
  const small = await import(`${pathToFileURL(join(PKG, 'detect.js')).href}?init`);
  await assert.rejects(small.default(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), notThis);
  await small.default(readFileSync(join(PKG, 'detect_bg.wasm')));
  assert.equal((await small.detect()).probe.reason, 'no-navigator');
});

test('the detect-only and verification entries refuse each other\'s module (and the full one) with invalid-value, then take their own', async () => {
  const notThisEntry = (file) => (e) => e.name === 'BackendTargetsError' && e.code === 'invalid-value'
    && e.message.includes(`init() was given a .wasm that is not this entry's module (${file})`);
  const module = (file) => readFileSync(join(PKG, file));
  for (const [entry, own, others] of [
    ['detect.js', 'detect_bg.wasm', ['backend_targets_bg.wasm', 'verified_bg.wasm']],
    ['verified.js', 'verified_bg.wasm', ['backend_targets_bg.wasm', 'detect_bg.wasm']],
  ]) {
    const fresh = await import(`${pathToFileURL(join(PKG, entry)).href}?others`);
    for (const other of others) await assert.rejects(fresh.default(module(other)), notThisEntry(own), `${entry} given ${other}`);
    await fresh.default(module(own));
    assert.equal((await fresh.detect()).probe.reason, 'no-navigator', entry);
  }
});
