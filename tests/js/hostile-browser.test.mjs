// Hostile navigator.gpu (the eight findings below, each a test) in a real headless Chromium:
// each case sets a stand-in with addInitScript before the page loads the
// package (pkg/index.js), then probes. What is checked: detect() and probe()
// settle within timeoutMs (plus a small slack) whatever navigator.gpu does,
// an answer that cannot be read as an adapter is dropped with a reason that
// says so (`adapter-unreadable`), and what detect() answers is plannable by
// plan() with its default limits as it is.
//
// --enable-unsafe-webgpu gives SwiftShader where a case asks the real
// navigator.gpu; the stand-ins answer without it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inPages, launchChromium } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { serve } from './static-server.mjs';

// What a probe may take beyond timeoutMs: timers, the module's own work.
const SLACK_MS = 500;

let server;
let browser;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'pkg', 'index.js')), 'pkg/index.js is missing: run scripts/build.sh first');
  server = await serve(ROOT);
  browser = await launchChromium(['--enable-unsafe-webgpu']);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** `body(arg)` in a fresh page whose `standIn(arg)` ran before any of its
 *  scripts (chromium.mjs's `inPages`); `body` imports the package itself. */
const inPage = async (standIn, body, arg = {}, limitMs = 15_000) =>
  (await inPages(browser, `${server.origin}/pkg/README.md`, standIn, [body], arg, limitMs))[0];

/** In the page: detect(options) after init, timed, and what plan() says of its availability. */
async function detectAndPlan(arg) {
  const m = await import('/pkg/index.js');
  await m.default();
  const started = performance.now();
  const resolution = await m.detect(arg.options);
  const elapsed = performance.now() - started;
  let planned;
  try {
    planned = m.plan({ ops: ['matmul'], availability: resolution.availability }).ok;
  } catch (error) {
    planned = `${error.code}: ${error.message}`;
  }
  return { reason: resolution.probe.reason, message: resolution.probe.message, features: resolution.effective.features,
    info: resolution.probe.adapter?.info, elapsed, planned };
}

/** Sets `navigator.gpu` to `{ requestAdapter }` answering `adapter` (built in
 *  the page from `arg.adapter`, a function's source) after `arg.afterMs`. */
function gpuAnswering(arg) {
  const make = new Function(`return (${arg.adapter})();`);
  const gpu = { requestAdapter: () => new Promise((resolve) => setTimeout(() => resolve(make()), arg.afterMs ?? 0)) };
  Object.defineProperty(Navigator.prototype, 'gpu', { configurable: true, get: () => gpu });
}

test('finding 1: timeoutMs of 2^31 and 2^32 - 1 (valid u32s) wait for an adapter that answers in 300 ms', async () => {
  const standIn = () => {
    const request = GPU.prototype.requestAdapter;
    GPU.prototype.requestAdapter = function requestAdapter(options) {
      return new Promise((resolve) => setTimeout(resolve, 300)).then(() => request.call(this, options));
    };
  };
  for (const timeoutMs of [2 ** 31, 2 ** 32 - 1]) {
    // A power preference: a request of its own, not the one made at evaluation.
    const out = await inPage(standIn, detectAndPlan, { options: { timeoutMs, powerPreference: 'high-performance' } });
    assert.equal(out.reason, 'adapter-available', `${timeoutMs}: ${out.message}`);
    assert.ok(out.elapsed >= 290, `${timeoutMs}: answered after ${out.elapsed} ms`);
    assert.equal(out.planned, true);
  }
});

test('finding 2: the navigator.gpu the page has now is probed, wrapped or replaced after a first probe, or fresh on every read', async () => {
  const body = async () => {
    const m = await import('/pkg/index.js');
    await m.default();
    const reasons = [];
    reasons.push((await m.detect()).probe.reason);
    const real = navigator.gpu;
    // The page wraps it (a polyfill, a tracer): one wrapper.
    const wrapper = { requestAdapter: (options) => real.requestAdapter(options) };
    Object.defineProperty(Navigator.prototype, 'gpu', { configurable: true, get: () => wrapper });
    reasons.push((await m.detect()).probe.reason);
    // A getter that gives a fresh wrapper on every read.
    Object.defineProperty(Navigator.prototype, 'gpu', {
      configurable: true, get: () => ({ requestAdapter: (options) => real.requestAdapter(options) }),
    });
    reasons.push((await m.detect()).probe.reason);
    reasons.push((await m.probe({ verifyDevice: true })).reason);
    return { reasons };
  };
  const out = await inPage(null, body);
  assert.deepEqual(out.reasons, ['adapter-available', 'adapter-available', 'adapter-available', 'adapter-available'],
    JSON.stringify(out));
});

test('finding 3: an answer that cannot be read as an adapter (42, {}, throwing getters) is dropped as adapter-unreadable', async () => {
  const cases = [
    ['42', '() => 42', /answered what cannot be read as a GPUAdapter: it is 42, not an object/],
    ['{}', '() => ({})', /its features are not an object/],
    ['throwing getters', `() => ({ get info() { throw new Error('info'); }, get features() { throw new Error('features'); },
      get limits() { throw new Error('limits'); } })`, /its features cannot be read \(features\)/],
    ['throwing limits', `() => ({ features: new Set(), get limits() { throw new Error('limits'); } })`, /its limits cannot be read \(limits\)/],
  ];
  for (const [what, adapter, message] of cases) {
    const out = await inPage(gpuAnswering, detectAndPlan, { adapter, options: { timeoutMs: 1000 } });
    assert.equal(out.reason, 'adapter-unreadable', `${what}: ${JSON.stringify(out)}`);
    assert.match(out.message, message, what);
    assert.deepEqual(out.features, [], `${what}: webGpu dropped`);
    assert.equal(out.planned, true, what);
  }
});

test('finding 4: a huge adapter.info string is cut, and detect() answers', async () => {
  // 10^8 control characters: JSON.stringify would write 6 * 10^8 (a RangeError).
  const adapter = `() => ({ info: { vendor: '\\u0001'.repeat(1e8), architecture: 'x'.repeat(3e7), description: 'fine' },
    features: new Set(['shader-f16']), limits: { maxBindGroups: 4 } })`;
  const out = await inPage(gpuAnswering, detectAndPlan, { adapter, options: { timeoutMs: 2000 } }, 30_000);
  assert.equal(out.hung, undefined, 'detect() settled');
  assert.equal(out.reason, 'adapter-available', JSON.stringify(out).slice(0, 500));
  assert.equal(out.info.vendor.length, 1022, 'cut to 1,024 bytes with an ellipsis (control characters are one byte)');
  assert.ok(out.info.vendor.endsWith('…'));
  assert.equal(new TextEncoder().encode(out.info.architecture).length, 1024);
  assert.equal(out.info.description, 'fine');
  assert.equal(out.planned, true);
});

test('finding 5: a probe in flight when another call panics settles, within its timeoutMs', async () => {
  const body = async () => {
    // The suites' copy of the package, whose module has the test hooks.
    const m = await import('/pkg-test/index.js');
    await m.default();
    const started = performance.now();
    const waiting = [m.detect({ timeoutMs: 3000 }), m.probe({ timeoutMs: 3000 })];
    try {
      m.__forcePanicForTesting();
    } catch {
      // The panic: the next call gets a fresh instance.
    }
    const [resolution, report] = await Promise.all(waiting);
    return { reasons: [resolution.probe.reason, report.reason], elapsed: performance.now() - started,
      plans: m.plan({ ops: ['add'] }).ok };
  };
  const standIn = (arg) => {
    const gpu = { requestAdapter: () => new Promise((resolve) => setTimeout(() => resolve(null), arg.afterMs)) };
    Object.defineProperty(Navigator.prototype, 'gpu', { configurable: true, get: () => gpu });
  };
  const out = await inPage(standIn, body, { afterMs: 400 });
  assert.equal(out.hung, undefined, 'the probes settled');
  assert.deepEqual(out.reasons, ['no-adapter', 'no-adapter'], JSON.stringify(out));
  assert.ok(out.elapsed < 3000 + SLACK_MS, `${out.elapsed} ms`);
  assert.equal(out.plans, true);
});

test('finding 6: an endless adapter.features is read no further than plan() could use, and the page does not freeze', async () => {
  const adapter = `() => ({ features: { *[Symbol.iterator]() { for (let i = 0; ; i++) yield 'f' + i; } }, limits: {} })`;
  const out = await inPage(gpuAnswering, detectAndPlan, { adapter, options: { timeoutMs: 1000 } }, 10_000);
  assert.equal(out.hung, undefined, 'the page answered');
  assert.equal(out.reason, 'adapter-unreadable');
  assert.match(out.message, /it lists more than 1024 features \(the limit features\)/);
  assert.ok(out.elapsed < 1000 + SLACK_MS, `${out.elapsed} ms`);
  assert.equal(out.planned, true);
});

test('finding 7: what detect() answers is plannable as it is (100,000 features, 100,000 limits, a 5,000-byte limit name)', async () => {
  const cases = [
    `() => ({ features: new Set(Array.from({ length: 100000 }, (_, i) => 'f' + i)), limits: {} })`,
    `() => ({ features: new Set(), limits: Object.fromEntries(Array.from({ length: 100000 }, (_, i) => ['max' + i, i])) })`,
    `() => ({ features: new Set(), limits: { ['m'.repeat(5000)]: 1, maxBindGroups: 4 } })`,
    `() => ({ features: new Set(Array.from({ length: 1024 }, (_, i) => 'f' + i)), limits: { maxBindGroups: 4 } })`,
  ];
  const reasons = [];
  for (const adapter of cases) {
    const out = await inPage(gpuAnswering, detectAndPlan, { adapter, options: { timeoutMs: 2000 } });
    assert.equal(out.planned, true, `${adapter}: ${out.planned}`);
    reasons.push(out.reason);
  }
  assert.deepEqual(reasons, ['adapter-unreadable', 'adapter-unreadable', 'adapter-unreadable', 'adapter-available']);
});

test('finding 8: a feature name with a lone surrogate is named, and said not to be valid text', async () => {
  const adapter = `() => ({ features: new Set(['shader-f16', 'bad\\uD800name']), limits: {} })`;
  const out = await inPage(gpuAnswering, detectAndPlan, { adapter, options: { timeoutMs: 1000 } });
  assert.equal(out.reason, 'adapter-unreadable');
  assert.match(out.message, /the feature listed at index 1, "bad\\ud800name", is not valid Unicode text \(a lone surrogate at UTF-16 index 3\)/);
  assert.doesNotMatch(out.message, /hex escape/);
  assert.equal(out.planned, true);
});

test('detect() and probe() settle within timeoutMs whatever navigator.gpu does', async () => {
  const adapters = {
    'never answers': null,
    'answers after the time': `() => ({ features: new Set(), limits: {} })`,
    'rejects': 'reject',
    'throws': 'throw',
    'a thenable that never settles': 'thenable',
    'an adapter whose requestDevice hangs': `() => ({ features: new Set(), limits: {}, requestDevice: () => new Promise(() => {}) })`,
  };
  const standIn = (arg) => {
    let gpu;
    if (arg.kind === null) gpu = { requestAdapter: () => new Promise(() => {}) };
    else if (arg.kind === 'reject') gpu = { requestAdapter: () => Promise.reject(new Error('no')) };
    else if (arg.kind === 'throw') gpu = { requestAdapter() { throw new Error('no'); } };
    // oxlint-disable-next-line unicorn/no-thenable -- a thenable that never settles is the case
    else if (arg.kind === 'thenable') gpu = { requestAdapter: () => ({ then() {} }) };
    else {
      const make = new Function(`return (${arg.kind})();`);
      gpu = { requestAdapter: () => new Promise((resolve) => setTimeout(() => resolve(make()), arg.afterMs)) };
    }
    Object.defineProperty(Navigator.prototype, 'gpu', { configurable: true, get: () => gpu });
  };
  const body = async (arg) => {
    const m = await import('/pkg/index.js');
    await m.default();
    const started = performance.now();
    const [resolution, report] = await Promise.all([m.detect({ timeoutMs: arg.timeoutMs }),
      m.probe({ timeoutMs: arg.timeoutMs, verifyDevice: true })]);
    return { reasons: [resolution.probe.reason, report.reason], elapsed: performance.now() - started };
  };
  for (const [what, kind] of Object.entries(adapters)) {
    const timeoutMs = 600;
    const afterMs = what === 'answers after the time' ? 5000 : 0;
    const out = await inPage(standIn, body, { kind, timeoutMs, afterMs }, 10_000);
    assert.equal(out.hung, undefined, `${what}: settled`);
    assert.ok(out.elapsed < timeoutMs + SLACK_MS, `${what}: ${out.elapsed} ms (${out.reasons})`);
  }
});

test('a navigator.gpu getter that throws is no WebGPU: every entry imports, and answers no-webgpu-api, verify too', async () => {
  const throwing = () => {
    Object.defineProperty(Navigator.prototype, 'gpu', {
      configurable: true,
      get() {
        throw new Error('stand-in: no gpu for you');
      },
    });
  };
  const body = async (arg) => {
    const m = await import(arg.entry);
    await m.default();
    const out = {};
    for (const [name, options] of [['plain', undefined], ['verify', { verify: true }]]) {
      try {
        out[name] = (await m.detect(options)).probe.reason;
      } catch (error) {
        out[name] = `threw: ${error.message}`;
      }
    }
    try {
      await m.clearVerifications();
      out.cleared = true;
    } catch (error) {
      out.cleared = `threw: ${error.message}`;
    }
    return out;
  };
  for (const entry of ['/pkg/index.js', '/pkg/detect.js', '/pkg/verified.js']) {
    const out = await inPage(throwing, body, { entry });
    assert.deepEqual({ plain: out.plain, verify: out.verify, cleared: out.cleared },
      { plain: 'no-webgpu-api', verify: 'no-webgpu-api', cleared: true }, `${entry}: ${JSON.stringify(out)}`);
    assert.deepEqual(out.pageErrors, [], entry);
  }
});

test('clearVerifications() and detect({ verify }) never reject in a sandboxed iframe, where storage throws SecurityError', async () => {
  // A sandboxed frame has an opaque origin: its module imports are CORS
  // requests (this server allows them), and its IndexedDB and localStorage
  // throw on use.
  const frame = `<script type=module>
    const out = {};
    for (const entry of ['/pkg/index.js', '/pkg/detect.js', '/pkg/verified.js']) {
      try {
        const m = await import(entry);
        if (entry === '/pkg/index.js') await m.default();
        await m.clearVerifications();
        const resolution = await m.detect({ allowFallbackAdapter: true, verify: true });
        out[entry] = { reason: resolution.probe.reason, notKept: resolution.probe.verification?.notKept };
      } catch (error) {
        out[entry] = 'threw ' + error.name + ': ' + error.message;
      }
    }
    parent.postMessage(out, '*');
  </script>`.replaceAll('"', '&quot;');
  const sandboxed = await serve(ROOT, { csp: '', headers: { 'access-control-allow-origin': '*' }, pages: {
    '/sandboxed.html': `<!doctype html><iframe sandbox="allow-scripts" srcdoc="${frame}"></iframe>`,
  } });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      globalThis.__frameSaid = new Promise((resolve) => addEventListener('message', (event) => resolve(event.data)));
    });
    await page.goto(`${sandboxed.origin}/sandboxed.html`);
    const out = await page.evaluate(() => Promise.race([globalThis.__frameSaid,
      new Promise((resolve) => setTimeout(() => resolve('no answer within 20 s'), 20_000))]));
    for (const entry of ['/pkg/index.js', '/pkg/detect.js', '/pkg/verified.js']) {
      assert.ok(['verified', 'slower-than-wasm'].includes(out[entry]?.reason), `${entry}: ${JSON.stringify(out)}`);
    }
    // Nothing could be kept there, and the first verification says so (the
    // later ones are answered from the page's memory).
    assert.match(out['/pkg/index.js'].notKept, /^this origin's storage did not keep the verdict/, JSON.stringify(out));
  } finally {
    await context.close();
    await sandboxed.close();
  }
});
