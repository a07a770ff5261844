//! The native probe's data (SPEC §3 for native targets): what one check of
//! the host found, the host report, and the declared → effective resolution
//! with one change per accelerator or feature decided. Pure data, no OS
//! types: the probe that fills it lives in `native` (native builds only), and
//! [`NativeResolution::from_changes`] is the only logic, applying decided changes to
//! a target. The native half of the pair ([`probe::web`](crate::probe::web) is the browser's);
//! not compiled for the browser, which probes `webGpu` only.

use serde::{Deserialize, Serialize};

use crate::availability::Availability;
use crate::plan_result::PlanResult;
use crate::target::Target;
use crate::vocab::{Accelerator, Architecture, BuildFeature, OperatingSystem, spelled_enum};

/// The native probe's default bound on the whole probe (`--timeout-ms`).
pub const NATIVE_PROBE_TIMEOUT_MS: u32 = 5000;

/// The largest bound a caller may give the native probe, in milliseconds
/// (`--timeout-ms`, `detectNative`'s `timeoutMs`): ten minutes.
pub const NATIVE_PROBE_TIMEOUT_MAX_MS: u32 = 600_000;

/// The options of the npm package's `detectNative()` (its Node entry runs
/// the command's `probe` with them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct NativeOptions {
    /// The bound on the whole call, from its first line, in milliseconds:
    /// 1 to 600000, default 5000. A probe that has not answered by then is
    /// ended, and its rows are dropped with `timeout`.
    pub timeout_ms: u32,
}

impl Default for NativeOptions {
    fn default() -> Self {
        Self { timeout_ms: NATIVE_PROBE_TIMEOUT_MS }
    }
}

impl NativeOptions {
    /// `invalid-value` at `timeoutMs` outside 1 to [`NATIVE_PROBE_TIMEOUT_MAX_MS`].
    pub fn validate(&self) -> crate::error::Result<()> {
        if (1..=NATIVE_PROBE_TIMEOUT_MAX_MS).contains(&self.timeout_ms) {
            return Ok(());
        }
        Err(crate::error::Error::new(
            crate::error::ErrorCode::InvalidValue,
            "timeoutMs",
            format!(
                "{} is not a whole number of milliseconds from 1 to {NATIVE_PROBE_TIMEOUT_MAX_MS}",
                self.timeout_ms
            ),
        ))
    }
}

/// The target a host's native decision asks about when the caller names
/// none (`detectNative()`): the CUDA preset with cuDNN on Linux and Windows
/// (what ONNX Runtime's CUDA provider loads, each library checked), Metal
/// on macOS, elsewhere the portable CPU target of the host.
pub fn host_default_target(os: OperatingSystem, arch: Architecture) -> Target {
    let cuda_with_cudnn = |mut target: Target| {
        target.features.push(BuildFeature::CuDnn);
        target
    };
    match os {
        OperatingSystem::Linux => cuda_with_cudnn(Target::linux_cuda(false)),
        OperatingSystem::Windows => cuda_with_cudnn(Target::windows_cuda(false)),
        OperatingSystem::MacOS => Target::macos_metal(),
        _ => Target::portable_cpu(os, arch),
    }
}

spelled_enum! {
    /// Why the native probe decided an accelerator or a feature as it did.
    #[non_exhaustive]
    pub enum NativeReason {
        /// The runtime loaded, initialised and counted at least one device.
        DeviceAvailable = "device-available",
        /// The library loaded and answered its first call (a version or
        /// property query that needs no device).
        LibraryAvailable = "library-available",
        /// The driver or runtime library did not load (the loader's message says why).
        DriverNotFound = "driver-not-found",
        /// The driver loaded but failed to initialise (with the driver's error name).
        DriverInitFailed = "driver-init-failed",
        /// The runtime initialised but counted no device (or no device node exists).
        NoDevice = "no-device",
        /// The library did not load (not found, or a dependency missing).
        LibraryNotFound = "library-not-found",
        /// The library loaded but cannot run here: its first call failed, or
        /// a part it needs (cuDNN 9's sub-libraries) is missing.
        LibraryUnusable = "library-unusable",
        /// Only libraries built for a newer CUDA than the driver supports
        /// are present (`libcublas.so.13` behind a 12.x driver).
        DriverTooOld = "driver-too-old",
        /// The feature needs an accelerator that is not declared or was dropped.
        RequiresAccelerator = "requires-accelerator",
        /// This operating system cannot have it (Metal off macOS).
        UnsupportedPlatform = "unsupported-platform",
        /// Kept as declared: nothing on the host can confirm it.
        NotProbeable = "not-probeable",
        /// The check did not answer within the probe's timeout.
        Timeout = "timeout",
        /// The check's process died (a signal, or an exit without an answer).
        CheckCrashed = "check-crashed",
    }
}

impl NativeReason {
    /// Whether the check found what it looked for.
    pub const fn is_available(self) -> bool {
        matches!(self, Self::DeviceAvailable | Self::LibraryAvailable)
    }

    /// What to do about a check that ended so: the one table of advice per
    /// reason, from which the "what to do" table of docs/native-probe.md is made
    /// ([`what_to_do_markdown`](Self::what_to_do_markdown), held to it by a test).
    pub const fn what_to_do(self) -> &'static str {
        match self {
            Self::DeviceAvailable | Self::LibraryAvailable => "nothing: it is there and answered",
            Self::DriverNotFound => {
                "install the vendor's driver (NVIDIA's, ROCm, libtpu, the Neuron runtime); in a container, give it \
                 the host's GPU (`docker run --gpus all` with the NVIDIA Container Toolkit; ROCm: `--device /dev/kfd \
                 --device /dev/dri`); a driver outside the loader's folders: add its folder, as an absolute path, to \
                 `LD_LIBRARY_PATH`; a message naming the toolkit's stub `libcuda.so`: take the toolkit's `stubs/` \
                 folder off `LD_LIBRARY_PATH`"
            }
            Self::DriverInitFailed => {
                "the driver's error name says why; `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` or \
                 `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE`: the driver library and the kernel module are of \
                 different versions (reboot after a driver update; in a container, use the host's driver, as the \
                 NVIDIA Container Toolkit mounts it); `nvidia-smi` (`rocm-smi`) likely fails the same way"
            }
            Self::NoDevice => {
                "check that the host sees the device (`nvidia-smi`, `rocm-smi`, `ls /dev/accel* /dev/neuron*`); in a \
                 container, pass it in (`--gpus all`, `--device /dev/neuron0`); `CUDA_VISIBLE_DEVICES` \
                 (`HIP_VISIBLE_DEVICES`) set empty or to a wrong index hides every device"
            }
            Self::LibraryNotFound => {
                "install the library for the driver's CUDA (the toolkit, or NVIDIA's wheels: `pip install \
                 nvidia-cublas-cu12`) and add its folder to `LD_LIBRARY_PATH`; where the message names a Python \
                 environment that holds it (`site-packages/nvidia/*/lib`, `torch/lib`), add that folder; libtorch: \
                 set `LIBTORCH` to its folder, or `LIBTORCH_USE_PYTORCH=1`"
            }
            Self::LibraryUnusable => {
                "the message names the call that failed or the part that is missing (cuDNN 9's \
                 `libcudnn_graph.so.9` belongs beside `libcudnn.so.9` or on `LD_LIBRARY_PATH`); install the \
                 library whole, of one version"
            }
            Self::DriverTooOld => {
                "update the driver to one for the library's CUDA (the message names both), or install the \
                 libraries built for the driver's CUDA (`nvidia-cublas-cu12` for a 12.x driver)"
            }
            Self::RequiresAccelerator => "see the accelerator's row: it was dropped, or not declared",
            Self::UnsupportedPlatform => "nothing on this OS (Metal is macOS's): declare a target this host can have",
            Self::NotProbeable => {
                "nothing to probe: it is kept as declared; check it with the chip's own tools (`webGpu`: \
                 `detect()` in the browser)"
            }
            Self::Timeout => {
                "probe again with a longer `--timeout-ms` (5000 by default): a driver can start slowly (NVIDIA's \
                 persistence mode off); if it hangs again, `nvidia-smi` likely hangs too"
            }
            Self::CheckCrashed => {
                "the library killed its check's process (`probe.checks[].signal`), not the command: reinstall the \
                 driver or library the check names"
            }
        }
    }

    /// the "what to do" table of docs/native-probe.md, from [`what_to_do`](Self::what_to_do).
    pub fn what_to_do_markdown() -> String {
        crate::error::what_to_do_table(Self::ALL.iter().map(|reason| (reason.as_str(), reason.what_to_do())))
    }
}

spelled_enum! {
    /// What the native probe did to a declared accelerator or feature.
    pub enum ChangeAction {
        /// The check found it: it stays in the effective target.
        Kept = "kept",
        /// Not found: removed from the effective target (an accelerator becomes `none`).
        Dropped = "dropped",
        /// Left as declared without a check (`not-probeable`).
        AsDeclared = "asDeclared",
    }
}

spelled_enum! {
    // Exhaustive (no `#[non_exhaustive]`): the native probe matches every
    // check with no catch-all, so that a check added here is a compile error
    // wherever it must be run or named (ARCHITECTURE.md, "Adding a native check").
    /// One check of the host; several table rows may share one.
    pub enum NativeCheck {
        /// The CUDA driver: `libcuda.so.1` (`nvcuda.dll`), `cuInit`, devices.
        Cuda = "cuda",
        /// cuBLAS loads (`libcublas.so.13/12/11`).
        CuBlas = "cuBLAS",
        /// cuFFT loads (`libcufft.so.12/11/10`).
        CuFft = "cuFFT",
        /// cuDNN loads (`libcudnn.so.9/8`).
        CuDnn = "cuDNN",
        /// libtorch (`$LIBTORCH/lib` first, as the Rust bindings do).
        LibTorch = "libTorch",
        /// The HIP runtime: `libamdhip64`, `hipInit`, devices.
        Rocm = "rocm",
        /// A default Metal device (macOS only).
        Metal = "metal",
        /// An accelerator device node and libtpu.
        Tpu = "tpu",
        /// A Neuron device node and the Neuron runtime (`libnrt`).
        Neuron = "neuron",
    }
}

spelled_enum! {
    /// Where the checks ran.
    pub enum Isolation {
        /// Each check in a child process: a hang is killed at the deadline,
        /// a crash is reported (`check-crashed`).
        Process = "process",
        /// Each check on a thread of the caller: a hang is abandoned at the
        /// deadline, but a crash takes the caller down.
        Thread = "thread",
        /// No check ran: this runtime cannot probe the host (a browser, or
        /// Node without the platform package), or the probe gave no answer
        /// (`NativeResolution::without_probe`).
        NotRun = "not-run",
    }
}

/// What a change decides: `{"accelerator": "cuda"}` or `{"feature": "cuBLAS"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub enum Subject {
    /// The target's accelerator.
    Accelerator(Accelerator),
    /// One of the target's build features.
    Feature(BuildFeature),
}

/// One accelerator or feature the native probe decided. (Its TypeScript
/// type is written by the browser crate, `crates/browser/src/native.rs`:
/// tsify would make an interface extend the `Subject` union, which
/// TypeScript refuses.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct NativeChange {
    /// What is decided: `{"accelerator": …}` or `{"feature": …}`.
    #[serde(flatten)]
    pub subject: Subject,
    /// Kept, dropped, or left as declared.
    pub action: ChangeAction,
    /// Why: the deciding check's reason, or `requires-accelerator`, `not-probeable`.
    pub reason: NativeReason,
    /// The decision as a sentence.
    pub detail: String,
}

impl NativeChange {
    /// A decision on `subject` (for the probe that makes it).
    pub fn new(subject: Subject, action: ChangeAction, reason: NativeReason, detail: String) -> Self {
        Self { subject, action, reason, detail }
    }
}

/// A device a runtime counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct HostDevice {
    /// The runtime's ordinal.
    pub index: u32,
    /// The name the runtime reports.
    pub name: String,
    /// CUDA's compute capability, `major.minor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    /// Total memory in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
}

impl HostDevice {
    /// A device with the runtime's ordinal and name, and what else it told.
    pub fn new(index: u32, name: String, compute_capability: Option<String>, memory_bytes: Option<u64>) -> Self {
        Self { index, name, compute_capability, memory_bytes }
    }
}

/// What one check found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CheckReport {
    /// Which check.
    pub check: NativeCheck,
    /// Its outcome: `device-available` or `library-available` when found.
    pub reason: NativeReason,
    /// The outcome as a sentence (with the loader's or the driver's words).
    pub message: String,
    /// The file that loaded: the absolute path the dynamic loader opened,
    /// symlinks resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// The name the check asked the loader for (`libcuda.so.1`), or the path
    /// it was given (`$LIBTORCH/lib/libtorch.so`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_name: Option<String>,
    /// The library's own version, from its first call (cuBLAS `12.9.1`,
    /// cuFFT `11.4.1`, cuDNN `9.28.0`, the HIP runtime `5.2.21153`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    /// The CUDA major version a CUDA library was built for (from the library,
    /// or from its file name), which the driver must support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_major: Option<u32>,
    /// The driver's version (`major.minor`): CUDA's, read whenever the driver
    /// loads (without `cuInit`); HIP's `major.minor.patch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<String>,
    /// The devices the runtime counted (CUDA, HIP).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<HostDevice>,
    /// The device nodes found (TPU, Neuron).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_nodes: Vec<String>,
    /// `check-crashed` by a signal: its number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// How long the check took, in milliseconds.
    pub elapsed_ms: f64,
}

impl CheckReport {
    /// An outcome with only a reason and a sentence.
    pub fn new(check: NativeCheck, reason: NativeReason, message: impl Into<String>) -> Self {
        Self {
            check,
            reason,
            message: message.into(),
            library: None,
            library_name: None,
            library_version: None,
            cuda_major: None,
            driver_version: None,
            devices: Vec::new(),
            device_nodes: Vec::new(),
            signal: None,
            elapsed_ms: 0.0,
        }
    }
}

/// The host and what the native probe checked on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct HostReport {
    /// The host's operating system (the probe's build).
    pub os: OperatingSystem,
    /// The host's architecture (the probe's build).
    pub arch: Architecture,
    /// Where the checks ran.
    pub isolation: Isolation,
    /// The bound on the whole probe, in milliseconds.
    pub timeout_ms: u32,
    /// How long the whole probe took, in milliseconds.
    pub elapsed_ms: f64,
    /// Entries of `LD_LIBRARY_PATH` that the checks did not search: empty
    /// or relative ones, which would name the working directory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_loader_path: Vec<String>,
    /// Every check run, in the table's order.
    pub checks: Vec<CheckReport>,
    /// Where no check ran (`isolation` `not-run`): why, as a reason
    /// (`unsupported-platform`, `timeout`, `check-crashed`)...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub reason: Option<NativeReason>,
    /// ... and as a sentence (what to install, what failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub message: Option<String>,
}

impl HostReport {
    /// The report of a probe on this host (for the probe that makes it).
    pub fn new(
        (os, arch): (OperatingSystem, Architecture),
        isolation: Isolation,
        (timeout_ms, elapsed_ms): (u32, f64),
        ignored_loader_path: Vec<String>,
        checks: Vec<CheckReport>,
    ) -> Self {
        Self { os, arch, isolation, timeout_ms, elapsed_ms, ignored_loader_path, checks, reason: None, message: None }
    }
}

/// A native target before and after the probe: the same shape as the
/// browser's `Resolution` (`declared`, `effective`, `availability`,
/// `changes`, `probe`), each change naming an accelerator or a feature.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct NativeResolution {
    /// The target as given.
    pub declared: Target,
    /// The target after the probe: a dropped accelerator becomes `none`,
    /// dropped features are removed.
    pub effective: Target,
    /// The effective target's availability: what planning may use.
    pub availability: Availability,
    /// One entry per declared accelerator (unless `none`) and feature, in
    /// declaration order, the accelerator first.
    pub changes: Vec<NativeChange>,
    /// The host and what was checked on it.
    pub probe: HostReport,
}

impl NativeResolution {
    /// Applies decided changes to `declared`.
    pub fn from_changes(declared: &Target, changes: Vec<NativeChange>, probe: HostReport) -> Self {
        let mut effective = declared.clone();
        for change in &changes {
            if change.action != ChangeAction::Dropped {
                continue;
            }
            match change.subject {
                Subject::Accelerator(_) => effective.accelerator = Accelerator::None,
                Subject::Feature(feature) => effective.features.retain(|&f| f != feature),
            }
        }
        let availability = effective.declared_availability();
        Self { declared: declared.clone(), effective, availability, changes, probe }
    }

    /// The change that decided `subject`, if any.
    pub fn change(&self, subject: Subject) -> Option<&NativeChange> {
        self.changes.iter().find(|c| c.subject == subject)
    }
}

/// `plan --probe`: the plan result (planned against the probed availability)
/// with the resolution that gave that availability.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct ProbedPlanResult {
    /// The plan result's fields, as `plan` prints them.
    #[serde(flatten)]
    pub result: PlanResult,
    /// The probe of the request's target.
    pub resolution: NativeResolution,
}

impl ProbedPlanResult {
    /// A plan made against the probed availability of its target.
    pub fn new(result: PlanResult, resolution: NativeResolution) -> Self {
        Self { result, resolution }
    }
}
