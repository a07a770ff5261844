//! Checks on threads of this process, for a caller without a helper
//! ([`probe_in_threads`](crate::probe_in_threads)): each on its own thread, abandoned at the deadline.

use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use super::super::checks::{Context, run};
use super::outcome::{crashed, timed_out};
use backend_targets::probe::native::{CheckReport, NativeCheck};

/// Runs `checks` on threads of this process until `deadline`; a check still
/// running then is abandoned (its thread stays blocked in the library).
///
/// # Safety
///
/// The checks load vendor libraries into this process, where their
/// initialisers run, and call into them: the caller must ensure this
/// process may suffer what they do, past the deadline too
/// ([`probe_in_threads`](crate::probe_in_threads)'s contract).
pub(crate) unsafe fn in_threads(
    checks: &[NativeCheck],
    context: &Context,
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    let (sender, receiver) = mpsc::channel();
    for (index, &check) in checks.iter().enumerate() {
        let answer = sender.clone();
        let context = context.clone();
        let spawned = thread::Builder::new().name(format!("probe-{check}")).spawn(move || {
            // SAFETY: forwarded: `run`'s contract is this function's.
            let _ = answer.send((index, unsafe { run(check, &context) }));
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
