// The package's hand-written JS shell on the source, with a stub for the
// module (tests/js/fixtures/stub-glue.mjs, wired by tests/js/source-hooks.mjs),
// no build and no browser: each call's supervision (its bound from its first
// line, the verification's module had within it or the true reason why not),
// each call's own adapter request, sharing, the one reader of kept verdicts
// (the core's: the stub stands for it, and the test checks that every entry
// asks it and drops what it refuses), the answers without a module, and
// `.wasm` given to init(). The browser suites hold the built package to the
// same answers in Chromium and Firefox.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

register('./source-hooks.mjs', import.meta.url);

const template = (file, index) => pathToFileURL(join(ROOT, 'pkg-template', file)).href + (index === undefined ? '' : `?case=${index}`);
const half = (file, index) => pathToFileURL(join(ROOT, 'crates', 'browser', 'src', file)).href + (index === undefined ? '' : `?case=${index}`);
const early = await import(template('early.js'));
const generated = await import(template('core.generated.js'));

/** A WebAssembly module whose one import is from `glue` and whose exports
 *  are `names` (empty functions): what an entry's ownership check reads. */
function wasmWith(glue, names) {
  const leb = (n) => {
    const out = [];
    do {
      let byte = n & 0x7f;
      n >>>= 7;
      if (n !== 0) byte |= 0x80;
      out.push(byte);
    } while (n !== 0);
    return out;
  };
  const text = (s) => {
    const bytes = [...new TextEncoder().encode(s)];
    return [...leb(bytes.length), ...bytes];
  };
  const section = (id, body) => [id, ...leb(body.length), ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 0, 0]),
    ...section(2, [1, ...text(glue), ...text('__stub'), 0x00, 0]),
    ...section(3, [...leb(names.length), ...names.map(() => 0)]),
    ...section(7, [...leb(names.length), ...names.flatMap((name, i) => [...text(name), 0x00, ...leb(i + 1)])]),
    ...section(10, [...leb(names.length), ...names.flatMap(() => [2, 0, 0x0b])]),
  ]);
}

const EXPORTS = ['__backendTargetsFull', 'probe', 'detect', 'callWith', 'verifySettings', 'withKeptVerdict', 'nativeCall',
  'nativeWithoutProbe', 'resolve', 'wasmPreset', 'presets',
  'devices', 'providers', 'declaredAvailability', 'parseTarget', 'plan', 'planJson', 'referenceCapsules', 'schema',
  'portableCpu', 'linuxCpu', 'macOSCpu', 'windowsCpu', 'linuxCuda', 'windowsCuda', 'linuxRocm', 'macOSMetal', 'linuxTpu',
  'linuxTrainium', 'customChip', 'external'];

/** A page: `document`, and a `navigator` whose `gpu` answers `adapterOf(options)`. */
function page(adapterOf = () => ({ name: 'default' })) {
  const requests = [];
  const gpu = {
    requestAdapter(options) {
      requests.push(options);
      return Promise.resolve(adapterOf(options));
    },
  };
  Object.defineProperty(globalThis, 'document', { value: {}, configurable: true });
  Object.defineProperty(globalThis, 'navigator', { value: { gpu, userAgent: 'shell-test' }, configurable: true });
  return { gpu, requests };
}

function leavePage() {
  delete globalThis.document;
  Object.defineProperty(globalThis, 'navigator', { value: undefined, configurable: true });
}

/** `fetch` that answers each `.wasm` by its file name: held (never
 *  answers), a module, or a refusal. */
function serveWasm(answers) {
  const fetched = [];
  globalThis.fetch = async (url) => {
    const name = String(url).split('/').pop().split('?')[0];
    fetched.push(name);
    const answer = answers[name];
    if (answer === 'held') return new Promise(() => {});
    if (answer instanceof Uint8Array) return new Response(answer, { headers: { 'content-type': 'application/wasm' } });
    throw new TypeError(`fetch failed for ${name}`);
  };
  return fetched;
}

/** A probe report for an adapter the stub module found (`adapter.name`). */
const reportOf = (adapter, cause) => ({
  available: cause === undefined,
  reason: cause === undefined ? 'adapter-available' : 'verify-failed',
  message: cause === undefined ? `adapter ${adapter.name}` : `adapter ${adapter.name}: not verified (${cause})`,
  apiPresent: true,
  adapter: { info: { vendor: adapter.name, architecture: '', device: '', description: '' }, isFallbackAdapter: false, features: [], limits: {} },
  timeoutMs: 2000,
  elapsedMs: 1,
});

/** The stub of a module that probes: it asks the page's `navigator.gpu` (or
 *  takes the call's adapter request), hands the request to the call's
 *  `keep`, and answers the report. */
function probingModule(log) {
  return async (options, nested, call, cause) => {
    const given = typeof options === 'string' ? JSON.parse(options) : options ?? {};
    let request = call?.adapter;
    if (request === undefined) request = Promise.resolve(globalThis.navigator.gpu.requestAdapter({ powerPreference: given.powerPreference }));
    call?.keep?.(request);
    const adapter = await request;
    log?.push({ options: given, nested, call, cause, request, adapter });
    const report = reportOf(adapter, cause);
    return nested ? { probe: report, effective: { features: [] } } : report;
  };
}

/** The full entry's stub module: the probe, the core's options reader and
 *  kept-verdict reader (`kept(text)`: what the core answers), `resolve`. */
function fullModule(log, kept = () => undefined) {
  return {
    default: async () => ({}),
    callWith: probingModule(log),
    verifySettings: (options) => (options?.verify ? {
      verify: { budgetMs: options.verify.budgetMs ?? 1000, precision: 'f32', cache: options.verify.cache ?? 'session' },
      verifyDevice: false,
      timeoutMs: options.timeoutMs ?? generated.DEFAULT_PROBE_TIMEOUT_MS,
    } : undefined),
    withKeptVerdict: (report, text, key, elapsedMs) => {
      log?.push({ kept: text, key, elapsedMs });
      return kept(text, JSON.parse(report));
    },
    wasmPreset: () => ({ os: 'wasi' }),
    resolve: (target, report) => ({ declared: JSON.parse(target), probe: JSON.parse(report) }),
  };
}

/** The verification module's stub: records each call and answers `verified`. */
function verifyModule(log) {
  return {
    default: async () => ({}),
    callWith: async (options, nested, call) => {
      const adapter = await call.adapter;
      log.push({ options, nested, call, adapter });
      const report = { ...reportOf(adapter ?? { name: 'its own' }), reason: 'verified' };
      return nested ? { probe: report } : report;
    },
  };
}

let caseNumber = 0;
/** A fresh entry `file` (its own modules and stubs: `stubs` by entry name). */
async function freshEntry(file, stubs) {
  caseNumber += 1;
  globalThis.__stubGlue ??= {};
  for (const [name, stub] of Object.entries(stubs)) globalThis.__stubGlue[`${name}?case=${caseNumber}`] = stub;
  const entry = await import(template(file, caseNumber));
  return { entry, index: caseNumber };
}

const realFetch = globalThis.fetch;
after(() => {
  globalThis.fetch = realFetch;
  leavePage();
});

describe('the bound of a call, from its first line', () => {
  test('boundOf reads timeoutMs and budgetMs as the core would, its defaults otherwise', () => {
    const { DEFAULT_PROBE_TIMEOUT_MS: timeout, DEFAULT_VERIFY_BUDGET_MS: budget } = generated;
    assert.deepEqual(early.boundOf(undefined), { timeoutMs: timeout, budgetMs: 0 });
    assert.deepEqual(early.boundOf({ timeoutMs: 500 }), { timeoutMs: 500, budgetMs: 0 });
    assert.deepEqual(early.boundOf({ verify: true }), { timeoutMs: timeout, budgetMs: budget });
    assert.deepEqual(early.boundOf({ verify: false, timeoutMs: 0 }), { timeoutMs: 0, budgetMs: 0 });
    assert.deepEqual(early.boundOf({ timeoutMs: 700, verify: { budgetMs: 300 } }), { timeoutMs: 700, budgetMs: 300 });
    assert.deepEqual(early.boundOf('{"timeoutMs":9,"verify":{"budgetMs":8}}'), { timeoutMs: 9, budgetMs: 8 });
    for (const bad of [-1, 1.5, '5', 2 ** 32, Number.NaN]) {
      assert.deepEqual(early.boundOf({ timeoutMs: bad, verify: { budgetMs: bad } }), { timeoutMs: timeout, budgetMs: budget }, String(bad));
    }
    assert.deepEqual(early.boundOf('not json'), { timeoutMs: timeout, budgetMs: 0 });
  });

  test('byDeadline answers the value, the error, or late by the deadline, and never rejects', async () => {
    const { now } = await import(half('probe.js'));
    assert.deepEqual(await early.byDeadline(Promise.resolve(3), now() + 100), { value: 3 });
    const failure = new Error('no');
    assert.deepEqual(await early.byDeadline(Promise.reject(failure), now() + 100), { error: failure });
    const started = now();
    assert.deepEqual(await early.byDeadline(new Promise(() => {}), started + 50), { late: true });
    const took = now() - started;
    assert.ok(took >= 45 && took < 500, `late after ${took} ms`);
    assert.deepEqual(await early.byDeadline(new Promise(() => {}), started - 10), { late: true }, 'a passed deadline');
  });

  test('verifierBy: the module loaded and instantiated, or why not, by the deadline', async () => {
    const { now } = await import(half('probe.js'));
    let instantiated = 0;
    const verifier = { default: async () => { instantiated += 1; } };
    assert.deepEqual(await early.verifierBy(async () => verifier, now() + 100), { verifier });
    assert.equal(instantiated, 1);
    const refused = await early.verifierBy(async () => { throw new TypeError('import() is not allowed'); }, now() + 100);
    assert.deepEqual(refused, { cause: 'TypeError: import() is not allowed' });
    const heldInit = await early.verifierBy(async () => ({ default: () => new Promise(() => {}) }), now() + 60);
    assert.match(heldInit.cause, /did not finish within the \d+ ms left of the call's bound/);
    const heldImport = await early.verifierBy(() => new Promise(() => {}), now() + 60);
    assert.match(heldImport.cause, /did not finish within/);
  });

  test('unreached writes the bound, the time taken and the cause into the core\'s answer, nothing left unsaid', async () => {
    const { now } = await import(half('probe.js'));
    const started = now() - 12;
    const nested = early.unreached('module-unavailable', 1500, started, true, 'HTTP 404');
    const text = JSON.stringify(nested);
    assert.ok(!text.includes(generated.TIMEOUT_MS) && !text.includes(generated.CAUSE), text);
    assert.match(nested.probe.message, /within 1500 ms \(HTTP 404\)/);
    assert.equal(nested.probe.reason, 'verify-failed');
    assert.equal(nested.probe.timeoutMs, 1500);
    assert.ok(nested.probe.elapsedMs >= 12);
    assert.deepEqual(nested.effective.features, [], 'WebGPU dropped');
    assert.equal(nested.changes[0].detail, nested.probe.message);
    assert.deepEqual(early.unreached('module-unavailable', 1500, started, false, 'x').reason, 'verify-failed');
    assert.notEqual(generated.UNREACHED['module-unavailable'].probe.message, nested.probe.message, 'the table is not written to');
  });
});

describe('sharing: identical calls share one answer, each its own copy', () => {
  test('one call for identical concurrent callers; other options, other calls', async () => {
    const calls = [];
    const shared = early.sharing(async (options, answer) => {
      calls.push([options, answer]);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { reason: 'verified', options };
    });
    const [a, b, c] = await Promise.all([
      shared({ verify: true }, 'detect'), shared({ verify: true }, 'detect'), shared({ verify: true, powerPreference: 'low-power' }, 'detect'),
    ]);
    assert.equal(calls.length, 2);
    assert.deepEqual(a, b);
    assert.notEqual(a, b, 'each caller its own copy');
    // A caller that changes its answer changes nobody else's, the first one included.
    const pristine = early.sharing(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { probe: { elapsedMs: 1 } };
    });
    const first = pristine({}, 'probe').then((value) => { delete value.probe.elapsedMs; return value; });
    const second = pristine({}, 'probe');
    assert.deepEqual(await first, { probe: {} });
    assert.deepEqual(await second, { probe: { elapsedMs: 1 } });
    assert.equal(c.options.powerPreference, 'low-power');
  });

  test('a caller that joined later is never told time ran out before its own bound: it makes its own call', async () => {
    const { now } = await import(half('probe.js'));
    const calls = [];
    const shared = early.sharing(async (options, answer, began) => {
      calls.push(began);
      await new Promise((resolve) => setTimeout(resolve, calls.length === 1 ? 60 : 5));
      return calls.length === 1 ? { probe: { reason: 'timeout' } } : { probe: { reason: 'adapter-available' } };
    });
    const first = shared({ timeoutMs: 60, verify: true }, 'detect', now());
    await new Promise((resolve) => setTimeout(resolve, 30));
    const joinedAt = now();
    const joined = shared({ timeoutMs: 60, verify: true }, 'detect', joinedAt);
    assert.equal((await first).probe.reason, 'timeout');
    assert.equal((await joined).probe.reason, 'adapter-available', 'its own call, with time left');
    assert.deepEqual(calls, [calls[0], joinedAt], 'its own call counts from its own start');
    // Without time left, the shared answer is its answer.
    const late = early.sharing(async () => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return { reason: 'timeout' };
    });
    const one = late({ timeoutMs: 10 }, 'probe', now());
    const two = late({ timeoutMs: 10 }, 'probe', now());
    assert.deepEqual(await two, await one);
  });
});

describe('the full entry (index.js): each call its own, one reader, one bound', () => {
  let requests;
  before(() => { ({ requests } = page((options) => ({ name: options?.powerPreference ?? 'default' }))); });

  test('concurrent calls asking different adapters each verify their own, one request each', async () => {
    const probed = [];
    const verified = [];
    const { entry } = await freshEntry('index.js', { index: fullModule(probed), verified: verifyModule(verified) });
    serveWasm({ 'verified_bg.wasm': wasmWith('./verified_bg.js', ['__backendTargetsVerify', 'probe', 'detect', 'callWith']) });
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const before = requests.length;
    const [low, high] = await Promise.all([
      entry.detect({ powerPreference: 'low-power', verify: { cache: 'none' } }),
      entry.detect({ powerPreference: 'high-performance', verify: { cache: 'none' } }),
    ]);
    assert.equal(low.probe.adapter.info.vendor, 'low-power');
    assert.equal(high.probe.adapter.info.vendor, 'high-performance');
    assert.deepEqual(verified.map((v) => [v.options.powerPreference, v.adapter.name]).sort(),
      [['high-performance', 'high-performance'], ['low-power', 'low-power']]);
    // The verification's module, loaded by this entry, asks nothing itself.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(requests.length - before, 2, 'one adapter request a call');
  });

  test('a held download of the verification answers by the bound, with the true reason, WebGPU not kept', async () => {
    const probed = [];
    const { entry } = await freshEntry('index.js', { index: fullModule(probed), verified: verifyModule([]) });
    serveWasm({ 'verified_bg.wasm': 'held' });
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const started = performance.now();
    const answer = await entry.detect({ timeoutMs: 300, verify: { budgetMs: 150, cache: 'none' } });
    const took = performance.now() - started;
    assert.ok(took >= 440 && took < 1000, `answered after ${took} ms (the call's bound: 300 + 150 ms)`);
    assert.equal(answer.probe.reason, 'verify-failed');
    const unverified = probed.at(-1);
    assert.match(unverified.cause, /did not finish within the 4\d\d ms left of the call's bound/);
    assert.equal(unverified.request, probed[0].request, 'this call\'s own adapter request, handed on');
    assert.equal(unverified.adapter.name, 'default');
  });

  test('a verification module that cannot be fetched (Node\'s file: URL, a 404) is why, never a rejection', async () => {
    const probed = [];
    const { entry } = await freshEntry('index.js', { index: fullModule(probed), verified: verifyModule([]) });
    globalThis.fetch = realFetch; // Node's own: it refuses file: URLs
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const answer = await entry.detect({ verify: { cache: 'none' } });
    assert.equal(answer.probe.reason, 'verify-failed');
    assert.match(probed.at(-1).cause, /could not fetch the module's \.wasm/);
  });

  test('a kept text the core does not read is dropped and verified afresh; one it reads answers', async () => {
    const probed = [];
    const verified = [];
    const { entry, index } = await freshEntry('index.js', {
      index: fullModule(probed, (text, report) => (text === 'readable' ? { ...report, reason: 'verified', cached: true } : undefined)),
      verified: verifyModule(verified),
    });
    serveWasm({ 'verified_bg.wasm': wasmWith('./verified_bg.js', ['__backendTargetsVerify', 'probe', 'detect', 'callWith']) });
    const verify = await import(half('verify.js', index));
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const adapter = reportOf({ name: 'default' }).adapter;
    const key = verify.verdictKey(adapter, 'f32', generated.VERDICT_FORMAT);
    for (const text of ['{"at":1,"verdict":{"reason":"verified","reason":"verified"}}', '{"surprise":1}', 'not JSON']) {
      await verify.keepVerdict('session', key, text);
      const answer = await entry.detect({ verify: { cache: 'session' } });
      assert.equal(answer.probe.reason, 'verified', 'verified afresh');
      assert.equal(verified.length > 0, true);
      assert.equal(probed.find((entryLog) => entryLog.kept === text)?.key, key, 'the core was asked, with the key');
    }
    const before = verified.length;
    await verify.keepVerdict('session', key, 'readable');
    const answer = await entry.detect({ verify: { cache: 'session' } });
    assert.equal(answer.probe.cached, true, 'the core\'s answer');
    assert.equal(verified.length, before, 'no verification');
  });
});

describe('the detect-only entry (detect.js): one bound for the call, the downloads included', () => {
  before(() => page(() => ({ name: 'default' })));

  test('a held verification answers by the bound through this module\'s probe, with the true reason', async () => {
    const probed = [];
    const { entry } = await freshEntry('detect.js', { detect: { default: async () => ({}), callWith: probingModule(probed) }, verified: verifyModule([]) });
    serveWasm({ 'verified_bg.wasm': 'held', 'detect_bg.wasm': wasmWith('./detect_bg.js', ['__backendTargetsDetect', 'probe', 'detect', 'callWith']) });
    // (Verification options as an object: this entry leaves their reading to
    // a module, so the bound is the whole call's, 1000 + 120 ms; writing the
    // answer after it takes a few ms more.)
    const started = performance.now();
    const answer = await entry.detect({ timeoutMs: 1000, verify: { budgetMs: 120 } });
    const took = performance.now() - started;
    assert.ok(took >= 1110 && took < 1300, `answered after ${took} ms (bound 1120 ms)`);
    assert.equal(answer.reason ?? answer.probe?.reason, 'verify-failed');
    assert.match(probed.at(-1).cause, /did not finish within/);
    assert.equal(probed.at(-1).adapter.name, 'default');
  });

  test('with both modules held, it still answers by the bound: the core\'s module-unavailable answer', async () => {
    const { entry } = await freshEntry('detect.js', { detect: { default: async () => ({}) }, verified: verifyModule([]) });
    serveWasm({ 'verified_bg.wasm': 'held', 'detect_bg.wasm': 'held' });
    const started = performance.now();
    const answer = await entry.detect({ timeoutMs: 150, verify: { budgetMs: 100 } });
    const took = performance.now() - started;
    assert.ok(took >= 240 && took < 1000, `answered after ${took} ms (bound 250 ms)`);
    assert.equal(answer.probe.reason, 'verify-failed');
    assert.match(answer.probe.message, /could not be had within 150 ms \(detect_bg\.wasm was not downloaded and compiled within 250 ms\)/);
    assert.deepEqual(answer.effective.features, []);
  });
});

describe('the verification entry (verified.js): its own module had within the bound, or why not', () => {
  before(() => page(() => ({ name: 'default' })));

  test('a held download: the core\'s module-unavailable answer by the bound', async () => {
    const { entry } = await freshEntry('verified.js', { verified: verifyModule([]) });
    serveWasm({ 'verified_bg.wasm': 'held' });
    const started = performance.now();
    const answer = await entry.detect({ timeoutMs: 100, verify: { budgetMs: 100 } });
    const took = performance.now() - started;
    assert.ok(took >= 190 && took < 1000, `answered after ${took} ms (bound 200 ms)`);
    assert.equal(answer.probe.reason, 'verify-failed');
    assert.match(answer.probe.message, /verified_bg\.wasm was not downloaded and compiled within 200 ms/);
  });

  test('Node\'s fetch refusing the file: URL (a DOM emulation): an answer with the runtime\'s words, never a rejection', async () => {
    const { entry } = await freshEntry('verified.js', { verified: verifyModule([]) });
    globalThis.fetch = realFetch;
    const answer = await entry.probe({ verify: true });
    assert.equal(answer.reason, 'verify-failed');
    assert.match(answer.message, /could not fetch the module's \.wasm from file:/);
  });

  test('the module had: its probe takes the call\'s own adapter request, the budget from its answer', async () => {
    const verified = [];
    const { entry } = await freshEntry('verified.js', { verified: verifyModule(verified) });
    serveWasm({ 'verified_bg.wasm': wasmWith('./verified_bg.js', ['__backendTargetsVerify', 'probe', 'detect', 'callWith']) });
    const before = performance.now();
    const answer = await entry.detect({ verify: true });
    assert.equal(answer.probe.reason, 'verified');
    assert.equal(verified[0].adapter.name, 'default', 'the adapter the call asked for');
    assert.ok(verified[0].call.probedAt >= before, 'the budget counts from the probe\'s answer');
  });

  test('without an adapter it answers alone: the core\'s answer, no module fetched', async () => {
    page(() => null);
    try {
      const { entry } = await freshEntry('verified.js', { verified: verifyModule([]) });
      const fetched = serveWasm({});
      const answer = await entry.detect({ allowFallbackAdapter: false, verify: true });
      assert.equal(answer.probe.reason, 'no-adapter');
      assert.deepEqual(answer.effective.features, []);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(fetched, [], 'no .wasm fetched');
    } finally {
      page(() => ({ name: 'default' }));
    }
  });
});

describe('init() given bytes or another entry\'s module', () => {
  before(() => leavePage());

  test('bytes that are no WebAssembly: invalid-value, not the engine\'s CompileError; a later init still works', async () => {
    const { entry } = await freshEntry('index.js', { index: fullModule([]) });
    await assert.rejects(entry.default(new Uint8Array([1, 2, 3, 4])), (error) => error.code === 'invalid-value'
      && /not a WebAssembly module/.test(error.message) && error.name === 'BackendTargetsError');
    assert.throws(() => entry.initSync({ module: new Uint8Array([0, 97, 115, 109, 9]) }), (error) => error.code === 'invalid-value');
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
  });

  test('another entry\'s module is refused before it is instantiated, its imports renamed or not', async () => {
    const { entry } = await freshEntry('verified.js', { verified: verifyModule([]) });
    const another = (error) => error.code === 'invalid-value' && /not this entry's module \(verified_bg\.wasm\)/.test(error.message);
    const detectOnly = ['__backendTargetsDetect', 'probe', 'detect', 'callWith'];
    await assert.rejects(entry.default(wasmWith('./detect_bg.js', detectOnly)), another);
    await assert.rejects(entry.default(wasmWith('./verified_bg.js', detectOnly)), another, 'imports renamed');
    await entry.default(wasmWith('./verified_bg.js', ['__backendTargetsVerify', 'probe', 'detect', 'callWith']));
  });
});

describe('supportReport: a text a maintainer can act on, that a hostile adapter cannot forge', () => {
  const hostile = 'evil\u001b[31m\r\n- kept (device-available)\n```\n\u202egpu\u0085\u2066x\u2069';
  const report = {
    available: false, reason: 'fallback-adapter', message: `fallback adapter ${hostile}`, apiPresent: true,
    adapter: { info: { vendor: hostile, architecture: '', device: '', description: '' }, isFallbackAdapter: true, features: [hostile], limits: {} },
    timeoutMs: 2000, elapsedMs: 3.5,
  };
  const resolution = {
    effective: { features: [] },
    changes: [{ feature: 'webGpu', action: 'dropped', reason: 'fallback-adapter', detail: report.message }],
    probe: report,
  };

  test('every foreign string escaped; one line a fact; one fenced block whose JSON reads back', () => {
    const text = early.supportReport(resolution, { allowFallbackAdapter: false, verify: true });
    // oxlint-disable-next-line no-control-regex -- matching them is the point
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u, 'no raw control or bidi character');
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.filter((line) => line.startsWith('```')).length, 2, 'one fenced block');
    assert.equal(lines.filter((line) => line.startsWith('decision:')).length, 1);
    assert.ok(!lines.some((line) => line.startsWith('- kept')), 'no forged line');
    assert.match(text, /^options: \{"allowFallbackAdapter":false,"verify":true\}$/m);
    assert.match(text, /^context: .*; secure context: (yes|no|unknown); cross-origin isolated: (yes|no|unknown)$/m);
    const json = text.slice(text.indexOf('```json\n') + 8, text.lastIndexOf('```'));
    assert.deepEqual(JSON.parse(json), report, 'the report, whole, as it was');
  });

  test('where it ran and a cached verdict are said', () => {
    const cached = { ...report, reason: 'verified', verification: { cached: true } };
    assert.match(early.supportReport(cached), /the verdict from the cache/);
    // When the kept verdict was measured, where the core says (keptAt).
    const dated = { ...cached, verification: { cached: true, keptAt: Date.UTC(2026, 11, 1, 9, 30) } };
    assert.match(early.supportReport(dated), /the verdict from the cache \(kept by an earlier verification, measured 2026-12-01T09:30:00\.000Z, [0-9.]+ (hours|days) before this report\)/);
    const hourAgo = { ...cached, verification: { cached: true, keptAt: Date.now() - 3_600_000 } };
    assert.match(early.supportReport(hourAgo), /, 1\.0 hours before this report\)/);
  });

  test('a foreign string of any length leaves every line of the report bounded', () => {
    const long = { ...report, message: `x${'\u202e'.repeat(10)}${'y'.repeat(50_000)}` };
    const text = early.supportReport(long);
    const lines = text.split('\n');
    assert.ok(lines.every((line) => line.length <= 1100), `the longest line: ${Math.max(...lines.map((l) => l.length))}`);
    assert.match(text, /… \(\d+ more characters left out\)/);
    assert.ok(text.length < 20_000, `${text.length} characters`);
    assert.match(early.supportReport(report), /^context: (page|Node\.js|Node\.js with a DOM emulation)/m);
  });
});

describe('detectNative() in the full entry: the JS carries, the core decides', () => {
  before(() => leavePage());

  /** The stub module's two native calls, recording what the entry asked
   *  (the entry's glue and its guard's, which wraps these two). */
  function nativeModule(log) {
    return {
      ...fullModule([]),
      nativeCall: (target, options, platform, arch) => {
        log.push({ call: [target, options, platform, arch] });
        return { target: { os: 'linux', accelerator: 'cuda' }, timeoutMs: options?.timeoutMs ?? 5000 };
      },
      nativeWithoutProbe: (target, platform, arch, reason, message, timeoutMs, elapsedMs) => {
        log.push({ without: [target, platform, arch, reason, message, timeoutMs] });
        assert.ok(elapsedMs >= 0, 'the time since the call began');
        return { probe: { isolation: 'not-run', reason, message } };
      },
    };
  }

  test('no runner (a browser): the core answers unsupported-platform, and nothing runs', async () => {
    const log = [];
    const module = nativeModule(log);
    const { entry } = await freshEntry('index.js', { index: module, guard: module });
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const answer = await entry.detectNative('linuxCuda', { timeoutMs: 900 });
    assert.deepEqual(log[0], { call: ['linuxCuda', { timeoutMs: 900 }, 'unknown', 'unknown'] });
    assert.equal(log[1].without[3], 'unsupported-platform');
    assert.match(log[1].without[4], /this runtime cannot probe the host/);
    assert.equal(log[1].without[5], 900);
    assert.deepEqual(answer.probe, { isolation: 'not-run', reason: 'unsupported-platform', message: log[1].without[4] });
  });

  test('a runner: the command\'s answer as it is; no answer is the core\'s, with the runner\'s reason; the bound from the first line', async () => {
    const log = [];
    const module = nativeModule(log);
    const { entry } = await freshEntry('index.js', { index: module, guard: module });
    await entry.default(wasmWith('./backend_targets_bg.js', EXPORTS));
    const runs = [];
    const outcomes = [{ resolution: { from: 'the command' } }, { reason: 'timeout', message: 'no answer within 50 ms' }];
    entry.default[Symbol.for('backend-targets.nativeRunner')]({
      host: () => ({ platform: 'linux', arch: 'x64' }),
      run: async (target, timeoutMs, began) => {
        runs.push({ target, timeoutMs, began });
        return outcomes.shift();
      },
    });
    const before = performance.now();
    assert.deepEqual(await entry.detectNative(), { from: 'the command' });
    assert.deepEqual(log[0].call, [undefined, undefined, 'linux', 'x64']);
    assert.deepEqual(runs[0].target, { os: 'linux', accelerator: 'cuda' });
    assert.ok(runs[0].began >= before && runs[0].began <= performance.now(), 'the bound counts from the call');
    assert.equal(log.length, 1, 'the command answered: the core is not asked again');
    const timedOut = await entry.detectNative(undefined, { timeoutMs: 50 });
    assert.deepEqual(timedOut.probe, { isolation: 'not-run', reason: 'timeout', message: 'no answer within 50 ms' });
    assert.deepEqual(log[2].without.slice(1, 6), ['linux', 'x64', 'timeout', 'no answer within 50 ms', 50]);
  });
});
