//! The committed `schemas/*.json` are exactly what schemars generates from
//! the Rust types. Run with `--features schema`; set `UPDATE_SCHEMAS=1` to
//! rewrite them after changing a type.
#![cfg(feature = "schema")]

use backend_targets::SchemaName;

#[test]
fn committed_schemas_match_the_rust_types() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for &name in SchemaName::ALL {
        let generated = name.generate();
        let path = format!("{}/schemas/{name}.json", env!("CARGO_MANIFEST_DIR"));
        if update {
            std::fs::write(path, &generated).unwrap();
        } else if generated != std::fs::read_to_string(path).unwrap() {
            stale.push(name.as_str());
        }
    }
    assert!(stale.is_empty(), "stale schemas (rerun with UPDATE_SCHEMAS=1): {stale:?}");
}

/// The binaries embed the committed files, minified.
#[test]
fn embedded_schemas_are_the_committed_ones_minified() {
    for &name in SchemaName::ALL {
        let path = format!("{}/schemas/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let committed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(name.text(), serde_json::to_string(&committed).unwrap(), "{name}");
    }
}

#[test]
fn every_schema_is_json_with_a_title() {
    for &name in SchemaName::ALL {
        let schema: serde_json::Value = serde_json::from_str(name.text()).unwrap();
        assert_eq!(schema["title"], name.as_str(), "{name}");
    }
}
