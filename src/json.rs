//! Strict JSON in, deterministic JSON out. Every JSON form enters through
//! `from_json`, which turns serde's failures into `Error`s with a code and a
//! path such as `capsules[3].trustLevel`.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorCode, Result, join_path};
use crate::strict::{Json, StrictValue};

/// Parses `text` as a `T`, rejecting unknown fields, wrong types, missing
/// required fields, duplicate fields, bad spellings and trailing text.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let document: Json = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|error| classify(error.inner(), render_path(error.path())))?;
    deserializer.end().map_err(|error| classify(&error, String::new()))?;
    serde_path_to_error::deserialize(StrictValue(document))
        .map_err(|error| classify(error.inner(), render_path(error.path())))
}

/// Compact JSON (one line, no trailing newline).
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing our own types to a String cannot fail: no map has non-string
    // keys and no Serialize impl returns an error.
    serde_json::to_string(value).unwrap_or_default()
}

/// Pretty JSON, two-space indent (no trailing newline).
pub fn to_json_pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn render_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => out = join_path(&out, key),
            Segment::Enum { variant } => out = join_path(&out, variant),
            Segment::Unknown => out = join_path(&out, "?"),
        }
    }
    out
}

/// The names between backticks in a serde message, in order.
fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// serde_json appends ` at line L column C`; keep the sentence.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    }
}

fn classify(error: &serde_json::Error, path: String) -> Error {
    use serde_json::error::Category;
    let full = error.to_string();
    if matches!(error.classify(), Category::Syntax | Category::Eof | Category::Io) {
        let message = format!("not valid JSON: {full}");
        return Error::new(ErrorCode::InvalidJson, "", message);
    }
    let message = strip_position(&full).to_string();
    let names = backticked(&message);
    let first = names.first().cloned().unwrap_or_default();
    let field_error = |code| Error::new(code, join_path(&path, &first), message.clone());
    if message.starts_with("unknown field") {
        // serde_path_to_error already ends the path with the unknown key.
        let mut error = Error::new(ErrorCode::UnknownField, path, message.clone());
        error.expected = names[1..].to_vec();
        error
    } else if message.starts_with("missing field") {
        field_error(ErrorCode::MissingField)
    } else if message.starts_with("duplicate field") {
        field_error(ErrorCode::DuplicateField)
    } else if message.starts_with("unknown variant") {
        let expected = names.get(1..).map(<[String]>::to_vec).unwrap_or_default();
        let message = format!("unknown spelling `{first}`, expected one of: {}", expected.join(", "));
        Error { code: ErrorCode::UnknownVariant, path, message, expected }
    } else if message.starts_with("invalid type") {
        Error::new(ErrorCode::WrongType, path, message)
    } else {
        Error::new(ErrorCode::InvalidValue, path, message)
    }
}
