#!/usr/bin/env bash
# Builds an earlier commit's artifacts into target/before/, for the benchmark
# table's before/after columns in one run (BENCHMARKS.md):
#   scripts/bench-before.sh REV     (default: main)
# then: node bench/run.mjs --before target/before --also-detect before=/target/before/pkg/
#       node bench/cold.mjs --also-detect before=/target/before/pkg/ ...
# The commit is exported with `git archive` into a temporary folder (no
# worktree, no change to the repository), built there with its own
# scripts/build.sh and target folder (the first time some minutes), and its
# pkg/, dist/backend-targets.wasm and plan_bench/hello helpers copied here.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
rev=${1:-main}
commit=$(git rev-parse "$rev")
src=${BENCH_BEFORE_SRC:-${TMPDIR:-/tmp}/backend-targets-before}
if [ "$(cat "$src/COMMIT" 2>/dev/null)" != "$commit" ]; then
  # A folder of another commit: its sources replaced, its target folder kept.
  find "$src" -mindepth 1 -maxdepth 1 ! -name target -exec rm -rf {} + 2>/dev/null || true
  mkdir -p "$src"
  # -m: the files dated now, not at the commit (which may predate the kept
  # target folder, and cargo would not rebuild).
  git archive "$commit" | tar -xm -C "$src"
  echo "$commit" >"$src/COMMIT"
fi
ln -sfn "$PWD/tests/js/node_modules" "$src/tests/js/node_modules"
(
  cd "$src"
  scripts/build.sh >/dev/null
  cargo build --quiet --release --example plan_bench --example hello
  cargo build --quiet --release --target wasm32-wasip1 --example plan_bench --example hello
)
rm -rf target/before
mkdir -p target/before/dist target/before/examples
cp -r "$src/pkg" target/before/pkg
cp "$src/dist/backend-targets.wasm" target/before/dist/
cp "$src/target/release/examples/plan_bench" target/before/examples/
cp "$src/target/wasm32-wasip1/release/examples/plan_bench.wasm" "$src/target/wasm32-wasip1/release/examples/hello.wasm" \
  target/before/examples/
echo "$commit" >target/before/COMMIT
echo "target/before: $rev ($commit)"
