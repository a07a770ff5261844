//! The checks other than CUDA's driver: the CUDA libraries (cuBLAS, cuFFT,
//! cuDNN: the library loads), libtorch, the HIP runtime (loads, `hipInit`,
//! at least one device), TPU (an accelerator device node and libtpu) and
//! Neuron (a device node and the Neuron runtime).

use std::ffi::{CStr, OsString, c_char, c_int, c_uint};
use std::path::{Path, PathBuf};

use super::load::{Loaded, open_first, symbol};
use crate::host::{CheckReport, HostDevice, NativeCheck, NativeReason};

/// The file names a library check tries, newest major first.
pub(crate) fn library_names(check: NativeCheck) -> &'static [&'static str] {
    use NativeCheck::*;
    if cfg!(windows) {
        match check {
            CuBlas => &["cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"],
            CuFft => &["cufft64_12.dll", "cufft64_11.dll", "cufft64_10.dll"],
            CuDnn => &["cudnn64_9.dll", "cudnn64_8.dll"],
            LibTorch => &["torch.dll"],
            Rocm => &["amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"],
            Tpu | Neuron | Cuda | Metal => &[],
        }
    } else if cfg!(target_os = "macos") {
        match check {
            LibTorch => &["libtorch.dylib"],
            _ => &[],
        }
    } else {
        match check {
            CuBlas => &["libcublas.so.13", "libcublas.so.12", "libcublas.so.11"],
            CuFft => &["libcufft.so.12", "libcufft.so.11", "libcufft.so.10"],
            CuDnn => &["libcudnn.so.9", "libcudnn.so.8"],
            LibTorch => &["libtorch.so"],
            Rocm => &["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"],
            Tpu => &["libtpu.so"],
            Neuron => &["libnrt.so.1", "libnrt.so"],
            Cuda | Metal => &[],
        }
    }
}

/// Where a check looks: an environment variable naming the library (or its
/// folder) first, as the usual bindings do, then the loader's search.
fn candidates(check: NativeCheck) -> Vec<OsString> {
    let names = library_names(check);
    let mut list = Vec::new();
    match check {
        // tch / torch-sys: `LIBTORCH` is libtorch's root, the library in `lib/`.
        NativeCheck::LibTorch => {
            if let Some(root) = std::env::var_os("LIBTORCH").filter(|v| !v.is_empty()) {
                let lib = PathBuf::from(root).join("lib");
                list.extend(names.iter().map(|name| lib.join(name).into_os_string()));
            }
        }
        // JAX: `TPU_LIBRARY_PATH` is the path of libtpu.so itself.
        NativeCheck::Tpu => {
            if let Some(path) = std::env::var_os("TPU_LIBRARY_PATH").filter(|v| !v.is_empty()) {
                list.push(path);
            }
        }
        _ => {}
    }
    list.extend(names.iter().map(OsString::from));
    list
}

/// A library check (cuBLAS, cuFFT, cuDNN, libtorch): the library loads.
pub(crate) fn library(check: NativeCheck) -> CheckReport {
    let names = candidates(check);
    match open_first(&names) {
        Ok(Loaded { library, path }) => {
            std::mem::forget(library);
            let mut report =
                CheckReport::new(check, NativeReason::LibraryAvailable, format!("{check} loaded from {path}"));
            report.library = Some(path);
            report
        }
        Err(message) => {
            CheckReport::new(check, NativeReason::LibraryNotFound, format!("{check} did not load: {message}"))
        }
    }
}

const HIP_SUCCESS: c_int = 0;
const HIP_ERROR_NO_DEVICE: c_int = 100;

type HipInit = unsafe extern "C" fn(c_uint) -> c_int;
type HipOutInt = unsafe extern "C" fn(*mut c_int) -> c_int;
type HipGetErrorName = unsafe extern "C" fn(c_int) -> *const c_char;
type HipDeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;

/// The HIP runtime: loads, `hipInit(0)`, `hipGetDeviceCount` ≥ 1.
pub(crate) fn rocm() -> CheckReport {
    let check = NativeCheck::Rocm;
    let Loaded { library, path } = match open_first(&candidates(check)) {
        Ok(loaded) => loaded,
        Err(message) => {
            let message = format!("the HIP runtime did not load: {message}");
            return CheckReport::new(check, NativeReason::DriverNotFound, message);
        }
    };
    let error_name = symbol::<HipGetErrorName>(&library, "hipGetErrorName").ok();
    let name_of = |code: c_int| {
        // SAFETY: hipGetErrorName returns a static C string.
        match error_name.map(|f| unsafe { f(code) }) {
            Some(text) if !text.is_null() => unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned(),
            _ => format!("hipError_t {code}"),
        }
    };
    let outcome = (|| {
        let init: HipInit = symbol(&library, "hipInit").map_err(|m| (NativeReason::DriverInitFailed, m))?;
        // SAFETY: the runtime's documented signature; 0 is the only flag.
        let status = unsafe { init(0) };
        if status != HIP_SUCCESS {
            let reason =
                if status == HIP_ERROR_NO_DEVICE { NativeReason::NoDevice } else { NativeReason::DriverInitFailed };
            return Err((reason, format!("hipInit(0) failed with {}", name_of(status))));
        }
        let count: HipOutInt =
            symbol(&library, "hipGetDeviceCount").map_err(|m| (NativeReason::DriverInitFailed, m))?;
        let mut n = 0;
        // SAFETY: writes one int.
        let status = unsafe { count(&mut n) };
        if status != HIP_SUCCESS || n <= 0 {
            let said = if status == HIP_SUCCESS { "0 devices".to_string() } else { name_of(status) };
            return Err((NativeReason::NoDevice, format!("hipGetDeviceCount answered {said}")));
        }
        let get_name = symbol::<HipDeviceGetName>(&library, "hipDeviceGetName").ok();
        let devices: Vec<HostDevice> = (0..n)
            .map(|index| {
                let name = get_name
                    .and_then(|f| {
                        let mut buffer = [0 as c_char; 256];
                        // SAFETY: writes at most `len` bytes, NUL-terminated.
                        (unsafe { f(buffer.as_mut_ptr(), buffer.len() as c_int, index) } == HIP_SUCCESS)
                            .then(|| unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned())
                    })
                    .unwrap_or_else(|| format!("HIP device {index}"));
                HostDevice { index: index as u32, name, compute_capability: None, memory_bytes: None }
            })
            .collect();
        let version = symbol::<HipOutInt>(&library, "hipDriverGetVersion").ok().and_then(|f| {
            let mut v = 0;
            // SAFETY: writes one int.
            (unsafe { f(&mut v) } == HIP_SUCCESS).then_some(v)
        });
        Ok((devices, version))
    })();
    let mut report = match outcome {
        Ok((devices, version)) => {
            let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
            let message = format!("{} HIP device(s): {}", devices.len(), names.join(", "));
            let mut report = CheckReport::new(check, NativeReason::DeviceAvailable, message);
            report.devices = devices;
            report.driver_version = version.map(|v| v.to_string());
            report
        }
        Err((reason, message)) => CheckReport::new(check, reason, message),
    };
    report.library = Some(path);
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
pub(crate) fn tpu() -> CheckReport {
    let mut nodes = device_nodes(Path::new("/dev"), &["accel"]);
    nodes.extend(device_nodes(Path::new("/dev/vfio"), &[""]));
    node_and_library(NativeCheck::Tpu, nodes, "no TPU device node (/dev/accel*, /dev/vfio/N)")
}

/// Neuron: a device node (`/dev/neuron*`), then the Neuron runtime loads.
pub(crate) fn neuron() -> CheckReport {
    let nodes = device_nodes(Path::new("/dev"), &["neuron"]);
    node_and_library(NativeCheck::Neuron, nodes, "no Neuron device node (/dev/neuron*)")
}

fn node_and_library(check: NativeCheck, nodes: Vec<String>, missing: &str) -> CheckReport {
    if nodes.is_empty() {
        return CheckReport::new(check, NativeReason::NoDevice, missing);
    }
    let mut report = match open_first(&candidates(check)) {
        Ok(Loaded { library, path }) => {
            std::mem::forget(library);
            let message = format!("{} device node(s) and the runtime from {path}", nodes.len());
            let mut report = CheckReport::new(check, NativeReason::DeviceAvailable, message);
            report.library = Some(path);
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
