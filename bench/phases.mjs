// The planner's phases apart: the request's parse,
// the plan and the answer's writing, each timed inside the process by
// examples/plan_phases.rs, natively and under wasmtime, for the planner
// rows' requests (bench/catalog.mjs: 100, 1,000 and 10,000 capsules).
// Rounds alternate native and wasmtime; each phase is the median of the
// rounds' medians, and the ratio is wasmtime's over native's. A second table
// sets them against the floor (examples/plan_phases.rs: serde_json alone,
// into derive-only structs of the same shape, no checks).
//
//   cargo build --release --example plan_phases
//   cargo build --release --target wasm32-wasip1 --example plan_phases
//   node bench/phases.mjs [--rounds N]
import { spawnSync } from 'node:child_process';
import { planRequest } from './catalog.mjs';
import { ROOT } from '../tests/js/common.mjs';

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 6;
const NATIVE = `${ROOT}/target/release/examples/plan_phases`;
const WASI = `${ROOT}/target/wasm32-wasip1/release/examples/plan_phases.wasm`;

const run = (command, argv, input) => {
  const out = spawnSync(command, argv, { input, maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`${command}: ${out.stderr}`);
  return JSON.parse(out.stdout);
};
const PHASES = [['parseUs', 'parse'], ['planUs', 'plan'], ['writeUs', 'write']];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

const floors = [];
console.log('| capsules | request / answer | phase | native (µs) | wasmtime (µs) | ratio | share of wasmtime\'s time |');
console.log('|---|---|---|---|---|---|---|');
for (const n of [100, 1000, 10000]) {
  const text = JSON.stringify(planRequest(n));
  const perPlan = n >= 10000 ? 10 : n >= 1000 ? 40 : 200;
  const rounds = { native: [], wasi: [] };
  for (let i = 0; i < ROUNDS; i++) {
    rounds.native.push(run(NATIVE, [String(perPlan)], text));
    rounds.wasi.push(run('wasmtime', ['run', '-C', 'cache=y', WASI, String(perPlan)], text));
  }
  const phase = (engine, key) => median(rounds[engine].map((r) => r[key]));
  const sum = (engine) => PHASES.reduce((all, [key]) => all + phase(engine, key), 0);
  const total = sum('wasi');
  const sizes = `${(rounds.native[0].requestBytes / 1024).toFixed(0)} KiB / ${(rounds.native[0].answerBytes / 1024).toFixed(0)} KiB`;
  for (const [key, name] of PHASES) {
    const [native, wasi] = [phase('native', key), phase('wasi', key)];
    console.log(`| ${n} | ${sizes} | ${name} | ${f(native)} | ${f(wasi)} | ${(wasi / native).toFixed(2)} | ${Math.round((100 * wasi) / total)} % |`);
  }
  console.log(`| ${n} | | all three | ${f(sum('native'))} | ${f(total)} | ${(total / sum('native')).toFixed(2)} | |`);
  floors.push({ n, native: (key) => phase('native', key), wasi: (key) => phase('wasi', key) });
}

// The floor: the same text read by plain serde_json into
// derive-only structs and written back, and the answer written by
// serde_json::to_string, in the same processes.
console.log('\n| capsules | engine | parse ÷ floor read | write ÷ serde_json write | parse + plan + write ÷ floor read + write |');
console.log('|---|---|---|---|---|');
for (const { n, native, wasi } of floors) {
  for (const [engine, phase] of [['native', native], ['wasmtime', wasi]]) {
    const ours = phase('parseUs') + phase('planUs') + phase('writeUs');
    const floor = phase('floorReadUs') + phase('floorWriteUs');
    console.log(`| ${n} | ${engine} | ${(phase('parseUs') / phase('floorReadUs')).toFixed(2)} (${f(phase('parseUs'))} / ${f(phase('floorReadUs'))} µs) | `
      + `${(phase('writeUs') / phase('serdeWriteUs')).toFixed(2)} | ${(ours / floor).toFixed(2)} (${f(ours)} / ${f(floor)} µs) |`);
  }
}

// The headline comparison, process against process: `backend-targets plan`
// (the native command, built by scripts/build.sh) against `plan_phases
// floor` (read into derive-only structs, written back), each a fresh
// process on the 10,000-capsule request, alternating, median wall time.
const COMMAND = `${ROOT}/target/release/backend-targets`;
const wall = (command, argv, input) => {
  const start = process.hrtime.bigint();
  const out = spawnSync(command, argv, { input, maxBuffer: 1 << 26 });
  if (out.status !== 0 && out.status !== 1) throw new Error(`${command}: ${out.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
{
  const text = JSON.stringify(planRequest(10000));
  const times = { plan: [], floor: [] };
  for (let i = 0; i < 5 * ROUNDS; i++) {
    times.plan.push(wall(COMMAND, ['plan'], text));
    times.floor.push(wall(NATIVE, ['floor'], text));
  }
  const [plan, floor] = [median(times.plan), median(times.floor)];
  console.log('\n| 10,000 capsules, processes | `backend-targets plan` (ms) | `plan_phases floor` (ms) | ratio |');
  console.log('|---|---|---|---|');
  console.log(`| median of ${5 * ROUNDS} | ${f(plan)} | ${f(floor)} | ${(plan / floor).toFixed(2)} |`);
}
