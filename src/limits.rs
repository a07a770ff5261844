//! The limits a plan request meets: its bytes, ops, configs, capsules, the
//! length of names, the size of WebGPU feature lists and limit maps, the
//! planner's work (configs × (ops + capsules)), which bounds its time, and
//! the size of its answer, bounded before planning (configs × each op's
//! capsules with their names and sentences), which bounds its memory. The
//! defaults are far above any real catalog and keep a request inside the
//! browser module's memory; each can be raised (`--limit NAME=N`, the JS
//! `limits` option) up to a hard ceiling. A request beyond one is refused
//! with `limit-exceeded` at the path of what exceeds it.
//!
//! The lists and maps a count limit bounds are one table, [`COUNTED`]: the
//! strict readers count them as they read a request's text ([`json`](crate::json)), so the
//! first one over its limit is refused there, its items past the limit
//! counted but never read; [`Limits::check_request`] counts a request built in code.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result, join_path};

/// Makes [`Limits`] from one row a limit: its doc, its field, its name (in
/// JSON, on the command line and in messages), its default and its ceiling.
/// The struct, [`DEFAULT`](Limits::DEFAULT), [`CEILING`](Limits::CEILING), [`NAMES`](Limits::NAMES), [`get`](Limits::get) and [`set`](Limits::set) all come from
/// the rows, so a limit cannot be named in one and missing from another
/// (tests/limits_table.rs holds the result to its JSON form).
macro_rules! limits_table {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident = $name:literal: default $default:expr, ceiling $ceiling:expr;
    )+) => {
        /// The limits one plan request meets. Every field defaults to
        /// `Limits::DEFAULT`'s and may be raised up to `Limits::CEILING`'s.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
        pub struct Limits {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $name)]
                #[cfg_attr(feature = "typescript", tsify(optional))]
                pub $field: usize,
            )+
        }

        impl Limits {
            /// What a request meets unless told otherwise.
            pub const DEFAULT: Limits = Limits { $($field: $default,)+ };

            /// How far each limit may be raised.
            pub const CEILING: Limits = Limits { $($field: $ceiling,)+ };

            /// The names, as in JSON and on the command line, in order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The limit called `name`.
            pub fn get(&self, name: &str) -> Option<usize> {
                match name {
                    $($name => Some(self.$field),)+
                    _ => None,
                }
            }

            /// The field of the limit called `name`.
            fn field_mut(&mut self, name: &str) -> Option<&mut usize> {
                match name {
                    $($name => Some(&mut self.$field),)+
                    _ => None,
                }
            }
        }
    };
}

limits_table! {
    /// The request's size in bytes (UTF-8). Default 16 MiB.
    request_bytes = "requestBytes": default 16 << 20, ceiling 256 << 20;
    /// Entries in `ops`. Default 10,000.
    ops = "ops": default 10_000, ceiling 1_000_000;
    /// Entries in `configs`. Default 64.
    configs = "configs": default 64, ceiling 4_096;
    /// Entries in `capsules`. Default 100,000.
    capsules = "capsules": default 100_000, ceiling 1_000_000;
    /// Bytes in a capsule name, a WebGPU feature name or limit name. Default 1,024.
    name_bytes = "nameBytes": default 1_024, ceiling 1 << 20;
    /// Entries in one WebGPU `features` list. Default 1,024.
    features = "features": default 1_024, ceiling 65_536;
    /// Entries in one WebGPU `limits` map. Default 1,024.
    limits = "limits": default 1_024, ceiling 65_536;
    /// configs × (ops + capsules): the planner's work. Default 100,000.
    work = "work": default 100_000, ceiling 2_000_000;
    /// The plan result's compact JSON text, in bytes, as bounded before
    /// planning from the request. Default 128 MiB.
    // Its ceiling: a JS string (the npm module's answer) holds some 512 Mi
    // UTF-16 units, and the module's 2 GiB must hold the request, the plan
    // and this text at once.
    output_bytes = "outputBytes": default 128 << 20, ceiling 256 << 20;
}

/// A step on the way to a counted list or map from a plan request's root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The value of this key.
    Key(&'static str),
    /// Any item of a list.
    Item,
}

/// The lists and maps of a plan request that a count limit bounds, with
/// their place; what is counted is named as the limit is (`N features`).
/// The readers look a list's or map's place up here as they open it
/// (`json::path::Where::count_limit`); a test in [`request`](crate::request) holds
/// [`Limits::check_request`] to it.
pub(crate) const COUNTED: &[Counted] = {
    use Step::{Item, Key};
    &[
        Counted { name: "ops", limit: |limits| limits.ops, steps: &[Key("ops")] },
        Counted { name: "configs", limit: |limits| limits.configs, steps: &[Key("configs")] },
        Counted { name: "capsules", limit: |limits| limits.capsules, steps: &[Key("capsules")] },
        Counted {
            name: "features",
            limit: |limits| limits.features,
            steps: &[Key("capsules"), Item, Key("requires"), Key("features")],
        },
        Counted {
            name: "limits",
            limit: |limits| limits.limits,
            steps: &[Key("capsules"), Item, Key("requires"), Key("limits")],
        },
        Counted {
            name: "features",
            limit: |limits| limits.features,
            steps: &[Key("availability"), Key("webGpu"), Key("features")],
        },
        Counted {
            name: "limits",
            limit: |limits| limits.limits,
            steps: &[Key("availability"), Key("webGpu"), Key("limits")],
        },
    ]
};

/// A row of [`COUNTED`]: the limit's name (also what it counts), its value,
/// and the place of the list or map it bounds.
pub(crate) struct Counted {
    pub(crate) name: &'static str,
    pub(crate) limit: fn(&Limits) -> usize,
    pub(crate) steps: &'static [Step],
}

impl Limits {
    /// Applies one override `NAME=N`, as the command's `--limit NAME=N` and
    /// the service's `?limit=NAME=N` give it, with every error at `path` (the
    /// option, or the parameter): text that is not `NAME=N`, a name that is
    /// not a limit's (with the one it most likely meant), a name already in
    /// `given` (each limit once), a value above its ceiling. The one reader
    /// of an override: both edges call it, so their messages are one.
    pub fn apply_override(&mut self, text: &str, path: &str, given: &mut Vec<String>) -> Result<()> {
        let bad = || {
            let names = crate::error::joined(Self::NAMES, ", ");
            let found = crate::error::quoted_short(text);
            Error::new(ErrorCode::Usage, path, format!("expected NAME=N (NAME one of: {names}), found {found}"))
        };
        let (name, value) = text.split_once('=').ok_or_else(bad)?;
        if Self::DEFAULT.get(name).is_none() {
            return Err(Error::unknown_spelling("limit", name, Self::NAMES).under(path));
        }
        let value = value.parse::<usize>().map_err(|_| bad())?;
        if given.iter().any(|earlier| earlier == name) {
            return Err(Error::new(ErrorCode::Usage, path, format!("the limit {name} is given twice")));
        }
        self.set(name, value).map_err(|e| e.under(path))?;
        given.push(name.to_string());
        Ok(())
    }

    /// Sets the limit called `name` (e.g. from `--limit capsules=200000`),
    /// up to its ceiling.
    pub fn set(&mut self, name: &str, value: usize) -> Result<()> {
        let Some(field) = self.field_mut(name) else {
            return Err(Error::unknown_spelling("limit", name, Self::NAMES));
        };
        // Checked first: a refused value leaves the limit as it was.
        Self::check_ceiling(name, value, Self::CEILING.get(name).unwrap_or(0))?;
        *field = value;
        Ok(())
    }

    fn check_ceiling(name: &str, value: usize, ceiling: usize) -> Result<()> {
        if value > ceiling {
            return Err(Error::new(
                ErrorCode::InvalidValue,
                name,
                format!("the limit {name} can be raised to {ceiling} at most, not {value}"),
            ));
        }
        Ok(())
    }

    /// Checks that no limit is above its ceiling.
    pub fn validate(&self, path: &str) -> Result<()> {
        for name in Self::NAMES {
            let (value, ceiling) = (self.get(name).unwrap_or(0), Self::CEILING.get(name).unwrap_or(0));
            Self::check_ceiling(name, value, ceiling).map_err(|e| e.under(path))?;
        }
        Ok(())
    }

    /// Refuses `count` items at `path` beyond `limit` (named `name`). The
    /// message is the same bytes from the command, the service and the npm
    /// package, so it names the three ways to raise the limit at once.
    /// (Public for the browser module, which counts what the host hands it.)
    pub fn check(path: &str, name: &str, what: &str, count: usize, limit: usize) -> Result<()> {
        if count > limit {
            return Err(Error::new(ErrorCode::LimitExceeded, path, Self::exceeded(name, what, count, limit)));
        }
        Ok(())
    }

    /// `check`'s sentence: `count` `what`, more than the limit `name`.
    #[inline(never)]
    pub(crate) fn exceeded(name: &str, what: &str, count: usize, limit: usize) -> String {
        format!(
            "{count} {what}, more than the limit {name} = {limit} (raise it: --limit {name}=N, ?limit={name}=N, \
             {{ limits: {{ {name}: N }} }})"
        )
    }

    /// Refuses a request text longer than `request_bytes`.
    pub fn check_bytes(&self, bytes: usize) -> Result<()> {
        Self::check("", "requestBytes", "bytes", bytes, self.request_bytes)
    }

    /// Refuses a WebGPU feature list or limit map at `path` beyond the limits.
    pub(crate) fn check_webgpu<'a>(
        &self,
        path: &str,
        features: &'a [String],
        limits: impl ExactSizeIterator<Item = &'a String>,
    ) -> Result<()> {
        let features_path = join_path(path, "features");
        Self::check(&features_path, "features", "features", features.len(), self.features)?;
        for (index, feature) in features.iter().enumerate() {
            // The item's path is built only for a name that is too long.
            self.check_name("", feature).map_err(|e| e.under(&format!("{features_path}[{index}]")))?;
        }
        let limits_path = join_path(path, "limits");
        Self::check(&limits_path, "limits", "limits", limits.len(), self.limits)?;
        for name in limits {
            self.check_name(&limits_path, name)?;
        }
        Ok(())
    }

    /// Refuses a name longer than `name_bytes`.
    pub(crate) fn check_name(&self, path: &str, name: &str) -> Result<()> {
        Self::check(path, "nameBytes", "bytes in a name", name.len(), self.name_bytes)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The options of the JS API's `plan` and `planJson` (`{ limits }`): the
/// limits a request meets, each up to its ceiling (the browser module
/// validates them at `options.limits`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct PlanOptions {
    /// The limits, every one absent at its default.
    pub limits: Limits,
}
