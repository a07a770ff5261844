//! Reading the command line: lexopt's errors in the command's words, the
//! options each command takes (a misspelled one gets a did-you-mean), an
//! option given twice refused.

use std::ffi::OsString;

use backend_targets::wording::quoted_short;
use backend_targets::{Error, ErrorCode};

pub(crate) fn usage(path: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Usage, path, message)
}

/// lexopt's error in lexopt's words, but with the argument quoted as JSON
/// ([`wording::quoted_short`](backend_targets::wording::quoted_short)), as every message quotes a value: lexopt's own
/// `{:?}` printed nothing in the builds without [`Debug`] formatting (WASI), and
/// its `Display` linked the formatting of any boxed error (2.5 KB there).
/// An option that is not a plain name is a quoted path too ([`option_path`]):
/// a newline or an escape in it stays out of the one line of stderr.
pub(crate) fn usage_error(error: lexopt::Error) -> Error {
    use lexopt::Error::*;
    let quoted = |value: &OsString| quoted_short(&value.to_string_lossy());
    let option_quoted = |option: &str| quoted_short(option);
    match &error {
        MissingValue { option: None } => usage("", "missing argument"),
        MissingValue { option: Some(option) } => {
            usage(&option_path(option), format!("missing argument for option {}", option_quoted(option)))
        }
        UnexpectedOption(option) => usage(&option_path(option), format!("invalid option {}", option_quoted(option))),
        UnexpectedArgument(value) => usage("", format!("unexpected argument {}", quoted(value))),
        UnexpectedValue { option, value } => usage(
            &option_path(option),
            format!("unexpected argument for option {}: {}", option_quoted(option), quoted(value)),
        ),
        NonUnicodeValue(value) => usage("", format!("argument is invalid unicode: {}", quoted(value))),
        // Made only by a caller's own parsing or messages, which this command has none of.
        _ => usage("", "invalid arguments"),
    }
}

/// The long options of `probe`; `target` and `availability` take all but
/// the first two, `presets`, `schema` and `reference-capsules` the last two
/// ([`COMMON_OPTIONS`]). A misspelled option is compared with the list of its
/// command (a unit test holds each list to the command's help, and the
/// preset options to [`OptionSpelling::TABLE`](backend_targets::OptionSpelling::TABLE)).
pub(crate) const PROBE_OPTIONS: &[&str] =
    &["--timeout-ms", "--report", "--os", "--arch", "--enable-libtorch", "--pretty", "--help"];
/// `target`'s and `availability`'s long options.
pub(crate) const PRESET_OPTIONS: &[&str] = PROBE_OPTIONS.split_at(2).1;
/// The long options every command takes.
pub(crate) const COMMON_OPTIONS: &[&str] = PROBE_OPTIONS.split_at(5).1;
/// `plan`'s long options.
pub(crate) const PLAN_OPTIONS: &[&str] = &["--request", "--probe", "--timeout-ms", "--limit", "--pretty", "--help"];
/// The long options before any command.
pub(crate) const MAIN_OPTIONS: &[&str] = &["--help", "--version"];

/// An argument a command does not take: a long option is an unknown
/// spelling of the `options` it takes ([`Error::unknown_spelling`], as for a
/// misspelled JSON value: what it most likely meant, or the list), a `usage`
/// error at the option; anything else is lexopt's error ([`usage_error`]).
#[inline(never)]
pub(crate) fn refused(arg: lexopt::Arg<'_>, options: &[&str]) -> Error {
    match arg.unexpected() {
        lexopt::Error::UnexpectedOption(option) if option.starts_with("--") => {
            let spelled = Error::unknown_spelling("option", &option, options);
            Error { code: ErrorCode::Usage, path: option_path(&option), ..spelled }
        }
        other => usage_error(other),
    }
}

/// An option as an error's path: itself when it is a plain name (`--frob`,
/// `-x`: ASCII letters, digits, `-` and `_`, at most 64 bytes), else quoted
/// as an index (`["--a\nb"]`), cut as messages cut it.
pub(crate) fn option_path(option: &str) -> String {
    let plain = !option.is_empty()
        && option.len() <= 64
        && option.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain { option.to_string() } else { format!("[{}]", quoted_short(option)) }
}

pub(crate) fn text_arg(value: OsString, what: &str) -> Result<String, Error> {
    value.into_string().map_err(|_| usage(what, "not valid UTF-8"))
}
