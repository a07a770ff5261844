//! Kernel capsules (SPEC §5): one implementation of one op, and the built-in
//! reference catalog that lets a default CPU config plan every op.

use serde::{Deserialize, Serialize};

use crate::vocab::{BackendOp, Device, Provider, TrustLevel, VJPMode};
use crate::webgpu::WebGpuRequirements;

/// One implementation of one op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
pub struct KernelCapsule {
    pub name: String,
    pub op: BackendOp,
    pub provider: Provider,
    pub device: Device,
    pub trust_level: TrustLevel,
    /// Default `true`.
    #[serde(default = "crate::json::default_true")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub supports_forward: bool,
    /// Default `"none"`.
    #[serde(default = "default_vjp")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub vjp_mode: VJPMode,
    /// What the WebGPU adapter must offer (features, limits). Checked when
    /// the availability carries probed capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub requires: Option<WebGpuRequirements>,
}

fn default_vjp() -> VJPMode {
    VJPMode::None
}

/// The built-in catalog: every op has a `reference` capsule on `cpu`, trust
/// `checked`, VJP `torchLeanTape` (`none` for the two random ops).
pub fn reference_capsules() -> Vec<KernelCapsule> {
    BackendOp::ALL
        .iter()
        .map(|&op| KernelCapsule {
            name: format!("reference.{op}"),
            op,
            provider: Provider::Reference,
            device: Device::Cpu,
            trust_level: TrustLevel::Checked,
            supports_forward: true,
            vjp_mode: if op.requires_vjp() { VJPMode::TorchLeanTape } else { VJPMode::None },
            requires: None,
        })
        .collect()
}
