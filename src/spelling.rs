//! How a closed vocabulary is spelled, for every one of them: `spelled_enum!`
//! turns one table of `Variant = "spelling"` rows into the enum, its
//! canonical spelling (`as_str`, `Display`), parsing (`FromStr`, with
//! aliases), serde, the JSON Schema (feature [`schema`](crate::schema)) and the TypeScript
//! union type (browser build), over one search ([`find_spelling`]) and one
//! serde visitor ([`SpellingVisitor`]) shared by all. A leaf: it uses no other
//! module (an expansion names [`error::Error`](crate::error::Error), where it is expanded), so that
//! [`vocab`](crate::vocab), [`error`](crate::error) and the rest use it without a circle.

use serde::de::{self, Visitor};
use std::fmt;

/// Declares a closed vocabulary from one table of `Variant = "spelling"` rows,
/// with optional `| "alias"` spellings accepted by parsing only.
macro_rules! spelled_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $( $(#[doc = $vdoc:literal])+ )? $variant:ident = $spelling:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        // The TypeScript type's JSDoc lists every documented spelling with
        // its variant's doc, where an editor shows it (a union member has no
        // doc of its own); rustdoc and the JSON Schema keep them on the
        // variants. A variant without a doc adds nothing: its spelling is in
        // the union already, and an entry "spelling —" with nothing after the
        // dash was noise in an editor's hover (tests/js/types-docs.test.mjs).
        // (Literal lines only: tsify reads no `concat!`.)
        $($(
            #[cfg_attr(feature = "typescript", doc = "")]
            #[cfg_attr(feature = "typescript", doc = $spelling)]
            #[cfg_attr(feature = "typescript", doc = "\u{2014}")]
            $(#[cfg_attr(feature = "typescript", doc = $vdoc)])+
        )?)+
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
        // A variant is documented by its spelling in the table; a doc comment
        // on it would also change the published JSON Schema.
        #[allow(missing_docs)]
        $vis enum $name {
            // Read by the schema and TypeScript derives only: serde itself
            // goes through the spelling table (below).
            $(
                $($(#[doc = $vdoc])+)?
                #[cfg_attr(
                    any(feature = "schema", feature = "typescript"),
                    serde(rename = $spelling)
                )]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in the SPEC's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// Every canonical spelling, in the SPEC's order: each value's
            /// name in JSON, in JavaScript and on the command line.
            #[doc = concat!($("\n- `", stringify!($variant), "` is `\"", $spelling, "\"`"),+)]
            pub const SPELLINGS: &'static [&'static str] = &[$($spelling),+];
            /// The vocabulary's name, as used in error messages and types.
            pub const TYPE_NAME: &'static str = stringify!($name);

            /// The canonical spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $spelling,)+ }
            }

            /// The accepted aliases, with the position of what each spells.
            const ALIASES: &'static [(&'static str, usize)] = &[$($(($alias, Self::$variant as usize),)*)+];

            /// Parses a canonical spelling or an accepted alias (case-sensitive).
            pub fn from_spelling(text: &str) -> Option<Self> {
                $crate::spelling::find_spelling(Self::SPELLINGS, Self::ALIASES, text).map(|index| Self::ALL[index])
            }

            /// Position in the SPEC's order (dense, from 0).
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::error::Error;
            fn from_str(text: &str) -> Result<Self, $crate::error::Error> {
                Self::from_spelling(text)
                    .ok_or_else(|| $crate::error::Error::unknown_spelling(Self::TYPE_NAME, text, Self::SPELLINGS))
            }
        }

        /// The canonical spelling, as a JSON string.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::spelling::deserialize_spelling(deserializer, Self::TYPE_NAME, Self::SPELLINGS, Self::ALIASES)
                    .map(|index| Self::ALL[index])
            }
        }
    };
}

/// Whether `a` and `b` are the same name, for the readers' lookups (a
/// spelling, a struct's field). `==` calls `memcmp`, which in wasm is
/// wasi-libc's loop of a byte a time: under wasmtime it ran 4.7 times the
/// instructions of the native `memcmp` on a plan's names (BENCHMARKS.md).
/// Here 8 bytes a time (the last word overlapping), then 4.
#[inline(never)]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let length = a.len();
    if length != b.len() {
        return false;
    }
    // Both words are read at the same place of two texts of one length: both
    // or neither exist (neither only if called out of these bounds).
    let word =
        |text: &[u8], at: usize| text.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map(u64::from_ne_bytes);
    let half =
        |text: &[u8], at: usize| text.get(at..at + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()).map(u32::from_ne_bytes);
    if length >= 8 {
        let mut at = 0;
        while at + 8 < length {
            if word(a, at) != word(b, at) {
                return false;
            }
            at += 8;
        }
        return word(a, length - 8) == word(b, length - 8);
    }
    if length >= 4 {
        return half(a, 0) == half(b, 0) && half(a, length - 4) == half(b, length - 4);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

// Fewer arguments in calls. In wasm, a call of
// more than four arguments passes the rest on the stack, which Cranelift
// stores as 4 bytes and reads back as 8, a load that waits for the store
// (`de::Reader::string`). There `find_spelling` and `deserialize_spelling`
// are inlined into their callers, and the calls left are to `search` and
// to the deserializer with the vocabulary as one reference: a plan of
// 10,000 capsules runs 4 % faster under wasmtime (BENCHMARKS.md).

/// The position of `text` among `spellings`, or of the variant it is an
/// alias of. One function for every vocabulary (a `match` per vocabulary
/// compares the same way, in more code).
#[inline(always)]
pub(crate) fn find_spelling(spellings: &[&str], aliases: &[(&str, usize)], text: &str) -> Option<usize> {
    search(&Candidates { spellings, aliases }, text)
}

/// A vocabulary's spellings and aliases, as one argument.
struct Candidates<'a> {
    spellings: &'a [&'a str],
    aliases: &'a [(&'a str, usize)],
}

/// [`find_spelling`]'s search.
#[inline(never)]
fn search(&Candidates { spellings, aliases }: &Candidates<'_>, text: &str) -> Option<usize> {
    // Length and first byte first: most candidates differ there, which
    // spares them a `memcmp` call. A plain loop, not a closure: at opt-level
    // "z" the closure stayed a call per candidate in wasm.
    let (length, first) = (text.len(), text.as_bytes().first());
    for (index, spelling) in spellings.iter().enumerate() {
        if spelling.len() == length && spelling.as_bytes().first() == first && same_name(spelling, text) {
            return Some(index);
        }
    }
    for &(alias, index) in aliases {
        if alias.len() == length && alias.as_bytes().first() == first && same_name(alias, text) {
            return Some(index);
        }
    }
    None
}

/// Reads a spelling's position with a [`SpellingVisitor`]: one copy per
/// deserializer, not one per vocabulary (the copy is the deserializer's
/// `deserialize_str` for the visitor; above).
#[inline(always)]
pub(crate) fn deserialize_spelling<'de, D: de::Deserializer<'de>>(
    deserializer: D,
    type_name: &'static str,
    spellings: &'static [&'static str],
    aliases: &'static [(&'static str, usize)],
) -> Result<usize, D::Error> {
    deserializer.deserialize_str(SpellingVisitor { type_name, spellings, aliases })
}

/// Visitor shared by every spelled enum: a string in the table (read as its
/// position, so that one visitor type serves every vocabulary), or serde's
/// standard `unknown variant` error listing the canonical spellings.
pub(crate) struct SpellingVisitor {
    pub(crate) type_name: &'static str,
    pub(crate) spellings: &'static [&'static str],
    pub(crate) aliases: &'static [(&'static str, usize)],
}

impl Visitor<'_> for SpellingVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A byte test: a `[char]` pattern brings its searcher into the binaries.
        let article = if matches!(self.type_name.as_bytes().first(), Some(b'A' | b'E' | b'I' | b'O' | b'U')) {
            "an"
        } else {
            "a"
        };
        write!(f, "{article} {} spelling", self.type_name)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<usize, E> {
        find_spelling(self.spellings, self.aliases, text).ok_or_else(|| E::unknown_variant(text, self.spellings))
    }
}

pub(crate) use spelled_enum;

#[cfg(test)]
mod tests {
    use super::same_name;

    /// `same_name` is `==` for every length up to three words and every
    /// place a difference can be: in each word, the overlapping last word,
    /// the halves, and the bytes of a short name; and names of two lengths.
    #[test]
    fn a_name_is_the_same_exactly_when_its_bytes_are() {
        for length in 0..=24 {
            let name: String = (0..length).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_name(&name, &name.clone()), "{name:?}");
            for at in 0..length {
                let mut other = name.clone().into_bytes();
                other[at] = b'Z';
                let other = String::from_utf8(other).unwrap();
                assert_eq!(same_name(&name, &other), name == other, "{name:?} against {other:?}");
                assert!(!same_name(&name, &other), "{name:?} against {other:?}");
            }
            assert!(!same_name(&name, &format!("{name}a")), "{name:?} and one byte more");
            assert!(!same_name(&format!("{name}a"), &name), "{name:?} and one byte less");
        }
        assert!(same_name("é😀", "é😀"));
        assert!(!same_name("é😀", "é😁"));
    }
}
