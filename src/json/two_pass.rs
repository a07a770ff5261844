//! The earlier strict deserializer (the size-bound modules' `from_json`, with
//! `two-pass-reader`; in tests, the reference `de` is held to): reads a typed
//! value from a `Json` document that serde_json read first.
//!
//! serde's derived structs also accept a JSON array (fields by position), and
//! a map field (`limits`) would keep the last of two equal keys; the SPEC allows
//! neither. So `StrictValue` hands structs only to objects, reports a repeated
//! key in any object (serde's derive already refuses one in a struct, but only
//! this reader says so with a path), and tracks the path of every value so that
//! each error says where it is.

use std::borrow::Cow;

use serde::de::value::{StrDeserializer, U64Deserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, Unexpected, VariantAccess,
    Visitor,
};

use super::document::Json;
use super::error::Error;
use super::path::Where;
use super::visit::{deserialize_numbers, field_index, out_of_range, plain_string, variant_without_value, visit_number};
use crate::error::{ErrorCode, first_repeat};
use crate::limits::Limits;

/// The index of the first key, in document order, that repeats an earlier one.
/// serde's derive refuses a repeated struct field by itself; this pre-scan is
/// what catches one in a map field (`limits`), which would keep the last.
fn first_repeated(fields: &[(Cow<'_, str>, Json<'_>)]) -> Option<usize> {
    first_repeat(&fields.iter().map(|(key, _)| key.as_ref()).collect::<Vec<_>>())
}

/// Deserializes typed values from a `Json`, structs only from objects; every
/// error it lets through carries the path of the value that caused it.
pub struct StrictValue<'a, 'de> {
    json: Json<'de>,
    at: Where<'a>,
}

/// Reads a `T` from a document; the error, if any, is located (at the top
/// level if no value did) and converted, out of line, for the caller: the
/// `T` is then moved once, not once per `Result` type.
pub(super) fn deserialize<T: de::DeserializeOwned>(document: StrictValue<'_, '_>) -> crate::error::Result<T> {
    T::deserialize(document).map_err(super::into_error)
}

// Each kind a visitor asks for by name (struct, seq, map, string, bool,
// option, enum) is unwrapped by a non-generic `#[inline(never)]` method here,
// so that the copy of the generic method made for every visitor type is only
// the visitor call; `deserialize_any` (numbers, and whatever a visitor leaves
// open) is the one that dispatches on every kind. A value of another kind is
// the `invalid_type` error that the visitor's default methods would give.
impl<'a, 'de> StrictValue<'a, 'de> {
    /// `text` read as a document (`super::parse_document`), at the root: its
    /// lists and maps counted against `limits`, if given (out of line: the
    /// copy of `deserialize` made for every form is only the calls).
    #[inline(never)]
    pub(super) fn document(text: &'de str, limits: Option<&'a Limits>) -> crate::error::Result<Self> {
        Ok(StrictValue { json: super::parse_document(text)?, at: super::root(limits) })
    }

    /// The error for a value of a kind `expected` does not take, located here.
    #[inline(never)]
    fn wrong_type(self, expected: &dyn de::Expected) -> Error {
        self.at.locate(de::Error::invalid_type(self.json.unexpected(), expected))
    }

    #[inline(never)]
    fn into_fields(self, expected: &dyn de::Expected) -> Result<Fields<'a, 'de>, Error> {
        match self.json {
            Json::Object(fields) => Ok(Fields::new(fields, self.at)),
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }

    #[inline(never)]
    fn into_items(self, expected: &dyn de::Expected) -> Result<Items<'a, 'de>, Error> {
        match self.json {
            Json::Array(items) => Ok(Items::new(items, self.at)),
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }

    #[inline(never)]
    fn into_string(self, expected: &dyn de::Expected) -> Result<Cow<'de, str>, Error> {
        match self.json {
            Json::String(text) => Ok(text),
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }

    #[inline(never)]
    fn into_bool(self, expected: &dyn de::Expected) -> Result<bool, Error> {
        match self.json {
            Json::Bool(b) => Ok(b),
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }

    #[inline(never)]
    fn into_number(self, expected: &dyn de::Expected) -> Result<serde_json::Number, Error> {
        match self.json {
            Json::Number(number) => Ok(number),
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }

    /// Reads a number for a number's visitor: its copy then holds no array
    /// or object reading, which `deserialize_any` would give it.
    fn deserialize_number<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let number = self.into_number(&visitor)?;
        visit_number(&number, visitor).map_err(|e| at.locate(out_of_range(e)))
    }

    /// An optional field is either absent or a value: `null` is a wrong type,
    /// not a way to say "absent".
    /// (By reference: returning `self` would copy it in every option's copy.)
    #[inline(never)]
    fn reject_null(&self) -> Result<(), Error> {
        match self.json {
            Json::Null => {
                Err(Error::new(ErrorCode::WrongType, "null is not accepted: leave the field out instead".to_string())
                    .at(&self.at.render()))
            }
            _ => Ok(()),
        }
    }

    /// A plain string names a unit variant; an object with one key, a variant
    /// with a value.
    #[inline(never)]
    fn into_variant(self, expected: &dyn de::Expected) -> Result<Variant<'a, 'de>, Error> {
        match self.json {
            Json::String(variant) => Ok(Variant { variant, value: None, at: self.at }),
            Json::Object(mut fields) if fields.len() == 1 => {
                let (variant, value) = fields.remove(0);
                Ok(Variant { variant, value: Some(value), at: self.at })
            }
            // `{"only": …, "only": …}`: the repeated key, not the shape.
            Json::Object(fields) if let Some(index) = first_repeated(&fields) => {
                let at = Where::key(&self.at, &fields[index].0);
                Err(Error::duplicate_key(&fields[index].0).at(&at.render()))
            }
            json => Err(StrictValue { json, ..self }.wrong_type(expected)),
        }
    }
}

impl<'de> Deserializer<'de> for StrictValue<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let result = match self.json {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(b),
            Json::Number(n) => visit_number(&n, visitor),
            Json::String(s) => visitor.visit_str(&s),
            Json::Array(items) => visitor.visit_seq(Items::new(items, at)),
            Json::Object(fields) => visitor.visit_map(Fields::new(fields, at)),
        };
        result.map_err(|e| at.locate(e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.reject_null()?;
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        let fields = self.into_fields(&visitor)?;
        visitor.visit_map(StructFields { fields, names }).map_err(|e| at.locate(e))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let fields = self.into_fields(&visitor)?;
        visitor.visit_map(fields).map_err(|e| at.locate(e))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let items = self.into_items(&visitor)?;
        visitor.visit_seq(items).map_err(|e| at.locate(e))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let text = self.into_string(&visitor)?;
        visitor.visit_str(&text).map_err(|e| at.locate(e))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let text = self.into_string(&visitor)?;
        visitor.visit_string(text.into_owned()).map_err(|e| at.locate(e))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let b = self.into_bool(&visitor)?;
        visitor.visit_bool(b).map_err(|e| at.locate(e))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        let variant = self.into_variant(&visitor)?;
        visitor.visit_enum(variant).map_err(|e| at.locate(e))
    }

    deserialize_numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct tuple tuple_struct identifier ignored_any
    }
}

struct Items<'a, 'de> {
    items: std::vec::IntoIter<Json<'de>>,
    at: Where<'a>,
    index: usize,
    /// A list longer than its count limit: the limit's name, the list's
    /// count and the limit.
    over: Option<(&'static str, usize, usize)>,
}

impl<'a, 'de> Items<'a, 'de> {
    fn new(items: Vec<Json<'de>>, at: Where<'a>) -> Self {
        let over = at.count_limit().filter(|&(_, limit)| items.len() > limit);
        let over = over.map(|(name, limit)| (name, items.len(), limit));
        Self { items: items.into_iter(), over, at, index: 0 }
    }

    /// The next item, located at its index (out of line: the copy of
    /// `next_element_seed` made for every element type is only the call);
    /// the one past the list's limit fails with the limit's error.
    #[inline(never)]
    fn next_item(&mut self) -> Option<StrictValue<'_, 'de>> {
        let index = self.index;
        let json = self.items.next()?;
        self.index += 1;
        if let Some(over) = &self.over
            && index == over.2
        {
            // The item past the limit is handed on as `null`, which no
            // counted list's items take, at a place that says its error as
            // the limit's (`Where::locate`): as `de` says it, and with no
            // error path in the generic code that reads items.
            return Some(StrictValue { json: Json::Null, at: Where::past_limit(&self.at, over) });
        }
        Some(StrictValue { json, at: Where::index(&self.at, index) })
    }
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.next_item() {
            Some(item) => seed.deserialize(item).map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Fields<'a, 'de> {
    fields: std::vec::IntoIter<(Cow<'de, str>, Json<'de>)>,
    at: Where<'a>,
    /// The current key (kept until the next one: its value's path borrows
    /// it) and, between `next_key_seed` and `next_value_seed`, its value.
    key: Cow<'de, str>,
    value: Option<Json<'de>>,
    /// Position of the next key, and of the first key that repeats an earlier one.
    index: usize,
    first_repeated: Option<usize>,
    /// The count limit of this map (its name, its value), if one bounds it.
    limit: Option<(&'static str, usize)>,
}

impl<'a, 'de> Fields<'a, 'de> {
    fn new(fields: Vec<(Cow<'de, str>, Json<'de>)>, at: Where<'a>) -> Self {
        let first_repeated = first_repeated(&fields);
        let limit = at.count_limit();
        Self { fields: fields.into_iter(), at, key: Cow::Borrowed(""), value: None, index: 0, first_repeated, limit }
    }
}

// The non-generic steps of `MapAccess` live in these `#[inline(never)]`
// methods: the derived `visit_map` of every struct inlines the generic ones.
impl<'de> Fields<'_, 'de> {
    /// Moves the next entry into `self.key` and `self.value`; `None` at the
    /// end, or the error of a repeated key. That is the error serde's derive
    /// gives a repeated struct field, so every object says it alike; checked
    /// here, before the key is read, so that `take_value` cannot fail.
    #[inline(never)]
    fn advance(&mut self) -> Result<Option<&str>, Error> {
        let Some((key, value)) = self.fields.next() else {
            self.value = None;
            return Ok(None);
        };
        self.key = key;
        self.value = Some(value);
        let index = self.index;
        self.index += 1;
        if self.first_repeated == Some(index) {
            return Err(Error::duplicate_key(&self.key).at(&self.key_at().render()));
        }
        // The key past the map's limit: the limit's error, as `de` says it.
        if let Some((name, limit)) = self.limit
            && index == limit
        {
            return Err(self.at.count_exceeded(name, index + 1 + self.fields.len(), limit));
        }
        Ok(Some(&self.key))
    }

    /// Locates an error of the current key (an unknown field) at the key.
    #[inline(never)]
    fn locate_key(&self, error: Error) -> Error {
        self.key_at().locate(error)
    }

    /// The place of the current key and its value.
    fn key_at(&self) -> Where<'_> {
        Where::key(&self.at, &self.key)
    }

    /// Takes the current value, located at its key.
    #[inline(never)]
    fn take_value(&mut self) -> StrictValue<'_, 'de> {
        let json = self.value.take().unwrap_or(Json::Null);
        StrictValue { json, at: self.key_at() }
    }
}

impl<'de> MapAccess<'de> for Fields<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(key) = self.advance()? else { return Ok(None) };
        let name: StrDeserializer<'_, Error> = key.into_deserializer();
        // An unknown field is reported by the key's seed: locate it at the key.
        match seed.deserialize(name) {
            Ok(parsed) => Ok(Some(parsed)),
            Err(error) => Err(self.locate_key(error)),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(self.take_value())
    }
}

/// A struct's fields: each key is looked up in the struct's field names here,
/// once for every struct, and handed to the derived code as its index. The
/// derived field visitors then match a number, not a string: their own
/// string matching is never compiled (some KB of wasm). An unknown key is the
/// error the derive's `deny_unknown_fields` gives, with the same names.
struct StructFields<'a, 'de> {
    fields: Fields<'a, 'de>,
    names: &'static [&'static str],
}

impl StructFields<'_, '_> {
    /// The next key's index among the struct's fields, `None` at the end.
    #[inline(never)]
    fn next_index(&mut self) -> Result<Option<u64>, Error> {
        let Some(key) = self.fields.advance()? else { return Ok(None) };
        match field_index(self.names, key) {
            Ok(index) => Ok(Some(index)),
            Err(error) => Err(self.fields.locate_key(error)),
        }
    }
}

impl<'de> MapAccess<'de> for StructFields<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(index) = self.next_index()? else { return Ok(None) };
        let index: U64Deserializer<Error> = index.into_deserializer();
        seed.deserialize(index).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(self.fields.take_value())
    }
}

struct Variant<'a, 'de> {
    variant: Cow<'de, str>,
    value: Option<Json<'de>>,
    /// The place of the enum's value (`config.backend`).
    at: Where<'a>,
}

impl<'a, 'de> EnumAccess<'de> for Variant<'a, 'de> {
    type Error = Error;
    type Variant = VariantValue<'a, 'de>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, VariantValue<'a, 'de>), Error> {
        let name: StrDeserializer<'_, Error> = self.variant.as_ref().into_deserializer();
        let variant = seed.deserialize(name)?;
        Ok((variant, VariantValue { name: self.variant, value: self.value, enum_at: self.at }))
    }
}

struct VariantValue<'a, 'de> {
    name: Cow<'de, str>,
    value: Option<Json<'de>>,
    /// The place of the enum's value; the variant's value stands at the
    /// variant's name in it (`config.backend.prefer`).
    enum_at: Where<'a>,
}

impl<'de> VariantAccess<'de> for VariantValue<'_, 'de> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        let at = Where::key(&self.enum_at, &self.name);
        match self.value {
            None => Ok(()),
            Some(value) => Err(de::Error::invalid_type(value.unexpected(), &plain_string(&self.name).as_str())),
        }
        .map_err(|e: Error| e.at(&at.render()))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let at = Where::key(&self.enum_at, &self.name);
        match self.value {
            Some(json) => seed.deserialize(StrictValue { json, at }),
            None => Err(at.locate(variant_without_value(&self.name))),
        }
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(Unexpected::TupleVariant, &visitor))
    }
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(Unexpected::StructVariant, &visitor))
    }
}
