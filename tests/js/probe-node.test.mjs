// The probe outside a browser (SPEC §3), through the built package's Node
// entry (pkg/node.js): Node has no WebGPU, so probe() must resolve — never
// throw — with `no-navigator`, detect() must drop webGpu with that reason, and
// resolve() must leave every native target exactly as declared. Only invalid
// options reject, with a code and a path.
//
// Node 20 has no global `navigator`. (Node ≥ 21 defines one, without `gpu`;
// there the probe answers `no-webgpu-api` instead, and this suite says so.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

const bt = await import(pathToFileURL(join(ROOT, 'pkg', 'node.js')).href);

const NO_NAVIGATOR = 'there is no navigator here (not a browser or web worker)';

/** A report as a browser with an adapter would give it (for resolve() only). */
const AVAILABLE_REPORT = {
  available: true,
  reason: 'adapter-available',
  message: 'adapter acme gpu9',
  apiPresent: true,
  adapter: {
    info: { vendor: 'acme', architecture: 'gpu9', device: '', description: '' },
    isFallbackAdapter: false,
    features: ['shader-f16', 'timestamp-query'],
    limits: { maxBindGroups: 4, maxStorageBufferBindingSize: 268435456 },
  },
  timeoutMs: 2000,
  elapsedMs: 3.5,
};

test('Node has no navigator here (the premise of this suite)', () => {
  assert.equal(typeof globalThis.navigator, 'undefined',
    `Node ${process.version} defines a global navigator: probe() answers no-webgpu-api, not no-navigator`);
});

test('probe() resolves (never throws) with available:false, reason no-navigator', async () => {
  const pending = bt.probe();
  assert.ok(pending instanceof Promise);
  const report = await pending;
  assert.deepEqual(Object.keys(report).sort(), ['apiPresent', 'available', 'elapsedMs', 'message', 'reason', 'timeoutMs']);
  assert.equal(report.available, false);
  assert.equal(report.reason, 'no-navigator');
  assert.equal(report.message, NO_NAVIGATOR);
  assert.equal(report.apiPresent, false);
  assert.equal(report.adapter, undefined);
  assert.equal(report.deviceVerified, undefined);
  assert.equal(report.timeoutMs, 2000);
  assert.equal(typeof report.elapsedMs, 'number');
  assert.ok(report.elapsedMs >= 0 && report.elapsedMs < 1000, `elapsedMs ${report.elapsedMs}`);
});

test('probe({ timeoutMs: 0 }) in Node says what is absent (no-navigator, no API), not a timeout with the API present', async () => {
  for (const entry of [bt, await import(pathToFileURL(join(ROOT, 'pkg', 'detect-node.js')).href)]) {
    const report = await entry.probe({ timeoutMs: 0 });
    assert.deepEqual([report.reason, report.apiPresent, report.available], ['no-navigator', false, false], JSON.stringify(report));
  }
});

test('probe() with every option, and with absent options, still answers no-navigator', async () => {
  const full = await bt.probe({ timeoutMs: 50, powerPreference: 'low-power', forceFallbackAdapter: true, verifyDevice: true });
  assert.equal(full.reason, 'no-navigator');
  assert.equal(full.timeoutMs, 50);
  assert.equal(full.deviceVerified, undefined);
  for (const options of [undefined, {}, '{"timeoutMs": 10}']) {
    const report = await bt.probe(options);
    assert.equal(report.reason, 'no-navigator', JSON.stringify(options));
  }
  assert.equal((await bt.probe({ powerPreference: 'high-performance' })).reason, 'no-navigator');
});

test('every probe is fresh: two calls give two reports', async () => {
  const [a, b] = await Promise.all([bt.probe(), bt.probe()]);
  assert.notEqual(a, b);
  assert.deepEqual({ ...a, elapsedMs: 0 }, { ...b, elapsedMs: 0 });
});

test('detect() drops webGpu from the wasm preset with reason no-navigator', async () => {
  const resolution = await bt.detect();
  assert.deepEqual(resolution.declared, bt.wasm());
  assert.deepEqual(resolution.declared, { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
  assert.deepEqual(resolution.effective, { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: [] });
  assert.deepEqual(resolution.changes, [
    { feature: 'webGpu', action: 'dropped', reason: 'no-navigator', detail: NO_NAVIGATOR },
  ]);
  // Dropping webGpu removes its provider; the devices stay [cpu, wasm].
  assert.deepEqual(resolution.availability, { devices: ['cpu', 'wasm'], providers: ['reference', 'torchLean'] });
  assert.deepEqual(resolution.asDeclared, []);
  assert.equal(resolution.probe.reason, 'no-navigator');
  assert.equal((await bt.detect({ timeoutMs: 5 })).probe.timeoutMs, 5);
});

test('resolve(linuxCuda(), report) keeps every feature as declared, with no changes', async () => {
  const report = await bt.probe();
  for (const target of [bt.linuxCuda(), bt.linuxCuda({ enableLibTorch: true })]) {
    const resolution = bt.resolve(target, report);
    assert.deepEqual(resolution.declared, target);
    assert.deepEqual(resolution.effective, target);
    assert.deepEqual(resolution.changes, []);
    assert.deepEqual(resolution.asDeclared, target.features);
    assert.deepEqual(resolution.availability, bt.declaredAvailability(target));
    assert.deepEqual(resolution.probe, report);
  }
  assert.deepEqual(bt.linuxCuda().features, ['nativeCuda', 'cuBLAS', 'cuFFT']);
});

test('resolve(): only webGpu is ever decided, for each of the 13 presets', async () => {
  const report = await bt.probe();
  const presets = bt.presets();
  assert.equal(presets.length, 13);
  for (const { name, target } of presets) {
    const resolution = bt.resolve(target, report);
    const features = target.features.filter((f) => f !== 'webGpu');
    assert.deepEqual(resolution.effective, { ...target, features }, name);
    assert.deepEqual(resolution.asDeclared, features, name);
    assert.deepEqual(resolution.changes.map((c) => c.feature), target.features.includes('webGpu') ? ['webGpu'] : [], name);
    assert.deepEqual(resolution.availability.devices, bt.declaredAvailability(target).devices, name);
  }
});

test('resolve() with a report that found an adapter keeps webGpu and attaches its capabilities', () => {
  const resolution = bt.resolve(bt.wasm(), AVAILABLE_REPORT);
  assert.deepEqual(resolution.effective, bt.wasm());
  assert.deepEqual(resolution.changes, [{
    feature: 'webGpu', action: 'kept', reason: 'adapter-available', detail: 'an adapter answered: adapter acme gpu9',
  }]);
  assert.deepEqual(resolution.availability, {
    devices: ['cpu', 'wasm'],
    providers: ['reference', 'torchLean', 'webGpu'],
    webGpu: { features: AVAILABLE_REPORT.adapter.features, limits: AVAILABLE_REPORT.adapter.limits },
  });
  // A native target ignores the adapter entirely.
  const cuda = bt.resolve(bt.linuxCuda(), AVAILABLE_REPORT);
  assert.deepEqual(cuda.changes, []);
  assert.equal(cuda.availability.webGpu, undefined);
});

/** Asserts that `promise` rejects with a BackendTargetsError of `code` at `path`. */
async function rejectsWith(promise, code, path) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'BackendTargetsError');
    assert.equal(error.code, code, error.message);
    assert.equal(error.path, path, error.message);
    return true;
  });
}

test('invalid options reject (not throw) with a code and a path', async () => {
  const pending = bt.probe({ timeoutMs: -1 });
  assert.ok(pending instanceof Promise);
  await rejectsWith(pending, 'invalid-value', 'timeoutMs');
  await rejectsWith(bt.probe({ bogus: 1 }), 'unknown-field', 'bogus');
  // A number out of a count's range is invalid-value, like -1.
  await rejectsWith(bt.probe({ timeoutMs: 1.5 }), 'invalid-value', 'timeoutMs');
  await rejectsWith(bt.probe({ timeoutMs: '100' }), 'wrong-type', 'timeoutMs');
  await rejectsWith(bt.probe([]), 'wrong-type', '');
  await rejectsWith(bt.probe('{"timeoutMs": 1'), 'invalid-json', '');
  await rejectsWith(bt.detect({ timeoutMs: -1 }), 'invalid-value', 'timeoutMs');
  await rejectsWith(bt.detect({ bogus: 1 }), 'unknown-field', 'bogus');
  await assert.rejects(bt.probe({ powerPreference: 'fast' }), (error) => {
    assert.equal(error.code, 'unknown-variant');
    assert.equal(error.path, 'powerPreference');
    assert.deepEqual(error.expected, ['low-power', 'high-performance']);
    return true;
  });
  // The module still answers afterwards.
  assert.equal((await bt.probe()).reason, 'no-navigator');
});

// The detect-only module (backend-targets/detect, which runs in
// Node too when given its .wasm) holds no JSON reader: it reads an options
// object directly, where the full package reads its JSON text with the strict
// reader. The two must answer alike, error for error.
test('the detect-only module reads options as the full package does, error for error', async () => {
  const small = await import(`${pathToFileURL(join(ROOT, 'pkg', 'detect.js')).href}?options`);
  await small.default(readFileSync(join(ROOT, 'pkg', 'detect_bg.wasm')));
  const nested = (n) => JSON.parse(`${'['.repeat(n)}1${']'.repeat(n)}`);
  const values = [
    {}, { timeoutMs: 5 }, { timeoutMs: 0 }, { timeoutMs: -0 }, { timeoutMs: 2 ** 32 - 1 },
    { timeoutMs: -1 }, { timeoutMs: 1.5 }, { timeoutMs: 2 ** 32 }, { timeoutMs: 2 ** 53 }, { timeoutMs: 2 ** 63 },
    { timeoutMs: 2 ** 64 }, { timeoutMs: 1e20 }, { timeoutMs: 1e21 }, { timeoutMs: -(2 ** 63) }, { timeoutMs: -(2 ** 64) },
    { timeoutMs: 5e-324 }, { timeoutMs: '100' }, { timeoutMs: null }, { timeoutMs: true }, { timeoutMs: [] },
    { timeoutMs: {} }, { powerPreference: 'low-power', forceFallbackAdapter: true, verifyDevice: false, allowFallbackAdapter: false },
    { powerPreference: 'fast' }, { powerPreference: 'LOW_POWER' }, { powerPreference: 'lowpower' }, { powerPreference: null },
    { powerPreference: 5 }, { powerPreference: [] }, { powerPreference: 'x'.repeat(100) }, { verifyDevice: 'yes' },
    { forceFallbackAdapter: 1 }, { allowFallbackAdapter: null }, { bogus: 1 }, { 'a b': 1 }, { '': 1 },
    { ['k'.repeat(100)]: 1 }, { timeoutMS: 1 }, { verify_device: true }, { 1: 2, b: 3 }, { bogus: 1, timeoutMs: -1 },
    { timeoutMs: -1, bogus: 1 }, [], [1, 2], 5, true, { timeoutMs: nested(130) }, { a: nested(126) }, { a: nested(127) },
    nested(200), { '\ud800': 1 }, { 'a\udc00b': 1 }, { x: 1, '\ud83d': 2 }, { '\ud800\n': 1 }, { 'é\ud800': 1 },
    { '\ud800\ud800': 1 }, { timeoutMs: 5, nested: { '\udfff': 1 } }, { '\ud83d\ude00': 1 },
    { toJSON: () => ({ timeoutMs: -1 }) }, { timeoutMs: { toJSON: () => 7 } }, new Date(0), 'just text'.split(''),
    { timeoutMs: () => 1 }, { powerPreference: Symbol('s') }, { verifyDevice: 1n }, { timeoutMs: NaN }, () => 1,
    '{"timeoutMs": 5}', '{"timeoutMs": -1, "powerPreference": "fast"}', '[]', ' {} ',
    // Characters that reorder or break a line, in keys and values: written
    // \uXXXX by both (the detect-only module's JS half writes them).
    { 'a\u202eb': 1 }, { powerPreference: 'x\u2066y\u2028' }, { ['\u061c'.repeat(40)]: 1 }, { timeoutMs: 'z\u200f' },
    { 'k\u2069': 1, timeoutMs: -1 },
  ];
  const cycle = {};
  cycle.self = cycle;
  values.push(cycle);
  const outcome = (promise) => promise.then(
    (answer) => ({ timeoutMs: (answer.probe ?? answer).timeoutMs, reason: (answer.probe ?? answer).reason }),
    (error) => ({ name: error.name, code: error.code, path: error.path, message: error.message, expected: error.expected }),
  );
  let refused = 0;
  for (const value of values) {
    let what;
    try {
      what = String(JSON.stringify(value)).slice(0, 80);
    } catch {
      what = typeof value;
    }
    const full = await outcome(bt.probe(value));
    assert.deepEqual(await outcome(small.probe(value)), full, what);
    assert.deepEqual(await outcome(small.detect(value)), await outcome(bt.detect(value)), what);
    if (full.code) refused += 1;
  }
  assert.equal(values.length - refused, 9, 'nine values are options; every other one is refused');
  // JSON text is read by JSON.parse in the detect-only module: a malformed
  // text is refused with the same code and path, in the runtime's words.
  const malformed = await outcome(small.probe('{"timeoutMs": 1'));
  assert.deepEqual([malformed.code, malformed.path], ['invalid-json', '']);
  assert.match(malformed.message, /^\[invalid-json\] at \(top level\): not valid JSON: /);
});

// The detect-only module writes `elapsedMs` itself, without serde_json's
// float writer (crates/browser/src/probe.rs, with_elapsed): the same keys in the same
// order as the full package's answers, and a number of whole microseconds.
test('the detect-only module answers with the full package\'s keys, in order, elapsedMs last and in microseconds', async () => {
  const small = await import(`${pathToFileURL(join(ROOT, 'pkg', 'detect.js')).href}?elapsed`);
  await small.default(readFileSync(join(ROOT, 'pkg', 'detect_bg.wasm')));
  const keysDeep = (value) => (value && typeof value === 'object' && !Array.isArray(value)
    ? Object.entries(value).map(([key, inner]) => [key, keysDeep(inner)]) : null);
  for (const options of [undefined, { timeoutMs: 50 }, { verifyDevice: true, allowFallbackAdapter: false }]) {
    for (const call of ['probe', 'detect']) {
      const [mine, theirs] = [await small[call](options), await bt[call](options)];
      assert.deepEqual(keysDeep(mine), keysDeep(theirs), `${call}: the same keys in the same order`);
      const report = mine.probe ?? mine;
      assert.equal(Object.keys(report).at(-1), 'elapsedMs');
      assert.equal(typeof report.elapsedMs, 'number');
      assert.ok(report.elapsedMs >= 0 && report.elapsedMs < 1000, `elapsedMs ${report.elapsedMs}`);
      assert.equal(Math.round(report.elapsedMs * 1000) / 1000, report.elapsedMs, 'whole microseconds');
    }
  }
});

test('resolve() throws for an invalid target or report, with a code and a path', async () => {
  const report = await bt.probe();
  const throwsWith = (fn, code, path) => assert.throws(fn, (error) => {
    assert.equal(error.name, 'BackendTargetsError');
    assert.equal(error.code, code, error.message);
    assert.equal(error.path, path, error.message);
    return true;
  });
  throwsWith(() => bt.resolve(bt.wasm()), 'missing-field', '');
  throwsWith(() => bt.resolve(bt.wasm(), { ...report, reason: 'nope' }), 'unknown-variant', 'report.reason');
  throwsWith(() => bt.resolve(bt.wasm(), { ...report, extra: true }), 'unknown-field', 'report.extra');
  throwsWith(() => bt.resolve({ os: 'linux', bogus: 1 }, report), 'unknown-field', 'bogus');
});

test('detect({ verify }) under Node answers no-navigator, with no verification and no exception', async () => {
  for (const verify of [true, { budgetMs: 50, precision: 'f16', cache: 'none' }, false]) {
    const resolution = await bt.detect({ verify });
    assert.equal(resolution.probe.reason, 'no-navigator');
    assert.equal(resolution.probe.verification, undefined);
    assert.deepEqual(resolution.changes.map((c) => c.reason), ['no-navigator']);
  }
  await bt.clearVerifications();
  await assert.rejects(bt.detect({ verify: { budget: 5 } }), { code: 'unknown-field', path: 'verify.budget' });
  await assert.rejects(bt.detect({ verify: { precision: 'f64' } }), { code: 'unknown-variant', path: 'verify.precision' });
  await assert.rejects(bt.detect({ verify: 'yes' }), { code: 'wrong-type', path: 'verify' });
});

test('executionProviders and transformersOptions: the decision in one call, from any entry', async () => {
  const kept = bt.resolve(bt.wasm(), AVAILABLE_REPORT);
  assert.deepEqual(bt.executionProviders(kept), ['webgpu', 'wasm']);
  assert.deepEqual(bt.transformersOptions(kept), { device: 'webgpu', dtype: 'fp16' });
  const withoutF16 = bt.resolve(bt.wasm(), { ...AVAILABLE_REPORT, adapter: { ...AVAILABLE_REPORT.adapter, features: ['timestamp-query'] } });
  assert.deepEqual(bt.transformersOptions(withoutF16), { device: 'webgpu', dtype: 'fp32' });
  const dropped = await bt.detect();
  assert.deepEqual(bt.executionProviders(dropped), ['wasm']);
  assert.deepEqual(bt.transformersOptions(dropped), { device: 'wasm', dtype: 'q8' });
  // A verdict that drops WebGPU (here a fallback adapter refused) is wasm too.
  const refused = bt.resolve(bt.wasm(), { ...AVAILABLE_REPORT, available: false, reason: 'slower-than-wasm' });
  assert.deepEqual(bt.executionProviders(refused), ['wasm']);
  // The same functions from the other entries (their Node forms).
  for (const entry of ['detect-node.js', 'verified-node.js']) {
    const other = await import(pathToFileURL(join(ROOT, 'pkg', entry)).href);
    assert.deepEqual(other.executionProviders(kept), ['webgpu', 'wasm'], entry);
    assert.deepEqual(other.transformersOptions(dropped), { device: 'wasm', dtype: 'q8' }, entry);
  }
});

test('transformersOptions, told the dtypes a model offers, chooses among them or says none fits', () => {
  const kept = bt.resolve(bt.wasm(), AVAILABLE_REPORT);
  const withoutF16 = bt.resolve(bt.wasm(), { ...AVAILABLE_REPORT, adapter: { ...AVAILABLE_REPORT.adapter, features: [] } });
  const dropped = bt.resolve(bt.wasm(), { ...AVAILABLE_REPORT, available: false, reason: 'slower-than-wasm' });
  // A model with model.onnx alone: fp32 everywhere (no fp16 file to fail on).
  for (const resolution of [kept, withoutF16, dropped]) {
    assert.equal(bt.transformersOptions(resolution, ['fp32']).dtype, 'fp32');
  }
  assert.deepEqual(bt.transformersOptions(kept, ['fp32', 'fp16', 'q8']), { device: 'webgpu', dtype: 'fp16' });
  assert.deepEqual(bt.transformersOptions(withoutF16, ['fp16', 'q4f16', 'q8']), { device: 'webgpu', dtype: 'q8' });
  assert.deepEqual(bt.transformersOptions(dropped, ['fp32', 'q8']), { device: 'wasm', dtype: 'q8' });
  // Half precision only: nothing wasm, or an adapter without shader-f16, can load.
  for (const resolution of [withoutF16, dropped]) {
    assert.throws(() => bt.transformersOptions(resolution, ['fp16']), (error) => bt.isBackendTargetsError(error)
      && error.code === 'invalid-value' && error.path === 'available'
      && /^\[invalid-value\] at available: the model offers \["fp16"\], none of which (webgpu|wasm) can load here/.test(error.message));
  }
  assert.throws(() => bt.transformersOptions(kept, 'fp16'), (error) => error.code === 'invalid-value' && error.path === 'available');
});

test('supportReport: a copyable text with the version, the runtime, the decision and the whole probe report', async () => {
  const kept = bt.resolve(bt.wasm(), AVAILABLE_REPORT);
  const text = bt.supportReport(kept);
  const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg', 'package.json'), 'utf8'));
  assert.ok(text.startsWith(`backend-targets ${version}\nruntime: Node.js ${process.versions.node}\n`), text);
  assert.match(text, /^decision: webgpu \(adapter-available\): /m);
  const json = text.slice(text.indexOf('```json\n') + 8, text.lastIndexOf('```'));
  assert.deepEqual(JSON.parse(json), kept.probe, 'the probe report, whole');
  const dropped = await bt.detect();
  assert.match(bt.supportReport(dropped), /^decision: wasm \(no-navigator\): /m);
  // A report alone: no decision line, the report itself.
  const report = bt.supportReport(dropped.probe);
  assert.doesNotMatch(report, /^decision:/m);
  assert.match(report, /^probe: no-navigator in [0-9.]+ ms \(timeoutMs 2000\)$/m);
  for (const entry of ['detect-node.js', 'verified-node.js']) {
    const other = await import(pathToFileURL(join(ROOT, 'pkg', entry)).href);
    assert.equal(other.supportReport(kept), text, entry);
  }
});
