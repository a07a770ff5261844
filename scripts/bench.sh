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
cargo build --release --example plan_bench --example hello 2>/dev/null
cargo build --release --target wasm32-wasip1 --example plan_bench --example hello 2>/dev/null
cargo build --manifest-path http/Cargo.toml --release --target wasm32-wasip2 --example hello 2>/dev/null
node bench/run.mjs
node bench/hostile.mjs
node bench/http.mjs
