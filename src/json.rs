//! Strict JSON in, deterministic JSON out. Every JSON form enters through
//! `from_json`, which turns serde's failures into `Error`s with a code and a
//! path such as `capsules[3].trustLevel`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result, join_path};
use crate::strict::{Json, StrictValue};

/// Parses `text` as a `T`, rejecting unknown fields, wrong types, missing
/// required fields, duplicate fields, bad spellings and trailing text.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let document = Json::deserialize(&mut deserializer)
        .and_then(|document| deserializer.end().map(|()| document))
        .map_err(|error| Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: {error}")))?;
    serde_path_to_error::deserialize(StrictValue(document)).map_err(|error| {
        let path = render_path(error.path());
        let error = error.into_inner();
        let path = match &error.field {
            Some(field) => join_path(&path, field),
            None => path,
        };
        Error { code: error.code, path, message: error.message, expected: error.expected }
    })
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
