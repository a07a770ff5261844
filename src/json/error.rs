//! The strict reader's failure: serde's error constructors are overridden so
//! that the code, the field and the valid spellings arrive as data.

use std::fmt;

use serde::de::{self, Unexpected};

use crate::error::{ErrorCode, join_path, quoted, quoted_short};

/// A structured deserialization failure: serde's error constructors are
/// overridden so that the code, the field and the valid spellings arrive as
/// data, never parsed back out of a message.
///
/// Boxed: every [`Result`] that the generic code moves around, per visitor
/// type, is then one pointer wide on its error side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Failure>);

/// What an [`Error`] says.
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

    /// The one-pass reader's mark for text it does not take: no words, no
    /// place; [`json::failure`](crate::json::failure) has serde_json say what is wrong.
    pub(super) fn syntax() -> Self {
        Self::new(ErrorCode::InvalidJson, String::new())
    }

    /// Whether this is `syntax()`'s mark.
    pub(super) fn is_syntax(&self) -> bool {
        self.code == ErrorCode::InvalidJson && self.message.is_empty()
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

/// [`Unexpected`]'s own wording, except that a float is not printed: that
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
    #[inline(never)]
    pub(super) fn duplicate_key(key: &str) -> Self {
        Self::new(ErrorCode::DuplicateField, format!("duplicate field {}", quoted_short(key)))
    }
}
