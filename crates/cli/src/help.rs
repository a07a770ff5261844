//! The command's help texts, made from its command table ([`COMMANDS`]),
//! the presets, the vocabularies and the limits: the main help and each
//! command's.

use backend_targets::Limits;
use backend_targets::Preset;
use backend_targets::SchemaName;
use backend_targets::vocab::{Architecture, OperatingSystem};
use backend_targets::wording::joined;

/// The commands, one row each: `name`, its arguments, what it does. The
/// help and the unknown-command message derive from this table.
pub(crate) const COMMANDS: &[(&str, &str, &str)] = &[
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
pub(crate) fn main_help() -> String {
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
pub(crate) const CLOSED_PIPE_HELP: &str = "141 stdout was closed by its reader.\n";
#[cfg(target_os = "wasi")]
pub(crate) const CLOSED_PIPE_HELP: &str = "13 (141 natively) stdout was closed by its reader.\n";

/// `target --help`: the preset list and which preset takes which option,
/// from the preset table.
pub(crate) fn preset_help() -> String {
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
pub(crate) fn plan_help() -> String {
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
pub(crate) fn probe_help() -> String {
    format!(
        "\
Usage: backend-targets probe <PRESET> [PRESET OPTIONS] [--timeout-ms N] [--pretty | --report]
       backend-targets probe - [--timeout-ms N] [--pretty | --report]     (reads a Target from stdin)

Probes this host for the target's accelerator and features (the CUDA driver and its
devices, cuBLAS/cuFFT/cuDNN, libtorch, the HIP runtime, Metal, TPU and Neuron devices)
and prints the resolution: declared, effective, availability, changes (each with
action kept/dropped/asDeclared, reason and detail) and probe (host, checks, times).
Each check runs in a child process of this command; --timeout-ms (default 5000)
bounds the whole probe: a hung check is killed (`timeout`), a crash is reported
(`check-crashed`). --report prints, instead of the JSON alone, a text to paste into a
bug report: this command's version and host, the decision and each change, then the
resolution as indented JSON. Preset options as for `target` (see `target --help`).

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
pub(crate) fn probe_help() -> String {
    "\
Usage: backend-targets probe <PRESET> [PRESET OPTIONS] [--timeout-ms N] [--pretty | --report]
       backend-targets probe - [--timeout-ms N] [--pretty | --report]     (reads a Target from stdin)

Probes this host for the target's accelerator and features: in the native command
only (`backend-targets probe --help` there says how). A WASI module cannot see the
host's hardware, and refuses it: exit status 2, error unsupported-platform.
"
    .to_string()
}

/// `schema --help`, with the names from their table.
pub(crate) fn schema_help() -> String {
    format!(
        "Usage: backend-targets schema <NAME> [--pretty]\n\nPrints the JSON Schema (draft 2020-12) of a form, on one line.\nNames: {}\n",
        joined(SchemaName::SPELLINGS, ", ")
    )
}

/// `presets --help`.
pub(crate) fn presets_help() -> String {
    format!(
        "Usage: backend-targets presets [--pretty]\n\nPrints a JSON array of {{ name, target }} for the {} presets, with default parameters.\n",
        Preset::ALL.len()
    )
}

pub(crate) const REFERENCE_CAPSULES_HELP: &str = "\
Usage: backend-targets reference-capsules [--pretty]

Prints the built-in reference catalog, a JSON array of KernelCapsule (one `reference`
capsule on cpu per op): the catalog a plan request without `capsules` plans with, and
what to add your own capsules to. The same bytes as JSON.stringify(referenceCapsules())
in JavaScript.
";
