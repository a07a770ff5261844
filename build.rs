//! Embeds the committed schema definitions (`schemas/defs.json`, pretty for
//! readers) minified.
use std::path::Path;

fn main() {
    let source = "schemas/defs.json";
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("schemas/defs.json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("schemas/defs.json is JSON");
    let minified = serde_json::to_string(&value).expect("serialize");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out).join("defs.min.json"), minified).expect("write");
}
