//! Declares the `browser` cfg alias and embeds the committed schema
//! definitions (`schemas/defs.json`, pretty for readers) minified.
use std::path::Path;

fn main() {
    // `cfg(browser)`: the JS API and the WebGPU probe, the build for
    // wasm32-unknown-unknown (wgpu's own build.rs declares its aliases so).
    cfg_aliases::cfg_aliases! {
        browser: { all(target_arch = "wasm32", target_os = "unknown") },
    }
    let source = "schemas/defs.json";
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("schemas/defs.json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("schemas/defs.json is JSON");
    let minified = serde_json::to_string(&value).expect("serialize");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out).join("defs.min.json"), minified).expect("write");
}
