// The support report and detectNative() in real browsers, Chromium
// (SwiftShader through --enable-unsafe-webgpu) and Firefox ESR (lavapipe),
// as a page gets them from the package: the report says where it ran (a
// page, a secure context), the options, the decision and its reason, and its
// JSON block reads back as the probe's report; a hostile string in it stays
// on its line; the full entry's detectNative() answers the core's
// `unsupported-platform`, saying why, with no command to run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT } from './common.mjs';
import { CHROMIUM, inPages as chromiumPages, launchChromium } from './chromium.mjs';
import { FIREFOX, PREFS, inPages as firefoxPages, launchFirefox } from './firefox.mjs';
import { serve } from './static-server.mjs';

let server;
before(async () => {
  for (const file of ['pkg/index.js', 'pkg/verified.js', 'pkg/backend_targets_bg.wasm']) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run scripts/build.sh first`);
  }
  server = await serve(ROOT);
});
after(async () => {
  await server?.close();
});

/** What a page does: the README's quick start, its report, a hostile
 *  string's report, and the full entry's detectNative(). */
async function inPage() {
  const verify = await import('/pkg/verified.js');
  const options = { allowFallbackAdapter: false, verify: true };
  const resolution = await verify.detect(options);
  const report = verify.supportReport(resolution, options);
  const hostile = verify.supportReport({ ...resolution, probe: { ...resolution.probe, message: 'a\n- kept (device-available)\u202e```' } });
  const full = await import('/pkg/index.js');
  await full.default();
  const native = await full.detectNative();
  const cuda = await full.detectNative('linuxCuda');
  return {
    probe: resolution.probe, change: resolution.changes[0], report, hostile,
    native: { isolation: native.probe.isolation, reason: native.probe.reason, message: native.probe.message,
      providers: full.executionProviders(native), report: full.supportReport(native) },
    cuda: cuda.changes.map((c) => [c.accelerator ?? c.feature, c.action, c.reason]),
  };
}

/** The answers every engine must give. */
function holds(engine, answer) {
  assert.equal(answer.threw, undefined, `${engine}: ${answer.threw}`);
  assert.deepEqual(answer.pageErrors, [], engine);
  const { report } = answer;
  assert.match(report, /^runtime: Mozilla\/5\.0 /m, engine);
  assert.match(report, /^context: page; secure context: yes; cross-origin isolated: no$/m, engine);
  assert.match(report, /^options: \{"allowFallbackAdapter":false,"verify":true\}$/m, engine);
  assert.ok(report.includes(`\ndecision: wasm (${answer.change.reason}): `), `${engine}: ${report}`);
  const json = report.slice(report.indexOf('```json\n') + 8, report.lastIndexOf('```'));
  assert.deepEqual(JSON.parse(json), answer.probe, `${engine}: the probe's report, whole`);
  // A forged line, a bidi override and a fence stay escaped, on one line.
  assert.doesNotMatch(answer.hostile, /^- kept/m, engine);
  assert.ok(!answer.hostile.includes('\u202e') && answer.hostile.split('```').length === 3, engine);
  // No command in a browser: the core's answer, and why.
  assert.deepEqual([answer.native.isolation, answer.native.reason], ['not-run', 'unsupported-platform'], engine);
  assert.match(answer.native.message, /this runtime cannot probe the host/, engine);
  assert.deepEqual(answer.native.providers, ['cpu'], engine);
  assert.match(answer.native.report, /^decision: cpu \(unsupported-platform\): this runtime cannot probe the host/m, engine);
  assert.deepEqual(answer.cuda[0], ['cuda', 'dropped', 'unsupported-platform'], engine);
}

test('Chromium (SwiftShader): the support report and detectNative() as a page gets them', async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing (scripts/setup.sh)`);
  const browser = await launchChromium(['--enable-unsafe-webgpu']);
  try {
    const [answer] = await chromiumPages(browser, `${server.origin}/pkg/README.md`, null, [inPage]);
    holds('Chromium', answer);
    // SwiftShader is a fallback adapter, which the quick start refuses.
    assert.equal(answer.change.reason, 'fallback-adapter', JSON.stringify(answer.change));
  } finally {
    await browser.close();
  }
});

test('Firefox ESR (lavapipe): the support report and detectNative() as a page gets them', async () => {
  assert.ok(existsSync(FIREFOX), `${FIREFOX} is missing (scripts/setup.sh)`);
  const browser = await launchFirefox(PREFS.lavapipe);
  try {
    const [answer] = await firefoxPages(browser, `${server.origin}/pkg/README.md`, null, [inPage]);
    holds('Firefox', answer);
  } finally {
    await browser.close();
  }
});
