# Pinned tool versions, shared by the scripts.
# WASM_BINDGEN_VERSION must equal the `wasm-bindgen = "=…"` pin in
# crates/browser/Cargo.toml (and the core's optional one in Cargo.toml;
# tests/pins.rs holds them, with Cargo.lock).
WASMTIME_VERSION=48.0.8
WASM_BINDGEN_VERSION=0.2.130
CARGO_FUZZ_VERSION=0.13.2
# The nightly toolchain cargo-fuzz runs on (its -Z flags and sanitizers;
# every other build is stable): a dated one, pinned. scripts/setup.sh
# installs it (minimal profile) unless a toolchain of that date is there.
FUZZ_NIGHTLY_DATE=2026-05-19
# The installed toolchain of that date: the dated name, or a plain `nightly`
# that is that date's build.
fuzz_toolchain() {
  if rustup run "nightly-$FUZZ_NIGHTLY_DATE" rustc --version >/dev/null 2>&1; then
    echo "nightly-$FUZZ_NIGHTLY_DATE"
  elif rustup run nightly rustc --version 2>/dev/null | grep -q " $FUZZ_NIGHTLY_DATE)"; then
    echo nightly
  fi
}
