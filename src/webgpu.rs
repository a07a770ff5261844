//! What a WebGPU adapter offers and what a capsule may require of it, in
//! WebGPU spelling, and the one rule that compares them. A leaf: the probe
//! fills [`WebGpuCapabilities`], the availability carries them, the planner
//! checks [`WebGpuRequirements`] against them.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What an adapter offers, in WebGPU spelling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct WebGpuCapabilities {
    /// Feature names, sorted (e.g. `shader-f16`).
    pub features: Vec<String>,
    /// Limits by name (e.g. `maxStorageBufferBindingSize`).
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, number>"))]
    pub limits: LimitMap,
}

/// What a capsule needs from the WebGPU adapter. Limits named `min…` (the
/// alignments) are maxima the adapter must not exceed; every other limit is a
/// minimum the adapter must reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
pub struct WebGpuRequirements {
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub features: Vec<String>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "Record<string, number>"))]
    pub limits: LimitMap,
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

    /// [`first_unmet`](Self::first_unmet) against the capabilities' features as a set (built once
    /// per availability by the planner): linear in the requirements.
    pub(crate) fn first_unmet_in<'a>(
        &'a self,
        offered: &FeatureSet<'_>,
        capabilities: &WebGpuCapabilities,
    ) -> Option<Unmet<'a>> {
        if let Some(feature) = self.features.iter().find(|f| !offered.contains(f)) {
            return Some(Unmet::Feature(feature));
        }
        self.limits.iter().find_map(|(name, needed)| {
            let offered = capabilities.limits.get(name);
            let met = offered.is_some_and(|value| LimitBound::of(name).is_met(value, needed));
            (!met).then_some(Unmet::Limit { name, needed, offered })
        })
    }
}

/// The largest limit value every runtime carries exactly (JavaScript's
/// `Number.MAX_SAFE_INTEGER`): above it, `plan()` in JS would round it.
pub const MAX_LIMIT_VALUE: u64 = (1 << 53) - 1;

impl WebGpuCapabilities {
    /// Checks what serde cannot: no feature named twice, no limit value
    /// above [`MAX_LIMIT_VALUE`] (`path` is this value's, e.g. `availability.webGpu`).
    pub(crate) fn validate(&self, path: &str) -> crate::error::Result<()> {
        validate_names_and_values(&self.features, &self.limits, path)
    }
}

impl WebGpuRequirements {
    /// Checks what serde cannot, as [`WebGpuCapabilities::validate`] does
    /// (`path` is this value's, e.g. `requires`).
    pub(crate) fn validate(&self, path: &str) -> crate::error::Result<()> {
        validate_names_and_values(&self.features, &self.limits, path)
    }
}

/// The WebGPU names and values rule: each feature once, each limit value
/// within what JavaScript carries exactly.
fn validate_names_and_values(features: &[String], limits: &LimitMap, path: &str) -> crate::error::Result<()> {
    crate::error::reject_repeats(features.iter().map(String::as_str), &crate::error::join_path(path, "features"))?;
    check_limit_values(limits, path)
}

/// Refuses a limit value above [`MAX_LIMIT_VALUE`], at `path.limits.NAME`.
fn check_limit_values(limits: &LimitMap, path: &str) -> crate::error::Result<()> {
    match limits.iter().find(|(_, value)| *value > MAX_LIMIT_VALUE) {
        None => Ok(()),
        Some((name, value)) => Err(crate::error::Error::new(
            crate::error::ErrorCode::InvalidValue,
            crate::error::join_path(path, &format!("limits.{name}")),
            format!("{value} is above 2^53 - 1, which JavaScript cannot carry exactly"),
        )),
    }
}

/// WebGPU limits by name, in name order: a JSON object of whole numbers.
/// A sorted vector, not a `BTreeMap`: a map's tree code was the largest
/// generic piece left in the browser module (1.7 KB of it gzipped), and these
/// maps are built once, then only read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimitMap(Vec<(String, u64)>);

impl LimitMap {
    /// The limit called `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        let index = self.0.binary_search_by(|(key, _)| key.as_str().cmp(name)).ok()?;
        Some(self.0[index].1)
    }

    /// The limits, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u64)> {
        self.0.iter().map(|(name, value)| (name.as_str(), *value))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.0.iter().map(|(name, _)| name)
    }

    /// The limits from pairs already in name order, each name once; `None`
    /// when they are not (whoever cannot promise that collects them, which
    /// sorts): the browser probe's JS half sorts them, which keeps a sort
    /// out of the detect-only module.
    pub fn from_sorted(pairs: Vec<(String, u64)>) -> Option<Self> {
        pairs.windows(2).all(|pair| pair[0].0 < pair[1].0).then_some(LimitMap(pairs))
    }

    /// How many limits there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(String, u64)> for LimitMap {
    /// Sorted by name; of two equal names, the later value is kept (as a map's `insert` would).
    fn from_iter<I: IntoIterator<Item = (String, u64)>>(pairs: I) -> Self {
        let pairs: Vec<(String, u64)> = pairs.into_iter().collect();
        let names: Vec<&str> = pairs.iter().map(|(name, _)| name.as_str()).collect();
        let mut sorted: Vec<(String, u64)> = Vec::with_capacity(pairs.len());
        for index in crate::error::sorted_order(&names) {
            // Cloned, not moved: moving each pair out (through `Option`) cost
            // the browser module 210 B gzipped, for maps read once per request.
            let (name, value) = &pairs[index];
            match sorted.last_mut() {
                // Equal names come in order of position: the later replaces.
                Some(last) if last.0 == *name => last.1 = *value,
                _ => sorted.push((name.clone(), *value)),
            }
        }
        LimitMap(sorted)
    }
}

impl<const N: usize> From<[(String, u64); N]> for LimitMap {
    fn from(pairs: [(String, u64); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl Serialize for LimitMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for LimitMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LimitMapVisitor;
        impl<'de> Visitor<'de> for LimitMapVisitor {
            type Value = LimitMap;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LimitMap, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, u64>()? {
                    pairs.push(pair);
                }
                Ok(pairs.into_iter().collect())
            }
        }
        deserializer.deserialize_map(LimitMapVisitor)
    }
}

/// The schema of a `BTreeMap<String, u64>`, which is what the JSON is.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for LimitMap {
    fn inline_schema() -> bool {
        <std::collections::BTreeMap<String, u64> as schemars::JsonSchema>::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <std::collections::BTreeMap<String, u64> as schemars::JsonSchema>::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        <std::collections::BTreeMap<String, u64> as schemars::JsonSchema>::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <std::collections::BTreeMap<String, u64> as schemars::JsonSchema>::json_schema(generator)
    }
}

/// Feature names as a set: their name order, searched by bisection.
pub(crate) struct FeatureSet<'a> {
    names: Vec<&'a str>,
    order: Vec<usize>,
}

impl FeatureSet<'_> {
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.order.binary_search_by(|&index| self.names[index].cmp(name)).is_ok()
    }
}

impl WebGpuCapabilities {
    /// The offered features as a set.
    pub(crate) fn feature_set(&self) -> FeatureSet<'_> {
        let names: Vec<&str> = self.features.iter().map(String::as_str).collect();
        let order = crate::error::sorted_order(&names);
        FeatureSet { names, order }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_map_is_in_name_order_and_keeps_the_later_of_two_equal_names() {
        let map: LimitMap = [("b".to_string(), 1), ("a".to_string(), 2), ("b".to_string(), 3)].into();
        assert_eq!(map.iter().collect::<Vec<_>>(), [("a", 2), ("b", 3)]);
        assert_eq!((map.get("b"), map.get("c"), map.len()), (Some(3), None, 2));
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":2,"b":3}"#);
        let read: LimitMap = serde_json::from_str(r#"{"z":1,"m":2}"#).unwrap();
        assert_eq!(read.keys().collect::<Vec<_>>(), ["m", "z"]);
    }

    #[test]
    fn limits_already_in_name_order_are_taken_as_they_are_and_any_other_list_refused() {
        let pairs = |names: &[&str]| names.iter().map(|name| (name.to_string(), 1)).collect::<Vec<_>>();
        let sorted = ["", "10", "Z", "a", "a\u{301}", "\u{ff01}", "\u{1f600}"];
        let map = LimitMap::from_sorted(pairs(&sorted)).unwrap();
        assert_eq!(map, pairs(&sorted).into_iter().rev().collect::<LimitMap>(), "the order collect() gives");
        assert_eq!(LimitMap::from_sorted(pairs(&["b", "a"])), None);
        assert_eq!(LimitMap::from_sorted(pairs(&["a", "a"])), None, "a name twice");
        assert_eq!(LimitMap::from_sorted(pairs(&["\u{1f600}", "\u{ff01}"])), None, "UTF-16's order is not it");
    }

    fn capabilities(features: &[&str], limits: &[(&str, u64)]) -> WebGpuCapabilities {
        WebGpuCapabilities {
            features: features.iter().map(|f| f.to_string()).collect(),
            limits: limits.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        }
    }

    fn requirements(features: &[&str], limits: &[(&str, u64)]) -> WebGpuRequirements {
        WebGpuRequirements {
            features: features.iter().map(|f| f.to_string()).collect(),
            limits: limits.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn the_first_unmet_requirement_is_a_missing_feature_then_a_limit_in_name_order() {
        let caps = capabilities(
            &["shader-f16", "timestamp-query"],
            &[("maxBufferSize", 1 << 28), ("minUniformBufferOffsetAlignment", 256)],
        );
        // Met: nothing asked, or exactly what is offered.
        assert_eq!(requirements(&[], &[]).first_unmet(&caps), None);
        let exact =
            requirements(&["shader-f16"], &[("maxBufferSize", 1 << 28), ("minUniformBufferOffsetAlignment", 256)]);
        assert_eq!(exact.first_unmet(&caps), None);
        // A feature the adapter lacks comes first, even before a limit.
        let wants = requirements(&["shader-f16", "subgroups"], &[("maxBufferSize", 1 << 40)]);
        assert_eq!(wants.first_unmet(&caps), Some(Unmet::Feature("subgroups")));
        // A minimum one above what is offered.
        let more = requirements(&[], &[("maxBufferSize", (1 << 28) + 1)]);
        assert_eq!(
            more.first_unmet(&caps),
            Some(Unmet::Limit { name: "maxBufferSize", needed: (1 << 28) + 1, offered: Some(1 << 28) })
        );
        // A `min…` limit is a maximum: 256 offered meets 256 and 512, not 128.
        let align = |needed| requirements(&[], &[("minUniformBufferOffsetAlignment", needed)]);
        assert_eq!(align(512).first_unmet(&caps), None);
        assert_eq!(
            align(128).first_unmet(&caps),
            Some(Unmet::Limit { name: "minUniformBufferOffsetAlignment", needed: 128, offered: Some(256) })
        );
        // A limit the adapter does not report is unmet, whatever its value.
        let unknown = requirements(&[], &[("maxComputeInvocationsPerWorkgroup", 0)]);
        assert_eq!(
            unknown.first_unmet(&caps),
            Some(Unmet::Limit { name: "maxComputeInvocationsPerWorkgroup", needed: 0, offered: None })
        );
        // Of two unmet limits, the first in name order.
        let two = requirements(&[], &[("maxBufferSize", 1 << 40), ("maxBindGroups", 99)]);
        assert!(matches!(two.first_unmet(&caps), Some(Unmet::Limit { name: "maxBindGroups", .. })));
    }

    #[test]
    fn limit_directions_and_their_words() {
        assert_eq!(LimitBound::of("minStorageBufferOffsetAlignment"), LimitBound::AtMost);
        assert_eq!(LimitBound::of("maxBindGroups"), LimitBound::AtLeast);
        assert_eq!(LimitBound::of("mystery"), LimitBound::AtLeast);
        assert!(
            LimitBound::AtLeast.is_met(5, 5) && LimitBound::AtLeast.is_met(6, 5) && !LimitBound::AtLeast.is_met(4, 5)
        );
        assert!(LimitBound::AtMost.is_met(5, 5) && LimitBound::AtMost.is_met(4, 5) && !LimitBound::AtMost.is_met(6, 5));
        assert_eq!((LimitBound::AtLeast.words(), LimitBound::AtMost.words()), ("at least", "at most"));
    }

    #[test]
    fn limit_values_above_2_53_minus_1_are_refused_at_their_path() {
        let at = |value| -> LimitMap { [("maxBufferSize".to_string(), value)].into() };
        assert!(check_limit_values(&at(MAX_LIMIT_VALUE), "requires").is_ok());
        assert!(check_limit_values(&LimitMap::default(), "requires").is_ok());
        let error = check_limit_values(&at(MAX_LIMIT_VALUE + 1), "capsules[2].requires").unwrap_err();
        assert_eq!(error.code, crate::error::ErrorCode::InvalidValue);
        assert_eq!(error.path, "capsules[2].requires.limits.maxBufferSize");
        assert_eq!(error.message, "9007199254740992 is above 2^53 - 1, which JavaScript cannot carry exactly");
        assert_eq!(check_limit_values(&at(u64::MAX), "").unwrap_err().path, "limits.maxBufferSize");
    }

    #[test]
    fn a_limit_map_that_is_not_an_object_is_a_wrong_type_that_says_a_map() {
        let error = crate::json::from_json::<WebGpuRequirements>(r#"{"limits": [1]}"#).unwrap_err();
        assert_eq!(error.code, crate::error::ErrorCode::WrongType);
        assert_eq!(error.path, "limits");
        assert!(error.message.starts_with("expected a map, found "), "{}", error.message);
    }

    #[test]
    fn an_empty_limit_map_says_so() {
        assert!(LimitMap::default().is_empty());
        assert_eq!(LimitMap::default().len(), 0);
        let one: LimitMap = [("a".to_string(), 1)].into();
        assert!(!one.is_empty());
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn a_feature_set_answers_membership_whatever_the_order_given() {
        let caps = WebGpuCapabilities {
            features: ["timestamp-query", "shader-f16", "bgra8unorm-storage"].map(String::from).to_vec(),
            limits: LimitMap::default(),
        };
        let set = caps.feature_set();
        assert!(["timestamp-query", "shader-f16", "bgra8unorm-storage"].iter().all(|name| set.contains(name)));
        assert!(!set.contains("subgroups") && !set.contains(""));
    }
}
