#!/usr/bin/env bash
# The main job: set-up, build everything, then show the command at work,
# natively and as WASI under wasmtime.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/setup.sh
scripts/build.sh

native=target/release/backend-targets
show() { printf '\n$ %s\n' "$*"; "$@"; }
show $native presets --pretty
show $native availability linuxCuda --enable-libtorch
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan --pretty < tests/vectors/requests/per-op-fallback.json"
wasmtime run dist/backend-targets.wasm plan --pretty < tests/vectors/requests/per-op-fallback.json | head -n 40
echo "  ..."
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan < tests/vectors/requests/unplannable.json; echo \"exit \$?\""
set +e
wasmtime run dist/backend-targets.wasm plan < tests/vectors/requests/unplannable.json | grep -o '"message":"[^"]*"'
echo "exit ${PIPESTATUS[0]}"
