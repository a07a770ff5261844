//! Strict JSON in, deterministic JSON out. Every JSON form enters through
//! [`from_json`], which reads the typed value straight from the text in one
//! pass (`de`), and turns the reader's failures (`error`) into [`Error`]s with
//! a code and a path such as `capsules[3].trustLevel`; what is not JSON is
//! said in serde_json's words, from its reading of the text as a `Json`
//! document (`document`). A plan request's text is read within its limits
//! (`from_json_within`): each list or map a count limit bounds
//! (`limits::COUNTED`) is counted as it is read (`path::Where::count_limit`),
//! and refused at its item past the limit, the rest counted, never read.
//!
//! [`to_json`] writes serde_json's compact text, [`to_json_pretty`] its pretty
//! one: serde_json is the one writer.

mod de;
mod document;
mod error;
mod path;
mod visit;

/// For the service (`http/`), whose messages quote as the command's do.
pub use crate::error::quoted_short;
/// The document the command pretty-prints in document order.
pub use document::Json;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// Parses `text` as a `T`, rejecting unknown fields, wrong types, missing
/// required fields, duplicate fields, bad spellings and trailing text.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T> {
    read(text, None)
}

/// [`from_json`] of a plan request's text, its lists and maps counted against
/// `limits` as they are read ([`limits::COUNTED`](crate::limits::COUNTED)): the first one over its
/// limit is refused where it stands, before anything after it is read.
pub(crate) fn from_json_within<T: DeserializeOwned>(text: &str, limits: &Limits) -> Result<T> {
    read(text, Some(limits))
}

fn read<T: DeserializeOwned>(text: &str, limits: Option<&Limits>) -> Result<T> {
    let mut reader = de::Reader::new(text);
    match T::deserialize(de::TextValue { reader: &mut reader, at: root(limits) }) {
        Ok(value) => reader.end().map(|()| value),
        Err(error) => Err(failure(text, Some(error))),
    }
}

/// The root a reader starts at: counting against `limits`, if given.
fn root(limits: Option<&Limits>) -> path::Where<'_> {
    limits.map_or(path::Where::ROOT, path::Where::counted)
}

/// What a text that the one-pass reader stopped in is said to be: not JSON,
/// if it is not JSON anywhere (read again, whole, by serde_json, in its
/// words, keeping nothing), before anything the reader found in a value, as
/// when the whole document was read first; else the reader's error, located.
#[inline(never)]
fn failure(text: &str, error: Option<error::Error>) -> Error {
    if let Err(syntax) = check_document(text) {
        return syntax;
    }
    match error {
        Some(error) if !error.is_syntax() => into_error(error),
        // Only if the two readers disagreed on the grammar (the tests hold
        // them equal): still an error with a code, never a panic.
        _ => Error::new(
            ErrorCode::InvalidJson,
            "",
            "not valid JSON (the strict reader stopped where serde_json did not)",
        ),
    }
}

/// Reads `text` into a `Json` document (no trailing text allowed). Text
/// with nothing but JSON's whitespace in it is said to be empty, not in
/// serde_json's words ("EOF while parsing a value at line 1 column 0"): an
/// empty stdin or body is a request not given, not a malformed one.
#[cfg(test)]
fn parse_document(text: &str) -> Result<Json<'_>> {
    if is_blank(text) {
        return Err(empty_input());
    }
    document_text(text).map_err(not_json)
}

/// `parse_document`'s answer without the document: serde_json reads the
/// text as it reads a [`Json`] document ([`document::Unkept`]), keeping
/// nothing, so that the one-pass reader's way to an error (a list over its
/// limit, say) takes no memory in proportion to the text.
#[inline(never)]
fn check_document(text: &str) -> Result<()> {
    if is_blank(text) {
        return Err(empty_input());
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    document::Unkept::deserialize(&mut deserializer).and_then(|_| deserializer.end()).map_err(not_json)
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

fn empty_input() -> Error {
    Error::new(ErrorCode::InvalidJson, "", "the input is empty (or only whitespace): expected a JSON document")
}

fn not_json(error: serde_json::Error) -> Error {
    Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: {error}"))
}

/// serde_json's reading of `text` as one [`Json`] value and nothing after it:
/// the document (the command pretty-prints a schema through it), and the
/// one-pass reader's escaped strings and numbers.
#[inline(never)]
pub fn document_text(text: &str) -> serde_json::Result<Json<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Json::deserialize(&mut deserializer).and_then(|document| deserializer.end().map(|()| document))
}

/// The reader's error as this crate's, at the top level if no value located it.
#[inline(never)]
fn into_error(error: error::Error) -> Error {
    let error = error.at("").into_failure();
    Error { code: error.code, path: error.path.unwrap_or_default(), message: error.message, expected: error.expected }
}

/// Compact JSON (one line, no trailing newline), serde_json's.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing our own types to a String cannot fail: no map has non-string
    // keys and no Serialize impl returns an error.
    serde_json::to_string(value).unwrap_or_default()
}

/// Pretty JSON, two-space indent (no trailing newline).
///
/// The compact text is re-read as a [`Json`] document and printed pretty, so
/// that only [`Json`] (not every type) is compiled against the pretty printer:
/// the same bytes, some 10 KB less code.
pub fn to_json_pretty<T: Serialize>(value: &T) -> String {
    let compact = to_json(value);
    match document_text(&compact) {
        Ok(document) => serde_json::to_string_pretty(&document).unwrap_or_default(),
        Err(_) => compact,
    }
}

/// The bytes of `word` that JSON escapes in a string (a control character,
/// `"`, `\\`): the high bit of each such byte is set, and of no byte below
/// the first (a borrow runs only upward, from a flagged byte), so the lowest
/// bit set is the first such byte. A byte of 0x80 or more (in a UTF-8
/// sequence) is never flagged: `!word` clears its high bit. The strict
/// reader's plain runs ([`de`]), eight bytes a time.
#[inline(always)]
fn escape_flags(word: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    let below = word.wrapping_sub(ONES * 0x20);
    let quote = (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    (below | quote | backslash) & !word & (ONES * 0x80)
}

/// The bytes `text` takes as a JSON string in [`to_json`]'s output, quotes
/// left out: serde_json writes `"` and `\\` as two bytes, the control
/// characters as two (`\n`) or six (`\u0001`), everything else as it is.
pub(crate) fn escaped_len(text: &str) -> usize {
    let mut extra = 0;
    for &byte in text.as_bytes() {
        // Most bytes are written as they are: one test for them.
        if byte >= 0x20 && byte != b'"' && byte != b'\\' {
            continue;
        }
        extra += match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            _ => 5,
        };
    }
    text.len() + extra
}

/// serde's default for the boolean fields that default to `true`.
pub(crate) fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::{check_document, error, escaped_len, failure, from_json, parse_document, to_json_pretty};
    use crate::error::ErrorCode;
    use crate::target::{Target, presets};

    /// A text of nothing but whitespace is a request not given, said so in
    /// the crate's words by both readers, not in serde_json's.
    #[test]
    fn an_empty_text_is_said_to_be_empty() {
        for text in ["", " ", "\t\r\n ", "\n"] {
            for error in [from_json::<Target>(text).unwrap_err(), parse_document(text).unwrap_err()] {
                assert_eq!(error.code, ErrorCode::InvalidJson);
                assert_eq!(error.message, "the input is empty (or only whitespace): expected a JSON document");
            }
        }
        let error = from_json::<Target>(" x").unwrap_err();
        assert!(error.message.starts_with("not valid JSON: "), "{error:?}");
    }

    /// What the one-pass reader's error becomes: serde_json's words where the
    /// text is not JSON; else the reader's error; and where the reader
    /// stopped at text serde_json reads (which the tests hold never to
    /// happen), still an error with a code, not the reader's bare mark.
    #[test]
    fn a_failure_is_the_text_s_then_the_reader_s() {
        let wrong = || error::Error::new(ErrorCode::WrongType, "wrong".to_string());
        assert!(failure("[1,", Some(wrong())).message.starts_with("not valid JSON: "));
        let located = failure("{}", Some(wrong()));
        assert_eq!((located.code, located.message.as_str()), (ErrorCode::WrongType, "wrong"));
        for error in [Some(error::Error::syntax()), None] {
            let unexplained = failure("{}", error);
            assert_eq!(unexplained.code, ErrorCode::InvalidJson);
            assert_eq!(unexplained.message, "not valid JSON (the strict reader stopped where serde_json did not)");
        }
    }

    /// A unit variant given as a one-key object is refused at its key,
    /// saying it takes the plain string.
    #[test]
    fn a_unit_variant_with_a_value_asks_for_the_plain_string() {
        let text = r#"{"ops":[],"config":{"backend":{"auto":1}}}"#;
        let error = from_json::<crate::PlanRequest>(text).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::WrongType, "config.backend.auto"));
        assert_eq!(error.message, r#"expected the plain string "auto", found integer `1`"#);
    }

    /// The pretty text is serde_json's, two-space indent, for every preset.
    #[test]
    fn the_pretty_text_is_serde_jsons() {
        let presets = presets();
        for preset in &presets {
            assert_eq!(to_json_pretty(preset), serde_json::to_string_pretty(preset).unwrap());
        }
        assert_eq!(to_json_pretty(&presets), serde_json::to_string_pretty(&presets).unwrap());
    }

    /// `escaped_len` counts what serde_json writes: every byte below 0x80
    /// alone and between plain bytes, and text beyond ASCII.
    #[test]
    fn the_escaped_length_is_what_serde_json_writes() {
        let mut texts: Vec<String> = (0..0x80u8).map(|byte| char::from(byte).to_string()).collect();
        texts.extend((0..0x80u8).map(|byte| format!("ab{}cd", char::from(byte))));
        texts.extend(["", "reference.matmul", "é\u{2028}\"\u{7f}😀\n"].map(String::from));
        for text in &texts {
            assert_eq!(escaped_len(text), serde_json::to_string(text).unwrap().len() - 2, "{text:?}");
        }
    }

    /// `check_document` (the one-pass reader's syntax check, which keeps
    /// nothing) says what `parse_document` (the document's reading) says,
    /// for every text: the malformed inputs, texts made to fail in each of
    /// serde_json's ways, and every one-byte cut and insertion of them.
    #[test]
    fn the_syntax_check_says_what_reading_the_document_says() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/malformed.json");
        let cases: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(corpus).unwrap()).unwrap();
        let mut texts: Vec<String> = cases.iter().map(|case| case["input"].as_str().unwrap().to_string()).collect();
        texts.extend(
            [
                "",
                " \n",
                "{",
                "[1,]",
                "{\"a\":1,}",
                "{\"a\" 1}",
                "{1:2}",
                "[tru]",
                "nul",
                "01",
                "1.",
                "-",
                "1e",
                "1e999",
                "-1e999",
                "18446744073709551616",
                "[1 2]",
                "{} {}",
                "\"\\x\"",
                "\"\\u12\"",
                "\"\\ud800\"",
                "\"\\udc00\"",
                "\"\\ud800\\u0041\"",
                "\"\\ud83d\\ude00\"",
                "{\"\\ud800\":1}",
                "\"a\u{1}b\"",
                "\"abc",
                "[\"a\",\"\\n\\t\\/\"]",
                "{\"a\":[1,{\"b\":null}],\"c\":true}",
            ]
            .map(String::from),
        );
        texts.push(format!("{}{}", "[".repeat(127), "]".repeat(127)));
        texts.push(format!("{}{}", "[".repeat(128), "]".repeat(128)));
        let seeds: Vec<String> = texts.iter().filter(|text| text.len() < 80).cloned().collect();
        for seed in &seeds {
            for at in (0..=seed.len()).filter(|&at| seed.is_char_boundary(at)) {
                for token in ["\"", "\\", ",", ":", "{", "}", "[", "]", "u", "1", "\\ud800"] {
                    texts.push(format!("{}{token}{}", &seed[..at], &seed[at..]));
                }
                if let Some(next) = (at + 1..=seed.len()).find(|&next| seed.is_char_boundary(next)) {
                    texts.push(format!("{}{}", &seed[..at], &seed[next..]));
                }
            }
        }
        for text in &texts {
            assert_eq!(check_document(text), parse_document(text).map(|_| ()), "{text:?}");
        }
    }
}
