//! Strict JSON in, deterministic JSON out. Every JSON form enters through
//! `from_json`, which reads the text into a `Json` document (`document`), then
//! the typed value from it (`de`), and turns the reader's failures (`error`)
//! into `Error`s with a code and a path such as `capsules[3].trustLevel`.

mod de;
mod document;
mod error;
// The detect-only module's reader of `probe()`'s options (and its tests).
#[cfg(any(test, detect_only))]
pub(crate) mod plain;

/// For the service (`http/`), whose messages quote as the command's do.
pub use crate::error::quoted_short;
pub(crate) use document::Json;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};

/// Parses `text` as a `T`, rejecting unknown fields, wrong types, missing
/// required fields, duplicate fields, bad spellings and trailing text.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T> {
    // Only the typed read is generic; parsing and error conversion are
    // compiled once, not once per `T`.
    de::deserialize(parse_document(text)?)
}

/// Reads `text` into a `Json` document (no trailing text allowed).
#[inline(never)]
fn parse_document(text: &str) -> Result<Json<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Json::deserialize(&mut deserializer)
        .and_then(|document| deserializer.end().map(|()| document))
        .map_err(|error| Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: {error}")))
}

/// The reader's error as this crate's, at the top level if no value located it.
#[inline(never)]
fn into_error(error: error::Error) -> Error {
    let error = error.at("").into_failure();
    Error { code: error.code, path: error.path.unwrap_or_default(), message: error.message, expected: error.expected }
}

/// Compact JSON (one line, no trailing newline).
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing our own types to a String cannot fail: no map has non-string
    // keys and no Serialize impl returns an error.
    serde_json::to_string(value).unwrap_or_default()
}

/// `value` as serde_json writes an `f64` (the shortest text that reads back
/// as it), when `value` is the `f64` nearest to a whole number of
/// thousandths below 10^12 (some 31 years in milliseconds); `None`
/// otherwise. The text is the integer part, a point and the thousandths
/// without their trailing zeros (at least one digit): no shorter decimal
/// reads back as the same `f64`, since below 10^12 an `f64` step is under
/// 0.000123, and two such decimals are at least 0.001 apart.
#[cfg(any(test, detect_only))]
pub(crate) fn millisecond_text(value: f64) -> Option<String> {
    const MAX_THOUSANDTHS: f64 = 1e15;
    let thousandths = (value * 1000.0).round();
    if !(0.0..MAX_THOUSANDTHS).contains(&thousandths) {
        return None;
    }
    let thousandths = thousandths as u64;
    if (thousandths as f64 / 1000.0).to_bits() != value.to_bits() {
        return None;
    }
    let (whole, fraction) = (thousandths / 1000, thousandths % 1000);
    let mut text = format!("{whole}.{fraction:03}");
    while text.ends_with('0') && !text.ends_with(".0") {
        text.pop();
    }
    Some(text)
}

/// Pretty JSON, two-space indent (no trailing newline).
///
/// The compact text is re-read as a `Json` document and printed pretty, so
/// that only `Json` (not every type) is compiled against the pretty printer:
/// the same bytes, some 10 KB less code.
pub fn to_json_pretty<T: Serialize>(value: &T) -> String {
    let compact = to_json(value);
    match serde_json::from_str::<Json>(&compact) {
        Ok(document) => serde_json::to_string_pretty(&document).unwrap_or_default(),
        Err(_) => compact,
    }
}

/// The bytes `text` takes as a JSON string in `to_json`'s output, quotes
/// left out: serde_json writes `"` and `\\` as two bytes, the control
/// characters as two (`\n`) or six (`\u0001`), everything else as it is.
pub(crate) fn escaped_len(text: &str) -> usize {
    let extra: usize = text
        .bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    text.len() + extra
}

/// serde's default for the boolean fields that default to `true`.
pub(crate) fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::millisecond_text;
    use proptest::prelude::*;

    /// serde_json's own text for `value`: what the detect-only module's
    /// formatter must write, byte for byte.
    fn serde_json_text(value: f64) -> String {
        serde_json::to_string(&value).expect("a finite f64")
    }

    #[test]
    fn whole_thousandths_read_as_serde_json_writes_them() {
        let edges: [u64; 12] =
            [0, 1, 10, 100, 999, 1000, 1001, 1010, 12_345, 5_000_000, 4_294_967_295_000, 999_999_999_999_999];
        for thousandths in edges {
            let value = thousandths as f64 / 1000.0;
            assert_eq!(millisecond_text(value).as_deref(), Some(serde_json_text(value).as_str()), "{thousandths}");
        }
        assert_eq!(millisecond_text(0.0).as_deref(), Some("0.0"));
        assert_eq!(millisecond_text(1.5).as_deref(), Some("1.5"));
        assert_eq!(millisecond_text(0.001).as_deref(), Some("0.001"));
    }

    #[test]
    fn anything_but_whole_thousandths_in_range_is_none() {
        for value in [-0.001, -1.0, 0.0005, 0.1 + 0.2, 1e-9, 1e12, 1e16, f64::NAN, f64::INFINITY, -0.0] {
            assert_eq!(millisecond_text(value), None, "{value}");
        }
    }

    proptest! {
        #[test]
        fn every_whole_thousandth_reads_as_serde_json_writes_it(thousandths in 0u64..1_000_000_000_000_000) {
            let value = thousandths as f64 / 1000.0;
            prop_assert_eq!(millisecond_text(value), Some(serde_json_text(value)));
        }

        #[test]
        fn a_probes_rounding_is_always_written(ms in 0.0f64..1e7) {
            let value = (ms * 1000.0).round() / 1000.0;
            prop_assert_eq!(millisecond_text(value), Some(serde_json_text(value)));
        }
    }
}
