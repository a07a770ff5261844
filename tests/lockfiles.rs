//! The service (`http/`) keeps its own lockfile (it builds for
//! `wasm32-wasip2` with its own target folder, outside the workspace): every
//! package it shares with the workspace is locked at the same version in
//! both, so that the service answers with the very core, serde and
//! serde_json the command and the browser module are built with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each package of a `Cargo.lock` and the versions it is locked at.
fn locked(path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for block in text.split("[[package]]").skip(1) {
        let field = |name: &str| {
            block
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name} = \"")))
                .and_then(|rest| rest.strip_suffix('"'))
                .unwrap_or_else(|| panic!("{path}: a package without {name}"))
                .to_string()
        };
        packages.entry(field("name")).or_default().insert(field("version"));
    }
    packages
}

#[test]
fn the_service_locks_what_it_shares_with_the_workspace_at_the_same_versions() {
    let workspace = locked("Cargo.lock");
    let service = locked("http/Cargo.lock");
    let shared: Vec<&String> = service.keys().filter(|name| workspace.contains_key(*name)).collect();
    // The core and what its forms are read and written with, at least.
    for name in ["backend-targets", "serde", "serde_json", "thiserror"] {
        assert!(shared.iter().any(|shared| *shared == name), "http/Cargo.lock has no {name}");
    }
    let differ: Vec<String> = shared
        .iter()
        .filter(|name| workspace[**name] != service[**name])
        .map(|name| format!("{name}: workspace {:?}, http/ {:?}", workspace[*name], service[*name]))
        .collect();
    assert!(differ.is_empty(), "locked at other versions (run `cargo update` in http/):\n{}", differ.join("\n"));
}
