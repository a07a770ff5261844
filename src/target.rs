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
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
// Fields are named as in the JSON form (docs/SPEC.md); a doc comment
// on one would change the published JSON Schema.
#[allow(missing_docs)]
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
        reject_repeats(self.features.iter().map(|f| f.as_str()), &join_path(path, "features"))
    }
}

/// The 13 presets of the seed, in its order: the one table from which the
/// `Preset` vocabulary, each preset's parameters and defaults, `build`, the
/// `Target` constructors, the JS preset functions (the `wasm` edge calls this
/// macro with its own callback) and the command's list all come.
///
/// A row: `Variant = "spelling" (js "jsName", fn constructor): Parameters,
/// os O, arch A, accelerator X, features [..]`. `Parameters` names which of
/// `os`/`arch` the caller may set (their values here are then the defaults;
/// otherwise they are fixed); `EnableLibTorch` appends `libTorch` on request.
/// Each row's documentation is a plain `#[doc = "…"]`, not `///`: a `///`
/// passed through `macro_rules!` reaches wasm-bindgen as a raw string, whose
/// `r"` it copied into the package's `.d.ts`.
///
/// Exported (hidden) for the browser module's expansion (crates/browser,
/// `planning.rs`), a crate of its own.
#[doc(hidden)]
#[macro_export]
macro_rules! preset_table {
    ($callback:ident) => {
        $callback! {
            #[doc = " Portable CPU/reference target."]
            PortableCpu = "portableCpu" (js "portableCpu", fn portable_cpu):
                OsArch, os Unknown, arch Unknown, accelerator None, features [];
            #[doc = " Linux CPU/reference target."]
            LinuxCpu = "linuxCpu" (js "linuxCpu", fn linux_cpu):
                Arch, os Linux, arch X86_64, accelerator None, features [];
            #[doc = " macOS CPU/reference target."]
            MacOSCpu = "macOSCpu" (js "macOSCpu", fn macos_cpu):
                Arch, os MacOS, arch Aarch64, accelerator None, features [];
            #[doc = " Windows CPU/reference target."]
            WindowsCpu = "windowsCpu" (js "windowsCpu", fn windows_cpu):
                Arch, os Windows, arch X86_64, accelerator None, features [];
            #[doc = " Linux CUDA target with native CUDA provider features (+ libTorch on request)."]
            LinuxCuda = "linuxCuda" (js "linuxCuda", fn linux_cuda):
                EnableLibTorch, os Linux, arch X86_64, accelerator Cuda, features [NativeCuda, CuBlas, CuFft];
            #[doc = " Windows CUDA target shape (+ libTorch on request)."]
            WindowsCuda = "windowsCuda" (js "windowsCuda", fn windows_cuda):
                EnableLibTorch, os Windows, arch X86_64, accelerator Cuda, features [NativeCuda, CuBlas, CuFft];
            #[doc = " Linux ROCm target shape for AMD/HIP capsules."]
            LinuxRocm = "linuxRocm" (js "linuxRocm", fn linux_rocm):
                None, os Linux, arch X86_64, accelerator Rocm, features [];
            #[doc = " macOS target for Metal/MPS capsules."]
            MacOSMetal = "macOSMetal" (js "macOSMetal", fn macos_metal):
                None, os MacOS, arch Aarch64, accelerator Metal, features [Mps];
            #[doc = " WASM target for browser or WASI-style execution (declares `webGpu`;"]
            #[doc = " `detect()` probes it). In JS `wasmPreset`, exported as `wasm` by the"]
            #[doc = " package entries (wasm-bindgen's glue reserves that name)."]
            Wasm = "wasm" (js "wasmPreset", fn wasm):
                None, os Wasi, arch Wasm32, accelerator Wasm, features [WebGpu];
            #[doc = " TPU/XLA target shape."]
            LinuxTpu = "linuxTpu" (js "linuxTpu", fn linux_tpu):
                None, os Linux, arch X86_64, accelerator Tpu, features [Xla];
            #[doc = " AWS Trainium/Neuron target shape."]
            LinuxTrainium = "linuxTrainium" (js "linuxTrainium", fn linux_trainium):
                None, os Linux, arch X86_64, accelerator Trainium, features [Neuron];
            #[doc = " A first-party or lab-specific accelerator with its own capsule provider."]
            CustomChip = "customChip" (js "customChip", fn custom_chip):
                OsArch, os Linux, arch Unknown, accelerator Custom, features [CustomChip];
            #[doc = " A caller-supplied accelerator provider."]
            External = "external" (js "external", fn external):
                OsArch, os Unknown, arch Unknown, accelerator External, features [ExternalProvider];
        }
    };
}
/// The core's expansion of [`preset_table!`]: the vocabulary, the data rows and
/// the constructors.
macro_rules! define_presets {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $spelling:literal (js $js:literal, fn $constructor:ident):
            $parameters:ident, os $os:ident, arch $arch:ident, accelerator $accelerator:ident,
            features [$($feature:ident),*];
    )+) => {
        spelled_enum! {
            /// The 13 presets of the seed, in its order.
            pub enum Preset {
                $($(#[doc = $doc])* $variant = $spelling,)+
            }
        }

        impl Preset {
            /// The preset's row of the table: its parameters, defaults and shape.
            pub const fn row(self) -> PresetRow {
                match self {
                    $(Self::$variant => PresetRow {
                        parameters: PresetParameters::$parameters,
                        os: OperatingSystem::$os,
                        arch: Architecture::$arch,
                        accelerator: Accelerator::$accelerator,
                        features: &[$(BuildFeature::$feature),*],
                    },)+
                }
            }
        }

        impl Target {
            $(define_presets!(@constructor $(#[doc = $doc])* $constructor, $variant, $parameters);)+
        }
    };
    (@constructor $(#[doc = $doc:literal])* $constructor:ident, $variant:ident, OsArch) => {
        $(#[doc = $doc])*
        pub fn $constructor(os: OperatingSystem, arch: Architecture) -> Self {
            Preset::$variant.shape(Some(os), Some(arch), false)
        }
    };
    (@constructor $(#[doc = $doc:literal])* $constructor:ident, $variant:ident, Arch) => {
        $(#[doc = $doc])*
        pub fn $constructor(arch: Architecture) -> Self {
            Preset::$variant.shape(None, Some(arch), false)
        }
    };
    (@constructor $(#[doc = $doc:literal])* $constructor:ident, $variant:ident, EnableLibTorch) => {
        $(#[doc = $doc])*
        pub fn $constructor(enable_lib_torch: bool) -> Self {
            Preset::$variant.shape(None, None, enable_lib_torch)
        }
    };
    (@constructor $(#[doc = $doc:literal])* $constructor:ident, $variant:ident, None) => {
        $(#[doc = $doc])*
        pub fn $constructor() -> Self {
            Preset::$variant.shape(None, None, false)
        }
    };
}

preset_table!(define_presets);

/// One preset's row: which options it takes, and the target it builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresetRow {
    /// The options the preset takes.
    pub parameters: PresetParameters,
    /// The operating system: the default when the preset takes `os`, else fixed.
    pub os: OperatingSystem,
    /// The architecture: the default when the preset takes `arch`, else fixed.
    pub arch: Architecture,
    /// The accelerator.
    pub accelerator: Accelerator,
    /// The build features (before `libTorch`, which `enableLibTorch` appends).
    pub features: &'static [BuildFeature],
}

/// The parameters a preset may take; each preset accepts only its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct PresetOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    /// `os`, for the presets that take it.
    pub os: Option<OperatingSystem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    /// `arch`, for the presets that take it.
    pub arch: Option<Architecture>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    /// `enableLibTorch` (appends `libTorch`), for the CUDA presets.
    pub enable_lib_torch: Option<bool>,
}

impl PresetOptions {
    /// Sets the option JSON calls `name` (`os`, `arch`, `enableLibTorch`)
    /// from its text, as the command's flags and the service's query
    /// parameters give it: a spelling of the vocabulary, or `true`/`false`.
    /// An error is located at the option as `spelling` names it. `Ok(false)`:
    /// no option is called `name`. The one reader of an option's text, for
    /// every edge.
    pub fn set_from_text(&mut self, name: &str, value: &str, spelling: OptionSpelling) -> Result<bool> {
        let at = spelling.of(name);
        match name {
            "os" => self.os = Some(value.parse::<OperatingSystem>().map_err(|e| e.under(at))?),
            "arch" => self.arch = Some(value.parse::<Architecture>().map_err(|e| e.under(at))?),
            "enableLibTorch" => {
                self.enable_lib_torch = Some(match value {
                    "true" => true,
                    "false" => false,
                    other => {
                        let found = crate::error::quoted_short(other);
                        return Err(Error::new(
                            ErrorCode::InvalidValue,
                            at,
                            format!("expected true or false, found {found}"),
                        ));
                    }
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// One preset with its default parameters, as listed by `presets()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct NamedPreset {
    /// The preset.
    pub name: Preset,
    #[cfg_attr(feature = "typescript", tsify(type = "Required<Target>"))]
    /// Its target with default parameters.
    pub target: Target,
}

/// Which options a preset takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetParameters {
    /// No options.
    None,
    /// `arch`.
    Arch,
    /// `os` and `arch`.
    OsArch,
    /// `enableLibTorch`.
    EnableLibTorch,
}

impl PresetParameters {
    /// The options' JSON/JS names.
    pub const fn names(self) -> &'static [&'static str] {
        match self {
            Self::None => &[],
            Self::Arch => &["arch"],
            Self::OsArch => &["os", "arch"],
            Self::EnableLibTorch => &["enableLibTorch"],
        }
    }
}

/// How a caller spells the preset options: as JSON, JavaScript and the
/// service's query parameters do (`enableLibTorch`), or as the command's
/// flags (`--enable-libtorch`). An error names an option as the caller
/// typed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionSpelling {
    /// `os`, `arch`, `enableLibTorch`.
    Json,
    /// `--os`, `--arch`, `--enable-libtorch`.
    Flag,
}

impl OptionSpelling {
    /// Every preset option, as JSON names it and as the command's flag: the
    /// one table of both spellings.
    pub const TABLE: &'static [(&'static str, &'static str)] =
        &[("os", "--os"), ("arch", "--arch"), ("enableLibTorch", "--enable-libtorch")];

    /// The option JSON calls `name`, spelled this way (`name` itself if the
    /// table lacks it).
    pub fn of(self, name: &str) -> &str {
        match (self, Self::TABLE.iter().find(|(json, _)| *json == name)) {
            (Self::Flag, Some((_, flag))) => flag,
            _ => name,
        }
    }
}

impl Preset {
    /// The parameters this preset takes.
    pub const fn parameters(self) -> PresetParameters {
        self.row().parameters
    }

    /// Builds the preset with default parameters.
    pub fn default_target(self) -> Target {
        self.shape(None, None, false)
    }

    /// The preset's target with the given values (callers pass only what the
    /// preset takes; `build` checks that).
    fn shape(self, os: Option<OperatingSystem>, arch: Option<Architecture>, enable_lib_torch: bool) -> Target {
        let row = self.row();
        let mut features = row.features.to_vec();
        if enable_lib_torch {
            features.push(BuildFeature::LibTorch);
        }
        Target { os: os.unwrap_or(row.os), arch: arch.unwrap_or(row.arch), accelerator: row.accelerator, features }
    }

    /// Builds the preset, refusing any option it does not take (named as
    /// JSON names it).
    pub fn build(self, options: &PresetOptions) -> Result<Target> {
        self.build_spelled(options, OptionSpelling::Json)
    }

    /// `build`, an error naming the options (its path and its message) as
    /// `spelling` spells them: the command's flags for the command.
    pub fn build_spelled(self, options: &PresetOptions, spelling: OptionSpelling) -> Result<Target> {
        let accepted = self.parameters().names();
        let given = [
            ("os", options.os.is_some()),
            ("arch", options.arch.is_some()),
            ("enableLibTorch", options.enable_lib_torch.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(name, set)| *set && !accepted.contains(name)) {
            let name = spelling.of(name);
            let mut message = format!("preset {self} does not take option `{name}`; it takes ");
            if accepted.is_empty() {
                message.push_str("no options");
            }
            for (index, accepted) in accepted.iter().enumerate() {
                message.push_str(if index == 0 { "only " } else { ", " });
                message.push_str(spelling.of(accepted));
            }
            return Err(Error::new(ErrorCode::UnsupportedOption, name, message));
        }
        Ok(self.shape(options.os, options.arch, options.enable_lib_torch.unwrap_or(false)))
    }
}

/// The 13 presets with default parameters, in the seed's order.
pub fn presets() -> Vec<NamedPreset> {
    Preset::ALL.iter().map(|&name| NamedPreset { name, target: name.default_target() }).collect()
}
