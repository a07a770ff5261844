//! Any text: `parse_target` and `parse_availability` return a value or a
//! located error, never panic; a parsed target re-serializes and re-parses equal.
#![no_main]
use backend_targets::{json::to_json, parse_availability, parse_target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(target) = parse_target(text) {
        assert_eq!(parse_target(&to_json(&target)).as_ref(), Ok(&target));
        let _ = target.declared_availability();
    }
    let _ = parse_availability(text);
});
