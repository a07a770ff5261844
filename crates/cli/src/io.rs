//! The command's I/O: standard output as a file (so that a closed one is
//! seen), writes in 1 MiB pieces, a bounded read of stdin or `--request`,
//! and I/O errors in the same words natively and under WASI.

use std::io::{Read, Write};

use backend_targets::{Error, ErrorCode};

/// Standard output as a file, not [`std::io::Stdout`], which reports a write
/// to a closed descriptor (`>&-`) as done: that output would be lost with
/// status 0.
#[cfg(any(unix, target_os = "wasi"))]
pub(crate) fn stdout_descriptor() -> std::mem::ManuallyDrop<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: `from_raw_fd` asks for an open descriptor that nothing else
    // closes while the File lives. Descriptor 1 is open: std's start-up
    // opens /dev/null on a closed standard descriptor before `main` (Unix;
    // the command notes beforehand that it was closed, crates/cli/src/main/closed_stdout.rs),
    // and WASI's standard output is the host's, always there. std's `Stdout`
    // never closes it, this crate closes no descriptor it did not open, and
    // ManuallyDrop keeps this File from closing it: it borrows descriptor 1
    // as `Stdout` does (a program that closes descriptor 1 itself while
    // `cli::run` writes breaks this as it breaks `Stdout`).
    std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) })
}

#[cfg(not(any(unix, target_os = "wasi")))]
pub(crate) fn stdout_descriptor() -> Box<std::io::StdoutLock<'static>> {
    Box::new(std::io::stdout().lock())
}

/// `EBADF`: the descriptor is not open.
#[cfg(all(unix, not(target_os = "wasi")))]
pub(crate) const CLOSED_DESCRIPTOR: Option<i32> = Some(libc::EBADF);
/// WASI's `errno::badf`.
#[cfg(target_os = "wasi")]
pub(crate) const CLOSED_DESCRIPTOR: Option<i32> = Some(8);
#[cfg(not(any(unix, target_os = "wasi")))]
pub(crate) const CLOSED_DESCRIPTOR: Option<i32> = None;

/// Whether a write to stdout failed because its reader closed it: EPIPE, or,
/// under WASI, errno `io`, which is how wasmtime reports a stream its reader
/// closed (a full disk stays `nospc`, "no space left"; node:wasi says `pipe`).
pub(crate) fn closed_by_its_reader(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::BrokenPipe || (cfg!(target_os = "wasi") && error.raw_os_error() == Some(29))
}

/// Writes `bytes` in pieces of 1 MiB (a runtime may refuse one very large
/// write) and flushes.
pub fn write_out(out: &mut dyn Write, bytes: &[u8]) -> std::io::Result<()> {
    for piece in bytes.chunks(1 << 20) {
        out.write_all(piece)?;
    }
    out.flush()
}

/// Why a file could not be opened. Under WASI a file outside the folders
/// the runtime lets the module see reads as missing: say so.
pub(crate) fn open_words(error: &std::io::Error) -> String {
    let words = io_words(error);
    if cfg!(target_os = "wasi") && error.kind() == std::io::ErrorKind::NotFound {
        format!(
            "{words} (a WASI module sees only the folders its runtime opens for it: \
             `wasmtime run --dir .` for a path under the working directory)"
        )
    } else {
        words.to_string()
    }
}

/// An I/O error in the same words natively and under WASI.
pub(crate) fn io_words(error: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    if error.raw_os_error().is_some() && error.raw_os_error() == CLOSED_DESCRIPTOR {
        return "it is closed";
    }
    match error.kind() {
        NotFound => "no such file",
        PermissionDenied => "permission denied",
        IsADirectory => "it is a directory",
        StorageFull => "no space left",
        BrokenPipe => "the reader closed it",
        InvalidData => "not valid data",
        OutOfMemory => "out of memory",
        _ => "an I/O error",
    }
}

/// Reads at most `limit` bytes: more is `limit-exceeded`, and is never read
/// whole first. `path` locates an I/O error (`--request`, or the top level
/// for stdin). Read in pieces of at most 1 MiB, as the output is written: one
/// larger read is refused by wasmtime (its limit on what one call carries,
/// 128 MiB, reads as an I/O error in the module).
pub(crate) fn read_all(reader: &mut (impl Read + ?Sized), limit: usize, path: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    // One byte past the limit tells "more" from "exactly the limit".
    while bytes.len() <= limit {
        let start = bytes.len();
        bytes.resize(start + (limit + 1 - start).min(1 << 20), 0);
        match reader.read(&mut bytes[start..]) {
            Ok(0) => {
                bytes.truncate(start);
                break;
            }
            Ok(read) => bytes.truncate(start + read),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => bytes.truncate(start),
            Err(e) => {
                return Err(Error::new(ErrorCode::Io, path, format!("cannot read the input: {}", io_words(&e))));
            }
        }
    }
    if bytes.len() > limit {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            path,
            format!("more than {limit} bytes, the limit requestBytes (plan --limit requestBytes=N raises it)"),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorCode::InvalidJson, path, "input is not valid UTF-8"))
}
