//! The answer channel's fixed terms (Unix), which both of its sides and the
//! reports keep to: the descriptor a check's process answers on, and the
//! exit status of one that lost it. Below every module that uses them
//! (`child` passes the descriptor on, `channel` reads it, `outcome` names
//! both in its reports, and the check's side in the crate's `lib.rs` writes
//! on it), so that none of those has to reach into another for them.

/// The file descriptor a check's process writes its answer to.
pub const ANSWER_FD: i32 = 3;

/// The exit status of a check's process that found, when it came to write on
/// its answer channel, that a library had closed or replaced it (and the
/// copy it made at its start): it wrote its answer nowhere. Chosen away
/// from the statuses a library that ends the process itself uses (0 to a
/// few, `exit(-1)`'s 255), and above 128 + every signal's number (64), so
/// that no shell reads it as a signal's end either: any other status is
/// reported as the library's `exit(N)`, with the step it ended in.
pub const LOST_CHANNEL_STATUS: i32 = 193;
