//! The browser edge (`cfg(browser)`, wasm32-unknown-unknown): the JavaScript
//! API over the core (`api`, with its JS half `boundary.js`) and the WebGPU
//! probe through wgpu (`probe`, with its JS half `probe.js`).

mod api;
mod probe;

pub use api::*;
pub use probe::*;
