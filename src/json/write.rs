//! The compact writer of `to_json` in the builds that read in one pass
//! (native, the command, the service, the benches): the text of
//! `serde_json::to_string`, byte for byte, written into a buffer of its own.
//!
//! Why a second writer: serde_json writes through its `io::Write` sink, a
//! call for every punctuation byte and every string. Natively LLVM inlines
//! those calls away; in wasm32 at opt-level "z" it leaves them as calls
//! (`Vec::reserve`, `append_elements`, and a `memory.copy` into the host
//! for every copy), and the answer's write was 1.8 times native under
//! wasmtime, half of a 100-capsule plan's time (BENCHMARKS.md).
//! Here the room is checked once a write (once for a struct's whole
//! `,"key":`, once for a quoted string), short copies are word moves, and a
//! string is tested for escapes eight bytes a time (under eight, as one
//! word).
//!
//! What it writes itself is what the crate's forms are made of: structs,
//! lists, maps with string keys, strings, integers, booleans and `null`.
//! A string that needs an escape and a float are written by
//! `serde_json::to_string` of that one value; a shape it does not write (a
//! map key that is not a string, bytes) makes `to_json` write the whole
//! value with serde_json instead (`Unwritten`). This module's tests hold it
//! to serde_json's text on every form's values (every vector's answer and
//! its mutations') and on generated ones (any JSON, any string, any float).
//!
//! The size-bound modules (`serde-json-writer`: the browser's and the WASI
//! command's) write with serde_json alone, which is smaller.

use std::fmt::{self, Display};

use serde::ser::{self, Serialize};

use super::escape_flags;

/// The compact JSON text of `value`, or `None` if it has a shape this writer
/// leaves to serde_json (`to_json` then writes it with serde_json).
pub(super) fn to_text<T: ?Sized + Serialize>(value: &T) -> Option<String> {
    let mut writer = Writer { room: vec![0; 128], len: 0 };
    value.serialize(&mut writer).ok()?;
    let mut text = writer.room;
    text.truncate(writer.len);
    // Never `None`: only whole `str`s and ASCII are put. The check is the
    // price of a core without `unsafe` (ARCHITECTURE.md).
    String::from_utf8(text).ok()
}

/// What this writer leaves to serde_json: a shape, never a failure (the
/// crate's values always serialize).
#[derive(Debug)]
pub(super) struct Unwritten;

impl Display for Unwritten {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a shape the compact writer leaves to serde_json")
    }
}

impl std::error::Error for Unwritten {}

impl ser::Error for Unwritten {
    fn custom<T: Display>(_message: T) -> Self {
        Unwritten
    }
}

/// The text so far: `room`'s first `len` bytes, each `str` put whole.
struct Writer {
    /// Zeros past `len`, written over: the room checked once a write, where
    /// `Vec::extend_from_slice` made two calls a write in wasm32
    /// (`append_elements`, `reserve`, which LLVM at opt-level "z" inlines
    /// natively but not there).
    room: Vec<u8>,
    len: usize,
}

impl Writer {
    /// Appends `text`: a whole `str`, or ASCII.
    #[inline(always)]
    fn put(&mut self, text: &[u8]) {
        let end = self.len + text.len();
        if end > self.room.len() {
            self.grow(end);
        }
        if let Some(to) = self.room.get_mut(self.len..end) {
            copy_short(text, to);
        }
        self.len = end;
    }

    /// Appends one ASCII byte (punctuation).
    #[inline(always)]
    fn byte(&mut self, byte: u8) {
        if self.len >= self.room.len() {
            self.grow(self.len + 1);
        }
        if let Some(at) = self.room.get_mut(self.len) {
            *at = byte;
        }
        self.len += 1;
    }

    /// Room for at least `end` bytes, twice as much as before: zeroed
    /// memory from the allocator (`Vec::resize` wrote the zeros a byte at a
    /// time), then the text so far.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, end: usize) {
        let mut room = vec![0; end.max(2 * self.room.len())];
        if let (Some(to), Some(from)) = (room.get_mut(..self.len), self.room.get(..self.len)) {
            to.copy_from_slice(from);
        }
        self.room = room;
    }

    /// `text` as a JSON string: quoted as it is when no byte needs an
    /// escape (every name and spelling of the crate's forms), else as
    /// serde_json escapes it.
    #[inline]
    fn string(&mut self, text: &str) {
        if !self.plain_quoted(false, text.as_bytes(), false) {
            self.escaped(text);
        }
    }

    /// A struct's field name and its colon, after a comma unless `first`.
    #[inline(always)]
    fn field_key(&mut self, first: bool, key: &str) {
        if !self.plain_quoted(!first, key.as_bytes(), true) {
            if !first {
                self.byte(b',');
            }
            self.escaped(key);
            self.byte(b':');
        }
    }

    /// `text` quoted, after a comma if `comma` and before a colon if
    /// `colon`, the room checked once for all of it, when no byte of `text`
    /// needs an escape (`true`); else nothing is written (`false`).
    #[inline(always)]
    fn plain_quoted(&mut self, comma: bool, text: &[u8], colon: bool) -> bool {
        if needs_escape(text) {
            return false;
        }
        let end = self.len + text.len() + 4;
        if end > self.room.len() {
            self.grow(end);
        }
        let mut at = self.len;
        if comma {
            self.set(at, b',');
            at += 1;
        }
        self.set(at, b'"');
        if let Some(to) = self.room.get_mut(at + 1..at + 1 + text.len()) {
            copy_short(text, to);
        }
        at += 1 + text.len();
        self.set(at, b'"');
        at += 1;
        if colon {
            self.set(at, b':');
            at += 1;
        }
        self.len = at;
        true
    }

    /// Writes `byte` at `at`, within the room.
    #[inline(always)]
    fn set(&mut self, at: usize, byte: u8) {
        if let Some(place) = self.room.get_mut(at) {
            *place = byte;
        }
    }

    /// `text`, which has a byte to escape, as serde_json writes it.
    #[inline(never)]
    fn escaped(&mut self, text: &str) {
        // A `str` always serializes: the fallback is never taken.
        self.put(serde_json::to_string(text).unwrap_or_default().as_bytes());
    }

    /// A value serde_json writes in its own way (a float): its text.
    #[inline(never)]
    fn as_serde_json<T: Serialize>(&mut self, value: T) -> Result<(), Unwritten> {
        let text = serde_json::to_string(&value).map_err(|_| Unwritten)?;
        self.put(text.as_bytes());
        Ok(())
    }

    /// An integer, by serde_json's formatter (itoa).
    fn integer<I: itoa::Integer>(&mut self, value: I) {
        self.put(itoa::Buffer::new().format(value).as_bytes());
    }
}

/// Whether a byte of `text` is one JSON escapes: a control character, `"`
/// or `\\`. Eight bytes a time (the last eight overlapping), where a byte a
/// time was the larger part of the answer's write under wasmtime.
#[inline(always)]
fn needs_escape(text: &[u8]) -> bool {
    let n = text.len();
    if n < 8 {
        // Every byte in one word, some twice: two overlapping halves, or
        // (under 4 bytes) the first, middle and last, padded with a plain byte.
        let word = if n >= 4 {
            let half = |at| u64::from(u32::from_ne_bytes(bytes_at(text, at)));
            half(0) | half(n - 4) << 32
        } else if n > 0 {
            let byte = |at: usize| u64::from(text.get(at).copied().unwrap_or(b' '));
            u64::from_ne_bytes([b' '; 8]) & !0xff_ffff | byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16
        } else {
            return false;
        };
        return escape_flags(word) != 0;
    }
    let mut at = 0;
    while at + 8 <= n {
        if escape_flags(u64::from_ne_bytes(bytes_at(text, at))) != 0 {
            return true;
        }
        at += 8;
    }
    escape_flags(u64::from_ne_bytes(bytes_at(text, n - 8))) != 0
}

/// The `N` bytes of `text` from `at` (`at + N <= text.len()`).
#[inline(always)]
fn bytes_at<const N: usize>(text: &[u8], at: usize) -> [u8; N] {
    text.get(at..at + N).and_then(|bytes| bytes.try_into().ok()).unwrap_or([0; N])
}

/// Copies `from` to `to` (of the same length). Up to 32 bytes, by
/// overlapping 8-, 4- or 1-byte moves; longer, by `copy_from_slice`, which
/// in wasm is a `memory.copy` and, under wasmtime, a call into the host.
#[inline(always)]
fn copy_short(from: &[u8], to: &mut [u8]) {
    let n = from.len();
    if n > 32 || to.len() != n {
        to.copy_from_slice(from);
    } else if n >= 8 {
        if n > 16 {
            copy_word::<8>(from, to, 8);
            copy_word::<8>(from, to, n - 16);
        }
        copy_word::<8>(from, to, 0);
        copy_word::<8>(from, to, n - 8);
    } else if n >= 4 {
        copy_word::<4>(from, to, 0);
        copy_word::<4>(from, to, n - 4);
    } else if n > 0 {
        to[0] = from[0];
        to[n / 2] = from[n / 2];
        to[n - 1] = from[n - 1];
    }
}

/// `from[at..at + N]` to the same place of `to`, as one load and store.
#[inline(always)]
fn copy_word<const N: usize>(from: &[u8], to: &mut [u8], at: usize) {
    if let (Some(from), Some(to)) = (from.get(at..at + N), to.get_mut(at..at + N)) {
        to.copy_from_slice(from);
    }
}

/// A list, map or struct being written: whether an item has been written
/// (a comma before the next), and what closes it.
pub(super) struct Compound<'a> {
    writer: &'a mut Writer,
    first: bool,
    /// The byte after the closing bracket: `}`, of a variant's object.
    close: Option<u8>,
}

impl Compound<'_> {
    /// Whether this item is the first (and no longer after it).
    #[inline(always)]
    fn take_first(&mut self) -> bool {
        std::mem::replace(&mut self.first, false)
    }

    /// The comma before every item but the first.
    #[inline]
    fn comma(&mut self) {
        if !self.take_first() {
            self.writer.byte(b',');
        }
    }

    /// The closing bracket (and a variant's `}`).
    fn end(self, bracket: u8) {
        self.writer.byte(bracket);
        if let Some(close) = self.close {
            self.writer.byte(close);
        }
    }
}

impl<'a> Writer {
    /// The opening bracket of a list, map or struct.
    fn open(&'a mut self, bracket: u8, close: Option<u8>) -> Compound<'a> {
        self.byte(bracket);
        Compound { writer: self, first: true, close }
    }

    /// `{"variant":` before a variant's value, closed by `}`.
    fn variant_key(&mut self, variant: &str) {
        self.byte(b'{');
        self.string(variant);
        self.byte(b':');
    }
}

/// The integer methods of the compact writer: serde_json's text (itoa).
macro_rules! integers {
    ($($method:ident: $integer:ty),* $(,)?) => {
        $(fn $method(self, value: $integer) -> Result<(), Unwritten> {
            self.integer(value);
            Ok(())
        })*
    };
}

/// Methods of a serializer that leaves its value to serde_json.
macro_rules! refused {
    ($($method:ident($($argument:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $argument),*) -> Result<(), Unwritten> {
            Err(Unwritten)
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Unwritten;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, value: bool) -> Result<(), Unwritten> {
        self.put(if value { b"true" } else { b"false" });
        Ok(())
    }
    integers! {
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128,
    }
    fn serialize_f32(self, value: f32) -> Result<(), Unwritten> {
        self.as_serde_json(value)
    }
    fn serialize_f64(self, value: f64) -> Result<(), Unwritten> {
        self.as_serde_json(value)
    }
    fn serialize_char(self, value: char) -> Result<(), Unwritten> {
        self.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, value: &str) -> Result<(), Unwritten> {
        self.string(value);
        Ok(())
    }
    refused! { serialize_bytes(&[u8]) }
    fn serialize_none(self) -> Result<(), Unwritten> {
        self.put(b"null");
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Unwritten> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unwritten> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unwritten> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Unwritten> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<(), Unwritten> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unwritten> {
        self.variant_key(variant);
        value.serialize(&mut *self)?;
        self.byte(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Unwritten> {
        Ok(self.open(b'[', None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Unwritten> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>, Unwritten> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unwritten> {
        self.variant_key(variant);
        Ok(self.open(b'[', Some(b'}')))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Unwritten> {
        Ok(self.open(b'{', None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Unwritten> {
        Ok(self.open(b'{', None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unwritten> {
        self.variant_key(variant);
        Ok(self.open(b'{', Some(b'}')))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unwritten;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unwritten> {
        self.comma();
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Unwritten> {
        Compound::end(self, b']');
        Ok(())
    }
}

/// The tuple forms, written as lists (as serde_json writes them).
macro_rules! as_list {
    ($($form:ident::$method:ident),* $(,)?) => {
        $(impl ser::$form for Compound<'_> {
            type Ok = ();
            type Error = Unwritten;
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unwritten> {
                ser::SerializeSeq::serialize_element(self, value)
            }
            fn end(self) -> Result<(), Unwritten> {
                ser::SerializeSeq::end(self)
            }
        })*
    };
}

as_list!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unwritten;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Unwritten> {
        self.comma();
        key.serialize(KeyWriter(&mut *self.writer))?;
        self.writer.byte(b':');
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unwritten> {
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Unwritten> {
        Compound::end(self, b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unwritten;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Unwritten> {
        let first = self.take_first();
        self.writer.field_key(first, key);
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Unwritten> {
        Compound::end(self, b'}');
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Unwritten;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Unwritten> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), Unwritten> {
        ser::SerializeStruct::end(self)
    }
}

/// A map's key: a string (or a char) only; every other key is left to
/// serde_json, which quotes integers and booleans and refuses the rest.
struct KeyWriter<'a>(&'a mut Writer);

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Unwritten;
    type SerializeSeq = ser::Impossible<(), Unwritten>;
    type SerializeTuple = ser::Impossible<(), Unwritten>;
    type SerializeTupleStruct = ser::Impossible<(), Unwritten>;
    type SerializeTupleVariant = ser::Impossible<(), Unwritten>;
    type SerializeMap = ser::Impossible<(), Unwritten>;
    type SerializeStruct = ser::Impossible<(), Unwritten>;
    type SerializeStructVariant = ser::Impossible<(), Unwritten>;

    fn serialize_str(self, value: &str) -> Result<(), Unwritten> {
        self.0.string(value);
        Ok(())
    }
    fn serialize_char(self, value: char) -> Result<(), Unwritten> {
        self.0.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Unwritten> {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<(), Unwritten> {
        value.serialize(self)
    }
    refused! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
        serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64), serialize_f32(f32),
        serialize_f64(f64), serialize_bytes(&[u8]), serialize_none(), serialize_unit(),
        serialize_unit_struct(&'static str),
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _value: &T) -> Result<(), Unwritten> {
        Err(Unwritten)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unwritten> {
        Err(Unwritten)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Unwritten> {
        Err(Unwritten)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unwritten> {
        Err(Unwritten)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;

    use super::{needs_escape, to_text};
    use crate::json::{Json, from_json, serde_json_text, to_json};
    use crate::limits::Limits;
    use crate::probe::native::{
        ChangeAction, CheckReport, HostDevice, HostReport, Isolation, NativeChange, NativeCheck, NativeReason,
        NativeResolution, ProbedPlanResult, Subject,
    };
    use crate::probe::verify::{Verification, VerifyPrecision};
    use crate::probe::web::{ProbeReason, ProbeReport, WebGpuVerdict, resolve};
    use crate::reader_equivalence::{form_texts, malformed_inputs, mutations, vector_texts};
    use crate::request::PlanRequest;
    use crate::target::{Target, presets};
    use crate::vocab::{Accelerator, Architecture, BuildFeature, OperatingSystem};

    /// The compact writer writes `value` itself, as serde_json does.
    fn written<T: ?Sized + Serialize>(value: &T) {
        let expected = serde_json::to_string(value).unwrap();
        assert_eq!(to_text(value).as_deref(), Some(expected.as_str()));
        assert_eq!(to_json(&value), expected);
    }

    /// A plan request's text, read and planned, or refused: its answer.
    fn answer(text: &str) {
        match from_json::<PlanRequest>(text) {
            Ok(request) => match crate::request::plan(&request, &Limits::DEFAULT) {
                Ok(result) => written(&result),
                Err(error) => written(&error),
            },
            Err(error) => written(&error),
        }
    }

    /// Every request vector's answer, and the answer to each of their
    /// mutations (every place: a byte left out, a JSON token put in or
    /// instead), planned or refused; and every vector as a document.
    #[test]
    fn every_answer_is_serde_jsons_text() {
        let requests = vector_texts("requests");
        for (_, text) in &requests {
            answer(text);
        }
        let mut seeds: Vec<String> =
            requests.iter().map(|(_, text)| serde_json_text(&serde_json::from_str::<Json>(text).unwrap())).collect();
        seeds.sort_by_key(String::len);
        for seed in seeds.iter().take(3).chain(seeds.last()) {
            mutations(seed, answer);
        }
        for text in malformed_inputs() {
            answer(&text);
        }
        for (_, text) in requests.iter().chain(&vector_texts("targets")) {
            written(&serde_json::from_str::<Json>(text).unwrap());
        }
    }

    /// Every other form an edge writes: targets, presets, capsules,
    /// availabilities, the browser's probe reports, verdicts and
    /// resolutions, the native probe's reports (floats, a flattened enum, a
    /// flattened plan result), the forms' own texts as documents.
    #[test]
    fn every_form_is_serde_jsons_text() {
        written(&presets());
        written(&crate::capsule::reference_capsules());
        for preset in presets() {
            let target = preset.target;
            written(&target);
            written(&target.declared_availability());
            written(&target.devices());
            written(&target.providers());
            for &reason in ProbeReason::ALL {
                let report = ProbeReport::unavailable(reason, "a \"quoted\"\nmessage", true, 2000);
                written(&report);
                written(&resolve(&target, &report));
            }
        }
        for text in form_texts() {
            written(&serde_json::from_str::<Json>(&text).unwrap());
            if let Ok(report) = from_json::<ProbeReport>(&text) {
                written(&resolve(&Target::wasm(), &report));
                written(&report);
            }
            if let Ok(verdict) = from_json::<WebGpuVerdict>(&text) {
                written(&verdict);
            }
        }
        let mut check = CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, "two \"devices\"");
        check.devices = vec![HostDevice::new(0, "H200".into(), Some("9.0".into()), Some(150_000_000_000))];
        check.elapsed_ms = 12.75;
        let host = HostReport::new(
            (OperatingSystem::Linux, Architecture::X86_64),
            Isolation::Process,
            (2000, 0.1 + 0.2),
            vec!["".into()],
            vec![check],
        );
        let changes = vec![
            NativeChange::new(
                Subject::Accelerator(Accelerator::Cuda),
                ChangeAction::Kept,
                NativeReason::DeviceAvailable,
                "ok".into(),
            ),
            NativeChange::new(
                Subject::Feature(BuildFeature::LibTorch),
                ChangeAction::Dropped,
                NativeReason::DeviceAvailable,
                "\u{1}".into(),
            ),
        ];
        let resolution = NativeResolution::from_changes(&Target::linux_cuda(true), changes, host);
        written(&resolution);
        let request: PlanRequest = from_json(r#"{"ops":["matmul"],"configs":[{"device":"cpu"}]}"#).unwrap();
        written(&ProbedPlanResult::new(request.run(), resolution));
    }

    /// Shapes no form has: variants, tuples, characters, wide integers.
    #[test]
    fn other_shapes_are_serde_jsons_text() {
        #[derive(Serialize)]
        enum Shape {
            Unit,
            Newtype(u8),
            Tuple(i8, char),
            Struct { a: (), b: Option<i128>, c: Vec<u128> },
        }
        #[derive(Serialize)]
        struct Unit;
        #[derive(Serialize)]
        struct Newtype(&'static str);
        #[derive(Serialize)]
        struct Pair(i16, u16);
        written(&[Shape::Unit, Shape::Newtype(7), Shape::Tuple(-1, '"'), Shape::Struct { a: (), b: None, c: vec![] }]);
        written(&Shape::Struct { a: (), b: Some(i128::MIN), c: vec![u128::MAX, 0] });
        written(&(
            Unit,
            Newtype("\\"),
            Pair(i16::MIN, u16::MAX),
            'é',
            '\u{7f}',
            i32::MIN,
            i64::MIN,
            u32::MAX,
            u64::MAX,
        ));
        written(&(f32::MIN_POSITIVE, f64::NAN, f64::INFINITY, -0.0f64, 1e21f64, 1.5f32));
        let map: BTreeMap<char, BTreeMap<String, ()>> = [('k', [("\n".to_string(), ())].into())].into();
        written(&map);
    }

    /// Field names with a byte to escape (no form has one), first and
    /// after another field, in a struct and in a struct variant; and field
    /// names of every short length.
    #[test]
    fn field_names_to_escape_are_serde_jsons_text() {
        #[derive(Serialize)]
        struct Quoted {
            #[serde(rename = "a\"b")]
            first: u8,
            #[serde(rename = "\\")]
            second: bool,
            #[serde(rename = "\u{1f}x")]
            third: (),
            #[serde(rename = "")]
            empty: u8,
            x: u8,
            #[serde(rename = "abcdefg")]
            seven: u8,
        }
        #[derive(Serialize)]
        enum Variant {
            Fields {
                #[serde(rename = "new\nline")]
                line: u8,
                plain: u8,
            },
        }
        written(&Quoted { first: 1, second: true, third: (), empty: 0, x: 2, seven: 3 });
        written(&Variant::Fields { line: 1, plain: 2 });
    }

    /// Under eight bytes, `needs_escape` reads the text as one word: every
    /// length, every place, every byte value, alone and beside a byte JSON
    /// escapes.
    #[test]
    fn short_texts_need_an_escape_where_a_byte_does() {
        for length in 1..8 {
            for place in 0..length {
                for byte in 0..=255u8 {
                    let mut bytes = vec![b'a'; length];
                    bytes[place] = byte;
                    assert_eq!(needs_escape(&bytes), escapes_by_byte(&bytes), "{bytes:?}");
                    bytes[length - 1 - place] = b'"';
                    assert_eq!(needs_escape(&bytes), escapes_by_byte(&bytes), "{bytes:?}");
                }
            }
        }
        assert!(!needs_escape(b""));
    }

    /// The shapes it leaves to serde_json: `to_json` still writes
    /// serde_json's text.
    #[test]
    fn shapes_it_leaves_are_written_by_serde_json() {
        let numbered: BTreeMap<u32, bool> = [(1, true), (20, false)].into();
        let unit_keyed: BTreeMap<(), u8> = [((), 1)].into();
        for left in [to_text(&numbered), to_text(&unit_keyed), to_text(serde_bytes_like())] {
            assert_eq!(left, None);
        }
        assert_eq!(to_json(&numbered), r#"{"1":true,"20":false}"#);
        assert_eq!(to_json(&numbered), serde_json::to_string(&numbered).unwrap());
        assert_eq!(to_json(&unit_keyed), "");
        assert!(serde_json::to_string(&unit_keyed).is_err());
    }

    /// A value that serializes as bytes.
    fn serde_bytes_like() -> &'static impl Serialize {
        struct Bytes;
        impl Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(b"ab")
            }
        }
        &Bytes
    }

    /// Any JSON value: nested lists and maps, every kind of number, strings
    /// of every character class JSON escapes.
    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            text().prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
                prop::collection::btree_map(text(), inner, 0..8)
                    .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
            ]
        })
    }

    /// Strings up to 40 characters, each a control character, `"`, `\`,
    /// DEL, ASCII, or a character of two, three or four bytes.
    fn text() -> impl Strategy<Value = String> {
        let char = prop_oneof![
            (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
            Just('"'),
            Just('\\'),
            Just('\u{7f}'),
            (0x20u32..0x7f).prop_map(|c| char::from_u32(c).unwrap()),
            Just('é'),
            Just('\u{2028}'),
            Just('😀'),
        ];
        prop::collection::vec(char, 0..40).prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn any_string_is_serde_jsons_text(text in text()) {
            written(&text);
        }

        #[test]
        fn any_json_is_serde_jsons_text(value in any_json()) {
            written(&value);
        }

        /// A verification's figures, any float (NaN and infinities too).
        #[test]
        fn any_verification_is_serde_jsons_text(
            figures in prop::collection::vec(prop_oneof![any::<f64>(), Just(f64::NAN), Just(1e-7), Just(0.1 + 0.2)], 8),
            some in any::<bool>(),
        ) {
            let maybe = |figure: f64| some.then_some(figure);
            written(&Verification {
                workload: "mlp".into(),
                checked: vec![VerifyPrecision::F32],
                gpu_ms: maybe(figures[0]),
                gpu_ms_more_than: maybe(figures[6]),
                wasm_ms: maybe(figures[1]),
                ratio: maybe(figures[2]),
                timer_resolution_ms: figures[7],
                margin: figures[3],
                max_error: maybe(figures[4]),
                max_error_at: None,
                tolerance: 1e-3,
                budget_ms: 50,
                elapsed_ms: figures[5],
                adapter_key: "k".into(),
                cached: some,
            });
        }

        /// The eight-bytes-a-time test is the byte-by-byte one, at every
        /// length and every place of the bytes JSON escapes (and of the
        /// bytes around them, and of UTF-8's high bytes).
        #[test]
        fn needs_escape_is_any_byte_below_0x20_or_quote_or_backslash(
            bytes in prop::collection::vec(prop_oneof![
                0u8..=0x21, Just(b'"'), Just(b'\\'), 0x5bu8..=0x5d, 0x7eu8..=0xff, any::<u8>()
            ], 0..40)
        ) {
            prop_assert_eq!(needs_escape(&bytes), escapes_by_byte(&bytes), "{:?}", bytes);
        }

        /// The same on plain bytes (the space and the bytes next to `"` and
        /// `\\` among them) with at most one byte to escape, at any place:
        /// a plain text is said plain at every length (a wrong "needs an
        /// escape" is not seen in the output, which serde_json then writes),
        /// and a lone escape is found wherever it is, in the last word too.
        #[test]
        fn needs_escape_finds_one_byte_to_escape_anywhere(
            mut bytes in prop::collection::vec(prop_oneof![0x20u8..=0x21, 0x23u8..=0x5b, 0x5du8..=0xff], 0..80),
            escape in prop::option::of((any::<prop::sample::Index>(), prop_oneof![0u8..0x20, Just(b'"'), Just(b'\\')])),
        ) {
            if let Some((at, byte)) = escape.filter(|_| !bytes.is_empty()) {
                let at = at.index(bytes.len());
                bytes[at] = byte;
            }
            prop_assert_eq!(needs_escape(&bytes), escapes_by_byte(&bytes), "{:?}", bytes);
        }
    }

    /// `needs_escape`, a byte at a time.
    fn escapes_by_byte(bytes: &[u8]) -> bool {
        bytes.iter().any(|&byte| byte < 0x20 || byte == b'"' || byte == b'\\')
    }
}
