//! Where checks run, so that a hung or crashing vendor library cannot take
//! the caller down: each in a child process of a helper executable (the
//! command itself, `HELPER_COMMAND <check>`), killed at the deadline; or, for
//! a Rust caller without a helper, each on a thread, abandoned at the
//! deadline (a crash there is the caller's crash). Either way the probe
//! answers by the deadline.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::HELPER_COMMAND;
use super::checks::run;
use crate::host::{CheckReport, NativeCheck, NativeReason};
use crate::json::from_json;

fn timed_out(check: NativeCheck, timeout_ms: u32, what: &str) -> CheckReport {
    CheckReport::new(
        check,
        NativeReason::Timeout,
        format!("the {check} check gave no answer within {timeout_ms} ms; {what}"),
    )
}

fn crashed(check: NativeCheck, message: String) -> CheckReport {
    CheckReport::new(check, NativeReason::CheckCrashed, message)
}

struct Running {
    check: NativeCheck,
    child: Child,
    /// The child's stdout, chunk by chunk, until it closes.
    output: mpsc::Receiver<Vec<u8>>,
}

/// Runs `checks` in child processes of `helper`, all at once, until `deadline`.
pub(crate) fn in_processes(
    helper: &Path,
    checks: &[NativeCheck],
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    let start = Instant::now();
    let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
    let mut running: Vec<(usize, Running)> = Vec::new();
    for (index, &check) in checks.iter().enumerate() {
        match spawn(helper, check) {
            Ok(process) => running.push((index, process)),
            Err(message) => reports[index] = Some(crashed(check, message)),
        }
    }
    while !running.is_empty() {
        let now = Instant::now();
        let mut still = Vec::new();
        for (index, mut process) in running {
            let report = match process.child.try_wait() {
                Ok(Some(status)) => Some(finished(process, status, deadline)),
                Ok(None) if now >= deadline => {
                    // Killed and reaped: a hang leaves no process behind.
                    let _ = process.child.kill();
                    let _ = process.child.wait();
                    Some(timed_out(process.check, timeout_ms, "its process was killed"))
                }
                Ok(None) => {
                    still.push((index, process));
                    None
                }
                Err(error) => {
                    Some(crashed(process.check, format!("waiting for the {} check failed: {error}", process.check)))
                }
            };
            if let Some(mut report) = report {
                report.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
                reports[index] = Some(report);
            }
        }
        running = still;
        if !running.is_empty() {
            thread::sleep(Duration::from_millis(2).min(deadline.saturating_duration_since(Instant::now())));
        }
    }
    reports.into_iter().zip(checks).map(|(r, &c)| r.unwrap_or_else(|| timed_out(c, timeout_ms, "not run"))).collect()
}

fn spawn(helper: &Path, check: NativeCheck) -> Result<Running, String> {
    let mut child = Command::new(helper)
        .arg(HELPER_COMMAND)
        .arg(check.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("the {check} check could not start {}: {e}", helper.display()))?;
    let mut stdout = child.stdout.take().ok_or("no pipe from the check process")?;
    let (sender, output) = mpsc::channel();
    thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buffer) {
            if sender.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Ok(Running { check, child, output })
}

/// The answer of a process that ended: its last line, or why there is none.
fn finished(process: Running, status: ExitStatus, deadline: Instant) -> CheckReport {
    let check = process.check;
    if let Some(signal) = signal_of(status) {
        let mut report = crashed(
            check,
            format!("the {check} check's process was killed by signal {signal} ({})", signal_name(signal)),
        );
        report.signal = Some(signal);
        return report;
    }
    // Read until the answer is complete or the pipe closes; not until the
    // pipe closes only, which a process the check started (a driver's
    // daemon) may hold open. Bounded by the deadline either way.
    let mut bytes = Vec::new();
    let answer = loop {
        if let Some(report) = answer(&bytes, check) {
            break Some(report);
        }
        match process.output.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(chunk) => bytes.extend(chunk),
            Err(_) => break None,
        }
    };
    match answer {
        Some(report) if status.success() => report,
        _ => crashed(check, format!("the {check} check's process exited ({status}) without an answer")),
    }
}

/// The check's report, once its line is complete: the last line (a vendor
/// library may print too).
fn answer(bytes: &[u8], check: NativeCheck) -> Option<CheckReport> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.strip_suffix('\n')?.rsplit('\n').next()?;
    from_json::<CheckReport>(line).ok().filter(|report| report.check == check)
}

#[cfg(unix)]
fn signal_of(status: ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}

/// `SIGSEGV` for 11, from the platform's own numbering.
#[cfg(unix)]
pub(crate) fn signal_name(signal: i32) -> &'static str {
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

#[cfg(not(unix))]
pub(crate) fn signal_name(_signal: i32) -> &'static str {
    "a signal"
}

/// Runs `checks` on threads of this process until `deadline`; a check still
/// running then is abandoned (its thread stays blocked in the library).
pub(crate) fn in_threads(checks: &[NativeCheck], deadline: Instant, timeout_ms: u32) -> Vec<CheckReport> {
    let (sender, receiver) = mpsc::channel();
    for (index, &check) in checks.iter().enumerate() {
        let answer = sender.clone();
        let spawned = thread::Builder::new().name(format!("probe-{check}")).spawn(move || {
            let _ = answer.send((index, run(check)));
        });
        if let Err(error) = spawned {
            let _ = sender.send((index, crashed(check, format!("the {check} check's thread did not start: {error}"))));
        }
    }
    drop(sender);
    let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
    while reports.iter().any(Option::is_none) {
        let wait = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(wait) {
            Ok((index, report)) => reports[index] = Some(report),
            // Every thread answered or died (a panic), or the deadline passed.
            Err(_) => break,
        }
    }
    reports
        .into_iter()
        .zip(checks)
        .map(|(report, &check)| {
            report.unwrap_or_else(|| {
                if Instant::now() >= deadline {
                    timed_out(check, timeout_ms, "its thread was abandoned")
                } else {
                    crashed(check, format!("the {check} check's thread ended without an answer"))
                }
            })
        })
        .collect()
}
