#!/usr/bin/env bash
# The main job: set-up, build everything, show the command at work (natively
# and as WASI under wasmtime), then serve the repository on 127.0.0.1 so the
# demo page runs at /www/ (Ctrl-C stops it).
#   PORT=8000 (default)   --no-serve: stop after the demonstration
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/setup.sh
scripts/build.sh

native=target/release/backend-targets
show() { printf '\n$ %s\n' "$*"; "$@"; }
show $native presets --pretty | head -n 12; echo "  ..."
show $native availability linuxCuda --enable-libtorch
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan --pretty < tests/vectors/requests/per-op-fallback.json"
wasmtime run dist/backend-targets.wasm plan --pretty < tests/vectors/requests/per-op-fallback.json | head -n 40
echo "  ..."
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan < tests/vectors/requests/unplannable.json"
set +e
wasmtime run dist/backend-targets.wasm plan < tests/vectors/requests/unplannable.json | grep -o '"message":"[^"]*"'
echo "exit ${PIPESTATUS[0]} (1: not plannable, explained on stdout)"
set -e

[ "${1:-}" = "--no-serve" ] && exit 0
port=${PORT:-8000}
echo
echo "Demo: http://127.0.0.1:$port/www/   (serving $(pwd) on 127.0.0.1; Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1
