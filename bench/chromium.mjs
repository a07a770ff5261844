// Chromium rows of the benchmark table: instantiate + init of the package in
// a page (fresh page each run) against compiling the same bytes alone, and the
// probe against a raw requestAdapter() (bench/probe.mjs, same page, alternated).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { serve } from '../tests/js/static-server.mjs';
import { withChromium } from '../tests/js/chromium.mjs';

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const f = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));

export async function chromiumFigures(root) {
  const rows = [];
  const server = await serve(root, { pages: { '/bench/start.html': '<!doctype html><meta charset="utf-8"><title>start</title>' } });
  try {
    await withChromium([], async (context) => {
    const init = [], compile = [];
    for (let i = 0; i < 12; i++) {
      const page = await context.newPage();
      await page.goto(`${server.origin}/bench/start.html`);
      const [a, b] = await page.evaluate(async () => {
        const bytes = await (await fetch('/pkg/backend_targets_bg.wasm')).arrayBuffer();
        const m = await import('/pkg/index.js');
        // Evaluating the entry starts its own fetch and compile of the .wasm
        // (and an adapter request): let them finish so they do not overlap the timings.
        await new Promise((resolve) => setTimeout(resolve, 300));
        let t = performance.now();
        await WebAssembly.compile(bytes);
        const compileMs = performance.now() - t;
        t = performance.now();
        await m.default({ module_or_path: bytes });
        m.presets();
        return [performance.now() - t, compileMs];
      });
      init.push(a); compile.push(b);
      await page.close();
    }
    rows.push(['start', 'Chromium: init + first call (ms)', f(median(init)), `${f(Math.min(...init))}–${f(Math.max(...init))}`,
      `compile only ${f(median(compile))}`, (median(init) / median(compile)).toFixed(2), '']);
    });
  } finally {
    await server.close();
  }
  const probe = spawnSync(process.execPath, [join(root, 'bench', 'probe.mjs'), '--json', '--rounds', '30']);
  if (probe.status !== 0) throw new Error(`bench/probe.mjs: ${probe.stderr}`);
  const p = JSON.parse(probe.stdout);
  rows.push(['probe', 'probe() in Chromium, SwiftShader (ms)', f(p.probe.median), `${f(p.probe.min)}–${f(p.probe.max)}`,
    `requestAdapter() ${f(p.raw.median)}`, p.ratio.toFixed(2), '≤ 1.10']);
  rows.push(['probe', 'floor: requestAdapter() + reading info, features, limits in plain JS (ms)', f(p.floor.median),
    `${f(p.floor.min)}–${f(p.floor.max)}`, `requestAdapter() ${f(p.raw.median)}`, p.floorRatio.toFixed(2), '']);
  return rows;
}
