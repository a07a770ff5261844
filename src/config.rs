//! Execution configs (SPEC §4): what a run wants, and the backend preference.

use serde::{Deserialize, Serialize};

use crate::vocab::{Device, Provider, TrustPolicy, VJPMode};

/// Which providers a config allows, and which it tries first.
/// JSON: `"auto"`, `{"prefer": "webGpu"}` or `{"only": "libTorch"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub enum BackendPreference {
    /// Any provider, in catalog order.
    #[default]
    Auto,
    /// Any provider, this one's capsules first.
    Prefer(Provider),
    /// This provider only.
    Only(Provider),
}

impl BackendPreference {
    /// SPEC §5 rule 3.
    pub fn allows(self, provider: Provider) -> bool {
        match self {
            Self::Auto | Self::Prefer(_) => true,
            Self::Only(only) => only == provider,
        }
    }

    /// The provider moved to the front of the catalog, if any.
    pub fn preferred(self) -> Option<Provider> {
        match self {
            Self::Prefer(provider) => Some(provider),
            _ => None,
        }
    }
}

/// What a run wants: the device, the backend preference, the trust policy
/// and how gradients are obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecutionConfig {
    /// Default `"cpu"`.
    pub device: Device,
    /// Default `"auto"`.
    pub backend: BackendPreference,
    /// Default `"checked"`.
    pub trust_policy: TrustPolicy,
    /// Default `"torchLeanTape"`.
    pub vjp_mode: VJPMode,
}

impl Default for ExecutionConfig {
    fn default() -> Self {
        Self {
            device: Device::Cpu,
            backend: BackendPreference::Auto,
            trust_policy: TrustPolicy::Checked,
            vjp_mode: VJPMode::TorchLeanTape,
        }
    }
}

impl BackendPreference {
    /// `only(p)`'s provider; `None` for `auto` and `prefer(p)`.
    pub(crate) fn only_provider(self) -> Option<Provider> {
        match self {
            Self::Only(provider) => Some(provider),
            _ => None,
        }
    }
}
