//! Backend targets as data, their declared availability, and the explained
//! capsule planner of `NN.Backend`, in one pure core shared by every edge:
//! the command line (native and WASI), and the JavaScript API (browser, web
//! worker, Node).
//!
//! ```
//! use backend_targets::*;
//! let target = Target::linux_cuda(true);
//! let availability = target.declared_availability();
//! assert_eq!(availability.devices, [Device::Cpu, Device::Cuda]);
//! let result = plan(&PlanRequest::new(vec![BackendOp::Matmul])).unwrap();
//! assert!(result.ok);
//! ```

mod vocab;

pub mod availability;
pub mod capsule;
pub mod config;
pub mod error;
pub mod json;
pub mod planner;
pub mod probe;
pub mod request;
pub mod schema;
mod strict;
pub mod target;

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub mod cli;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod wasm_api;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod probe_web;

pub use availability::Availability;
pub use capsule::{KernelCapsule, reference_capsules};
pub use config::{BackendPreference, ExecutionConfig};
pub use error::{Error, ErrorCode};
pub use planner::{
    Candidate, ConfigAttempt, Kernel, OpExplanation, PlanMode, PlanResult, Planner, RejectionReason, Verdict,
    is_admissible, no_capsule_message, plan_ops,
};
pub use probe::{
    AdapterInfo, AdapterReport, FeatureAction, FeatureChange, ProbeOptions, ProbeReason, ProbeReport, Resolution,
    WebGpuCapabilities, WebGpuRequirements, resolve,
};
pub use request::{PlanRequest, parse_availability, parse_plan_request, parse_target, plan, plan_request_json};
pub use schema::SchemaName;
pub use target::{NamedPreset, Preset, PresetOptions, Target, presets};
pub use vocab::{
    Accelerator, Architecture, BackendOp, BuildFeature, Device, OperatingSystem, Provider, TrustLevel, TrustPolicy,
    VJPMode,
};

// The browser build's allocator: talc is smaller than the default dlmalloc
// and faster at the planner's many small allocations (BENCHMARKS.md).
#[cfg(all(target_arch = "wasm32", target_os = "unknown", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
