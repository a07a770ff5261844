//! The strict reader's failure: serde's error constructors are overridden so
//! that the code, the field and the valid spellings arrive as data.

use std::fmt;

use serde::de::{self, Unexpected};

use crate::error::{ErrorCode, join_path};

/// A structured deserialization failure: serde's error constructors are
/// overridden so that the code, the field and the valid spellings arrive as
/// data, never parsed back out of a message.
///
/// Boxed: every `Result` that the generic code moves around, per visitor
/// type, is then one pointer wide on its error side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Failure>);

/// What an `Error` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: ErrorCode,
    /// Where, once known: set by the innermost value that sees the error.
    pub path: Option<String>,
    /// For a missing or duplicate field: its name, appended to the path of
    /// the object that reports it.
    pub field: Option<String>,
    pub message: String,
    pub expected: Vec<String>,
}

impl std::ops::Deref for Error {
    type Target = Failure;
    fn deref(&self) -> &Failure {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut Failure {
        &mut self.0
    }
}

impl Error {
    pub(super) fn new(code: ErrorCode, message: String) -> Self {
        Self(Box::new(Failure { code, path: None, field: None, message, expected: Vec::new() }))
    }

    /// The failure, unboxed.
    pub fn into_failure(self) -> Failure {
        *self.0
    }

    /// Locates the error at `path` unless a deeper value already did.
    pub(super) fn at(mut self, path: &str) -> Self {
        if self.path.is_none() {
            let field = self.field.take().unwrap_or_default();
            self.path = Some(join_path(path, &field));
        }
        self
    }

    pub(super) fn expecting(mut self, expected: &[&str]) -> Self {
        self.expected = expected.iter().map(|s| s.to_string()).collect();
        self
    }

    pub(super) fn with_field(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self::new(ErrorCode::InvalidValue, message.to_string())
    }
    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self::new(ErrorCode::WrongType, format!("expected {expected}, found {}", describe(unexpected)))
    }
    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self::new(ErrorCode::InvalidValue, format!("expected {expected}, found {}", describe(unexpected)))
    }
    fn invalid_length(length: usize, expected: &dyn de::Expected) -> Self {
        Self::new(ErrorCode::InvalidValue, format!("expected {expected}, found {length} elements"))
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self::new(ErrorCode::UnknownVariant, unknown("spelling", variant, expected)).expecting(expected)
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::new(ErrorCode::UnknownField, unknown("field", field, expected)).expecting(expected)
    }
    fn missing_field(field: &'static str) -> Self {
        Self::new(ErrorCode::MissingField, format!("missing field {}", quoted(field))).with_field(field)
    }
    fn duplicate_field(field: &'static str) -> Self {
        Self::duplicate(field)
    }
}

/// `unknown <what> "found"`, then the one it most likely meant, or every
/// one it could have been.
pub(super) fn unknown(what: &str, found: &str, expected: &[&str]) -> String {
    match crate::error::did_you_mean(found, expected) {
        Some(meant) => format!("unknown {what} {}: did you mean {}?", quoted_short(found), quoted(meant)),
        None => {
            format!("unknown {what} {}, expected one of: {}", quoted_short(found), crate::error::joined(expected, ", "))
        }
    }
}

/// `text` as a JSON string, for messages that quote a value. The same in
/// every build: the npm build compiles `Debug` formatting away
/// (`-Zfmt-debug=none`, scripts/build.sh), and JSON's escaping needs none of
/// the Unicode tables that `{:?}` would bring back.
///
/// Beyond JSON's own escapes, the characters that reorder or break a line
/// without being control characters (the bidirectional marks, embeddings,
/// overrides and isolates, the line and paragraph separators) are written
/// `\uXXXX` too: JSON reads them back the same, and a quoted value cannot
/// turn the rest of a line of stderr or a log around.
pub(crate) fn quoted(text: &str) -> String {
    // Writing a `str` into a `Vec` cannot fail.
    let json = serde_json::to_string(text).unwrap_or_default();
    if !json.chars().any(hidden) {
        return json;
    }
    let mut escaped = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            // Four hex digits, as serde_json writes `\u001b`: no formatting
            // machinery for it in the browser module.
            escaped.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                escaped.push(char::from(b"0123456789abcdef"[(u32::from(c) >> shift & 0xf) as usize]));
            }
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// A character that changes how the text around it is shown (its direction,
/// its lines) while printing as nothing.
fn hidden(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text longer than this is quoted in part in messages.
const QUOTE_BYTES: usize = 64;

/// `quoted`, cut to its first 64 bytes (at a character boundary) with the
/// full length named: a message never repeats a 10 MB key. Public for the
/// service (`http/`), whose messages quote query parameters as the command
/// quotes its arguments.
pub fn quoted_short(text: &str) -> String {
    if text.len() <= QUOTE_BYTES {
        return quoted(text);
    }
    let mut end = QUOTE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", quoted(&text[..end]), text.len())
}

/// `Unexpected`'s own wording, except that a float is not printed: that
/// keeps float formatting (some 25 KB of wasm) out of the binaries.
pub(super) fn describe(unexpected: Unexpected<'_>) -> String {
    match unexpected {
        Unexpected::Bool(b) => format!("boolean `{b}`"),
        Unexpected::Unsigned(n) => format!("integer `{n}`"),
        Unexpected::Signed(n) => format!("integer `{n}`"),
        Unexpected::Float(value) => super::document::number_kind(value).to_string(),
        Unexpected::Char(c) => format!("character `{c}`"),
        Unexpected::Str(s) => format!("string {}", quoted_short(s)),
        Unexpected::Unit => "null".to_string(),
        Unexpected::Seq => "an array".to_string(),
        Unexpected::Map => "an object".to_string(),
        Unexpected::Other(other) => other.to_string(),
        _ => "another kind of value".to_string(),
    }
}

impl Error {
    pub(super) fn duplicate(field: &str) -> Self {
        Self::new(ErrorCode::DuplicateField, format!("duplicate field {}", quoted_short(field))).with_field(field)
    }

    /// A repeated map key: the same sentence as a repeated struct field, for
    /// a path that already ends in the key.
    pub(super) fn duplicate_key(key: &str) -> Self {
        Self::new(ErrorCode::DuplicateField, format!("duplicate field {}", quoted_short(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::quoted;
    use proptest::prelude::*;

    #[test]
    pub(super) fn quoted_writes_json_strings() {
        assert_eq!(quoted("cuda"), r#""cuda""#);
        assert_eq!(quoted("it's \"x\"\\"), r#""it's \"x\"\\""#);
        assert_eq!(quoted("tab\tline\n\u{1}"), r#""tab\tline\n\u0001""#);
        assert_eq!(quoted("日本語 😀"), "\"日本語 😀\"");
        // Direction marks and line separators are escaped, not passed through.
        assert_eq!(quoted("a\u{202e}b\u{2066}c\u{2028}d\u{200f}"), r#""a\u202eb\u2066c\u2028d\u200f""#);
    }

    proptest! {
        #[test]
        fn quoted_reads_back_as_the_same_text(text in any::<String>()) {
            let quoted = quoted(&text);
            prop_assert!(!quoted.chars().any(|c| c < ' '));
            prop_assert_eq!(serde_json::from_str::<String>(&quoted).unwrap(), text);
        }
    }
}
