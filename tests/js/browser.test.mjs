// The WebGPU probe in a real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core; no stand-in for navigator.gpu), through the demo
// page www/ served with its Content-Security-Policy by a local static server:
//
//   --enable-unsafe-webgpu   SwiftShader answers: webGpu kept (adapter-available)
//   default flags            navigator.gpu exists, requestAdapter() answers null: dropped (no-adapter)
//   insecure context         a hostname mapped to 127.0.0.1 over plain http: no navigator.gpu,
//                            dropped (no-webgpu-api), and the page still works
//
// In each, the page must open with the decision an inference app makes (the
// recipes' detect({ allowFallbackAdapter: false, verify: true })) drawn as a
// flow, API → adapter → software? → limits/features → verified? → choice,
// stopped where that situation stops it, and draw the plan as an ops ×
// configs grid, both inside the viewport; the probe's badge must agree with
// that decision (never a green "WebGPU available" over "use wasm"); a module
// worker (www/worker.js) must make the page's decision, and its line say so;
// the page must load with no console error or
// warning, no failed or foreign request and no CSP violation, its planner
// must plan for inference (vjpMode none) and say what device wasm is, and a
// full-page screenshot at 1280 px is saved under tests/js/artifacts/. With the kept adapter, plan-time gating is
// checked against the real adapter's features and limits, and the switch to
// training.
//
// At a 390 px phone's width (demo-phone.png, demo-phone-dark.png): nothing
// past the viewport, no box that scrolls or clips its content sideways, the
// flow (a step under another) and the grid inside it, every table cell on
// screen beside its column's name, and JSON wrapped between tokens, never
// inside a word; at 320, 768, 1024 and 1180 px, nothing past the viewport or
// hidden sideways either, the flow and the grid included.
//
// The two outcomes a browser cannot produce on demand (a requestAdapter() that
// never answers, one that throws) are simulated in tests/probe_browser.rs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordRequests, withChromium as withBrowser } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { CSP, serve } from './static-server.mjs';

const ARTIFACTS = join(ROOT, 'tests', 'js', 'artifacts');
const INSECURE_HOST = 'bt.test';
// Chromium's own warning when requestAdapter() answers null (once for the
// direct request, once for wgpu's): expected with default flags, nowhere else.
const NO_ADAPTER_WARNING = /^No available adapters\.$/;

let server;
before(async () => {
  for (const file of ['pkg/index.js', 'pkg/backend_targets_bg.wasm']) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run scripts/build.sh first`);
  }
  server = await serve(ROOT);
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => {
  await server?.close();
});

/** A fresh headless Chromium at the size the screenshots are taken at. */
const withChromium = (extraArgs, fn) => withBrowser(extraArgs, fn, { viewport: { width: 1280, height: 900 } });

/**
 * Opens the demo page at `origin` and waits until it (and its worker) is done.
 * Returns the page, every problem seen while loading it, and the two resolutions.
 */
async function openDemo(context, origin, { allowedWarnings = [] } = {}) {
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  const allowedWarningsSeen = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const text = message.text();
    if (message.type() === 'warning' && allowedWarnings.some((re) => re.test(text))) allowedWarningsSeen.push(text);
    else problems.push(`console ${message.type()}: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const requested = [];
  page.on('request', (request) => {
    const url = request.url();
    requested.push(new URL(url).pathname);
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) problems.push(`request outside the origin: ${url}`);
  });
  // Counted by the page itself, in case a violation is not logged.
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const response = await page.goto(`${origin}/www/`);
  assert.equal(response.status(), 200);
  try {
    await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.workerReady, null,
      { timeout: 20_000 });
  } catch (error) {
    const state = await page.evaluate(() => `${JSON.stringify(document.body.dataset)} ${document.getElementById('status')?.textContent}`);
    throw new Error(`the demo page did not finish: ${state}; problems: ${problems.join('; ')}`, { cause: error });
  }
  const state = await page.evaluate(() => ({
    ready: document.body.dataset.ready,
    workerReady: document.body.dataset.workerReady,
    resolution: document.getElementById('resolution').textContent,
    worker: document.getElementById('worker-resolution')?.textContent ?? null,
    decision: document.getElementById('decision-resolution')?.textContent ?? null,
    workerText: document.getElementById('worker').textContent,
    cspViolations: window.__cspViolations,
  }));
  assert.equal(state.ready, 'true', `the demo page failed: ${problems.join('; ')}`);
  assert.equal(state.workerReady, 'true', `the worker failed: ${state.workerText}`);
  return {
    page,
    problems,
    requested,
    allowedWarningsSeen,
    cspViolations: state.cspViolations,
    cspHeader: response.headers()['content-security-policy'],
    resolution: JSON.parse(state.resolution),
    workerResolution: JSON.parse(state.worker),
    // The recipes' decision, as the page made it (null where the page shows none).
    decision: JSON.parse(state.decision ?? 'null'),
  };
}

/** A resolution without its timing. */
function withoutTiming(resolution) {
  const copy = structuredClone(resolution);
  delete copy.probe.elapsedMs;
  return copy;
}

const FLOW = ['api', 'adapter', 'software', 'limits', 'verified', 'choice'];

/** The decision drawn as a flow, first on the page: every step before
 *  `stoppedAt` passed, that one failed with `reason`, the rest not reached,
 *  and the choice `use`; then the plan as an ops × configs grid. Both inside
 *  the viewport, whatever its width. */
async function flowAndGridChecks(t, demo, { reason, stoppedAt, use }) {
  const { page } = demo;
  await t.test(`the decision comes first, drawn as a flow: ${stoppedAt ?? 'every step'} → use ${use}`, async () => {
    const firstSection = await page.evaluate(() => document.querySelector('main > section')?.id);
    assert.equal(firstSection, 'decision-section');
    const steps = await page.locator('#flow > li').evaluateAll((items) => items.map((li) => [li.dataset.step, li.dataset.state]));
    const at = FLOW.indexOf(stoppedAt);
    assert.deepEqual(steps, FLOW.map((step, i) => [step,
      step === 'choice' ? 'choice' : stoppedAt === undefined || i < at ? 'pass' : i === at ? 'fail' : 'skip']));
    assert.equal(await page.evaluate(() => document.body.dataset.decision), use);
    assert.equal((await page.locator('#flow .flow-use').textContent()).trim(), `use ${use}`);
    if (stoppedAt) assert.match(await page.locator(`#flow [data-step="${stoppedAt}"]`).textContent(), new RegExp(reason));
    assert.match(await page.locator('#decision .decision-badge').textContent(), use === 'webgpu' ? /^use webgpu$/ : new RegExp(`^use wasm: ${reason}$`));
    assert.match(await page.locator('#status').textContent(), new RegExp(`^Use ${use} — ${reason}: `));
    const providers = use === 'webgpu' ? '["webgpu","wasm"]' : '["wasm"]';
    const choice = await page.locator('#flow [data-step="choice"]').textContent();
    assert.ok(choice.includes(`ONNX Runtime Web: ${providers}`), choice);
  });

  await t.test('the plan is drawn as an ops × configs grid, the chosen capsule of each op marked', async () => {
    const request = JSON.parse(await page.locator('#plan-request').textContent());
    const grid = await page.evaluate(() => {
      const el = document.getElementById('plan-grid');
      const rows = [...el.querySelectorAll('[role="row"]:not(.grid-head)')];
      return {
        columns: el.querySelectorAll('[role="columnheader"]').length,
        ops: rows.map((row) => row.querySelector('[role="rowheader"]').textContent),
        cells: rows.map((row) => [...row.querySelectorAll('[role="cell"]')].map((cell) => cell.dataset.state)),
        chosen: rows.map((row) => row.querySelector('.grid-chosen code')?.textContent ?? null),
      };
    });
    assert.equal(grid.columns, 1 + request.configs.length);
    assert.deepEqual(grid.ops, request.ops);
    for (const cells of grid.cells) assert.equal(cells.length, request.configs.length);
    // The kernels table and the grid agree: each op's chosen capsule.
    const kernels = await page.locator('#plan table.kernels tbody tr').evaluateAll((rows) => rows.map((row) => row.cells[2].textContent));
    assert.deepEqual(grid.chosen, kernels);
  });

  await t.test('the flow and the grid fit the viewport', async () => {
    assert.deepEqual(await page.evaluate(fitsViewport), []);
  });
}

/** Each step of the flow and each cell of the grid: shown, and inside the viewport. */
function fitsViewport() {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const boxes = [...document.querySelectorAll('#flow > li, #flow > li *, #plan-grid [role], #plan-grid [role] *')];
  if (boxes.length < 20) problems.push(`only ${boxes.length} boxes`);
  for (const el of boxes) {
    const box = el.getBoundingClientRect();
    if (el.matches('#flow > li, #plan-grid [role="cell"]') && (box.width === 0 || box.height === 0)) problems.push(`${el.className}: not shown`);
    if (box.width > 0 && (box.left < -0.5 || box.right > width + 0.5)) {
      problems.push(`${el.tagName.toLowerCase()}.${el.className} at ${Math.round(box.left)}–${Math.round(box.right)} px of ${width}: ${el.textContent.slice(0, 30)}`);
    }
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) problems.push(`${el.className} hides ${el.scrollWidth - el.clientWidth} px sideways`);
  }
  return problems;
}

/** The checks every situation shares: a clean load under the CSP, a plan, the worker's answer. */
async function commonChecks(t, demo, screenshot, decision) {
  await flowAndGridChecks(t, demo, decision);

  await t.test('the page loads with no console error or warning, no failed or foreign request, under the CSP', async () => {
    assert.deepEqual(demo.problems, []);
    assert.deepEqual(demo.cspViolations, []);
    assert.equal(demo.cspHeader, CSP);
    const meta = await demo.page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.equal(meta, CSP);
    // The policy is in force: an inline script element is refused (scripts
    // evaluated through DevTools are exempt, so the page must insert it), while
    // the WebAssembly module compiled thanks to 'wasm-unsafe-eval'.
    const inline = await demo.page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineScriptRan = true;';
      document.head.append(script);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { ran: window.__inlineScriptRan === true, violations: window.__cspViolations };
    });
    // One report per policy: the header's and the <meta>'s.
    assert.equal(inline.ran, false);
    assert.deepEqual(inline.violations, ['script-src-elem inline', 'script-src-elem inline']);
  });

  await t.test('the preloads in the <head> are used: the package is fetched once by the page, once by the worker', () => {
    const count = (path) => demo.requested.filter((p) => p === path).length;
    assert.equal(count('/pkg/index.js'), 2, demo.requested.join(' '));
    assert.equal(count('/pkg/backend_targets_bg.wasm'), 2, demo.requested.join(' '));
  });

  await t.test('the planner panel shows a plan', async () => {
    const kernels = demo.page.locator('#plan table.kernels tbody tr');
    assert.ok((await kernels.count()) >= 1, 'a kernels table with at least one row');
    assert.match(await demo.page.locator('#plan .plan-head .badge').textContent(), /^planned$/);
    assert.ok((await demo.page.locator('#plan table.candidates tbody tr').count()) >= 1);
    assert.equal(await demo.page.locator('#presets tbody tr').count(), 13);
  });

  await t.test('under an op no capsule served, the demo says what to do about each reason its capsules were refused', async () => {
    const { page } = demo;
    // The default request's first config (device wasm) cannot serve every op.
    const rows = page.locator('#plan table.candidates tr.op-advice-row');
    assert.ok((await rows.count()) >= 1, 'an advice row under an unplanned op');
    const advice = await rows.evaluateAll((trs) => trs.map((tr) => {
      // The candidates' reasons in the rows above this one, in its row group.
      const reasons = [...tr.parentElement.querySelectorAll('td.reason')].map((td) => td.textContent).filter(Boolean);
      const lines = [...tr.querySelectorAll('.op-advice > div')].map((div) => div.textContent);
      return { reasons: [...new Set(reasons)], lines };
    }));
    for (const { reasons, lines } of advice) {
      // One line per distinct reason, in order, each "reason: what to do".
      assert.deepEqual(lines.map((line) => line.split(':')[0]), reasons.length ? reasons : ['no capsule for this op in the catalog']);
      for (const line of lines) assert.ok(line.length > 50 && /`/.test(line) === false, line);
    }
    assert.equal(await rows.first().isVisible(), true);
    await rows.first().locator('xpath=..').screenshot({ path: join(ARTIFACTS, screenshot.replace('.png', '-advice.png')) });
  });

  await t.test('the planner plans for inference by default (vjpMode none), and says why WebGPU kernels run on device wasm', async () => {
    const { page } = demo;
    // Each config tried says its vjpMode above its candidates.
    assert.deepEqual(await page.locator('#plan .config-line').evaluateAll((lines) => lines.map((l) => /vjp (\w+)/.exec(l.textContent)?.[1])),
      ['none', 'none']);
    // (Counted first: a missing element fails at once, not after a wait.)
    const use = page.locator('input[name="use"]');
    assert.deepEqual(await use.evaluateAll((inputs) => inputs.map((input) => [input.value, input.checked])),
      [['inference', true], ['training', false]]);
    assert.equal(await use.nth(1).isVisible(), true, 'training is one click away');
    // The request the planner was given, shown on the page as sent.
    assert.equal(await page.locator('#plan-request').count(), 1);
    const request = JSON.parse(await page.locator('#plan-request').textContent());
    assert.equal(request.configs.length, 2);
    assert.deepEqual(request.configs.map((config) => config.vjpMode), ['none', 'none']);
    // Where the kernels are shown, a sentence says what device wasm is.
    const note = page.locator('#plan .device-note');
    assert.equal(await note.count(), 1);
    assert.equal(await note.isVisible(), true);
    const text = (await note.textContent()).replace(/\s+/g, ' ');
    assert.match(text, /device wasm is the WebAssembly page or worker/);
    assert.match(text, /the browser dispatches [^.]*to the GPU/);
    assert.match(text, /the webGpu provider[^.]* decides GPU execution/);
    assert.equal(await note.evaluate((el) => el.nextElementSibling?.querySelector('table.kernels') !== null), true,
      'the sentence stands right above the kernels table');
  });

  await t.test('the worker makes the page’s decision, with the same options, and its line says so', async () => {
    assert.ok(demo.decision, 'the page shows its decision as JSON (#decision-resolution)');
    assert.deepEqual(withoutTiming(demo.workerResolution), withoutTiming(demo.decision));
    assert.equal(typeof demo.workerResolution.probe.elapsedMs, 'number');
    const line = (await demo.page.locator('#worker > p').first().textContent()).replace(/\s+/g, ' ');
    assert.match(line, new RegExp(`${decision.reason} → use ${decision.use} in [0-9.]+ ms — the same decision as the page \\(use ${decision.use}\\)$`));
    if (decision.use === 'wasm') assert.doesNotMatch(line, /kept/);
  });

  await t.test(`the probe's badge agrees with the decision: ${decision.badge}`, async () => {
    const badge = demo.page.locator('#probe .probe-head .badge');
    assert.equal((await badge.textContent()).trim(), decision.badge);
    const green = await badge.evaluate((el) => el.classList.contains('badge-ok'));
    assert.equal(green, decision.use === 'webgpu', 'green only where the decision uses WebGPU');
    if (decision.use === 'wasm') {
      // Nowhere on the page a green badge that says WebGPU is there to use.
      const greens = await demo.page.locator('.badge-ok').allTextContents();
      assert.deepEqual(greens.filter((text) => /WebGPU available|use webgpu/i.test(text)), []);
    }
    if (decision.badgeWhy) assert.match((await demo.page.locator('#probe .probe-why').textContent()).replace(/\s+/g, ' '), decision.badgeWhy);
  });

  await demo.page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true });
}

test('Chromium with --enable-unsafe-webgpu: SwiftShader answers, webGpu is kept', async (t) => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const demo = await openDemo(context, server.origin);
    const { resolution } = demo;

    await t.test('detect() keeps webGpu with the SwiftShader fallback adapter', () => {
      assert.deepEqual(resolution.changes.map(({ feature, action, reason }) => ({ feature, action, reason })),
        [{ feature: 'webGpu', action: 'kept', reason: 'adapter-available' }]);
      assert.deepEqual(resolution.declared, { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
      assert.deepEqual(resolution.effective, resolution.declared);
      const { probe } = resolution;
      assert.equal(probe.available, true);
      assert.equal(probe.reason, 'adapter-available');
      assert.equal(probe.apiPresent, true);
      assert.equal(probe.timeoutMs, 2000);
      assert.ok(probe.elapsedMs >= 0 && probe.elapsedMs < 2000, `elapsedMs ${probe.elapsedMs}`);
      assert.equal(probe.adapter.info.vendor, 'google');
      assert.equal(probe.adapter.info.architecture, 'swiftshader');
      assert.equal(probe.adapter.isFallbackAdapter, true);
      assert.ok(probe.adapter.features.length > 0);
      assert.deepEqual(probe.adapter.features, [...probe.adapter.features].sort());
      assert.ok(probe.adapter.limits.maxStorageBufferBindingSize > 0);
      assert.deepEqual(resolution.availability.devices, ['cpu', 'wasm']);
      assert.ok(resolution.availability.providers.includes('webGpu'));
      assert.deepEqual(resolution.availability.webGpu,
        { features: probe.adapter.features, limits: probe.adapter.limits });
      assert.deepEqual(resolution.asDeclared, []);
    });

    await commonChecks(t, demo, 'demo-webgpu.png', {
      reason: 'fallback-adapter', stoppedAt: 'software', use: 'wasm',
      badge: 'WebGPU: software adapter only', badgeWhy: /the decision above refuses it \(allowFallbackAdapter: false\) and uses wasm/,
    });

    await t.test('plan-time gating against the real adapter', async () => {
      const webGpu = resolution.availability.webGpu;
      assert.ok(!webGpu.features.includes('shader-f16'), 'SwiftShader offers no shader-f16 (else pick another feature)');
      const limit = webGpu.limits.maxStorageBufferBindingSize;
      const capsule = (name, requires) => ({
        name, op: 'matmul', provider: 'webGpu', device: 'wasm', trustLevel: 'checked', vjpMode: 'torchLeanTape', requires,
      });
      const capsules = [
        capsule('needs-f16', { features: ['shader-f16'] }),
        capsule('needs-more-storage', { limits: { maxStorageBufferBindingSize: limit + 1 } }),
        capsule('fits', { features: [webGpu.features[0]], limits: { maxStorageBufferBindingSize: limit } }),
      ];
      const outcome = await demo.page.evaluate(async ({ capsules }) => {
        const m = await import('/pkg/index.js');
        await m.default();
        const request = (availability) => ({
          ops: ['matmul'], configs: [{ device: 'wasm', backend: { only: 'webGpu' } }], availability, capsules,
        });
        const detected = await m.detect();
        return {
          reason: detected.probe.reason,
          probed: m.plan(request(detected.availability)),
          declared: m.plan(request(m.declaredAvailability(m.wasm()))),
        };
      }, { capsules });

      assert.equal(outcome.reason, 'adapter-available');
      const candidates = (result) => result.attempts[0].ops[0].candidates;
      const [f16, big, fits] = candidates(outcome.probed);
      assert.equal(outcome.probed.ok, true);
      assert.deepEqual(outcome.probed.kernels.map((k) => k.capsule), ['fits']);
      assert.equal(f16.verdict, 'rejected');
      assert.equal(f16.reason, 'webgpu-feature-missing');
      assert.match(f16.detail, /shader-f16/);
      assert.equal(big.verdict, 'rejected');
      assert.equal(big.reason, 'webgpu-limit-too-low');
      assert.match(big.detail, new RegExp(`maxStorageBufferBindingSize is ${limit}; the capsule needs at least ${limit + 1}`));
      assert.equal(fits.verdict, 'chosen');
      assert.equal(fits.unverified, undefined);

      // A declared availability carries no probed capabilities: nothing can be
      // checked, so every capsule is admitted, marked unverified.
      assert.equal(outcome.declared.availability.webGpu, undefined);
      assert.ok(outcome.declared.availability.providers.includes('webGpu'));
      const declared = candidates(outcome.declared);
      assert.deepEqual(declared.map((c) => [c.capsule, c.verdict, c.unverified]),
        [['needs-f16', 'chosen', true], ['needs-more-storage', 'admissible', true], ['fits', 'admissible', true]]);
      assert.deepEqual(outcome.declared.kernels.map((k) => k.capsule), ['needs-f16']);
    });

    await t.test('verifyDevice: SwiftShader gives a device, and the probe says so', async () => {
      const report = await demo.page.evaluate(async () => {
        const m = await import('/pkg/index.js');
        await m.default();
        return m.probe({ verifyDevice: true });
      });
      assert.equal(report.reason, 'adapter-available', report.message);
      assert.equal(report.available, true);
      assert.equal(report.deviceVerified, true);
      assert.equal(report.adapter.info.architecture, 'swiftshader');
    });

    await t.test('allowFallbackAdapter: false refuses SwiftShader (fallback-adapter), the default keeps it', async () => {
      const out = await demo.page.evaluate(async () => {
        const m = await import('/pkg/index.js');
        await m.default();
        const refused = await m.detect({ allowFallbackAdapter: false });
        const report = await m.probe({ allowFallbackAdapter: false });
        const kept = await m.detect({ allowFallbackAdapter: true });
        const byDefault = await m.detect();
        const d = await import('/pkg/detect.js');
        const detectOnly = await d.detect({ allowFallbackAdapter: false });
        return { refused, report, kept, byDefault, detectOnly };
      });
      assert.deepEqual(out.refused.changes.map(({ action, reason }) => ({ action, reason })),
        [{ action: 'dropped', reason: 'fallback-adapter' }]);
      assert.match(out.refused.changes[0].detail, /swiftshader: a software adapter, refused \(allowFallbackAdapter: false\)/);
      assert.ok(!out.refused.availability.providers.includes('webGpu'));
      assert.equal(out.refused.availability.webGpu, undefined);
      assert.equal(out.report.available, false);
      assert.equal(out.report.reason, 'fallback-adapter');
      assert.equal(out.report.adapter.isFallbackAdapter, true, 'the adapter is still reported');
      assert.equal(out.detectOnly.changes[0].reason, 'fallback-adapter');
      for (const kept of [out.kept, out.byDefault]) {
        assert.equal(kept.changes[0].reason, 'adapter-available');
        assert.ok(kept.availability.providers.includes('webGpu'));
      }
    });

    await t.test('both READMEs open with one snippet, and it decides wasm on a software adapter', async () => {
      // Each README's first lines of code, as written, up to the runtime's import.
      const first = (file) => {
        const readme = readFileSync(join(ROOT, file), 'utf8');
        return readme.slice(readme.indexOf('```js\n') + 6, readme.indexOf('const ort = '));
      };
      const snippet = first('README.md');
      assert.equal(first(join('pkg-template', 'README.md')), snippet, 'the package README opens with the same snippet');
      const body = snippet.replace("import { detect, executionProviders } from 'backend-targets/verify';",
        "const { detect, executionProviders } = await import('/pkg/verified.js');")
        .replace('console.log(providers[0], resolution.changes[0].reason, resolution.changes[0].detail);',
          'return [providers, resolution.changes[0].reason];');
      assert.ok(!body.includes('backend-targets') && body.includes('return ['), `the snippet imports the package and logs the decision:\n${body}`);
      const answer = await demo.page.evaluate(`(async () => { ${body} })()`);
      assert.deepEqual(answer, [['wasm'], 'fallback-adapter']);
    });

    await t.test('the demo planner shows the gating', async () => {
      const row = demo.page.locator('#plan table.candidates tr', { hasText: 'webgpu.matmul.f16' }).first();
      assert.match(await row.textContent(), /webgpu-feature-missing/);
      await demo.page.locator('input[name="against"][value="declared"]').check();
      await demo.page.waitForFunction(() => document.querySelector('#plan .chip-unverified'));
      assert.match(await demo.page.locator('#plan').textContent(), /unverified/);
      await demo.page.locator('#reset-button').click();
    });

    await t.test('the demo planner switches to training: vjpMode torchLeanTape, and inference-only capsules are rejected', async () => {
      const { page } = demo;
      const training = page.locator('input[name="use"][value="training"]');
      assert.equal(await training.count(), 1);
      await training.check();
      await page.waitForFunction(() => JSON.parse(document.getElementById('plan-request').textContent)
        .configs.every((config) => config.vjpMode === 'torchLeanTape'));
      const kernels = Object.fromEntries(await page.locator('#plan table.kernels tbody tr').evaluateAll((rows) =>
        rows.map((row) => [row.cells[1].textContent, row.cells[2].textContent])));
      // webgpu.relu gives no backward pass: the reference capsule (a tape VJP) on the CPU serves relu.
      assert.equal(kernels.relu, 'reference.relu');
      const relu = page.locator('#plan table.candidates tr', { hasText: 'webgpu.relu' }).first();
      assert.match(await relu.textContent(), /vjp-incompatible/);
      // webgpu.matmul brings its own (backendVJP): still on WebGPU.
      assert.equal(kernels.matmul, 'webgpu.matmul');
      await page.locator('#reset-button').click();
      await page.waitForFunction(() => JSON.parse(document.getElementById('plan-request').textContent)
        .configs.every((config) => config.vjpMode === 'none'));
      assert.equal(await page.locator('input[name="use"][value="inference"]').isChecked(), true);
    });

    await t.test('the demo planner shows an invalid request from the error’s code, path and message', async () => {
      await demo.page.locator('#capsules').fill(
        '[{"name": "x", "op": "matmul", "provider": "webGpu", "device": "wasm", "trustLevel": "trusted", "vjpMode": "none"}]');
      await demo.page.locator('#plan-button').click();
      const error = demo.page.locator('#plan .error');
      await error.waitFor();
      const codes = await error.locator('code').allTextContents();
      assert.deepEqual(codes.slice(0, 2), ['unknown-variant', 'capsules[0].trustLevel']);
      // The message as the package gives it (the whole line), not re-parsed.
      const message = await error.locator('.error-message').textContent();
      assert.match(message, /^\[unknown-variant\] at capsules\[0\]\.trustLevel: .*"trusted"/);
      assert.deepEqual(await error.locator('.chip').allTextContents(), ['verified', 'checked', 'fuzzed', 'trustedExternal']);
      await demo.page.locator('#reset-button').click();
      await demo.page.locator('#plan table.kernels').waitFor();
    });

    // Last: these draw made-up states into the page's panels (after its screenshot).
    await t.test('every probe state: the badge agrees with its decision, green only where it uses WebGPU', async () => {
      const states = await demo.page.evaluate(async ({ resolution, decision }) => {
        const m = await import('/pkg/index.js');
        await m.default();
        const views = await import('/www/views.js');
        // A state from the page's own resolutions, changed where it differs.
        const state = (from, change) => {
          const copy = structuredClone(from);
          change(copy);
          return copy;
        };
        const noAdapter = (reason, apiPresent) => (r) => {
          Object.assign(r.probe, { available: false, apiPresent, reason });
          delete r.probe.adapter;
          r.effective.features = [];
        };
        const hardware = (r) => { r.probe.adapter.isFallbackAdapter = false; };
        const dropped = (reason) => (r) => {
          hardware(r);
          Object.assign(r.probe, { available: false, reason });
          r.effective.features = [];
        };
        const kept = (r) => {
          hardware(r);
          Object.assign(r.probe, { available: true, reason: 'verified' });
          r.effective.features = ['webGpu'];
        };
        const cases = {
          'no API': [state(resolution, noAdapter('no-webgpu-api', false)), state(decision, noAdapter('no-webgpu-api', false))],
          'no adapter': [state(resolution, noAdapter('no-adapter', true)), state(decision, noAdapter('no-adapter', true))],
          'software adapter': [resolution, decision],
          'real adapter, deciding': [state(resolution, hardware), undefined],
          'real adapter, verified': [state(resolution, hardware), state(decision, kept)],
          'real adapter, slower than wasm': [state(resolution, hardware), state(decision, dropped('slower-than-wasm'))],
        };
        const out = {};
        for (const [name, [probed, decided]] of Object.entries(cases)) {
          views.renderProbe(probed, decided, m);
          const badge = document.querySelector('#probe .probe-head .badge');
          out[name] = {
            use: decided && m.executionProviders(decided)[0],
            badge: badge.textContent,
            kind: [...badge.classList].find((c) => c.startsWith('badge-')),
            why: document.querySelector('#probe .probe-why')?.textContent ?? null,
          };
        }
        return out;
      }, { resolution, decision: demo.decision });
      await demo.page.locator('#probe-section').screenshot({ path: join(ARTIFACTS, 'demo-probe-slower.png') });
      const seen = Object.fromEntries(Object.entries(states).map(([name, { use, badge, kind }]) => [name, [use, kind, badge]]));
      assert.deepEqual(seen, {
        'no API': ['wasm', 'badge-warn', 'WebGPU unavailable'],
        'no adapter': ['wasm', 'badge-warn', 'WebGPU unavailable'],
        'software adapter': ['wasm', 'badge-warn', 'WebGPU: software adapter only'],
        'real adapter, deciding': [undefined, 'badge-neutral', 'WebGPU adapter found'],
        'real adapter, verified': ['webgpu', 'badge-ok', 'WebGPU available'],
        'real adapter, slower than wasm': ['wasm', 'badge-warn', 'WebGPU: adapter not used'],
      });
      assert.match(states['real adapter, slower than wasm'].why, /drops it \(slower-than-wasm\): it computed right, but slower than WebAssembly/);
      assert.match(states['real adapter, verified'].why, /uses it/);
    });

    await t.test('the verification panel: the clock\'s resolution where the package gives it, no bar for a figure not measured', async () => {
      const panels = await demo.page.evaluate(async ({ resolution }) => {
        const views = await import('/www/views.js');
        const verification = {
          workload: 'mlp 6x256x256, batch 8, 4 passes per readback', checked: ['f32'], margin: 1.1, tolerance: 1e-3,
          budgetMs: 1000, elapsedMs: 120, adapterKey: 'k', cached: false,
        };
        const state = (reason, figures) => {
          const r = structuredClone(resolution);
          r.probe.adapter.isFallbackAdapter = false;
          r.probe.reason = reason;
          r.probe.verification = { ...verification, ...figures };
          return r;
        };
        const cases = {
          // Stopped before the GPU's time was taken, in Firefox's 1 ms clock.
          'stopped early': state('slower-than-wasm', { wasmMs: 0.8, timerResolutionMs: 1 }),
          // The budget ran out in a warm run: a lower bound, never a bar.
          'budget ran out': state('slower-than-wasm', { gpuMsMoreThan: 3.2, wasmMs: 0.8, timerResolutionMs: 1 }),
          'both measured': state('verified', { gpuMs: 0.4, wasmMs: 0.8, ratio: 0.5, maxError: 1e-6, maxErrorAt: '3 (f32)', timerResolutionMs: 0.1 }),
          // A package built before timerResolutionMs.
          'old package': state('slower-than-wasm', { gpuMs: 2, wasmMs: 0.8, ratio: 2.5, maxError: 1e-6, maxErrorAt: '3 (f32)' }),
        };
        const out = {};
        for (const [name, r] of Object.entries(cases)) {
          views.renderVerification(r);
          const box = document.getElementById('verify');
          out[name] = {
            rows: [...box.querySelectorAll('.bar-row')].map((row) => [row.dataset.figure, row.querySelector('.bar')?.style.width ?? null,
              row.textContent]),
            text: box.textContent.replace(/\s+/g, ' '),
          };
        }
        // Left drawn for the screenshot: the verification that stopped early.
        views.renderVerification(cases['stopped early']);
        return out;
      }, { resolution });
      await demo.page.locator('#verify-section').screenshot({ path: join(ARTIFACTS, 'demo-verify-stopped.png') });
      const early = panels['stopped early'];
      assert.deepEqual(early.rows.map(([figure, width]) => [figure, width]), [['GPU', null], ['WebAssembly', '100%']]);
      assert.match(early.rows[0][2], /not measured/);
      assert.match(early.text, /timed with a 1 ms clock/i);
      assert.doesNotMatch(early.text, /NaN|undefined/);
      const budget = panels['budget ran out'];
      assert.deepEqual(budget.rows.map(([figure, width]) => [figure, width]), [['GPU', null], ['WebAssembly', '100%']]);
      assert.match(budget.rows[0][2], /not measured: past 3\.20 ms a pass when it stopped/);
      const both = panels['both measured'];
      assert.deepEqual(both.rows.map(([figure, width]) => [figure, width]), [['GPU', '50%'], ['WebAssembly', '100%']]);
      assert.match(both.text, /timed with a 0\.1 ms clock/i);
      const old = panels['old package'];
      assert.deepEqual(old.rows.map(([figure, width]) => [figure, width]), [['GPU', '100%'], ['WebAssembly', '40%']]);
      assert.doesNotMatch(old.text, /clock|NaN|undefined/);
    });

    await t.test('the worker\'s line says plainly when its decision differs from the page\'s', async () => {
      const line = await demo.page.evaluate(async ({ resolution, decision }) => {
        const m = await import('/pkg/index.js');
        await m.default();
        const views = await import('/www/views.js');
        // The worker kept an adapter the page's decision dropped.
        views.renderWorker({ resolution }, decision, m);
        return document.querySelector('#worker > p').textContent;
      }, { resolution, decision: demo.decision });
      assert.match(line, /webGpu kept adapter-available → use webgpu in [0-9.]+ ms — a different decision from the page, which uses wasm \(fallback-adapter\): /);
      assert.doesNotMatch(line, /same/);
    });
  });
});

test('Chromium with default flags: navigator.gpu exists, no adapter, webGpu is dropped', async (t) => {
  await withChromium([], async (context) => {
    const demo = await openDemo(context, server.origin, { allowedWarnings: [NO_ADAPTER_WARNING] });
    const { resolution } = demo;

    await t.test('detect() drops webGpu with no-adapter', async () => {
      const raw = await demo.page.evaluate(async () => ({
        secure: isSecureContext,
        gpu: typeof navigator.gpu,
        adapter: String(await navigator.gpu.requestAdapter()),
      }));
      assert.deepEqual(raw, { secure: true, gpu: 'object', adapter: 'null' });
      assert.deepEqual(resolution.changes.map(({ feature, action, reason }) => ({ feature, action, reason })),
        [{ feature: 'webGpu', action: 'dropped', reason: 'no-adapter' }]);
      assert.equal(resolution.probe.available, false);
      assert.equal(resolution.probe.apiPresent, true);
      assert.equal(resolution.probe.adapter, undefined);
      assert.deepEqual(resolution.effective.features, []);
      assert.deepEqual(resolution.availability, { devices: ['cpu', 'wasm'], providers: ['reference', 'torchLean'] });
      assert.ok(demo.allowedWarningsSeen.length > 0, 'Chromium warned that no adapter is available');
    });

    await commonChecks(t, demo, 'demo-no-adapter.png', { reason: 'no-adapter', stoppedAt: 'adapter', use: 'wasm', badge: 'WebGPU unavailable' });
  });
});

test('Chromium, insecure context (a mapped hostname over plain http): no navigator.gpu, webGpu is dropped', async (t) => {
  await withChromium(['--enable-unsafe-webgpu', `--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`], async (context) => {
    const origin = `http://${INSECURE_HOST}:${server.port}`;
    const demo = await openDemo(context, origin);
    const { resolution } = demo;

    await t.test('detect() drops webGpu with no-webgpu-api, and the wasm module still works', async () => {
      const raw = await demo.page.evaluate(() => ({ secure: isSecureContext, gpu: typeof navigator.gpu, origin: location.origin }));
      assert.deepEqual(raw, { secure: false, gpu: 'undefined', origin });
      assert.deepEqual(resolution.changes.map(({ feature, action, reason }) => ({ feature, action, reason })),
        [{ feature: 'webGpu', action: 'dropped', reason: 'no-webgpu-api' }]);
      assert.equal(resolution.probe.apiPresent, false);
      assert.deepEqual(resolution.availability, { devices: ['cpu', 'wasm'], providers: ['reference', 'torchLean'] });
    });

    await commonChecks(t, demo, 'demo-insecure.png', { reason: 'no-webgpu-api', stoppedAt: 'api', use: 'wasm', badge: 'WebGPU unavailable' });
  });
});

test('Chromium: pkg/index.js is one request, and evaluating it starts the .wasm request that init() then uses', async () => {
  await withChromium([], async (context) => {
    const page = context.pages()[0] ?? (await context.newPage());
    const requested = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(`${server.origin}/pkg/README.md`); // any same-origin document
    const wasmRequest = page.waitForRequest((request) => request.url().endsWith('/pkg/backend_targets_bg.wasm'), { timeout: 10_000 });
    // Import only: no init() call yet.
    await page.evaluate(() => import('/pkg/index.js').then(() => undefined));
    await wasmRequest;
    const presets = await page.evaluate(async () => {
      const m = await import('/pkg/index.js');
      await m.default();
      return m.presets().length;
    });
    assert.equal(presets, 13);
    assert.deepEqual(requested, ['/pkg/README.md', '/pkg/index.js', '/pkg/backend_targets_bg.wasm'],
      'one JS request, and the .wasm fetched once (init() used the early request)');
  });
});

/**
 * In the page: the break between each two non-blank characters of `element`'s
 * text that sit on different rendered lines, unless it falls at a JSON token
 * boundary (at white space, after `,` `:` `{` `[`, before `}` `]`) or between
 * the words of a name (after `-` `_` `.`, or from a lower-case letter or digit
 * to a capital: `chromium-experimental-…`, `maxStorageBufferBindingSize`).
 * Returns the offending breaks as "…before|after…".
 */
function breaksInsideWords(element) {
  const chars = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i += 1) {
      const char = node.data[i];
      let box = null;
      if (!/\s/.test(char)) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        box = range.getBoundingClientRect();
      }
      chars.push({ char, box });
    }
  }
  const text = chars.map((c) => c.char).join('');
  const bad = [];
  let previous = -1;
  chars.forEach(({ box }, i) => {
    if (!box || box.height === 0) return;
    if (previous >= 0) {
      const before = chars[previous];
      const newLine = box.top > before.box.top + before.box.height / 2;
      const atBoundary = i > previous + 1 || ',:{[-_.'.includes(before.char) || '}]'.includes(chars[i].char)
        || (/[a-z0-9]/.test(before.char) && /[A-Z]/.test(chars[i].char));
      if (newLine && !atBoundary) bad.push(`${text.slice(Math.max(0, previous - 12), previous + 1)}|${text.slice(i, i + 12)}`);
    }
    previous = i;
  });
  return bad;
}

/**
 * In the page: every box whose content is wider than itself and that scrolls
 * or clips it, so that what is past its right edge is off-screen (a table's
 * reason and detail, the end of a JSON line).
 */
function hiddenSideways() {
  return [...document.body.querySelectorAll('*')]
    .filter((el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
      && ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX))
    .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className} `
      + `(${el.scrollWidth} px of content in ${el.clientWidth} px): ${el.textContent.trim().slice(0, 40)}`);
}

test('Chromium at phone width (390 px): nothing overflows the page horizontally', async (t) => {
  await withBrowser(['--enable-unsafe-webgpu'], async (context) => {
    const demo = await openDemo(context, server.origin);
    const { page } = demo;
    assert.deepEqual(demo.problems, []);

    await t.test('nothing sticks out past the viewport', async () => {
      const layout = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        // Anything sticking out past the viewport, outside a scrolling box,
        // is an overflow, even if clipped (a scrolling box is the next test's).
        const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
        const outside = [];
        for (const el of document.body.querySelectorAll('*')) {
          const box = el.getBoundingClientRect();
          if (box.width === 0 || box.right <= width + 0.5) continue;
          let ancestor = el.parentElement;
          while (ancestor && !scrolls(ancestor)) ancestor = ancestor.parentElement;
          if (!ancestor) outside.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className} (right ${Math.round(box.right)})`);
        }
        return { width, scrollWidth: document.documentElement.scrollWidth, bodyScrollWidth: document.body.scrollWidth, outside };
      });
      assert.equal(layout.width, 390);
      assert.ok(layout.scrollWidth <= layout.width, `the page is ${layout.scrollWidth} px wide`);
      assert.ok(layout.bodyScrollWidth <= layout.width, `the body is ${layout.bodyScrollWidth} px wide`);
      assert.deepEqual(layout.outside.slice(0, 10), []);
    });

    await t.test('no box hides part of its content sideways (scrolled or clipped)', async () => {
      assert.deepEqual(await page.evaluate(hiddenSideways), []);
    });

    await flowAndGridChecks(t, demo, { reason: 'fallback-adapter', stoppedAt: 'software', use: 'wasm' });
    await t.test('at 390 px the flow runs down the page, a step under another', async () => {
      const tops = await page.locator('#flow > li').evaluateAll((items) => items.map((li) => li.getBoundingClientRect().top));
      for (let i = 1; i < tops.length; i += 1) assert.ok(tops[i] > tops[i - 1], `step ${i} under step ${i - 1}: ${tops}`);
    });

    await t.test('every cell of the diff, kernels, candidates and presets tables is on screen, under its column name', async () => {
      const cells = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const tables = [...document.querySelectorAll('#diff table, #plan table, #presets')];
        const found = { tables: tables.map((table) => table.className), cells: 0, problems: [] };
        for (const table of tables) {
          const head = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
          // Each body cell's column, from the header row (cells spanning rows
          // or columns taken into account).
          const taken = [];
          [...table.querySelectorAll('tbody tr')].forEach((tr, row) => {
            let column = 0;
            for (const cell of tr.cells) {
              while (taken[row]?.[column]) column += 1;
              for (let r = 0; r < cell.rowSpan; r += 1) {
                for (let c = 0; c < cell.colSpan; c += 1) (taken[row + r] ??= [])[column + c] = true;
              }
              const name = head[column];
              column += cell.colSpan;
              const text = cell.textContent.trim();
              if (text === '') continue;
              found.cells += 1;
              const where = `${table.className} row ${row} ${name}: ${text.slice(0, 30)}`;
              const box = cell.getBoundingClientRect();
              if (box.width === 0 || box.height === 0) found.problems.push(`${where}: not shown`);
              else if (box.left < -0.5 || box.right > width + 0.5) {
                found.problems.push(`${where}: at ${Math.round(box.left)}–${Math.round(box.right)} px`);
              }
              for (const el of cell.querySelectorAll('*')) {
                const inner = el.getBoundingClientRect();
                if (inner.width > 0 && (inner.left < -0.5 || inner.right > width + 0.5)) {
                  found.problems.push(`${where}: its ${el.tagName.toLowerCase()} at ${Math.round(inner.left)}–${Math.round(inner.right)} px`);
                }
              }
              // The column's name is shown with the cell: its header is in the
              // same column on screen, or the cell carries it as its label.
              const header = table.querySelector(`thead th:nth-child(${head.indexOf(name) + 1})`);
              const headerBox = header?.getBoundingClientRect();
              const underHeader = headerBox && headerBox.width > 0 && headerBox.top < box.top
                && headerBox.left < box.right && box.left < headerBox.right;
              const label = getComputedStyle(cell, '::before').content;
              // (A row's header names the row; a cell spanning columns, such as
              // an op's message, has no one column name.)
              const isRowHeader = cell.tagName === 'TH' && ['row', 'rowgroup'].includes(cell.scope);
              if (!underHeader && !isRowHeader && cell.colSpan === 1 && label !== JSON.stringify(name)) {
                found.problems.push(`${where}: its column name is not shown (label ${label})`);
              }
            }
          });
        }
        return found;
      });
      assert.deepEqual(cells.tables, ['diff-table', 'kernels', 'candidates', 'candidates', 'presets']);
      assert.ok(cells.cells > 150, `${cells.cells} cells`);
      assert.deepEqual(cells.problems.slice(0, 10), []);
    });

    await t.test('the target JSON and the resolution JSON wrap only between tokens, never inside a word', async () => {
      // (A string evaluated through DevTools: the page's CSP forbids eval.)
      const breaks = await page.evaluate(`(() => {
        const check = ${breaksInsideWords};
        const views = [...document.querySelectorAll('#diff .target-line code'), document.getElementById('resolution')];
        return { views: views.length, bad: views.flatMap((view) => check(view)) };
      })()`);
      assert.equal(breaks.views, 3);
      assert.deepEqual(breaks.bad.slice(0, 10), []);
    });

    await page.screenshot({ path: join(ARTIFACTS, 'demo-phone.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-phone-dark.png'), fullPage: true });

    await t.test('at 320, 768, 1024 and 1180 px too, nothing is wider than the viewport or hidden sideways in a box', async () => {
      // A small phone, a tablet, and laptops on either side of the width where
      // the tables stop being cards.
      for (const width of [320, 768, 1024, 1180]) {
        await page.setViewportSize({ width, height: 844 });
        const layout = await page.evaluate(() => ({ width: document.documentElement.clientWidth, scrollWidth: document.documentElement.scrollWidth }));
        assert.deepEqual(layout, { width, scrollWidth: width }, `at ${width} px`);
        assert.deepEqual(await page.evaluate(hiddenSideways), [], `at ${width} px`);
        assert.deepEqual(await page.evaluate(fitsViewport), [], `the flow and the grid at ${width} px`);
      }
    });
  }, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
});

test('Chromium: evaluating pkg/index.js asks for an adapter at once; the first detect() takes that answer, the next asks afresh', async () => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(() => {
      const original = GPU.prototype.requestAdapter;
      window.__adapterRequests = 0;
      GPU.prototype.requestAdapter = function requestAdapter(options) {
        window.__adapterRequests += 1;
        return original.call(this, options);
      };
    });
    await page.goto(`${server.origin}/pkg/README.md`);
    const counts = await page.evaluate(async () => {
      const m = await import('/pkg/index.js');
      const afterImport = window.__adapterRequests;
      await m.default();
      const first = await m.detect();
      const afterFirst = window.__adapterRequests;
      const second = await m.detect();
      return {
        afterImport, afterFirst, afterSecond: window.__adapterRequests,
        reasons: [first.probe.reason, second.probe.reason],
        same: JSON.stringify(first.availability) === JSON.stringify(second.availability),
      };
    });
    assert.deepEqual(counts, { afterImport: 1, afterFirst: 1, afterSecond: 2, reasons: ['adapter-available', 'adapter-available'], same: true });
  });
});

test('Chromium: both browser entries ask for the adapter before they start fetching their .wasm; the detect-only one fetches it only once an adapter answers', async () => {
  // Without an adapter, the answer is what a cold page waits for last
  // (docs/benchmarks-history.md), so the request goes out first; the detect-only entry
  // answers it without its module (tests/js/no-adapter.test.mjs).
  for (const [flags, wasmAfterAnswer] of [[[], false], [['--enable-unsafe-webgpu'], true]]) {
    await withChromium(flags, async (context) => {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.addInitScript(recordRequests);
      await page.goto(`${server.origin}/pkg/README.md`);
      const order = await page.evaluate(async () => {
        const m = await import('/pkg/detect.js');
        const atEvaluation = [...window.__order];
        await m.detect();
        return { atEvaluation, afterDetect: window.__order };
      });
      assert.deepEqual(order, {
        atEvaluation: ['requestAdapter'],
        afterDetect: wasmAfterAnswer ? ['requestAdapter', 'fetch /pkg/detect_bg.wasm'] : ['requestAdapter'],
      }, flags.join(' ') || 'default flags');
    });
  }
  await withChromium([], async (context) => {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(recordRequests);
    for (const [entry, wasm] of [['/pkg/index.js', '/pkg/backend_targets_bg.wasm']]) {
      await page.goto(`${server.origin}/pkg/README.md`);
      const order = await page.evaluate((path) => import(path).then(() => window.__order), entry);
      assert.deepEqual(order, ['requestAdapter', `fetch ${wasm}`], entry);
    }
  });
});

test('Chromium: pkg/detect.js (backend-targets/detect) loads only its own module and answers as pkg/index.js does, with and without an adapter', async (t) => {
  for (const [flags, reason] of [[['--enable-unsafe-webgpu'], 'adapter-available'], [[], 'no-adapter']]) {
    await t.test(reason, async () => {
      await withChromium(flags, async (context) => {
        const page = context.pages()[0] ?? (await context.newPage());
        const requested = [];
        page.on('request', (request) => requested.push(new URL(request.url()).pathname));
        await page.goto(`${server.origin}/pkg/README.md`);
        // No init call: detect() instantiates the module fetched at evaluation.
        const small = await page.evaluate(async () => {
          const m = await import('/pkg/detect.js');
          return { first: await m.detect(), second: await m.detect(), report: await m.probe() };
        });
        // Without an adapter, the entry answers without its module (tests/js/no-adapter.test.mjs).
        assert.deepEqual(requested, ['/pkg/README.md', '/pkg/detect.js', ...(reason === 'no-adapter' ? [] : ['/pkg/detect_bg.wasm'])],
          'one JS request and the detect-only module, fetched once, where an adapter answered');
        const full = await page.evaluate(async () => {
          const m = await import('/pkg/index.js');
          await m.default();
          return { first: await m.detect(), report: await m.probe() };
        });
        assert.equal(small.first.probe.reason, reason);
        // The same keys in the same order (the detect-only module writes
        // elapsedMs itself, last), elapsedMs in whole microseconds.
        const keysDeep = (value) => (value && typeof value === 'object' && !Array.isArray(value)
          ? Object.entries(value).map(([key, inner]) => [key, keysDeep(inner)]) : null);
        assert.deepEqual(keysDeep(small.first), keysDeep(full.first), 'the resolution\'s keys, in order');
        assert.deepEqual(keysDeep(small.report), keysDeep(full.report), 'the report\'s keys, in order');
        for (const ms of [small.first.probe.elapsedMs, small.report.elapsedMs]) {
          assert.equal(Math.round(ms * 1000) / 1000, ms, `elapsedMs ${ms} in whole microseconds`);
        }
        assert.deepEqual(withoutTiming(small.first), withoutTiming(full.first), 'the same resolution as the full package');
        assert.deepEqual(withoutTiming(small.second), withoutTiming(full.first));
        delete small.report.elapsedMs;
        delete full.report.elapsedMs;
        assert.deepEqual(small.report, full.report, 'the same probe report');
      });
    });
  }
});
