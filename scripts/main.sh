#!/usr/bin/env bash
# The main job: set-up, build everything, show the command at work (natively
# and as WASI under wasmtime), the service (the wasi:http component under
# wasmtime serve, asked for one plan) and the browser's choice (headless
# Chromium, scripts/browser-choice.mjs), then serve the repository on
# 127.0.0.1 so the demo page runs at /www/ and the ONNX Runtime Web example
# at /www/onnx/ (Ctrl-C stops it).
#   PORT=8000 (default)   --no-serve: stop after the demonstration
# It prints a line a step, then the demo's URL and a short summary (what was
# built, the browser's choice); the details go to files it names:
# .tools/logs/main.log (the set-up's and the build's output; a failure
# prints its end) and .tools/logs/main-details.log (each command and its
# answer). A second run of an unchanged tree builds nothing.
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

details=.tools/logs/main-details.log
native=target/release/backend-targets
request=tests/vectors/requests/per-op-fallback.json
unplannable=tests/vectors/requests/unplannable.json
show() { printf '\n$ %s\n' "$*"; "$@"; }
# The command, WASI and the service at work, every command and its answer
# (into $details; a failure shows its end). Called as a step's condition,
# where `set -e` does not hold: each command says its failure itself.
demonstrate() {
  if ! demonstration >"$details" 2>&1; then
    tail -n 40 "$details"
    echo "(all of it in $details)"
    return 1
  fi
}
demonstration() {
  show $native presets --pretty | head -n 12; echo "  ... (13 presets)"
  show $native availability linuxCuda --enable-libtorch || return 1
  printf '\n$ cat %s   # a plan request: 4 ops, a WebGPU config then a CPU one, per-op fallback\n' "$request"
  cat "$request"
  echo; echo "\$ wasmtime run dist/backend-targets.wasm plan --pretty < $request"
  wasmtime run dist/backend-targets.wasm plan --pretty <"$request" || return 1
  echo; echo "\$ wasmtime run dist/backend-targets.wasm plan < $unplannable   # the SPEC messages only"
  wasmtime run dist/backend-targets.wasm plan <"$unplannable" | grep -o '"message":"[^"]*"'
  echo "exit ${PIPESTATUS[0]} (1: not plannable, explained on stdout)"
  # The same planner as a service: the wasi:http component under wasmtime serve
  # (docs/service.md), on a free loopback port, asked once.
  local service_port service_pid
  service_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo; echo "\$ wasmtime serve -O pooling-allocator=n -S cli --addr 127.0.0.1:$service_port dist/backend-targets-http.wasm &"
  wasmtime serve -O pooling-allocator=n -S cli --addr "127.0.0.1:$service_port" dist/backend-targets-http.wasm 2>/dev/null &
  service_pid=$!
  echo "\$ POST http://127.0.0.1:$service_port/plan < $unplannable"
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
    })();' "http://127.0.0.1:$service_port/plan" "$unplannable"
  kill "$service_pid"
  echo; echo "\$ node scripts/browser-choice.mjs   # headless Chromium, WebGPU exposed"
  node scripts/browser-choice.mjs || true
}
step "demonstration (the command, WASI, the service, headless Chromium's choice: into $details)" demonstrate

# The summary: the demo first, then what was built and what the browser chose.
echo
if [ $serve = 1 ]; then
  echo "Demo:                  http://127.0.0.1:$port/www/"
  echo "ONNX Runtime Web page: http://127.0.0.1:$port/www/onnx/   (detect(), then webgpu or wasm)"
  echo
fi
echo "Built:"
grep -E '^(dist|pkg)/' "$log" | sed 's/^/   /'
echo "   $native (the native command)"
echo "The browser's choice (headless Chromium here, WebGPU exposed; detect({ allowFallbackAdapter: false, verify: true })):"
echo "   $(grep -A1 '^\$ node scripts/browser-choice.mjs' "$details" | tail -n 1)"
echo "   (your own browser decides for itself when it opens the demo)"
planned=$(wasmtime run dist/backend-targets.wasm plan <"$request" \
  | node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => { const r = JSON.parse(t); console.log(r.ok ? `ok, ${r.kernels.length} kernels: ${r.kernels.map((k) => `${k.op} on ${k.provider}`).join(", ")}` : "not plannable"); });')
echo "The planner (WASI command): $request: $planned"
echo "Details: $details (every command and its answer), $log (set-up and build)"

[ $serve = 0 ] && exit 0
echo
echo "(serving $(pwd) on 127.0.0.1:$port; Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1
