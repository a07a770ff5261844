//! Declares the `browser` cfg alias and embeds the committed schema
//! definitions (`schemas/defs.json`, pretty for readers) minified, split
//! into what every build serves and what only the native command does.
use std::path::Path;

fn main() {
    // `cfg(browser)`: the JS API and the WebGPU probe, the build for
    // wasm32-unknown-unknown (wgpu's own build.rs declares its aliases so).
    cfg_aliases::cfg_aliases! {
        browser: { all(target_arch = "wasm32", target_os = "unknown") },
        // The detect-only module (`backend-targets/detect`): the browser edge
        // with neither the planner's exports nor the verification, and so
        // without the strict JSON reader (its options are read directly).
        detect_only: { all(target_arch = "wasm32", target_os = "unknown", not(feature = "planner-exports"), not(feature = "verify")) },
    }
    // The browser build's memory stops at 2 GiB (see the allocator in
    // src/lib.rs): far above what the request limits let a plan use, and
    // clear of the 4 GiB edge of a 32-bit address space.
    let target = |name| std::env::var(name).unwrap_or_default();
    if target("CARGO_CFG_TARGET_ARCH") == "wasm32" && target("CARGO_CFG_TARGET_OS") == "unknown" {
        println!("cargo::rustc-link-arg=--max-memory={MAX_BROWSER_MEMORY}");
    }
    embed_schema_definitions();
}

/// The browser build's maximum memory: 2 GiB (32,768 pages of 64 KiB).
const MAX_BROWSER_MEMORY: u64 = 2 << 30;

include!("src/schema_forms.rs");

/// Writes the committed definitions minified as two object bodies (without
/// braces): `defs.shared` (what the forms every build serves reach), which
/// the browser build embeds alone, and, for the command, `defs.packed`:
/// `defs.shared` and what only the native probe's forms reach
/// (`defs.native`), joined by a comma, packed (src/packed.rs).
fn embed_schema_definitions() {
    use serde_json::{Map, Value};
    let source = "schemas/defs.json";
    println!("cargo::rerun-if-changed={source}");
    println!("cargo::rerun-if-changed=src/schema_forms.rs");
    println!("cargo::rerun-if-changed=src/packed.rs");
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
    // The command's copy: both parts in one packed text (src/packed.rs), and
    // where the shared part ends.
    let both = format!("{shared},{native}");
    let packed = pack(both.as_bytes());
    assert_eq!(unpack(&packed), both, "src/packed.rs: the round trip of the schema definitions");
    std::fs::write(Path::new(&out).join("defs.packed"), packed).expect("write");
    write("defs.shared_bytes", shared.len().to_string());
    write("defs.shared", shared);
}

include!("src/packed.rs");

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
