//! The checks' processes run together (Unix): each started, their channels
//! read until each has an outcome or the deadline passes, each group ended;
//! on Linux, where this process adopts, the sweep of what they detached and
//! a termination signal the handler left to the probe raised again.

use std::path::Path;
#[cfg(target_os = "linux")]
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::super::checks::Context;
use super::channel::{step, wait_for_news};
use super::child::{Running, end, spawn};
use super::outcome::{crashed, timed_out};
#[cfg(target_os = "linux")]
use super::signals::{ADOPTING, PROBING, TERMINATING};
#[cfg(target_os = "linux")]
use super::subreaper::{children, end_adopted};
use backend_targets::probe::native::{CheckReport, NativeCheck};

/// Runs `checks` in child processes of `helper`, all at once, until `deadline`.
pub(crate) fn in_processes(
    helper: &Path,
    checks: &[NativeCheck],
    context: &Context,
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    let start = Instant::now();
    #[cfg(target_os = "linux")]
    PROBING.fetch_add(1, Ordering::SeqCst);
    // Where this process adopts: the children it has before the checks
    // start are not the probe's (the program's own, or another probe's
    // checks), and the sweep leaves them alone.
    #[cfg(target_os = "linux")]
    let before: Vec<libc::pid_t> = if ADOPTING.load(Ordering::SeqCst) {
        children().unwrap_or_default().into_iter().map(|(pid, _)| pid).collect()
    } else {
        Vec::new()
    };
    let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
    let mut running: Vec<(usize, Running)> = Vec::new();
    let mut started: Vec<libc::pid_t> = Vec::new();
    for (index, &check) in checks.iter().enumerate() {
        match spawn(helper, check, context) {
            Ok(process) => {
                started.push(process.child.id() as libc::pid_t);
                running.push((index, process));
            }
            Err(message) => reports[index] = Some(crashed(check, message)),
        }
    }
    while !running.is_empty() {
        wait_for_news(&running, deadline);
        // Ended by a signal the handler left to this loop: no answer.
        #[cfg(target_os = "linux")]
        if TERMINATING.load(Ordering::SeqCst) != 0 {
            running.drain(..).for_each(|(_, process)| end(process));
            break;
        }
        let now = Instant::now();
        let mut still = Vec::new();
        for (index, mut process) in running {
            match step(&mut process, now >= deadline, timeout_ms) {
                Some(mut report) => {
                    end(process);
                    report.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
                    reports[index] = Some(report);
                }
                None => still.push((index, process)),
            }
        }
        running = still;
    }
    #[cfg(target_os = "linux")]
    {
        PROBING.fetch_sub(1, Ordering::SeqCst);
        end_adopted(&started, &before);
        let signal = TERMINATING.load(Ordering::SeqCst);
        if signal != 0 {
            // SAFETY: raise is async-signal-safe; the handler left the
            // signal's action at its default (SA_RESETHAND), so this
            // ends the process as the signal would have.
            unsafe { libc::raise(signal) };
        }
    }
    reports
        .into_iter()
        .zip(checks)
        .map(|(report, &check)| report.unwrap_or_else(|| timed_out(check, timeout_ms, "not run")))
        .collect()
}
