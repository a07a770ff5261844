# Pinned tool versions, shared by the scripts.
# WASM_BINDGEN_VERSION must equal the `wasm-bindgen = "=…"` pin in
# crates/browser/Cargo.toml (and the core's optional one in Cargo.toml;
# tests/pins.rs holds them, with Cargo.lock).
WASMTIME_VERSION=48.0.8
WASM_BINDGEN_VERSION=0.2.130
CARGO_FUZZ_VERSION=0.13.2
