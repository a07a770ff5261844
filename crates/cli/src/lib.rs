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

#![cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]

use std::ffi::OsString;
use std::io::{Read, Write};

use lexopt::prelude::*;

use backend_targets::Limits;
use backend_targets::SchemaName;
use backend_targets::json::{to_json, to_json_pretty};
use backend_targets::probe::native::{NATIVE_PROBE_TIMEOUT_MS, NativeResolution, ProbedPlanResult};
use backend_targets::reference_capsules;
use backend_targets::vocab::{Architecture, OperatingSystem};
use backend_targets::wording::{joined, quoted_short};
use backend_targets::{Error, ErrorCode};
use backend_targets::{OptionSpelling, Preset, PresetOptions, Target, presets};
use backend_targets::{parse_plan_request, parse_target};

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

/// The commands, one row each: `name`, its arguments, what it does. The
/// help and the unknown-command message derive from this table.
const COMMANDS: &[(&str, &str, &str)] = &[
    ("presets", "", "The {presets} presets with default parameters"),
    ("target", "<PRESET> [PRESET OPTIONS]", "A preset's Target"),
    ("availability", "<PRESET> [OPTIONS] | -", "A preset's declared availability, or a Target's read from stdin (-)"),
    (
        "plan",
        "[--request FILE] [--probe] [--limit NAME=N]...",
        "Plan a request (JSON, stdin by default); --probe plans against the probed availability of its target",
    ),
    ("probe", "<PRESET> [OPTIONS] | -", "Probe this host for a target's accelerator and features"),
    ("reference-capsules", "", "The built-in reference catalog: one reference capsule on cpu per op"),
    ("schema", "<NAME>", "A JSON Schema: {schemas}"),
];

/// The main help, from the command table and the vocabularies.
fn main_help() -> String {
    let mut text = String::from(
        "backend-targets: ML backend targets as data, their declared availability, and the capsule planner\n\n\
         Usage: backend-targets <COMMAND> [OPTIONS]\n\nCommands:\n",
    );
    for (name, args, about) in COMMANDS {
        let space = if args.is_empty() { "" } else { " " };
        text.push_str(&format!("  {name}{space}{args}\n      "));
        // The about text with its `{presets}` and `{schemas}` filled in: by
        // pieces, not `str::replace`, whose generic searcher was 2.4 KB of
        // the WASI module for these two words.
        for (index, piece) in about.split(['{', '}']).enumerate() {
            match (index % 2, piece) {
                (1, "presets") => text.push_str(&Preset::ALL.len().to_string()),
                (1, "schemas") => text.push_str(&joined(SchemaName::SPELLINGS, ", ")),
                _ => text.push_str(piece),
            }
        }
        text.push('\n');
    }
    text.push_str(
        "\nOptions:\n  --pretty      Indent the JSON output\n  -h, --help    This help (also after a command)\n  \
         -V, --version The version\n\nAn option given twice is a usage error.\n\n\
         Exit status: 0 done (probe: whatever was dropped), 1 not plannable (explanation on stdout),\n\
         2 invalid input or usage (also probe under WASI), 3 the output could not be written,\n",
    );
    text.push_str(CLOSED_PIPE_HELP);
    text
}

/// The closed-pipe line of the main help, for this build.
#[cfg(not(target_os = "wasi"))]
const CLOSED_PIPE_HELP: &str = "141 stdout was closed by its reader.\n";
#[cfg(target_os = "wasi")]
const CLOSED_PIPE_HELP: &str = "13 (141 natively) stdout was closed by its reader.\n";

/// `target --help`: the preset list and which preset takes which option,
/// from the preset table.
fn preset_help() -> String {
    let takers = |option: &str| {
        let names: Vec<&str> =
            Preset::ALL.iter().filter(|p| p.parameters().names().contains(&option)).map(|p| p.as_str()).collect();
        joined(&names, ", ")
    };
    let presets: Vec<&str> = Preset::SPELLINGS.to_vec();
    format!(
        "\
Usage: backend-targets target|availability <PRESET> [--os OS] [--arch ARCH] [--enable-libtorch] [--pretty]
       backend-targets availability - [--pretty]     (reads a Target from stdin)

Presets: {}

Options (each only where the preset takes it):
  --os OS             {} ({})
  --arch ARCH         {} ({})
  --enable-libtorch   {}
",
        joined(&presets, ", "),
        takers("os"),
        joined(OperatingSystem::SPELLINGS, ", "),
        takers("arch"),
        joined(Architecture::SPELLINGS, ", "),
        takers("enableLibTorch"),
    )
}

/// `plan --help`, with the limits from their table.
fn plan_help() -> String {
    let limits: Vec<String> = Limits::NAMES
        .iter()
        .map(|name| {
            let (default, ceiling) = (Limits::DEFAULT.get(name).unwrap_or(0), Limits::CEILING.get(name).unwrap_or(0));
            format!("  {name}: default {default}, at most {ceiling}")
        })
        .collect();
    format!(
        "\
Usage: backend-targets plan [--request FILE] [--probe [--timeout-ms N]] [--limit NAME=N]... [--pretty]

Reads a plan request (JSON) from stdin, or from FILE, and prints the plan result.
--probe: probe this host for the request's target (required) and plan against the
effective availability; the result carries the probe's resolution (`resolution`).
--limit raises (or lowers) one limit the request meets, up to its ceiling (work is
configs x (ops + capsules); outputBytes bounds the answer's compact JSON, from the
request, before planning); beyond one: error limit-exceeded.
{}

Exit status: 0 planned, 1 not plannable (the explanation is printed), 2 invalid input
(or --probe under WASI).
",
        limits.join("\n")
    )
}

/// `probe --help`, with the reason codes from their table.
#[cfg(not(target_family = "wasm"))]
fn probe_help() -> String {
    format!(
        "\
Usage: backend-targets probe <PRESET> [PRESET OPTIONS] [--timeout-ms N] [--pretty]
       backend-targets probe - [--timeout-ms N] [--pretty]     (reads a Target from stdin)

Probes this host for the target's accelerator and features (the CUDA driver and its
devices, cuBLAS/cuFFT/cuDNN, libtorch, the HIP runtime, Metal, TPU and Neuron devices)
and prints the resolution: declared, effective, availability, changes (each with
action kept/dropped/asDeclared, reason and detail) and probe (host, checks, times).
Each check runs in a child process of this command; --timeout-ms (default 5000)
bounds the whole probe: a hung check is killed (`timeout`), a crash is reported
(`check-crashed`). Preset options as for `target` (see `target --help`).

Reasons: {}

Exit status: 0 probed (whatever was dropped), 2 invalid input or usage, or under WASI
(a WASI module cannot see the host's hardware).
",
        joined(backend_targets::probe::native::NativeReason::SPELLINGS, ", ")
    )
}

/// `probe --help` in a WASI module, which refuses the command: what it does
/// natively, in a line, and why not here (the native help and its table of
/// reasons are no part of the module).
#[cfg(target_family = "wasm")]
fn probe_help() -> String {
    "\
Usage: backend-targets probe <PRESET> [PRESET OPTIONS] [--timeout-ms N] [--pretty]
       backend-targets probe - [--timeout-ms N] [--pretty]     (reads a Target from stdin)

Probes this host for the target's accelerator and features: in the native command
only (`backend-targets probe --help` there says how). A WASI module cannot see the
host's hardware, and refuses it: exit status 2, error unsupported-platform.
"
    .to_string()
}

/// `schema --help`, with the names from their table.
fn schema_help() -> String {
    format!(
        "Usage: backend-targets schema <NAME> [--pretty]\n\nPrints the JSON Schema (draft 2020-12) of a form, on one line.\nNames: {}\n",
        joined(SchemaName::SPELLINGS, ", ")
    )
}

/// `presets --help`.
fn presets_help() -> String {
    format!(
        "Usage: backend-targets presets [--pretty]\n\nPrints a JSON array of {{ name, target }} for the {} presets, with default parameters.\n",
        Preset::ALL.len()
    )
}

const REFERENCE_CAPSULES_HELP: &str = "\
Usage: backend-targets reference-capsules [--pretty]

Prints the built-in reference catalog, a JSON array of KernelCapsule (one `reference`
capsule on cpu per op): the catalog a plan request without `capsules` plans with, and
what to add your own capsules to. The same bytes as JSON.stringify(referenceCapsules())
in JavaScript.
";

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
/// `EXIT_CLOSED_PIPE` and nothing on stderr; any other failure (a full
/// disk, a WASI output limit) with `EXIT_OUTPUT` and one line on stderr.
///
/// `stdout_closed_at_start`: whether standard output was closed when the
/// process started (`>&-`), which only the program can know. The Rust
/// runtime opens `/dev/null` on a closed standard descriptor before `main`
/// runs, so that writing to it would succeed with the output lost; the
/// `backend-targets` binary reads it earlier, from the loader's
/// initialisers (`crates/cli/src/main/closed_stdout.rs`), a process-wide choice this
/// library leaves to its program. `false` where that cannot be known (WASI,
/// where a closed descriptor stays closed and the write fails).
pub fn main(stdout_closed_at_start: bool) -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // A check of `probe`, in the child process that isolates it.
    #[cfg(not(target_family = "wasm"))]
    if args.first().is_some_and(|a| a == backend_targets_native_probe::HELPER_COMMAND) {
        backend_targets_native_probe::serve_check(&args[1..]);
    }
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

/// Standard output as a file, not `std::io::Stdout`, which reports a write
/// to a closed descriptor (`>&-`) as done: that output would be lost with
/// status 0.
#[cfg(any(unix, target_os = "wasi"))]
fn stdout_descriptor() -> std::mem::ManuallyDrop<std::fs::File> {
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
fn stdout_descriptor() -> Box<std::io::StdoutLock<'static>> {
    Box::new(std::io::stdout().lock())
}

/// `EBADF`: the descriptor is not open.
#[cfg(all(unix, not(target_os = "wasi")))]
const CLOSED_DESCRIPTOR: Option<i32> = Some(libc::EBADF);
/// WASI's `errno::badf`.
#[cfg(target_os = "wasi")]
const CLOSED_DESCRIPTOR: Option<i32> = Some(8);
#[cfg(not(any(unix, target_os = "wasi")))]
const CLOSED_DESCRIPTOR: Option<i32> = None;

/// Whether a write to stdout failed because its reader closed it: EPIPE, or,
/// under WASI, errno `io`, which is how wasmtime reports a stream its reader
/// closed (a full disk stays `nospc`, "no space left"; node:wasi says `pipe`).
fn closed_by_its_reader(error: &std::io::Error) -> bool {
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
fn open_words(error: &std::io::Error) -> String {
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
fn io_words(error: &std::io::Error) -> &'static str {
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

/// Runs one command without touching the process: for tests and embedding.
/// `probe` and `plan --probe` run their checks in child processes of this
/// process's executable (`/proc/self/exe` on Linux, else
/// `std::env::current_exe`), which must answer
/// `native::HELPER_COMMAND` as `main` does. `stdin` is generic, not
/// `&mut dyn Read`: a `dyn` reader brings every `Read` method of stdin (and
/// of `File`, for `--request`) into the binaries, some 4 KB of the WASI module.
pub fn run(args: Vec<OsString>, stdin: &mut (impl Read + ?Sized)) -> Outcome {
    match dispatch(args, stdin) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::invalid(&error),
    }
}

fn usage(path: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Usage, path, message)
}

/// lexopt's error in lexopt's words, but with the argument quoted as JSON
/// (`error::quoted_short`), as every message quotes a value: lexopt's own
/// `{:?}` printed nothing in the builds without `Debug` formatting (WASI), and
/// its `Display` linked the formatting of any boxed error (2.5 KB there).
/// An option that is not a plain name is a quoted path too (`option_path`):
/// a newline or an escape in it stays out of the one line of stderr.
fn usage_error(error: lexopt::Error) -> Error {
    use lexopt::Error::*;
    let quoted = |value: &OsString| quoted_short(&value.to_string_lossy());
    let option_quoted = |option: &str| quoted_short(option);
    match &error {
        MissingValue { option: None } => usage("", "missing argument"),
        MissingValue { option: Some(option) } => {
            usage(&option_path(option), format!("missing argument for option {}", option_quoted(option)))
        }
        UnexpectedOption(option) => usage(&option_path(option), format!("invalid option {}", option_quoted(option))),
        UnexpectedArgument(value) => usage("", format!("unexpected argument {}", quoted(value))),
        UnexpectedValue { option, value } => usage(
            &option_path(option),
            format!("unexpected argument for option {}: {}", option_quoted(option), quoted(value)),
        ),
        NonUnicodeValue(value) => usage("", format!("argument is invalid unicode: {}", quoted(value))),
        // Made only by a caller's own parsing or messages, which this command has none of.
        _ => usage("", "invalid arguments"),
    }
}

/// The long options of `probe`; `target` and `availability` take all but
/// the first, `presets`, `schema` and `reference-capsules` the last two
/// (`COMMON_OPTIONS`). A misspelled option is compared with the list of its
/// command (a unit test holds each list to the command's help, and the
/// preset options to `OptionSpelling::TABLE`).
const PROBE_OPTIONS: &[&str] = &["--timeout-ms", "--os", "--arch", "--enable-libtorch", "--pretty", "--help"];
/// `target`'s and `availability`'s long options.
const PRESET_OPTIONS: &[&str] = PROBE_OPTIONS.split_at(1).1;
/// The long options every command takes.
const COMMON_OPTIONS: &[&str] = PROBE_OPTIONS.split_at(4).1;
/// `plan`'s long options.
const PLAN_OPTIONS: &[&str] = &["--request", "--probe", "--timeout-ms", "--limit", "--pretty", "--help"];
/// The long options before any command.
const MAIN_OPTIONS: &[&str] = &["--help", "--version"];

/// An argument a command does not take: a long option is an unknown
/// spelling of the `options` it takes (`Error::unknown_spelling`, as for a
/// misspelled JSON value: what it most likely meant, or the list), a `usage`
/// error at the option; anything else is lexopt's error (`usage_error`).
#[inline(never)]
fn refused(arg: lexopt::Arg<'_>, options: &[&str]) -> Error {
    match arg.unexpected() {
        lexopt::Error::UnexpectedOption(option) if option.starts_with("--") => {
            let spelled = Error::unknown_spelling("option", &option, options);
            Error { code: ErrorCode::Usage, path: option_path(&option), ..spelled }
        }
        other => usage_error(other),
    }
}

/// An option as an error's path: itself when it is a plain name (`--frob`,
/// `-x`: ASCII letters, digits, `-` and `_`, at most 64 bytes), else quoted
/// as an index (`["--a\nb"]`), cut as messages cut it.
fn option_path(option: &str) -> String {
    let plain = !option.is_empty()
        && option.len() <= 64
        && option.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain { option.to_string() } else { format!("[{}]", quoted_short(option)) }
}

fn text_arg(value: OsString, what: &str) -> Result<String, Error> {
    value.into_string().map_err(|_| usage(what, "not valid UTF-8"))
}

/// Common output options.
#[derive(Default)]
struct Output {
    pretty: bool,
}

impl Output {
    fn json<T: serde::Serialize>(&self, value: &T) -> String {
        let mut text = if self.pretty { to_json_pretty(value) } else { to_json(value) };
        text.push('\n');
        text
    }
}

/// The next argument, refusing an option given twice: one rule for every
/// command and option, but `--limit`, which names one limit per use (and
/// refuses a limit named twice).
fn next_arg<'a>(parser: &'a mut lexopt::Parser, seen: &mut Vec<String>) -> Result<Option<lexopt::Arg<'a>>, Error> {
    let arg = parser.next().map_err(usage_error)?;
    let flag = match &arg {
        Some(Long(name)) if *name != "limit" => Some(format!("--{name}")),
        Some(Short('r')) => Some("--request".to_string()),
        _ => None,
    };
    if let Some(flag) = flag {
        if seen.contains(&flag) {
            return Err(usage(&flag, format!("{flag} is given twice")));
        }
        seen.push(flag);
    }
    Ok(arg)
}

fn dispatch(args: Vec<OsString>, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
    let mut parser = lexopt::Parser::from_args(args);
    let command = match parser.next().map_err(usage_error)? {
        None => return Err(usage("", "a command is required")),
        Some(Short('h') | Long("help")) => return Ok(Outcome::printed(main_help(), EXIT_OK)),
        Some(Short('V') | Long("version")) => {
            let version = format!("backend-targets {}\n", env!("CARGO_PKG_VERSION"));
            return Ok(Outcome::printed(version, EXIT_OK));
        }
        Some(Value(command)) => text_arg(command, "command")?,
        Some(other) => return Err(refused(other, MAIN_OPTIONS)),
    };
    match command.as_str() {
        "presets" => presets_command(&mut parser),
        "target" => preset_command(&mut parser, stdin, false),
        "availability" => preset_command(&mut parser, stdin, true),
        "plan" => plan_command(&mut parser, stdin),
        "probe" => probe_command(&mut parser, stdin),
        "reference-capsules" => reference_capsules_command(&mut parser),
        "schema" => schema_command(&mut parser),
        "help" => Ok(Outcome::printed(main_help(), EXIT_OK)),
        other => {
            let mut names: Vec<&str> = COMMANDS.iter().map(|(name, _, _)| *name).collect();
            names.push("help");
            let spelled = Error::unknown_spelling("command", other, &names);
            Err(Error { code: ErrorCode::Usage, path: "command".into(), ..spelled })
        }
    }
}

fn help(text: &str) -> Result<Outcome, Error> {
    Ok(Outcome::printed(text.to_string(), EXIT_OK))
}

/// A command whose only option is `--pretty`: prints `value` as JSON.
fn json_command<T: serde::Serialize>(
    parser: &mut lexopt::Parser,
    help_text: &dyn Fn() -> String,
    value: &dyn Fn() -> T,
) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(&help_text()),
            other => return Err(refused(other, COMMON_OPTIONS)),
        }
    }
    Ok(Outcome::printed(output.json(&value()), EXIT_OK))
}

fn presets_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    json_command(parser, &presets_help, &presets)
}

/// `reference-capsules`: the catalog JS's `referenceCapsules()` returns.
fn reference_capsules_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    json_command(parser, &|| REFERENCE_CAPSULES_HELP.to_string(), &reference_capsules)
}

/// Where a target comes from: a preset with options, or stdin (`-`).
enum TargetSource {
    Preset(Preset),
    Stdin,
}

/// A `lexopt::Arg` that no longer borrows the parser (which the preset
/// options need for their values).
enum OwnedArg {
    Short(char),
    Long(String),
    Value(OsString),
}

impl OwnedArg {
    fn from(arg: lexopt::Arg<'_>) -> Self {
        match arg {
            Short(c) => Self::Short(c),
            Long(name) => Self::Long(name.to_string()),
            Value(value) => Self::Value(value),
        }
    }

    fn borrowed(&self) -> lexopt::Arg<'_> {
        match self {
            Self::Short(c) => Short(*c),
            Self::Long(name) => Long(name),
            Self::Value(value) => Value(value.clone()),
        }
    }
}

/// A target given as `<PRESET> [PRESET OPTIONS]` or `-` (stdin, when
/// `stdin_allowed`), read one argument at a time.
#[derive(Default)]
struct TargetArgs {
    source: Option<TargetSource>,
    options: PresetOptions,
    given: Vec<&'static str>,
}

impl TargetArgs {
    /// Takes `arg` (a preset option or the preset), or refuses it, naming
    /// the command's `options`.
    fn take(
        &mut self,
        arg: OwnedArg,
        parser: &mut lexopt::Parser,
        options: &[&str],
        stdin_allowed: bool,
    ) -> Result<(), Error> {
        match arg.borrowed() {
            Long("os") => {
                let value = text_arg(parser.value().map_err(usage_error)?, "--os")?;
                self.options.os = Some(value.parse::<OperatingSystem>().map_err(|e| e.under("--os"))?);
                self.given.push("--os");
            }
            Long("arch") => {
                let value = text_arg(parser.value().map_err(usage_error)?, "--arch")?;
                self.options.arch = Some(value.parse::<Architecture>().map_err(|e| e.under("--arch"))?);
                self.given.push("--arch");
            }
            Long("enable-libtorch") => {
                self.options.enable_lib_torch = Some(true);
                self.given.push("--enable-libtorch");
            }
            Value(value) if self.source.is_none() => {
                let name = text_arg(value, "preset")?;
                self.source = Some(if name == "-" && stdin_allowed {
                    TargetSource::Stdin
                } else {
                    let preset = name.parse::<Preset>().map_err(|e| e.under("preset"))?;
                    TargetSource::Preset(preset)
                });
            }
            other => return Err(refused(other, options)),
        }
        Ok(())
    }

    /// The preset's target with its options, or the Target on stdin.
    fn target(self, stdin: &mut (impl Read + ?Sized)) -> Result<Target, Error> {
        match self.source {
            None => Err(usage("preset", "a preset name is required")),
            Some(TargetSource::Stdin) => {
                if let Some(flag) = self.given.first() {
                    return Err(usage(flag, "preset options do not apply to a Target read from stdin"));
                }
                parse_target(&read_all(stdin, Limits::DEFAULT.request_bytes, "")?)
            }
            // Errors name the flags the user typed, not the JSON options.
            Some(TargetSource::Preset(preset)) => preset.build_spelled(&self.options, OptionSpelling::Flag),
        }
    }
}

fn preset_command(
    parser: &mut lexopt::Parser,
    stdin: &mut (impl Read + ?Sized),
    availability: bool,
) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut args = TargetArgs::default();
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(&preset_help()),
            other => {
                let other = OwnedArg::from(other);
                args.take(other, parser, PRESET_OPTIONS, availability)?;
            }
        }
    }
    let target = args.target(stdin)?;
    let text = if availability { output.json(&target.declared_availability()) } else { output.json(&target) };
    Ok(Outcome::printed(text, EXIT_OK))
}

/// `--timeout-ms N`: 1 to 600000.
fn timeout_arg(parser: &mut lexopt::Parser) -> Result<u32, Error> {
    let text = text_arg(parser.value().map_err(usage_error)?, "--timeout-ms")?;
    match text.parse::<u32>() {
        Ok(ms) if (1..=600_000).contains(&ms) => Ok(ms),
        _ => Err(Error::new(
            ErrorCode::InvalidValue,
            "--timeout-ms",
            format!("{} is not a whole number of milliseconds from 1 to 600000", quoted_short(&text)),
        )),
    }
}

fn probe_command(parser: &mut lexopt::Parser, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut args = TargetArgs::default();
    let mut timeout_ms = NATIVE_PROBE_TIMEOUT_MS;
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(&probe_help()),
            Long("timeout-ms") => timeout_ms = timeout_arg(parser)?,
            other => {
                let other = OwnedArg::from(other);
                args.take(other, parser, PROBE_OPTIONS, true)?;
            }
        }
    }
    if args.source.is_none() {
        return Err(usage("preset", "a preset name (or `-`) is required"));
    }
    refuse_under_wasi("probe")?;
    let target = args.target(stdin)?;
    Ok(Outcome::printed(output.json(&probe_target(&target, timeout_ms)?), EXIT_OK))
}

#[cfg(not(target_family = "wasm"))]
fn refuse_under_wasi(_what: &str) -> Result<(), Error> {
    Ok(())
}

// Inlined, so that the compiler sees the refusal and leaves the probe's
// output (its serialisation, float formatting) out of the WASI module.
#[cfg(target_family = "wasm")]
#[inline(always)]
fn refuse_under_wasi(what: &str) -> Result<(), Error> {
    Err(wasi_refusal(what))
}

/// A WASI module sees only what the runtime hands it: no driver, no device.
#[cfg(target_family = "wasm")]
fn wasi_refusal(what: &str) -> Error {
    Error::new(
        ErrorCode::UnsupportedPlatform,
        what,
        "a WASI module cannot see the host's hardware (no driver, library or device is visible to it): \
         run the native backend-targets to probe",
    )
}

/// Probes `target` with each check in a child process of this executable:
/// on Linux through `/proc/self/exe`, the file this process runs, which an
/// upgrade that replaces or removes the command's file mid-run cannot take
/// away (the path `current_exe` answers would then name the new file, or
/// none).
#[cfg(not(target_family = "wasm"))]
fn probe_target(target: &Target, timeout_ms: u32) -> Result<NativeResolution, Error> {
    let this_file = std::path::Path::new("/proc/self/exe");
    let helper = if cfg!(target_os = "linux") && this_file.exists() {
        Ok(this_file.to_path_buf())
    } else {
        std::env::current_exe()
    };
    let helper =
        helper.map_err(|e| Error::new(ErrorCode::Io, "", format!("cannot find this command's executable: {e}")))?;
    Ok(backend_targets_native_probe::probe(target, &backend_targets_native_probe::Options { timeout_ms, helper }))
}

#[cfg(target_family = "wasm")]
#[inline(always)]
fn probe_target(_target: &Target, _timeout_ms: u32) -> Result<NativeResolution, Error> {
    Err(wasi_refusal("probe"))
}

/// Reads at most `limit` bytes: more is `limit-exceeded`, and is never read
/// whole first. `path` locates an I/O error (`--request`, or the top level
/// for stdin). Read in pieces of at most 1 MiB, as the output is written: one
/// larger read is refused by wasmtime (its limit on what one call carries,
/// 128 MiB, reads as an I/O error in the module).
fn read_all(reader: &mut (impl Read + ?Sized), limit: usize, path: &str) -> Result<String, Error> {
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

fn plan_command(parser: &mut lexopt::Parser, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut file: Option<OsString> = None;
    let mut probe = false;
    let mut timeout_ms: Option<u32> = None;
    let mut limits = Limits::DEFAULT;
    let mut limits_given: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(&plan_help()),
            Long("request") | Short('r') => {
                file = Some(parser.value().map_err(usage_error)?);
            }
            Long("probe") => probe = true,
            Long("timeout-ms") => timeout_ms = Some(timeout_arg(parser)?),
            Long("limit") => {
                let text = text_arg(parser.value().map_err(usage_error)?, "--limit")?;
                let (name, value) = parse_limit(&text)?;
                if limits_given.contains(&name) {
                    return Err(usage("--limit", format!("the limit {name} is given twice")));
                }
                limits.set(&name, value).map_err(|e| e.under("--limit"))?;
                limits_given.push(name);
            }
            other => return Err(refused(other, PLAN_OPTIONS)),
        }
    }
    if timeout_ms.is_some() && !probe {
        return Err(usage("--timeout-ms", "--timeout-ms applies only with --probe"));
    }
    if probe {
        refuse_under_wasi("--probe")?;
    }
    let text = match file {
        None => read_all(stdin, limits.request_bytes, "")?,
        Some(path) if path == "-" => read_all(stdin, limits.request_bytes, "")?,
        Some(path) => {
            let shown = quoted_short(&path.to_string_lossy());
            let cannot = |words: &str| Error::new(ErrorCode::Io, "--request", format!("cannot read {shown}: {words}"));
            if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                return Err(cannot("it is a directory"));
            }
            let mut handle = std::fs::File::open(&path).map_err(|e| cannot(&open_words(&e)))?;
            read_all(&mut handle, limits.request_bytes, "--request")?
        }
    };
    let mut request = parse_plan_request(&text, &limits)?;
    if !probe {
        let result = request.run();
        let status = if result.ok { EXIT_OK } else { EXIT_NOT_PLANNABLE };
        return Ok(Outcome::printed(output.json(&result), status));
    }
    let Some(target) = request.target.take() else {
        return Err(Error::new(
            ErrorCode::MissingField,
            "target",
            "plan --probe needs the request's `target`: the availability it plans against is the target's, probed",
        ));
    };
    let resolution = probe_target(&target, timeout_ms.unwrap_or(NATIVE_PROBE_TIMEOUT_MS))?;
    request.availability = Some(resolution.availability.clone());
    let result = request.run();
    let status = if result.ok { EXIT_OK } else { EXIT_NOT_PLANNABLE };
    Ok(Outcome::printed(output.json(&ProbedPlanResult::new(result, resolution)), status))
}

/// `NAME=N` of `--limit`.
fn parse_limit(text: &str) -> Result<(String, usize), Error> {
    let bad = || {
        usage(
            "--limit",
            format!("expected NAME=N (NAME one of: {}), found {}", joined(Limits::NAMES, ", "), quoted_short(text)),
        )
    };
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    if Limits::DEFAULT.get(name).is_none() {
        return Err(Error::unknown_spelling("limit", name, Limits::NAMES).under("--limit"));
    }
    let value = value.parse::<usize>().map_err(|_| bad())?;
    Ok((name.to_string(), value))
}

fn schema_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    let mut name: Option<SchemaName> = None;
    let mut pretty = false;
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Short('h') | Long("help") => return help(&schema_help()),
            Long("pretty") => pretty = true,
            Value(value) if name.is_none() => {
                let text = text_arg(value, "name")?;
                name = Some(text.parse::<SchemaName>().map_err(|e| e.under("name"))?);
            }
            other => return Err(refused(other, COMMON_OPTIONS)),
        }
    }
    let name = name.ok_or_else(|| usage("name", "a schema name is required"))?;
    // Every form's schema is embedded in the native and WASI builds.
    let text = name.text().unwrap_or_default();
    let text = if pretty {
        match serde_json::from_str::<backend_targets::json::Json>(&text) {
            Ok(document) => Output { pretty: true }.json(&document),
            Err(_) => format!("{text}\n"),
        }
    } else {
        format!("{text}\n")
    };
    Ok(Outcome::printed(text, EXIT_OK))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
