//! The libraries carry no process-wide effect: a Rust program
//! that depends on `backend-targets`, `backend-targets-native-probe` or
//! `backend-targets-cli` gets no global allocator, no exported C symbol
//! (`malloc` and the like), no loader constructor (a link section), no panic
//! hook and no signal handler from them. Those are the program's choices;
//! the `backend-targets` binary makes its own in `crates/cli/src/main.rs`
//! and `crates/cli/src/main/`.
//!
//! A source scan, not a symbol check, because the effects are per target
//! (the allocator and `malloc` only in `wasm32-wasip1`, the constructor only
//! on Linux and macOS): the scan sees every `cfg` at once, natively. The
//! signal handlers are also checked by behaviour: crates/cli/tests/native_probe.rs
//! (`rust_api_child`) probes in processes through the library and finds
//! every signal's disposition as it was.
//!
//! No exception in any library, for any target: the browser module
//! (`backend-targets-browser`, `crates/browser/`) is a program, not a
//! library (a `.wasm` its JS glue instantiates, with nothing else in it),
//! and it alone of the workspace's crates but the binary sets an allocator
//! and a panic hook, in its start (`wasm_bindgen(start)`,
//! crates/browser/src/api.rs): the hook is how an instance that traps is
//! replaced by a fresh one.
//!
//! And the core crate's dependencies are data-only and the same for every
//! target: no FFI, OS or argument-parsing crate, no target-specific section
//! (`core_dependencies_are_data_only`); the browser module's wasm-bindgen
//! and tsify only behind its off-by-default feature `typescript`.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The libraries' source folders, by the prefix their files are named with.
const LIBRARIES: &[&str] = &["src", "crates/native-probe/src", "crates/cli/src"];

/// The binary's files (the command's process-wide choices).
const BINARY: &[&str] = &["crates/cli/src/main.rs", "crates/cli/src/main/"];

/// What a library must not say, each with why.
const FORBIDDEN: &[(&str, &str)] = &[
    ("#[global_allocator]", "a global allocator is the program's"),
    ("no_mangle", "an exported symbol (such as C's `malloc`) is the program's"),
    ("export_name", "an exported symbol (such as C's `malloc`) is the program's"),
    ("link_section", "a loader constructor (`.init_array`) runs in every program that links it"),
    ("#[used]", "a kept static is how a constructor or an export is forced into the program"),
    ("set_hook", "the panic hook is the program's"),
    ("take_hook", "the panic hook is the program's"),
    ("wasm_bindgen(start", "a module's start is its program's"),
    ("sigaction(", "a signal's disposition is the whole process's"),
    ("libc::signal(", "a signal's disposition is the whole process's"),
];

/// The library's files allowed one forbidden word each, with why.
const ALLOWED: &[(&str, &str, &str)] = &[(
    "crates/native-probe/src/isolate.rs",
    "sigaction(",
    "the handlers `native::install_termination_handlers` installs when a program calls it (never the probe)",
)];

/// The browser module's source (a program: its start makes its choices).
const BROWSER: &str = "crates/browser/src";

/// The one file of the browser module that makes them (its start).
const BROWSER_START: &str = "crates/browser/src/api.rs";

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The libraries' source files, as paths relative to the workspace root
/// (`crates/native-probe/src/isolate.rs`): all but the binary's.
fn library_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for library in LIBRARIES {
        rust_files(&Path::new(ROOT).join(library), &mut files);
    }
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(ROOT).unwrap().to_string_lossy().replace('\\', "/");
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .filter(|(name, _)| !BINARY.iter().any(|binary| name.starts_with(binary)))
        .collect();
    for root in ["src/lib.rs", "crates/native-probe/src/lib.rs", "crates/cli/src/lib.rs"] {
        assert!(files.iter().any(|(name, _)| name == root), "the scan found {root}");
    }
    assert!(files.len() > 30, "the scan found the libraries");
    files
}

/// The code of a file without its comments (`//` to the end of the line).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(index, line)| (index + 1, line.split("//").next().unwrap_or("")))
}

#[test]
fn the_library_source_has_no_process_wide_effect() {
    let mut found = Vec::new();
    for (name, text) in library_files() {
        for (line, code) in code_lines(&text) {
            for (word, why) in FORBIDDEN {
                let allowed = ALLOWED.iter().any(|(file, allowed, _)| *file == name && allowed == word);
                if code.contains(word) && !allowed {
                    found.push(format!("{name}:{line}: `{word}`: {why}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "process-wide effects in the library:\n{}", found.join("\n"));
}

#[test]
fn the_binary_makes_the_choices_the_library_leaves_to_it() {
    // Proof that the scan looks for what the binary really writes: each word
    // is found in the binary's files.
    let mut binary = String::new();
    let mut files = vec![PathBuf::from(ROOT).join(BINARY[0])];
    rust_files(&PathBuf::from(ROOT).join(BINARY[1]), &mut files);
    for path in &files {
        binary.push_str(&std::fs::read_to_string(path).unwrap());
    }
    for word in ["#[global_allocator]", "no_mangle", "link_section", "#[used]", "install_termination_handlers()"] {
        assert!(
            binary.contains(word),
            "the binary no longer says `{word}`: is the scan still looking for the right words?"
        );
    }
    // The library never names the binary's modules.
    for (name, text) in library_files() {
        for (line, code) in code_lines(&text) {
            assert!(!code.contains("main/"), "{name}:{line} names a file of the binary (crates/cli/src/main/)");
        }
    }
}

#[test]
fn the_browser_module_makes_its_choices_in_its_start_alone() {
    // The library scan does not read the browser module (a program of its
    // own); this proves that it is where the allocator, the start and the
    // panic hook are, in its start's file only, and that no library file
    // lives in it.
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join(BROWSER), &mut files);
    assert!(files.len() >= 4, "the scan found the browser module: {files:?}");
    for word in ["#[global_allocator]", "wasm_bindgen(start", "set_hook"] {
        let holders: Vec<String> = files
            .iter()
            .filter(|path| code_lines(&std::fs::read_to_string(path).unwrap()).any(|(_, code)| code.contains(word)))
            .map(|path| path.strip_prefix(ROOT).unwrap().to_string_lossy().replace('\\', "/"))
            .collect();
        assert_eq!(holders, [BROWSER_START], "`{word}` in the browser module");
    }
    assert!(library_files().iter().all(|(name, _)| !name.starts_with(BROWSER)));
}

#[test]
fn the_core_source_has_no_browser_build_of_its_own() {
    // The core is one crate for every target: what the browser module needs
    // of it is a feature (`typescript`, and the default it leaves off), never a `cfg` on the target or an alias for it.
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    let mut found = Vec::new();
    for path in &files {
        for (line, code) in code_lines(&std::fs::read_to_string(path).unwrap()) {
            for word in ["target_os = \"unknown\"", "cfg(browser", "(browser)", "detect_only", "wasm_bindgen(start"] {
                if code.contains(word) {
                    found.push(format!("{}:{line}: `{word}`", path.strip_prefix(ROOT).unwrap().display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "the core's source builds differently for the browser:\n{}", found.join("\n"));
}

#[test]
fn the_termination_handlers_are_installed_only_by_a_program() {
    // The one library call of the installing function is the public
    // forwarder, native::install_termination_handlers, which nothing in the
    // library calls (the runtime check is in crates/cli/tests/native_probe.rs).
    let mut calls = Vec::new();
    for (name, text) in library_files() {
        for (_, code) in code_lines(&text) {
            if code.contains("install_termination_handlers()") && !code.contains("fn install_termination_handlers()") {
                calls.push(format!("{name}: {}", code.trim()));
            }
        }
    }
    assert_eq!(calls, ["crates/native-probe/src/lib.rs: isolate::install_termination_handlers();"], "{calls:#?}");
}

/// The edges: the only library files where `unsafe` may appear
/// (ARCHITECTURE.md, "Where `unsafe` lives").
const EDGES_WITH_UNSAFE: &[&str] = &["crates/native-probe/src/", "crates/cli/src/"];

#[test]
fn the_core_has_no_unsafe() {
    let mut found = Vec::new();
    for (name, text) in library_files() {
        if EDGES_WITH_UNSAFE.iter().any(|edge| name.starts_with(edge)) {
            continue;
        }
        for (line, code) in code_lines(&text) {
            if code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == "unsafe") {
                found.push(format!("{name}:{line}: {}", code.trim()));
            }
        }
    }
    assert!(found.is_empty(), "`unsafe` in the core (it belongs to an edge):\n{}", found.join("\n"));
}

/// The core crate's dependencies: what it reads and writes data with,
/// nothing that reaches the OS, loads libraries or parses a command line
/// (those are the edges' crates'), and the same for every target: no
/// `[target.…]` section at all. wasm-bindgen and tsify (the TypeScript
/// types of the forms, which the orphan rule keeps in the core) are
/// optional, enabled by the feature `typescript` alone, which no default
/// turns on.
#[test]
fn core_dependencies_are_data_only() {
    // itoa: serde_json's own integer formatter, which the compact writer
    // (`json::write`) calls as serde_json does.
    const DATA_ONLY: &[&str] = &["serde", "serde_json", "itoa", "thiserror", "half", "schemars"];
    const TYPESCRIPT: &[&str] = &["tsify", "wasm-bindgen"];
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let mut section = String::new();
    let mut found = Vec::new();
    let mut features = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            assert!(
                !section.starts_with("[target."),
                "the core's Cargo.toml has a target-specific section, {section}: the core is the same for every target"
            );
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if section == "[features]" {
            features.push(line.to_string());
        }
        if section != "[dependencies]" {
            continue;
        }
        let name = line.split(['=', ' ']).next().unwrap();
        found.push(name.to_string());
        if TYPESCRIPT.contains(&name) {
            assert!(line.contains("optional = true"), "`{name}` is the browser module's: optional in the core");
            continue;
        }
        assert!(DATA_ONLY.contains(&name), "the core depends on `{name}`: it belongs to an edge's crate");
    }
    assert!(found.iter().any(|name| name == "serde"), "the scan read the core's dependencies: {found:?}");
    // Only `typescript` enables the browser module's two, and no default does.
    for feature in &features {
        let enables = TYPESCRIPT.iter().any(|name| feature.contains(&format!("dep:{name}")));
        assert_eq!(enables, feature.starts_with("typescript ="), "the core's feature {feature}");
        if feature.starts_with("default =") {
            assert!(!feature.contains("typescript"), "the core's defaults: {feature}");
        }
    }
    assert!(features.iter().any(|feature| feature.starts_with("typescript =")), "{features:?}");
}

/// The three browser modules (full, detect-only, verification) build one
/// core: the same reader, writer and wording. The core's only default is
/// `native-forms` (the command's forms), which the browser crate leaves off;
/// none of the browser crate's features turns a core feature on or off, so
/// no module answers differently from another (or from the command).
#[test]
fn the_browser_modules_build_one_core() {
    let core = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let browser = std::fs::read_to_string(Path::new(ROOT).join("crates/browser/Cargo.toml")).unwrap();
    // The quoted names of a `name = [...]` line.
    let list = |manifest: &str, name: &str| -> Vec<String> {
        let line = manifest.lines().find(|line| line.starts_with(&format!("{name} = ["))).unwrap_or_default();
        line.split('"').skip(1).step_by(2).map(str::to_string).collect()
    };
    assert_eq!(list(&core, "default"), ["native-forms"], "the core's defaults");
    for feature in ["default", "planner-exports", "verify", "test-hooks"] {
        let core_features: Vec<String> =
            list(&browser, feature).into_iter().filter(|f| f.starts_with("backend-targets/")).collect();
        assert!(core_features.is_empty(), "crates/browser's `{feature}` changes the core: {core_features:?}");
    }
    let dependency = browser.lines().find(|line| line.starts_with("backend-targets = ")).unwrap();
    assert!(dependency.contains("default-features = false"), "{dependency}");
    assert!(dependency.contains("features = [\"typescript\"]"), "{dependency}");
}
