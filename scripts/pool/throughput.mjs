// Throughput and latency side by side (scripts/pool.sh bench runs this):
//   node scripts/pool/throughput.mjs LABEL=URL... -- KIND=FILE...
// For each target and each request kind: plans/s at concurrency 32 (a fixed
// number of plans, autocannon, keep-alive to the target), then p50/p99 at
// concurrency 1 (the latency a plan sees with nothing else in flight).
// Every answer must be 200 or 422 (the unplannable kind); prints Markdown.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const autocannon = createRequire(path.join(ROOT, 'tests/js/package.json'))('autocannon');

const split = process.argv.indexOf('--');
const targets = process.argv.slice(2, split).map((a) => a.split(/=(.*)/s).slice(0, 2));
const kinds = process.argv.slice(split + 1).map((a) => {
  const [name, file] = a.split(/=(.*)/s);
  return [name, readFileSync(file)];
});
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function run(url, body, connections, amount) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    let bad = 0;
    const started = process.hrtime.bigint();
    let last = started;
    const instance = autocannon({
      url: `${url}/plan`, method: 'POST', body, headers: { 'content-type': 'application/json' },
      connections, amount, timeout: 30,
    }, (error, result) => {
      if (error) return reject(error);
      // To the last answer: autocannon itself ends at its next 1 s tick.
      const seconds = Number(last - started) / 1e9;
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
      resolve({ perSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99), bad: bad + result.errors + result.timeouts });
    });
    instance.on('response', (client, status, bytes, ms) => {
      if (status !== 200 && status !== 422) bad += 1;
      latencies.push(ms);
      last = process.hrtime.bigint();
    });
  });
}

const rows = [];
for (const [kind, body] of kinds) {
  const large = body.length > 100000;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, url] of targets) {
      // Warm the target (each host compiles nothing more, but the first
      // connections and instances cost a little), then measure.
      await run(url, body, 8, large ? 16 : 200);
      const busy = await run(url, body, 32, large ? 300 : 3000);
      const alone = await run(url, body, 1, large ? 60 : 400);
      if (busy.bad || alone.bad) throw new Error(`${label} ${kind}: ${busy.bad + alone.bad} answers not 200/422`);
      rows.push({ kind, label, round, busy, alone });
    }
  }
}

const f = (x, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
console.log('| request | target | plans/s at concurrency 32 (each round) | p50 / p99 ms at concurrency 32 | p50 / p99 ms at concurrency 1 |');
console.log('|---|---|---|---|---|');
for (const [kind] of kinds) {
  for (const [label] of targets) {
    const mine = rows.filter((r) => r.kind === kind && r.label === label);
    const lat = (pick) => mine.map((r) => `${f(pick(r).p50, 2)} / ${f(pick(r).p99, 2)}`).join(', ');
    console.log(`| ${kind} | ${label} | ${mine.map((r) => f(r.busy.perSecond)).join(', ')} | ${lat((r) => r.busy)} | ${lat((r) => r.alone)} |`);
  }
}
// nginx's added latency per plan: concurrency 1, the same host with and
// without nginx, per round (the first target is the host straight).
console.log('');
console.log('| request | nginx added per plan, p50 at concurrency 1 (each round) |');
console.log('|---|---|');
for (const [kind] of kinds) {
  const straight = rows.filter((r) => r.kind === kind && r.label === targets[0][0]);
  const front = rows.filter((r) => r.kind === kind && r.label === targets[1][0]);
  console.log(`| ${kind} | ${straight.map((s, i) => `${f(front[i].alone.p50 - s.alone.p50, 2)} ms`).join(', ')} |`);
}
