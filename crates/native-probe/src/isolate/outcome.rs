//! The reports of checks that gave no answer of their own: a timeout, a
//! crash (a signal, an exit, a lost channel, a panic on a thread), a helper
//! that could not start; and the names of the signals that end a process.

use backend_targets::probe::native::{CheckReport, NativeCheck, NativeReason};
#[cfg(unix)]
use std::os::unix::process::ExitStatusExt;
#[cfg(unix)]
use std::process::ExitStatus;

#[cfg(unix)]
use super::wire::{ANSWER_FD, LOST_CHANNEL_STATUS};

pub(super) fn timed_out(check: NativeCheck, timeout_ms: u32, what: &str) -> CheckReport {
    CheckReport::new(
        check,
        NativeReason::Timeout,
        format!("the {check} check gave no answer within {timeout_ms} ms; {what}"),
    )
}

pub(super) fn crashed(check: NativeCheck, message: String) -> CheckReport {
    CheckReport::new(check, NativeReason::CheckCrashed, message)
}

/// Why `check`'s helper process did not start, and, where the helper is
/// not there, what to do.
pub(super) fn not_started(check: NativeCheck, helper: &std::path::Path, error: &std::io::Error) -> String {
    let mut message = format!("the {check} check could not start ({}: {error})", helper.display());
    if error.kind() == std::io::ErrorKind::NotFound && helper.starts_with("/proc") {
        // A program that names its own file through `/proc/self/exe` (the
        // command does) where no `/proc` is mounted (a chroot, a container).
        message.push_str(
            "; /proc is not mounted here, so the program cannot name its own executable to run the check in: \
             mount /proc (`mount -t proc proc /proc`), or give an absolute helper path",
        );
    } else if error.kind() == std::io::ErrorKind::NotFound && helper.components().count() == 1 {
        message.push_str(&format!(
            "; the helper was not found: put the `{}` command on PATH (`cargo install --path crates/cli` in its \
             repository) or name another in `backend_targets_native_probe::Options::helper`",
            super::super::DEFAULT_HELPER
        ));
    }
    message
}

#[cfg(unix)]
/// The report of a check's process that ended without an answer, in
/// `step` (the last it named, if any).
pub(super) fn exited_without_answer(check: NativeCheck, status: ExitStatus, step: Option<&str>) -> CheckReport {
    let during = step.map(|step| format!(" during {step}")).unwrap_or_default();
    match (status.signal(), status.code()) {
        (Some(signal), _) => {
            let mut report = crashed(
                check,
                format!("the {check} check's process was killed by signal {signal} ({}){during}", signal_name(signal)),
            );
            report.signal = Some(signal);
            report
        }
        (None, Some(LOST_CHANNEL_STATUS)) => crashed(
            check,
            format!(
                "the {check} check's process lost its answer channel{during}: a library it loaded closed or \
                 replaced file descriptor {ANSWER_FD} (and the copy made before it loaded), so the answer was \
                 written nowhere ({status})"
            ),
        ),
        // It ended itself in a library's code: the library's `exit(N)`.
        (None, Some(code)) if step.is_some() => crashed(
            check,
            format!(
                "the {check} check's process ended without an answer: the library exited the process with \
                 status {code}{during}"
            ),
        ),
        (None, _) => crashed(check, format!("the {check} check's process exited ({status}) without an answer")),
    }
}

#[cfg(unix)]
/// `SIGSEGV` for 11, from the platform's own numbering.
fn signal_name(signal: i32) -> &'static str {
    const NAMES: &[(i32, &str)] = &[
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGSYS, "SIGSYS"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGQUIT, "SIGQUIT"),
    ];
    NAMES.iter().find(|(n, _)| *n == signal).map_or("another signal", |(_, name)| name)
}
