#!/usr/bin/env bash
# The benchmark table (BENCHMARKS.md says how to read it): set-up, build, the
# bench helpers (native and WASI, and the hello-world wasi:http component),
# then bench/run.mjs prints one table, bench/hostile.mjs the hostile shapes
# and bench/http.mjs the service's load table.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/setup.sh >/dev/null
scripts/build.sh >/dev/null
# --quiet, not 2>/dev/null: a compile error must show.
cargo build --quiet --release --example plan_bench --example hello --example plan_phases
cargo build --quiet --release --target wasm32-wasip1 --example plan_bench --example hello --example plan_phases
cargo build --quiet -p backend-targets-http --profile service --target wasm32-wasip2 --example hello
node bench/run.mjs
node bench/phases.mjs
node bench/hostile.mjs
node bench/http.mjs
