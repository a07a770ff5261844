//! The browser edge (`cfg(browser)`, wasm32-unknown-unknown): the JavaScript
//! boundary (`api`, with its JS half `boundary.js`), the planner's exports
//! (`planning`) and the WebGPU probe through wgpu (`probe`, with its JS half
//! `probe.js`). Without the feature `planner-exports`, the module exports
//! only `probe` and `detect`: the detect-only module of `backend-targets/detect`.

mod api;
#[cfg(feature = "planner-exports")]
mod planning;
mod probe;

#[cfg(feature = "planner-exports")]
pub use planning::*;
pub use probe::*;
