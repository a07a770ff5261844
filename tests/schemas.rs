//! The committed `schemas/defs.json` is exactly what schemars generates from
//! the Rust types, and every form's schema refers into it. The first needs
//! schemars: run with `--features schema` (scripts/test.sh does; a plain
//! `cargo test` lists it as ignored, saying so); `cargo xtask gen`
//! (`UPDATE_GENERATED=1`) rewrites it after changing a type. The second runs with the feature
//! `native-forms` (a default one; the browser module serves no native-only
//! form).
#![cfg(feature = "native-forms")]

use backend_targets::SchemaName;
use serde_json::Value;

fn committed() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/defs.json")).unwrap()
}

#[test]
#[cfg(feature = "schema")]
fn committed_definitions_match_the_rust_types() {
    let generated = SchemaName::generate_definitions();
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/defs.json"), &generated).unwrap();
    } else {
        assert!(generated == committed(), "schemas/defs.json is stale: run `cargo xtask gen`");
    }
}

/// Under a plain `cargo test`: the check above is not built, and says so.
#[test]
#[cfg(not(feature = "schema"))]
#[ignore = "needs schemars: cargo test --features schema --test schemas"]
fn committed_definitions_match_the_rust_types() {
    panic!("built without the `schema` feature: run cargo test --features schema --test schemas");
}

#[test]
fn every_schema_refers_to_its_form_and_carries_what_it_reaches() {
    let definitions: Value = serde_json::from_str(&committed()).unwrap();
    let native_only = ["ChangeAction", "NativeResolution", "ProbedPlanResult", "NativeChange", "HostReport"];
    for &name in SchemaName::ALL {
        let schema: Value = serde_json::from_str(&name.text().unwrap()).unwrap();
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(schema["title"], name.as_str());
        assert_eq!(schema["$ref"], format!("#/$defs/{name}"));
        let embedded = schema["$defs"].as_object().unwrap();
        assert!(embedded[name.as_str()].is_object(), "{name} is defined");
        // Every definition is the committed one, and every reference resolves.
        for (key, value) in embedded {
            assert_eq!(value, &definitions[key], "{name}: {key} is the committed definition");
        }
        let text = schema.to_string();
        for reference in text.split("\"#/$defs/").skip(1) {
            let target = reference.split('"').next().unwrap();
            assert!(embedded.contains_key(target), "{name}: #/$defs/{target} resolves");
        }
        // The forms every build serves carry none of the native probe's definitions.
        for key in native_only {
            assert_eq!(embedded.contains_key(key), name.is_native_only(), "{name}: {key}");
        }
    }
    // Native forms carry every committed definition.
    let native: Value = serde_json::from_str(&SchemaName::NativeResolution.text().unwrap()).unwrap();
    assert_eq!(native["$defs"], definitions);
}
