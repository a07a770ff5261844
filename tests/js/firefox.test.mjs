// The package in a second engine: Debian's headless Firefox ESR, driven by
// puppeteer-core over WebDriver BiDi (tests/js/firefox.mjs), each of its
// WebGPU situations a browser of its own, the pages served from 127.0.0.1
// (a secure context) by the static server:
//
//   none       default prefs: no navigator.gpu; every entry (index.js,
//              detect.js, verified.js) answers no-webgpu-api
//   blocked    dom.webgpu.enabled: the blocklist refuses every adapter
//              (requestAdapter() answers null); every entry answers
//              no-adapter, with verify too
//   lavapipe   the blocklist ignored: Mesa's lavapipe answers as a fallback
//              adapter (every GPUAdapterInfo string empty, shader-f16)
//
// Where there is no adapter, detect.js answers without fetching a .wasm, and
// the very answer of the full module (elapsedMs aside). With lavapipe: the
// fallback adapter is kept, or refused with allowFallbackAdapter: false;
// verify computes the workload right (f32, and f16 through shader-f16) and
// gives a verdict that agrees with ONNX Runtime Web's own times on the same
// adapter; a second page of the same context answers from the cache without
// a device, and clearVerifications() forgets; a module worker gives the
// page's answer; the demo page renders its decision without a page error
// (screenshots at 1280 and 390 px under tests/js/artifacts/); and an adapter
// request that never answers is `timeout` within timeoutMs + budgetMs and
// some slack, from every entry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.mjs';
import { FIREFOX, inPages as pagesAt, launchFirefox, PREFS } from './firefox.mjs';
import { serve } from './static-server.mjs';
import { uncutAndAfter } from './verify-yardstick.mjs';

const ARTIFACTS = join(ROOT, 'tests', 'js', 'artifacts');
const ENTRIES = ['/pkg/index.js', '/pkg/detect.js', '/pkg/verified.js'];
// What an answer may take beyond timeoutMs + budgetMs: timers, the module's own work.
const SLACK_MS = 400;
// How long a page may take to answer before it is called hung: generous, a
// loaded 2-core machine runs lavapipe's shaders on the same cores.
const HANG_MS = 60_000;
// The verification's budget where a verdict is wanted: Firefox resolves a
// buffer map by polling (about every 100 ms), and lavapipe compiles and runs
// on the machine's own cores, so a verification took 400–1,200 ms here:
// past the default 1,000 ms on a loaded machine (verify-timeout, no verdict).
const BUDGET_MS = 10_000;

let server;
before(async () => {
  for (const file of ['pkg/index.js', 'pkg/detect.js', 'pkg/verified.js', 'pkg/detect_bg.wasm']) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run scripts/build.sh first`);
  }
  assert.ok(existsSync(FIREFOX), `${FIREFOX} is missing: install firefox-esr and mesa-vulkan-drivers (scripts/setup.sh)`);
  server = await serve(ROOT);
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => {
  await server?.close();
});

/** One Firefox with `prefs` for the tests of a describe() block, launched
 *  before them and closed after. Returns a getter. */
function firefoxFor(prefs) {
  let browser;
  before(async () => {
    const started = performance.now();
    browser = await launchFirefox(prefs);
    console.log(`Firefox ${await browser.version()} launched in ${Math.round(performance.now() - started)} ms`);
  });
  after(async () => {
    await browser?.close();
  });
  return () => browser;
}

/** A stand-in (run before the page's scripts): records in `window.__fetched`
 *  the path of every fetch(). Needs no WebGPU. */
function recordFetches() {
  window.__fetched = [];
  const original = window.fetch;
  window.fetch = function fetch(input, init) {
    window.__fetched.push(new URL(input instanceof Request ? input.url : String(input), location.href).pathname);
    return original.call(this, input, init);
  };
}

/** A stand-in: counts requestDevice() calls in `globalThis.__devicesAsked`. */
function countDevices() {
  const request = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = function requestDevice(descriptor) {
    globalThis.__devicesAsked = (globalThis.__devicesAsked ?? 0) + 1;
    return request.call(this, descriptor);
  };
}

/**
 * In the page: `detect()` of each entry (`arg.entries`, in order: detect.js
 * first, so that nothing else has fetched a .wasm yet) with each of
 * `arg.options`, as text (elapsedMs taken out, and checked to be a number of
 * whole microseconds), with the paths fetched (fetch() and every resource)
 * once each entry has answered. `init()` is called where the entry needs it
 * (the full package's).
 */
async function entriesInPage(arg) {
  const micro = (value) => typeof value === 'number' && Math.round(value * 1000) / 1000 === value;
  const settle = (promise) => promise.then((value) => {
    const report = value?.probe ?? value;
    if (!micro(report?.elapsedMs)) return `elapsedMs ${report?.elapsedMs}`;
    delete report.elapsedMs;
    return JSON.stringify(value);
  }, (error) => `error ${error?.name}: ${error?.message}`);
  const resources = () => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname);
  const out = { facts: { secure: isSecureContext, gpu: typeof navigator.gpu }, entries: {} };
  for (const entry of arg.entries) {
    globalThis.__stage = `${entry}: import`;
    const m = await import(entry);
    if (entry === '/pkg/index.js') await m.default();
    const answers = [];
    for (const options of arg.options) {
      globalThis.__stage = `${entry}: detect(${JSON.stringify(options)})`;
      answers.push(await settle(m.detect(options)));
    }
    out.entries[entry] = { answers, fetched: [...window.__fetched], resources: resources() };
  }
  return out;
}

const isWasm = (path) => path.endsWith('.wasm');

/** The checks a no-adapter situation shares: every entry answers `reason`,
 *  webGpu dropped; detect.js fetched no .wasm, and answered as the full
 *  package does, text for text. */
function noAdapterChecks(out, reason, options) {
  assert.ok(!out.threw && !out.hung, JSON.stringify(out));
  assert.deepEqual(out.pageErrors, []);
  for (const entry of ENTRIES) {
    const { answers } = out.entries[entry];
    assert.equal(answers.length, options.length);
    answers.forEach((text, i) => {
      assert.ok(!text.startsWith('error') && !text.startsWith('elapsedMs'), `${entry} detect(${JSON.stringify(options[i])}): ${text}`);
      const resolution = JSON.parse(text);
      assert.equal(resolution.probe.reason, reason, `${entry} detect(${JSON.stringify(options[i])})`);
      assert.equal(resolution.probe.available, false);
      assert.equal(resolution.probe.verification, undefined, 'nothing to verify without an adapter');
      assert.deepEqual(resolution.changes[0], { ...resolution.changes[0], feature: 'webGpu', action: 'dropped', reason });
      assert.ok(!resolution.effective.features.includes('webGpu'));
    });
  }
  const detectOnly = out.entries['/pkg/detect.js'];
  assert.deepEqual(detectOnly.fetched.filter(isWasm), [], 'detect.js fetched no .wasm');
  assert.deepEqual(detectOnly.resources.filter(isWasm), [], 'detect.js loaded no .wasm');
  assert.ok(!detectOnly.resources.some((path) => path.startsWith('/pkg/verified')), 'nor the verification module');
  assert.deepEqual(detectOnly.answers, out.entries['/pkg/index.js'].answers, "detect.js's answers and the full package's");
  assert.deepEqual(out.entries['/pkg/verified.js'].answers, out.entries['/pkg/index.js'].answers,
    "the verification entry's answers and the full package's");
}

describe('Firefox, default prefs (no WebGPU API)', () => {
  const browser = firefoxFor(PREFS.none);

  test('every entry answers no-webgpu-api; detect.js fetches no .wasm and answers as the full package', async () => {
    const options = [undefined, { timeoutMs: 500 }, { allowFallbackAdapter: false, verify: true }];
    const before = server.requests.length;
    const [out] = await pagesAt(browser(), `${server.origin}/pkg/README.md`, recordFetches, [entriesInPage],
      { entries: ['/pkg/detect.js', '/pkg/index.js', '/pkg/verified.js'], options }, HANG_MS);
    assert.deepEqual(out.facts, { secure: true, gpu: 'undefined' }, 'the situation: a secure context without navigator.gpu');
    noAdapterChecks(out, 'no-webgpu-api', options);
    // The server's view: the full package's .wasm, requested once it was imported.
    const requested = server.requests.slice(before).map((request) => request.path);
    assert.ok(requested.includes('/pkg/backend_targets_bg.wasm'), `${requested}`);
    assert.ok(!requested.includes('/pkg/detect_bg.wasm'), `${requested}`);
  });
});

describe('Firefox, dom.webgpu.enabled (the blocklist: a null adapter)', () => {
  const browser = firefoxFor(PREFS.blocked);

  test('every entry answers no-adapter, with verify too; detect.js fetches no .wasm and answers as the full package', async () => {
    const options = [undefined, { timeoutMs: 500 }, { verify: true }, { allowFallbackAdapter: false, verify: true }];
    const before = server.requests.length;
    const [out] = await pagesAt(browser(), `${server.origin}/pkg/README.md`, recordFetches, [entriesInPage],
      { entries: ['/pkg/detect.js', '/pkg/index.js', '/pkg/verified.js'], options }, HANG_MS);
    assert.deepEqual(out.facts, { secure: true, gpu: 'object' }, 'the situation: navigator.gpu, in a secure context');
    noAdapterChecks(out, 'no-adapter', options);
    const requested = server.requests.slice(before).map((request) => request.path);
    assert.ok(!requested.includes('/pkg/detect_bg.wasm'), `${requested}`);
  });
});

describe('Firefox with lavapipe (dom.webgpu.enabled, gfx.webgpu.ignore-blocklist)', () => {
  const browser = firefoxFor(PREFS.lavapipe);
  const url = () => `${server.origin}/pkg/README.md`;
  const inPages = (standIn, bodies, arg, limitMs = HANG_MS) => pagesAt(browser(), url(), standIn, bodies, arg, limitMs);
  const inPage = async (standIn, body, arg, limitMs) => (await inPages(standIn, [body], arg, limitMs))[0];

  /** In the page: the full package's detect(arg.options) after init, timed,
   *  with how many devices were asked for. */
  async function verifyInPage(arg) {
    const m = await import('/pkg/index.js');
    await m.default();
    globalThis.__stage = `detect(${JSON.stringify(arg.options)})`;
    const started = performance.now();
    const resolution = await m.detect(arg.options);
    const elapsed = performance.now() - started;
    return {
      reason: resolution.probe.reason, message: resolution.probe.message, available: resolution.probe.available,
      adapter: resolution.probe.adapter, verification: resolution.probe.verification,
      features: resolution.effective.features, change: resolution.changes[0], elapsed,
      devices: globalThis.__devicesAsked ?? 0,
    };
  }

  const verdictChecks = (out, checked) => {
    assert.ok(!out.threw && !out.hung, JSON.stringify(out));
    const v = out.verification;
    console.log(`lavapipe, ${checked.at(-1)} asked: verdict ${out.reason}, checked ${v?.checked}, gpu ${v?.gpuMs} ms against `
      + `wasm ${v?.wasmMs} ms a pass (ratio ${v?.ratio}, margin ${v?.margin}), largest error ${v?.maxError} `
      + `(tolerance ${v?.tolerance}), verified in ${v?.elapsedMs} ms of a budget of ${v?.budgetMs}`);
    assert.ok(['verified', 'slower-than-wasm'].includes(out.reason), JSON.stringify(out));
    assert.deepEqual(v.checked, checked, JSON.stringify(v));
    assert.ok(v.maxError <= v.tolerance, JSON.stringify(v));
    assert.ok(v.gpuMs > 0 && v.wasmMs > 0 && v.ratio > 0, JSON.stringify(v));
    assert.equal(v.cached, false);
    assert.equal(out.change.action, out.reason === 'verified' ? 'kept' : 'dropped');
    assert.equal(out.change.reason, out.reason);
    assert.equal(out.features.includes('webGpu'), out.reason === 'verified');
    assert.deepEqual(out.pageErrors, []);
  };

  test('detect(): the fallback adapter answers, kept by default, refused with allowFallbackAdapter: false', async () => {
    const kept = await inPage(countDevices, verifyInPage, { options: undefined });
    const refused = await inPage(countDevices, verifyInPage, { options: { allowFallbackAdapter: false } });
    assert.ok(!kept.threw && !kept.hung, JSON.stringify(kept));
    assert.equal(kept.reason, 'adapter-available', JSON.stringify(kept));
    assert.equal(kept.available, true);
    assert.equal(kept.adapter.isFallbackAdapter, true, JSON.stringify(kept.adapter));
    assert.ok(kept.adapter.features.includes('shader-f16'), JSON.stringify(kept.adapter.features));
    assert.ok(kept.features.includes('webGpu'));
    assert.equal(kept.change.action, 'kept');
    assert.equal(kept.devices, 0, 'detect() without verify creates no device');

    assert.ok(!refused.threw && !refused.hung, JSON.stringify(refused));
    assert.equal(refused.reason, 'fallback-adapter', JSON.stringify(refused));
    assert.equal(refused.available, false);
    assert.deepEqual(refused.change, { ...refused.change, feature: 'webGpu', action: 'dropped', reason: 'fallback-adapter' });
    assert.ok(!refused.features.includes('webGpu'));
    assert.deepEqual([kept.pageErrors, refused.pageErrors], [[], []]);
  });

  test('verify: the workload computed right on lavapipe, f32, then f16 through shader-f16, and a verdict', async () => {
    const verify = { cache: 'none', budgetMs: BUDGET_MS };
    const f32 = await inPage(countDevices, verifyInPage, { options: { allowFallbackAdapter: true, verify } });
    verdictChecks(f32, ['f32']);
    assert.equal(f32.devices, 1);
    const f16 = await inPage(countDevices, verifyInPage,
      { options: { allowFallbackAdapter: true, verify: { ...verify, precision: 'f16' } } });
    verdictChecks(f16, ['f32', 'f16']);
    assert.equal(f16.devices, 1);
  });

  test('the cache: a second page answers from it without a device; clearVerifications() makes a third verify again', async () => {
    // Page 3: the kept verdict first (still there), then cleared, then verified afresh.
    const clearThenVerify = async (arg) => {
      const m = await import('/pkg/index.js');
      await m.default();
      const kept = await m.detect(arg.options);
      const devicesKept = globalThis.__devicesAsked ?? 0;
      await m.clearVerifications();
      const again = await m.detect(arg.options);
      return {
        kept: kept.probe.verification, devicesKept, reason: again.probe.reason, verification: again.probe.verification,
        devices: globalThis.__devicesAsked ?? 0,
      };
    };
    // (verify: true but for the budget, which is no part of the cache's key.)
    const options = { allowFallbackAdapter: true, verify: { budgetMs: BUDGET_MS } };
    const [first, second, third] = await inPages(countDevices, [verifyInPage, verifyInPage, clearThenVerify], { options });
    for (const page of [first, second, third]) assert.ok(!page.threw && !page.hung, JSON.stringify(page));
    assert.ok(['verified', 'slower-than-wasm'].includes(first.reason), `a verdict that is kept: ${JSON.stringify(first)}`);
    assert.equal(first.verification.cached, false, JSON.stringify(first.verification));
    assert.equal(first.devices, 1);
    assert.equal(second.verification.cached, true, JSON.stringify(second.verification));
    assert.equal(second.devices, 0, 'a cached verdict creates no device');
    assert.equal(second.reason, first.reason);
    assert.equal(second.verification.adapterKey, first.verification.adapterKey);
    assert.equal(second.verification.gpuMs, first.verification.gpuMs);
    assert.equal(third.kept.cached, true, 'still kept in page 3 before clearVerifications()');
    assert.equal(third.devicesKept, 0);
    assert.equal(third.verification.cached, false, JSON.stringify(third.verification));
    assert.equal(third.devices, 1, 'verified again: one device');
    assert.deepEqual([first.pageErrors, second.pageErrors, third.pageErrors], [[], [], []]);
  });

  test('a module worker (www/worker.js: index.js, init(), detect()) gives the page its answer', async () => {
    const body = async () => {
      const m = await import('/pkg/index.js');
      await m.default();
      const options = { allowFallbackAdapter: true };
      const page = await m.detect(options);
      globalThis.__stage = 'the worker';
      const worker = new Worker('/www/worker.js', { type: 'module' });
      const answer = await new Promise((resolve) => {
        worker.addEventListener('message', ({ data }) => resolve(data));
        worker.addEventListener('error', (event) => resolve({ ok: false, error: `worker error: ${event.message}` }));
        worker.postMessage({ options });
      });
      worker.terminate();
      return { page, answer };
    };
    const out = await inPage(null, body);
    assert.ok(!out.threw && !out.hung, JSON.stringify(out));
    assert.ok(out.answer.ok, JSON.stringify(out.answer));
    const { page, answer: { resolution: worker } } = out;
    console.log(`a module worker: ${worker.probe.reason} in ${worker.probe.elapsedMs} ms; the page: ${page.probe.reason} `
      + `in ${page.probe.elapsedMs} ms`);
    assert.equal(page.probe.reason, 'adapter-available', JSON.stringify(page.probe));
    assert.equal(worker.probe.reason, page.probe.reason, JSON.stringify(worker.probe));
    assert.equal(worker.probe.adapter?.isFallbackAdapter, true);
    assert.deepEqual(out.pageErrors, []);
  });

  test('the verdict agrees with ONNX Runtime Web measured on the same adapter', async () => {
    const body = async (arg) => {
      globalThis.__stage = 'init';
      const m = await import('/pkg/index.js');
      await m.default();
      globalThis.__stage = 'detect({ verify })';
      const resolution = await m.detect({ allowFallbackAdapter: true, verify: { cache: 'none', budgetMs: arg.budgetMs } });
      // ONNX Runtime Web's own times for the example model, both EPs, warm
      // (the function the example page shows them with; it sets __stage too).
      globalThis.__stage = 'ONNX Runtime Web';
      const { ortTimes } = await import('/www/onnx/ort-times.js');
      const times = await ortTimes('/www/onnx/tiny.onnx', [2, 1, 1, 1]);
      return { reason: resolution.probe.reason, message: resolution.probe.message, verification: resolution.probe.verification,
        change: resolution.changes[0], times };
    };
    const out = await inPage(null, body, { budgetMs: BUDGET_MS }, 120_000);
    assert.ok(!out.hung && !out.threw, JSON.stringify(out));
    const v = out.verification;
    assert.ok(v, out.message);
    console.log(`lavapipe: verdict ${out.reason}, gpu ${v.gpuMs} ms against wasm ${v.wasmMs} ms a pass (ratio ${v.ratio}), `
      + `verified in ${v.elapsedMs} ms; ONNX Runtime Web: webgpu ${out.times.webgpu.toFixed(2)} ms, `
      + `wasm ${out.times.wasm.toFixed(2)} ms a run`);
    const ortSlower = out.times.webgpu > out.times.wasm;
    assert.equal(out.reason, ortSlower ? 'slower-than-wasm' : 'verified', JSON.stringify(out));
    assert.deepEqual(v.checked, ['f32']);
    assert.ok(v.maxError <= v.tolerance, JSON.stringify(v));
    assert.ok(v.gpuMs > 0 && v.wasmMs > 0, JSON.stringify(v));
    assert.equal(out.change.reason, out.reason);
    assert.deepEqual(out.pageErrors, []);
  });

  test('the demo page (www/) renders its decision without a page error, at 1280 and 390 px', async () => {
    const context = await browser().createBrowserContext();
    try {
      for (const width of [1280, 390]) {
        const page = await context.newPage();
        const errors = [];
        const logged = [];
        page.on('pageerror', (error) => errors.push(error.message));
        page.on('console', (message) => {
          if (['error', 'warn', 'warning'].includes(message.type())) logged.push(`${message.type()}: ${message.text()}`);
        });
        await page.setViewport({ width, height: 900 });
        const response = await page.goto(`${server.origin}/www/`);
        assert.equal(response.status(), 200);
        await page.waitForFunction(() => document.body.dataset.ready, { timeout: HANG_MS });
        const state = await page.evaluate(() => ({
          ready: document.body.dataset.ready, workerReady: document.body.dataset.workerReady,
          decision: document.body.dataset.decision, status: document.getElementById('status').textContent,
          width: document.documentElement.clientWidth, scrollWidth: document.documentElement.scrollWidth,
          badge: document.querySelector('.probe-badge')?.textContent,
          okBadges: [...document.querySelectorAll('.badge-ok')].map((badge) => badge.textContent),
          workerLine: document.querySelector('.worker-line')?.textContent ?? '',
        }));
        const shot = join(ARTIFACTS, `firefox-demo-${width}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        console.log(`the demo at ${width} px: ${state.status} (${shot}); console: ${JSON.stringify(logged)}`);
        assert.equal(state.ready, 'true', `${state.status}; ${errors}`);
        assert.equal(state.workerReady, 'true');
        // The recipes' decision (allowFallbackAdapter: false, verify: true): lavapipe refused.
        assert.equal(state.decision, 'wasm');
        assert.match(state.status, /^Use wasm — fallback-adapter: /);
        // lavapipe is a software adapter: never shown as "WebGPU available"
        // under that decision, and the worker's line agrees with it.
        assert.match(state.badge, /software adapter/, JSON.stringify(state));
        assert.ok(!state.okBadges.some((text) => /WebGPU available|use webgpu/i.test(text)), JSON.stringify(state.okBadges));
        assert.match(state.workerLine, /use wasm/, state.workerLine);
        assert.match(state.workerLine, /the same decision as the page/, state.workerLine);
        assert.doesNotMatch(state.workerLine, /kept/, state.workerLine);
        // (Firefox's scrollbar takes 12 px of the viewport's width.)
        assert.ok(state.width <= width && state.width > width - 20, `${state.width} px of ${width}`);
        assert.ok(state.scrollWidth <= state.width, `nothing past the viewport: ${state.scrollWidth} px wide at ${state.width}`);
        assert.deepEqual(errors, []);
        await page.close();
      }
    } finally {
      await context.close();
    }
  });

  test('honest figures: gpuMs is a measurement (within 2× of the workload timed uncut), on a 1 ms clock, and no work is left queued', async () => {
    const options = { allowFallbackAdapter: true, verify: { cache: 'none', budgetMs: BUDGET_MS } };
    const out = await inPage(null, uncutAndAfter, { options });
    assert.ok(!out.hung && !out.threw, JSON.stringify(out));
    const v = out.verification;
    console.log(`lavapipe: gpuMs ${v.gpuMs} (uncut ${out.uncutRange.map((ms) => ms.toFixed(1)).join('-')} ms a pass, `
      + `${out.passes} a readback), wasmMs ${v.wasmMs} on a ${v.timerResolutionMs} ms clock, ${out.reason}; `
      + `a plain detect() ${out.plainBefore.toFixed(1)} ms before the verification, ${out.plainAfter.toFixed(1)} ms after`);
    assert.ok(v.gpuMs > 0 && v.gpuMsMoreThan === undefined, JSON.stringify(v));
    const [fastest, slowest] = out.uncutRange;
    assert.ok(v.gpuMs >= fastest / 2 && v.gpuMs <= slowest * 2, `gpuMs ${v.gpuMs} against ${out.uncutRange} uncut`);
    // Firefox's performance.now() moves in whole milliseconds: the reference
    // was repeated to span 20 of them, so wasmMs is no whole-millisecond step.
    assert.equal(v.timerResolutionMs, 1, JSON.stringify(v));
    assert.ok(v.wasmMs > 0, JSON.stringify(v));
    assert.ok(out.plainAfter < Math.max(150, 3 * out.plainBefore), `${out.plainAfter} ms after, ${out.plainBefore} ms before`);
  });

  test('a buffer map that never settles: verify-timeout at the budget, counted from the probe\'s answer', async () => {
    const never = () => {
      GPUBuffer.prototype.mapAsync = function mapAsync() {
        return new Promise(() => {});
      };
    };
    const body = async () => {
      const m = await import('/pkg/index.js');
      await m.default();
      const started = performance.now();
      const resolution = await m.detect({ allowFallbackAdapter: true, verify: { cache: 'none', budgetMs: 1000 } });
      return { elapsed: performance.now() - started, reason: resolution.probe.reason };
    };
    const out = await inPage(never, body, {});
    assert.equal(out.reason, 'verify-timeout', JSON.stringify(out));
    assert.ok(out.elapsed <= 1000 + SLACK_MS + 100, `answered after ${out.elapsed} ms (budget 1000)`);
  });

  test('an adapter request that never answers: timeout within timeoutMs + budgetMs + slack, from every entry', async () => {
    const never = () => {
      GPU.prototype.requestAdapter = function requestAdapter() {
        return new Promise(() => {});
      };
    };
    const body = async (arg) => {
      const m = await import(arg.entry);
      if (arg.entry === '/pkg/index.js') await m.default();
      globalThis.__stage = `${arg.entry}: detect()`;
      const started = performance.now();
      const resolution = await m.detect(arg.options);
      return { elapsed: performance.now() - started, reason: resolution.probe.reason, elapsedMs: resolution.probe.elapsedMs };
    };
    const options = { timeoutMs: 500, verify: { budgetMs: 100 } };
    const bound = options.timeoutMs + options.verify.budgetMs + SLACK_MS;
    const seen = [];
    for (const entry of ENTRIES) {
      const out = await inPage(never, body, { entry, options });
      assert.ok(!out.threw && !out.hung, `${entry}: ${JSON.stringify(out)}`);
      seen.push(`${entry} ${out.reason} in ${out.elapsed} ms (elapsedMs ${out.elapsedMs})`);
      console.log(`requestAdapter() never answers: ${seen.at(-1)}`);
      assert.equal(out.reason, 'timeout', entry);
      assert.ok(out.elapsed >= options.timeoutMs - 10, `${entry}: answered before timeoutMs: ${out.elapsed} ms`);
      assert.deepEqual(out.pageErrors, [], entry);
    }
    for (const line of seen) {
      const elapsed = Number(line.match(/in ([\d.]+) ms/)[1]);
      assert.ok(elapsed <= bound, `within ${bound} ms: ${line}`);
    }
  });
});
