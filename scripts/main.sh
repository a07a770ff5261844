#!/usr/bin/env bash
# The main job: set-up, build everything, show the command at work (natively
# and as WASI under wasmtime) and the service (the wasi:http component under
# wasmtime serve), then serve the repository on 127.0.0.1 so the demo page
# runs at /www/ (Ctrl-C stops it).
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

# The same planner as a service: the wasi:http component under wasmtime serve
# (README, "The service over HTTP"), on a free loopback port, asked once.
service_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo; echo "\$ wasmtime serve -O pooling-allocator=n -S cli --addr 127.0.0.1:$service_port dist/backend-targets-http.wasm &"
wasmtime serve -O pooling-allocator=n -S cli --addr "127.0.0.1:$service_port" dist/backend-targets-http.wasm 2>/dev/null &
service_pid=$!
echo "\$ POST http://127.0.0.1:$service_port/plan < tests/vectors/requests/unplannable.json"
node -e '
  const [url, file] = process.argv.slice(1);
  const body = require("fs").readFileSync(file);
  (async () => {
    for (let i = 0; i < 100; i++) {
      try {
        const r = await fetch(url, { method: "POST", body });
        console.log(`${r.status} ${r.statusText}: ${(await r.text()).slice(0, 160)}...`);
        return;
      } catch { await new Promise((ok) => setTimeout(ok, 100)); }
    }
    console.log("the service did not answer");
  })();' "http://127.0.0.1:$service_port/plan" tests/vectors/requests/unplannable.json
kill "$service_pid"

[ "${1:-}" = "--no-serve" ] && exit 0
port=${PORT:-8000}
echo
echo "Demo: http://127.0.0.1:$port/www/   (serving $(pwd) on 127.0.0.1; Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1
