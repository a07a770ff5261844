//! Where a value stands while a reader reads it, and the path an error then
//! says (`capsules[3].trustLevel`, `limits["a b"]`): the strict reader's
//! (`de`).

use super::error::Error;
use crate::error::{ErrorCode, join_path};
use crate::limits::{COUNTED, Limits, Step};

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
    /// The document, and the limits its lists and maps are counted against
    /// as they are read (a plan request's), if any.
    Root(Option<&'a Limits>),
    Key(&'a str),
    Index(usize),
}

impl<'a> Where<'a> {
    pub(super) const ROOT: Where<'static> = Where { parent: None, segment: Segment::Root(None) };

    /// The root of a plan request read within `limits`: each list or map
    /// that a count limit bounds ([`limits::COUNTED`](crate::limits::COUNTED)) is counted as it is read.
    pub(super) fn counted(limits: &'a Limits) -> Self {
        Where { parent: None, segment: Segment::Root(Some(limits)) }
    }

    /// The count limit of the list or map here, if one bounds it: its name
    /// and value ([`limits::COUNTED`](crate::limits::COUNTED)). Asked as a list or map opens.
    #[inline(never)]
    pub(super) fn count_limit(&self) -> Option<(&'static str, usize)> {
        let limits = self.root_limits()?;
        let counted = COUNTED.iter().find(|counted| self.ends(counted.steps))?;
        Some((counted.name, (counted.limit)(limits)))
    }

    fn root_limits(&self) -> Option<&'a Limits> {
        match (self.segment, self.parent) {
            (Segment::Root(limits), _) => limits,
            (_, Some(parent)) => parent.root_limits(),
            (_, None) => None,
        }
    }

    /// Whether this place is reached from the root by exactly `steps`.
    fn ends(&self, steps: &[Step]) -> bool {
        let (Some((last, before)), Some(parent)) = (steps.split_last(), self.parent) else {
            return steps.is_empty() && matches!(self.segment, Segment::Root(_));
        };
        let step_matches = match (last, self.segment) {
            (Step::Key(step), Segment::Key(key)) => *step == key,
            (Step::Item, Segment::Index(_)) => true,
            _ => false,
        };
        step_matches && parent.ends(before)
    }

    /// The error of the list or map here with `count` items, more than the
    /// limit `name` = `limit`: [`Limits::check`]'s, located here.
    #[inline(never)]
    pub(super) fn count_exceeded(&self, name: &str, count: usize, limit: usize) -> Error {
        self.locate(Error::new(ErrorCode::LimitExceeded, Limits::exceeded(name, name, count, limit)))
    }

    /// The place of `key`'s value in the object at `parent`.
    pub(super) fn key(parent: &'a Where<'a>, key: &'a str) -> Self {
        Where { parent: Some(parent), segment: Segment::Key(key) }
    }

    /// The place of item `index` in the array at `parent`.
    pub(super) fn index(parent: &'a Where<'a>, index: usize) -> Self {
        Where { parent: Some(parent), segment: Segment::Index(index) }
    }

    /// Locates `error` here (kept out of line: every visitor type would
    /// otherwise get its own copy); past a list's limit, the limit's error.
    #[inline(never)]
    pub(super) fn locate(self, error: Error) -> Error {
        error.at(&self.render())
    }

    #[inline(never)]
    pub(super) fn render(&self) -> String {
        let parent = self.parent.map(Where::render).unwrap_or_default();
        match self.segment {
            Segment::Root(_) => parent,
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

#[cfg(test)]
mod tests {
    use super::key_path;

    /// A key of letters, digits, `_` and `-` (up to 64 bytes) is joined
    /// with a dot; any other key is quoted in brackets.
    #[test]
    fn plain_keys_are_joined_and_others_quoted() {
        for key in ["a", "Z9", "max_bind-groups", "_", "-", &"k".repeat(64)] {
            assert_eq!(key_path("limits", key), format!("limits.{key}"), "{key:?}");
        }
        for key in ["", "a b", "a.b", "a[0]", "é", "a\"b", &"k".repeat(65)] {
            assert!(key_path("limits", key).starts_with("limits[\""), "{key:?}");
        }
        assert_eq!(key_path("", "a-b"), "a-b");
    }
}
