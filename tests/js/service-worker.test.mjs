// The package in a module service worker (tests/js/fixtures/service-worker.js),
// in headless Chromium with SwiftShader (--enable-unsafe-webgpu), where
// `import()` is refused: `detect({ verify })` never throws from any entry.
// The verification entry (`backend-targets/verify`, imported statically)
// verifies there; the full and detect-only entries, which load it on demand,
// answer `verify-failed` with why (WebGPU not kept, nothing kept, tried
// again on the next call), and a software adapter the options refuse is
// answered as the probe answers it. A verdict the verification entry kept
// in the service worker's IndexedDB answers the full entry there too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { serve } from './static-server.mjs';

let server;
let browser;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'pkg', 'verified.js')), 'pkg/ is missing: run scripts/build.sh first');
  server = await serve(ROOT);
  browser = await launchChromium(['--enable-unsafe-webgpu']);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** In a fresh context, registers the fixture's service worker and asks it
 *  each of `asks` (`{ entry, options }`), one after another. */
async function inServiceWorker(asks) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.origin}/pkg/README.md`);
    return await page.evaluate(async (questions) => {
      const registration = await navigator.serviceWorker.register('/tests/js/fixtures/service-worker.js',
        { type: 'module', scope: '/tests/js/fixtures/' });
      const worker = registration.installing ?? registration.waiting ?? registration.active;
      if (worker.state !== 'activated') {
        await new Promise((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
      }
      const answers = [];
      for (const question of questions) {
        const channel = new MessageChannel();
        const answered = new Promise((resolve) => { channel.port1.onmessage = ({ data }) => resolve(data); });
        worker.postMessage(question, [channel.port2]);
        answers.push(await Promise.race([answered, new Promise((resolve) => setTimeout(() => resolve({ hung: true }), 20_000))]));
      }
      return answers;
    }, asks);
  } finally {
    await context.close();
  }
}

const VERIFY = { allowFallbackAdapter: true, verify: { cache: 'none' } };

test('a service worker: the verification entry verifies; the others answer verify-failed, saying why, never throwing', async () => {
  const [gpu, fullFirst, fullAgain, detectOnly, verified, refused] = await inServiceWorker([
    { entry: 'gpu' },
    { entry: 'full', options: VERIFY },
    { entry: 'full', options: VERIFY },
    { entry: 'detectOnly', options: VERIFY },
    { entry: 'verified', options: VERIFY },
    { entry: 'detectOnly', options: { allowFallbackAdapter: false, verify: true } },
  ]);
  assert.deepEqual(gpu, { gpu: true, adapter: true }, 'Chromium gives a service worker WebGPU and SwiftShader');
  for (const [name, answer] of [['full', fullFirst], ['full, again', fullAgain], ['detect-only', detectOnly]]) {
    assert.equal(answer.error, undefined, `${name}: ${answer.error}`);
    const { probe, effective, changes } = answer.resolution;
    assert.equal(probe.reason, 'verify-failed', `${name}: ${JSON.stringify(probe)}`);
    assert.equal(probe.available, false, name);
    assert.deepEqual(effective.features, [], `${name}: WebGPU not kept unverified`);
    assert.equal(probe.verification, undefined, `${name}: no figures where nothing was measured`);
    assert.ok(probe.adapter?.isFallbackAdapter, `${name}: the adapter is still reported`);
    // The runtime's own reason, and what to do, in the answer.
    assert.match(probe.message, /not verified: the verification's module could not be loaded \(TypeError: .*import\(\).*ServiceWorkerGlobalScope/, name);
    assert.match(probe.message, /import backend-targets\/verify/, name);
    assert.equal(changes[0].reason, 'verify-failed', name);
    assert.equal(changes[0].detail, probe.message, name);
  }
  // The verification entry, imported statically, verifies there: on
  // SwiftShader, measured slower than WebAssembly.
  assert.equal(verified.error, undefined, verified.error);
  assert.ok(['verified', 'slower-than-wasm'].includes(verified.resolution.probe.reason), JSON.stringify(verified.resolution.probe));
  assert.equal(typeof verified.resolution.probe.verification?.wasmMs, 'number');
  // A software adapter the options refuse needs no verification: the probe's answer.
  assert.equal(refused.resolution?.probe.reason, 'fallback-adapter', JSON.stringify(refused));
});

test('a service worker: a verdict the verification entry kept answers the full entry there', async () => {
  const options = { allowFallbackAdapter: true, verify: true };
  const [kept, full] = await inServiceWorker([{ entry: 'verified', options }, { entry: 'full', options }]);
  assert.equal(kept.error, undefined, kept.error);
  const verdict = kept.resolution.probe;
  assert.ok(['verified', 'slower-than-wasm', 'wrong-results'].includes(verdict.reason), JSON.stringify(verdict));
  assert.equal(verdict.verification.cached, false);
  assert.equal(full.error, undefined, full.error);
  assert.equal(full.resolution.probe.reason, verdict.reason, JSON.stringify(full.resolution.probe));
  assert.equal(full.resolution.probe.verification?.cached, true, 'from the IndexedDB the verification entry wrote');
  assert.equal(full.resolution.probe.verification.adapterKey, verdict.verification.adapterKey);
});
