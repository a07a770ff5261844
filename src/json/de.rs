//! The strict reader: reads a typed value straight from JSON text, in one
//! pass, every error located at the path of the value that caused it.
//!
//! serde's derived structs also accept a JSON array (fields by position), and
//! a map field (`limits`) would keep the last of two equal keys; the SPEC allows
//! neither. So [`TextValue`] hands structs only to objects, reports a repeated
//! key in any object (serde's derive already refuses one in a struct, but only
//! this reader says so with a path), and tracks the path of every value so that
//! each error says where it is.
//!
//! It reads JSON's grammar itself only where the text is plain (structure,
//! literals, strings without escapes, unsigned integers); a string with an
//! escape and any other number are read by serde_json, from the token's own
//! text. It stops at the first thing it does not take. What it says then is
//! decided by [`super::failure`]: a text that is not JSON anywhere (serde_json
//! reads the whole document again, on that path only) is said to be so,
//! in serde_json's words, before any error of a value, as when the document
//! was read first.

use std::borrow::Cow;

use serde::de::value::{StrDeserializer, U64Deserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, Unexpected, VariantAccess,
    Visitor,
};

use super::document::Json;
use super::document_text as document;
use super::error::Error;
use super::path::Where;
use super::visit::{deserialize_numbers, field_index, out_of_range, plain_string, variant_without_value, visit_number};
use crate::error::{ErrorCode, first_repeat};

/// serde_json's nesting limit: the 128th array or object open at once is
/// refused (`recursion limit exceeded`), so this reader refuses it too.
const DEEPEST: u32 = 127;

/// The text and the reader's place in it. Every method that meets what it
/// does not take returns [`Error::syntax()`]; [`super::failure`] then has
/// serde_json say what is wrong, so no sentence about syntax is made here.
pub(super) struct Reader<'de> {
    text: &'de str,
    pos: usize,
    /// Arrays and objects open at `pos`.
    depth: u32,
}

impl<'de> Reader<'de> {
    pub(super) fn new(text: &'de str) -> Self {
        Self { text, pos: 0, depth: 0 }
    }

    /// Nothing but whitespace left, or what [`super::failure`] says of the text.
    #[inline(never)]
    pub(super) fn end(&mut self) -> crate::error::Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(super::failure(self.text, None)),
        }
    }

    // `peek`, `expect`, `next_item`, `next_key` and `Fields::advance` are
    // inlined into their few callers: at opt-level "z" each stayed a call,
    // made for every key of every capsule, and a call costs more in wasm
    // than natively. Inlined, a plan of 10,000 capsules runs 23 % fewer
    // instructions under wasmtime (callgrind, BENCHMARKS.md).
    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&byte) = bytes.get(self.pos) {
            if !matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(byte);
            }
            self.pos += 1;
        }
        None
    }

    /// Consumes `byte` (after whitespace) or fails.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Result<(), Error> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Error::syntax())
        }
    }

    /// Consumes `word` (`true`, `false`, `null`), which starts at `pos`.
    #[inline(never)]
    fn literal(&mut self, word: &str) -> Result<(), Error> {
        if self.text.as_bytes().get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Error::syntax())
        }
    }

    /// Opens an array or object (its first byte at `pos`), within the depth.
    #[inline(never)]
    fn open(&mut self) -> Result<(), Error> {
        if self.depth == DEEPEST {
            return Err(Error::syntax());
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// The string at `pos` (its opening quote), borrowed from the text when
    /// it has no escape; with one, serde_json reads the string's own text.
    #[inline(never)]
    fn string(&mut self) -> Result<Cow<'de, str>, Error> {
        let bytes = self.text.as_bytes();
        let start = self.pos + 1;
        let mut end = start + plain_run(bytes.get(start..).unwrap_or_default());
        let mut escaped = false;
        loop {
            match bytes.get(end) {
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    end += 2;
                }
                Some(0..=0x1f) | None => return Err(Error::syntax()),
                Some(_) => end += 1,
            }
        }
        self.pos = end + 1;
        if !escaped {
            // `get(start..)`, then `get(..length)`: under wasmtime each call
            // takes four arguments, where `get(start..end)` takes five, and
            // Cranelift passes the fifth on the stack, stored as 4 bytes and
            // read back as 8, a load the store cannot be forwarded to. That
            // one call was 0.8 ms of a 10,000 capsules' plan under wasmtime
            // against 0.07 ms natively; split, the plan runs 7 % faster
            // there (BENCHMARKS.md). `end` never falls below `start` (it only
            // moves on from it).
            let length = end - start;
            return self
                .text
                .get(start..)
                .and_then(|rest| rest.get(..length))
                .map(Cow::Borrowed)
                .ok_or_else(Error::syntax);
        }
        match self.text.get(start - 1..end + 1).map(document) {
            Some(Ok(Json::String(text))) => Ok(text),
            _ => Err(Error::syntax()),
        }
    }

    /// The number at `pos` (a digit or `-`), read by serde_json from its
    /// token: the bytes a number can hold (after a number, JSON allows none
    /// of them). serde_json judges its grammar (`01`, `1.`, `-`, `1e999`
    /// are not numbers); a request holds few numbers (its limits).
    #[inline(never)]
    fn number(&mut self) -> Result<serde_json::Number, Error> {
        let start = self.pos;
        let rest = self.text.as_bytes().get(start..).unwrap_or_default();
        self.pos += rest.iter().take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')).count();
        match self.text.get(start..self.pos).map(document) {
            Some(Ok(Json::Number(number))) => Ok(number),
            _ => Err(Error::syntax()),
        }
    }

    /// Moves to a container's next item (`true`) or past its end, `close`
    /// (`false`); `started`: whether an item came before (then a comma).
    /// (Called again after the end, it would read on: no visitor does.)
    #[inline(always)]
    fn next_item(&mut self, close: u8, started: &mut bool) -> Result<bool, Error> {
        if self.peek() == Some(close) {
            self.pos += 1;
            self.depth = self.depth.saturating_sub(1);
            return Ok(false);
        }
        if *started {
            self.expect(b',')?;
        }
        *started = true;
        Ok(true)
    }

    /// An object's next key and its colon, or `None` past its end.
    #[inline(always)]
    fn next_key(&mut self, started: &mut bool) -> Result<Option<Cow<'de, str>>, Error> {
        if !self.next_item(b'}', started)? {
            return Ok(None);
        }
        if self.peek() != Some(b'"') {
            return Err(Error::syntax());
        }
        let key = self.string()?;
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// Moves past the value at `pos` without reading it: only on the way to
    /// an error, which [`super::failure`] has serde_json check the text before.
    #[inline(never)]
    fn skip_unread(&mut self) {
        let bytes = self.text.as_bytes();
        let mut depth = 0usize;
        while let Some(&byte) = bytes.get(self.pos) {
            self.pos += 1;
            match byte {
                b'"' => {
                    while let Some(&byte) = bytes.get(self.pos) {
                        self.pos += 1 + usize::from(byte == b'\\');
                        if byte == b'"' {
                            break;
                        }
                    }
                }
                b'[' | b'{' => depth += 1,
                b']' | b'}' | b',' if depth == 0 => {
                    self.pos -= 1;
                    return;
                }
                b']' | b'}' => depth -= 1,
                _ => {}
            }
        }
    }

    /// How many items a container has from `pos` (inside one) to its end:
    /// each is moved past unread, only counted (a list or map over its
    /// limit), up to the first that no comma follows. Syntax is not judged:
    /// an error is on its way, and [`super::failure`] has serde_json check the
    /// text first, so in a text that is JSON that item is the last (what
    /// follows it closes the container), and any other text is said not to
    /// be JSON whatever the count. (cargo-mutants found the check of the
    /// closing bracket that was here unobservable.)
    #[inline(never)]
    fn items_left(&mut self) -> usize {
        let mut count = 0;
        loop {
            self.skip_unread();
            count += 1;
            if self.peek() != Some(b',') {
                return count;
            }
            self.pos += 1;
        }
    }

    /// What the value at `pos` is, in serde's words, for a wrong type; the
    /// value is read only as far as that takes (a string, a number).
    #[inline(never)]
    fn wrong_type(&mut self, expected: &dyn de::Expected) -> Error {
        let string;
        let number;
        let unexpected = match self.peek() {
            Some(b'n') => Unexpected::Unit,
            Some(b't') => Unexpected::Bool(true),
            Some(b'f') => Unexpected::Bool(false),
            Some(b'[') => Unexpected::Seq,
            Some(b'{') => Unexpected::Map,
            Some(b'"') => match self.string() {
                Ok(text) => {
                    string = text;
                    Unexpected::Str(&string)
                }
                Err(error) => return error,
            },
            Some(b'-' | b'0'..=b'9') => match self.number() {
                Ok(value) => {
                    number = Json::Number(value);
                    number.unexpected()
                }
                Err(error) => return error,
            },
            _ => return Error::syntax(),
        };
        de::Error::invalid_type(unexpected, expected)
    }
}

/// How many bytes `bytes` starts with that are none of `"`, `\\` and the
/// control characters: a string's plain run, found 8 bytes at a time (as
/// serde_json's own reader does) and then by byte. Exact: in each 8-byte
/// word, the lowest byte flagged is the first such byte (a borrow runs only
/// upward, from a flagged byte).
fn plain_run(bytes: &[u8]) -> usize {
    let mut run = 0;
    while let Some(chunk) = bytes.get(run..run + 8) {
        let flagged = super::escape_flags(u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or_default()));
        if flagged != 0 {
            return run + (flagged.trailing_zeros() / 8) as usize;
        }
        run += 8;
    }
    run + bytes.get(run..).unwrap_or_default().iter().take_while(|&&b| b != b'"' && b != b'\\' && b >= 0x20).count()
}

/// Deserializes a typed value from the text at the reader's place, structs
/// only from objects; every error it lets through carries the path of the
/// value that caused it (or is the syntax marker, located by no one).
pub(super) struct TextValue<'r, 'a, 'de> {
    pub(super) reader: &'r mut Reader<'de>,
    pub(super) at: Where<'a>,
}

// Each kind a visitor asks for by name (struct, seq, map, string, bool,
// option, enum) is unwrapped by a non-generic `#[inline(never)]` method here,
// so that the copy of the generic method made for every visitor type is only
// the visitor call; `deserialize_any` (numbers, and whatever a visitor leaves
// open) is the one that dispatches on every kind. A value of another kind is
// the `invalid_type` error that the visitor's default methods would give.
impl<'de> TextValue<'_, '_, 'de> {
    /// The error for a value of a kind `expected` does not take, located here.
    #[inline(never)]
    fn wrong_type(&mut self, expected: &dyn de::Expected) -> Error {
        // (A syntax mark located here stays one: `super::failure` reads no place of it.)
        self.at.locate(self.reader.wrong_type(expected))
    }

    /// Opens the container that starts with `open`, or the wrong type.
    #[inline(never)]
    fn open(&mut self, open: u8, expected: &dyn de::Expected) -> Result<(), Error> {
        if self.reader.peek() == Some(open) { self.reader.open() } else { Err(self.wrong_type(expected)) }
    }

    #[inline(never)]
    fn read_string(&mut self, expected: &dyn de::Expected) -> Result<Cow<'de, str>, Error> {
        if self.reader.peek() == Some(b'"') { self.reader.string() } else { Err(self.wrong_type(expected)) }
    }

    #[inline(never)]
    fn read_bool(&mut self, expected: &dyn de::Expected) -> Result<bool, Error> {
        let word = match self.reader.peek() {
            Some(b't') => "true",
            Some(b'f') => "false",
            _ => return Err(self.wrong_type(expected)),
        };
        self.reader.literal(word).map(|()| word.len() == 4)
    }

    #[inline(never)]
    fn read_number(&mut self, expected: &dyn de::Expected) -> Result<serde_json::Number, Error> {
        match self.reader.peek() {
            Some(b'-' | b'0'..=b'9') => self.reader.number(),
            _ => Err(self.wrong_type(expected)),
        }
    }

    /// Reads a number for a number's visitor: its copy then holds no array
    /// or object reading, which `deserialize_any` would give it.
    fn deserialize_number<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let number = self.read_number(&visitor)?;
        visit_number(&number, visitor).map_err(|e| at.locate(out_of_range(e)))
    }

    /// An optional field is either absent or a value: `null` is a wrong type,
    /// not a way to say "absent".
    #[inline(never)]
    fn reject_null(&mut self) -> Result<(), Error> {
        match self.reader.peek() {
            Some(b'n') => Err(self.at.locate(Error::new(
                ErrorCode::WrongType,
                "null is not accepted: leave the field out instead".to_string(),
            ))),
            _ => Ok(()),
        }
    }

    /// A plain string names a unit variant; an object with one key, a variant
    /// with a value (then the reader is at the value, the object open).
    #[inline(never)]
    fn read_variant(&mut self, expected: &dyn de::Expected) -> Result<(Cow<'de, str>, bool), Error> {
        match self.reader.peek() {
            Some(b'"') => return self.reader.string().map(|name| (name, false)),
            Some(b'{') => {}
            _ => return Err(self.wrong_type(expected)),
        }
        // Its keys, values unread: one key is the variant (the reader is
        // put back at its value, the object open again); `{"only": …,
        // "only": …}` is the repeated key, no key or more than one the shape.
        self.reader.open()?;
        let mut fields = Fields::uncounted(&mut *self.reader, self.at);
        let mut value = 0;
        while fields.advance_map()?.is_some() {
            value = fields.reader.pos;
            fields.reader.skip_unread();
        }
        if fields.keys.len() == 1 {
            let name = std::mem::take(&mut fields.key);
            self.reader.pos = value;
            self.reader.depth += 1;
            return Ok((name, true));
        }
        Err(self.at.locate(de::Error::invalid_type(Unexpected::Map, expected)))
    }

    /// Closes a one-key object read as a variant with a value.
    #[inline(never)]
    fn close_variant(&mut self) -> Result<(), Error> {
        self.reader.expect(b'}')?;
        self.reader.depth = self.reader.depth.saturating_sub(1);
        Ok(())
    }
}

impl<'de> Deserializer<'de> for TextValue<'_, '_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let result = match self.reader.peek() {
            Some(b'n') => self.reader.literal("null").and_then(|()| visitor.visit_unit()),
            Some(b't' | b'f') => {
                let b = self.read_bool(&visitor)?;
                visitor.visit_bool(b)
            }
            Some(b'-' | b'0'..=b'9') => {
                let number = self.reader.number()?;
                visit_number(&number, visitor)
            }
            Some(b'"') => {
                let text = self.reader.string()?;
                visitor.visit_str(&text)
            }
            Some(b'[') => {
                self.reader.open()?;
                visitor.visit_seq(&mut Items::new(self.reader, at))
            }
            Some(b'{') => {
                self.reader.open()?;
                visitor.visit_map(&mut Fields::new(self.reader, at))
            }
            _ => Err(Error::syntax()),
        };
        result.map_err(|e| at.locate(e))
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        self.reject_null()?;
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        self.open(b'{', &visitor)?;
        let mut fields = StructFields { fields: Fields::uncounted(self.reader, at), names };
        visitor.visit_map(&mut fields).map_err(|e| at.locate(e))
    }

    fn deserialize_map<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        self.open(b'{', &visitor)?;
        let mut fields = Fields::new(self.reader, at);
        visitor.visit_map(&mut fields).map_err(|e| at.locate(e))
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        self.open(b'[', &visitor)?;
        let mut items = Items::new(self.reader, at);
        visitor.visit_seq(&mut items).map_err(|e| at.locate(e))
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let text = self.read_string(&visitor)?;
        visitor.visit_str(&text).map_err(|e| at.locate(e))
    }

    fn deserialize_string<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let text = self.read_string(&visitor)?;
        visitor.visit_string(text.into_owned()).map_err(|e| at.locate(e))
    }

    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        let b = self.read_bool(&visitor)?;
        visitor.visit_bool(b).map_err(|e| at.locate(e))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        let (name, has_value) = self.read_variant(&visitor)?;
        let value =
            visitor.visit_enum(Variant { name, has_value, reader: &mut *self.reader, at }).map_err(|e| at.locate(e))?;
        if has_value {
            self.close_variant()?;
        }
        Ok(value)
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

struct Items<'r, 'a, 'de> {
    reader: &'r mut Reader<'de>,
    started: bool,
    at: Where<'a>,
    index: usize,
    /// The count limit of this list (its name, its value), if one bounds it.
    limit: Option<(&'static str, usize)>,
}

impl<'r, 'a, 'de> Items<'r, 'a, 'de> {
    fn new(reader: &'r mut Reader<'de>, at: Where<'a>) -> Self {
        Self { reader, started: false, limit: at.count_limit(), at, index: 0 }
    }

    /// The next item, located at its index (out of line: the copy of
    /// `next_element_seed` made for every element type is only the call);
    /// the one past the list's limit is the limit's error, the rest counted.
    #[inline(never)]
    fn next_item(&mut self) -> Result<Option<TextValue<'_, '_, 'de>>, Error> {
        if !self.reader.next_item(b']', &mut self.started)? {
            return Ok(None);
        }
        let index = self.index;
        if let Some((name, limit)) = self.limit
            && index == limit
        {
            let count = limit + self.reader.items_left();
            return Err(self.at.count_exceeded(name, count, limit));
        }
        self.index += 1;
        let at = Where::index(&self.at, index);
        Ok(Some(TextValue { reader: &mut *self.reader, at }))
    }
}

impl<'de> SeqAccess<'de> for &mut Items<'_, '_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.next_item()? {
            Some(item) => seed.deserialize(item).map(Some),
            None => Ok(None),
        }
    }
}

struct Fields<'r, 'a, 'de> {
    reader: &'r mut Reader<'de>,
    started: bool,
    at: Where<'a>,
    /// The current key (kept until the next one: its value's path borrows it).
    key: Cow<'de, str>,
    /// A map's keys so far, the current one last (a struct's stay
    /// uncounted: serde's derive refuses a repeated field itself, in the
    /// words `repeat` uses).
    keys: Vec<Cow<'de, str>>,
    /// The count limit of this map (its name, its value), if one bounds it.
    limit: Option<(&'static str, usize)>,
}

// The non-generic steps of `MapAccess` live in these `#[inline(never)]`
// methods: the derived `visit_map` of every struct inlines the generic ones.
impl<'r, 'a, 'de> Fields<'r, 'a, 'de> {
    fn new(reader: &'r mut Reader<'de>, at: Where<'a>) -> Self {
        Self { limit: at.count_limit(), ..Self::uncounted(reader, at) }
    }

    /// The fields of an object no count limit bounds: a struct's (the
    /// limits count lists and maps: a [`COUNTED`](crate::limits::COUNTED) row naming a struct would
    /// fail the test that holds every row to [`Limits::check_request`](crate::Limits::check_request)), or a
    /// variant's one key. Not looked up: every capsule is one.
    fn uncounted(reader: &'r mut Reader<'de>, at: Where<'a>) -> Self {
        Self { reader, started: false, limit: None, at, key: Cow::Borrowed(""), keys: Vec::new() }
    }

    /// Moves to the next key, in `self.key`; `None` at the end.
    #[inline(always)]
    fn advance(&mut self) -> Result<Option<&str>, Error> {
        let Some(key) = self.reader.next_key(&mut self.started)? else { return Ok(None) };
        self.key = key;
        Ok(Some(&self.key))
    }

    /// Moves to the next key of a map, kept in `keys`; at the end, the
    /// error of a key that repeats an earlier one, if one does. The key past
    /// the map's limit is the limit's error (the rest counted), unless a
    /// repeat came first.
    #[inline(never)]
    fn advance_map(&mut self) -> Result<Option<&str>, Error> {
        if self.advance()?.is_none() {
            return self.repeat().map_or(Ok(None), Err);
        }
        self.keys.push(self.key.clone());
        if let Some((name, limit)) = self.limit
            && self.keys.len() > limit
        {
            let count = limit + self.reader.items_left();
            return Err(self.map_error(self.at.count_exceeded(name, count, limit)));
        }
        Ok(Some(&self.key))
    }

    /// The error of the first of the map's keys so far that repeats an
    /// earlier one: the error serde's derive gives a repeated struct field,
    /// so every object says it alike. Found by sorting (a hostile map of
    /// many keys costs n log n, not n²); asked at the map's end and on an
    /// error in it, since a repeat said first where the keys were read
    /// before the error was.
    #[inline(never)]
    fn repeat(&self) -> Option<Error> {
        let keys: Vec<&str> = self.keys.iter().map(|key| key.as_ref()).collect();
        let key = *keys.get(first_repeat(&keys)?)?;
        Some(Where::key(&self.at, key).locate(Error::duplicate_key(key)))
    }

    /// `error`, met in the map, unless a repeated key came before it.
    #[inline(never)]
    fn map_error(&self, error: Error) -> Error {
        self.repeat().unwrap_or(error)
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

    /// The current key's value, located at its key.
    #[inline(never)]
    fn value(&mut self) -> TextValue<'_, '_, 'de> {
        TextValue { reader: &mut *self.reader, at: Where::key(&self.at, &self.key) }
    }
}

impl<'de> MapAccess<'de> for &mut Fields<'_, '_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(key) = self.advance_map()? else { return Ok(None) };
        let name: StrDeserializer<'_, Error> = key.into_deserializer();
        // An unknown field is reported by the key's seed: locate it at the key.
        match seed.deserialize(name) {
            Ok(parsed) => Ok(Some(parsed)),
            Err(error) => Err(self.map_error(self.locate_key(error))),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(self.value()).map_err(|error| self.map_error(error))
    }
}

/// A struct's fields: each key is looked up in the struct's field names here,
/// once for every struct, and handed to the derived code as its index. The
/// derived field visitors then match a number, not a string: their own
/// string matching is never compiled (some KB of wasm). An unknown key is the
/// error the derive's `deny_unknown_fields` gives, with the same names.
struct StructFields<'r, 'a, 'de> {
    fields: Fields<'r, 'a, 'de>,
    names: &'static [&'static str],
}

impl StructFields<'_, '_, '_> {
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

impl<'de> MapAccess<'de> for &mut StructFields<'_, '_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(index) = self.next_index()? else { return Ok(None) };
        let index: U64Deserializer<Error> = index.into_deserializer();
        seed.deserialize(index).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(self.fields.value())
    }
}

struct Variant<'r, 'a, 'de> {
    name: Cow<'de, str>,
    /// Whether the variant came as a one-key object, its value at the reader's place.
    has_value: bool,
    reader: &'r mut Reader<'de>,
    /// The place of the enum's value (`config.backend`).
    at: Where<'a>,
}

impl<'r, 'a, 'de> EnumAccess<'de> for Variant<'r, 'a, 'de> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name: StrDeserializer<'_, Error> = self.name.as_ref().into_deserializer();
        let variant = seed.deserialize(name)?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, '_, 'de> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        if !self.has_value {
            return Ok(());
        }
        // The variant's value stands at the variant's name in the enum's
        // value (`config.backend.prefer`).
        let expected = plain_string(&self.name);
        Err(Where::key(&self.at, &self.name).locate(self.reader.wrong_type(&expected.as_str())))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let at = Where::key(&self.at, &self.name);
        if self.has_value {
            return seed.deserialize(TextValue { reader: self.reader, at });
        }
        Err(at.locate(variant_without_value(&self.name)))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(Unexpected::TupleVariant, &visitor))
    }
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::invalid_type(Unexpected::StructVariant, &visitor))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde::de::IgnoredAny;

    use super::{DEEPEST, Reader, TextValue, plain_run};
    use crate::json::path::Where;

    /// The nesting limit counts a variant's one-key object as open while
    /// its value is read, and closed after it, as serde_json does: the
    /// deepest nesting allowed after a variant is the deepest allowed
    /// without one. Read here without `super::failure`, which has serde_json
    /// judge the text first on any error and so hides the reader's own count.
    #[test]
    fn a_variant_s_object_counts_once_toward_the_nesting_limit() {
        // Read only to be deserialized: their values are not looked at.
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[allow(dead_code)]
        enum Choice {
            Prefer(String),
        }
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Shape {
            choice: Option<Choice>,
            deep: IgnoredAny,
        }
        let read = |variant: bool, levels: usize| {
            let choice = if variant { r#""choice":{"prefer":"x"},"# } else { "" };
            let text = format!("{{{choice}\"deep\":{}{}}}", "[".repeat(levels), "]".repeat(levels));
            let mut reader = Reader::new(&text);
            let read = Shape::deserialize(TextValue { reader: &mut reader, at: Where::ROOT }).map(|_| reader.depth);
            read.map_err(|error| error.is_syntax())
        };
        // The outer object is one level: `levels` arrays inside it reach
        // `levels + 1`; the reader refuses the 128th (`DEEPEST + 1`).
        let deepest = DEEPEST as usize - 1;
        for variant in [false, true] {
            assert_eq!(read(variant, deepest), Ok(0), "variant: {variant}");
            assert_eq!(read(variant, deepest + 1), Err(true), "variant: {variant}");
        }
    }

    /// 8 bytes at a time finds what a byte loop finds: every byte value at
    /// every place of a 17-byte run, and after another special byte.
    #[test]
    fn a_plain_run_ends_where_a_byte_loop_ends() {
        let by_byte = |bytes: &[u8]| bytes.iter().take_while(|&&b| b != b'"' && b != b'\\' && b >= 0x20).count();
        for place in 0..17 {
            for byte in 0..=255u8 {
                let mut bytes = [b'a'; 17];
                bytes[place] = byte;
                assert_eq!(plain_run(&bytes), by_byte(&bytes), "{byte:#x} at {place}");
                if place + 1 < bytes.len() {
                    bytes[place + 1] = 0;
                    assert_eq!(plain_run(&bytes), by_byte(&bytes), "{byte:#x} at {place}, then 0");
                }
            }
        }
    }
}
