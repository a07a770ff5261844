//! The two probes' data, as a pair: [`web`], what the browser's WebGPU probe
//! reports and how it decides the `wasm` target's `webGpu` feature; and
//! [`native`], what the native probe found of the host's drivers and libraries
//! and how it decides a native target's accelerator and features; and
//! [`verify`], the verified WebGPU decision's workload, reference and rules. Pure data
//! and the decisions on it (SPEC §3); the probes themselves are edges:
//! the browser module's (crates/browser), and the native probe's crate
//! (crates/native-probe) over [`native`] (the feature `native-forms`).

pub mod verify;
pub mod web;

pub mod native;
pub mod native_table;
