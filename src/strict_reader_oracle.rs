//! The strict reader (`json::de`) held to serde_json's own reading of the
//! same text, on every vector of the project and on mutations generated
//! from each (every place in the text: a byte left out, or one of JSON's
//! tokens put in or put instead): where the strict reader reads a value,
//! serde_json reads the same one (the strict reader refuses more: an array
//! for a struct, a repeated key, a count past its limit, never less); where
//! serde_json finds the text is not JSON, the strict reader says
//! `invalid-json`, in serde_json's words; and no text makes it panic.

use std::fmt::Debug;

use serde::de::DeserializeOwned;

use crate::availability::Availability;
use crate::error::ErrorCode;
use crate::json::{Json, from_json, from_json_within, to_json};
use crate::limits::{Limits, PlanOptions};
use crate::probe::native::{CheckReport, HostDevice, NativeCheck, NativeReason};
use crate::probe::web::{ProbeOptions, ProbeReport, WebGpuVerdict};
use crate::request::PlanRequest;
use crate::target::{PresetOptions, Target};

/// Asserts that the strict reader's answer for `T` from `text` agrees with
/// serde_json's (see the module's words); whether it read.
fn same<T: DeserializeOwned + Debug>(text: &str) -> bool {
    same_within::<T>(text, None)
}

/// `same`, with the lists and maps counted against `limits` as they are read.
fn same_within<T: DeserializeOwned + Debug>(text: &str, limits: Option<&Limits>) -> bool {
    let strict = match limits {
        Some(limits) => from_json_within::<T>(text, limits),
        None => from_json::<T>(text),
    };
    let name = std::any::type_name::<T>();
    // Whether the text is JSON at all, as serde_json reads any value.
    match serde_json::from_str::<serde_json::Value>(text) {
        Err(refusal) => {
            let error = strict.as_ref().expect_err(text);
            assert_eq!(error.code, ErrorCode::InvalidJson, "{name} from {text:?}: {error:?}, serde_json: {refusal}");
            let empty = text.bytes().all(|b| b" \t\n\r".contains(&b));
            let words = format!("not valid JSON: {refusal}");
            assert!(empty || error.message == words, "{name} from {text:?}: {:?} against {words:?}", error.message);
        }
        Ok(_) => match &strict {
            Ok(value) => match serde_json::from_str::<T>(text) {
                Ok(same) => assert_eq!(format!("{value:?}"), format!("{same:?}"), "{name} from {text:?}"),
                Err(refusal) => panic!("{name} from {text:?}: strict read {value:?}, serde_json refused: {refusal}"),
            },
            Err(error) => {
                assert_ne!(error.code, ErrorCode::InvalidJson, "{name} from JSON {text:?}: {error:?}");
                assert!(!error.message.is_empty(), "{name} from {text:?}: {error:?}");
            }
        },
    }
    strict.is_ok()
}

/// Every count limit at 1: most of the requests' lists and maps go past
/// theirs, which the mutations then reach at every place.
const TIGHT: Limits = Limits { ops: 1, configs: 1, capsules: 1, features: 1, limits: 1, ..Limits::DEFAULT };

/// A request as the edges read one: no limit counted as it is read, and
/// every count limit at 1 (both read, whatever the first gives).
fn request_alike(text: &str) -> bool {
    [same::<PlanRequest>(text), same_within::<PlanRequest>(text, Some(&TIGHT))].contains(&true)
}

/// Every form an edge reads from text.
fn every_form(text: &str) -> bool {
    [
        request_alike(text),
        same::<Target>(text),
        same::<Availability>(text),
        same::<PresetOptions>(text),
        same::<PlanOptions>(text),
        same::<ProbeOptions>(text),
        same::<ProbeReport>(text),
        same::<WebGpuVerdict>(text),
        same::<CheckReport>(text),
        // Any JSON at all, and a visitor that recurses (through
        // `deserialize_any`), as no form's does: the grammar, the numbers and
        // the nesting limit.
        same::<serde_json::Value>(text),
    ]
    .contains(&true)
}

/// What is put in at each place, or instead of the byte there.
const TOKENS: [&str; 22] = [
    "\"",
    "\\",
    ",",
    ":",
    "{",
    "}",
    "[",
    "]",
    "null",
    "true",
    "0",
    "-1",
    "01",
    "1.5",
    "2e400",
    "18446744073709551616",
    " ",
    "x",
    "\"a\":1,",
    "\"\\u00e9\\n\"",
    "\u{1}",
    "é",
];

/// The text with one change at byte `at` (a char boundary): left out, or
/// a token put in before it, or put instead of it.
pub(crate) fn mutations(text: &str, mut check: impl FnMut(&str)) {
    let boundaries: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
    for pair in boundaries.windows(2) {
        let (at, next) = (pair[0], pair[1]);
        check(&format!("{}{}", &text[..at], &text[next..]));
        for token in TOKENS {
            check(&format!("{}{token}{}", &text[..at], &text[at..]));
            check(&format!("{}{token}{}", &text[..at], &text[next..]));
        }
    }
}

/// The project's vector files: `(name, text)`.
pub(crate) fn vector_texts(folder: &str) -> Vec<(String, String)> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors").join(folder);
    let mut texts: Vec<(String, String)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| (path.display().to_string(), std::fs::read_to_string(&path).unwrap()))
        .collect();
    texts.sort();
    texts
}

pub(crate) fn malformed_inputs() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/malformed.json");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    cases.iter().map(|case| case["input"].as_str().unwrap().to_string()).collect()
}

/// Texts of the forms besides the request, each read by its own form.
pub(crate) fn form_texts() -> Vec<String> {
    let mut check = CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, "two \"devices\"");
    check.devices = vec![HostDevice::new(0, "H200".into(), Some("9.0".into()), Some(150_000_000_000))];
    check.elapsed_ms = 12.75;
    check.cuda_major = Some(13);
    vec![
        to_json(&Target::linux_cuda(true)),
        to_json(&Target::wasm()),
        to_json(&Target::linux_cuda(true).declared_availability()),
        r#"{"os":"linux","arch":"aarch64"}"#.into(),
        r#"{"limits":{"ops":7,"capsules":20}}"#.into(),
        r#"{"timeoutMs":250,"verifyDevice":true,"verify":{"budgetMs":50,"precision":"f16"}}"#.into(),
        r#"{"available":true,"reason":"adapter-available","message":"m","apiPresent":true,"adapter":{"info":{"vendor":"v","architecture":"","device":"","description":"d"},"isFallbackAdapter":false,"features":["shader-f16"],"limits":{"maxBufferSize":268435456,"maxBindGroups":4}}}"#.into(),
        r#"{"reason":"verified","message":"ok","verification":{"workload":"mlp","checked":["f32"],"gpuMs":1.5,"wasmMs":2,"ratio":0.75,"margin":1.1,"maxError":0}}"#.into(),
        to_json(&check),
    ]
}

#[test]
fn every_vector_reads_alike() {
    let mut read = 0;
    for (_, text) in vector_texts("requests").iter().chain(&vector_texts("targets")) {
        read += usize::from(every_form(text));
    }
    for text in malformed_inputs().iter().chain(&form_texts()) {
        read += usize::from(every_form(text));
    }
    // Not only errors: every request vector and form text reads as something.
    assert!(read >= 21 + form_texts().len(), "{read}");
}

/// Reads every mutation of every seed with `read` (which asserts the
/// strict reader's answer against serde_json's and says whether it read), and asserts that some read and
/// some did not: the mutations reach both the values and the errors.
fn mutations_read_alike<'a>(seeds: impl IntoIterator<Item = &'a String>, read: fn(&str) -> bool) {
    let (mut texts, mut values) = (0, 0);
    for seed in seeds {
        mutations(seed, |text| {
            texts += 1;
            values += usize::from(read(text));
        });
    }
    assert!(values > 0 && values < texts, "{values} of {texts}");
}

#[test]
fn mutated_requests_read_alike() {
    // The compact texts: every place is a token boundary, none is indentation.
    let mut seeds: Vec<String> = vector_texts("requests")
        .iter()
        .map(|(_, text)| to_json(&serde_json::from_str::<Json>(text).unwrap()))
        .collect();
    seeds.sort_by_key(String::len);
    // The three shortest whole, and the longest: every place, every token.
    mutations_read_alike(seeds.iter().take(3).chain(seeds.last()), request_alike);
}

#[test]
fn mutated_forms_read_alike() {
    mutations_read_alike(&form_texts(), every_form);
}

#[test]
fn mutated_malformed_requests_read_alike() {
    mutations_read_alike(malformed_inputs().iter().filter(|text| text.len() < 400), request_alike);
}

#[test]
fn nesting_at_serde_jsons_limit_reads_alike() {
    for depth in [126, 127, 128, 129] {
        let text = format!(r#"{{"ops":[],"capsules":{}{}}}"#, "[".repeat(depth), "]".repeat(depth));
        every_form(&text);
        let text = format!(r#"{{"timeoutMs":1,"x":{}{}}}"#, "{\"a\":".repeat(depth), "}".repeat(depth));
        every_form(&text);
        let check = to_json(&CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, "m"));
        let text = format!("{}{}{}", "[".repeat(depth), check, "]".repeat(depth));
        every_form(&text);
    }
}
