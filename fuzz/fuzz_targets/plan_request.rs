//! Any text as a plan request: a result or a located error, never a panic;
//! the same text always gives the same bytes.
#![no_main]
use backend_targets::{Limits, plan_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match plan_json(text, &Limits::DEFAULT) {
        Ok((ok, json)) => {
            assert_eq!(plan_json(text, &Limits::DEFAULT), Ok((ok, json)));
        }
        Err(error) => assert!(!error.message.is_empty()),
    }
});
