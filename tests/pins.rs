//! The wasm-bindgen pin, held by a test instead of a comment: the
//! crate in the browser module's `crates/browser/Cargo.toml` and, optional
//! (feature `typescript`), in the core's `Cargo.toml` (`wasm-bindgen =
//! "=X"` in each), the one `Cargo.lock` resolved, and the CLI
//! `scripts/setup.sh` installs (`WASM_BINDGEN_VERSION` in
//! `scripts/versions.sh`) must be one version: the CLI refuses a module
//! whose schema another version wrote. Native only: it reads the tree.
#![cfg(not(target_family = "wasm"))]

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap()
}

/// The text between `start` and the next `end` after it, on the one line that has `start`.
fn between<'a>(text: &'a str, start: &str, end: char) -> Vec<&'a str> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix(start))
        .map(|rest| rest.split(end).next().unwrap_or(rest))
        .collect()
}

#[test]
fn the_wasm_bindgen_crate_lock_and_cli_are_one_version() {
    let (script, lock) = (read("scripts/versions.sh"), read("Cargo.lock"));
    let browser = read("crates/browser/Cargo.toml");
    let manifest = between(&browser, "wasm-bindgen = \"=", '"');
    assert_eq!(manifest.len(), 1, "one exact pin of wasm-bindgen in crates/browser/Cargo.toml: {manifest:?}");
    let core = read("Cargo.toml");
    let core = between(&core, "wasm-bindgen = { version = \"=", '"');
    assert_eq!(
        core, manifest,
        "the core's optional wasm-bindgen (feature `typescript`) against the browser module's pin"
    );
    let script = between(&script, "WASM_BINDGEN_VERSION=", ' ');
    assert_eq!(script, manifest, "scripts/versions.sh's WASM_BINDGEN_VERSION against the browser module's pin");
    let locked: Vec<&str> = lock
        .split("[[package]]")
        .filter(|package| package.lines().any(|line| line == "name = \"wasm-bindgen\""))
        .flat_map(|package| between(package, "version = \"", '"'))
        .collect();
    assert_eq!(locked, manifest, "Cargo.lock's wasm-bindgen against the browser module's pin");
}
