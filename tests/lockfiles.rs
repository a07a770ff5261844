//! One lockfile for every crate that answers: the service (`http/`) is a
//! member of the workspace (built for `wasm32-wasip2` with the `service`
//! profile), so it is built with the very core, serde and serde_json the
//! command and the browser module are, locked once in `Cargo.lock`. Only
//! the fuzz targets (their own nightly toolchain, `fuzz/`) keep a lockfile
//! of their own.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The quoted names of the `name = [...]` line of the `[workspace]` table.
fn workspace_list(manifest: &str, name: &str) -> Vec<String> {
    let line = manifest.lines().find(|line| line.starts_with(&format!("{name} = ["))).unwrap_or_default();
    line.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

#[test]
fn the_service_is_a_member_with_no_lockfile_of_its_own() {
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    assert!(workspace_list(&manifest, "members").contains(&"http".to_string()), "http/ is a workspace member");
    assert!(!workspace_list(&manifest, "exclude").contains(&"http".to_string()), "http/ is not excluded");
    assert!(!Path::new(ROOT).join("http/Cargo.lock").exists(), "http/ has no lockfile of its own");
    let service = std::fs::read_to_string(Path::new(ROOT).join("http/Cargo.toml")).unwrap();
    assert!(!service.lines().any(|line| line.trim() == "[workspace]"), "http/Cargo.toml is no workspace root");
    // Its profile is the workspace's `service` one: speed, not size.
    assert!(manifest.contains("[profile.service]\ninherits = \"release\"\nopt-level = 3"), "the service profile");
    // And the one lockfile holds it, with the core it shares.
    let lock = std::fs::read_to_string(Path::new(ROOT).join("Cargo.lock")).unwrap();
    for name in ["backend-targets-http", "backend-targets", "wstd"] {
        assert!(lock.contains(&format!("\nname = \"{name}\"\n")), "Cargo.lock locks {name}");
    }
}
