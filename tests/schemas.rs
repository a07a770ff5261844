//! The committed `schemas/defs.json` is exactly what schemars generates from
//! the Rust types, and every form's schema refers into it. Run with
//! `--features schema`; set `UPDATE_SCHEMAS=1` to rewrite it after changing a type.
#![cfg(feature = "schema")]

use backend_targets::SchemaName;
use serde_json::Value;

fn committed() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/defs.json")).unwrap()
}

#[test]
fn committed_definitions_match_the_rust_types() {
    let generated = SchemaName::generate_definitions();
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/defs.json"), &generated).unwrap();
    } else {
        assert!(generated == committed(), "schemas/defs.json is stale: rerun with UPDATE_SCHEMAS=1");
    }
}

#[test]
fn every_schema_refers_to_its_form_in_the_shared_definitions() {
    let definitions: Value = serde_json::from_str(&committed()).unwrap();
    for &name in SchemaName::ALL {
        let schema: Value = serde_json::from_str(&name.text()).unwrap();
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(schema["title"], name.as_str());
        assert_eq!(schema["$ref"], format!("#/$defs/{name}"));
        assert_eq!(schema["$defs"], definitions, "{name}: the embedded definitions are the committed ones");
        assert!(definitions[name.as_str()].is_object(), "{name} is defined");
    }
}
