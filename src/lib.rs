//! Backend targets as data, their declared availability, and the explained
//! capsule planner of `NN.Backend`, in one pure core shared by every edge:
//! the command line (native and WASI), the JavaScript API (browser, web
//! worker, Node) and the HTTP service. The contract is `docs/SPEC.md`.
//!
//! ```
//! use backend_targets::{Limits, PlanRequest, Target, plan, vocab::{BackendOp, Device}};
//! let target = Target::linux_cuda(true);
//! let availability = target.declared_availability();
//! assert_eq!(availability.devices, [Device::Cpu, Device::Cuda]);
//! let result = plan(&PlanRequest::new(vec![BackendOp::Matmul]), &Limits::DEFAULT).unwrap();
//! assert!(result.ok);
//! ```
//!
//! **One way to plan**: [`plan`] (a [`PlanRequest`], validated against
//! [`Limits`]) from Rust, [`plan_json`] for JSON text (the same bytes as the
//! command and the JS API); both answer a [`PlanResult`], whose parts are in
//! [`plan_result`]. The text entry points parse strictly ([`parse_target`],
//! [`parse_availability`], [`parse_plan_request`]).
//!
//! **Names**: every vocabulary ([`vocab`]) has one JSON spelling per value
//! (SPEC §1), and its Rust name is that spelling in Rust's case:
//! [`Provider::CuBlas`](vocab::Provider::CuBlas) is `"cuBLAS"`, [`VJPMode::BackendVjp`](vocab::VJPMode::BackendVjp) is `"backendVJP"`,
//! [`OperatingSystem::MacOS`](vocab::OperatingSystem::MacOS) is `"macOS"`. Each enum's `as_str()` gives a
//! value's, `from_spelling` reads one, and its `SPELLINGS` lists them all,
//! each beside its Rust name in its documentation.
//!
//! The tree: the pure core at the top level ([`vocab`], `target`,
//! `availability`, `config`, `capsule`, `request`, `limits`, `entry_points`,
//! `planner`, [`plan_result`], [`webgpu`], `probe/` with its two halves, `error`,
//! `schema`, `spelling`), strict JSON in `json/`. The edges are crates of
//! their own in this workspace, over this one: `backend-targets-native-probe`
//! (`crates/native-probe/`: loads vendor runtimes, isolates them in child
//! processes), `backend-targets-cli` (`crates/cli/`: the command, native
//! and WASI, whose binary makes the process-wide choices) and
//! `backend-targets-browser` (`crates/browser/`: the JS API and the browser
//! probe, the npm package's modules), with the service in `http/`
//! (ARCHITECTURE.md draws the graph). Every item has one public path: the
//! flow's at the root, the rest in its public module ([`vocab`],
//! [`plan_result`], [`webgpu`], [`probe::web`], [`probe::native`], [`json`], [`wording`]).
//!
//! **Features** (each adds; the defaults are every build's but the browser
//! module's): `native-forms` (default: the schemas of the forms only the
//! command serves; [`probe::native`], the native probe's data and its
//! decision table, is in every build: the npm package answers with it where
//! no probe can run), `schema` (JSON Schemas by schemars),
//! and, for the browser module only, `typescript` (the forms' TypeScript
//! types, tsify). One JSON reader ([`json`], one pass) and one writer
//! (serde_json's) in every build.

// The core: no JS, wgpu or OS types.
mod availability;
mod capsule;
mod config;
mod entry_points;
mod error;
pub mod json;
mod limits;
pub mod plan_result;
mod planner;
pub mod probe;
mod request;
mod schema;
mod spelling;
#[cfg(test)]
mod strict_reader_oracle;
mod target;
pub mod vocab;
pub mod webgpu;

/// The small parts of the sentences every edge writes: a list joined, a
/// value quoted (shortened past 64 characters), a foreign string made safe
/// for a report, so that the command's and the service's messages read as
/// the core's.
pub mod wording {
    pub use crate::error::{joined, printable, quoted_short};
}

pub use availability::Availability;
pub use capsule::{KernelCapsule, reference_capsules};
pub use config::{BackendPreference, ExecutionConfig};
pub use entry_points::{FromJsonText, ToJsonText, parse_availability, parse_plan_request, parse_target, plan_json};
pub use error::{Error, ErrorCode, Result};
pub use limits::{Limits, PlanOptions};
pub use plan_result::{PlanMode, PlanResult};
pub use request::{PlanRequest, plan};
pub use schema::SchemaName;
pub use target::{NamedPreset, OptionSpelling, Preset, PresetOptions, PresetParameters, Target, presets};

// No process-wide effect: the library sets no global allocator, exports no
// C symbol, adds no loader constructor, panic hook or signal handler, in any
// build; a program that links it makes those choices (the command's are in
// crates/cli/src/main.rs and crates/cli/src/main/, the browser module's in
// its start, crates/browser/src/api.rs; tests/library_effects.rs holds this).
