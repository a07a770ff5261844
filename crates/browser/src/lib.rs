//! The browser module of backend-targets (wasm32-unknown-unknown; empty for
//! every other target): the JavaScript boundary (`api`, with its JS half
//! `boundary.js`), the planner's exports (`planning`), the native decision's calls
//! from the Node entry (`native`, the core's answer where no command ran) and the WebGPU probe
//! through wgpu (`probe`, with its JS half `probe.js`), and with the feature
//! `verify` the verified decision (`verify`, with its JS half `verify.js`:
//! the workload run through wgpu, the cached verdicts); what both ask of the
//! host (a property read, the clock, a timer) is `host`. Without the features
//! `planner-exports` and `verify`, the module exports only `probe` and
//! `detect`: the detect-only module of `backend-targets/detect`. Every
//! answer is the core's (`backend-targets`), which this crate only carries
//! across the boundary; scripts/build.sh makes the npm package's modules of
//! it (`pkg-template/` holds their entries).
//!
//! The module is a program of its own (a `.wasm` its JS glue instantiates,
//! with nothing else in it), so it makes its process-wide choices, in its
//! start (`wasm_bindgen(start)`, src/api.rs): its allocator (talc, behind
//! the hook that starts a fresh instance when an allocation fails;
//! BENCHMARKS.md, "The allocator") and its panic hook, which is how an
//! instance that traps is replaced by a fresh one for the next call. The
//! core sets neither (tests/library_effects.rs).

#[cfg(browser)]
mod api;
#[cfg(browser)]
mod host;
#[cfg(all(browser, feature = "planner-exports"))]
mod native;
#[cfg(all(browser, feature = "planner-exports"))]
mod planning;
#[cfg(browser)]
mod probe;
#[cfg(all(browser, feature = "verify"))]
mod verify;

#[cfg(all(browser, feature = "planner-exports"))]
pub use native::*;
#[cfg(all(browser, feature = "planner-exports"))]
pub use planning::*;
#[cfg(browser)]
pub use probe::*;

/// Which of the package's three modules this is, as an export of its own
/// name that does nothing: an entry's `init()` refuses a module without its
/// own (pkg-template/early.js, `checkModule`), whatever that module's
/// imports are named. The full module (`planner-exports`).
#[cfg(all(browser, feature = "planner-exports"))]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__backendTargetsFull", skip_typescript)]
pub fn module_is_full() {}

/// The verification's module (`verify`, without `planner-exports`).
#[cfg(all(browser, feature = "verify", not(feature = "planner-exports")))]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__backendTargetsVerify", skip_typescript)]
pub fn module_is_verify() {}

/// The detect-only module (neither feature).
#[cfg(all(browser, not(feature = "verify"), not(feature = "planner-exports")))]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__backendTargetsDetect", skip_typescript)]
pub fn module_is_detect() {}
