#!/usr/bin/env bash
# Builds every artifact (after scripts/setup.sh):
#   target/release/backend-targets   the native command
#   dist/backend-targets.wasm        the WASI command (wasm32-wasip1, wasm-opt -Oz)
#   dist/backend-targets-http.wasm   the wasi:http/proxy component (http/, wasm32-wasip2)
#   pkg/                             the npm package (three modules: the full one, the detect-only
#                                    one and the verification's; wasm-bindgen --target web, wasm-opt -Oz,
#                                    one JS module bundled by rolldown, pkg-template/), and
#                                    dist/backend-targets-<version>.tgz
#   dist/backend-targets-linux-x64-gnu-<version>.tgz   this host's platform package (the native
#                                    command, for detectNative() in Node; scripts/platform-package.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
WASM_OPT=tests/js/node_modules/.bin/wasm-opt
# What the npm package adds to wasm-bindgen's output: its entries, types, README (the browser crate's).
template=pkg-template
mkdir -p dist

# Whether $2 must be made again from $1: missing, or older than $1 or than
# this script (whose flags make it).
fresher() { [ ! -e "$2" ] || [ "$1" -nt "$2" ] || [ "$0" -nt "$2" ]; }

echo "== native command"
cargo build --release --bin backend-targets

# Every build is stable Rust, with the release profile (Cargo.toml: opt-level
# "z", LTO, one codegen unit, panic = "abort"): no unstable flag, no rebuilt
# std. Panic locations name the crates (cargo/..., rust/...), not this
# machine's folders. wasm-opt then optimizes each WebAssembly module for size;
# a function with one caller is inlined into it only up to 50 bytes (wasm-opt's
# default has no limit): whole call chains merged into one body hide the
# repeats gzip finds (the full module 90,316 -> 84,067 B gzipped, the
# detect-only one 54,025 -> 52,173 B, measured with --converge).
export RUSTFLAGS="--remap-path-prefix=$HOME/.cargo/registry/src=cargo --remap-path-prefix=$(rustc --print sysroot)=rust"
WASM_OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals)
WASM_OPT_SIZE=(-Oz --converge --one-caller-inline-max-function-size 50 --strip-producers)

echo "== WASI command"
cargo build --release --target wasm32-wasip1 --bin backend-targets --target-dir target/wasi
wasi_built=target/wasi/wasm32-wasip1/release/backend-targets.wasm
# (wasm-opt runs again only when cargo's module or this script changed.)
if fresher "$wasi_built" dist/backend-targets.wasm; then
  "$WASM_OPT" "${WASM_OPT_SIZE[@]}" "${WASM_OPT_FEATURES[@]}" "$wasi_built" -o dist/backend-targets.wasm
fi
printf 'dist/backend-targets.wasm: %s bytes (cargo output %s bytes)\n' \
  "$(wc -c <dist/backend-targets.wasm)" "$(wc -c <"$wasi_built")"

echo "== wasi:http component"
# A workspace member (http/), with the `service` profile (speed); wasm-component-ld
# links the cdylib as a component. wasm-opt reads core modules, not components.
cargo build -p backend-targets-http --profile service --target wasm32-wasip2 --lib
cp target/wasm32-wasip2/service/backend_targets_http.wasm dist/backend-targets-http.wasm
printf 'dist/backend-targets-http.wasm: %s bytes\n' "$(wc -c <dist/backend-targets-http.wasm)"

echo "== npm package"
# Builds the browser module (crates/browser) with cargo arguments "$@" into
# target/$raw: wasm-bindgen's output, named $name ($name.js, the glue, over
# ${name}_bg.wasm, the name the package ships), then wasm-opt. Each module
# has its own cargo folder (target/npm-$raw): the feature sets' cdylibs have
# the same file name, and sharing one folder made every run rebuild each.
browser_module() { # raw name cargo-arguments...
  local raw=$1 name=$2
  shift 2
  cargo build --release -p backend-targets-browser --lib --target wasm32-unknown-unknown --target-dir "target/npm-$raw" "$@"
  local built="target/npm-$raw/wasm32-unknown-unknown/release/backend_targets_browser.wasm"
  # wasm-bindgen and wasm-opt run again only when cargo's module (or this
  # script) changed: a second run of an unchanged tree takes seconds.
  if fresher "$built" "target/$raw/${name}_bg.wasm"; then
    rm -rf "target/$raw"
    wasm-bindgen --target web --out-name "$name" --out-dir "target/$raw" "$built"
    "$WASM_OPT" "${WASM_OPT_SIZE[@]}" "${WASM_OPT_FEATURES[@]}" --enable-reference-types --enable-multivalue \
      ${simd:+--enable-simd} "target/$raw/${name}_bg.wasm" -o "target/$raw/${name}_bg.wasm"
  fi
}
# Bundles pkg-template/$1 with the glue in target/$2 (named $3) into $4
# (scripts/bundle.mjs: one JS module, so that a page waits on one JS request,
# not three in a row, before the .wasm request it starts).
bundle_entry() { # entry raw name out
  node scripts/bundle.mjs "$1" "target/$2" "$3" "$4"
}
rm -rf pkg
mkdir -p pkg
# The whole API: pkg/index.js over pkg/backend_targets_bg.wasm.
browser_module pkg-raw backend_targets
cp target/pkg-raw/backend_targets_bg.wasm target/pkg-raw/backend_targets.d.ts target/pkg-raw/backend_targets_bg.wasm.d.ts pkg/
bundle_entry index.js pkg-raw backend_targets pkg/index.js
# `backend-targets/detect`: probe and detect only, pkg/detect.js over pkg/detect_bg.wasm.
browser_module pkg-detect-raw detect --no-default-features
cp target/pkg-detect-raw/detect_bg.wasm pkg/
bundle_entry detect.js pkg-detect-raw detect pkg/detect.js
# `backend-targets/verify`: the verification (feature `verify`), loaded on
# demand by the other entries: pkg/verified.js over pkg/verified_bg.wasm.
# Built with WebAssembly SIMD (every browser with WebGPU has it): its
# reference computes as fast as a WebAssembly inference runtime would, so
# that "faster than WebAssembly" means what it says (src/probe/verify.rs).
RUSTFLAGS="$RUSTFLAGS -Ctarget-feature=+simd128" simd=1 browser_module pkg-verified-raw verified --no-default-features --features verify
cp target/pkg-verified-raw/verified_bg.wasm pkg/
bundle_entry verified.js pkg-verified-raw verified pkg/verified.js
cp $template/package.json $template/index.d.ts $template/node.js $template/native.js $template/detect.d.ts $template/detect-node.js $template/detect-node.d.ts \
  $template/verified.d.ts $template/verified-node.js \
  $template/README.md $template/LICENSE $template/LICENSE-APACHE pkg/
# pkg-test/: the suites' copy of the Node and browser entries, over a module
# built with the `test-hooks` feature (a forced panic, memory exhausted), to
# prove recovery on the same code the package ships. Not published.
rm -rf pkg-test
mkdir -p pkg-test
browser_module pkg-test-raw backend_targets --features test-hooks
cp target/pkg-test-raw/backend_targets_bg.wasm pkg-test/
bundle_entry testing.js pkg-test-raw backend_targets pkg-test/index.js
cp $template/node.js $template/native.js pkg/package.json pkg-test/
tarball=$(cd pkg && npm pack --silent --pack-destination ../dist)
# This host's platform package (the native command that detectNative() runs
# from Node), where this is a host the table names (scripts/platform-package.mjs).
if [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] && ldd --version 2>&1 | grep -qi 'glibc\|gnu libc'; then
  node scripts/platform-package.mjs linux-x64-gnu target/release/backend-targets target/npm-platform
fi
printf 'pkg/backend_targets_bg.wasm: %s bytes, %s gzipped; pkg/index.js: %s bytes, %s gzipped; dist/%s: %s bytes\n' \
  "$(wc -c <pkg/backend_targets_bg.wasm)" "$(gzip -9c pkg/backend_targets_bg.wasm | wc -c)" \
  "$(wc -c <pkg/index.js)" "$(gzip -9c pkg/index.js | wc -c)" \
  "$tarball" "$(wc -c <"dist/$tarball")"
printf 'pkg/detect_bg.wasm: %s bytes, %s gzipped; pkg/detect.js: %s bytes, %s gzipped\n' \
  "$(wc -c <pkg/detect_bg.wasm)" "$(gzip -9c pkg/detect_bg.wasm | wc -c)" \
  "$(wc -c <pkg/detect.js)" "$(gzip -9c pkg/detect.js | wc -c)"
printf 'pkg/verified_bg.wasm: %s bytes, %s gzipped; pkg/verified.js: %s bytes, %s gzipped\n' \
  "$(wc -c <pkg/verified_bg.wasm)" "$(gzip -9c pkg/verified_bg.wasm | wc -c)" \
  "$(wc -c <pkg/verified.js)" "$(gzip -9c pkg/verified.js | wc -c)"
