//! JSON Schemas of the JSON forms. They are generated from the Rust types by
//! schemars (feature [`schema`](crate::schema), see `tests/schemas.rs`) into one set of shared
//! definitions, committed as `schemas/defs.json`, and embedded here minified
//! (by `build.rs`) so that no runtime carries schemars. A form's schema is a
//! `$ref` to the form with one copy of the definitions: those every build's
//! forms use, plus, for the native probe's forms (native command only), those
//! only they use. The browser build carries no definition it cannot serve.

use crate::spelling::spelled_enum;

spelled_enum! {
    /// The JSON forms that have a schema.
    pub enum SchemaName {
        Target = "Target",
        Availability = "Availability",
        ExecutionConfig = "ExecutionConfig",
        KernelCapsule = "KernelCapsule",
        PlanRequest = "PlanRequest",
        PlanResult = "PlanResult",
        /// The native probe's answer (`backend-targets probe`).
        NativeResolution = "NativeResolution",
        /// `plan --probe`: the plan result with the resolution.
        ProbedPlanResult = "ProbedPlanResult",
    }
}

include!("schema_forms.rs");

/// The definitions every form's schema may use, minified, without the
/// braces: `"Target":{...},...` (the browser build's copy, as text).
#[cfg(not(feature = "native-forms"))]
const SHARED_DEFINITIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/defs.shared"));

/// The command's copy: the shared definitions, a comma and those only the
/// native probe's forms use, packed (src/schema_packing.rs: 23.6 KB of text in
/// some 9 KB of the module, which is judged by its raw bytes).
#[cfg(feature = "native-forms")]
const PACKED_DEFINITIONS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/defs.packed"));

/// Where the shared definitions end in the unpacked text.
#[cfg(feature = "native-forms")]
const SHARED_BYTES: usize = include!(concat!(env!("OUT_DIR"), "/defs.shared_bytes"));

#[cfg(feature = "native-forms")]
include!("schema_packing.rs");

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

impl SchemaName {
    /// Whether only the native command serves this form's schema.
    pub fn is_native_only(self) -> bool {
        NATIVE_ONLY_FORMS.contains(&self.as_str())
    }

    /// The form's schema: draft 2020-12, minified, on one line, with the
    /// definitions it can reach. `None` for a native-only form in the browser
    /// build.
    pub fn text(self) -> Option<String> {
        #[cfg(not(feature = "native-forms"))]
        let definitions = match self.is_native_only() {
            true => return None,
            false => SHARED_DEFINITIONS,
        };
        #[cfg(feature = "native-forms")]
        let all = unpack(PACKED_DEFINITIONS);
        #[cfg(feature = "native-forms")]
        let definitions = match self.is_native_only() {
            true => all.as_str(),
            false => all.get(..SHARED_BYTES).unwrap_or_default(),
        };
        Some(format!(r##"{{"$schema":"{DRAFT}","title":"{self}","$ref":"#/$defs/{self}","$defs":{{{definitions}}}}}"##))
    }

    /// Generates the shared definitions of every form from the Rust types,
    /// as the pretty `schemas/defs.json` (with a trailing newline).
    #[cfg(feature = "schema")]
    pub fn generate_definitions() -> String {
        use crate::availability::Availability;
        use crate::capsule::KernelCapsule;
        use crate::config::ExecutionConfig;
        use crate::plan_result::PlanResult;
        use crate::probe::native::{NativeResolution, ProbedPlanResult};
        use crate::request::PlanRequest;
        use crate::target::Target;
        let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        generator.subschema_for::<Target>();
        generator.subschema_for::<Availability>();
        generator.subschema_for::<ExecutionConfig>();
        generator.subschema_for::<KernelCapsule>();
        generator.subschema_for::<PlanRequest>();
        generator.subschema_for::<PlanResult>();
        generator.subschema_for::<NativeResolution>();
        generator.subschema_for::<ProbedPlanResult>();
        let definitions = generator.take_definitions(true);
        let mut text = serde_json::to_string_pretty(&definitions).unwrap_or_default();
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "native-forms")]
    use proptest::prelude::*;

    #[cfg(feature = "native-forms")]
    #[test]
    fn the_packed_definitions_are_the_shared_then_the_native_ones() {
        let all = unpack(PACKED_DEFINITIONS);
        let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&format!("{{{all}}}")).unwrap();
        assert!(object.contains_key("Target") && object.contains_key("NativeResolution"));
        let shared: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&format!("{{{}}}", &all[..SHARED_BYTES])).unwrap();
        assert!(shared.contains_key("PlanRequest") && !shared.contains_key("NativeResolution"));
        assert!(
            PACKED_DEFINITIONS.len() * 2 < all.len(),
            "packed: {} of {} bytes",
            PACKED_DEFINITIONS.len(),
            all.len()
        );
    }

    #[cfg(feature = "native-forms")]
    #[test]
    fn unpacking_what_pack_never_writes_stops_without_a_panic() {
        assert_eq!(unpack(&[]), "");
        assert_eq!(unpack(&[5, b'a']), "", "a literal run cut short");
        assert_eq!(unpack(&[0x80, 9]), "", "a copy from before the start");
        assert_eq!(unpack(&[0xc0, 9, 0]), "", "a far copy from before the start");
        assert_eq!(unpack(&[1, b'a', b'b', 0x85]), "ab", "a copy without its distance");
        assert_eq!(unpack(&[1, b'a', b'b', 0xc5, 1]), "ab", "a far copy with half its distance");
        assert_eq!(unpack(&[1, b'a', b'b', 0x80, 2, 0xc1, 3, 0]), "ababaabaa", "near, then far");
        assert_eq!(unpack(&[0, 0xff]), "", "not UTF-8");
    }

    #[cfg(feature = "native-forms")]
    proptest! {
        // Few cases: `pack` is build.rs's, and slow unoptimised.
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn pack_then_unpack_gives_the_text_back(text in "([a-c\"{}:,]{0,8}|é|😀){0,400}") {
            prop_assert_eq!(unpack(&pack(text.as_bytes())), text);
        }

        #[test]
        fn long_repeats_and_long_runs_round_trip(unit in "[a-z]{1,5}", times in 1usize..400, tail in "[A-Z]{0,300}") {
            let text = format!("{}{tail}", unit.repeat(times));
            prop_assert_eq!(unpack(&pack(text.as_bytes())), text);
        }
    }

    #[test]
    fn the_form_lists_are_the_schema_names_in_order() {
        let listed: Vec<&str> = SHARED_FORMS.iter().chain(NATIVE_ONLY_FORMS).copied().collect();
        assert_eq!(listed, SchemaName::SPELLINGS);
    }
}
