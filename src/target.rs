//! Targets (SPEC §2): a declared platform and build, its 13 presets, and the
//! devices and providers it declares. Nothing here probes a machine.

use serde::{Deserialize, Serialize};

use crate::availability::Availability;
use crate::error::{Error, ErrorCode, Result, join_path, reject_repeats};
use crate::vocab::{Accelerator, Architecture, BuildFeature, Device, OperatingSystem, Provider, spelled_enum};

/// Platform/build description used to produce backend availability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
pub struct Target {
    pub os: OperatingSystem,
    pub arch: Architecture,
    pub accelerator: Accelerator,
    /// Ordered build features; a feature may appear at most once.
    pub features: Vec<BuildFeature>,
}

impl Default for Target {
    fn default() -> Self {
        Self {
            os: OperatingSystem::Unknown,
            arch: Architecture::Unknown,
            accelerator: Accelerator::None,
            features: Vec::new(),
        }
    }
}

impl Target {
    /// Device set exposed by the target: `cpu`, then the accelerator's device.
    pub fn devices(&self) -> Vec<Device> {
        let mut devices = vec![Device::Cpu];
        devices.extend(self.accelerator.device());
        devices
    }

    /// `reference`, `torchLean`, then the providers of the features in order.
    pub fn providers(&self) -> Vec<Provider> {
        let mut providers = vec![Provider::Reference, Provider::TorchLean];
        providers.extend(self.features.iter().map(|f| f.provider()));
        providers
    }

    /// The planner capabilities this declaration claims; probes nothing.
    pub fn declared_availability(&self) -> Availability {
        Availability { devices: self.devices(), providers: self.providers(), web_gpu: None }
    }

    /// Checks what serde cannot: no feature is repeated. `path` locates the
    /// target in the enclosing document.
    pub fn validate(&self, path: &str) -> Result<()> {
        reject_repeats(&self.features, &join_path(path, "features"))
    }

    fn shape(os: OperatingSystem, arch: Architecture, accelerator: Accelerator, features: &[BuildFeature]) -> Self {
        Self { os, arch, accelerator, features: features.to_vec() }
    }

    /// Portable CPU/reference target.
    pub fn portable_cpu(os: OperatingSystem, arch: Architecture) -> Self {
        Self::shape(os, arch, Accelerator::None, &[])
    }
    /// Linux CPU/reference target.
    pub fn linux_cpu(arch: Architecture) -> Self {
        Self::shape(OperatingSystem::Linux, arch, Accelerator::None, &[])
    }
    /// macOS CPU/reference target.
    pub fn macos_cpu(arch: Architecture) -> Self {
        Self::shape(OperatingSystem::MacOS, arch, Accelerator::None, &[])
    }
    /// Windows CPU/reference target.
    pub fn windows_cpu(arch: Architecture) -> Self {
        Self::shape(OperatingSystem::Windows, arch, Accelerator::None, &[])
    }
    /// Linux CUDA target with native CUDA provider features.
    pub fn linux_cuda(enable_libtorch: bool) -> Self {
        Self::cuda(OperatingSystem::Linux, enable_libtorch)
    }
    /// Windows CUDA target shape.
    pub fn windows_cuda(enable_libtorch: bool) -> Self {
        Self::cuda(OperatingSystem::Windows, enable_libtorch)
    }
    fn cuda(os: OperatingSystem, enable_libtorch: bool) -> Self {
        use BuildFeature::*;
        let mut target = Self::shape(os, Architecture::X86_64, Accelerator::Cuda, &[NativeCuda, CuBlas, CuFft]);
        if enable_libtorch {
            target.features.push(LibTorch);
        }
        target
    }
    /// Linux ROCm target shape.
    pub fn linux_rocm() -> Self {
        Self::shape(OperatingSystem::Linux, Architecture::X86_64, Accelerator::Rocm, &[])
    }
    /// macOS target for Metal/MPS capsules.
    pub fn macos_metal() -> Self {
        Self::shape(OperatingSystem::MacOS, Architecture::Aarch64, Accelerator::Metal, &[BuildFeature::Mps])
    }
    /// WASM target for browser or WASI-style execution (declares `webGpu`).
    pub fn wasm() -> Self {
        Self::shape(OperatingSystem::Wasi, Architecture::Wasm32, Accelerator::Wasm, &[BuildFeature::WebGpu])
    }
    /// TPU/XLA target shape.
    pub fn linux_tpu() -> Self {
        Self::shape(OperatingSystem::Linux, Architecture::X86_64, Accelerator::Tpu, &[BuildFeature::Xla])
    }
    /// AWS Trainium/Neuron target shape.
    pub fn linux_trainium() -> Self {
        Self::shape(OperatingSystem::Linux, Architecture::X86_64, Accelerator::Trainium, &[BuildFeature::Neuron])
    }
    /// A first-party or lab-specific accelerator with its own capsule provider.
    pub fn custom_chip(os: OperatingSystem, arch: Architecture) -> Self {
        Self::shape(os, arch, Accelerator::Custom, &[BuildFeature::CustomChip])
    }
    /// A caller-supplied accelerator provider.
    pub fn external(os: OperatingSystem, arch: Architecture) -> Self {
        Self::shape(os, arch, Accelerator::External, &[BuildFeature::ExternalProvider])
    }
}

spelled_enum! {
    /// The 13 presets of the seed, in its order.
    pub enum Preset {
        PortableCpu = "portableCpu",
        LinuxCpu = "linuxCpu",
        MacOSCpu = "macOSCpu",
        WindowsCpu = "windowsCpu",
        LinuxCuda = "linuxCuda",
        WindowsCuda = "windowsCuda",
        LinuxRocm = "linuxRocm",
        MacOSMetal = "macOSMetal",
        Wasm = "wasm",
        LinuxTpu = "linuxTpu",
        LinuxTrainium = "linuxTrainium",
        CustomChip = "customChip",
        External = "external",
    }
}

/// The parameters a preset may take; each preset accepts only its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
pub struct PresetOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub os: Option<OperatingSystem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub arch: Option<Architecture>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub enable_lib_torch: Option<bool>,
}

/// One preset with its default parameters, as listed by `presets()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
pub struct NamedPreset {
    pub name: Preset,
    #[cfg_attr(browser, tsify(type = "Required<Target>"))]
    pub target: Target,
}

/// Which options a preset takes, as their JSON/JS names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetParameters {
    None,
    Arch,
    OsArch,
    EnableLibTorch,
}

impl PresetParameters {
    pub const fn names(self) -> &'static [&'static str] {
        match self {
            Self::None => &[],
            Self::Arch => &["arch"],
            Self::OsArch => &["os", "arch"],
            Self::EnableLibTorch => &["enableLibTorch"],
        }
    }
}

impl Preset {
    /// The parameters this preset takes.
    pub const fn parameters(self) -> PresetParameters {
        use Preset::*;
        match self {
            PortableCpu | CustomChip | External => PresetParameters::OsArch,
            LinuxCpu | MacOSCpu | WindowsCpu => PresetParameters::Arch,
            LinuxCuda | WindowsCuda => PresetParameters::EnableLibTorch,
            LinuxRocm | MacOSMetal | Wasm | LinuxTpu | LinuxTrainium => PresetParameters::None,
        }
    }

    /// Builds the preset with default parameters.
    pub fn default_target(self) -> Target {
        // Infallible: no options are given.
        self.build(&PresetOptions::default()).unwrap_or_default()
    }

    /// Builds the preset, refusing any option it does not take.
    pub fn build(self, options: &PresetOptions) -> Result<Target> {
        let accepted = self.parameters().names();
        let given = [
            ("os", options.os.is_some()),
            ("arch", options.arch.is_some()),
            ("enableLibTorch", options.enable_lib_torch.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(name, set)| *set && !accepted.contains(name)) {
            let takes =
                if accepted.is_empty() { "no options".to_string() } else { format!("only {}", accepted.join(", ")) };
            return Err(Error::new(
                ErrorCode::UnsupportedOption,
                *name,
                format!("preset {self} does not take option `{name}`; it takes {takes}"),
            ));
        }
        let os = |default| options.os.unwrap_or(default);
        let arch = |default| options.arch.unwrap_or(default);
        let libtorch = options.enable_lib_torch.unwrap_or(false);
        use Architecture as A;
        use OperatingSystem as O;
        Ok(match self {
            Preset::PortableCpu => Target::portable_cpu(os(O::Unknown), arch(A::Unknown)),
            Preset::LinuxCpu => Target::linux_cpu(arch(A::X86_64)),
            Preset::MacOSCpu => Target::macos_cpu(arch(A::Aarch64)),
            Preset::WindowsCpu => Target::windows_cpu(arch(A::X86_64)),
            Preset::LinuxCuda => Target::linux_cuda(libtorch),
            Preset::WindowsCuda => Target::windows_cuda(libtorch),
            Preset::LinuxRocm => Target::linux_rocm(),
            Preset::MacOSMetal => Target::macos_metal(),
            Preset::Wasm => Target::wasm(),
            Preset::LinuxTpu => Target::linux_tpu(),
            Preset::LinuxTrainium => Target::linux_trainium(),
            Preset::CustomChip => Target::custom_chip(os(O::Linux), arch(A::Unknown)),
            Preset::External => Target::external(os(O::Unknown), arch(A::Unknown)),
        })
    }
}

/// The 13 presets with default parameters, in the seed's order.
pub fn presets() -> Vec<NamedPreset> {
    Preset::ALL.iter().map(|&name| NamedPreset { name, target: name.default_target() }).collect()
}
