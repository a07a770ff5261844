//! `pkg-template/core.generated.js`: what the package's JS entries say
//! without the module (the answers a probe reaches before any adapter
//! exists, and `probe()`'s default bound), and
//! `pkg-template/presets.generated.js`: the full entry's preset exports, from
//! the core's preset table; both generated from the core so that no sentence
//! or name of it is copied by hand into JS. Also the npm package README's
//! table of what each probe reason means and what to do
//! (`ProbeReason::what_to_do`). The tests fail when a committed file is not
//! what the core generates; `cargo xtask gen` (`UPDATE_GENERATED=1`) writes
//! them. They also fail when a hand-written JS file of the package repeats
//! one of the core's sentences.

use std::path::Path;

use backend_targets::json::to_json_pretty;
use backend_targets::probe::verify::{DEFAULT_VERIFY_BUDGET_MS, SPEED_MARGIN};
use backend_targets::probe::web::{
    DEFAULT_PROBE_TIMEOUT_MS, ProbeReason, ProbeReport, Unreached, VERDICT_FORMAT, resolve,
};
use backend_targets::{Preset, Target};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const GENERATED: &str = "pkg-template/core.generated.js";
const PRESETS: &str = "pkg-template/presets.generated.js";
const PACKAGE_README: &str = "pkg-template/README.md";

/// The core's preset table (`preset_table!`, src/target.rs), as `(preset,
/// the name of wasm-bindgen's export)` rows, in its order.
macro_rules! preset_exports {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $spelling:literal (js $js:literal, fn $rust:ident):
            $parameters:ident, os $os:ident, arch $arch:ident, accelerator $accelerator:ident,
            features [$($feature:ident),*];
    )+) => {
        [$((Preset::$variant, $js)),+]
    };
}

/// `presets.generated.js`'s text: each preset's export (wasm-bindgen's,
/// under its JS name) behind the full entry's guard, and, for a preset whose
/// JS name is not its own (`wasm`: the glue reserves it), an alias under its
/// own name.
fn generated_presets() -> String {
    let rows = backend_targets::preset_table!(preset_exports);
    let mut text = String::from(
        "// Generated from the core's preset table (src/target.rs, `preset_table!`) by\n\
         // tests/generated_js.rs: do not edit; `cargo xtask gen` writes it again.\n\
         // The full entry's presets (index.js re-exports them): wasm-bindgen's\n\
         // exports behind the entry's guard, each under its name in the module, and\n\
         // under the preset's own name where the glue reserves it.\n\
         import { guarded } from './guard.js';\n\n",
    );
    for (_, js) in rows {
        text.push_str(&format!("export const {js} = guarded('{js}');\n"));
    }
    for (preset, js) in rows {
        if preset.as_str() != js {
            text.push_str(&format!("export {{ {js} as {} }};\n", preset.as_str()));
        }
    }
    text
}

/// Writes `expected` to `relative` under `UPDATE_GENERATED`, then holds the
/// committed file to it.
fn holds_generated(relative: &str, expected: &str) {
    let path = Path::new(ROOT).join(relative);
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(&path, expected).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == expected, "{relative} is stale: run `cargo xtask gen`\n--- generated:\n{expected}");
}

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
    holds_generated(GENERATED, &generated());
}

#[test]
fn the_preset_exports_are_the_cores_table() {
    holds_generated(PRESETS, &generated_presets());
}

/// One export per preset, in `Preset::ALL`'s order, plus one alias per
/// preset whose JS name is not its own: every preset is exported under its
/// own name, and the JS names are distinct.
#[test]
fn every_preset_is_exported_under_its_own_name() {
    let rows = backend_targets::preset_table!(preset_exports);
    let presets: Vec<Preset> = rows.iter().map(|(preset, _)| *preset).collect();
    assert_eq!(presets, Preset::ALL);
    let text = generated_presets();
    for preset in Preset::ALL {
        let name = preset.as_str();
        assert!(
            text.contains(&format!("export const {name} = ")) || text.contains(&format!(" as {name} }};")),
            "{name} is not exported under its own name:\n{text}"
        );
    }
    let mut js: Vec<&str> = rows.iter().map(|(_, js)| *js).collect();
    js.sort_unstable();
    js.dedup();
    assert_eq!(js.len(), Preset::ALL.len());
    let aliases = rows.iter().filter(|(preset, js)| preset.as_str() != *js).count();
    assert_eq!(text.lines().filter(|line| line.starts_with("export ")).count(), Preset::ALL.len() + aliases);
    // The one alias today: the glue reserves `wasm`.
    assert!(text.contains("export { wasmPreset as wasm };\n"), "{text}");
}

/// Every probe reason says what happened and what to do, in a sentence of
/// its own; the sentences that name a default say the core's.
#[test]
fn every_probe_reason_says_what_to_do() {
    let mut seen = Vec::new();
    for reason in ProbeReason::ALL {
        let advice = reason.what_to_do();
        assert!(advice.len() > 40, "{reason}: {advice:?}");
        assert!(!advice.trim().is_empty() && advice.trim() == advice, "{reason}: {advice:?}");
        // What happened, then what to do; one line, no cell break.
        assert!(advice.contains(": "), "{reason}: {advice:?}");
        assert!(!advice.contains('\n') && !advice.contains('|'), "{reason}: {advice:?}");
        assert!(!seen.contains(&advice), "{reason} repeats another reason's advice");
        seen.push(advice);
    }
    let said = |reason: ProbeReason, figure: String| {
        assert!(reason.what_to_do().contains(&figure), "{reason} does not say {figure}: {}", reason.what_to_do());
    };
    said(ProbeReason::Timeout, format!("{DEFAULT_PROBE_TIMEOUT_MS} by default"));
    said(ProbeReason::VerifyTimeout, format!("{DEFAULT_VERIFY_BUDGET_MS} by default"));
    said(ProbeReason::SlowerThanWasm, format!("{SPEED_MARGIN} ×"));
    let table = ProbeReason::what_to_do_markdown();
    assert_eq!(table.lines().count(), ProbeReason::ALL.len() + 2, "{table}");
}

/// The npm package README's "What each reason means, and what to do" table
/// is `ProbeReason::what_to_do_markdown()`, in that section.
#[test]
fn the_package_readme_says_what_to_do_about_every_probe_reason() {
    let table = ProbeReason::what_to_do_markdown();
    let path = Path::new(ROOT).join(PACKAGE_README);
    let readme = std::fs::read_to_string(&path).unwrap();
    let heading = "## What each reason means, and what to do\n";
    let section = readme.find(heading).expect("the package README has the section");
    let end = readme[section + heading.len()..].find("\n## ").map_or(readme.len(), |at| section + heading.len() + at);
    if std::env::var_os("UPDATE_GENERATED").is_some() && !readme[section..end].contains(&table) {
        let updated = format!("{}{}{}", &readme[..section], with_table(&readme[section..end], &table), &readme[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert!(
        readme[section..end].contains(&table),
        "{PACKAGE_README}'s table of what to do about each probe reason is stale: run `cargo xtask gen`:\n{table}"
    );
}

/// `document` with its first Markdown table (from its header row to the
/// first line that is not a row) replaced by `table`.
fn with_table(document: &str, table: &str) -> String {
    let start = document.find("\n| ").expect("the section has a table") + 1;
    let rows =
        document[start..].lines().take_while(|line| line.starts_with('|')).map(|line| line.len() + 1).sum::<usize>();
    format!("{}{table}{}", &document[..start], &document[start + rows..])
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
    js.retain(|path| !path.ends_with("core.generated.js") && !path.ends_with("presets.generated.js"));
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
