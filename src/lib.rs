//! Backend targets as data, their declared availability, and the explained
//! capsule planner of `NN.Backend`, in one pure core shared by every edge:
//! the command line (native and WASI), and the JavaScript API (browser, web
//! worker, Node). The contract is `docs/SPEC.md`.
//!
//! ```
//! use backend_targets::*;
//! let target = Target::linux_cuda(true);
//! let availability = target.declared_availability();
//! assert_eq!(availability.devices, [Device::Cpu, Device::Cuda]);
//! let result = plan(&PlanRequest::new(vec![BackendOp::Matmul])).unwrap();
//! assert!(result.ok);
//! ```
//!
//! The tree: the pure core at the top level (`vocab`, `target`,
//! `availability`, `config`, `capsule`, `planner`, `request`, `webgpu`,
//! `probe`, `host`, `error`, `schema`), strict JSON in `json/`, and one folder or file
//! per edge, compiled only where it belongs: `cli` (native and WASI), `wasm/`
//! (the JS API and the browser probe, `cfg(browser)`), `native/` (the native
//! probe: loads vendor runtimes, native builds only). Every item has one
//! public path: the core's through the re-exports below, an edge's through
//! its module (`cli::run`, `wasm::plan`).

// The core: no JS, wgpu or OS types.
mod availability;
mod capsule;
mod config;
mod error;
#[cfg(not(browser))]
mod host;
mod json;
mod limits;
mod planner;
mod probe;
mod request;
mod schema;
mod target;
mod vocab;
mod webgpu;

// The edges.
#[cfg(not(browser))]
pub mod cli;
#[cfg(not(target_family = "wasm"))]
pub mod native;
#[cfg(browser)]
pub mod wasm;

pub use availability::Availability;
pub use capsule::{KernelCapsule, reference_capsules};
pub use config::{BackendPreference, ExecutionConfig};
pub use error::{Error, ErrorCode, Result};
#[cfg(not(browser))]
pub use host::{
    ChangeAction, CheckReport, HostDevice, HostReport, Isolation, NativeChange, NativeCheck, NativeReason,
    NativeResolution, ProbedPlanResult, Subject,
};
pub use json::{from_json, to_json, to_json_pretty};
pub use limits::Limits;
pub use planner::{
    Candidate, ConfigAttempt, Kernel, OpExplanation, PlanMode, PlanResult, Planner, RejectionReason, Verdict,
    is_admissible, no_capsule_message, plan_ops,
};
pub use probe::{
    AdapterInfo, AdapterReport, DEFAULT_PROBE_TIMEOUT_MS, FeatureAction, FeatureChange, PowerPreference, ProbeOptions,
    ProbeReason, ProbeReport, Resolution, resolve,
};
pub use request::{
    PlanRequest, parse_availability, parse_plan_request, parse_plan_request_with, parse_target, plan,
    plan_request_json, plan_request_json_with,
};
pub use schema::SchemaName;
pub use target::{NamedPreset, Preset, PresetOptions, PresetParameters, Target, presets};
pub use vocab::{
    Accelerator, Architecture, BackendOp, BuildFeature, Device, OperatingSystem, Provider, TrustLevel, TrustPolicy,
    VJPMode,
};
pub use webgpu::{LimitBound, LimitMap, Unmet, WebGpuCapabilities, WebGpuRequirements};

// The browser build's allocator is talc, behind the hook that starts a fresh
// instance when an allocation fails (src/wasm/api.rs; BENCHMARKS.md, "The
// allocator").
