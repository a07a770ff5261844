//! Embeds the committed schema definitions (`schemas/defs.json`, pretty for
//! readers) minified, split into what every build serves and what only the
//! native command does.
use std::path::Path;

fn main() {
    embed_schema_definitions();
}

include!("src/schema_forms.rs");

/// Writes the committed definitions minified as two object bodies (without
/// braces): `defs.shared` (what the forms every build serves reach), which
/// a build without the feature `native-forms` (the browser module's) embeds
/// alone, and, with it, `defs.packed`: `defs.shared` and what only the
/// native probe's forms reach (`defs.native`), joined by a comma, packed
/// (src/schema_packing.rs).
fn embed_schema_definitions() {
    use serde_json::{Map, Value};
    let source = "schemas/defs.json";
    println!("cargo::rerun-if-changed={source}");
    println!("cargo::rerun-if-changed=src/schema_forms.rs");
    println!("cargo::rerun-if-changed=src/schema_packing.rs");
    let text = std::fs::read_to_string(source).expect("schemas/defs.json");
    let definitions: Map<String, Value> = serde_json::from_str(&text).expect("schemas/defs.json is an object");
    let roots = |forms: &[&str]| forms.iter().map(|form| form.to_string()).collect();
    let shared = reachable(&definitions, roots(SHARED_FORMS));
    let native_only: Vec<String> =
        reachable(&definitions, roots(NATIVE_ONLY_FORMS)).into_iter().filter(|name| !shared.contains(name)).collect();
    let body = |keep: &dyn Fn(&String) -> bool| {
        let part: Map<String, Value> =
            definitions.iter().filter(|(name, _)| keep(name)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let text = serde_json::to_string(&Value::Object(part)).expect("serialize");
        text[1..text.len() - 1].to_string()
    };
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let write = |name: &str, text: String| std::fs::write(Path::new(&out).join(name), text).expect("write");
    let (shared, native) = (body(&|name| !native_only.contains(name)), body(&|name| native_only.contains(name)));
    // The command's copy: both parts in one packed text (src/schema_packing.rs), and
    // where the shared part ends.
    let both = format!("{shared},{native}");
    let packed = pack(both.as_bytes());
    assert_eq!(unpack(&packed), both, "src/schema_packing.rs: the round trip of the schema definitions");
    std::fs::write(Path::new(&out).join("defs.packed"), packed).expect("write");
    write("defs.shared_bytes", shared.len().to_string());
    write("defs.shared", shared);
}

include!("src/schema_packing.rs");

/// The definitions reachable from `roots` through `#/$defs/…` references.
fn reachable(definitions: &serde_json::Map<String, serde_json::Value>, roots: Vec<String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut stack = roots;
    while let Some(name) = stack.pop() {
        if seen.contains(&name) {
            continue;
        }
        if let Some(value) = definitions.get(&name) {
            let text = value.to_string();
            for piece in text.split("\"#/$defs/").skip(1) {
                stack.push(piece.split('"').next().unwrap_or_default().to_string());
            }
        }
        seen.push(name);
    }
    seen
}
