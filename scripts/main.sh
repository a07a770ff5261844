#!/usr/bin/env bash
# The main job: set-up, build everything, show the command at work (natively
# and as WASI under wasmtime) and the service (the wasi:http component under
# wasmtime serve, asked for one plan), then serve the repository on 127.0.0.1
# so the demo page runs at /www/ and the ONNX Runtime Web example at
# /www/onnx/ (Ctrl-C stops it).
#   PORT=8000 (default)   --no-serve: stop after the demonstration
# The set-up's and the build's output go to .tools/logs/main.log (a failure
# prints its end); a second run of an unchanged tree builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
serve=1
[ "${1:-}" = "--no-serve" ] && serve=0
port=${PORT:-8000}

# The port first: finding it taken after the build would waste the build.
if [ $serve = 1 ] && ! python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))" "$port" 2>/dev/null; then
  echo "main.sh: port $port on 127.0.0.1 is taken (another server?); choose another: PORT=8001 scripts/main.sh" >&2
  exit 1
fi

mkdir -p .tools/logs
log=.tools/logs/main.log
step() { # what, command...
  local what=$1; shift
  printf '== %s ... ' "$what"
  local start=$SECONDS
  if "$@" >"$log.part" 2>&1; then
    cat "$log.part" >>"$log"
    echo "done ($((SECONDS - start)) s)"
  else
    cat "$log.part" >>"$log"
    echo "FAILED; its last lines (all of it in $log):"
    tail -n 40 "$log.part"
    exit 1
  fi
}
: >"$log"
step "set-up (scripts/setup.sh: only what is missing)" scripts/setup.sh
step "build (scripts/build.sh: the native and WASI commands, the wasi:http component, the npm package)" scripts/build.sh
grep -E '^(dist|pkg)/' "$log" | sed 's/^/   /'

native=target/release/backend-targets
show() { printf '\n$ %s\n' "$*"; "$@"; }
show $native presets --pretty | head -n 12; echo "  ... (13 presets)"
show $native availability linuxCuda --enable-libtorch
request=tests/vectors/requests/per-op-fallback.json
printf '\n$ cat %s   # a plan request: 4 ops, a WebGPU config then a CPU one, per-op fallback\n' "$request"
cat "$request"
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan --pretty < $request"
wasmtime run dist/backend-targets.wasm plan --pretty <"$request"
request=tests/vectors/requests/unplannable.json
echo; echo "\$ wasmtime run dist/backend-targets.wasm plan < $request   # the SPEC messages only"
set +e
wasmtime run dist/backend-targets.wasm plan <"$request" | grep -o '"message":"[^"]*"'
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

[ $serve = 0 ] && exit 0
echo
echo "Demo:                  http://127.0.0.1:$port/www/"
echo "ONNX Runtime Web page: http://127.0.0.1:$port/www/onnx/   (detect(), then webgpu or wasm)"
echo "(serving $(pwd) on 127.0.0.1:$port; Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1
