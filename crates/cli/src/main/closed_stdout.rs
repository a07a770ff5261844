//! Whether standard output was closed when this process started (`>&-`),
//! for `backend_targets_cli::main`. The Rust runtime opens `/dev/null` on a
//! closed standard descriptor before `main` runs, so that writing to it
//! would succeed with the output lost; this is read earlier, from the
//! loader's initialisers (`.init_array`, macOS's `__mod_init_func`): a
//! constructor in the process, which is the program's to add, not the
//! library's.

/// Whether descriptor 1 was closed before `main` (Linux and macOS).
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub fn at_start() -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static CLOSED: AtomicBool = AtomicBool::new(false);
    extern "C" fn record() {
        // SAFETY: F_GETFD only asks whether descriptor 1 is open.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } < 0 {
            CLOSED.store(true, Ordering::Relaxed);
        }
    }
    // SAFETY: `.init_array` holds plain `extern "C"` functions that the
    // loader calls once, before `main`; `record` only reads a descriptor's
    // flags and stores a bool (the arguments the loader passes are ignored,
    // as the C calling convention allows).
    #[used]
    #[cfg_attr(target_os = "linux", unsafe(link_section = ".init_array"))]
    #[cfg_attr(target_os = "macos", unsafe(link_section = "__DATA,__mod_init_func"))]
    static RECORD: extern "C" fn() = record;
    // Referenced, so that the object holding it is always linked.
    std::hint::black_box(&RECORD);
    CLOSED.load(Ordering::Relaxed)
}

/// Elsewhere a closed descriptor stays closed (WASI: the write fails).
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn at_start() -> bool {
    false
}
