//! JSON Schemas of the JSON forms. They are generated from the Rust types by
//! schemars (feature `schema`, see `tests/schemas.rs`), committed under
//! `schemas/`, and embedded here minified (by `build.rs`) as text, so that
//! no runtime carries schemars.

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
    }
}

impl SchemaName {
    /// The committed schema, minified (one line, no trailing newline).
    pub fn text(self) -> &'static str {
        match self {
            Self::Target => include_str!(concat!(env!("OUT_DIR"), "/Target.json")),
            Self::Availability => include_str!(concat!(env!("OUT_DIR"), "/Availability.json")),
            Self::ExecutionConfig => include_str!(concat!(env!("OUT_DIR"), "/ExecutionConfig.json")),
            Self::KernelCapsule => include_str!(concat!(env!("OUT_DIR"), "/KernelCapsule.json")),
            Self::PlanRequest => include_str!(concat!(env!("OUT_DIR"), "/PlanRequest.json")),
            Self::PlanResult => include_str!(concat!(env!("OUT_DIR"), "/PlanResult.json")),
        }
    }

    /// Generates the schema from the Rust type.
    #[cfg(feature = "schema")]
    pub fn generate(self) -> String {
        use crate::*;
        let schema = match self {
            Self::Target => schemars::schema_for!(Target),
            Self::Availability => schemars::schema_for!(Availability),
            Self::ExecutionConfig => schemars::schema_for!(ExecutionConfig),
            Self::KernelCapsule => schemars::schema_for!(KernelCapsule),
            Self::PlanRequest => schemars::schema_for!(PlanRequest),
            Self::PlanResult => schemars::schema_for!(PlanResult),
        };
        let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
        text.push('\n');
        text
    }
}
