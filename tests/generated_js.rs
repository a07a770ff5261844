//! `pkg-template/core.generated.js`: what the package's JS entries say
//! without the module (the answers a probe reaches before any adapter
//! exists, and `probe()`'s default bound), generated from the core so that
//! no sentence of it is copied by hand into JS. The test fails when the
//! committed file is not what the core generates; `cargo xtask gen`
//! (`UPDATE_GENERATED=1`) writes it. It also fails when a hand-written JS
//! file of the package repeats one of the core's sentences.

use std::path::Path;

use backend_targets::Target;
use backend_targets::json::to_json_pretty;
use backend_targets::probe::verify::DEFAULT_VERIFY_BUDGET_MS;
use backend_targets::probe::web::{DEFAULT_PROBE_TIMEOUT_MS, ProbeReport, Unreached, VERDICT_FORMAT, resolve};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const GENERATED: &str = "pkg-template/core.generated.js";

/// The file's text, from the core.
fn generated() -> String {
    let mut text = String::from(
        "// Generated from the core (src/probe/web.rs, `Unreached`) by tests/generated_js.rs:\n\
         // do not edit; `cargo xtask gen` writes it again.\n\n",
    );
    text.push_str("/** `probe()`'s `timeoutMs` when not given. */\n");
    text.push_str(&format!("export const DEFAULT_PROBE_TIMEOUT_MS = {DEFAULT_PROBE_TIMEOUT_MS};\n\n"));
    text.push_str("/** `verify`'s `budgetMs` when not given. */\n");
    text.push_str(&format!("export const DEFAULT_VERIFY_BUDGET_MS = {DEFAULT_VERIFY_BUDGET_MS};\n\n"));
    text.push_str("/** The version of a kept verdict's form, in its cache key (`verdictKey`). */\n");
    text.push_str(&format!("export const VERDICT_FORMAT = {VERDICT_FORMAT};\n\n"));
    text.push_str("/** Where a sentence below says the probe's bound. */\n");
    text.push_str(&format!("export const TIMEOUT_MS = {};\n\n", to_json_pretty(&Unreached::TIMEOUT_MS)));
    text.push_str("/** Where a sentence below says why the module could not be had. */\n");
    text.push_str(&format!("export const CAUSE = {};\n\n", to_json_pretty(&ProbeReport::CAUSE)));
    text.push_str(
        "/** The answers a probe reaches before any adapter exists, by name: the\n \
         *  `wasm` target resolved by the probe's report (`detect()`), the report\n \
         *  itself its `probe` (`probe()`); `timeoutMs` and `elapsedMs` are 0 and\n \
         *  each sentence says TIMEOUT_MS where the module writes the bound. */\n",
    );
    text.push_str("export const UNREACHED = {\n");
    for row in Unreached::ALL {
        let resolution = resolve(&Target::wasm(), &row.report(0));
        let mut json = to_json_pretty(&resolution);
        // The template says the placeholder where the module writes the bound.
        json = json.replace(&row.report(0).message, row.message);
        let indented = json.replace('\n', "\n  ");
        text.push_str(&format!("  {}: {indented},\n", to_json_pretty(&row.name)));
    }
    text.push_str("};\n");
    text
}

#[test]
fn the_generated_js_is_the_cores() {
    let path = Path::new(ROOT).join(GENERATED);
    let expected = generated();
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == expected, "{GENERATED} is stale: run `cargo xtask gen`\n--- generated:\n{expected}");
}

/// Every row's sentence says the bound where the module writes it, or
/// needs none; the names are distinct.
#[test]
fn the_unreached_rows_are_one_table() {
    let mut names: Vec<&str> = Unreached::ALL.iter().map(|row| row.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Unreached::ALL.len());
    for row in Unreached::ALL {
        let report = row.report(1234);
        assert_eq!((report.reason, report.api_present, report.timeout_ms), (row.reason, row.api_present, 1234));
        assert!(!report.available);
        assert_eq!(report.message, row.message.replace(Unreached::TIMEOUT_MS, "1234"));
    }
}

/// The core's sentences (string literals of four words or more in the
/// core's and the browser crate's Rust sources) appear in no hand-written
/// JS of the package: what JS must say without the module comes from the
/// generated file, or from the module.
#[test]
fn no_sentence_of_the_rust_sources_is_copied_into_js() {
    let mut sentences = Vec::new();
    let mut rust = Vec::new();
    for folder in ["src", "crates/browser/src"] {
        files(&Path::new(ROOT).join(folder), "rs", &mut rust);
    }
    for path in &rust {
        let source = std::fs::read_to_string(path).unwrap();
        for literal in source.split('"').skip(1).step_by(2) {
            // The sentence's longest piece between format arguments and
            // placeholders: the words a copy would repeat.
            let piece = literal
                .split(['{', '}'])
                .max_by_key(|piece| piece.split_whitespace().count())
                .unwrap_or_default()
                .trim();
            if piece.split_whitespace().count() >= 4 && !piece.contains('\\') {
                sentences.push(piece.to_string());
            }
        }
    }
    assert!(sentences.len() > 50, "{}", sentences.len());
    let mut js = Vec::new();
    for folder in ["pkg-template", "crates/browser/src"] {
        files(&Path::new(ROOT).join(folder), "js", &mut js);
    }
    js.retain(|path| !path.ends_with("core.generated.js"));
    assert!(js.len() >= 8, "{js:?}");
    let mut copies = Vec::new();
    for path in &js {
        let code: String = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|line| !line.trim_start().starts_with("//") && !line.trim_start().starts_with('*'))
            .collect::<Vec<_>>()
            .join("\n");
        for sentence in &sentences {
            if code.contains(sentence.as_str()) {
                copies.push(format!("{}: {sentence:?}", path.strip_prefix(ROOT).unwrap().display()));
            }
        }
    }
    assert!(copies.is_empty(), "sentences of the Rust sources written by hand in JS:\n{}", copies.join("\n"));
}

fn files(folder: &Path, extension: &str, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
}
