//! Errors as data: a stable code, the path of the offending value, a sentence,
//! and (for a bad spelling) the valid spellings, with the spelling it most
//! likely meant ([`did_you_mean`]). Every edge (Rust, JS, the command line)
//! reports these same fields. Also the crate's one check of a list that must
//! not repeat a value ([`reject_repeats`], over [`first_repeat`], which the strict
//! JSON reader's repeated keys use too) and the one sort of names that it and
//! the WebGPU limit maps and feature sets share ([`sorted_order`]), and the one
//! way a message quotes a value ([`quoted`], [`quoted_short`]), which the strict
//! JSON reader's failures use too: [`json`](crate::json) depends on [`error`](crate::error), never the other
//! way (tests/module_graph.rs).

use serde::Serialize;

use crate::spelling::spelled_enum;

spelled_enum! {
    /// Stable, machine-matchable kinds of invalid input.
    #[non_exhaustive]
    pub enum ErrorCode {
        /// The text is not JSON (or has trailing characters).
        InvalidJson = "invalid-json",
        /// An object has a field the form does not define.
        UnknownField = "unknown-field",
        /// A required field is absent.
        MissingField = "missing-field",
        /// A field appears twice in one object.
        DuplicateField = "duplicate-field",
        /// A value has the wrong JSON type.
        WrongType = "wrong-type",
        /// A value has the right type but is out of range or malformed.
        InvalidValue = "invalid-value",
        /// A string is not one of a vocabulary's spellings.
        UnknownVariant = "unknown-variant",
        /// A list that must not repeat a value repeats one.
        DuplicateValue = "duplicate-value",
        /// Two fields that exclude each other are both present.
        ConflictingFields = "conflicting-fields",
        /// A list that must not be empty is empty.
        EmptyList = "empty-list",
        /// An option was given to a preset that does not take it.
        UnsupportedOption = "unsupported-option",
        /// A command-line usage error (unknown command, flag or argument).
        Usage = "usage",
        /// Reading the input failed.
        Io = "io",
        /// The command cannot do this on this platform (`probe` under WASI).
        UnsupportedPlatform = "unsupported-platform",
        /// The input exceeds one of the documented limits (see `Limits`):
        /// the path says what, the message says which limit.
        LimitExceeded = "limit-exceeded",
        /// Writing the output failed (a full disk, a closed stream).
        Output = "output",
    }
}

/// Invalid input, described precisely enough for a program to act on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{}", self.one_line())]
pub struct Error {
    /// What kind of problem this is.
    pub code: ErrorCode,
    /// Where: a JSON path such as `capsules[3].trustLevel`; empty for the
    /// whole input.
    pub path: String,
    /// A sentence for people.
    pub message: String,
    /// For an unknown spelling: the valid spellings, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<String>,
}

impl Error {
    /// An error of kind `code` at `path`, with a sentence.
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { code, path: path.into(), message: message.into(), expected: Vec::new() }
    }

    /// A string that is not one of `spellings` for the vocabulary `type_name`
    /// (a command-line argument, a query parameter): quoted as JSON and cut
    /// past 64 bytes, as the JSON reader quotes what it did not know.
    pub fn unknown_spelling(type_name: &str, found: &str, spellings: &[&str]) -> Self {
        let message = match did_you_mean(found, spellings) {
            Some(meant) => format!("unknown {type_name} {}: did you mean {}?", quoted_short(found), quoted(meant)),
            None => {
                format!("unknown {type_name} {}, expected one of: {}", quoted_short(found), joined(spellings, ", "))
            }
        };
        Self {
            code: ErrorCode::UnknownVariant,
            path: String::new(),
            message,
            expected: spellings.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The same error, located under `prefix` (e.g. `request` + `ops[2]`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.path = join_path(prefix, &self.path);
        self
    }

    /// `[code] at path: message`, on one line.
    pub fn one_line(&self) -> String {
        let path = if self.path.is_empty() { "(top level)" } else { &self.path };
        format!("[{}] at {}: {}", self.code, path, self.message)
    }
}

/// The spelling that a misspelled `found` most likely meant: the one equal
/// to it but for ASCII case, `_` and `-` (`MatMul`, `mat_mul` → `matmul`),
/// else the single nearest by edits (Levenshtein), within one edit in four
/// letters (`matmull` → `matmul`). `None` when nothing is that close, or
/// two are. A message then says it first; `expected` still lists them all.
///
/// Its cost is bounded by the spellings, not by `found`: a distance is at
/// least the difference in lengths, so a `found` longer than the longest
/// spelling by more than the edits it is allowed has no suggestion, and is
/// answered after one count of its bytes (a 16 MiB spelling once took 100 s
/// here). Below that, `found` is at most a third longer than the longest
/// spelling, and each distance stops once it exceeds the edits allowed.
pub(crate) fn did_you_mean<'a>(found: &str, spellings: &[&'a str]) -> Option<&'a str> {
    let length = folded_len(found);
    let allowed = (length / 4).max(1);
    let longest = spellings.iter().map(|s| folded_len(s)).max().unwrap_or(0);
    if length > longest.saturating_add(allowed) {
        return None;
    }
    let target = folded(found);
    let mut same = spellings.iter().filter(|s| folded(s) == target);
    if let (Some(only), None) = (same.next(), same.next()) {
        return Some(only);
    }
    // Distances past `allowed` are never suggested, so they are not computed
    // exactly: the nearest within `allowed`, unless two are, is the answer.
    let mut best: Option<(usize, &'a str, bool)> = None;
    for &spelling in spellings {
        let Some(distance) = edit_distance_within(&target, &folded(spelling), allowed) else { continue };
        best = match best {
            Some((d, _, _)) if distance > d => best,
            Some((d, first, _)) if distance == d => Some((d, first, true)),
            _ => Some((distance, spelling, false)),
        };
    }
    best.filter(|&(_, _, tied)| !tied).map(|(_, spelling, _)| spelling)
}

/// `text`'s bytes, ASCII letters lowercased, `_` and `-` left out (every
/// spelling is ASCII; Unicode case tables would add kilobytes to the
/// browser module).
fn folded(text: &str) -> Vec<u8> {
    text.bytes().filter(|b| *b != b'_' && *b != b'-').map(|b| b.to_ascii_lowercase()).collect()
}

/// The length of `folded(text)`, counted without the copy.
fn folded_len(text: &str) -> usize {
    text.bytes().filter(|b| *b != b'_' && *b != b'-').count()
}

/// Levenshtein's distance between two byte strings if it is at most
/// `limit`, else `None`: one row at a time, stopping at the first row whose
/// least entry exceeds `limit` (entries never decrease from one row to the
/// next along any path, so the distance would too).
/// Written here rather than taken from `strsim`: its `char`-generic version
/// with Unicode lowercasing made the browser module 6.1 KB gzipped larger,
/// these bytes 0.9 KB (scripts/build.sh's figures).
fn edit_distance_within(a: &[u8], b: &[u8], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        let mut least = row[0];
        for (j, &y) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
            least = least.min(row[j + 1]);
        }
        if least > limit {
            return None;
        }
    }
    Some(row[b.len()]).filter(|&distance| distance <= limit)
}

/// Joins JSON path segments: `a` + `b` = `a.b`, `a` + `[3]` = `a[3]`.
/// `items` with `separator` between them. Not `[&str]::join`: its generic
/// copy, compiled at std's opt-level 3 in the browser build, is some 1 KB of
/// the module; this loop writes the same text.
pub fn joined(items: &[&str], separator: &str) -> String {
    let mut text = String::new();
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            text.push_str(separator);
        }
        text.push_str(item);
    }
    text
}

pub fn join_path(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ if rest.starts_with('[') => format!("{prefix}{rest}"),
        _ => format!("{prefix}.{rest}"),
    }
}

/// Fails on the first value that repeats an earlier one, naming its index:
/// the one check of a list that must not repeat (a target's features, an
/// availability's devices and providers, WebGPU feature names).
pub(crate) fn reject_repeats<'a>(values: impl Iterator<Item = &'a str>, path: &str) -> Result<()> {
    let values: Vec<&str> = values.collect();
    match first_repeat(&values) {
        None => Ok(()),
        Some(index) => Err(Error::new(
            ErrorCode::DuplicateValue,
            format!("{path}[{index}]"),
            format!("{} is listed twice", quoted_short(values[index])),
        )),
    }
}

/// `text` as a JSON string, for messages that quote a value: the same text
/// on every runtime, whatever `{:?}` would write.
///
/// Beyond JSON's own escapes, the characters that reorder or break a line
/// without being control characters (the bidirectional marks, embeddings,
/// overrides and isolates, the line and paragraph separators) are written
/// `\uXXXX` too: JSON reads them back the same, and a quoted value cannot
/// turn the rest of a line of stderr or a log around.
pub(crate) fn quoted(text: &str) -> String {
    // Writing a `str` into a `Vec` cannot fail.
    let json = serde_json::to_string(text).unwrap_or_default();
    // Each of them begins with one of these bytes in UTF-8: most texts are
    // answered without walking their characters.
    if !json.bytes().any(|byte| byte == 0xe2 || byte == 0xd8) {
        return json;
    }
    let mut escaped = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            // Four hex digits, as serde_json writes `\u001b`: no formatting
            // machinery for it in the browser module.
            escaped.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                escaped.push_str(HEX_DIGITS[(u32::from(c) >> shift & 0xf) as usize]);
            }
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// A character that changes how the text around it is shown (its direction,
/// its lines) while printing as nothing.
fn hidden(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

const HEX_DIGITS: [&str; 16] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"];

/// Text longer than this is quoted in part in messages.
const QUOTE_BYTES: usize = 64;

/// `text` with every unprintable character (a control, C1, a separator, a
/// bidirectional override or isolate) and, `fenced`, every backtick written
/// as its JSON escape (`\u001b`): a foreign string (a library's, a
/// driver's, an adapter's) stays on its line, in its order, and inside its
/// code fence in a report. A line of JSON stays JSON.
pub fn printable(text: &str, fenced: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || hidden(c) || (fenced && c == '`') {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A Markdown table of what to do per reason, `| reason | what to do |`,
/// one row per `(spelling, advice)` in order: the one shape of the tables
/// the documentation shows from the code (`RejectionReason`'s and
/// `NativeReason`'s `what_to_do_markdown`).
pub fn what_to_do_table<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut text = String::from("| reason | what to do |\n|---|---|\n");
    for (reason, advice) in rows {
        text.push_str(&format!("| `{reason}` | {advice} |\n"));
    }
    text
}

/// `quoted`, cut to its first 64 bytes (at a character boundary) with the
/// full length named: a message never repeats a 10 MB key. Public for the
/// service (`http/`), whose messages quote query parameters as the command
/// quotes its arguments.
pub fn quoted_short(text: &str) -> String {
    if text.len() <= QUOTE_BYTES {
        return quoted(text);
    }
    let mut end = QUOTE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", quoted(&text[..end]), text.len())
}

/// The positions of `names` in name order (equal names by position). Every
/// sort of names in the crate goes through this one function, so that the
/// binaries link a single sort.
pub(crate) fn sorted_order(names: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by(|&a, &b| names[a].cmp(names[b]).then(a.cmp(&b)));
    order
}

/// The index of the first name, in order, that repeats an earlier one:
/// pairwise for a short list, else n log n by [`sorted_order`] (the earliest
/// repeat is the least position that follows an equal name there).
#[inline(never)]
pub(crate) fn first_repeat(names: &[&str]) -> Option<usize> {
    if names.len() <= 16 {
        return (1..names.len()).find(|&i| names[..i].contains(&names[i]));
    }
    let order = sorted_order(names);
    order.windows(2).filter(|pair| names[pair[0]] == names[pair[1]]).map(|pair| pair[1]).min()
}

/// The crate's [`Result`]: an [`Error`] on failure.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// What a hostile library could write into a report: escaped, on its line.
    #[test]
    fn printable_escapes_what_could_forge_a_report() {
        let hostile = "evil\u{1b}[31m\r\n- kept (device-available)\n```\n\u{202e}gpu\u{85}\u{2066}x\u{2069}";
        let line = printable(hostile, false);
        assert_eq!(
            line,
            "evil\\u001b[31m\\u000d\\u000a- kept (device-available)\\u000a```\\u000a\\u202egpu\\u0085\\u2066x\\u2069"
        );
        assert!(!line.contains('\n') && !line.chars().any(char::is_control));
        assert_eq!(printable("a `code` fence", true), "a \\u0060code\\u0060 fence");
        assert_eq!(printable("plain text, é and 漢字", true), "plain text, é and 漢字");
    }

    /// Levenshtein's distance, plain and whole: what `edit_distance_within`
    /// must agree with.
    fn edit_distance(a: &[u8], b: &[u8]) -> usize {
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, &x) in a.iter().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, &y) in b.iter().enumerate() {
                let substituted = diagonal + usize::from(x != y);
                diagonal = row[j + 1];
                row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
            }
        }
        row[b.len()]
    }

    /// `did_you_mean` as it was before its cost was bounded: every distance
    /// computed whole, for every length of `found`.
    fn did_you_mean_unbounded<'a>(found: &str, spellings: &[&'a str]) -> Option<&'a str> {
        let target = folded(found);
        let mut same = spellings.iter().filter(|s| folded(s) == target);
        if let (Some(only), None) = (same.next(), same.next()) {
            return Some(only);
        }
        let allowed = (target.len() / 4).max(1);
        let mut best: Option<(usize, &'a str, bool)> = None;
        for &spelling in spellings {
            let distance = edit_distance(&target, &folded(spelling));
            best = match best {
                Some((d, _, _)) if distance > d => best,
                Some((d, first, _)) if distance == d => Some((d, first, true)),
                _ => Some((distance, spelling, false)),
            };
        }
        best.filter(|&(distance, _, tied)| distance <= allowed && !tied).map(|(_, spelling, _)| spelling)
    }

    proptest! {
        #[test]
        fn the_bounded_distance_is_the_plain_one_within_its_limit(
            a in proptest::collection::vec(0u8..4, 0..24),
            b in proptest::collection::vec(0u8..4, 0..24),
            limit in 0usize..30,
        ) {
            let plain = edit_distance(&a, &b);
            prop_assert_eq!(edit_distance_within(&a, &b, limit), Some(plain).filter(|&d| d <= limit));
        }

        #[test]
        fn the_bounded_suggestion_is_the_unbounded_one(
            found in "[abAB_-]{0,40}",
            spellings in proptest::collection::vec("[ab]{1,12}", 1..6),
        ) {
            let spellings: Vec<&str> = spellings.iter().map(String::as_str).collect();
            prop_assert_eq!(did_you_mean(&found, &spellings), did_you_mean_unbounded(&found, &spellings));
        }

        #[test]
        fn the_bounded_suggestion_is_the_unbounded_one_for_real_vocabularies(
            found in "[a-zA-Z_-]{0,24}",
            pick in 0usize..4,
        ) {
            let spellings = [
                crate::vocab::BackendOp::SPELLINGS,
                crate::vocab::Provider::SPELLINGS,
                crate::vocab::OperatingSystem::SPELLINGS,
                crate::limits::Limits::NAMES,
            ][pick];
            prop_assert_eq!(did_you_mean(&found, spellings), did_you_mean_unbounded(&found, spellings));
        }
    }

    #[test]
    fn a_spelling_far_longer_than_any_known_one_gets_no_suggestion() {
        let ops = crate::vocab::BackendOp::SPELLINGS;
        let longest = ops.iter().map(|s| s.len()).max().unwrap();
        // At every length from near the longest spelling to far past it, the
        // bounded answer is the unbounded one.
        for length in longest.saturating_sub(4)..longest * 3 {
            let found = "q".repeat(length);
            assert_eq!(did_you_mean(&found, ops), did_you_mean_unbounded(&found, ops), "{length}");
            let near = format!("{}{}", ops[0], "q".repeat(length.saturating_sub(ops[0].len())));
            assert_eq!(did_you_mean(&near, ops), did_you_mean_unbounded(&near, ops), "{near}");
        }
        // 16 MiB: no suggestion (the unbounded search took 100 s on this).
        let huge = "q".repeat(16 << 20);
        assert_eq!(did_you_mean(&huge, ops), None);
        // `_` and `-` are folded away before lengths are compared: a long
        // run of them around a near spelling still gets its suggestion.
        let padded = format!("{}matmull{}", "_".repeat(1 << 20), "-".repeat(1 << 20));
        assert_eq!(did_you_mean(&padded, ops), Some("matmul"));
    }

    #[test]
    fn the_first_repeat_is_the_earliest_position_that_repeats_an_earlier_name() {
        assert_eq!(first_repeat(&["a", "b", "c"]), None);
        assert_eq!(first_repeat(&["b", "a", "b", "a"]), Some(2));
        assert_eq!(first_repeat(&["x", "y", "y", "x"]), Some(2));
        assert_eq!(sorted_order(&["b", "a", "b"]), [1, 0, 2]);
        // Past the pairwise length, the sorted way answers the same.
        let long: Vec<String> = (0..40).map(|i| format!("n{i}")).chain(["n7".to_string(), "n3".to_string()]).collect();
        assert_eq!(first_repeat(&long.iter().map(String::as_str).collect::<Vec<_>>()), Some(40));
        let error = reject_repeats(["a", "b", "a"].into_iter(), "features").unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::DuplicateValue, "features[2]"));
        assert_eq!(error.message, "\"a\" is listed twice");
        assert!(reject_repeats(["a", "b"].into_iter(), "x").is_ok());
    }

    #[test]
    fn a_misspelling_suggests_the_one_spelling_it_most_likely_meant() {
        let ops = crate::vocab::BackendOp::SPELLINGS;
        assert_eq!(did_you_mean("matmull", ops), Some("matmul"));
        assert_eq!(did_you_mean("MatMul", ops), Some("matmul"));
        assert_eq!(did_you_mean("SOFTMAX", ops), Some("softmax"));
        assert_eq!(did_you_mean("layer_norm", ops), Some("layerNorm"));
        assert_eq!(did_you_mean("convolution", ops), None, "nothing within one edit in four letters");
        assert_eq!(did_you_mean("xyz", &["abc", "xya", "xyb"]), None, "two equally near");
        assert_eq!(did_you_mean("webgpu", crate::vocab::Provider::SPELLINGS), Some("webGpu"));
        let error = Error::unknown_spelling("BackendOp", "matmull", ops);
        assert_eq!(error.message, r#"unknown BackendOp "matmull": did you mean "matmul"?"#);
        assert_eq!(error.expected.len(), ops.len());
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"flaw", b"lawn"), 2);
        let error = Error::unknown_spelling("BackendOp", "qqqqqqq", ops);
        assert!(error.message.starts_with(r#"unknown BackendOp "qqqqqqq", expected one of: "#), "{}", error.message);
    }

    #[test]
    fn quoted_writes_json_strings() {
        assert_eq!(quoted("cuda"), r#""cuda""#);
        assert_eq!(quoted("it's \"x\"\\"), r#""it's \"x\"\\""#);
        assert_eq!(quoted("tab\tline\n\u{1}"), r#""tab\tline\n\u0001""#);
        assert_eq!(quoted("日本語 😀"), "\"日本語 😀\"");
        // Direction marks and line separators are escaped, not passed through.
        assert_eq!(quoted("a\u{202e}b\u{2066}c\u{2028}d\u{200f}"), r#""a\u202eb\u2066c\u2028d\u200f""#);
        assert_eq!(quoted("\u{61c}\u{200e}\u{202a}\u{2069}"), r#""\u061c\u200e\u202a\u2069""#);
        // Their neighbours are not.
        assert_eq!(
            quoted("\u{200d}\u{2027}\u{202f}\u{2065}\u{206a}\u{61b}"),
            "\"\u{200d}\u{2027}\u{202f}\u{2065}\u{206a}\u{61b}\""
        );
    }

    proptest! {
        #[test]
        fn quoted_reads_back_as_the_same_text(text in any::<String>()) {
            let quoted = quoted(&text);
            prop_assert!(!quoted.chars().any(|c| c < ' '));
            let hidden = |c: char| matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            prop_assert!(!quoted.chars().any(hidden));
            prop_assert_eq!(serde_json::from_str::<String>(&quoted).unwrap(), text);
        }
    }
}
