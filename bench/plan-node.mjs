// The Node counterpart of examples/plan_bench.rs, for bench/run.mjs: reads
// one plan request from stdin and times `planJson` from the built package
// ITERATIONS times, after a warm-up long enough for V8 to tier the module's
// hot functions up (at least 5 plans and 300 ms). Prints one JSON line:
// { iterations, timesUs }.
//
//   node bench/plan-node.mjs [ITERATIONS [PKG_DIR]] < request.json
//
// (PKG_DIR: another build's package folder, such as target/before/pkg.)
//
// A fresh process per call, like the native and WASI helpers, so that each
// engine's samples land on whichever core the machine hands out.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const iterations = Number(process.argv[2]) || 20;
const text = readFileSync(0, 'utf8');
const pkgDir = process.argv[3] ? new URL(`file://${resolve(process.argv[3])}/`) : new URL('../pkg/', import.meta.url);
const pkg = await import(new URL('node.js', pkgDir));
for (let i = 0, t = performance.now(); i < 5 || performance.now() - t < 300; i++) pkg.planJson(text);
const timesUs = [];
for (let i = 0; i < iterations; i++) {
  const start = process.hrtime.bigint();
  pkg.planJson(text);
  timesUs.push(Number(process.hrtime.bigint() - start) / 1e3);
}
console.log(JSON.stringify({ iterations, timesUs }));
