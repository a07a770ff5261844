//! Availability (SPEC §4): the devices and providers a planner may consider.

use serde::{Deserialize, Serialize};

use crate::error::{Result, join_path, reject_repeats};
use crate::vocab::{Device, Provider};
use crate::webgpu::WebGpuCapabilities;

/// Which devices and providers a planner may consider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct Availability {
    /// Devices, each at most once. Default `["cpu"]`.
    pub devices: Vec<Device>,
    /// Providers, each at most once. Default `["reference", "torchLean"]`.
    pub providers: Vec<Provider>,
    /// What a probe found (see `resolve`). When present, capsules that state
    /// WebGPU requirements are checked against it; when absent they are
    /// admitted as unverified.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub web_gpu: Option<WebGpuCapabilities>,
}

impl Default for Availability {
    fn default() -> Self {
        Self { devices: vec![Device::Cpu], providers: vec![Provider::Reference, Provider::TorchLean], web_gpu: None }
    }
}

impl Availability {
    /// Whether a capsule on `device` from `provider` may be considered.
    pub fn admits(&self, device: Device, provider: Provider) -> bool {
        self.has_device(device) && self.has_provider(provider)
    }

    /// Whether `device` is among the devices.
    pub fn has_device(&self, device: Device) -> bool {
        self.devices.contains(&device)
    }

    /// Whether `provider` is among the providers.
    pub fn has_provider(&self, provider: Provider) -> bool {
        self.providers.contains(&provider)
    }

    /// Checks what serde cannot: no device or provider is repeated.
    pub fn validate(&self, path: &str) -> Result<()> {
        reject_repeats(self.devices.iter().map(|d| d.as_str()), &join_path(path, "devices"))?;
        reject_repeats(self.providers.iter().map(|p| p.as_str()), &join_path(path, "providers"))?;
        match &self.web_gpu {
            Some(capabilities) => capabilities.validate(&join_path(path, "webGpu")),
            None => Ok(()),
        }
    }
}
