#!/usr/bin/env bash
# Builds every artifact (after scripts/setup.sh):
#   target/release/backend-targets   the native command
#   dist/backend-targets.wasm        the WASI command (wasm32-wasip1, wasm-opt -Oz)
#   dist/backend-targets-http.wasm   the wasi:http/proxy component (http/, wasm32-wasip2)
#   pkg/                             the npm package (three modules: the full one, the detect-only
#                                    one and the verification's; wasm-bindgen --target web, wasm-opt -Oz,
#                                    one JS module bundled by rolldown, crates/browser/pkg-template/), and
#                                    dist/backend-targets-<version>.tgz
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
WASM_OPT=tests/js/node_modules/.bin/wasm-opt
# What the npm package adds to wasm-bindgen's output: its entries, types, README (the browser crate's).
template=crates/browser/pkg-template
mkdir -p dist

# Whether $2 must be made again from $1: missing, or older than $1 or than
# this script (whose flags make it) or scripts/wasm-names.mjs.
fresher() { [ ! -e "$2" ] || [ "$1" -nt "$2" ] || [ "$0" -nt "$2" ] || [ scripts/wasm-names.mjs -nt "$2" ]; }

echo "== native command"
cargo build --release --bin backend-targets

# The WebAssembly builds (the WASI command, the npm modules) pay for every
# byte, so they recompile std with them (rust-src; the unstable flags are
# allowed on stable by RUSTC_BOOTSTRAP, as for cargo-fuzz) and leave out what
# no user sees (about 9 KB of the gzipped npm module, 22 KB of the WASI one):
#   optimize_for_size      std's smaller variants of its algorithms;
#   -Zlocation-detail=none no file names and line numbers for panics;
#   -Zfmt-debug=none       no `Debug` formatting (messages that quote a value use
#                          `error::quoted`, so they read the same everywhere).
# std itself keeps opt-level 3, as in the prebuilt one: under our opt-level "z"
# its memcmp, Vec growth and the like made the planner about 9 % slower (and,
# after LTO, the module is no bigger).
# Panics still run the hook (panic = "abort"). Each build has its own target
# folder, which keeps these flags off the test builds.
std_at_speed=()
for crate in core alloc std compiler_builtins; do
  std_at_speed+=(--config "profile.release.package.$crate.opt-level=3")
done
small_build() { # cargo build arguments... (target_features="+simd128" adds target features)
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none${target_features:+ -Ctarget-feature=$target_features}${RUSTFLAGS_EXTRA:+ $RUSTFLAGS_EXTRA}" \
    cargo build --release -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size "${std_at_speed[@]}" "$@"
}

echo "== WASI command"
# -Zshare-generics: the command (crates/cli) reuses the generic code the core
# already instantiated (serde's writers and readers over the same types)
# instead of a copy of its own, which LTO then keeps beside the core's. Without
# it, splitting the command into its own crate made the module 1,599 B larger
# (153,403 -> 155,002 B); with it, 152,544 B (cargo's module 378 B smaller
# than the one-crate build's, its code 825 B smaller).
# The two-pass reader (the core's `two-pass-reader`): the one pass measured
# 197-303 B over the module's size goal (BENCHMARKS.md); and
# serde_json's writer alone (`serde-json-writer`), not the compact one too.
RUSTFLAGS_EXTRA="-Zshare-generics=y" small_build --target wasm32-wasip1 --bin backend-targets --target-dir target/wasi \
  --features backend-targets/two-pass-reader,backend-targets/serde-json-writer
wasi_built=target/wasi/wasm32-wasip1/release/backend-targets.wasm
# The module defines its own memory (zero-filled) and Rust never uses its first
# KiB (the bottom of the 1 MiB stack), which lets wasm-opt fold more addresses.
# --reorder-functions then numbers the most called functions first, so that
# their calls take a one-byte index: the linker puts the binary's own
# functions (its allocator, crates/cli/src/main/) first, and without it the module was
# 83 B larger than when the allocator was the library's (152,593 B with it).
# A second -Oz after GUFA (whole-module flow analysis: which values reach
# where) takes 214 B more off (153,617 -> 153,403 B, measured).
# (wasm-opt runs again only when cargo's module or this script changed.)
if fresher "$wasi_built" dist/backend-targets.wasm; then
  "$WASM_OPT" -Oz --converge --low-memory-unused --zero-filled-memory --strip-producers --strip-target-features \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --gufa -Oz --reorder-functions "$wasi_built" -o dist/backend-targets.wasm
fi
printf 'dist/backend-targets.wasm: %s bytes (cargo output %s bytes)\n' \
  "$(wc -c <dist/backend-targets.wasm)" "$(wc -c <"$wasi_built")"

echo "== wasi:http component"
# Its own package (http/, own lockfile and target folder); wasm-component-ld
# links the cdylib as a component. wasm-opt reads core modules, not components.
cargo build --manifest-path http/Cargo.toml --release --target wasm32-wasip2 --lib
cp http/target/wasm32-wasip2/release/backend_targets_http.wasm dist/backend-targets-http.wasm
printf 'dist/backend-targets-http.wasm: %s bytes\n' "$(wc -c <dist/backend-targets-http.wasm)"

echo "== npm package"
# (The npm build's panics run the hook that recovers the instance.)
# Builds the browser module (crates/browser) with cargo arguments "$@", into
# target/$raw (wasm-bindgen's output) and $out/$wasm (after wasm-opt; out=pkg
# unless set). Each module has its own cargo folder (target/npm-$raw): the
# feature sets' cdylibs have the same file name, and sharing one folder made
# every run rebuild each. wasm-bindgen names its output after the package
# (`--out-name backend_targets`: backend_targets.js, backend_targets_bg.wasm),
# not after the crate's cdylib (backend_targets_browser.wasm).
browser_module() {
  local raw=$1 wasm=$2 out=${out:-pkg} inline=${inline:-50}
  shift 2
  # The module is a crate of its own over the core, and code compiled in two
  # crates carries two copies of every string it names (the linker merges
  # none): a field name, a spelling, serde_json's words. So the module's
  # crate compiles none of the core's code: it writes and reads the forms
  # through the core's own instantiations (`ToJsonText`, `FromJsonText`),
  # reuses the generic code the core instantiated (-Zshare-generics, as the
  # WASI command), and the core's small functions are not copied into it
  # (-Zcross-crate-inline-threshold=never, for the core alone; LTO still
  # inlines them). Moving the module out of the core made it 1,874 B larger
  # gzipped without these (69,804 -> 71,678 B, gzip -9); with them, 194 B
  # smaller (node's zlib: 69,970 -> 69,776 B; detect-only 24,778 -> 24,803 B).
  RUSTFLAGS_EXTRA="-Zshare-generics=y" small_build -p backend-targets-browser --lib --target wasm32-unknown-unknown \
    --target-dir "target/npm-$raw" -Zprofile-rustflags \
    --config 'profile.release.package.backend-targets.rustflags=["-Zcross-crate-inline-threshold=never"]' "$@"
  local built="target/npm-$raw/wasm32-unknown-unknown/release/backend_targets_browser.wasm"
  # wasm-bindgen and wasm-opt run again only when cargo's module (or this
  # script) changed: a second run of an unchanged tree takes seconds.
  if ! fresher "$built" "target/$raw/optimized.wasm"; then
    cp "target/$raw/optimized.wasm" "$out/$wasm"
    return
  fi
  rm -rf "target/$raw"
  wasm-bindgen --target web --out-name backend_targets --out-dir "target/$raw" "$built"
  # The same layout as the WASI module: the stack sits below the data, so the
  # first KiB is never addressed (--low-memory-unused).
  # A function with one caller is inlined into it only up to 50 bytes
  # (-ocimfs; wasm-opt's default has no limit): whole call chains merged into
  # one body number their locals anew in each copy, which hides the repeats
  # gzip finds. 1 % more raw bytes, 6.5 % fewer gzipped (69,190 -> 64,682 B;
  # the detect-only module 40,091 -> 38,510 B), for planning about 5 % slower
  # in Node (serde_json's reader keeps more calls). A 20-byte limit saves
  # 0.5 KB more but plans 12 % slower; a 100-byte one saves 2.5 KB in all,
  # for 3 % (BENCHMARKS.md). The detect-only module, which plans nothing,
  # takes 30 (inline=30): 25,037 -> 24,958 B gzipped; 10 to 50 all land
  # within 150 B of each other, so this is a small, not a robust, gain.
  # The WASI module, measured raw, keeps the default.
  "$WASM_OPT" -Oz --converge --low-memory-unused --strip-producers --strip-target-features \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue ${target_features:+--enable-simd} --one-caller-inline-max-function-size "$inline" \
    "target/$raw/backend_targets_bg.wasm" -o "target/$raw/optimized.wasm"
  # Short import and export names, the glue rewritten to match: wasm-bindgen's
  # names (a hash in each, whole Rust types in its closures') were 1.6 KB of
  # the detect-only module gzipped. The API's exports keep their names.
  node scripts/wasm-names.mjs "target/$raw/optimized.wasm" "target/$raw/backend_targets.js" \
    "target/$raw/backend_targets_bg.wasm.d.ts" >/dev/null
  cp "target/$raw/optimized.wasm" "$out/$wasm"
}
# Bundles crates/browser/pkg-template/$1 (rolldown, minified) with wasm-bindgen's glue in
# target/$2 and the JS halves of the boundary and of the probe
# (crates/browser/src/*.js, wasm-bindgen's snippets) into $out/$1 (out=pkg unless set), so that a page
# waits on one JS request, not three in a row, before the .wasm request it
# starts. Outside pkg-test/ the test hooks' export lines are left out (and
# must be there to be left out).
bundle_entry() {
  local entry=$1 raw=$2 out=${out:-pkg} halves hooks='__forcePanicForTesting\|__exhaustMemoryForTesting'
  halves=$(cd "target/$raw" && ls -d snippets/backend-targets-browser-*/src)
  # The verification's JS half: wasm-bindgen's copy where the module links
  # it (the verification module), else the source (the full module's entry
  # reads kept verdicts with it: the same file).
  local verify_half="$PWD/crates/browser/src/verify.js"
  [ -e "target/$raw/$halves/verify.js" ] && verify_half="./$halves/verify.js"
  sed -e "s|from './probe.js'|from './$halves/probe.js'|" -e "s|from './boundary.js'|from './$halves/boundary.js'|" \
    -e "s|from './verify.js'|from '$verify_half'|" "$template/$entry" >"target/$raw/entry.js"
  if [ "$out" != pkg-test ] && [ "$entry" = index.js ]; then
    [ "$(grep -c "^export const \($hooks\) = " "target/$raw/entry.js")" = 2 ] \
      || { echo "build.sh: $template/index.js's two test-hook lines are not as the build expects" >&2; exit 1; }
    sed -i "/^export const \($hooks\) = /d" "target/$raw/entry.js"
  fi
  cp $template/early.js "target/$raw/"
  # The verification entry is loaded on demand by the others (`import()`),
  # never bundled into them: it stays a module of its own.
  tests/js/node_modules/.bin/rolldown "target/$raw/entry.js" --format esm --platform browser --minify --external ./verified.js \
    --postBanner "// backend-targets: $template/$entry, wasm-bindgen glue and JS halves in one module (bundled by scripts/build.sh)." \
    --file "$out/$entry" >/dev/null
  # The version the verdicts' cache key holds (crates/browser/src/verify.js).
  sed -i "s/__BACKEND_TARGETS_VERSION__/$(node -p "require('./$template/package.json').version")/" "$out/$entry"
}
# Gives the glue in target/$1 the module's own file name $2 as its default
# URL. Were wasm-bindgen to spell that URL otherwise, the page would load the
# full module under another entry without a word: fail instead.
glue_url() { # raw, wasm
  local glue="target/$1/backend_targets.js"
  sed -i "s|'backend_targets_bg.wasm'|'$2'|" "$glue"
  if ! grep -q "'$2'" "$glue" || grep -q "'backend_targets_bg.wasm'" "$glue"; then
    echo "build.sh: wasm-bindgen's glue no longer names 'backend_targets_bg.wasm' as the sed expects ($glue)" >&2
    exit 1
  fi
}
rm -rf pkg
mkdir -p pkg
# The whole API: pkg/index.js over pkg/backend_targets_bg.wasm.
# (inline=45: the verification's report and options took the module to 19 B
# under its goal at 50; 45 takes some 250 B more off, measured with gzip -9
# after wasm-opt. The planner's speed at 45 is not measured here: 50 was
# chosen for it, BENCHMARKS.md.)
inline=45 browser_module pkg-raw backend_targets_bg.wasm
cp target/pkg-raw/backend_targets.d.ts target/pkg-raw/backend_targets_bg.wasm.d.ts pkg/
bundle_entry index.js pkg-raw
# `backend-targets/detect`: probe and detect only, pkg/detect.js over
# pkg/detect_bg.wasm (whose name the glue's own default URL is given too).
inline=30 browser_module pkg-detect-raw detect_bg.wasm --no-default-features
glue_url pkg-detect-raw detect_bg.wasm
bundle_entry detect.js pkg-detect-raw
# `backend-targets/verify`: the verification (feature `verify`), loaded on
# demand by the other entries: pkg/verified.js over pkg/verified_bg.wasm.
# Built with WebAssembly SIMD (every browser with WebGPU has it): its
# reference computes as fast as a WebAssembly inference runtime would, so
# that "faster than WebAssembly" means what it says (src/probe/verify.rs).
target_features=+simd128 inline=30 browser_module pkg-verified-raw verified_bg.wasm --no-default-features --features verify
glue_url pkg-verified-raw verified_bg.wasm
bundle_entry verified.js pkg-verified-raw
cp $template/package.json $template/index.d.ts $template/node.js $template/detect.d.ts $template/detect-node.js \
  $template/verified.d.ts $template/verified-node.js \
  $template/README.md $template/LICENSE $template/LICENSE-APACHE pkg/
# pkg-test/: the suites' copy of the Node and browser entries, over a module
# built with the `test-hooks` feature (a forced panic, memory exhausted), to
# prove recovery on the same code the package ships. Not published.
rm -rf pkg-test
mkdir -p pkg-test
out=pkg-test inline=45 browser_module pkg-test-raw backend_targets_bg.wasm --features test-hooks
out=pkg-test bundle_entry index.js pkg-test-raw
cp $template/node.js pkg/package.json pkg-test/
tarball=$(cd pkg && npm pack --silent --pack-destination ../dist)
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
