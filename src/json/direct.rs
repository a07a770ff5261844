//! The direct reader: the fields of a value that the host has already
//! parsed (in a browser, `JSON.parse`), read one by one, with the strict
//! reader's codes, paths and sentences, and no JSON text at all. It serves
//! forms whose fields are all scalars (`probe()`'s options), so that the
//! detect-only module carries no JSON reader (BENCHMARKS.md);
//! everything else, the planner's requests first, stays with the strict
//! reader (`from_json`). The unit tests below hold the two readers to the
//! same answers.

use serde::de::Unexpected;

use super::error::{describe, unknown};
use crate::error::{Error, ErrorCode, Result};

/// A JSON value as the host parsed it, one level deep: a scalar with its
/// value, a container by its kind only (no form read so has one inside).
#[derive(Debug, Clone, PartialEq)]
pub enum Plain {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number and its JSON text (JavaScript's `String(value)`, which is
    /// what `JSON.stringify` writes): the text tells an integer that the
    /// strict reader would read whole from one it reads as a float.
    Number(f64, String),
    /// A string.
    String(String),
    /// An array (its items unread).
    Array,
    /// An object (its fields come apart, as `Fields`).
    Object,
}

/// An object's fields, key and value, in order (read once).
pub type Fields<'a> = &'a mut dyn Iterator<Item = (String, Plain)>;

impl Plain {
    /// serde's name for what this value is, as the strict reader gives it.
    fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Plain::Null => Unexpected::Unit,
            Plain::Bool(b) => Unexpected::Bool(*b),
            Plain::Number(value, text) => number_unexpected(*value, text),
            Plain::String(text) => Unexpected::Str(text),
            Plain::Array => Unexpected::Seq,
            Plain::Object => Unexpected::Map,
        }
    }
}

/// A number as serde_json reads its text: digits alone are an unsigned
/// integer when they fit 64 bits, a minus and digits a signed one, anything
/// else (a fraction, an exponent, more digits) a float, named by its kind.
fn number_unexpected(value: f64, text: &str) -> Unexpected<'static> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    // The digits' value, unless they are none, or not all digits, or more
    // than 64 bits hold (a loop: `str::parse` is two more copies of its code).
    let whole = digits.bytes().try_fold(None, |n: Option<u64>, b| {
        let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
        n.unwrap_or(0).checked_mul(10)?.checked_add(u64::from(digit)).map(Some)
    });
    match whole.flatten() {
        Some(n) if digits.len() == text.len() => Unexpected::Unsigned(n),
        // `-0` is no integer to serde_json: a float, "the number -0".
        Some(n) if (1..=1 << 63).contains(&n) => Unexpected::Signed(0i64.wrapping_sub_unsigned(n)),
        _ => Unexpected::Other(super::document::number_kind(value)),
    }
}

/// An error at the top-level object's field `key` (`None`: the value
/// itself), its path written as the strict reader writes it: the key, or a
/// quoted index when it is not a plain name.
#[inline(never)]
fn at(key: Option<&str>, code: ErrorCode, message: String) -> Error {
    let path = key.map(|key| super::path::key_path("", key)).unwrap_or_default();
    Error { code, path, message, expected: Vec::new() }
}

/// What a value of another kind than `expected` is: `expected X, found Y`.
#[inline(never)]
fn wrong_type(key: Option<&str>, expected: &str, found: &Plain) -> Error {
    at(key, ErrorCode::WrongType, format!("expected {expected}, found {}", describe(found.unexpected())))
}

/// The top-level value when it is not an object: the strict reader's
/// sentence for a struct given something else.
pub fn not_an_object(form: &str, found: &Plain) -> Error {
    wrong_type(None, &format!("struct {form}"), found)
}

/// A key that repeats an earlier one (JSON text can repeat a key; the host's
/// parse would keep the last), where the strict reader finds it.
pub fn duplicate_field(key: &str) -> Error {
    at(Some(key), ErrorCode::DuplicateField, format!("duplicate field {}", crate::error::quoted_short(key)))
}

/// A key that is not one of `fields`.
pub fn unknown_field(key: &str, fields: &'static [&'static str]) -> Error {
    let mut error = at(Some(key), ErrorCode::UnknownField, unknown("field", key, fields));
    error.expected = fields.iter().map(|s| s.to_string()).collect();
    error
}

/// A field the module reads but does not take (`message` says where to go).
pub fn unsupported_option(key: &str, message: &str) -> Error {
    at(Some(key), ErrorCode::UnsupportedOption, message.to_string())
}

/// A `u32` field: a whole number from 0 to 2³² − 1; any other number is out
/// of its range (`invalid-value`), anything else a wrong type.
pub fn read_u32(key: &str, value: &Plain) -> Result<u32> {
    let Plain::Number(number, text) = value else { return Err(wrong_type(Some(key), "u32", value)) };
    let found = number_unexpected(*number, text);
    match found {
        Unexpected::Unsigned(n) if n <= u64::from(u32::MAX) => Ok(n as u32),
        _ => Err(at(Some(key), ErrorCode::InvalidValue, format!("expected u32, found {}", describe(found)))),
    }
}

/// A `bool` field.
pub fn read_bool(key: &str, value: &Plain) -> Result<bool> {
    match value {
        Plain::Bool(b) => Ok(*b),
        _ => Err(wrong_type(Some(key), "a boolean", value)),
    }
}

/// An optional field of a spelled vocabulary (`T::from_spelling`): `null` is
/// refused (leave the field out instead), as the strict reader does.
pub fn read_spelling<T>(
    key: &str,
    value: &Plain,
    type_name: &str,
    spellings: &'static [&'static str],
    from_spelling: fn(&str) -> Option<T>,
) -> Result<T> {
    match value {
        Plain::Null => {
            Err(at(Some(key), ErrorCode::WrongType, "null is not accepted: leave the field out instead".to_string()))
        }
        Plain::String(text) => from_spelling(text).ok_or_else(|| {
            let mut error = at(Some(key), ErrorCode::UnknownVariant, unknown("spelling", text, spellings));
            error.expected = spellings.iter().map(|s| s.to_string()).collect();
            error
        }),
        _ => Err(wrong_type(Some(key), &format!("{} {type_name} spelling", article(type_name)), value)),
    }
}

/// "a" or "an" before a vocabulary's name (as `SpellingVisitor` says it).
fn article(type_name: &str) -> &'static str {
    if matches!(type_name.as_bytes().first(), Some(b'A' | b'E' | b'I' | b'O' | b'U')) { "an" } else { "a" }
}

/// Text that the host could not parse as JSON (in the browser, what
/// `JSON.parse` said, or what `plainFields` says serde_json would): the
/// strict reader's code, at the top level.
#[cfg(any(test, feature = "direct-reader"))]
pub fn not_json(why: &str) -> Error {
    Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: {why}"))
}

#[cfg(test)]
pub(crate) mod tests {
    //! The direct reader against the strict one, on the same values.

    use super::*;
    use crate::error::quoted;
    use crate::json::from_json;
    use crate::probe::web::ProbeOptions;
    use proptest::prelude::*;

    /// A value as (its JSON text, what the host's parse gives). Numbers are
    /// written as JavaScript writes them: integers whole (up to 10²¹),
    /// others with a fraction or an exponent.
    pub(crate) fn value() -> impl Strategy<Value = (String, Plain)> {
        let number = prop_oneof![
            (0u64..5_000_000_000).prop_map(|n| (n.to_string(), n as f64)),
            (-5_000_000_000i64..0).prop_map(|n| (n.to_string(), n as f64)),
            Just(("4294967295".to_string(), 4294967295.0)),
            Just(("4294967296".to_string(), 4294967296.0)),
            Just(("18446744073709551615".to_string(), 18446744073709551615.0)),
            Just(("18446744073709552000".to_string(), 18446744073709552000.0)),
            Just(("9223372036854776000".to_string(), 9223372036854776000.0)),
            Just(("-9223372036854775808".to_string(), -9223372036854775808.0)),
            Just(("-9223372036854776000".to_string(), -9223372036854776000.0)),
            Just(("100000000000000000000".to_string(), 1e20)),
            Just(("1e+21".to_string(), 1e21)),
            Just(("1.5".to_string(), 1.5)),
            Just(("-0.25".to_string(), -0.25)),
            Just(("5e-324".to_string(), 5e-324)),
            Just(("1.7976931348623157e+308".to_string(), f64::MAX)),
            // As JSON text may write them, which JavaScript never does:
            // `plainFields` hands over the text as written.
            Just(("5.0".to_string(), 5.0)),
            Just(("1e2".to_string(), 100.0)),
            Just(("1E+3".to_string(), 1000.0)),
            Just(("0.5e1".to_string(), 5.0)),
            Just(("-0".to_string(), -0.0)),
            Just(("-0.0".to_string(), -0.0)),
            Just(("1e-400".to_string(), 0.0)),
            Just(("-1e-400".to_string(), -0.0)),
            Just(("4294967295.000".to_string(), 4294967295.0)),
            Just(("9007199254740993".to_string(), 9007199254740992.0)),
            Just(("-9223372036854775809".to_string(), -9223372036854775808.0)),
        ]
        .prop_map(|(text, value)| (text.clone(), Plain::Number(value, text)));
        let text = prop_oneof![
            Just("low-power".to_string()),
            Just("high-performance".to_string()),
            Just("lowpower".to_string()),
            Just("HIGH_PERFORMANCE".to_string()),
            Just("100".to_string()),
            Just("".to_string()),
            "[a-z\"\\\\ é😀\\n]{0,70}",
        ]
        .prop_map(|s| (quoted(&s), Plain::String(s)));
        prop_oneof![
            Just(("null".to_string(), Plain::Null)),
            any::<bool>().prop_map(|b| (b.to_string(), Plain::Bool(b))),
            number,
            text,
            Just(("[]".to_string(), Plain::Array)),
            Just(("[1,{\"a\":2}]".to_string(), Plain::Array)),
            Just(("{}".to_string(), Plain::Object)),
            Just(("{\"timeoutMs\":1}".to_string(), Plain::Object)),
        ]
    }

    /// A key: one of the options' fields mostly, else a misspelling or any text.
    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => proptest::sample::select(ProbeOptions::FIELDS.to_vec()).prop_map(str::to_string),
            1 => Just("timeoutMS".to_string()),
            1 => Just("verify_device".to_string()),
            1 => Just("power".to_string()),
            1 => "[a-zA-Z .\\[\\]\"é]{0,70}",
            1 => "[0-9]{1,3}",
        ]
    }

    /// The direct reader on a top-level value and, for an object, its fields.
    fn direct(top: &Plain, fields: &[(String, Plain)]) -> Result<ProbeOptions> {
        ProbeOptions::from_plain(top, &mut fields.iter().cloned())
    }

    /// The direct reader on an object's fields answers as the strict one on
    /// its text, with one difference, by design: the detect-only module does
    /// not verify, and refuses any `verify` but `false` where it meets it,
    /// once every field before it has read as the strict reader reads it.
    fn agrees(plain: &[(String, Plain)], text: &str) -> std::result::Result<(), TestCaseError> {
        let read = direct(&Plain::Object, plain);
        if let Err(error) = &read
            && error.code == ErrorCode::UnsupportedOption
        {
            prop_assert_eq!(error.path.as_str(), "verify");
            let at = plain.iter().position(|(k, _)| k == "verify").unwrap();
            prop_assert!(!matches!(plain[at].1, Plain::Bool(false)));
            prop_assert!(direct(&Plain::Object, &plain[..at]).is_ok());
        } else {
            prop_assert_eq!(read, from_json::<ProbeOptions>(text), "{}", text);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn an_object_reads_as_the_strict_reader_reads_its_text(
            fields in proptest::collection::vec((key(), value()), 0..5)
        ) {
            // JavaScript objects have no repeated key: the strict reader would
            // say so, the host's parse keeps the last.
            let mut unique: Vec<(String, (String, Plain))> = Vec::new();
            for (k, v) in fields {
                unique.retain(|(seen, _)| *seen != k);
                unique.push((k, v));
            }
            let text = format!(
                "{{{}}}",
                unique.iter().map(|(k, (t, _))| format!("{}:{t}", quoted(k))).collect::<Vec<_>>().join(",")
            );
            let plain: Vec<(String, Plain)> = unique.into_iter().map(|(k, (_, v))| (k, v)).collect();
            agrees(&plain, &text)?;
        }

        /// JSON text may repeat a key, and `plainFields` hands over every
        /// use of it, in the text's order.
        #[test]
        fn an_object_s_text_with_repeated_keys_reads_as_the_strict_reader_reads_it(
            fields in proptest::collection::vec((key(), value()), 0..6)
        ) {
            let text = format!(
                "{{{}}}",
                fields.iter().map(|(k, (t, _))| format!("{}:{t}", quoted(k))).collect::<Vec<_>>().join(",")
            );
            let plain: Vec<(String, Plain)> = fields.into_iter().map(|(k, (_, v))| (k, v)).collect();
            agrees(&plain, &text)?;
        }

        #[test]
        fn any_other_value_reads_as_the_strict_reader_reads_it(
            (text, top) in value().prop_filter("not an object", |(_, top)| *top != Plain::Object)
        ) {
            prop_assert_eq!(direct(&top, &[]), from_json::<ProbeOptions>(&text), "{}", text);
        }
    }

    /// JSON text as `plainFields` (crates/browser/src/plain.js)
    /// hands it over, field by field in the text's order with each number's
    /// own text, reads as the strict reader reads the text: `5.0`, `1e2`,
    /// `-0`, `1e-400` and `4294967295.000` are `invalid-value`, a repeated key
    /// `duplicate-field`, `1e400` `invalid-json`, integer-like keys in place.
    /// tests/js/js-halves.test.mjs holds `plainFields` to the same file.
    #[test]
    fn json_text_as_plain_fields_hands_it_reads_as_the_strict_reader_reads_it() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/probe-options-text.json");
        let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cases = cases.as_array().unwrap();
        assert!(cases.len() >= 40, "the case list shrank: {}", cases.len());
        let mut codes = std::collections::BTreeSet::new();
        for case in cases {
            let text = case["text"].as_str().unwrap();
            let strict = from_json::<ProbeOptions>(text);
            if let Some(refused) = case["refused"].as_str() {
                assert_eq!(Err(not_json(refused)), strict, "{text}");
                continue;
            }
            let flat = case["flat"].as_array().unwrap();
            let item = |i: usize| match flat[i].as_u64().unwrap() {
                0 => Plain::Null,
                1 => Plain::Bool(flat[i + 1].as_bool().unwrap()),
                2 => Plain::Number(flat[i + 1].as_f64().unwrap(), flat[i + 2].as_str().unwrap().to_string()),
                3 => Plain::String(flat[i + 1].as_str().unwrap().to_string()),
                4 => Plain::Array,
                _ => Plain::Object,
            };
            let fields: Vec<(String, Plain)> =
                (3..flat.len()).step_by(4).map(|i| (flat[i].as_str().unwrap().to_string(), item(i + 1))).collect();
            let direct = direct(&item(0), &fields);
            assert_eq!(direct, strict, "{text}");
            codes.insert(direct.map_err(|e| e.code.as_str()).err().unwrap_or("ok"));
        }
        let want = ["duplicate-field", "invalid-value", "ok", "unknown-field", "unknown-variant", "wrong-type"];
        assert_eq!(codes.into_iter().collect::<Vec<_>>(), want);
    }

    #[test]
    fn the_sentences_are_the_strict_readers() {
        let error = direct(&Plain::Object, &[("powerPreference".into(), Plain::String("fast".into()))]).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownVariant);
        assert_eq!(error.expected, ["low-power", "high-performance"]);
        let error = direct(&Plain::Object, &[("a b".into(), Plain::Null)]).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownField, "[\"a b\"]"));
        let big = Plain::Number(1e20, "100000000000000000000".into());
        let error = direct(&Plain::Object, &[("timeoutMs".into(), big)]).unwrap_err();
        assert_eq!(error.message, "expected u32, found a number beyond 64 bits");
        assert_eq!(direct(&Plain::Object, &[]), Ok(ProbeOptions::default()));
    }
}
