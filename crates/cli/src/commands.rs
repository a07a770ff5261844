//! The commands: [`dispatch`] reads the command's name, then each command
//! reads its own options and answers an [`Outcome`].

use std::ffi::OsString;
use std::io::Read;

use lexopt::prelude::*;

use backend_targets::Limits;
use backend_targets::SchemaName;
use backend_targets::json::{to_json, to_json_pretty};
use backend_targets::plan_result::RejectionReason;
use backend_targets::probe::native::{
    ChangeAction, NATIVE_PROBE_TIMEOUT_MAX_MS, NATIVE_PROBE_TIMEOUT_MS, NativeResolution, ProbedPlanResult,
};
use backend_targets::reference_capsules;
use backend_targets::vocab::BackendOp;
use backend_targets::wording::quoted_short;
use backend_targets::{Error, ErrorCode};
use backend_targets::{OptionSpelling, Preset, PresetOptions, Target, presets};
use backend_targets::{PlanMode, PlanResult};
use backend_targets::{parse_plan_request, parse_target};

use super::*;

/// Common output options.
#[derive(Default)]
pub(crate) struct Output {
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
pub(crate) fn next_arg<'a>(
    parser: &'a mut lexopt::Parser,
    seen: &mut Vec<String>,
) -> Result<Option<lexopt::Arg<'a>>, Error> {
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

pub(crate) fn dispatch(args: Vec<OsString>, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
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

pub(crate) fn help(text: &str) -> Result<Outcome, Error> {
    Ok(Outcome::printed(text.to_string(), EXIT_OK))
}

/// A command whose only option is `--pretty`: prints `value` as JSON.
pub(crate) fn json_command<T: serde::Serialize>(
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

pub(crate) fn presets_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    json_command(parser, &presets_help, &presets)
}

/// `reference-capsules`: the catalog JS's `referenceCapsules()` returns.
pub(crate) fn reference_capsules_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
    json_command(parser, &|| REFERENCE_CAPSULES_HELP.to_string(), &reference_capsules)
}

/// Where a target comes from: a preset with options, or stdin (`-`).
pub(crate) enum TargetSource {
    Preset(Preset),
    Stdin,
}

/// A [`lexopt::Arg`] that no longer borrows the parser (which the preset
/// options need for their values).
pub(crate) enum OwnedArg {
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
pub(crate) struct TargetArgs {
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
            Long(flag @ ("os" | "arch")) => {
                let flag = if flag == "os" { "--os" } else { "--arch" };
                let value = text_arg(parser.value().map_err(usage_error)?, flag)?;
                self.options.set_from_text(&flag[2..], &value, OptionSpelling::Flag)?;
                self.given.push(flag);
            }
            // A flag without a value: nothing to read.
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

pub(crate) fn preset_command(
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

/// `--timeout-ms N`: 1 to [`NATIVE_PROBE_TIMEOUT_MAX_MS`].
pub(crate) fn timeout_arg(parser: &mut lexopt::Parser) -> Result<u32, Error> {
    let text = text_arg(parser.value().map_err(usage_error)?, "--timeout-ms")?;
    match text.parse::<u32>() {
        Ok(ms) if (1..=NATIVE_PROBE_TIMEOUT_MAX_MS).contains(&ms) => Ok(ms),
        _ => Err(Error::new(
            ErrorCode::InvalidValue,
            "--timeout-ms",
            format!(
                "{} is not a whole number of milliseconds from 1 to {NATIVE_PROBE_TIMEOUT_MAX_MS}",
                quoted_short(&text)
            ),
        )),
    }
}

pub(crate) fn probe_command(parser: &mut lexopt::Parser, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
    let mut output = Output::default();
    let mut args = TargetArgs::default();
    let mut timeout_ms = NATIVE_PROBE_TIMEOUT_MS;
    let mut report = false;
    let mut seen = Vec::new();
    while let Some(arg) = next_arg(parser, &mut seen)? {
        match arg {
            Long("pretty") => output.pretty = true,
            Long("report") => report = true,
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
    let resolution = probe_target(&target, timeout_ms)?;
    let text = if report { support_report(&resolution) } else { output.json(&resolution) };
    Ok(Outcome::printed(text, EXIT_OK))
}

/// `probe --report`: a text to paste into a bug report, as the npm
/// package's `supportReport()` gives one in a browser: the command's
/// version and this host, the target declared and the decision, each
/// change with its reason, then the whole resolution as indented JSON (the
/// checks, their messages and times).
#[cfg(not(target_family = "wasm"))]
pub(crate) fn support_report(resolution: &NativeResolution) -> String {
    use backend_targets::wording::printable;
    let described = |target: &Target| {
        let features: Vec<&str> = target.features.iter().map(|feature| feature.as_str()).collect();
        format!("accelerator {}, features [{}]", target.accelerator, features.join(", "))
    };
    let host = &resolution.probe;
    let mut text = format!(
        "backend-targets {} (native command, {} {}; checks in {} isolation)\ndeclared: {}\ndecision: {}\n",
        env!("CARGO_PKG_VERSION"),
        host.os,
        host.arch,
        host.isolation,
        described(&resolution.declared),
        described(&resolution.effective),
    );
    // What a library or driver said is escaped (`printable`): one `- ` line
    // a change, and one fenced block, whatever it said.
    for change in &resolution.changes {
        text.push_str(&format!("- {} ({}): {}\n", change.action, change.reason, printable(&change.detail, false)));
    }
    // What a maintainer asks first: the environment the loader and the
    // runtimes read, and the system.
    let variable = |name: &str| match std::env::var_os(name) {
        Some(value) => format!("{name}={}", printable(&value.to_string_lossy(), false)),
        None => format!("{name} unset"),
    };
    text.push_str(&format!(
        "environment: {}; {}; {}\nsystem: {}\n",
        variable("CUDA_VISIBLE_DEVICES"),
        variable("LD_LIBRARY_PATH"),
        variable("HIP_VISIBLE_DEVICES"),
        printable(&system_description(), false)
    ));
    // What to do about each reason a change was dropped for, once.
    let mut reasons = Vec::new();
    for change in resolution.changes.iter().filter(|change| change.action == ChangeAction::Dropped) {
        if !reasons.contains(&change.reason) {
            reasons.push(change.reason);
            text.push_str(&format!("what to do ({}): {}\n", change.reason, change.reason.what_to_do()));
        }
    }
    let json: Vec<String> = to_json_pretty(resolution).lines().map(|line| printable(line, true)).collect();
    text.push_str(&format!(
        "probe: checks {}, {} ms (timeoutMs {})\n```json\n{}\n```\n",
        host.checks.len(),
        host.elapsed_ms,
        host.timeout_ms,
        json.join("\n")
    ));
    text
}

/// The system a report names: the distribution (`/etc/os-release`'s
/// `PRETTY_NAME`) and the kernel (`/proc/sys/kernel/osrelease`), where this
/// system has them, else the OS and architecture Rust was built for; then
/// the C library the command runs on ([`c_library`]), where it can tell.
#[cfg(not(target_family = "wasm"))]
fn system_description() -> String {
    let distribution = std::fs::read_to_string("/etc/os-release").ok().and_then(|text| {
        text.lines().find_map(|line| Some(line.strip_prefix("PRETTY_NAME=")?.trim_matches('"').to_string()))
    });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|text| text.trim().to_string());
    let system = match (distribution, kernel) {
        (Some(distribution), Some(kernel)) => format!("{distribution}, kernel {kernel}"),
        (Some(distribution), None) => distribution,
        (None, Some(kernel)) => format!("{} kernel {kernel}", std::env::consts::OS),
        (None, None) => format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
    };
    match c_library() {
        Some(library) => format!("{system}, {library}"),
        None => system,
    }
}

/// The C library the command runs on, as a report names it: glibc with the
/// version the loaded glibc gives (`gnu_get_libc_version`: the one running,
/// not the one built against; what a vendor's library built for a newer
/// glibc fails to load on), musl by name (it has no version call).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn c_library() -> Option<String> {
    // SAFETY: gnu_get_libc_version takes no argument and returns a pointer
    // to a NUL-terminated string glibc keeps for the life of the process.
    let version = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    Some(format!("glibc {}", version.to_string_lossy()))
}

/// The C library the command runs on: musl, which has no version call.
#[cfg(all(target_os = "linux", target_env = "musl"))]
fn c_library() -> Option<String> {
    Some("musl".to_string())
}

/// The C library the command runs on: none named off Linux (the system's own).
#[cfg(not(any(target_family = "wasm", all(target_os = "linux", any(target_env = "gnu", target_env = "musl")))))]
fn c_library() -> Option<String> {
    None
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod c_library_tests {
    use super::*;

    /// The report's system line names the running glibc and its version, as
    /// glibc's other way of saying it (`confstr(_CS_GNU_LIBC_VERSION)`) does.
    #[test]
    fn the_system_line_names_the_running_glibc() {
        let mut buffer = [0u8; 64];
        // SAFETY: confstr writes at most `buffer.len()` bytes, NUL included, into the buffer.
        let written = unsafe { libc::confstr(libc::_CS_GNU_LIBC_VERSION, buffer.as_mut_ptr().cast(), buffer.len()) };
        assert!(written > 0 && written <= buffer.len(), "confstr: {written}");
        let said = std::ffi::CStr::from_bytes_until_nul(&buffer).unwrap().to_str().unwrap(); // "glibc 2.41"
        assert!(said.starts_with("glibc 2."), "{said}");
        assert_eq!(c_library().as_deref(), Some(said));
        let system = system_description();
        assert!(system.ends_with(&format!(", {said}")), "{system}");
    }
}

/// Never reached: a WASI module refuses the probe before any report.
#[cfg(target_family = "wasm")]
#[inline(always)]
pub(crate) fn support_report(_resolution: &NativeResolution) -> String {
    String::new()
}

#[cfg(not(target_family = "wasm"))]
pub(crate) fn refuse_under_wasi(_what: &str) -> Result<(), Error> {
    Ok(())
}

// Inlined, so that the compiler sees the refusal and leaves the probe's
// output (its serialisation, float formatting) out of the WASI module.
#[cfg(target_family = "wasm")]
#[inline(always)]
pub(crate) fn refuse_under_wasi(what: &str) -> Result<(), Error> {
    Err(wasi_refusal(what))
}

/// A WASI module sees only what the runtime hands it: no driver, no device.
#[cfg(target_family = "wasm")]
pub(crate) fn wasi_refusal(what: &str) -> Error {
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
/// none). Always answers: where this executable cannot be named (no `/proc`
/// mounted), each check that needs a process says so, as a missing fact.
#[cfg(not(target_family = "wasm"))]
pub(crate) fn probe_target(target: &Target, timeout_ms: u32) -> Result<NativeResolution, Error> {
    let this_file = std::path::Path::new("/proc/self/exe");
    let helper = helper_path(this_file, cfg!(target_os = "linux") && this_file.exists(), std::env::current_exe);
    Ok(backend_targets_native_probe::probe(target, &backend_targets_native_probe::Options { timeout_ms, helper }))
}

/// The executable the checks run in: `this_file` (`/proc/self/exe`) where
/// it is there (`here`), else `current_exe`'s answer; where that fails too
/// (Linux without `/proc`, where it reads `/proc/self/exe`), `this_file`
/// still on Linux, which the checks then fail to start, each saying why
/// (`check-crashed`: /proc is not mounted); elsewhere the command on `PATH`,
/// the probe's default helper.
#[cfg(not(target_family = "wasm"))]
fn helper_path(
    this_file: &std::path::Path,
    here: bool,
    current_exe: impl FnOnce() -> std::io::Result<std::path::PathBuf>,
) -> std::path::PathBuf {
    if here {
        return this_file.to_path_buf();
    }
    current_exe().unwrap_or_else(|_| {
        if cfg!(target_os = "linux") {
            this_file.to_path_buf()
        } else {
            backend_targets_native_probe::DEFAULT_HELPER.into()
        }
    })
}

#[cfg(target_family = "wasm")]
#[inline(always)]
pub(crate) fn probe_target(_target: &Target, _timeout_ms: u32) -> Result<NativeResolution, Error> {
    Err(wasi_refusal("probe"))
}

pub(crate) fn plan_command(parser: &mut lexopt::Parser, stdin: &mut (impl Read + ?Sized)) -> Result<Outcome, Error> {
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
                limits.apply_override(&text, "--limit", &mut limits_given)?;
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
        let advice = (!result.ok).then(|| no_plan_advice(&result, None));
        return Ok(plan_outcome(output.json(&result), advice));
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
    let advice = (!result.ok).then(|| no_plan_advice(&result, Some(&resolution)));
    Ok(plan_outcome(output.json(&ProbedPlanResult::new(result, resolution)), advice))
}

/// A plan's answer: its JSON on stdout; without a plan (`advice`:
/// [`no_plan_advice`]), that on stderr and status [`EXIT_NOT_PLANNABLE`].
fn plan_outcome(json: String, advice: Option<String>) -> Outcome {
    match advice {
        None => Outcome::printed(json, EXIT_OK),
        Some(advice) => Outcome { stdout: json, stderr: advice, status: EXIT_NOT_PLANNABLE },
    }
}

/// The first line stderr says when no plan exists: stdout's JSON is the
/// answer, and where in it to look.
const NO_PLAN_LINE: &str = "backend-targets: no plan: stdout's JSON is the answer (each op's `message` says \
     which op found no capsule on which device, each candidate's `reason` which rule refused it); what to do:\n";

/// How many ops a line of advice names before it counts the rest: the
/// advice stays a few lines whatever the request's size.
const NAMED_OPS: usize = 8;

/// `ops` as a line names them: the first [`NAMED_OPS`], then how many more.
fn named_ops(ops: &[BackendOp]) -> String {
    let named: Vec<&str> = ops.iter().take(NAMED_OPS).map(|op| op.as_str()).collect();
    match ops.len().checked_sub(NAMED_OPS).filter(|&more| more > 0) {
        Some(more) => format!("{} and {more} more", named.join(", ")),
        None => named.join(", "),
    }
}

/// What stderr says when no plan exists, for the person at the terminal:
/// [`NO_PLAN_LINE`]; with `plan --probe` (`probed`), first what the probe
/// dropped and why (the check's reason and its words); then the ops whose
/// catalog has no capsule at all, and each distinct reason capsules were
/// refused for, once, with the ops it refused (named up to [`NAMED_OPS`])
/// and what to do about it ([`RejectionReason::what_to_do`], from which the
/// npm package README's table "Why a capsule was refused" is made). Linear
/// in the answer, and the same natively and under WASI.
pub(crate) fn no_plan_advice(result: &PlanResult, probed: Option<&NativeResolution>) -> String {
    let mut text = String::from(NO_PLAN_LINE);
    for change in probed.map_or(&[][..], |resolution| resolution.changes.as_slice()) {
        if change.action == ChangeAction::Dropped {
            text.push_str(&format!("  the probe: {} ({})\n", change.detail, change.reason));
        }
    }
    let ops = unplanned_ops(result);
    let bare: Vec<BackendOp> = ops.iter().filter(|(_, reasons)| reasons.is_empty()).map(|(op, _)| *op).collect();
    if !bare.is_empty() {
        text.push_str(&format!("  no capsule in the catalog for {}: declare one (`capsules`)\n", named_ops(&bare)));
    }
    for reason in RejectionReason::ALL {
        let refused: Vec<BackendOp> =
            ops.iter().filter(|(_, reasons)| reasons.contains(reason)).map(|(op, _)| *op).collect();
        if !refused.is_empty() {
            text.push_str(&format!("  {reason} (op {}): {}\n", named_ops(&refused), reason.what_to_do()));
        }
    }
    text
}

/// The ops without a plan, each once, in the order the answer first lists
/// them, with the distinct reasons their candidates were refused for where
/// they found no capsule, in the order first met. In `perOp` mode, those
/// the last config tried could not plan (no config did); in `wholePlan`
/// mode, every op a config could not plan (each is why that config failed).
fn unplanned_ops(result: &PlanResult) -> Vec<(BackendOp, Vec<RejectionReason>)> {
    let failures = || result.attempts.iter().flat_map(|attempt| &attempt.ops).filter(|op| op.message.is_some());
    // Which op indexes found no plan, as flags by index: a request of many
    // ops is looked up once each, not scanned (and no hash table is linked
    // into the WASI command for it).
    let indexes: Vec<usize> = if result.mode == PlanMode::PerOp {
        let last = result.attempts.last().map(|attempt| attempt.ops.as_slice()).unwrap_or_default();
        last.iter().filter(|op| op.message.is_some()).map(|op| op.op_index).collect()
    } else {
        failures().map(|op| op.op_index).collect()
    };
    let mut unplanned = vec![false; indexes.iter().max().map_or(0, |&max| max + 1)];
    for index in indexes {
        unplanned[index] = true;
    }
    let mut ops: Vec<(BackendOp, Vec<RejectionReason>)> = Vec::new();
    for failure in failures().filter(|op| unplanned.get(op.op_index).copied().unwrap_or(false)) {
        let at = match ops.iter().position(|(op, _)| *op == failure.op) {
            Some(at) => at,
            None => {
                ops.push((failure.op, Vec::new()));
                ops.len() - 1
            }
        };
        // An op met again in the same config (`sameAs`) lists no candidates:
        // they are listed where it was first met, with the same reasons.
        for reason in failure.candidates().iter().filter_map(|candidate| candidate.reason) {
            if !ops[at].1.contains(&reason) {
                ops[at].1.push(reason);
            }
        }
    }
    ops
}

pub(crate) fn schema_command(parser: &mut lexopt::Parser) -> Result<Outcome, Error> {
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
        match backend_targets::json::document_text(&text) {
            Ok(document) => Output { pretty: true }.json(&document),
            Err(_) => format!("{text}\n"),
        }
    } else {
        format!("{text}\n")
    };
    Ok(Outcome::printed(text, EXIT_OK))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use backend_targets::probe::native::NativeReason;
    use std::path::{Path, PathBuf};

    /// Without `/proc` (a chroot, a container that mounts none), neither
    /// `/proc/self/exe` nor `current_exe` (which reads it) names this
    /// executable: the probe still answers, a report, never an `[io]` error;
    /// a check that needs a process says why it could not start.
    #[test]
    fn without_proc_the_probe_still_answers() {
        let root = std::env::temp_dir().join(format!("backend-targets-no-proc-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let this_file = root.join("proc/self/exe");
        let gone = || Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no /proc/self/exe available"));
        let helper = helper_path(&this_file, this_file.exists(), gone);
        assert_eq!(helper, this_file);
        // Where /proc is there, its file; where only `current_exe` answers, that.
        let here = helper_path(Path::new("/proc/self/exe"), true, gone);
        assert_eq!(here, PathBuf::from("/proc/self/exe"));
        let named = helper_path(&this_file, false, || Ok(PathBuf::from("/usr/bin/backend-targets")));
        assert_eq!(named, PathBuf::from("/usr/bin/backend-targets"));
        // The probe with that helper: a CPU target needs no process; a CUDA
        // one's checks cannot start, each saying so.
        let cpu = backend_targets_native_probe::probe(
            &Target::linux_cpu(backend_targets::vocab::Architecture::X86_64),
            &backend_targets_native_probe::Options { timeout_ms: 2000, helper: PathBuf::from("/proc/self/exe") },
        );
        assert!(cpu.probe.checks.is_empty(), "{cpu:?}");
        let cuda = backend_targets_native_probe::probe(
            &Target::linux_cuda(false),
            &backend_targets_native_probe::Options { timeout_ms: 2000, helper: helper.clone() },
        );
        assert!(!cuda.probe.checks.is_empty());
        for check in &cuda.probe.checks {
            assert_eq!(check.reason, NativeReason::CheckCrashed, "{check:?}");
            // (Named `/proc/self/exe`, as without /proc, it also says that
            // /proc is not mounted: tests/native_probe.rs, in a namespace.)
            let named = format!("the {} check could not start ({}: ", check.check, helper.display());
            assert!(check.message.starts_with(&named), "{}", check.message);
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
