//! The native probe (native builds only): before an executable launches
//! work on a native target, it asks the host whether the declared
//! accelerator and features are really there, and gets the declared →
//! effective resolution with a reason per decision.
//!
//! ```no_run
//! use backend_targets::{Target, native};
//! // Each check in a child process of the helper (crash- and hang-proof).
//! let options = native::Options { helper: Some("backend-targets".into()), ..Default::default() };
//! let resolution = native::probe(&Target::linux_cuda(false), &options);
//! println!("{:?}", resolution.effective.accelerator);
//! ```
//!
//! What decides each row is one table (`checks::TABLE`); the checks load
//! vendor libraries (`cuda`, `runtimes`, `metal`, through `load`), and
//! `isolate` runs them where a hang or a crash cannot take the caller down.
//! The core's `NativeResolution::from_changes` turns the decisions into the
//! effective target.

mod checks;
mod cuda;
mod isolate;
mod load;
mod metal;
mod runtimes;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::host::{CheckReport, HostReport, Isolation, NATIVE_PROBE_TIMEOUT_MS, NativeCheck, NativeResolution};
use crate::json::to_json;
use crate::target::Target;
use crate::vocab::{Architecture, OperatingSystem};

/// The hidden subcommand a helper executable answers: `HELPER_COMMAND
/// <check>` prints one `CheckReport` as a JSON line and exits 0.
pub const HELPER_COMMAND: &str = "__probe-check";

/// How to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The bound on the whole probe, in milliseconds: a check that has not
    /// answered by then is reported `timeout`. Default
    /// `NATIVE_PROBE_TIMEOUT_MS` (5000).
    pub timeout_ms: u32,
    /// The executable that runs each check in a child process (it must
    /// answer `HELPER_COMMAND <check>`, as `backend-targets` does, or call
    /// `serve_check`). `None`: each check on a thread of this process, which
    /// a hang cannot block past the deadline but a crash takes down.
    pub helper: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Self { timeout_ms: NATIVE_PROBE_TIMEOUT_MS, helper: None }
    }
}

/// This build's operating system, as the vocabulary spells it.
pub const fn host_os() -> OperatingSystem {
    if cfg!(target_os = "linux") {
        OperatingSystem::Linux
    } else if cfg!(target_os = "macos") {
        OperatingSystem::MacOS
    } else if cfg!(windows) {
        OperatingSystem::Windows
    } else {
        OperatingSystem::Unknown
    }
}

/// This build's architecture, as the vocabulary spells it.
pub const fn host_arch() -> Architecture {
    if cfg!(target_arch = "x86_64") {
        Architecture::X86_64
    } else if cfg!(target_arch = "aarch64") {
        Architecture::Aarch64
    } else {
        Architecture::Unknown
    }
}

/// Probes the host for `target`'s accelerator and features, within
/// `options.timeout_ms`; always answers.
pub fn probe(target: &Target, options: &Options) -> NativeResolution {
    let start = Instant::now();
    let deadline = start + Duration::from_millis(u64::from(options.timeout_ms));
    let run = |checks: Vec<NativeCheck>| -> Vec<CheckReport> {
        // Checks that load nothing here answer at once, without a process.
        let (here, isolated): (Vec<_>, Vec<_>) = checks.into_iter().partition(|&c| checks::loads_nothing(c));
        let mut reports: Vec<CheckReport> = here.into_iter().map(checks::run).collect();
        reports.extend(match &options.helper {
            Some(helper) => isolate::in_processes(helper, &isolated, deadline, options.timeout_ms),
            None => isolate::in_threads(&isolated, deadline, options.timeout_ms),
        });
        reports
    };
    let mut reports = run(checks::first_checks(target));
    let dependent = checks::dependent_checks(target, &reports);
    reports.extend(run(dependent));
    // Report the checks in the table's order, as decided.
    reports.sort_by_key(|r| checks::TABLE.iter().position(|row| row_check(row) == Some(r.check)));
    let changes = checks::decide(target, &reports);
    let report = HostReport {
        os: host_os(),
        arch: host_arch(),
        isolation: if options.helper.is_some() { Isolation::Process } else { Isolation::Thread },
        timeout_ms: options.timeout_ms,
        elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
        checks: reports,
    };
    NativeResolution::from_changes(target, changes, report)
}

fn row_check(row: &checks::Row) -> Option<NativeCheck> {
    match row.decided_by {
        checks::DecidedBy::Check(check) | checks::DecidedBy::AcceleratorThen(_, check) => Some(check),
        _ => None,
    }
}

/// The helper's side: runs one check in this process and prints its report
/// as one JSON line. Returns the exit status (2 for an unknown check).
pub fn serve_check(check: &str) -> i32 {
    let Some(check) = NativeCheck::from_spelling(check) else {
        let _ = writeln!(std::io::stderr(), "backend-targets: unknown check `{check}`");
        return 2;
    };
    disable_core_dumps();
    let report = checks::run(check);
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", to_json(&report));
    let _ = stdout.flush();
    0
}

/// A vendor library that crashes its check leaves no core file behind.
#[cfg(unix)]
fn disable_core_dumps() {
    let limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: setrlimit reads one struct; lowering a limit needs no privilege.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &limit) };
}

#[cfg(not(unix))]
fn disable_core_dumps() {}
