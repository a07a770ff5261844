//! The `backend-targets` command (native and `wasm32-wasip1`): the process
//! around `backend_targets_cli`, and every process-wide choice, which the
//! library leaves to its program and this binary makes:
//! - the WASI command's allocator, and the C library's allocation functions
//!   over it (`main/wasi_alloc.rs`, `wasm32-wasip1` only);
//! - whether stdout was closed at start, read by a loader initialiser
//!   (`main/closed_stdout.rs`, Linux and macOS);
//! - the handlers that end the native probe's running checks with the
//!   command on `SIGTERM`, `SIGINT` or `SIGHUP`
//!   (`backend_targets_native_probe::install_termination_handlers`);
//! - on Linux, adopting what a driver detaches from a check (`setsid`), so
//!   that it is ended with the checks (`adopt_detached_processes`:
//!   this process becomes a child subreaper, unless it started with a child
//!   of its own, inherited through exec).
//!
//! The modules live in `crates/cli/src/main/` and are this binary's alone: no library
//! of the workspace names them (tests/library_effects.rs holds that).

#[cfg(all(target_os = "wasi", target_env = "p1"))]
#[path = "main/wasi_alloc.rs"]
mod wasi_alloc;

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
#[path = "main/closed_stdout.rs"]
mod closed_stdout;

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn main() {
    // Before anything runs a check: a check's process group is then always
    // ended with the command.
    #[cfg(not(target_family = "wasm"))]
    backend_targets_native_probe::install_termination_handlers();
    // This process's children are the probe's checks only: what a driver
    // detaches from a check is reparented here and ended with them. Unless
    // it has children already (inherited through exec): then it adopts
    // nothing, and leaves them and theirs alone. (Not in a check itself, the
    // command started again as its own helper.)
    #[cfg(not(target_family = "wasm"))]
    if std::env::args_os().nth(1).is_none_or(|first| first != backend_targets_native_probe::HELPER_COMMAND) {
        backend_targets_native_probe::adopt_detached_processes();
    }
    // SAFETY: this is the program's `main`, and a process started as a
    // check (`HELPER_COMMAND`) is the probe's isolated child, which it gives
    // up to the check.
    std::process::exit(unsafe { backend_targets_cli::main(closed_stdout::at_start()) });
}

// The browser build has no command line.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn main() {}
