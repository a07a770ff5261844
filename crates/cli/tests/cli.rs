//! The command's golden outputs (`tests/vectors/cli.json` → `tests/vectors/cli/*.out`)
//! and the malformed-input corpus (`tests/vectors/malformed.json`), through the
//! native binary. The same files are replayed under wasmtime and `node:wasi`
//! by `tests/js/wasi.test.mjs`. `cargo xtask gen` (`UPDATE_GENERATED=1`) rewrites the goldens and
//! docs/native-probe.md's table of what to do.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use backend_targets::plan_result::RejectionReason;
use serde_json::Value;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

struct Run {
    stdout: Vec<u8>,
    stderr: String,
    status: i32,
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_backend-targets"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn backend-targets");
    // The command may exit before reading stdin (usage errors): ignore EPIPE.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let output = child.wait_with_output().unwrap();
    Run {
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
        status: output.status.code().expect("exited, not killed"),
    }
}

fn load(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(vectors().join(name)).unwrap();
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

#[test]
fn golden_outputs() {
    let update = std::env::var_os("UPDATE_GENERATED").is_some();
    let golden_dir = vectors().join("cli");
    std::fs::create_dir_all(&golden_dir).unwrap();
    let cases = load("cli.json");
    assert!(cases.len() >= 80, "the case list shrank: {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let args: Vec<&str> = case["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let stdin = match case.get("stdin").and_then(Value::as_str) {
            Some(file) => std::fs::read(vectors().join(file)).unwrap(),
            None => Vec::new(),
        };
        let out = run(&args, &stdin);
        let want_status = case["status"].as_i64().unwrap() as i32;
        if out.status != want_status {
            failures.push(format!("{name}: status {} (want {want_status}); stderr: {}", out.status, out.stderr));
            continue;
        }
        if want_status == 2 {
            let want = case["stderr"].as_str().unwrap_or("");
            if !out.stdout.is_empty() || !out.stderr.contains(want) || out.stderr.lines().count() != 1 {
                failures.push(format!(
                    "{name}: want one stderr line containing {want:?} and no stdout, got {:?}",
                    out.stderr
                ));
            }
            continue;
        }
        // Without a plan (status 1), a line says where to look, then a line
        // for the ops with no capsule at all and one per reason, each naming
        // ops the answer says found no capsule; else nothing.
        let stderr_as_wanted = match want_status {
            1 => {
                let stdout = String::from_utf8_lossy(&out.stdout);
                let mut lines = out.stderr.lines();
                let ops_of = |line: &str| -> Option<String> {
                    let bare =
                        line.strip_prefix("  no capsule in the catalog for ").and_then(|rest| rest.split_once(": "));
                    let refused =
                        line.strip_prefix("  ").and_then(|rest| rest.split_once(" (op ")?.1.split_once("): "));
                    bare.or(refused).map(|(ops, _)| ops.to_string())
                };
                lines.next().is_some_and(|first| first.starts_with(NO_PLAN_LINE))
                    && out.stderr.ends_with('\n')
                    && lines.clone().count() >= 1
                    && lines.all(|line| {
                        ops_of(line).is_some_and(|ops| {
                            ops.split(", ").all(|op| {
                                stdout.contains(&format!("no admissible backend capsule for op {op} on device"))
                            })
                        })
                    })
            }
            _ => out.stderr.is_empty(),
        };
        if !stderr_as_wanted {
            failures.push(format!("{name}: unexpected stderr {:?}", out.stderr));
        }
        let golden = golden_dir.join(format!("{name}.out"));
        if update {
            std::fs::write(&golden, &out.stdout).unwrap();
        } else if std::fs::read(&golden).ok().as_deref() != Some(out.stdout.as_slice()) {
            failures.push(format!("{name}: stdout differs from {}", golden.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn malformed_requests_exit_2_with_code_and_path() {
    let corpus = load("malformed.json");
    assert!(corpus.len() >= 50, "the corpus shrank: {}", corpus.len());
    let mut failures = Vec::new();
    for case in &corpus {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let code = case["code"].as_str().unwrap();
        let path = case["path"].as_str().unwrap();
        let shown = if path.is_empty() { "(top level)" } else { path };
        let want = format!("error [{code}] at {shown}: ");
        let out = run(&["plan"], input.as_bytes());
        if out.status != 2 || !out.stdout.is_empty() || !out.stderr.contains(&want) || out.stderr.lines().count() != 1 {
            failures.push(format!(
                "{name}: status {}, stdout {} bytes, stderr {:?} (want {want:?})",
                out.status,
                out.stdout.len(),
                out.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), corpus.len(), failures.join("\n"));
}

#[test]
fn malformed_requests_through_the_rust_api() {
    for case in &load("malformed.json") {
        let name = case["name"].as_str().unwrap();
        let error =
            backend_targets::parse_plan_request(case["input"].as_str().unwrap(), &backend_targets::Limits::DEFAULT)
                .expect_err(name);
        assert_eq!(error.code.as_str(), case["code"].as_str().unwrap(), "{name}: {error}");
        assert_eq!(error.path, case["path"].as_str().unwrap(), "{name}: {error}");
    }
}

#[test]
fn plan_reads_a_request_file() {
    let file = vectors().join("requests/default-explained.json");
    let from_file = run(&["plan", "--request", file.to_str().unwrap()], b"");
    let from_stdin = run(&["plan"], &std::fs::read(&file).unwrap());
    assert_eq!(from_file.status, 0);
    assert_eq!(from_file.stdout, from_stdin.stdout);
    let missing = run(&["plan", "--request", "/nonexistent/request.json"], b"");
    assert_eq!(missing.status, 2);
    assert!(missing.stderr.contains("[io] at --request"), "{}", missing.stderr);
}

/// The first line stderr says without a plan.
const NO_PLAN_LINE: &str = "backend-targets: no plan: stdout's JSON is the answer (each op's `message` says \
     which op found no capsule on which device, each candidate's `reason` which rule refused it); what to do:";

#[test]
fn unplannable_prints_the_spec_message_on_stdout_and_advice_per_op_on_stderr() {
    let out = run(&["plan"], &std::fs::read(vectors().join("requests/unplannable.json")).unwrap());
    assert_eq!(out.status, 1);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("no admissible backend capsule for op selectiveScan on device wasm"), "{text}");
    assert!(text.contains("no admissible backend capsule for op add on device wasm"), "{text}");
    // stderr, for the person at the terminal: where the answer says what is
    // missing, the ops with no capsule at all, then each reason capsules were
    // refused for, once, with its ops and what to do (matmul was planned: not named).
    let scan = "  no capsule in the catalog for selectiveScan: declare one (`capsules`)\n";
    let add = format!("  device-mismatch (op add): {}\n", RejectionReason::DeviceMismatch.what_to_do());
    assert_eq!(out.stderr, format!("{NO_PLAN_LINE}\n{scan}{add}"));
    // Many ops without a plan: one line a reason, the ops named up to eight,
    // the rest counted; as long for 20,000 ops as for 20.
    let many = |n: usize| {
        let ops = vec!["\"add\""; n].join(",");
        let request = format!(r#"{{"ops":[{ops}],"configs":[{{"device":"wasm","vjpMode":"none"}}]}}"#);
        run(&["plan", "--limit", &format!("ops={n}")], request.as_bytes()).stderr
    };
    let (few, lots) = (many(20), many(20_000));
    assert_eq!(few.lines().count(), lots.lines().count(), "{lots}");
    assert!(lots.len() < 2_000, "{lots}");
    // A plan that succeeds says nothing there.
    let planned = run(&["plan"], &std::fs::read(vectors().join("requests/default-explained.json")).unwrap());
    assert_eq!(planned.status, 0);
    assert!(planned.stderr.is_empty(), "{}", planned.stderr);
}

#[test]
fn help_everywhere() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &["presets", "--help"],
        &["target", "--help"],
        &["availability", "-h"],
        &["plan", "--help"],
        &["probe", "--help"],
        &["reference-capsules", "--help"],
        &["schema", "--help"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status, 0, "{args:?}");
        assert!(String::from_utf8(out.stdout).unwrap().contains("Usage: backend-targets"), "{args:?}");
    }
}

/// The help says what the tables say: every command answers, the preset
/// count, every limit's default and ceiling, every schema name, every
/// native reason.
#[test]
fn help_is_derived_from_the_tables() {
    use backend_targets::{Limits, Preset, SchemaName};
    let help = String::from_utf8(run(&["--help"], b"").stdout).unwrap();
    assert!(help.contains(&format!("The {} presets", Preset::ALL.len())), "{help}");
    for name in SchemaName::SPELLINGS {
        assert!(help.contains(name), "{name}");
    }
    let commands: Vec<&str> = help
        .lines()
        .filter_map(|line| line.strip_prefix("  ").filter(|l| !l.starts_with(' ') && !l.starts_with('-')))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(commands, ["presets", "target", "availability", "plan", "probe", "reference-capsules", "schema"]);
    for command in &commands {
        let out = run(&[command, "--help"], b"");
        assert_eq!(out.status, 0, "{command} --help");
    }
    let plan = String::from_utf8(run(&["plan", "--help"], b"").stdout).unwrap();
    for name in Limits::NAMES {
        let (default, ceiling) = (Limits::DEFAULT.get(name).unwrap(), Limits::CEILING.get(name).unwrap());
        assert!(plan.contains(&format!("{name}: default {default}, at most {ceiling}")), "{name}: {plan}");
    }
    let presets = String::from_utf8(run(&["presets", "--help"], b"").stdout).unwrap();
    assert!(presets.contains(&format!("for the {} presets", Preset::ALL.len())));
    // A misspelled command says which it meant.
    let out = run(&["plans"], b"");
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains(r#"unknown command "plans": did you mean "plan"?"#), "{}", out.stderr);
}

/// Every argument an error echoes is quoted as JSON and
/// cut past 64 bytes, so that stderr stays one line (a newline, an escape or
/// a direction override in an argument cannot break or turn it) and a
/// 100,000-byte argument is not repeated whole.
#[test]
fn every_argument_echoed_in_an_error_is_quoted_and_cut() {
    let hostile = format!("a\nb\u{1b}[31m\u{202e}c{}", "x".repeat(100_000));
    // What `quoted_short` writes for it: the first 64 bytes, escaped.
    let shown = format!(r#""a\nb\u001b[31m\u202ec{}"… (100012 bytes)"#, "x".repeat(52));
    let option = format!("--{hostile}");
    let option_shown = format!(r#""--a\nb\u001b[31m\u202ec{}"… (100014 bytes)"#, "x".repeat(50));
    let limit = format!("{hostile}=1");
    let pretty = format!("--pretty={hostile}");
    let cases: Vec<(Vec<&str>, &str, String)> = vec![
        (vec![&hostile], "[usage] at command: unknown command ", shown.clone()),
        (vec!["target", &hostile], "[unknown-variant] at preset: unknown Preset ", shown.clone()),
        (vec!["probe", &hostile], "[unknown-variant] at preset: unknown Preset ", shown.clone()),
        (vec!["target", "portableCpu", "--os", &hostile], "[unknown-variant] at --os: ", shown.clone()),
        (vec!["target", "linuxCpu", "--arch", &hostile], "[unknown-variant] at --arch: ", shown.clone()),
        (vec!["schema", &hostile], "[unknown-variant] at name: unknown SchemaName ", shown.clone()),
        (vec!["plan", "--limit", &limit], "[unknown-variant] at --limit: unknown limit ", shown.clone()),
        (vec!["probe", "linuxCpu", "--timeout-ms", &hostile], "[invalid-value] at --timeout-ms: ", shown.clone()),
        (vec!["presets", &option], "[usage] at [", option_shown.clone()),
        (vec!["presets", &pretty], "[usage] at --pretty: ", shown.clone()),
    ];
    for (args, starts, quoted) in &cases {
        let out = run(args, b"");
        let case = &args[..args.len() - 1];
        assert_eq!(out.status, 2, "{case:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{case:?}");
        let line = out.stderr.strip_suffix('\n').unwrap_or_else(|| panic!("{case:?}: {:?}", out.stderr));
        assert!(
            !line.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{case:?}: a control or direction character in {line:?}"
        );
        assert!(line.len() < 1_500, "{case:?}: {} bytes", line.len());
        let line = line.strip_prefix("backend-targets: error ").unwrap();
        assert!(line.starts_with(starts), "{case:?}: {line}");
        assert!(line.contains(quoted.as_str()), "{case:?}: {line}");
    }
}

/// The plan request example of docs/command.md plans, as it says it does.
#[test]
fn the_documented_example_plans() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/command.md")).unwrap();
    let section = &readme[readme.find("## Plan request and result").expect("the section")..];
    let start = section.find("```json\n").expect("a JSON example") + 8;
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let out = run(&["plan"], example.as_bytes());
    assert_eq!(out.status, 0, "{}", out.stderr);
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kernels: Vec<(&str, &str, u64)> = result["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["op"].as_str().unwrap(), k["capsule"].as_str().unwrap(), k["configIndex"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        kernels,
        [("matmul", "webgpu.matmul", 0), ("add", "reference.add", 1), ("softmax", "reference.softmax", 1)]
    );
    assert_eq!(result["attempts"][0]["ops"][0]["candidates"][0]["unverified"], true);
}

/// `probe --help` lists every reason of the native probe's table.
#[test]
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn probe_help_lists_every_reason() {
    let probe = String::from_utf8(run(&["probe", "--help"], b"").stdout).unwrap();
    for reason in backend_targets::probe::native::NativeReason::SPELLINGS {
        assert!(probe.contains(reason), "{reason}");
    }
}

/// A message says what to do, in the command's words: a
/// preset option by its flag, what a misspelled option most likely meant, an
/// empty stdin as empty, and how to raise a limit.
#[test]
fn errors_say_what_to_do_in_the_command_s_words() {
    let line = |args: &[&str], stdin: &[u8]| {
        let out = run(args, stdin);
        assert_eq!(out.status, 2, "{args:?}");
        out.stderr
    };
    for (args, expected) in [
        (
            &["target", "linuxCuda", "--os", "linux"][..],
            "[unsupported-option] at --os: preset linuxCuda does not take option `--os`; it takes only \
             --enable-libtorch",
        ),
        (
            &["availability", "macOSMetal", "--enable-libtorch"][..],
            "[unsupported-option] at --enable-libtorch: preset macOSMetal does not take option `--enable-libtorch`; \
             it takes no options",
        ),
        (
            &["target", "portableCpu", "--enable-libtorch"][..],
            "[unsupported-option] at --enable-libtorch: preset portableCpu does not take option `--enable-libtorch`; \
             it takes only --os, --arch",
        ),
        (
            &["plan", "--limt", "ops=1"][..],
            r#"[usage] at --limt: unknown option "--limt": did you mean "--limit"? (see --help)"#,
        ),
        (
            &["target", "linuxCuda", "--enable_libtorch"][..],
            r#"[usage] at --enable_libtorch: unknown option "--enable_libtorch": did you mean "--enable-libtorch"? (see --help)"#,
        ),
        (
            &["presets", "--prety"][..],
            r#"[usage] at --prety: unknown option "--prety": did you mean "--pretty"? (see --help)"#,
        ),
        (
            &["probe", "linuxCpu", "--timeout_ms", "9"][..],
            r#"[usage] at --timeout_ms: unknown option "--timeout_ms": did you mean "--timeout-ms"? (see --help)"#,
        ),
        (
            &["--versio"][..],
            r#"[usage] at --versio: unknown option "--versio": did you mean "--version"? (see --help)"#,
        ),
        (
            &["plan", "--frob"][..],
            r#"[usage] at --frob: unknown option "--frob", expected one of: --request, --probe, --timeout-ms, --limit, --pretty, --help (see --help)"#,
        ),
        (&["schema", "-x"][..], r#"[usage] at -x: invalid option "-x" (see --help)"#),
        (
            &["plan"][..],
            "[invalid-json] at (top level): the input is empty (or only whitespace): expected a JSON document",
        ),
        (
            &["availability", "-"][..],
            "[invalid-json] at (top level): the input is empty (or only whitespace): expected a JSON document",
        ),
    ] {
        assert_eq!(line(args, b""), format!("backend-targets: error {expected}\n"), "{args:?}");
    }
    assert_eq!(
        line(&["plan"], b" \n\t"),
        "backend-targets: error [invalid-json] at (top level): the input is empty (or only whitespace): expected a \
         JSON document\n"
    );
    let ops = format!(r#"{{"ops":[{}"add"]}}"#, r#""add","#.repeat(3));
    assert_eq!(
        line(&["plan", "--limit", "ops=3"], ops.as_bytes()),
        "backend-targets: error [limit-exceeded] at ops: 4 ops, more than the limit ops = 3 (raise it: --limit ops=N, \
         ?limit=ops=N, { limits: { ops: N } })\n"
    );
}

/// docs/native-probe.md's "what to do" table for the native probe's reasons is the one
/// `NativeReason::what_to_do` makes: one row per reason, in its order.
#[test]
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn the_docs_say_what_to_do_about_every_native_reason() {
    use backend_targets::probe::native::NativeReason;
    let table = NativeReason::what_to_do_markdown();
    assert_eq!(table.lines().count(), NativeReason::ALL.len() + 2);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/native-probe.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    if std::env::var_os("UPDATE_GENERATED").is_some() && !readme.contains(&table) {
        std::fs::write(&path, with_table(&readme, &table)).unwrap();
        return;
    }
    assert!(
        readme.contains(&table),
        "docs/native-probe.md's table of what to do is stale: run `cargo xtask gen`:\n{table}"
    );
}

/// `document` with the Markdown table whose header row is `table`'s first
/// line replaced by `table` (the rows up to the first line that is not one).
fn with_table(document: &str, table: &str) -> String {
    let header = table.lines().next().unwrap();
    let start = document.find(&format!("{header}\n")).expect("the document has the table's header row");
    let rows =
        document[start..].lines().take_while(|line| line.starts_with('|')).map(|line| line.len() + 1).sum::<usize>();
    format!("{}{table}{}", &document[..start], &document[start + rows..])
}

/// `reference-capsules` prints the catalog a request without `capsules`
/// plans with (the JS `referenceCapsules()` is checked against these bytes
/// in tests/js/).
#[test]
fn reference_capsules_is_the_built_in_catalog() {
    let out = run(&["reference-capsules"], b"");
    assert_eq!(out.status, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, format!("{}\n", backend_targets::json::to_json(&backend_targets::reference_capsules())));
    let catalog: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(catalog.as_array().unwrap().len(), backend_targets::vocab::BackendOp::ALL.len());
    let pretty = String::from_utf8(run(&["reference-capsules", "--pretty"], b"").stdout).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&pretty).unwrap(), catalog);
    assert!(pretty.lines().count() > catalog.as_array().unwrap().len());
}

#[test]
fn non_utf8_input_is_invalid_json_not_a_crash() {
    let out = run(&["plan"], &[0xff, 0xfe, b'{']);
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("[invalid-json]"), "{}", out.stderr);
}

/// The conformance vectors through the Rust API directly (no process): the
/// same bytes as the command's goldens.
#[test]
fn request_vectors_through_the_rust_api() {
    let dir = vectors().join("requests");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let (_, json) = backend_targets::plan_json(&text, &backend_targets::Limits::DEFAULT).unwrap();
        let golden = std::fs::read_to_string(vectors().join(format!("cli/plan-{name}.out"))).unwrap();
        assert_eq!(format!("{json}\n"), golden, "{name}");
        count += 1;
    }
    assert!(count >= 20, "{count} request vectors");
}

/// The advice names each op without a plan once, with the `what_to_do`
/// sentence of each distinct reason its capsules were refused for: in
/// `perOp` mode only the ops no config planned (softmax, refused by the
/// first config's trust policy, is planned by the second), in `wholePlan`
/// mode each op that a config could not plan.
#[test]
fn the_advice_says_each_reason_once_with_the_ops_it_refused() {
    let request = |mode: &str| {
        let capsule = |name: &str, op: &str, device: &str, trust: &str, forward: bool| {
            serde_json::json!({
                "name": name, "op": op, "provider": "reference", "device": device, "trustLevel": trust,
                "vjpMode": "torchLeanTape", "supportsForward": forward,
            })
        };
        serde_json::json!({
            "ops": ["add", "matmul", "softmax"],
            "availability": { "devices": ["cpu"], "providers": ["reference"] },
            "configs": [
                { "device": "cpu", "trustPolicy": "checked" },
                { "device": "cpu", "trustPolicy": "fuzzedOk" },
            ],
            "capsules": [
                capsule("cuda.add", "add", "cuda", "checked", true),
                capsule("backward.add", "add", "cpu", "checked", false),
                capsule("ref.matmul", "matmul", "cpu", "checked", true),
                capsule("fuzzed.softmax", "softmax", "cpu", "fuzzed", true),
            ],
            "mode": mode,
        })
        .to_string()
    };
    // Each reason once, in the table's order, with the ops it refused.
    let advice = |reason: RejectionReason, ops: &str| format!("  {reason} (op {ops}): {}", reason.what_to_do());
    for (mode, softmax) in [("perOp", false), ("wholePlan", true)] {
        let out = run(&["plan"], request(mode).as_bytes());
        assert_eq!(out.status, 1, "{mode}: {}", out.stderr);
        let mut want = vec![NO_PLAN_LINE.to_string()];
        for &reason in RejectionReason::ALL {
            match reason {
                RejectionReason::DeviceNotAvailable | RejectionReason::NoForward => want.push(advice(reason, "add")),
                // softmax was planned by the second config in perOp mode.
                RejectionReason::TrustRefused if softmax => want.push(advice(reason, "softmax")),
                _ => {}
            }
        }
        assert_eq!(out.stderr.lines().collect::<Vec<_>>(), want, "{mode}");
        assert!(!out.stderr.contains("matmul"), "{mode}: matmul was planned: {}", out.stderr);
    }
}
