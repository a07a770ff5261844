#!/usr/bin/env bash
# Builds every artifact (after scripts/setup.sh):
#   target/release/backend-targets   the native command
#   dist/backend-targets.wasm        the WASI command (wasm32-wasip1, wasm-opt -Oz)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
WASM_OPT=tests/js/node_modules/.bin/wasm-opt
mkdir -p dist

echo "== native command"
cargo build --release --bin backend-targets

echo "== WASI command"
cargo build --release --target wasm32-wasip1 --bin backend-targets
"$WASM_OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  target/wasm32-wasip1/release/backend-targets.wasm -o dist/backend-targets.wasm
printf 'dist/backend-targets.wasm: %s bytes (cargo output %s bytes)\n' \
  "$(wc -c <dist/backend-targets.wasm)" "$(wc -c <target/wasm32-wasip1/release/backend-targets.wasm)"
