//! The `backend-targets` command (native and `wasm32-wasip1`); the logic
//! lives in `backend_targets::cli`.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn main() {
    std::process::exit(backend_targets::cli::main());
}

// The browser build has no command line.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn main() {}
