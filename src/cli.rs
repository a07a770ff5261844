//! The `backend-targets` command line: argument parsing (lexopt) and I/O over
//! the core. Built natively and for `wasm32-wasip1`; it needs no filesystem
//! or environment unless `--request FILE` is given.
//!
//! Exit status: 0 done (or planned), 1 not plannable (the explanation is on
//! stdout), 2 invalid input or usage (one line on stderr, nothing on stdout).

use std::ffi::OsString;
use std::io::{Read, Write};

use lexopt::prelude::*;

use crate::error::{Error, ErrorCode};
use crate::json::{to_json, to_json_pretty};
use crate::request::{parse_plan_request, parse_target};
use crate::schema::SchemaName;
use crate::target::{Preset, PresetOptions, presets};
use crate::vocab::{Architecture, OperatingSystem};

/// Exit status: done, or planned.
pub const EXIT_OK: i32 = 0;
/// Exit status: not plannable (the explanation is on stdout).
pub const EXIT_NOT_PLANNABLE: i32 = 1;
/// Exit status: invalid input or usage (one line on stderr).
pub const EXIT_INVALID: i32 = 2;

const HELP: &str = "\
backend-targets: ML backend targets as data, their declared availability, and the capsule planner

Usage: backend-targets <COMMAND> [OPTIONS]

Commands:
  presets                            The 13 presets with default parameters
  target <PRESET> [PRESET OPTIONS]   A preset's Target
  availability <PRESET> [OPTIONS]    A preset's declared availability
  availability -                     The declared availability of a Target read from stdin
  plan [--request FILE]              Plan a request (JSON, stdin by default)
  schema <NAME>                      A JSON Schema: Target, Availability, ExecutionConfig,
                                     KernelCapsule, PlanRequest, PlanResult

Options:
  --pretty      Indent the JSON output
  -h, --help    This help (also after a command)
  -V, --version The version

Exit status: 0 done, 1 not plannable (explanation on stdout), 2 invalid input or usage.
";

/// `target --help`: the preset list and which preset takes which option,
/// from the preset table.
fn preset_help() -> String {
    let takers = |option: &str| {
        let names: Vec<&str> =
            Preset::ALL.iter().filter(|p| p.parameters().names().contains(&option)).map(|p| p.as_str()).collect();
        names.join(", ")
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
        presets.join(", "),
        takers("os"),
        OperatingSystem::SPELLINGS.join(", "),
        takers("arch"),
        Architecture::SPELLINGS.join(", "),
        takers("enableLibTorch"),
    )
}

const PLAN_HELP: &str = "\
Usage: backend-targets plan [--request FILE] [--pretty]

Reads a plan request (JSON) from stdin, or from FILE, and prints the plan result.
Exit status: 0 planned, 1 not plannable (the explanation is printed), 2 invalid input.
";

const SCHEMA_HELP: &str = "\
Usage: backend-targets schema <NAME>

Prints the JSON Schema (draft 2020-12) of a form, on one line.
Names: Target, Availability, ExecutionConfig, KernelCapsule, PlanRequest, PlanResult
";

const PRESETS_HELP: &str = "\
Usage: backend-targets presets [--pretty]

Prints a JSON array of { name, target } for the 13 presets, with default parameters.
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
pub fn main() -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let outcome = run(args, &mut std::io::stdin().lock());
    // A closed stdout or stderr is not worth a panic.
    let _ = std::io::stdout().lock().write_all(outcome.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(outcome.stderr.as_bytes());
    outcome.status
}

/// Runs one command without touching the process: for tests and embedding.
pub fn run(args: Vec<OsString>, stdin: &mut dyn Read) -> Outcome {
    match dispatch(args, stdin) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::invalid(&error),
    }
}

fn usage(path: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Usage, path, message)
}

fn usage_error(error: lexopt::Error) -> Error {
    let path = match &error {
        lexopt::Error::UnexpectedOption(option) => option.clone(),
        lexopt::Error::MissingValue { option: Some(option) } => option.clone(),
        lexopt::Error::UnexpectedValue { option, .. } => option.clone(),
        _ => String::new(),
    };
    usage(&path, error.to_string())
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

fn dispatch(args: Vec<OsString>, stdin: &mut dyn Read) -> Result<Outcome, Error> {
    let mut parser = lexopt::Parser::from_args(args);
    let command = match parser.next().map_err(usage_error)? {
        None => return Err(usage("", "a command is required")),
        Some(Short('h') | Long("help")) => return Ok(Outcome::printed(HELP.to_string(), EXIT_OK)),
        Some(Short('V') | Long("version")) => {
            let version = format!("backend-targets {}\n", env!("CARGO_PKG_VERSION"));
            return Ok(Outcome::printed(version, EXIT_OK));
        }
        Some(Value(command)) => text_arg(command, "command")?,
        Some(other) => return Err(usage_error(other.unexpected())),
    };
    match command.as_str() {
        "presets" => presets_command(&mut parser),
        "target" => preset_command(&mut parser, stdin, false),
        "availability" => preset_command(&mut parser, stdin, true),
        "plan" => plan_command(&mut parser, stdin),
        "schema" => schema_command(&mut parser),
        "help" => Ok(Outcome::printed(HELP.to_string(), EXIT_OK)),
        other => Err(usage(
            "command",
            format!("unknown command `{other}`, expected one of: presets, target, availability, plan, schema, help"),
        )),
    }
}

fn help(text: &str) -> Result<Outcome, Error> {
    Ok(Outcome::printed(text.to_string(), EXIT_OK))
}

fn presets_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    let mut output = Output::default();
    while let Some(arg) = parser.next().map_err(usage_error)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(PRESETS_HELP),
            other => return Err(usage_error(other.unexpected())),
        }
    }
    Ok(Outcome::printed(output.json(&presets()), EXIT_OK))
}

/// Where a target comes from: a preset with options, or stdin (`-`).
enum TargetSource {
    Preset(Preset),
    Stdin,
}

fn preset_command(parser: &mut lexopt::Parser, stdin: &mut dyn Read, availability: bool) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut source: Option<TargetSource> = None;
    let mut options = PresetOptions::default();
    let mut given: Vec<&'static str> = Vec::new();
    while let Some(arg) = parser.next().map_err(usage_error)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(&preset_help()),
            Long("os") => {
                let value = text_arg(parser.value().map_err(usage_error)?, "--os")?;
                options.os = Some(value.parse::<OperatingSystem>().map_err(|e| e.under("--os"))?);
                given.push("--os");
            }
            Long("arch") => {
                let value = text_arg(parser.value().map_err(usage_error)?, "--arch")?;
                options.arch = Some(value.parse::<Architecture>().map_err(|e| e.under("--arch"))?);
                given.push("--arch");
            }
            Long("enable-libtorch") => {
                options.enable_lib_torch = Some(true);
                given.push("--enable-libtorch");
            }
            Value(value) if source.is_none() => {
                let name = text_arg(value, "preset")?;
                source = Some(if name == "-" && availability {
                    TargetSource::Stdin
                } else {
                    let preset = name.parse::<Preset>().map_err(|e| e.under("preset"))?;
                    TargetSource::Preset(preset)
                });
            }
            other => return Err(usage_error(other.unexpected())),
        }
    }
    let target = match source {
        None => return Err(usage("preset", "a preset name is required")),
        Some(TargetSource::Stdin) => {
            if let Some(flag) = given.first() {
                return Err(usage(flag, "preset options do not apply to a Target read from stdin"));
            }
            parse_target(&read_all(stdin)?)?
        }
        Some(TargetSource::Preset(preset)) => preset.build(&options).map_err(|mut e| {
            // Name the flag the user typed, not the JSON option.
            e.path = match e.path.as_str() {
                "enableLibTorch" => "--enable-libtorch".to_string(),
                other => format!("--{other}"),
            };
            e
        })?,
    };
    let text = if availability { output.json(&target.declared_availability()) } else { output.json(&target) };
    Ok(Outcome::printed(text, EXIT_OK))
}

fn read_all(reader: &mut dyn Read) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|e| Error::new(ErrorCode::Io, "", format!("cannot read input: {e}")))?;
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorCode::InvalidJson, "", "input is not valid UTF-8"))
}

fn plan_command(parser: &mut lexopt::Parser, stdin: &mut dyn Read) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut file: Option<OsString> = None;
    while let Some(arg) = parser.next().map_err(usage_error)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Short('h') | Long("help") => return help(PLAN_HELP),
            Long("request") | Short('r') if file.is_none() => {
                file = Some(parser.value().map_err(usage_error)?);
            }
            other => return Err(usage_error(other.unexpected())),
        }
    }
    let text = match file {
        None => read_all(stdin)?,
        Some(path) if path == "-" => read_all(stdin)?,
        Some(path) => {
            let mut handle = std::fs::File::open(&path).map_err(|e| {
                Error::new(ErrorCode::Io, "--request", format!("cannot open {}: {e}", path.to_string_lossy()))
            })?;
            read_all(&mut handle)?
        }
    };
    let result = parse_plan_request(&text)?.run();
    let status = if result.ok { EXIT_OK } else { EXIT_NOT_PLANNABLE };
    Ok(Outcome::printed(output.json(&result), status))
}

fn schema_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    let mut name: Option<SchemaName> = None;
    while let Some(arg) = parser.next().map_err(usage_error)? {
        match arg {
            Short('h') | Long("help") => return help(SCHEMA_HELP),
            Value(value) if name.is_none() => {
                let text = text_arg(value, "name")?;
                name = Some(text.parse::<SchemaName>().map_err(|e| e.under("name"))?);
            }
            other => return Err(usage_error(other.unexpected())),
        }
    }
    let name = name.ok_or_else(|| usage("name", "a schema name is required"))?;
    Ok(Outcome::printed(format!("{}\n", name.text()), EXIT_OK))
}
