//! The `backend-targets` command (native and `wasm32-wasip1`); the logic
//! lives in `backend_targets::cli`.

#[cfg(not(browser))]
fn main() {
    std::process::exit(backend_targets::cli::main());
}

// The browser build has no command line.
#[cfg(browser)]
fn main() {}
