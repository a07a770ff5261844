#!/usr/bin/env bash
# Idempotent set-up on a fresh machine (Rust 1.95 via rustup, node 20, npm,
# python3, Debian apt): installs only what is missing, in parallel, once.
#   scripts/setup.sh          everything
#   scripts/setup.sh quick    what `cargo xtask quick` needs (rustup targets and
#                             components, tests/js/node_modules)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh
export PATH="$HOME/.cargo/bin:$PATH"
mkdir -p .tools/logs

step() { printf '\n== %s\n' "$*"; }

step "rustup targets and components (rustfmt, clippy)"
installed=$(rustup target list --installed)
# aarch64-apple-darwin, x86_64-pc-windows-gnu, aarch64-unknown-linux-gnu and
# x86_64-unknown-linux-musl: only to check that the native command compiles
# for the hosts of the other platform packages (scripts/test.sh; linking for
# them is impossible here).
for t in wasm32-unknown-unknown wasm32-wasip1 wasm32-wasip2 aarch64-apple-darwin x86_64-pc-windows-gnu \
  aarch64-unknown-linux-gnu x86_64-unknown-linux-musl; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done
# The formatting and lint gates (scripts/test.sh).
components=$(rustup component list --installed)
for c in rustfmt clippy; do
  grep -q "^$c" <<<"$components" || rustup component add "$c"
done

step "npm tooling (tests/js)"
stamp=tests/js/node_modules/.package-lock.json
if [ -f "$stamp" ] && [ "$stamp" -nt tests/js/package-lock.json ]; then
  echo "node_modules up to date"
else
  # onnxruntime-node (a dependency of @huggingface/transformers, for Node
  # only: tests/js/transformers.test.mjs runs it in the browser) has a
  # postinstall that on Linux x64 downloads ONNX Runtime's CUDA provider from
  # NuGet, out of reach here: skipped (its own setting).
  (cd tests/js && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error)
fi

# `scripts/setup.sh quick`: only what `cargo xtask quick` needs (the targets and
# components above, node_modules); scripts/test.sh runs the quick gates while
# the rest installs.
if [ "${1:-}" = quick ]; then exit 0; fi

# cargo-fuzz's nightly (scripts/fuzz.sh), pinned by date (scripts/versions.sh).
if [ -n "$(fuzz_toolchain)" ]; then
  echo "fuzzing toolchain present: $(fuzz_toolchain)"
else
  rustup toolchain install "nightly-$FUZZ_NIGHTLY_DATE" --profile minimal
fi

pids=(); names=()
background() { # name, command...
  local name=$1; shift
  echo "installing $name in the background (log: .tools/logs/$name.log)"
  ("$@" >".tools/logs/$name.log" 2>&1) & pids+=($!); names+=("$name")
}

step "cargo tools"
# `-C cache=y` on a missing file fails either way; only a build without the
# cache feature says so.
# (Each reads the output whole first: under pipefail, `wasmtime … | grep -q`
# takes wasmtime's own failure for the test's answer.)
wasmtime_has_cache() { ! grep -q "caching disabled" <<<"$(wasmtime run -C cache=y /nonexistent.wasm 2>&1 || true)"; }
# `serve` runs the wasi:http component (dist/backend-targets-http.wasm). This
# build has no --help (clap's default features are off): a build without
# `serve` takes the word for a module's file name instead.
wasmtime_has_serve() { grep -q '"/nonexistent.wasm"' <<<"$(wasmtime serve -O pooling-allocator=n /nonexistent.wasm 2>&1 || true)"; }
# The pooling allocator (`wasmtime serve`'s default where the address space
# allows it): a build without it says so.
wasmtime_has_pooling() { ! grep -q "disabled at compile time" <<<"$(wasmtime run -O pooling-allocator=y /nonexistent.wasm 2>&1 || true)"; }
if wasmtime --version 2>/dev/null | grep -q "^wasmtime $WASMTIME_VERSION" && wasmtime_has_cache && wasmtime_has_serve && wasmtime_has_pooling; then
  echo "wasmtime $WASMTIME_VERSION present"
else
  # The newest wasmtime-cli that builds on rustc 1.95; a minimal feature set
  # (halves its build time) with the compilation cache a server would use,
  # `serve` for the wasi:http component, and the pooling allocator that
  # `wasmtime serve` uses by default where the address space allows (as the
  # released wasmtime does: the service is measured as it is deployed). In
  # 48.0.8 `serve` alone does not compile without `component-model-async`.
  background wasmtime cargo install wasmtime-cli --version "$WASMTIME_VERSION" --locked --force \
    --no-default-features --features run,cranelift,parallel-compilation,cache,serve,component-model-async,pooling-allocator
fi
if wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  echo "wasm-bindgen $WASM_BINDGEN_VERSION present"
else
  # Must equal the wasm-bindgen crate pin; no --locked (see README).
  background wasm-bindgen cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if cargo fuzz --version 2>/dev/null | grep -q " $CARGO_FUZZ_VERSION\$"; then
  echo "cargo-fuzz $CARGO_FUZZ_VERSION present"
else
  background cargo-fuzz cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

step "Debian packages"
# One apt run for all (two at once would contend for dpkg's lock). nginx:
# scripts/nginx-front.sh test (deploy/nginx.conf in front of wasmtime serve).
packages=()
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  echo "chromium present: $(chromium --version 2>/dev/null || true)"
else
  packages+=(chromium chromium-driver)
fi
# Firefox's WebGPU runs on Mesa's lavapipe (Vulkan on the CPU): without
# mesa-vulkan-drivers its requestAdapter() answers null.
if command -v firefox-esr >/dev/null; then
  echo "firefox-esr present: $(firefox-esr --version 2>/dev/null || true)"
else
  packages+=(firefox-esr)
fi
if ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1; then
  echo "mesa-vulkan-drivers present"
else
  packages+=(mesa-vulkan-drivers)
fi
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then
  echo "nginx present"
else
  packages+=(nginx-light)
fi
# deploy/nginx.conf loads njs (one Origin told from several).
if [ -f /usr/lib/nginx/modules/ngx_http_js_module.so ]; then
  echo "nginx's njs module present"
else
  packages+=(libnginx-mod-http-js)
fi
# scripts/pool.sh test: ip (netns, veth), env --default-signal (coreutils).
for tool in ip:iproute2 env:coreutils; do
  if command -v "${tool%%:*}" >/dev/null; then
    echo "${tool%%:*} present"
  else
    packages+=("${tool#*:}")
  fi
done
if [ ${#packages[@]} -gt 0 ]; then
  background debian bash -c "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${packages[*]}"
fi

failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "${names[$i]}: installed"
  else
    echo "${names[$i]}: FAILED; last lines of .tools/logs/${names[$i]}.log:"; tail -n 30 ".tools/logs/${names[$i]}.log"
    failed=1
  fi
done
exit $failed
