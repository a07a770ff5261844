//! The `backend-targets` command line: argument parsing (lexopt) and I/O over
//! the core. Built natively and for `wasm32-wasip1`; it needs no filesystem
//! or environment unless `--request FILE` is given. `probe` and `plan
//! --probe` run the native probe (`backend-targets-native-probe`), which
//! re-executes this command once per check (`__probe-check`, hidden); a WASI
//! module refuses them. Not built for the browser (`wasm32-unknown-unknown`).
//!
//! Exit status: 0 done (or planned, or probed, whatever was dropped), 1 not
//! plannable (the explanation is on stdout), 2 invalid input or usage (one
//! line on stderr, nothing on stdout), 3 the output could not be written (one
//! line on stderr), 141 stdout was closed by its reader (quietly, as a tool
//! killed by SIGPIPE ends; 13 under WASI, whose exit statuses stop at 125).
//!
//! Split by job: this file is the process ([`main`], [`run`], the exit
//! statuses, [`Outcome`]); `help` the help texts from the command table;
//! `args` reading the command line; `commands` the commands themselves;
//! `io` standard output, bounded reads and I/O errors' words.

#![cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]

mod args;
mod commands;
mod help;
mod io;

use std::ffi::OsString;
use std::io::{Read, Write};

use backend_targets::{Error, ErrorCode};

use args::*;
use commands::*;
use help::*;
pub use io::write_out;
use io::*;

/// Exit status: done, or planned.
pub const EXIT_OK: i32 = 0;
/// Exit status: not plannable (the explanation is on stdout).
pub const EXIT_NOT_PLANNABLE: i32 = 1;
/// Exit status: invalid input or usage (one line on stderr).
pub const EXIT_INVALID: i32 = 2;
/// Writing stdout failed (a full disk, a WASI output limit): one line on stderr.
pub const EXIT_OUTPUT: i32 = 3;
/// stdout was closed by its reader (EPIPE): nothing more is said, as with a
/// tool that SIGPIPE ends (128 + 13), and never success.
#[cfg(not(target_os = "wasi"))]
pub const EXIT_CLOSED_PIPE: i32 = 141;
/// stdout was closed by its reader: nothing more is said, and never success.
/// 13 (SIGPIPE's number), not 141: a WASI exit status must be below 126
/// (wasmtime refuses a larger one with an error of its own and status 1).
#[cfg(target_os = "wasi")]
pub const EXIT_CLOSED_PIPE: i32 = 13;

/// The commands' names, in the command table's order: what `--help` lists
/// and [`run`] dispatches (the service's routes and the npm package's exports
/// are held to them by their tests).
pub fn command_names() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(|(name, _, _)| *name)
}

/// What one run printed and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// What the command wrote to stdout.
    pub stdout: String,
    /// What the command wrote to stderr.
    pub stderr: String,
    /// The exit status.
    pub status: i32,
}

impl Outcome {
    fn printed(text: String, status: i32) -> Self {
        Self { stdout: text, stderr: String::new(), status }
    }

    fn invalid(error: &Error) -> Self {
        let hint = if error.code == ErrorCode::Usage { " (see --help)" } else { "" };
        Self {
            stdout: String::new(),
            stderr: format!("backend-targets: error {}{hint}\n", error.one_line()),
            status: EXIT_INVALID,
        }
    }
}

/// Runs the process: arguments, stdin, stdout and stderr, exit status.
///
/// A write to stdout that fails is never success: a closed pipe ends with
/// [`EXIT_CLOSED_PIPE`] and nothing on stderr; any other failure (a full
/// disk, a WASI output limit) with [`EXIT_OUTPUT`] and one line on stderr.
///
/// `stdout_closed_at_start`: whether standard output was closed when the
/// process started (`>&-`), which only the program can know. The Rust
/// runtime opens `/dev/null` on a closed standard descriptor before `main`
/// runs, so that writing to it would succeed with the output lost; the
/// `backend-targets` binary reads it earlier, from the loader's
/// initialisers (`crates/cli/src/main/closed_stdout.rs`), a process-wide choice this
/// library leaves to its program. `false` where that cannot be known (WASI,
/// where a closed descriptor stays closed and the write fails).
///
/// # Safety
///
/// Natively, where the process's arguments are a check's
/// (`native::HELPER_COMMAND <check>`: the probe runs this command again,
/// once per check), this runs the check in this process and ends it: vendor
/// libraries load here, their initialisers run here, and what they do is
/// done to this process (`native::serve_check_if_requested`'s contract).
/// The caller must ensure that a process started with such arguments is one
/// it may give up to that: call this only as a program's `main`, never in a
/// process that has other work (the `backend-targets` binary does).
pub unsafe fn main(stdout_closed_at_start: bool) -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // A check of `probe`, in the child process that isolates it (which ends there).
    // SAFETY: forwarded: `serve_check_if_requested`'s contract is this function's.
    #[cfg(not(target_family = "wasm"))]
    unsafe {
        backend_targets_native_probe::serve_check_if_requested(&args)
    };
    let outcome = run(args, &mut std::io::stdin().lock());
    let mut status = outcome.status;
    let mut stderr = outcome.stderr;
    let written = if stdout_closed_at_start {
        Err(std::io::Error::from_raw_os_error(CLOSED_DESCRIPTOR.unwrap_or_default()))
    } else {
        write_out(&mut *stdout_descriptor(), outcome.stdout.as_bytes())
    };
    match written {
        Ok(()) => {}
        Err(error) if closed_by_its_reader(&error) => status = EXIT_CLOSED_PIPE,
        Err(error) => {
            status = EXIT_OUTPUT;
            let error = Error::new(ErrorCode::Output, "", format!("cannot write the output: {}", io_words(&error)));
            stderr.push_str(&format!("backend-targets: error {}\n", error.one_line()));
        }
    }
    // Nothing is left to tell a closed stderr; the status still says it.
    let _ = std::io::stderr().lock().write_all(stderr.as_bytes());
    status
}

/// Runs one command without touching the process: for tests and embedding.
/// `probe` and `plan --probe` run their checks in child processes of this
/// process's executable (`/proc/self/exe` on Linux, else
/// [`std::env::current_exe`]; without either, each such check says that it
/// could not start), which must answer
/// `native::HELPER_COMMAND` as [`main`] does. `stdin` is generic, not
/// `&mut dyn Read`: a `dyn` reader brings every [`Read`] method of stdin (and
/// of `File`, for `--request`) into the binaries, some 4 KB of the WASI module.
pub fn run(args: Vec<OsString>, stdin: &mut (impl Read + ?Sized)) -> Outcome {
    match dispatch(args, stdin) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::invalid(&error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backend_targets::OptionSpelling;

    /// The options a help text names (`--word`).
    fn flags_in(help: &str) -> Vec<String> {
        let mut flags: Vec<String> = help
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|word| word.starts_with("--") && word.len() > 2)
            .map(String::from)
            .collect();
        flags.sort();
        flags.dedup();
        flags
    }

    /// Each command's options, to which a misspelled one is compared, are
    /// the ones its help names (and `--help`); `probe` takes the preset
    /// options its help refers to `target` for.
    #[test]
    fn every_command_s_options_are_the_ones_its_help_names() {
        let preset_flags: Vec<String> = OptionSpelling::TABLE.iter().map(|(_, flag)| flag.to_string()).collect();
        for (command, help, options) in [
            ("presets", presets_help(), COMMON_OPTIONS),
            ("target", preset_help(), PRESET_OPTIONS),
            ("plan", plan_help(), PLAN_OPTIONS),
            ("probe", probe_help(), PROBE_OPTIONS),
            ("schema", schema_help(), COMMON_OPTIONS),
            ("reference-capsules", REFERENCE_CAPSULES_HELP.to_string(), COMMON_OPTIONS),
        ] {
            let mut named = flags_in(&help);
            named.push("--help".to_string());
            if command == "probe" {
                named.extend(preset_flags.iter().cloned());
            }
            named.sort();
            named.dedup();
            let mut options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            options.sort();
            assert_eq!(options, named, "{command}");
            if matches!(command, "target" | "probe") {
                assert!(preset_flags.iter().all(|flag| options.contains(flag)), "{command}");
            }
        }
        let main = flags_in(&main_help());
        assert!(MAIN_OPTIONS.iter().all(|option| main.iter().any(|named| named == option)), "{main:?}");
    }

    /// The command table is what `run` dispatches: each row's command
    /// answers its own `--help` (its usage line names it), and a name
    /// outside the table is unknown, the error listing the table's names.
    #[test]
    fn dispatch_follows_the_command_table() {
        for name in command_names() {
            let outcome = run(vec![name.into(), "--help".into()], &mut std::io::empty());
            assert_eq!(outcome.status, EXIT_OK, "{name}: {}", outcome.stderr);
            assert!(outcome.stdout.contains(&format!("backend-targets {name}")), "{name}: {}", outcome.stdout);
        }
        let outcome = run(vec!["nonsense-command".into()], &mut std::io::empty());
        assert_eq!(outcome.status, EXIT_INVALID);
        let listed: Vec<&str> = command_names().chain(["help"]).collect();
        assert!(outcome.stderr.contains(&format!("expected one of: {}", listed.join(", "))), "{}", outcome.stderr);
    }
}
