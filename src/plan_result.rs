//! What a plan request answers (SPEC §6): the plan or why there is none,
//! with every config tried, every op it was asked for, and every capsule
//! considered, each with its verdict and the first rule that rejected it.
//! Pure data, filled by the planner (`planner`).

use serde::Serialize;

use crate::availability::Availability;
use crate::config::ExecutionConfig;
use crate::vocab::{BackendOp, Device, Provider, spelled_enum};

spelled_enum! {
    /// Why a capsule was not admissible: the first SPEC rule it broke, in
    /// the order the rules are checked.
    #[non_exhaustive]
    pub enum RejectionReason {
        /// Step 1: its device is not in the availability.
        DeviceNotAvailable = "device-not-available",
        /// Step 1: its provider is not in the availability.
        ProviderNotAvailable = "provider-not-available",
        /// Step 1: the probed WebGPU adapter lacks a feature it requires.
        WebGpuFeatureMissing = "webgpu-feature-missing",
        /// Step 1: a probed WebGPU limit does not meet its requirement.
        WebGpuLimitTooLow = "webgpu-limit-too-low",
        /// Rule 1: it does not support forward execution.
        NoForward = "no-forward",
        /// Rule 2: the config's trust policy refuses its trust level.
        TrustRefused = "trust-refused",
        /// Rule 3: the config's `only(p)` excludes its provider.
        ProviderNotAllowed = "provider-not-allowed",
        /// Rule 4: it runs on another device than the config's.
        DeviceMismatch = "device-mismatch",
        /// Rule 5: its VJP mode cannot serve the config's.
        VjpIncompatible = "vjp-incompatible",
    }
}

impl RejectionReason {
    /// What to declare or change when capsules are refused for this reason:
    /// the one table of advice per reason, from which the npm package README's table
    /// ([`what_to_do_markdown`](Self::what_to_do_markdown), held to it by a test) and the demo's
    /// (`www/planner.js`, held to this by `tests/core/advice.rs`) are made.
    /// The SPEC §5 message an unplanned op carries stays word for word;
    /// this says what it leaves unsaid.
    pub const fn what_to_do(self) -> &'static str {
        match self {
            Self::DeviceNotAvailable => {
                "the availability lacks the capsule's device: plan against a target (or an availability's \
                 `devices`) that has it, or declare a capsule for a device it has"
            }
            Self::ProviderNotAvailable => {
                "the availability lacks the capsule's provider: give the target the build feature that brings \
                 it (`features`, e.g. `webGpu`), list it in an availability's `providers`, or declare a capsule \
                 of a provider it has"
            }
            Self::WebGpuFeatureMissing => {
                "the adapter `detect()` found lacks a feature the capsule `requires` (the detail names it, e.g. \
                 `shader-f16`): declare, after it, a capsule for the same op that does not require it (f32 instead \
                 of f16)"
            }
            Self::WebGpuLimitTooLow => {
                "the adapter's limit (the detail names it) is below the capsule's `requires.limits`: lower the \
                 requirement, or declare, after it, a capsule for smaller adapters"
            }
            Self::NoForward => {
                "the capsule says `supportsForward: false` (a backward pass only): declare one that runs the \
                 forward pass"
            }
            Self::TrustRefused => {
                "the config's `trustPolicy` refuses the capsule's `trustLevel`: accept it (`fuzzedOk`, \
                 `allowTrustedExternal`), or declare a capsule of a level the policy accepts"
            }
            Self::ProviderNotAllowed => {
                "the config's `backend: { only }` names another provider: use `{ prefer }` or `\"auto\"`, or \
                 declare a capsule of the provider it names"
            }
            Self::DeviceMismatch => {
                "the capsule runs on another device than the config's `device`: declare a capsule for the \
                 config's device, or add a config (`configs`) for the device the capsule runs on (the built-in \
                 catalog runs every op on `cpu` only)"
            }
            Self::VjpIncompatible => {
                "the config's `vjpMode` asks for gradients the capsule cannot give: use `vjpMode: \"none\"` to run \
                 inference only, or declare a capsule whose `vjpMode` serves it"
            }
        }
    }

    /// The npm package README's table of what to do about each reason, from [`what_to_do`](Self::what_to_do).
    pub fn what_to_do_markdown() -> String {
        crate::error::what_to_do_table(Self::ALL.iter().map(|reason| (reason.as_str(), reason.what_to_do())))
    }
}

spelled_enum! {
    /// What became of one capsule considered for one op.
    pub enum Verdict {
        /// The first admissible capsule: it runs the op.
        Chosen = "chosen",
        /// Admissible, but an earlier capsule was chosen.
        Admissible = "admissible",
        /// Not admissible; `reason` says which rule refused it.
        Rejected = "rejected",
    }
}

spelled_enum! {
    /// How a list of configs is used.
    pub enum PlanMode {
        /// The first config that plans every op wins (SPEC §5).
        WholePlan = "wholePlan",
        /// Each op takes the first config that admits a capsule for it.
        PerOp = "perOp",
    }
}

/// The first config that plans every op wins, unless told otherwise.
// Written out: `spelled_enum!` takes doc comments alone on its variants, so
// `#[default]` cannot mark one.
#[allow(clippy::derivable_impls)]
impl Default for PlanMode {
    fn default() -> Self {
        Self::WholePlan
    }
}

/// One capsule considered for one op, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
#[non_exhaustive]
pub struct Candidate {
    pub capsule: String,
    /// Position of the capsule in the catalog.
    pub catalog_index: usize,
    pub provider: Provider,
    pub device: Device,
    pub verdict: Verdict,
    /// Present when `verdict` is `rejected`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub reason: Option<RejectionReason>,
    /// The decision as a sentence.
    pub detail: String,
    /// The capsule states WebGPU requirements but the availability carries no
    /// probed capabilities (a declared availability): admitted unverified.
    // `default` too, so that the schema does not require what is left out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub unverified: bool,
}

/// How one op fared under one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
#[non_exhaustive]
pub struct OpExplanation {
    pub op: BackendOp,
    /// Position of the op in the request's `ops`.
    pub op_index: usize,
    /// The chosen capsule's name, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub capsule: Option<String>,
    /// When no capsule was admissible:
    /// `no admissible backend capsule for op <op> on device <device>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub message: Option<String>,
    /// The op appeared earlier in this config's `ops` (at this `opIndex`)
    /// and fared the same: its candidates are listed there, once.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub same_as: Option<usize>,
    /// Every capsule of this op, in planning order; absent when `sameAs`
    /// names the occurrence that lists them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub candidates: Option<Vec<Candidate>>,
}

impl OpExplanation {
    /// The listed candidates: empty when `same_as` points to the listing.
    pub fn candidates(&self) -> &[Candidate] {
        self.candidates.as_deref().unwrap_or_default()
    }
}

/// One config tried, and how each op it was asked for fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
#[non_exhaustive]
pub struct ConfigAttempt {
    pub config_index: usize,
    #[cfg_attr(feature = "typescript", tsify(type = "Required<ExecutionConfig>"))]
    pub config: ExecutionConfig,
    /// Whether every op asked of this config was planned.
    pub ok: bool,
    /// The ops asked of this config (all of them in `wholePlan` mode; those
    /// earlier configs could not serve in `perOp` mode). With `explain:
    /// false`, only the ops it could not plan.
    pub ops: Vec<OpExplanation>,
}

/// The capsule chosen for one requested op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
#[non_exhaustive]
pub struct Kernel {
    pub op: BackendOp,
    pub capsule: String,
    pub provider: Provider,
    pub device: Device,
    /// The config that served this op.
    pub config_index: usize,
}

/// The answer to a plan request: a plan (`ok: true`) or the explanation of
/// why none exists (`ok: false`). Both are data, never an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// In TypeScript this interface is `PlanResultFields`, and `PlanResult` is the
// union that narrows on `ok` (crates/browser/src/planning.rs). The JSON has no name.
#[cfg_attr(feature = "typescript", tsify(rename = "PlanResultFields"))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
#[non_exhaustive]
pub struct PlanResult {
    pub ok: bool,
    pub mode: PlanMode,
    /// `wholePlan` success: the index of the winning config.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub config_index: Option<usize>,
    /// `wholePlan` success: the winning config.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "Required<ExecutionConfig>"))]
    pub config: Option<ExecutionConfig>,
    /// On success: one kernel per requested op, in request order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub kernels: Option<Vec<Kernel>>,
    /// What was planned against.
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "Omit<Required<Availability>, \"webGpu\"> & { webGpu?: Required<WebGpuCapabilities> }")
    )]
    pub availability: Availability,
    /// Every config tried, in order, with its per-op explanation.
    pub attempts: Vec<ConfigAttempt>,
}
