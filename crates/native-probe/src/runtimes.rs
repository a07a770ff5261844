//! The device checks other than CUDA's driver: the HIP runtime (loads, its
//! version, `hipInit`, at least one device), TPU (an accelerator device node
//! and libtpu) and Neuron (a device node and the Neuron runtime).

use std::ffi::{OsString, c_char, c_int, c_uint};
use std::path::Path;

use libloading::Library;

use super::codes::{HIP_ERROR_INVALID_DEVICE, HIP_ERROR_NO_DEVICE, HIP_ERRORS, name_in};
use super::cuda::{MAX_LISTED_DEVICES, NAME_BUFFER};
use super::load::{Loaded, LoaderPath, open_first, returned_text, symbol, text_in};
use backend_targets::probe::native::{CheckReport, HostDevice, NativeCheck, NativeReason};

/// The checks of a vendor runtime with devices: each match over them is
/// exhaustive, so that a runtime check added to
/// [`checks::runner`](crate::checks::runner) is a compile error here until it
/// has its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuntimeCheck {
    Rocm,
    Tpu,
    Neuron,
}

impl RuntimeCheck {
    /// The core's name of the check.
    pub(crate) const fn check(self) -> NativeCheck {
        match self {
            Self::Rocm => NativeCheck::Rocm,
            Self::Tpu => NativeCheck::Tpu,
            Self::Neuron => NativeCheck::Neuron,
        }
    }
}

/// The file names a runtime check tries, newest major first (none where the
/// vendor ships no runtime for this platform).
pub(crate) const fn runtime_names(runtime: RuntimeCheck) -> &'static [&'static str] {
    if cfg!(windows) {
        match runtime {
            RuntimeCheck::Rocm => &["amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"],
            RuntimeCheck::Tpu | RuntimeCheck::Neuron => &[],
        }
    } else if cfg!(target_os = "macos") {
        match runtime {
            RuntimeCheck::Rocm | RuntimeCheck::Tpu | RuntimeCheck::Neuron => &[],
        }
    } else {
        match runtime {
            RuntimeCheck::Rocm => &["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"],
            RuntimeCheck::Tpu => &["libtpu.so"],
            RuntimeCheck::Neuron => &["libnrt.so.1", "libnrt.so"],
        }
    }
}

/// Where a runtime check looks: `TPU_LIBRARY_PATH` first for libtpu (the
/// path of libtpu.so itself, as JAX reads it; an absolute one only), then
/// the loader's search.
fn runtime_candidates(runtime: RuntimeCheck) -> Vec<OsString> {
    let mut list = Vec::new();
    if runtime == RuntimeCheck::Tpu
        && let Some(path) = std::env::var_os("TPU_LIBRARY_PATH").filter(|v| Path::new(v).is_absolute())
    {
        list.push(path);
    }
    list.extend(runtime_names(runtime).iter().map(OsString::from));
    list
}

const HIP_SUCCESS: c_int = 0;

type HipInit = unsafe extern "C" fn(c_uint) -> c_int;
type HipOutInt = unsafe extern "C" fn(*mut c_int) -> c_int;
type HipGetErrorName = unsafe extern "C" fn(c_int) -> *const c_char;
type HipDeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;

/// `HIP_VERSION`'s encoding: `major * 10^7 + minor * 10^5 + patch`
/// (`50221153` = 5.2.21153).
fn hip_version_text(version: c_int) -> Option<String> {
    (version > 0).then(|| format!("{}.{}.{}", version / 10_000_000, (version / 100_000) % 100, version % 100_000))
}

/// The HIP runtime's entry points (those it lacks are `None`).
struct Hip {
    init: Option<HipInit>,
    get_count: Option<HipOutInt>,
    get_name: Option<HipDeviceGetName>,
    error_name: Option<HipGetErrorName>,
    runtime_version: Option<HipOutInt>,
    driver_version: Option<HipOutInt>,
}

impl Hip {
    fn new(library: &Library) -> Self {
        // SAFETY: each type is the entry point's documented C signature
        // (hip_runtime_api.h); the library stays loaded (forgotten by `rocm`).
        unsafe {
            Self {
                init: symbol(library, "hipInit").ok(),
                get_count: symbol(library, "hipGetDeviceCount").ok(),
                get_name: symbol(library, "hipDeviceGetName").ok(),
                error_name: symbol(library, "hipGetErrorName").ok(),
                runtime_version: symbol(library, "hipRuntimeGetVersion").ok(),
                driver_version: symbol(library, "hipDriverGetVersion").ok(),
            }
        }
    }

    fn name_of(&self, code: c_int) -> String {
        // SAFETY: hipGetErrorName returns a static C string, read within a
        // bound by `returned_text`.
        let own = self.error_name.and_then(|f| unsafe { returned_text(f(code)) });
        // HIP answers "hipErrorUnknown" for codes it does not know.
        own.filter(|n| !n.is_empty() && (n != "hipErrorUnknown" || code == 999))
            .unwrap_or_else(|| name_in(HIP_ERRORS, "hipError_t", code))
    }

    fn version(f: Option<HipOutInt>) -> Option<String> {
        let f = f?;
        let mut v = 0;
        // SAFETY: writes one int.
        (unsafe { f(&mut v) } == HIP_SUCCESS).then_some(v).and_then(hip_version_text)
    }

    /// `hipGetDeviceCount`: the status and the count it wrote.
    fn count(&self) -> Option<(c_int, c_int)> {
        let f = self.get_count?;
        let mut n = 0;
        // SAFETY: writes one int.
        let status = unsafe { f(&mut n) };
        Some((status, n))
    }

    /// `hipInit`, then the devices: the count and at most
    /// [`MAX_LISTED_DEVICES`] of them. No GPU is `no-device` however HIP
    /// says it: `hipErrorNoDevice` or `hipErrorInvalidDevice` (HIP 5.2)
    /// from `hipInit`, an error or a count of 0 from `hipGetDeviceCount`.
    fn devices(&self) -> Result<(c_int, Vec<HostDevice>), (NativeReason, String)> {
        let init = self.init.ok_or((NativeReason::DriverInitFailed, "the library has no `hipInit`".to_string()))?;
        // SAFETY: the runtime's documented signature; 0 is the only flag.
        let status = unsafe { init(0) };
        let counted = self.count();
        let said = |(status, n): (c_int, c_int)| {
            if status == HIP_SUCCESS { format!("{n} devices") } else { self.name_of(status) }
        };
        if status != HIP_SUCCESS {
            let no_gpu = matches!(status, HIP_ERROR_NO_DEVICE | HIP_ERROR_INVALID_DEVICE)
                || counted.is_some_and(|(s, n)| s == HIP_ERROR_NO_DEVICE || (s == HIP_SUCCESS && n == 0));
            let count = counted.map(|c| format!(", hipGetDeviceCount answered {}", said(c))).unwrap_or_default();
            let message = format!("hipInit(0) failed with {}{count}", self.name_of(status));
            let reason = if no_gpu { NativeReason::NoDevice } else { NativeReason::DriverInitFailed };
            return Err((reason, message));
        }
        let (status, n) =
            counted.ok_or((NativeReason::DriverInitFailed, "the library has no `hipGetDeviceCount`".to_string()))?;
        if status != HIP_SUCCESS || n == 0 {
            let reason = if status == HIP_SUCCESS || status == HIP_ERROR_NO_DEVICE {
                NativeReason::NoDevice
            } else {
                NativeReason::DriverInitFailed
            };
            return Err((reason, format!("hipGetDeviceCount answered {}", said((status, n)))));
        }
        if n < 0 {
            return Err((
                NativeReason::DriverInitFailed,
                format!("hipGetDeviceCount answered {n}, which is not a count"),
            ));
        }
        let devices = (0..n.min(MAX_LISTED_DEVICES))
            .map(|index| {
                let name = self
                    .get_name
                    .and_then(|f| {
                        let mut buffer = [0 as c_char; NAME_BUFFER];
                        // SAFETY: writes at most `len` bytes; read back within the buffer.
                        (unsafe { f(buffer.as_mut_ptr(), buffer.len() as c_int, index) } == HIP_SUCCESS)
                            .then(|| text_in(&buffer))
                    })
                    .filter(|name| !name.is_empty())
                    .unwrap_or_else(|| format!("HIP device {index}"));
                HostDevice::new(index as u32, name, None, None)
            })
            .collect();
        Ok((n, devices))
    }
}

/// The HIP runtime: loads, its versions (read before `hipInit`),
/// `hipInit(0)`, `hipGetDeviceCount` ≥ 1.
///
/// # Safety
///
/// Loads the HIP runtime into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
pub(crate) unsafe fn rocm(search: &LoaderPath) -> CheckReport {
    let check = RuntimeCheck::Rocm.check();
    // SAFETY: forwarded: this function's contract is `open_first`'s.
    let Loaded { library, path, name, .. } =
        match unsafe { open_first(&runtime_candidates(RuntimeCheck::Rocm), search) } {
            Ok(loaded) => loaded,
            Err(message) => {
                let message = format!("the HIP runtime did not load: {message}");
                return CheckReport::new(check, NativeReason::DriverNotFound, message);
            }
        };
    let hip = Hip::new(&library);
    let runtime_version = Hip::version(hip.runtime_version);
    let mut report = match hip.devices() {
        Ok((count, devices)) => {
            let listed = if count as usize > devices.len() {
                format!(" (the first {} listed)", devices.len())
            } else {
                String::new()
            };
            let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
            let message = format!("{count} HIP device(s){listed}: {}", names.join(", "));
            let mut report = CheckReport::new(check, NativeReason::DeviceAvailable, message);
            report.devices = devices;
            report
        }
        Err((reason, message)) => CheckReport::new(check, reason, message),
    };
    // hipDriverGetVersion answers only once HIP has initialised on some
    // versions: read after hipInit.
    report.driver_version = Hip::version(hip.driver_version);
    report.library_version = runtime_version;
    report.library = Some(path);
    report.library_name = Some(name);
    std::mem::forget(library);
    report
}

/// Device nodes in `dir` whose names start with one of `prefixes` followed
/// by a digit (`accel0`, `neuron3`), sorted.
pub(crate) fn device_nodes(dir: &Path, prefixes: &[&str]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut nodes: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| {
            prefixes.iter().any(|prefix| {
                name.strip_prefix(prefix).is_some_and(|rest| rest.bytes().next().is_some_and(|b| b.is_ascii_digit()))
            })
        })
        .map(|name| dir.join(name).to_string_lossy().into_owned())
        .collect();
    nodes.sort();
    nodes
}

/// TPU: an accelerator device node (`/dev/accel*` on v2–v4, `/dev/vfio/N`
/// from v5), then libtpu loads.
///
/// # Safety
///
/// Loads libtpu into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
pub(crate) unsafe fn tpu(search: &LoaderPath) -> CheckReport {
    let mut nodes = device_nodes(Path::new("/dev"), &["accel"]);
    nodes.extend(device_nodes(Path::new("/dev/vfio"), &[""]));
    // SAFETY: forwarded: this function's contract is `node_and_library`'s.
    unsafe { node_and_library(RuntimeCheck::Tpu, nodes, "no TPU device node (/dev/accel*, /dev/vfio/N)", search) }
}

/// Neuron: a device node (`/dev/neuron*`), then the Neuron runtime loads.
///
/// # Safety
///
/// Loads the Neuron runtime into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
pub(crate) unsafe fn neuron(search: &LoaderPath) -> CheckReport {
    let nodes = device_nodes(Path::new("/dev"), &["neuron"]);
    // SAFETY: forwarded: this function's contract is `node_and_library`'s.
    unsafe { node_and_library(RuntimeCheck::Neuron, nodes, "no Neuron device node (/dev/neuron*)", search) }
}

/// The device nodes, then the runtime's library, which loads where there are nodes.
///
/// # Safety
///
/// Loads the runtime's library into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
unsafe fn node_and_library(
    runtime: RuntimeCheck,
    nodes: Vec<String>,
    missing: &str,
    search: &LoaderPath,
) -> CheckReport {
    let check = runtime.check();
    if nodes.is_empty() {
        return CheckReport::new(check, NativeReason::NoDevice, missing);
    }
    // SAFETY: forwarded: this function's contract is `open_first`'s.
    let mut report = match unsafe { open_first(&runtime_candidates(runtime), search) } {
        Ok(Loaded { library, path, name, .. }) => {
            std::mem::forget(library);
            let message = format!("{} device node(s) and the runtime from {path}", nodes.len());
            let mut report = CheckReport::new(check, NativeReason::DeviceAvailable, message);
            report.library = Some(path);
            report.library_name = Some(name);
            report
        }
        Err(message) => CheckReport::new(
            check,
            NativeReason::DriverNotFound,
            format!("device nodes exist but the runtime did not load: {message}"),
        ),
    };
    report.device_nodes = nodes;
    report
}

#[cfg(test)]
mod tests {
    #[test]
    fn hip_versions_read_as_major_minor_patch() {
        assert_eq!(super::hip_version_text(50221153).as_deref(), Some("5.2.21153"));
        assert_eq!(super::hip_version_text(60241134).as_deref(), Some("6.2.41134"));
        assert_eq!(super::hip_version_text(0), None);
    }
}
