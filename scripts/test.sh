#!/usr/bin/env bash
# Set-up, build, then every test: native Rust (unit, integration, property,
# golden, schemas, doc), then the Node suites (WASI under wasmtime and node:wasi).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
start=$(date +%s)
scripts/setup.sh
scripts/build.sh

echo "== native Rust tests"
cargo test --release --features schema

echo "== Node test suites"
node --test tests/js/

echo "== all tests passed in $(( $(date +%s) - start ))s"
