//! JSON Schemas of the JSON forms. They are generated from the Rust types by
//! schemars (feature `schema`, see `tests/schemas.rs`) into one set of shared
//! definitions, committed as `schemas/defs.json`, and embedded here minified
//! (by `build.rs`) so that no runtime carries schemars. Each form's schema is
//! that set with a `$ref` to the form: one copy of every definition, however
//! many forms use it.

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

/// The shared definitions, minified: `{"Target": {...}, ...}`.
const DEFINITIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/defs.min.json"));

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

impl SchemaName {
    /// The form's schema: draft 2020-12, minified, on one line.
    pub fn text(self) -> String {
        format!(r##"{{"$schema":"{DRAFT}","title":"{self}","$ref":"#/$defs/{self}","$defs":{DEFINITIONS}}}"##)
    }

    /// Generates the shared definitions of every form from the Rust types,
    /// as the pretty `schemas/defs.json` (with a trailing newline).
    #[cfg(feature = "schema")]
    pub fn generate_definitions() -> String {
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
