// The size goals as tests: each built module against its goal,
// measured as BENCHMARKS.md's "Module sizes" and bench/run.mjs measure it
// (gzip: Node's zlib at level 9; raw: the file's bytes). Run by
// scripts/test.sh after scripts/build.sh; a module that is not built fails,
// as one over its goal does. Each test prints its figure and the room left.
//
// One row per module: a new module (or a new goal) is one more row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './common.mjs';

/** How a goal measures a file's bytes. */
const MEASURES = {
  gzip: (bytes) => gzipSync(bytes, { level: 9 }).length,
  raw: (bytes) => bytes.length,
};

/** [what, the file from the repository root, its measure, the goal in bytes (at most)]. */
// The full module's budget was 70,182 B until the verification's report
// gained two figures (a lower bound, `gpuMsMoreThan`, and the clock's step,
// `timerResolutionMs`) that the full module reads in a kept verdict: 70,351 B.
// Raised to 70,700 B with the cold page measured (docs/benchmarks-history.md,
// "The verified decision"): the full package's cells within their earlier spread.
const FULL_MODULE_BUDGET = 70_700;
const SIZE_GOALS = [
  ['the full browser module', 'pkg/backend_targets_bg.wasm', 'gzip', FULL_MODULE_BUDGET],
  ['the detect-only browser module (backend-targets/detect)', 'pkg/detect_bg.wasm', 'gzip', 25_000],
  // The verification (backend-targets/verify, loaded on demand): no goal was
  // set for it; it is held to the full module's, so that verifying never
  // costs a page more than the whole package would.
  ['the verification module (backend-targets/verify)', 'pkg/verified_bg.wasm', 'gzip', FULL_MODULE_BUDGET],
  ['the WASI command', 'dist/backend-targets.wasm', 'raw', 153_600],
];

const bytes = (n) => `${n.toLocaleString('en')} B`;

for (const [what, file, measure, goal] of SIZE_GOALS) {
  test(`size: ${what}, ${file}, is at most ${bytes(goal)} ${measure}`, (t) => {
    const path = join(ROOT, file);
    assert.ok(existsSync(path), `${file} is not built (scripts/build.sh)`);
    const size = MEASURES[measure](readFileSync(path));
    const line = `${file}: ${bytes(size)} ${measure}, goal ≤ ${bytes(goal)}, ${bytes(goal - size)} to spare`;
    t.diagnostic(line);
    assert.ok(size <= goal, `${file}: ${bytes(size)} ${measure}, over its goal of ${bytes(goal)} by ${bytes(size - goal)}`);
  });
}

test('size: every measure a goal names exists, and each file has one goal', () => {
  for (const [, file, measure, goal] of SIZE_GOALS) {
    assert.ok(Object.hasOwn(MEASURES, measure), `${file}: no measure ${measure}`);
    assert.ok(Number.isInteger(goal) && goal > 0, `${file}: goal ${goal}`);
  }
  const files = SIZE_GOALS.map(([, file]) => file);
  assert.equal(new Set(files).size, files.length, 'a file with two rows');
  // Each measure measures: 10,000 zero bytes are 10,000 raw and a few dozen gzipped.
  assert.equal(MEASURES.raw(Buffer.alloc(10_000)), 10_000);
  assert.ok(MEASURES.gzip(Buffer.alloc(10_000)) < 100);
});
