// The JavaScript halves of the binding layer, on their own: crates/browser/src/boundary.js
// (a JS value to JSON text, refusing what JSON cannot carry) and
// crates/browser/src/probe.js (what the probe reads off a GPUAdapter and the name it
// gives it in messages, the capture of
// wgpu's requestAdapter() call and the early request it can take, the device
// check, the timer and the clock). The package suites
// and the Chromium suite run them through the module; these pin down the edge
// cases a real adapter or input rarely shows.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

const boundary = await import(pathToFileURL(join(ROOT, 'crates', 'browser', 'src', 'boundary.js')));
const probe = await import(pathToFileURL(join(ROOT, 'crates', 'browser', 'src', 'probe.js')));

describe('boundary.js: jsonText', () => {
  test('plain values are JSON.stringify', () => {
    const value = { a: [1, 'two', true, null], b: { c: 1.5 } };
    assert.equal(boundary.jsonText(value), JSON.stringify(value));
    assert.equal(boundary.takeUnrepresentable(), null);
  });

  test('functions, symbols, BigInts and non-finite numbers become null, the first is remembered once', () => {
    const text = boundary.jsonText({ f() {}, s: Symbol('x'), n: 10n, i: Infinity, items: [NaN, () => 1] });
    assert.equal(text, '{"f":null,"s":null,"n":null,"i":null,"items":[null,null]}');
    assert.equal(boundary.takeUnrepresentable(), 'a function');
    assert.equal(boundary.takeUnrepresentable(), null);
    boundary.jsonText({ later: -Infinity });
    assert.equal(boundary.takeUnrepresentable(), 'a non-finite number');
  });

  test('each call starts afresh', () => {
    boundary.jsonText({ n: 1n });
    boundary.jsonText({ fine: 1 });
    assert.equal(boundary.takeUnrepresentable(), null);
  });

  test('toJSON is honoured; undefined has no text; a cycle throws', () => {
    assert.equal(boundary.jsonText({ when: { toJSON: () => 'now' } }), '{"when":"now"}');
    assert.equal(boundary.jsonText(undefined), undefined);
    const cycle = {};
    cycle.self = cycle;
    assert.throws(() => boundary.jsonText(cycle), TypeError);
  });
});

class FakeLimits {
  get maxBindGroups() { return 4; }
  get maxBufferSize() { return 268435456; }
  get minUniformBufferOffsetAlignment() { return 256; }
  get fractional() { return 1.5; }
  get negative() { return -1; }
  get unsafe() { return 2 ** 60; }
  get text() { return '8'; }
  get throws() { throw new Error('no'); }
}

const fakeAdapter = (overrides = {}) => ({
  info: { vendor: 'acme', architecture: 'rocket', device: '', description: 'a test adapter', isFallbackAdapter: true },
  features: new Set(['shader-f16', 'timestamp-query']),
  limits: new FakeLimits(),
  ...overrides,
});

/** An assert.throws check on the error's message alone. */
const says = (pattern) => (error) => pattern.test(error.message);

describe('probe.js: readAdapter', () => {
  test('reads info, features and the prototype getters of limits, in WebGPU spelling', () => {
    assert.deepEqual(probe.readAdapter(fakeAdapter()), {
      info: { vendor: 'acme', architecture: 'rocket', device: '', description: 'a test adapter' },
      isFallbackAdapter: true,
      features: ['shader-f16', 'timestamp-query'],
      limits: { maxBindGroups: 4, maxBufferSize: 268435456, minUniformBufferOffsetAlignment: 256 },
    });
  });

  test('features come sorted, each once', () => {
    const read = probe.readAdapter(fakeAdapter({ features: ['texture-compression-bc', 'depth-clip-control', 'shader-f16', 'depth-clip-control'] }));
    assert.deepEqual(read.features, ['depth-clip-control', 'shader-f16', 'texture-compression-bc']);
  });

  test('keeps only non-negative safe integers as limits, and own properties too', () => {
    const limits = Object.assign(new FakeLimits(), { ownLimit: 7 });
    const read = probe.readAdapter(fakeAdapter({ limits }));
    assert.deepEqual(Object.keys(read.limits).sort(), ['maxBindGroups', 'maxBufferSize', 'minUniformBufferOffsetAlignment', 'ownLimit']);
  });

  test('each kind of limits object is read by its own names, and every value afresh', () => {
    class OtherLimits { get maxBindGroups() { return 8; } get maxComputeInvocationsPerWorkgroup() { return 256; } }
    let groups = 4;
    class ChangingLimits extends FakeLimits { get maxBindGroups() { return groups; } }
    const read = (limits) => probe.readAdapter(fakeAdapter({ limits })).limits;
    assert.deepEqual(read(new FakeLimits()), { maxBindGroups: 4, maxBufferSize: 268435456, minUniformBufferOffsetAlignment: 256 });
    assert.deepEqual(read(new OtherLimits()), { maxBindGroups: 8, maxComputeInvocationsPerWorkgroup: 256 });
    assert.deepEqual(read({ plain: 3 }), { plain: 3 });
    assert.deepEqual(read(new OtherLimits()), { maxBindGroups: 8, maxComputeInvocationsPerWorkgroup: 256 });
    assert.deepEqual(read(new ChangingLimits()), { maxBindGroups: 4 });
    groups = 6;
    assert.deepEqual(read(new ChangingLimits()), { maxBindGroups: 6 });
  });

  test('isFallbackAdapter: info first, then the adapter (older browsers), else false', () => {
    const info = { vendor: 'v', architecture: 'a', device: 'd', description: 'x' };
    assert.equal(probe.readAdapter(fakeAdapter({ info, isFallbackAdapter: true })).isFallbackAdapter, true);
    assert.equal(probe.readAdapter(fakeAdapter({ info })).isFallbackAdapter, false);
  });

  test('missing, odd or throwing info reads as empty; non-string features are skipped', () => {
    const throwing = (key, error) => Object.defineProperty(fakeAdapter(), key, { get() { throw error; } });
    const hostile = throwing('info', new Error('info'));
    assert.deepEqual(probe.readAdapter(hostile).info, { vendor: '', architecture: '', device: '', description: '' });
    const odd = fakeAdapter({ info: { vendor: 42 }, features: ['ok', 7, null], limits: {} });
    const read = probe.readAdapter(odd);
    assert.equal(read.info.vendor, '');
    assert.deepEqual(read.features, ['ok']);
    assert.deepEqual(read.limits, {});
  });

  // An answer whose features or limits cannot be read was once taken for an
  // adapter with nothing in it ("adapter-available"); it is not an adapter.
  test('an answer that is not an object, or whose features or limits cannot be read, throws a sentence saying so', () => {
    const unreadable = (adapter, why) => assert.throws(() => probe.readAdapter(adapter, 1024, 1024, 1024), (e) => why.test(e.message), String(why));
    unreadable(42, /^it is 42, not an object$/);
    unreadable('adapter', /^it is a string, not an object$/);
    unreadable(() => {}, /^it is a function, not an object$/);
    unreadable({}, /^its features are not an object$/);
    const throwing = (key, error) => Object.defineProperty(fakeAdapter(), key, { get() { throw error; } });
    unreadable(throwing('features', new Error('gone')), /^its features cannot be read \(gone\)$/);
    unreadable(fakeAdapter({ features: { [Symbol.iterator]() { throw new Error('no'); } } }), /^its features cannot be read \(no\)$/);
    unreadable(fakeAdapter({ features: 7 }), /^its features are not an object$/);
    unreadable(fakeAdapter({ limits: null }), /^its limits are not an object$/);
    unreadable(throwing('limits', new Error('lost')), /^its limits cannot be read \(lost\)$/);
    unreadable(fakeAdapter({ limits: new Proxy({}, { ownKeys() { throw new Error('keys'); } }) }), /^its limits cannot be read \(keys\)$/);
    const everythingThrows = { get info() { throw new Error('i'); }, get features() { throw new Error('f'); }, get limits() { throw new Error('l'); } };
    unreadable(everythingThrows, /^its features cannot be read \(f\)$/);
  });

  test('reads no further than the bounds plan() accepts: an endless features set is refused after max + 1 entries', () => {
    let yielded = 0;
    const endless = { *[Symbol.iterator]() { for (;;) { yielded += 1; yield `f${yielded}`; } } };
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: endless }), 1024, 1024, 1024), says(/^it lists more than 1024 features \(the limit features\)$/));
    assert.equal(yielded, 1025);
    let junk = 0;
    const endlessJunk = { *[Symbol.iterator]() { for (;;) { junk += 1; yield junk; } } };
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: endlessJunk }), 8, 8, 8), says(/more than 8 features/));
    assert.equal(junk, 9, 'entries that are not names count too');
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`max${i}`, i]));
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: [], limits: many }), 8, 8, 8), says(/^it has more than 8 limits \(the limit limits\)$/));
    const wide = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x${i}`, 'not a number']));
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: [], limits: wide }), 8, 8, 8), says(/^its limits have more than 32 properties$/));
    assert.doesNotThrow(() => probe.readAdapter(fakeAdapter({ features: ['a', 'b'], limits: { m: 1 } }), 2, 1, 8));
  });

  test('a name that is not valid text or longer than nameBytes is refused, named', () => {
    const lone = 'shader-\uD800f16';
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: ['ok', lone] }), 1024, 1024, 1024),
      (e) => e.message === 'the feature listed at index 1, "shader-\\ud800f16", is not valid Unicode text (a lone surrogate at UTF-16 index 7)');
    assert.throws(() => probe.readAdapter(fakeAdapter({ limits: { ['max\uDC00']: 1 } }), 1024, 1024, 1024), says(/^the limit listed at index 0, "max\\udc00", is not valid Unicode text/));
    assert.throws(() => probe.readAdapter(fakeAdapter({ features: ['é'.repeat(513)] }), 1024, 1024, 1024),
      says(/^the feature listed at index 0, "é{32}"… \(513 UTF-16 units\), is longer than 1024 bytes \(the limit nameBytes\)$/));
    assert.throws(() => probe.readAdapter(fakeAdapter({ limits: { ['m'.repeat(5000)]: 1 } }), 1024, 1024, 1024), says(/is longer than 1024 bytes/));
    assert.doesNotThrow(() => probe.readAdapter(fakeAdapter({ features: ['é'.repeat(512)] }), 1024, 1024, 1024));
  });

  test('adapterFields: the same answer flat, as the module takes it', () => {
    const limits = Object.assign(new FakeLimits(), { ownLimit: 7 });
    assert.deepEqual(probe.adapterFields(fakeAdapter({ limits, features: ['b', 'a'] }), 1024, 1024, 1024), [
      'acme', 'rocket', '', 'a test adapter', 'acme rocket', true, 2, 'a', 'b',
      'maxBindGroups', 4, 'maxBufferSize', 268435456, 'minUniformBufferOffsetAlignment', 256, 'ownLimit', 7,
    ]);
    // Limits in UTF-8 byte order, the core's: not UTF-16's, where a pair sorts
    // before U+FF01; and a name that JS objects would list first ("10") in place.
    const names = ['\uff01', '\u{1F600}', 'Z', 'a', '10', 'a\u0301', ''];
    const read = probe.adapterFields(fakeAdapter({ features: [], limits: Object.fromEntries(names.map((n, i) => [n, i])) }));
    const sorted = read.slice(7).filter((_, i) => i % 2 === 0);
    const utf8 = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.deepEqual(sorted, utf8);
    assert.deepEqual(sorted, ['', '10', 'Z', 'a', 'a\u0301', '\uff01', '\u{1F600}']);
    assert.deepEqual(probe.adapterFields(fakeAdapter({ info: {}, features: [], limits: {} })), ['', '', '', '', '', false, 0]);
    // Deno's llvmpipe, as Deno 2 answers on this machine: the name is the description.
    const deno = { vendor: '65541', architecture: '', device: '0', description: 'llvmpipe (LLVM 15.0.6, 256 bits)', isFallbackAdapter: true };
    assert.deepEqual(probe.adapterFields(fakeAdapter({ info: deno, features: [], limits: {} })).slice(0, 5),
      ['65541', '', '0', 'llvmpipe (LLVM 15.0.6, 256 bits)', 'llvmpipe (LLVM 15.0.6, 256 bits)']);
  });

  test('adapterName: vendor and architecture, or the description where they say nothing a person reads', () => {
    const name = (vendor, architecture, description) => probe.adapterName({ vendor, architecture, description });
    // Chromium's SwiftShader, and a real GPU: vendor and architecture.
    assert.equal(name('google', 'swiftshader', ''), 'google swiftshader');
    assert.equal(name('nvidia', 'ampere', 'NVIDIA GeForce RTX 3060'), 'nvidia ampere');
    assert.equal(name('apple', '', ''), 'apple');
    assert.equal(name('', 'rdna-3', 'AMD Radeon'), 'rdna-3');
    // Deno's wgpu: a PCI vendor id (Mesa's 0x10005) and no architecture: the description.
    assert.equal(name('65541', '', 'llvmpipe (LLVM 15.0.6, 256 bits)'), 'llvmpipe (LLVM 15.0.6, 256 bits)');
    assert.equal(name('4318', 'x', 'NVIDIA GeForce RTX 3060'), 'NVIDIA GeForce RTX 3060');
    // No vendor and no architecture: the description.
    assert.equal(name('', '', 'Intel(R) UHD Graphics'), 'Intel(R) UHD Graphics');
    // Nothing better to say: what there is.
    assert.equal(name('65541', '', ''), '65541');
    assert.equal(name('', '', ''), '');
    assert.throws(() => probe.adapterFields(42), (e) => e.message === 'it is 42, not an object');
  });

  test('info strings are cut to nameBytes of UTF-8 (with an ellipsis), a lone surrogate as U+FFFD', () => {
    const huge = 'x'.repeat(10_000_000);
    const info = { vendor: huge, architecture: '😀'.repeat(600), device: 'ok\uD800', description: 'd' };
    const read = probe.readAdapter(fakeAdapter({ info }), 1024, 1024, 1024).info;
    assert.equal(read.vendor, `${'x'.repeat(1021)}…`);
    assert.equal(new TextEncoder().encode(read.architecture).length, 1020 + 3);
    assert.equal(read.device, 'ok\uFFFD');
    assert.equal(read.description, 'd');
  });
});

describe('boundary.js: jsonText stops at a byte limit', () => {
  test('what it counts is never more than the text: every value is written under a limit of its own length', () => {
    const values = [
      { ops: ['add', 'mul'], a: { b: [1, 2, { c: 'é😀' }] }, '': 1, gone: undefined, f() {}, n: null },
      [undefined, () => 1, Symbol('s'), [], {}, [[]], 'x'],
      'text', 12345, true, null, { toJSON: () => ({ k: 'v' }) },
    ];
    for (const value of values) {
      const text = JSON.stringify(value);
      assert.equal(typeof boundary.jsonText(value, new TextEncoder().encode(JSON.stringify(value, (k, v) => (typeof v === 'function' || typeof v === 'symbol' ? null : v))).length), 'string', text);
    }
  });

  test('above the limit it stops early and answers how much it counted', () => {
    let read = 0;
    const big = { ops: Array(1000).fill('add'), get late() { read += 1; return 1; } };
    const counted = boundary.jsonText(big, 100);
    assert.equal(typeof counted, 'number');
    assert.ok(counted > 100 && counted < 120, String(counted));
    assert.equal(read, 0);
    assert.equal(typeof boundary.jsonText(big), 'string', 'no limit: the whole text');
    assert.equal(read, 1);
  });
});

describe('boundary.js: instanceLost', () => {
  test('tells each listener once the trap has unwound, and remembers an allocation failure until taken', async () => {
    const heard = [];
    const stop = boundary.onInstanceLost(() => heard.push('lost'));
    assert.equal(boundary.takeOutOfMemory(), false);
    boundary.instanceLost(true);
    assert.deepEqual(heard, [], 'not while the module is still on the stack');
    await Promise.resolve();
    assert.deepEqual(heard, ['lost']);
    assert.equal(boundary.takeOutOfMemory(), true);
    assert.equal(boundary.takeOutOfMemory(), false);
    stop();
    boundary.instanceLost(false);
    await Promise.resolve();
    assert.deepEqual(heard, ['lost']);
    assert.equal(boundary.takeOutOfMemory(), false);
  });
});

describe('probe.js: settle (a probe whose instance ends is started again)', () => {
  test('answers what the start answers, and starts again, from its first start, when the instance ends', async () => {
    const starts = [];
    let answer;
    const start = (options) => {
      starts.push({ options, from: probe.probeStart() });
      return new Promise((resolve) => { answer = resolve; });
    };
    const settled = probe.settle(start, { timeoutMs: 5 });
    assert.equal(starts.length, 1);
    const first = starts[0].from;
    boundary.instanceLost(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(starts.length, 2);
    assert.equal(starts[1].from, first, 'counted from its first start');
    assert.deepEqual(starts[1].options, { timeoutMs: 5 });
    answer('report');
    assert.equal(await settled, 'report');
    boundary.instanceLost(false);
    await Promise.resolve();
    assert.equal(starts.length, 2, 'a settled probe is not started again');
  });

  test('a start that throws rejects; after three ends it gives up', async () => {
    await assert.rejects(probe.settle(() => { throw new Error('call init() first'); }), /call init\(\) first/);
    let starts = 0;
    const settled = probe.settle(() => { starts += 1; return new Promise(() => {}); });
    let outcome = 'pending';
    settled.then(() => { outcome = 'resolved'; }, () => { outcome = 'rejected'; });
    for (let i = 0; i < 2; i++) {
      boundary.instanceLost(false);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    assert.equal(outcome, 'pending', 'two ends: started again each time');
    assert.equal(starts, 3);
    boundary.instanceLost(false);
    await assert.rejects(settled, (e) => e.code === 'unsupported-platform' && /failed three times/.test(e.message));
    assert.equal(starts, 3, 'not started a fourth time');
  });
});

describe('probe.js: pinGpu', () => {
  test('navigator.gpu reads the pinned object until unpinned, then the page\'s getter again', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    let reads = 0;
    const navigator = { get gpu() { reads += 1; return { fresh: reads }; } };
    Object.defineProperty(globalThis, 'navigator', { value: navigator, configurable: true });
    try {
      const mine = navigator.gpu;
      const pin = probe.pinGpu(mine);
      assert.equal(navigator.gpu, mine);
      assert.equal(navigator.gpu, mine);
      probe.unpinGpu(pin);
      assert.notEqual(navigator.gpu, mine);
      const frozen = Object.freeze({ gpu: { same: true } });
      Object.defineProperty(globalThis, 'navigator', { value: frozen, configurable: true });
      assert.deepEqual(probe.pinGpu(frozen.gpu), {}, 'cannot pin, but it reads the same object');
      const fickle = Object.freeze({ get gpu() { return {}; } });
      Object.defineProperty(globalThis, 'navigator', { value: fickle, configurable: true });
      assert.equal(probe.pinGpu(fickle.gpu), undefined, 'cannot pin, and it reads another object each time');
    } finally {
      if (saved) Object.defineProperty(globalThis, 'navigator', saved);
      else delete globalThis.navigator;
    }
  });
});

describe('probe.js: delay and now', () => {
  test('a delay longer than setTimeout holds (2^31 - 1 ms) waits, chained, instead of firing at once', async () => {
    const saved = globalThis.setTimeout;
    const asked = [];
    globalThis.setTimeout = (fn, ms) => { asked.push(ms); return saved(fn, 0); };
    try {
      let fired = false;
      const [promise] = probe.delay(2 ** 32 + 5);
      promise.then(() => { fired = true; });
      for (let i = 0; i < 200 && !fired; i++) await new Promise((resolve) => saved(resolve, 5));
      assert.ok(fired);
      assert.deepEqual(asked.slice(0, 3), [2 ** 31 - 1, 2 ** 31 - 1, 7]);
    } finally {
      globalThis.setTimeout = saved;
    }
  });

  test('delay resolves after the time; cancelDelay clears a pending one', async () => {
    const [promise, timer] = probe.delay(1);
    await promise;
    probe.cancelDelay(timer);
    const [, pending] = probe.delay(60_000);
    // Cleared: a pending 60 s timer would otherwise keep this test process alive.
    probe.cancelDelay(pending);
  });

  test('now() is a millisecond clock', () => {
    const a = probe.now();
    assert.equal(typeof a, 'number');
    assert.ok(probe.now() >= a);
  });
});

describe('probe.js: captureRequest and releaseRequest', () => {
  const realAdapter = { name: 'adapter' };
  class FakeGpu { requestAdapter(options) { this.seen = options; return Promise.resolve(realAdapter); } }

  test('keeps the promise of the call made while captured, then puts the prototype method back', async () => {
    const gpu = new FakeGpu();
    const capture = probe.captureRequest(gpu);
    assert.ok(Object.hasOwn(gpu, 'requestAdapter'));
    const returned = gpu.requestAdapter({ powerPreference: 'low-power' });
    const kept = probe.releaseRequest(gpu, capture);
    assert.equal(kept, returned);
    assert.equal(await kept, realAdapter);
    assert.deepEqual(gpu.seen, { powerPreference: 'low-power' });
    assert.ok(!Object.hasOwn(gpu, 'requestAdapter'), 'the own wrapper is gone');
    assert.equal(gpu.requestAdapter, FakeGpu.prototype.requestAdapter);
  });

  test('an own requestAdapter is put back as it was', () => {
    const own = () => Promise.resolve(null);
    const gpu = { requestAdapter: own };
    const capture = probe.captureRequest(gpu);
    assert.notEqual(gpu.requestAdapter, own);
    probe.releaseRequest(gpu, capture);
    assert.equal(gpu.requestAdapter, own);
  });

  test('no call gives undefined; a throwing call is rethrown on release and rejects for the caller', async () => {
    const gpu = new FakeGpu();
    assert.equal(probe.releaseRequest(gpu, probe.captureRequest(gpu)), undefined);

    const thrower = { requestAdapter() { throw new TypeError('no GPU process'); } };
    const capture = probe.captureRequest(thrower);
    const forCaller = thrower.requestAdapter();
    await assert.rejects(forCaller, /no GPU process/);
    assert.throws(() => probe.releaseRequest(thrower, capture), /no GPU process/);
  });

  test('a non-promise answer is wrapped; a missing method cannot be captured', async () => {
    const gpu = { requestAdapter: () => null };
    const capture = probe.captureRequest(gpu);
    gpu.requestAdapter();
    assert.equal(await probe.releaseRequest(gpu, capture), null);
    assert.throws(() => probe.captureRequest({}), TypeError);
  });
});

describe('probe.js: requestEarly (the browser entry asks for an adapter while the module loads)', () => {
  const adapter = { name: 'early' };
  const counting = () => {
    const gpu = { calls: [], requestAdapter(options) { this.calls.push(options); return Promise.resolve(adapter); } };
    return gpu;
  };
  /** Runs `fn` with `navigator.gpu` (and `document`, for a page) defined on globalThis. */
  async function withGlobals({ gpu, page }, fn) {
    const saved = Object.getOwnPropertyDescriptors(globalThis);
    Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    if (page) globalThis.document = {};
    try {
      await fn();
    } finally {
      for (const key of ['navigator', 'document']) {
        if (saved[key]) Object.defineProperty(globalThis, key, saved[key]);
        else delete globalThis[key];
      }
    }
  }
  /** One probe's request as crates/browser/src/probe.rs makes it: capture, wgpu's call, release. */
  function probeRequest(gpu, options) {
    const capture = probe.captureRequest(gpu);
    const returned = gpu.requestAdapter(options);
    assert.equal(probe.releaseRequest(gpu, capture), returned);
    return returned;
  }

  test('outside a page or worker it asks nothing', async () => {
    const gpu = counting();
    await withGlobals({ gpu, page: false }, async () => {
      probe.requestEarly();
      assert.equal(gpu.calls.length, 0);
      assert.equal(await probeRequest(gpu, {}), adapter);
      assert.equal(gpu.calls.length, 1, 'the probe asked itself');
    });
  });

  test('in a page: one request at once, taken by the first default request, then every probe asks afresh', async () => {
    const gpu = counting();
    await withGlobals({ gpu, page: true }, async () => {
      probe.requestEarly();
      assert.deepEqual(gpu.calls, [undefined], 'asked at once, with default options');
      assert.equal(await probeRequest(gpu, {}), adapter);
      assert.equal(gpu.calls.length, 1, 'the probe took the early request');
      assert.equal(await probeRequest(gpu, {}), adapter);
      assert.equal(gpu.calls.length, 2, 'the next probe asked afresh');
    });
  });

  test('a request with a power preference asks for itself and leaves the early one waiting', async () => {
    const gpu = counting();
    await withGlobals({ gpu, page: true }, async () => {
      probe.requestEarly();
      await probeRequest(gpu, { powerPreference: 'high-performance' });
      assert.deepEqual(gpu.calls, [undefined, { powerPreference: 'high-performance' }]);
      await probeRequest(gpu, {});
      assert.equal(gpu.calls.length, 2, 'the default request took the early one');
    });
  });

  test('another navigator.gpu does not take it; a throwing requestAdapter leaves none', async () => {
    const gpu = counting();
    await withGlobals({ gpu, page: true }, async () => {
      probe.requestEarly();
      const other = counting();
      await probeRequest(other, {});
      assert.equal(other.calls.length, 1);
      await probeRequest(gpu, {}); // takes it
      assert.equal(gpu.calls.length, 1);
    });
    const thrower = { requestAdapter() { throw new TypeError('no GPU process'); } };
    await withGlobals({ gpu: thrower, page: true }, async () => {
      assert.doesNotThrow(() => probe.requestEarly());
      const capture = probe.captureRequest(thrower);
      await assert.rejects(thrower.requestAdapter({}), /no GPU process/, 'asked again (and threw again)');
      assert.throws(() => probe.releaseRequest(thrower, capture), /no GPU process/);
    });
  });
});

describe('probe.js: verifyDevice', () => {
  test('destroys the device it gets', async () => {
    let destroyed = false;
    const adapter = { requestDevice: async () => ({ destroy() { destroyed = true; } }) };
    assert.equal(await probe.verifyDevice(adapter), undefined);
    assert.ok(destroyed);
  });

  test('rejects with why there is none, also for a throwing or missing requestDevice', async () => {
    await assert.rejects(probe.verifyDevice({ requestDevice: () => Promise.reject(new Error('lost')) }), /lost/);
    await assert.rejects(probe.verifyDevice({ requestDevice() { throw new Error('consumed'); } }), /consumed/);
    await assert.rejects(probe.verifyDevice({}), TypeError);
  });
});

describe('verify.js: the guard around wgpu\'s adapter and device, and the kept verdicts', async () => {
  const verify = await import(pathToFileURL(join(ROOT, 'crates', 'browser', 'src', 'verify.js')));

  test('captureRequest hands wgpu wrap(answer) and keeps the answer itself for the probe', async () => {
    const adapter = { features: new Set(), limits: {} };
    const gpu = { requestAdapter: () => Promise.resolve(adapter) };
    const capture = probe.captureRequest(gpu, (answer) => answer.then((a) => ({ wrapped: a })));
    const handed = await gpu.requestAdapter();
    const kept = await probe.releaseRequest(gpu, capture);
    assert.deepEqual(handed, { wrapped: adapter });
    assert.equal(kept, adapter);
  });

  test('a method that throws is a fault, with its words, and answers an inert stand-in; the first fault is kept', async () => {
    const faults = verify.newFaults();
    const queue = { submit() { throw new Error('queue gone'); }, writeBuffer() { return 'written'; } };
    let lose;
    const device = {
      queue,
      lost: new Promise((resolve) => { lose = resolve; }),
      createComputePipeline() { throw new TypeError('bad pipeline'); },
      createBuffer(size) { return { size, owner: this === device }; },
    };
    const adapter = { name: 'a', requestDevice: async () => device };
    const guarded = await verify.adapterGuard(faults)(Promise.resolve(adapter));
    assert.equal(guarded.name, 'a');
    const guardedDevice = await guarded.requestDevice({});
    assert.equal(verify.takeFault(faults), undefined);
    // Methods run on the real object.
    assert.equal(guardedDevice.createBuffer(4).owner, true);
    assert.equal(guardedDevice.queue.writeBuffer(), 'written');
    assert.equal(guardedDevice.queue, guardedDevice.queue, 'one guard per queue');
    // What a throwing method answers takes wgpu's next calls and does
    // nothing (a pass on an encoder never made), until the module stops.
    const inert = guardedDevice.createComputePipeline({});
    assert.equal(typeof inert, 'function');
    assert.equal(inert.getBindGroupLayout(0).anything().deeper, inert);
    // wgpu calls `then` on what it takes for a promise (a map on a buffer
    // never made): it rejects, so that nothing waits for ever.
    await assert.rejects(Promise.resolve(inert), /an earlier WebGPU call failed/, 'awaiting it rejects: it does not hang');
    assert.deepEqual(verify.takeFault(faults), { kind: 'verify-failed', message: 'createComputePipeline() threw: bad pipeline' });
    assert.equal(guardedDevice.queue.submit([]), inert);
    assert.equal(verify.takeFault(faults).message, 'createComputePipeline() threw: bad pipeline', 'the first fault stays');
    // What a method makes is guarded in turn, and handed back unwrapped.
    class GPUThing {
      constructor(log) { this.log = log; }
      explode() { throw new Error('thing exploded'); }
      use(other, descriptor) { this.log.push(other, descriptor.nested.resource); return other; }
    }
    const log = [];
    const maker = { make: () => new GPUThing(log) };
    const deep = verify.newFaults();
    const guardedMaker = await verify.adapterGuard(deep)(Promise.resolve(maker));
    const first = guardedMaker.make();
    const second = guardedMaker.make();
    assert.ok(first instanceof GPUThing, 'the guard keeps the prototype');
    first.use(second, { nested: { resource: second } });
    assert.ok(log[0] instanceof GPUThing && log[1] === log[0], 'the real object handed back, at any depth');
    assert.notEqual(log[0], second, 'not the guard');
    first.explode();
    assert.deepEqual(verify.takeFault(deep), { kind: 'verify-failed', message: 'explode() threw: thing exploded' });
    guardedDevice.onuncapturederror = 'set';
    assert.equal(device.onuncapturederror, 'set', 'properties are set on the real object');
    // A lost device is a fault of its own kind.
    const other = verify.newFaults();
    const watched = await verify.adapterGuard(other)(Promise.resolve(adapter));
    await watched.requestDevice({});
    lose({ reason: 'unknown', message: 'driver reset' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(verify.takeFault(other), { kind: 'device-lost', message: 'the device was lost (unknown): driver reset' });
    // A null answer (no adapter) is handed on as it is.
    assert.equal(await verify.adapterGuard(verify.newFaults())(Promise.resolve(null)), null);
  });

  test('a device destroyed at the end is no fault', async () => {
    const faults = verify.newFaults();
    const device = { lost: Promise.resolve({ reason: 'destroyed', message: '' }) };
    const adapter = { requestDevice: async () => device };
    await (await verify.adapterGuard(faults)(Promise.resolve(adapter))).requestDevice();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(verify.takeFault(faults), undefined);
  });

  test('verdicts: the text kept per cache and key is given back as it was, and cleared', async () => {
    // Node has no localStorage or IndexedDB: `persistent` falls back to the session.
    // (What a kept text means, its form, key and age, is the core's to read:
    // KeptVerdict::read, tests/probe.rs.)
    assert.equal(await verify.cachedVerdict('session', 'backend-targets:verify:a'), undefined);
    await verify.keepVerdict('session', 'backend-targets:verify:a', '{"at":1,"verdict":"a"}');
    await verify.keepVerdict('persistent', 'backend-targets:verify:b', 'not even JSON');
    assert.equal(await verify.cachedVerdict('session', 'backend-targets:verify:a'), '{"at":1,"verdict":"a"}');
    assert.equal(await verify.cachedVerdict('persistent', 'backend-targets:verify:b'), 'not even JSON');
    await verify.clearVerdicts();
    assert.equal(await verify.cachedVerdict('session', 'backend-targets:verify:a'), undefined);
    assert.equal(await verify.cachedVerdict('persistent', 'backend-targets:verify:b'), undefined);
  });

  test('clearVerdicts settles when IndexedDB never answers, within its wait, having cleared the rest', async () => {
    const opened = [];
    Object.defineProperty(globalThis, 'indexedDB', { value: { open: (name) => (opened.push(name), {}) }, configurable: true });
    try {
      await verify.keepVerdict('session', 'backend-targets:verify:c', 'kept');
      const started = performance.now();
      await verify.clearVerdicts();
      const took = performance.now() - started;
      assert.deepEqual(opened, ['backend-targets']);
      assert.ok(took >= 900 && took < 3000, `settled after ${took} ms (its wait is 1000 ms)`);
      assert.equal(await verify.cachedVerdict('session', 'backend-targets:verify:c'), undefined);
    } finally {
      delete globalThis.indexedDB;
    }
  });

  test('verdictKey changes with everything that identifies the adapter and browser, and nothing else', () => {
    const adapter = {
      info: { vendor: 'google', architecture: 'swiftshader', device: '', description: 'SwiftShader Device (Subzero)' },
      isFallbackAdapter: true,
      features: ['shader-f16'],
      limits: { maxBindGroups: 4, maxBufferSize: 268435456 },
    };
    const key = verify.verdictKey(adapter, 'f32', 2);
    assert.match(key, /^backend-targets:verify:[0-9a-f]{16}$/);
    assert.equal(verify.verdictKey(structuredClone(adapter), 'f32', 2), key);
    assert.equal(verify.verdictKeyOf(JSON.stringify(adapter), 'f32', 2), key, 'the module\'s side reads the same key');
    const changed = [
      (a) => { a.info.description += '!'; },
      (a) => { a.info.vendor = 'intel'; },
      (a) => { a.isFallbackAdapter = false; },
      (a) => { a.features = []; },
      (a) => { a.limits.maxBufferSize -= 1; },
      (a) => { a.limits.maxTextureDimension1D = 8192; },
    ];
    const keys = new Set([key]);
    for (const change of changed) {
      const other = structuredClone(adapter);
      change(other);
      keys.add(verify.verdictKey(other, 'f32', 2));
    }
    keys.add(verify.verdictKey(adapter, 'f16', 2));
    keys.add(verify.verdictKey(adapter, 'f32', 3));
    assert.equal(keys.size, changed.length + 3, 'every change is another key (the kept form\'s version too)');
    // Texts are kept apart: ("ab", "c") is not ("a", "bc").
    const split = (vendor, architecture) => verify.verdictKey({ ...adapter, info: { ...adapter.info, vendor, architecture } }, 'f32', 2);
    assert.notEqual(split('ab', 'c'), split('a', 'bc'));
  });

  test('verdictKey is the documented hash: FNV-1a (two offset bases) over each text\'s UTF-8 and a 0 byte', () => {
    // One text at a time, as the key is documented; the module hashes the
    // texts joined (one encoding). Non-ASCII, empty texts and numbers included.
    const adapter = {
      info: { vendor: 'vendör', architecture: '', device: '0x1234 💥', description: 'Ünïcode GPU' },
      isFallbackAdapter: false,
      features: ['float32-filterable', 'shader-f16'],
      limits: { maxBindGroups: 4, maxComputeWorkgroupSizeX: 256, maxBufferSize: 268435456 },
    };
    const texts = [...Object.values(adapter.info), 'adapter', ...adapter.features,
      ...Object.entries(adapter.limits).flat(), verify.userAgent(), 'unbundled', 2, 'f16'];
    // ('unbundled': the version scripts/bundle.mjs defines for the package's
    // bundles; 2: the kept verdicts' form, the core's VERDICT_FORMAT.)
    let low = 0x811c9dc5;
    let high = 0x050c5d1f;
    for (const text of texts) {
      for (const byte of [...new TextEncoder().encode(String(text)), 0]) {
        low = Math.imul(low ^ byte, 0x01000193);
        high = Math.imul(high ^ byte, 0x01000193);
      }
    }
    const hex = (n) => (n >>> 0).toString(16).padStart(8, '0');
    assert.equal(verify.verdictKey(adapter, 'f16', 2), `backend-targets:verify:${hex(high)}${hex(low)}`);
  });

  test('warmVerdicts reads the storage and writes nothing; without storage it does nothing', () => {
    const reads = [];
    const writes = [];
    const storage = {
      getItem: (key) => (reads.push(key), null),
      setItem: (...args) => writes.push(args),
      removeItem: (...args) => writes.push(args),
    };
    Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true });
    try {
      verify.warmVerdicts();
      assert.deepEqual(reads, ['backend-targets:verify:']);
      assert.deepEqual(writes, []);
      Object.defineProperty(globalThis, 'localStorage', { get() { throw new Error('sandboxed'); }, configurable: true });
      verify.warmVerdicts();
    } finally {
      delete globalThis.localStorage;
    }
    verify.warmVerdicts();
  });

  test('userAgent is a string everywhere', () => {
    assert.equal(typeof verify.userAgent(), 'string');
  });
});
