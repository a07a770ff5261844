//! Embeds the committed JSON Schemas (`schemas/*.json`, pretty for readers)
//! minified, so the binaries carry a third less text.
use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    for name in ["Target", "Availability", "ExecutionConfig", "KernelCapsule", "PlanRequest", "PlanResult"] {
        let source = format!("schemas/{name}.json");
        println!("cargo::rerun-if-changed={source}");
        let text = std::fs::read_to_string(&source).expect("schema file");
        let value: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
        let minified = serde_json::to_string(&value).expect("serialize");
        std::fs::write(Path::new(&out).join(format!("{name}.json")), minified).expect("write");
    }
}
