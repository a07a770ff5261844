//! What the strict reader ([`de`]) hands serde's visitors: a number, a struct's field by its index, and the
//! errors of a variant given the wrong shape.

use serde::de::{self, Unexpected, Visitor};

use super::error::Error;
use crate::error::ErrorCode;

/// Hands a number to a visitor: as an unsigned integer when it is one, else
/// a signed one, else a float.
pub(super) fn visit_number<'de, V: Visitor<'de>>(number: &serde_json::Number, visitor: V) -> Result<V::Value, Error> {
    match (number.as_u64(), number.as_i64()) {
        (Some(u), _) => visitor.visit_u64(u),
        (_, Some(i)) => visitor.visit_i64(i),
        _ => visitor.visit_f64(number.as_f64().unwrap_or_default()),
    }
}

/// A number where a number is expected is never a wrong type: `-1`, `-0`,
/// `1e2` and 2⁶⁴ for a count are all values out of its range.
#[inline(never)]
pub(super) fn out_of_range(mut error: Error) -> Error {
    if error.code == ErrorCode::WrongType {
        error.code = ErrorCode::InvalidValue;
    }
    error
}

/// `deserialize_i8`, ... `deserialize_f64`: each by the reader's own
/// `deserialize_number`.
macro_rules! deserialize_numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.deserialize_number(visitor)
        }
    )*};
}
pub(super) use deserialize_numbers;

/// `key`'s index among a struct's field `names`, or the error the derive's
/// `deny_unknown_fields` gives, with the same names (not yet located).
#[inline]
pub(super) fn field_index(names: &'static [&'static str], key: &str) -> Result<u64, Error> {
    // Lengths first: the comparison is a call.
    match names.iter().position(|name| name.len() == key.len() && crate::spelling::same_name(name, key)) {
        Some(index) => Ok(index as u64),
        None => Err(de::Error::unknown_field(key, names)),
    }
}

/// What a unit variant named `name` takes: the plain string, not an object.
pub(super) fn plain_string(name: &str) -> String {
    format!("the plain string \"{name}\"")
}

/// A variant that takes a value, named as a plain string (not yet located).
pub(super) fn variant_without_value(name: &str) -> Error {
    de::Error::invalid_type(
        Unexpected::Str(name),
        &format!("an object with a value, such as {{\"{name}\": ...}}").as_str(),
    )
}
