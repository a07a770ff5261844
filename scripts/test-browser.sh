#!/usr/bin/env bash
# The browser suites, in a real headless Chromium (Debian's chromium and
# chromium-driver, installed by scripts/setup.sh), after scripts/build.sh:
#   tests/js/browser.test.mjs   the demo page www/ and the WebGPU probe, driven by
#                               playwright-core: SwiftShader kept, no-adapter,
#                               insecure context, worker, CSP, plan-time gating,
#                               the one-module entry's requests, phone width
#   tests/js/onnx.test.mjs      www/onnx/: the plan's provider runs a model in
#                               ONNX Runtime Web (webgpu and wasm)
#   tests/js/hostile-browser.test.mjs  hostile navigator.gpu stand-ins
#   crates/browser/tests/probe_browser.rs  wasm-bindgen-test in Chromium: the timeout,
#                               adapter-request-failed and device-request-failed
#                               outcomes, simulated
# (tests/js/probe-node.test.mjs, the probe under Node, runs with `node --test tests/js/`.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
start=$(date +%s)

# --wasm-only: skip the Node suite (scripts/test.sh runs it with the others).
if [ "${1:-}" != "--wasm-only" ]; then
  echo "== Chromium: demo page, WebGPU probe, ONNX Runtime Web example, hostile navigator.gpu (tests/js/browser.test.mjs, onnx.test.mjs, hostile-browser.test.mjs)"
  node --test tests/js/browser.test.mjs tests/js/onnx.test.mjs tests/js/hostile-browser.test.mjs
fi

echo "== Chromium: wasm-bindgen-test (crates/browser/tests/probe_browser.rs)"
# wasm-bindgen-test-runner (the cargo runner in .cargo/config.toml) drives
# Chromium through chromedriver, with the capabilities in webdriver.json
# (the binary and its flags: --enable-unsafe-webgpu exposes SwiftShader).
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/webdriver.json"
export WASM_BINDGEN_TEST_TIMEOUT=60
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test -p backend-targets-browser --target wasm32-unknown-unknown --test probe_browser 2>&1 | tee "$log" || status=$?
# The runner exits 0 when no test ran at all: insist on a positive count.
if [ "$status" -ne 0 ] || ! grep -Eq '^test result: ok\. [1-9][0-9]* passed; 0 failed' "$log"; then
  echo "crates/browser/tests/probe_browser.rs: no passing run (exit status $status)" >&2
  exit 1
fi

echo "== browser suites passed in $(( $(date +%s) - start ))s"
