//! The project's task runner, `cargo xtask TASK [ARGS]` (the alias is in
//! `.cargo/config.toml`): one table of tasks ([`TASKS`]), from which the
//! help is written, each a list of commands run from the repository root,
//! stopping at the first that fails. No dependency: it only starts the
//! project's own tools (cargo, node, the scripts), which `scripts/setup.sh`
//! installs.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// One task: its name, what it does (the help), and how it runs.
struct Task {
    name: &'static str,
    about: &'static str,
    run: fn(&[String]) -> Result<(), String>,
}

/// Every task, in the order the help lists them.
const TASKS: &[Task] = &[
    Task {
        name: "quick",
        about: "the loop to live in (under 2 minutes warm): rustfmt; the JS shell's unit tests on the source and \
                the documentation's check against the tree (no build, no browser); oxlint; clippy for the native target; the core's tests but the long strict-reader \
                oracle",
        run: quick,
    },
    Task {
        name: "gen",
        about: "writes every generated file, one way (UPDATE_GENERATED=1 on the tests that hold them): \
                pkg-template/core.generated.js and presets.generated.js, schemas/defs.json, the command's goldens, and the tables README.md and \
                docs/SPEC.md show from the code",
        run: generate,
    },
    Task {
        name: "build",
        about: "every artifact (scripts/build.sh: the native command, the WASI command, the \
                                  wasi:http component, the npm package)",
        run: build,
    },
    Task {
        name: "browser",
        about: "one Node suite by name after the build, e.g. `cargo xtask browser verify-browser` \
                (tests/js/NAME.test.mjs); without a name, the list",
        run: browser,
    },
    Task {
        name: "ci",
        about: "everything .ci/run runs (scripts/test.sh: set-up, the fast gates first, then every \
                               build and test)",
        run: ci,
    },
    Task { name: "help", about: "this list", run: help },
];

/// The JS shell's unit suites, which run on the source with no build and no
/// browser (scripts/test.sh runs this task first, so they gate CI too).
const JS_UNIT_SUITES: &[&str] =
    &["tests/js/shell.test.mjs", "tests/js/membrane.test.mjs", "tests/js/js-halves.test.mjs", "tests/js/docs.test.mjs"];

/// The core's long oracle (src/strict_reader_oracle.rs): `ci` runs it,
/// `quick` leaves it out.
const LONG_ORACLE: &str = "strict_reader_oracle";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("help", String::as_str);
    let Some(task) = TASKS.iter().find(|task| task.name == name) else {
        eprintln!("cargo xtask: no task {name:?}");
        let _ = help(&[]);
        return ExitCode::from(2);
    };
    if let Err(err) = std::env::set_current_dir(root()) {
        eprintln!("cargo xtask: cannot enter the repository root: {err}");
        return ExitCode::FAILURE;
    }
    let started = Instant::now();
    match (task.run)(&args[1..]) {
        Ok(()) => {
            if task.name != "help" {
                eprintln!("cargo xtask {}: done in {:.0} s", task.name, started.elapsed().as_secs_f64());
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("cargo xtask {}: {why} (after {:.0} s)", task.name, started.elapsed().as_secs_f64());
            ExitCode::FAILURE
        }
    }
}

/// The repository root: this crate's parent folder.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Runs `program` with `args` (and `env`), says so first; `Err` if it fails.
fn run_with(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let shown = std::iter::once(program).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
    eprintln!("== {shown}");
    let mut command = Command::new(program);
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let status = command.status().map_err(|err| format!("`{shown}` could not start: {err}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{shown}` failed ({status})")) }
}

fn run(program: &str, args: &[&str]) -> Result<(), String> {
    run_with(program, args, &[])
}

fn quick(_: &[String]) -> Result<(), String> {
    run("cargo", &["fmt", "--check"])?;
    let mut node = vec!["--test"];
    node.extend(JS_UNIT_SUITES);
    run("node", &node)?;
    let oxlint = "tests/js/node_modules/.bin/oxlint";
    if Path::new(oxlint).exists() {
        run(
            oxlint,
            &[
                "--deny-warnings",
                "--ignore-pattern",
                "www/onnx/ort/**",
                "pkg-template",
                "crates/browser/src",
                "tests/js",
            ],
        )?;
    } else {
        eprintln!("== oxlint: not installed (scripts/setup.sh installs it): skipped");
    }
    run("cargo", &["clippy", "--all-targets", "--features", "schema", "--", "-D", "warnings"])?;
    run("cargo", &["test", "-p", "backend-targets", "--features", "schema", "--", "--skip", LONG_ORACLE])
}

fn generate(_: &[String]) -> Result<(), String> {
    let update = [("UPDATE_GENERATED", "1")];
    let core = ["test", "--features", "schema", "--test", "generated_js", "--test", "schemas"];
    // build.rs embeds schemas/*.json in the crate: a pass that rewrites them
    // is still checked against the text compiled before it, and fails; a
    // second pass, built on the new files, must pass.
    if run_with("cargo", &core, &update).is_err() {
        println!("cargo xtask gen: the schemas changed; once more, built on the new files");
        run_with("cargo", &core, &update)?;
    }
    run_with("cargo", &["test", "-p", "backend-targets-cli", "--test", "cli"], &update)?;
    run_with("cargo", &["test", "-p", "backend-targets-http", "--lib"], &update)
}

fn build(_: &[String]) -> Result<(), String> {
    run("scripts/build.sh", &[])
}

fn browser(args: &[String]) -> Result<(), String> {
    let Some(name) = args.first() else {
        let mut suites: Vec<String> = std::fs::read_dir("tests/js")
            .map_err(|err| format!("tests/js: {err}"))?
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok()?.strip_suffix(".test.mjs").map(String::from))
            .collect();
        suites.sort();
        println!("{}", suites.join("\n"));
        return Ok(());
    };
    let suite = format!("tests/js/{name}.test.mjs");
    if !Path::new(&suite).exists() {
        return Err(format!("no suite {suite}; `cargo xtask browser` lists them"));
    }
    build(&[])?;
    run("node", &["--test", &suite])
}

fn ci(_: &[String]) -> Result<(), String> {
    run("bash", &["scripts/test.sh"])
}

fn help(_: &[String]) -> Result<(), String> {
    println!("cargo xtask TASK [ARGS]: the project's tasks (xtask/src/main.rs)\n");
    for task in TASKS {
        println!("  {:<8} {}", task.name, task.about);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_is_named_once_and_the_unit_suites_exist() {
        let mut names: Vec<&str> = TASKS.iter().map(|task| task.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TASKS.len());
        for suite in JS_UNIT_SUITES {
            assert!(root().join(suite).exists(), "{suite}");
        }
    }
}
