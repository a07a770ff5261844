//! Where a value stands while a reader reads it, and the path an error then
//! says (`capsules[3].trustLevel`, `limits["a b"]`): shared by the one-pass
//! reader (`de`), the two-pass one (`two_pass`) and the direct reader.

use super::error::Error;
use crate::error::join_path;

/// Where a value stands: its container's place and its own key or index, a
/// chain up to the root through the readers on the stack. Only an error
/// renders it as a path, so reading allocates nothing for paths.
#[derive(Clone, Copy)]
pub(super) struct Where<'a> {
    parent: Option<&'a Where<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Where<'a> {
    pub(super) const ROOT: Where<'static> = Where { parent: None, segment: Segment::Root };

    /// The place of `key`'s value in the object at `parent`.
    pub(super) fn key(parent: &'a Where<'a>, key: &'a str) -> Self {
        Where { parent: Some(parent), segment: Segment::Key(key) }
    }

    /// The place of item `index` in the array at `parent`.
    pub(super) fn index(parent: &'a Where<'a>, index: usize) -> Self {
        Where { parent: Some(parent), segment: Segment::Index(index) }
    }

    /// Locates `error` here (kept out of line: every visitor type would
    /// otherwise get its own copy).
    #[inline(never)]
    pub(super) fn locate(self, error: Error) -> Error {
        error.at(&self.render())
    }

    #[inline(never)]
    pub(super) fn render(&self) -> String {
        let parent = self.parent.map(Where::render).unwrap_or_default();
        match self.segment {
            Segment::Root => parent,
            Segment::Key(key) => key_path(&parent, key),
            Segment::Index(index) => format!("{parent}[{index}]"),
        }
    }
}

/// The path of `key` in the object at `parent`: `parent.key`, or a quoted
/// index (`parent["a b"]`) when the key is not a plain name (`.`, `[`,
/// spaces, nothing), so that every path reads one way.
pub(super) fn key_path(parent: &str, key: &str) -> String {
    if is_plain_key(key) { join_path(parent, key) } else { format!("{parent}[{}]", crate::error::quoted_short(key)) }
}

/// Whether `key` can stand in a path as `a.key`: letters, digits, `_`, `-`.
fn is_plain_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= 64 && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
