// Shared by build.rs and src/schema.rs (with `include!`): which forms' schemas
// every build serves, and which only the native command does (the native
// probe's answers). The definitions only the latter reach are embedded in the
// native and WASI builds alone. Together they are `SchemaName`'s spellings,
// in order (tests/schemas.rs checks it).

/// The forms every build (native, WASI, browser) serves a schema for.
#[allow(dead_code)] // read by build.rs and by the unit test in src/schema.rs
pub const SHARED_FORMS: &[&str] =
    &["Target", "Availability", "ExecutionConfig", "KernelCapsule", "PlanRequest", "PlanResult"];

/// The native probe's forms: `backend-targets probe` and `plan --probe`.
pub const NATIVE_ONLY_FORMS: &[&str] = &["NativeResolution", "ProbedPlanResult"];
