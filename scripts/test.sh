#!/usr/bin/env bash
# Set-up, then the quick gates (`cargo xtask quick`: rustfmt, the JS shell's
# unit tests on the source, oxlint, native clippy, the core's tests but its
# long oracle), so that a break shows in minutes; then the other lint gates,
# the build and every other test:
#   native Rust: unit, integration (core, probe, CLI goldens, malformed corpus,
#     the native probe against stand-in libraries), property tests, schemas,
#     the library's own rules (no process-wide effect, no import circle, the
#     wasm-bindgen pin, the limits' lists), doc tests (the gates also check the Metal path for aarch64-apple-darwin);
#     the wasi:http service's routes and answers (http/, natively)
#   the WASI command's allocator under wasmtime (crates/cli/src/main/wasi_alloc.rs, the binary's)
#   wasm-bindgen-test: the binding layer under Node, the probe in Chromium
#   rustdoc with -D warnings; the hand-written JS type-checked (tsc) and linted (oxlint)
#   the size budgets, right after the build (tests/js/sizes.test.mjs)
#   Node suites (tests/js/): the npm package (node entry and browser entry), the
#     consumer check (offline install, tsc, Vite), the WASI build under wasmtime
#     and node:wasi, the wasi:http component under `wasmtime serve` and
#     `jco serve` against the native command, the probe under Node, the JS halves (src/*.js) on their
#     own, and Chromium (demo page at desktop and phone width, probe, worker,
#     the ONNX Runtime Web example, the package README's ONNX Runtime Web recipes
#     under vite dev and vite build and its Transformers.js recipe, offline)
#   deploy/nginx.conf in front of wasmtime serve, with idle and trickling
#     clients (scripts/nginx-front.sh test)
#   a bounded fuzzing run (cargo-fuzz, 20 s per target)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
start=$(date +%s)
# What the quick gates need first; the rest of the set-up (cargo tools,
# Debian packages, the fuzzing nightly) meanwhile, in the background.
scripts/setup.sh quick
mkdir -p .tools/logs
scripts/setup.sh >.tools/logs/setup.log 2>&1 &
setup_pid=$!
trap 'kill "$setup_pid" 2>/dev/null || true' EXIT

echo "== the quick gates (cargo xtask quick), $(( $(date +%s) - start ))s after the start"
cargo xtask quick

echo "== the rest of the set-up (scripts/setup.sh, started with the quick gates)"
if ! wait "$setup_pid"; then
  cat .tools/logs/setup.log
  echo "scripts/setup.sh failed" >&2
  exit 1
fi
tail -n 20 .tools/logs/setup.log
trap - EXIT

echo "== formatting and lints (rustfmt, clippy: WASI, browser, detect-only, macOS, Windows, the wasi:http component)"
(cd fuzz && cargo fmt --check)
cargo clippy --all-targets --target wasm32-wasip1 -- -D warnings
# The browser module (crates/browser, with its tests), its three feature sets,
# and the core as it builds it (its own tests are native: proptest's RNG has no
# wasm32-unknown-unknown backend).
cargo clippy -p backend-targets-browser --all-targets --target wasm32-unknown-unknown -- -D warnings
# The detect-only module (backend-targets/detect): without the planner's exports.
cargo clippy -p backend-targets-browser --lib --target wasm32-unknown-unknown --no-default-features -- -D warnings
cargo clippy -p backend-targets-browser --lib --target wasm32-unknown-unknown --no-default-features --features verify -- -D warnings
cargo clippy -p backend-targets --lib --target wasm32-unknown-unknown -- -D warnings
# The native probe's Metal path, for macOS, and its Windows paths (DLL names,
# the loader's flags, the isolation without Unix descriptors): checked, not
# linked (no linker here).
cargo clippy --target aarch64-apple-darwin --lib -- -D warnings
cargo clippy --target x86_64-pc-windows-gnu --lib -- -D warnings
# The other Linux platform packages' hosts (scripts/platform-package.mjs):
# aarch64 glibc (where c_char is unsigned) and x86_64 musl.
cargo clippy --target aarch64-unknown-linux-gnu --lib -- -D warnings
cargo clippy --target x86_64-unknown-linux-musl --lib -- -D warnings
# The wasi:http component (a workspace member, not a default one): the service natively, the component for wasm32-wasip2.
cargo clippy -p backend-targets-http --all-targets -- -D warnings
cargo clippy -p backend-targets-http --all-targets --target wasm32-wasip2 -- -D warnings

echo "== rustdoc (every crate's docs, intra-doc links checked)"
# Private items too: the modules' docs name each other (`[`de`]`, ...).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p backend-targets-browser --target wasm32-unknown-unknown --no-deps --document-private-items --quiet

scripts/build.sh

echo "== the hand-written JS: type check (tsc, checkJs: tsconfig.json) and lint (oxlint)"
tests/js/node_modules/.bin/tsc -p tsconfig.json
tests/js/node_modules/.bin/oxlint --deny-warnings --ignore-pattern 'www/onnx/ort/**' pkg-template crates/browser/src tests/js scripts/*.mjs bench www

echo "== size budgets (tests/js/sizes.test.mjs; again in the Node suites below)"
node --test tests/js/sizes.test.mjs

echo "== native Rust tests (the core's but its long oracle ran in the quick gates)"
# The dev profile: release sets panic = "abort", which test harnesses cannot link.
cargo test -p backend-targets --features schema strict_reader_oracle
cargo test --features backend-targets/schema -p backend-targets-native-probe -p backend-targets-cli -p xtask
# The service's routes and answers (http/src/service.rs), natively.
cargo test -p backend-targets-http

log=$(mktemp); trap 'rm -f "$log"' EXIT
echo "== the WASI command's allocator (crates/cli/src/main/wasi_alloc.rs, wasm32-wasip1, under wasmtime)"
# The binary's own tests: the allocator is the command's, not the library's.
cargo test --target wasm32-wasip1 --bin backend-targets wasi_alloc 2>&1 | tee "$log"
grep -Eq '^test result: ok\. [1-9][0-9]* passed; 0 failed' "$log" || { echo "wasi_alloc: no passing run" >&2; exit 1; }

echo "== wasm-bindgen-test: binding layer (wasm32-unknown-unknown, under Node)"
cargo test -p backend-targets-browser --target wasm32-unknown-unknown --test wasm_bindings 2>&1 | tee "$log"
# The runner exits 0 when no test ran: insist on a positive count.
grep -Eq '^test result: ok\. [1-9][0-9]* passed; 0 failed' "$log" || { echo "wasm_bindings: no passing run" >&2; exit 1; }

echo "== wasm-bindgen-test: probe in Chromium"
scripts/test-browser.sh --wasm-only

echo "== Node test suites"
node --test tests/js/

echo "== nginx in front of wasmtime serve: idle and slow clients (deploy/nginx.conf)"
scripts/nginx-front.sh test

echo "== the service past one host: three hosts behind deploy/nginx.conf, one faulted at a time (root)"
scripts/pool.sh test

echo "== bounded fuzzing"
scripts/fuzz.sh bounded

echo "== all tests passed in $(( $(date +%s) - start ))s"
