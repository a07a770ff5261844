//! The checks' processes off Unix (Windows): each in a child process that
//! answers on its stdout, read on a thread with the answer's bound; a hang
//! is killed at the deadline.

use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use super::super::checks::Context;
use super::channel::{MAX_ANSWER_BYTES, answer_in};
use super::outcome::{crashed, not_started, timed_out};
use backend_targets::probe::native::{CheckReport, NativeCheck};

/// Elsewhere (Windows): each check in a child process that answers on its
/// stdout, read with the same bound; a hang is killed at the deadline.
pub(crate) fn in_processes(
    helper: &std::path::Path,
    checks: &[NativeCheck],
    context: &Context,
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    checks
        .iter()
        .map(|&check| {
            let mut command = Command::new(helper);
            command.args(super::super::protocol::Request { check, driver: context.driver }.args());
            command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).current_dir("\\");
            let mut child = match command.spawn() {
                Ok(child) => child,
                Err(error) => return crashed(check, not_started(check, helper, &error)),
            };
            let mut stdout = child.stdout.take();
            let (sender, receiver) = mpsc::channel();
            let reader = thread::Builder::new().spawn(move || {
                let mut bytes = Vec::new();
                if let Some(out) = stdout.as_mut() {
                    let _ = out.take(MAX_ANSWER_BYTES as u64).read_to_end(&mut bytes);
                }
                let _ = sender.send(bytes);
            });
            if reader.is_err() {
                let _ = child.kill();
                return crashed(check, format!("the {check} check's reader thread did not start"));
            }
            match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(bytes) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    match answer_in(&bytes, check) {
                        Some(Ok(report)) => report,
                        Some(Err(message)) => crashed(check, message),
                        None => crashed(check, format!("the {check} check's process ended without an answer")),
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    timed_out(check, timeout_ms, "its process was killed")
                }
            }
        })
        .collect()
}
