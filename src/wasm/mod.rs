//! The browser edge (`cfg(browser)`, wasm32-unknown-unknown): the JavaScript
//! boundary (`api`, with its JS half `boundary.js`), the planner's exports
//! (`planning`) and the WebGPU probe through wgpu (`probe`, with its JS half
//! `probe.js`), and with the feature `verify` the verified decision
//! (`verify`, with its JS half `verify.js`: the workload run through wgpu,
//! the cached verdicts). Without the features `planner-exports` and
//! `verify`, the module exports only `probe` and `detect`: the detect-only
//! module of `backend-targets/detect`.

mod api;
#[cfg(feature = "planner-exports")]
mod planning;
mod probe;
#[cfg(feature = "verify")]
mod verify;

#[cfg(feature = "planner-exports")]
pub use planning::*;
pub use probe::*;
