//! Where checks run, so that a vendor library cannot take the caller down
//! nor forge or garble the answer: each in a child process of a helper
//! executable (the command itself, `HELPER_COMMAND <check>`); or, for a Rust
//! caller without a helper, each on a thread, abandoned at the deadline (a
//! crash there is the caller's crash). Either way the probe answers by the
//! deadline.
//!
//! A check's process (Unix):
//! - answers on a channel of its own, file descriptor `ANSWER_FD` (a pipe),
//!   not stdout: what a library prints (stdout and stderr go to
//!   `/dev/null`) can neither pass for the answer nor hide it, and the
//!   parent reads only the new bytes, at most `MAX_ANSWER_BYTES`; the
//!   answer is written only to that pipe (checked by its inode, on
//!   `ANSWER_FD` or a copy made before any library loaded), never to a file
//!   a library opened in its place (`LOST_CHANNEL_STATUS`);
//! - says on that channel, before its answer, which step it is in (a
//!   library's load, a call into it: [`protocol::STEP_PREFIX`](crate::protocol::STEP_PREFIX) lines), so that a process
//!   that ends without an answer is reported with the step it ended in (a
//!   library that calls `exit(N)` in its initialiser, `N` its status);
//! - exits at once after its answer (`_exit`: no library destructor runs);
//! - starts with no signal blocked and every disposition at its default,
//!   whatever the probe's own were (`child_setup`);
//! - runs in its own process group, killed as a group (and by its own pid,
//!   should it have left the group: `setpgid` into the probe's) once it has
//!   answered, at the deadline, or, where the program installed
//!   [`install_termination_handlers`] (the command does, in its `main`), when
//!   the probe is ended by `SIGTERM`, `SIGINT` or `SIGHUP`; on Linux it is
//!   killed when the probe dies (`PR_SET_PDEATHSIG`);
//! - starts in `/`, with `LD_LIBRARY_PATH` stripped of its empty and
//!   relative entries ([`LoaderPath`](crate::LoaderPath)): nothing is loaded from the caller's
//!   working directory.
//!
//! What a library moves out of the group (`setsid`, or `setpgid` into
//! another group of the session, its parent-death signal cleared) is ended
//! with the checks only where the program asked for it
//! ([`adopt_detached_processes`], Linux: the command does; why a subreaper
//! and not a PID namespace or a cgroup: `subreaper`), also when the probe is ended by `SIGTERM`, `SIGINT`
//! or `SIGHUP` (the probe then ends within some 20 ms plus `end_adopted`'s
//! 250 ms at most); otherwise it is not killed. What a library forks lives
//! on if the probe itself is killed with `SIGKILL` (which nothing can catch)
//! while the check runs.
//!
//! Split by job, in layers (each uses only those before it; no import
//! circle, crates/native-probe/tests/module_graph.rs): `wire` (the answer
//! channel's fixed terms: its descriptor, the status of a process that lost
//! it), [`outcome`] (the report of a check that gave none), `signals` (below),
//! `child` (one check's process: started, ended), `channel` (the answers
//! read back, within bounds), `subreaper` (Linux: what a check detached,
//! adopted and ended), `processes` (the checks' processes run together until
//! the deadline), [`threads`] (checks on threads of this process) and
//! `windows` (the processes off Unix). This file owns the signal dispositions (`signals`
//! below): the only `sigaction` calls of the library, which
//! tests/library_effects.rs allows in this file alone.

mod channel;
#[cfg(unix)]
mod child;
mod outcome;
#[cfg(unix)]
mod processes;
#[cfg(target_os = "linux")]
mod subreaper;
mod threads;
#[cfg(not(unix))]
mod windows;
#[cfg(unix)]
mod wire;

#[cfg(unix)]
pub(crate) use processes::in_processes;
#[cfg(unix)]
pub(crate) use signals::install_termination_handlers;
#[cfg(target_os = "linux")]
pub(crate) use subreaper::adopt_detached_processes;
pub(crate) use threads::in_threads;
#[cfg(not(unix))]
pub(crate) use windows::in_processes;
#[cfg(unix)]
pub(crate) use wire::{ANSWER_FD, LOST_CHANNEL_STATUS};

/// Elsewhere (Windows) there are no termination signals to handle.
#[cfg(not(unix))]
pub(crate) fn install_termination_handlers() {}

/// Elsewhere no process adopts orphans but the system's first.
#[cfg(not(target_os = "linux"))]
pub(crate) fn adopt_detached_processes() -> bool {
    false
}

/// Signal dispositions (Unix): the termination handlers a program installs
/// ([`install_termination_handlers`]) and the running checks' groups they
/// end, the termination signals held back while a group registers, and a
/// check's process's signals reset between fork and exec.
#[cfg(unix)]
mod signals {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// Whether this process adopts what its checks detach (a child
    /// subreaper: `adopt_detached_processes` set it). Kept here, below the
    /// `subreaper` module that sets it, for the handler that reads it.
    #[cfg(target_os = "linux")]
    pub(super) static ADOPTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    /// How many [`in_processes`](super::in_processes) calls are running.
    #[cfg(target_os = "linux")]
    pub(super) static PROBING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// A termination signal whose handler, in a subreaper with a probe
    /// running, left the process's end to that probe (0: none): the probe
    /// ends its checks, then what they detached (`end_adopted`), then raises
    /// the signal again. The handler stores it before it reads [`PROBING`],
    /// and a probe decrements [`PROBING`] before it reads it: one of the two
    /// sees the other, so the signal is never lost.
    #[cfg(target_os = "linux")]
    pub(super) static TERMINATING: AtomicI32 = AtomicI32::new(0);

    /// `SIGTERM`, `SIGINT` and `SIGHUP` blocked on this thread while it
    /// lives; delivered (to the handler) once it is dropped.
    pub(super) struct TerminationHeld(libc::sigset_t);

    impl TerminationHeld {
        pub(super) fn now() -> Self {
            // SAFETY: sigset operations on a local set; pthread_sigmask
            // changes only this thread's mask and saves the old one.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                    libc::sigaddset(&mut set, signal);
                }
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
                Self(old)
            }
        }
    }

    impl Drop for TerminationHeld {
        fn drop(&mut self) {
            // SAFETY: restores the mask saved by `now`.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
        }
    }

    /// In the child, between fork and exec: every signal's disposition back
    /// to its default, then none blocked. `spawn` with a `pre_exec` closure
    /// keeps the parent's mask (here [`TerminationHeld`]'s, which blocks
    /// `SIGTERM`, `SIGINT` and `SIGHUP`), and an ignored signal stays ignored
    /// across exec (a probe started with `nohup`, or as a background job,
    /// ignores `SIGHUP` or `SIGINT`): a check, and whatever a driver forks
    /// from it, would ignore `kill PID`. The order matters: a handler this
    /// process inherited ([`on_termination`]) must not run in the child, so
    /// the dispositions are reset while the signals are still blocked.
    pub(super) fn default_signals() {
        // Linux numbers its signals up to 64 (glibc keeps 32 and 33 for
        // itself: sigaction refuses them, as it refuses SIGKILL and SIGSTOP);
        // the other Unix systems stop at 31.
        let last = if cfg!(target_os = "linux") { 64 } else { 31 };
        for signal in 1..=last {
            // SAFETY: sigaction is async-signal-safe; it reads a zeroed
            // struct whose handler is SIG_DFL. A refusal is ignored.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        // SAFETY: sigemptyset fills a local set; sigprocmask is
        // async-signal-safe and the child has one thread.
        unsafe {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        }
    }

    /// The groups of the running checks, for the termination handler.
    pub(super) static GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

    pub(super) fn register(group: i32) -> Option<usize> {
        (0..GROUPS.len())
            .find(|&slot| GROUPS[slot].compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst).is_ok())
    }

    extern "C" fn on_termination(signal: libc::c_int) {
        for group in &GROUPS {
            let group = group.load(Ordering::SeqCst);
            if group > 0 {
                // SAFETY: kill is async-signal-safe. A group's id is its
                // check's pid: the check is killed by its pid too, where
                // it left the group (`setpgid`). The slot is cleared when
                // the check is ended, right after it is reaped, if it was:
                // the same bound as the group's id.
                unsafe {
                    libc::kill(-group, libc::SIGKILL);
                    libc::kill(group, libc::SIGKILL);
                }
            }
        }
        // Where this process adopts what checks detach, a running probe
        // ends that first (within 250 ms), then raises the signal itself.
        #[cfg(target_os = "linux")]
        if ADOPTING.load(Ordering::SeqCst) {
            TERMINATING.store(signal, Ordering::SeqCst);
            if PROBING.load(Ordering::SeqCst) > 0 {
                return;
            }
        }
        // The handler was reset to the default (SA_RESETHAND): the signal,
        // blocked while this runs, ends the process as it would have.
        // SAFETY: raise is async-signal-safe.
        unsafe { libc::raise(signal) };
    }

    /// Where `SIGTERM`, `SIGINT` and `SIGHUP` would end this process with
    /// their default action (nobody handles them), ends the running checks'
    /// groups first. Installed once; a handler the program has is left alone.
    /// Called by the program ([`install_termination_handlers`](crate::install_termination_handlers)), never
    /// by the probe itself: a signal's disposition is the whole process's.
    pub(crate) fn install_termination_handlers() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                // SAFETY: sigaction reads and writes plain structs; the
                // handler calls only async-signal-safe functions.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                        continue;
                    }
                    let mut new: libc::sigaction = std::mem::zeroed();
                    new.sa_sigaction = on_termination as extern "C" fn(libc::c_int) as usize;
                    new.sa_flags = libc::SA_RESETHAND;
                    libc::sigemptyset(&mut new.sa_mask);
                    libc::sigaction(signal, &new, std::ptr::null_mut());
                }
            }
        });
    }
}
