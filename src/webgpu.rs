//! What a WebGPU adapter offers and what a capsule may require of it, in
//! WebGPU spelling, and the one rule that compares them. A leaf: the probe
//! fills `WebGpuCapabilities`, the availability carries them, the planner
//! checks `WebGpuRequirements` against them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What an adapter offers, in WebGPU spelling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
pub struct WebGpuCapabilities {
    /// Feature names, sorted (e.g. `shader-f16`).
    pub features: Vec<String>,
    /// Limits by name (e.g. `maxStorageBufferBindingSize`).
    #[cfg_attr(browser, tsify(type = "Record<string, number>"))]
    pub limits: BTreeMap<String, u64>,
}

/// What a capsule needs from the WebGPU adapter. Limits named `min…` (the
/// alignments) are maxima the adapter must not exceed; every other limit is a
/// minimum the adapter must reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
pub struct WebGpuRequirements {
    #[cfg_attr(browser, tsify(optional))]
    pub features: Vec<String>,
    #[cfg_attr(browser, tsify(optional, type = "Record<string, number>"))]
    pub limits: BTreeMap<String, u64>,
}

/// The first requirement an adapter does not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmet<'a> {
    /// A feature the adapter lacks.
    Feature(&'a str),
    /// A limit the adapter does not meet (`offered` is absent when it reports none).
    #[allow(missing_docs)]
    Limit { name: &'a str, needed: u64, offered: Option<u64> },
}

impl WebGpuRequirements {
    /// `None` when `capabilities` meet every requirement.
    pub fn first_unmet<'a>(&'a self, capabilities: &WebGpuCapabilities) -> Option<Unmet<'a>> {
        self.first_unmet_in(&capabilities.feature_set(), capabilities)
    }

    /// `first_unmet` against the capabilities' features as a set (built once
    /// per availability by the planner): linear in the requirements.
    pub(crate) fn first_unmet_in<'a>(
        &'a self,
        offered: &FeatureSet,
        capabilities: &WebGpuCapabilities,
    ) -> Option<Unmet<'a>> {
        if let Some(feature) = self.features.iter().find(|f| !offered.contains(f)) {
            return Some(Unmet::Feature(feature));
        }
        self.limits.iter().find_map(|(name, &needed)| {
            let offered = capabilities.limits.get(name).copied();
            let met = offered.is_some_and(|value| LimitBound::of(name).is_met(value, needed));
            (!met).then_some(Unmet::Limit { name, needed, offered })
        })
    }
}

/// The largest limit value every runtime carries exactly (JavaScript's
/// `Number.MAX_SAFE_INTEGER`): above it, `plan()` in JS would round it.
pub const MAX_LIMIT_VALUE: u64 = (1 << 53) - 1;

/// Refuses a limit value above `MAX_LIMIT_VALUE`, at `path.limits.NAME`.
pub(crate) fn check_limit_values(limits: &BTreeMap<String, u64>, path: &str) -> crate::error::Result<()> {
    match limits.iter().find(|(_, value)| **value > MAX_LIMIT_VALUE) {
        None => Ok(()),
        Some((name, value)) => Err(crate::error::Error::new(
            crate::error::ErrorCode::InvalidValue,
            crate::error::join_path(path, &format!("limits.{name}")),
            format!("{value} is above 2^53 - 1, which JavaScript cannot carry exactly"),
        )),
    }
}

/// Feature names as a set. The type of the WebGPU limits, not a set of
/// `&str` or a sorted vector: its one `BTreeMap<String, u64>` instance (and
/// no sort) serves every set of names, which keeps the binaries smaller.
pub(crate) struct FeatureSet(BTreeMap<String, u64>);

impl FeatureSet {
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

impl WebGpuCapabilities {
    /// The offered features as a set.
    pub(crate) fn feature_set(&self) -> FeatureSet {
        // Inserted one by one: `collect` into a map sorts first, which
        // would bring a sort into the binaries.
        let mut set = BTreeMap::new();
        for name in &self.features {
            set.insert(name.clone(), 0);
        }
        FeatureSet(set)
    }
}

/// Which way a WebGPU limit bounds what an adapter offers: the one rule for a
/// limit's direction. Limits named `min…` (the alignments) are maxima: the
/// adapter's value must not exceed what a capsule needs. Every other limit is
/// a minimum the adapter must reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitBound {
    /// The adapter must offer at least the value needed.
    AtLeast,
    /// The adapter's value must be at most the value needed (`min…` limits).
    AtMost,
}

impl LimitBound {
    /// The direction of the limit called `name`.
    pub fn of(name: &str) -> Self {
        if name.starts_with("min") { Self::AtMost } else { Self::AtLeast }
    }

    /// Whether an adapter offering `offered` meets a need of `needed`.
    pub fn is_met(self, offered: u64, needed: u64) -> bool {
        match self {
            Self::AtLeast => offered >= needed,
            Self::AtMost => offered <= needed,
        }
    }

    /// `at least` or `at most`, for messages.
    pub fn words(self) -> &'static str {
        match self {
            Self::AtLeast => "at least",
            Self::AtMost => "at most",
        }
    }
}
