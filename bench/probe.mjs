// What the WebGPU probe costs over a bare adapter request, in a real headless
// Chromium with --enable-unsafe-webgpu (SwiftShader answers).
//
//   node bench/probe.mjs [--rounds N] [--json]      (after scripts/build.sh)
//
// One page; after one warm-up of each, it interleaves N (default 30) ×
// `probe()` from the built package, N × raw `navigator.gpu.requestAdapter()`
// and N × a plain-JS floor (in rotated order), so that drift in the browser
// affects all alike, and prints the medians, the spread (min–max and
// interquartile range) and the ratios of the medians.
// `probe()` makes one adapter request (through wgpu, which decides; the probe
// awaits the same promise), reads the info, the features and every limit off
// the adapter, and returns a report. The raw figure is one request and nothing
// read. The floor is one request plus that reading by the probe's own JS
// reader (crates/browser/src/probe.js), down to one JSON text: what any probe that
// reports those fields pays.
// Timer: performance.now() in a cross-origin-isolated page (COOP/COEP), where
// Chromium coarsens it to 5 µs rather than 100 µs.
import { ROOT } from '../tests/js/common.mjs';
import { serve } from '../tests/js/static-server.mjs';
import { withChromium } from '../tests/js/chromium.mjs';


const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 30;
const asJson = args.includes('--json');

const quantile = (sorted, q) => {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (i - lo);
};
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, median: quantile(s, 0.5), q1: quantile(s, 0.25), q3: quantile(s, 0.75), min: s[0], max: s.at(-1) };
}

const server = await serve(ROOT, {
  pages: { '/bench/probe.html': '<!doctype html><meta charset="utf-8"><title>probe benchmark</title>' },
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
try {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.origin}/bench/probe.html`);
    const result = await page.evaluate(async (rounds) => {
      const m = await import('/pkg/index.js');
      await m.default();
      const timed = async (fn) => {
        const start = performance.now();
        const value = await fn();
        return [performance.now() - start, value];
      };
      const probeOnce = () => m.probe({ timeoutMs: 10_000 });
      const rawOnce = () => navigator.gpu.requestAdapter();
      // The probe's own JS reader (crates/browser/src/probe.js), without the module.
      const { readAdapter } = await import('/crates/browser/src/probe.js');
      const floorOnce = async () => readAdapter(await navigator.gpu.requestAdapter());
      // Warm-up: the first request starts the GPU process's adapter enumeration.
      const [warmProbe, warmReport] = await timed(probeOnce);
      const [warmRaw] = await timed(rawOnce);
      await floorOnce();
      if (!warmReport.available) throw new Error(`no adapter: ${warmReport.reason} (${warmReport.message})`);
      const probe = [], raw = [], floor = [], reported = [];
      // Each round runs the three in a rotated order: whatever follows a
      // probe() runs a little slower (about 0.1 ms here), so a fixed order
      // would charge that to one of them.
      const measures = [
        async (i) => {
          const [t, report] = await timed(probeOnce);
          if (report.reason !== 'adapter-available') throw new Error(`round ${i}: ${report.reason}`);
          probe.push(t);
          reported.push(report.elapsedMs);
        },
        async (i) => {
          const [u, adapter] = await timed(rawOnce);
          if (!adapter) throw new Error(`round ${i}: requestAdapter() answered null`);
          raw.push(u);
        },
        async () => floor.push((await timed(floorOnce))[0]),
      ];
      for (let i = 0; i < rounds; i++) {
        for (let k = 0; k < measures.length; k++) await measures[(i + k) % measures.length](i);
      }
      return {
        crossOriginIsolated,
        adapter: `${warmReport.adapter.info.vendor} ${warmReport.adapter.info.architecture}`,
        warmUp: { probe: warmProbe, raw: warmRaw },
        probe, raw, floor, reported,
        userAgent: navigator.userAgent,
      };
    }, rounds);

    const probe = summary(result.probe);
    const raw = summary(result.raw);
    const floor = summary(result.floor);
    const reported = summary(result.reported);
    const ratio = probe.median / raw.median;
    const floorRatio = floor.median / raw.median;
    if (asJson) {
      console.log(JSON.stringify({ rounds, crossOriginIsolated: result.crossOriginIsolated, adapter: result.adapter, warmUp: result.warmUp, probe, raw, floor, reported, ratio, floorRatio }, null, 2));
    } else {
      const f = (x) => x.toFixed(2).padStart(7);
      const line = (name, s) =>
        `${name.padEnd(34)} ${f(s.median)}  ${f(s.min)} – ${f(s.max)}  ${f(s.q1)} – ${f(s.q3)}`;
      console.log(`WebGPU probe benchmark: ${result.adapter} adapter, ${rounds} rounds each, alternated (ms)`);
      console.log(`${result.userAgent}; crossOriginIsolated: ${result.crossOriginIsolated}`);
      console.log(`${''.padEnd(34)} ${'median'.padStart(7)}  ${'min – max'.padStart(17)}  ${'IQR'.padStart(17)}`);
      console.log(line('probe() (whole call)', probe));
      console.log(line('probe() (its own elapsedMs)', reported));
      console.log(line('navigator.gpu.requestAdapter()', raw));
      console.log(line('floor: request + read in plain JS', floor));
      console.log(`ratio of medians probe()/requestAdapter(): ${ratio.toFixed(2)}×; floor/requestAdapter(): ${floorRatio.toFixed(2)}×`);
      console.log(`warm-up: probe() ${result.warmUp.probe.toFixed(2)} ms, requestAdapter() ${result.warmUp.raw.toFixed(2)} ms`);
    }
  });
} finally {
  await server.close();
}
