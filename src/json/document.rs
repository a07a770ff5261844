//! The strict JSON document: objects in document order (a repeated key is
//! kept, for the reader to report), strings and keys borrowed from the text
//! where they have no escapes.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};

/// A parsed JSON value with objects kept in document order; its strings and
/// keys borrow from the text `'de` where they have no escapes.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'de> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(serde_json::Number),
    /// A string.
    String(Cow<'de, str>),
    /// An array.
    Array(Vec<Json<'de>>),
    /// An object's members in document order, a repeated key kept.
    Object(Vec<(Cow<'de, str>, Json<'de>)>),
}

impl<'de> de::Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json<'de>, E> {
        // serde_json's parser refuses a number beyond f64's range itself
        // (`number out of range`), so `v` is finite and `from_f64` succeeds.
        // Not an error here: any serde_json error constructor links its
        // message parsing (some 4 KB of string searching) for this case.
        Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        // Repeated keys are kept: `StrictValue` reports them with their path.
        let mut fields = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            fields.push((key, map.next_value()?));
        }
        Ok(Json::Object(fields))
    }
}

/// Any JSON value read as a [`Json`] is (the same calls to the deserializer,
/// so the same errors, in the same words), and kept nowhere: a text's
/// syntax checked in memory that does not grow with the text.
pub(super) struct Unkept;

impl<'de> de::Deserialize<'de> for Unkept {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UnkeptVisitor)
    }
}

struct UnkeptVisitor;

impl<'de> Visitor<'de> for UnkeptVisitor {
    type Value = Unkept;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unkept, E> {
        Ok(Unkept)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Unkept, A::Error> {
        while seq.next_element::<Unkept>()?.is_some() {}
        Ok(Unkept)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Unkept, A::Error> {
        // Keys as `Json::Object`'s are read (`KeySeed`, a string each).
        while map.next_key_seed(KeySeed)?.is_some() {
            map.next_value::<Unkept>()?;
        }
        Ok(Unkept)
    }
}

/// Reads an object key, borrowed from the text where it has no escapes
/// (serde's own `Cow<str>` always copies).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
}

/// Writes the document back, objects in document order.
impl serde::Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl Json<'_> {
    pub(super) fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Json::Null => Unexpected::Unit,
            Json::Bool(b) => Unexpected::Bool(*b),
            Json::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Unexpected::Unsigned(u),
                (_, Some(i)) => Unexpected::Signed(i),
                _ => Unexpected::Other(number_kind(n.as_f64().unwrap_or_default())),
            },
            Json::String(s) => Unexpected::Str(s),
            Json::Array(_) => Unexpected::Seq,
            Json::Object(_) => Unexpected::Map,
        }
    }
}

/// What a number that is neither a u64 nor an i64 is, in words (without
/// float formatting, which the binaries leave out).
pub(super) fn number_kind(value: f64) -> &'static str {
    if value == 0.0 && value.is_sign_negative() {
        "the number -0"
    } else if value.abs() >= 9_223_372_036_854_775_808.0 {
        "a number beyond 64 bits"
    } else if value.fract() == 0.0 {
        "a whole number written with a fraction or an exponent"
    } else {
        "a fractional number"
    }
}
