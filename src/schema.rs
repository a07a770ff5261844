//! JSON Schemas of the JSON forms. They are generated from the Rust types by
//! schemars (feature `schema`, see `tests/schemas.rs`) into one set of shared
//! definitions, committed as `schemas/defs.json`, and embedded here minified
//! (by `build.rs`) so that no runtime carries schemars. A form's schema is a
//! `$ref` to the form with one copy of the definitions: those every build's
//! forms use, plus, for the native probe's forms (native command only), those
//! only they use. The browser build carries no definition it cannot serve.

use crate::vocab::spelled_enum;

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
/// braces: `"Target":{...},...`.
const SHARED_DEFINITIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/defs.shared"));

/// The definitions only the native probe's forms use (not in the browser
/// build, which serves no such form).
#[cfg(not(browser))]
const NATIVE_DEFINITIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/defs.native"));

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
        let definitions = if !self.is_native_only() {
            SHARED_DEFINITIONS.to_string()
        } else {
            #[cfg(browser)]
            return None;
            #[cfg(not(browser))]
            format!("{SHARED_DEFINITIONS},{NATIVE_DEFINITIONS}")
        };
        Some(format!(r##"{{"$schema":"{DRAFT}","title":"{self}","$ref":"#/$defs/{self}","$defs":{{{definitions}}}}}"##))
    }

    /// Generates the shared definitions of every form from the Rust types,
    /// as the pretty `schemas/defs.json` (with a trailing newline).
    #[cfg(feature = "schema")]
    pub fn generate_definitions() -> String {
        use crate::probe::native::{NativeResolution, ProbedPlanResult};
        use crate::*;
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

    #[test]
    fn the_form_lists_are_the_schema_names_in_order() {
        let listed: Vec<&str> = SHARED_FORMS.iter().chain(NATIVE_ONLY_FORMS).copied().collect();
        assert_eq!(listed, SchemaName::SPELLINGS);
    }
}
