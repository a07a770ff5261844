//! The answer channel, as the probe reads it (its fixed terms, the
//! descriptor and the status of a process that lost it, are `wire`'s):
//! waiting for news on the running checks' channels, reading only the new
//! bytes (the steps they name, then the answer, at most
//! [`MAX_ANSWER_BYTES`]), and what a running check has come to (its answer,
//! an end without one, the deadline). Off Unix, the answer on the first complete line of a
//! process's stdout. (The check's side writes it: [`Channel`](crate::Channel) in the crate's
//! `lib.rs`; what the lines say: [`protocol`](crate::protocol).)

#[cfg(unix)]
use std::io::{ErrorKind, Read};
#[cfg(unix)]
use std::os::fd::AsRawFd;
#[cfg(unix)]
use std::time::{Duration, Instant};

use super::super::protocol::{Line, line_in};
#[cfg(unix)]
use super::child::Running;
#[cfg(unix)]
use super::outcome::{crashed, exited_without_answer, timed_out};
use backend_targets::probe::native::CheckReport;
#[cfg(not(unix))]
use backend_targets::probe::native::NativeCheck;

/// The most bytes an answer may take (a report with 64 devices is a few KiB).
pub(super) const MAX_ANSWER_BYTES: usize = 1 << 20;

/// The report on the first complete line of `bytes` that is not a step:
/// `Some(Err)` when it is not this check's report.
#[cfg(not(unix))]
pub(super) fn answer_in(bytes: &[u8], check: NativeCheck) -> Option<Result<CheckReport, String>> {
    let mut lines = bytes.split_inclusive(|&b| b == b'\n').filter(|line| line.ends_with(b"\n"));
    lines.find_map(|line| match line_in(&line[..line.len() - 1], check) {
        Line::Step(_) => None,
        Line::Answer(answer) => Some(answer),
    })
}

#[cfg(unix)]
/// Sleeps until an answer channel has news, or a short while (a process
/// can end without closing a channel that a process it started still
/// holds), or the deadline.
pub(super) fn wait_for_news(running: &[(usize, Running)], deadline: Instant) {
    let mut fds: Vec<libc::pollfd> = running
        .iter()
        .filter_map(|(_, p)| p.answer.as_ref())
        .map(|file| libc::pollfd { fd: file.as_raw_fd(), events: libc::POLLIN, revents: 0 })
        .collect();
    let left = deadline.saturating_duration_since(Instant::now());
    let wait = left.min(Duration::from_millis(if fds.is_empty() { 2 } else { 20 }));
    let ms = wait.as_millis().max(u128::from(!left.is_zero())) as libc::c_int;
    // SAFETY: `fds` is a valid array of its length.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
}

#[cfg(unix)]
/// Reads what is new on the channel, without blocking; `Some` with the
/// report once there is an outcome.
pub(super) fn step(process: &mut Running, past_deadline: bool, timeout_ms: u32) -> Option<CheckReport> {
    let check = process.check;
    if let Some(outcome) = read_new(process) {
        return Some(outcome.unwrap_or_else(|message| crashed(check, message)));
    }
    match process.child.try_wait() {
        Ok(Some(status)) => {
            // Exited: what it wrote before it ended is all in the pipe.
            if let Some(outcome) = read_new(process) {
                return Some(outcome.unwrap_or_else(|message| crashed(check, message)));
            }
            Some(exited_without_answer(check, status, process.step.as_deref()))
        }
        Ok(None) if past_deadline => Some(timed_out(check, timeout_ms, "its process group was killed")),
        Ok(None) => None,
        Err(error) => Some(crashed(check, format!("waiting for the {check} check failed: {error}"))),
    }
}

#[cfg(unix)]
/// The new bytes on the channel: the steps it names are noted; `Some`
/// once the answer's line is complete (or too long); `None` while it is
/// not.
fn read_new(process: &mut Running) -> Option<Result<CheckReport, String>> {
    let check = process.check;
    let file = process.answer.as_mut()?;
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => {
                process.answer = None;
                break;
            }
            Ok(n) => {
                process.received += n;
                // Only the new bytes are searched for a line's end: the
                // bytes kept hold none (complete lines are taken out).
                let mut from = process.bytes.len();
                process.bytes.extend_from_slice(&chunk[..n]);
                while let Some(at) = process.bytes[from..].iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = process.bytes.drain(..=from + at).collect();
                    match line_in(&line[..line.len() - 1], check) {
                        Line::Step(step) => process.step = Some(step),
                        Line::Answer(answer) => return Some(answer),
                    }
                    from = 0;
                }
                if process.received > MAX_ANSWER_BYTES {
                    return Some(Err(format!(
                        "the {check} check's process wrote more than {MAX_ANSWER_BYTES} bytes without an answer"
                    )));
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    None
}
