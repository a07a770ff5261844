// The verified decision's own cost (`detect({ verify })`), in headless
// Chromium with SwiftShader: run with `node bench/verify.mjs [samples]`
// after scripts/build.sh. Prints, for the full package on a page served
// from localhost:
//   verify afresh      detect({ allowFallbackAdapter: true, verify: { cache: 'none' } }): the verification's
//                      elapsedMs, the GPU's and WebAssembly's times a pass, and the whole call
//   cold, no verify    a fresh page: import, init(), detect({ allowFallbackAdapter: true })
//   cold, cache hit    a fresh page of a profile holding the verdict: the same, with verify: true
// and the ratio of the last two (the goal: at most 1.1). Each sample is a
// new page (the module fetched and compiled again, from the HTTP cache as
// an app's second visit would); medians of `samples` (default 15).
import { launchChromium } from '../tests/js/chromium.mjs';
import { ROOT } from '../tests/js/common.mjs';
import { serve } from '../tests/js/static-server.mjs';

const SAMPLES = Number(process.argv[2] ?? 15);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

/** In the page: import, init, detect(options), timed from before the import. */
async function decide(options) {
  const start = performance.now();
  const m = await import('/pkg/index.js');
  await m.default();
  const resolution = await m.detect(options);
  return { ms: performance.now() - start, probe: resolution.probe };
}

const server = await serve(ROOT);
const browser = await launchChromium(['--enable-unsafe-webgpu']);
try {
  const context = await browser.newContext();
  const fresh = [];
  for (let i = 0; i < Math.min(SAMPLES, 7); i++) {
    const page = await context.newPage();
    await page.goto(`${server.origin}/pkg/README.md`);
    fresh.push(await page.evaluate(decide, { allowFallbackAdapter: true, verify: { cache: 'none' } }));
    await page.close();
  }
  const v = fresh.map((f) => f.probe.verification);
  console.log(`verify afresh (SwiftShader, ${fresh.length} pages): verdict ${fresh[0].probe.reason}; verification `
    + `${median(v.map((x) => x.elapsedMs)).toFixed(1)} ms median (${range(v.map((x) => x.elapsedMs))}); gpu `
    + `${median(v.map((x) => x.gpuMs))} ms, wasm ${median(v.map((x) => x.wasmMs))} ms a pass; whole cold call `
    + `${median(fresh.map((f) => f.ms)).toFixed(1)} ms`);

  // Prime the cache, then alternate plain and cached decisions on fresh pages.
  const prime = await context.newPage();
  await prime.goto(`${server.origin}/pkg/README.md`);
  await prime.evaluate(decide, { allowFallbackAdapter: true, verify: true });
  await prime.close();
  const plain = [];
  const cached = [];
  for (let i = 0; i < SAMPLES; i++) {
    for (const [list, options] of [[plain, { allowFallbackAdapter: true }], [cached, { allowFallbackAdapter: true, verify: true }]]) {
      const page = await context.newPage();
      await page.goto(`${server.origin}/pkg/README.md`);
      const out = await page.evaluate(decide, options);
      if (options.verify && !out.probe.verification?.cached) throw new Error(`not from the cache: ${JSON.stringify(out.probe)}`);
      list.push(out.ms);
      await page.close();
    }
  }
  const ratio = median(cached) / median(plain);
  console.log(`cold decision, ${SAMPLES} pages each: no verify ${median(plain).toFixed(1)} ms (${range(plain)}), `
    + `verify from the cache ${median(cached).toFixed(1)} ms (${range(cached)}): ratio ${ratio.toFixed(3)} (goal <= 1.1)`);
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
