//! The CUDA driver check: `libcuda.so.1` (`nvcuda.dll`) loads, `cuInit(0)`
//! succeeds, at least one device. Only eight driver entry points are used
//! (`cuInit`, `cuDriverGetVersion`, `cuDeviceGetCount`, `cuDeviceGet`,
//! `cuDeviceGetName`, `cuDeviceGetAttribute`, `cuDeviceTotalMem_v2`,
//! `cuGetErrorName`), so that a test double can stand in for the driver.

use std::ffi::{CStr, c_char, c_int, c_uint};

use libloading::Library;

use super::load::{Loaded, open_first, symbol};
use crate::host::{CheckReport, HostDevice, NativeCheck, NativeReason};

/// The driver library, as the loader names it.
#[cfg(windows)]
pub(crate) const DRIVER: &[&str] = &["nvcuda.dll"];
#[cfg(not(windows))]
pub(crate) const DRIVER: &[&str] = &["libcuda.so.1"];

const CUDA_SUCCESS: c_int = 0;
const CUDA_ERROR_NO_DEVICE: c_int = 100;
const COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const COMPUTE_CAPABILITY_MINOR: c_int = 76;

type CuInit = unsafe extern "C" fn(c_uint) -> c_int;
type CuOutInt = unsafe extern "C" fn(*mut c_int) -> c_int;
type CuDeviceGet = unsafe extern "C" fn(*mut c_int, c_int) -> c_int;
type CuDeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;
type CuDeviceGetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
type CuDeviceTotalMem = unsafe extern "C" fn(*mut usize, c_int) -> c_int;
type CuGetErrorName = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

/// `12040` → `12.4`.
pub(crate) fn version_text(version: c_int) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}

/// Runs the CUDA check in this process.
pub(crate) fn check() -> CheckReport {
    let Loaded { library, path } = match open_first(DRIVER) {
        Ok(loaded) => loaded,
        Err(message) => {
            return CheckReport::new(
                NativeCheck::Cuda,
                NativeReason::DriverNotFound,
                format!("the CUDA driver did not load: {message}"),
            );
        }
    };
    let mut report = match query(&library) {
        Ok((version, devices)) => {
            let mut report = if devices.is_empty() {
                CheckReport::new(NativeCheck::Cuda, NativeReason::NoDevice, "cuDeviceGetCount counted 0 CUDA devices")
            } else {
                let list: Vec<String> = devices.iter().map(describe).collect();
                let message = format!(
                    "{} CUDA device{}: {}",
                    devices.len(),
                    if devices.len() == 1 { "" } else { "s" },
                    list.join(", ")
                );
                CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, message)
            };
            report.driver_version = version.map(version_text);
            report.devices = devices;
            report
        }
        Err((reason, message)) => CheckReport::new(NativeCheck::Cuda, reason, message),
    };
    report.library = Some(path);
    // Stay loaded: unloading a driver is where broken ones crash, and a
    // caller probing in-process is about to use it anyway.
    std::mem::forget(library);
    report
}

fn describe(device: &HostDevice) -> String {
    let mut parts = Vec::new();
    if let Some(cc) = &device.compute_capability {
        parts.push(format!("compute capability {cc}"));
    }
    if let Some(bytes) = device.memory_bytes {
        parts.push(format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64));
    }
    if parts.is_empty() { device.name.clone() } else { format!("{} ({})", device.name, parts.join(", ")) }
}

type Failure = (NativeReason, String);

fn query(library: &Library) -> Result<(Option<c_int>, Vec<HostDevice>), Failure> {
    let init_failed = |message: String| (NativeReason::DriverInitFailed, message);
    let cu_init: CuInit = symbol(library, "cuInit").map_err(init_failed)?;
    let error_name = symbol::<CuGetErrorName>(library, "cuGetErrorName").ok();
    let name_of = |code: c_int| -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string.
        match error_name {
            Some(f) if unsafe { f(code, &mut text) } == CUDA_SUCCESS && !text.is_null() => {
                unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
            }
            _ => format!("CUresult {code}"),
        }
    };
    // SAFETY: the driver's documented signature; 0 is the only valid flag.
    let status = unsafe { cu_init(0) };
    if status == CUDA_ERROR_NO_DEVICE {
        return Err((NativeReason::NoDevice, format!("cuInit(0) answered {}", name_of(status))));
    }
    if status != CUDA_SUCCESS {
        return Err(init_failed(format!("cuInit(0) failed with {}", name_of(status))));
    }
    let version = symbol::<CuOutInt>(library, "cuDriverGetVersion").ok().and_then(|f| {
        let mut version = 0;
        // SAFETY: writes one int.
        (unsafe { f(&mut version) } == CUDA_SUCCESS).then_some(version)
    });
    let get_count: CuOutInt = symbol(library, "cuDeviceGetCount").map_err(init_failed)?;
    let mut count = 0;
    // SAFETY: writes one int.
    let status = unsafe { get_count(&mut count) };
    if status != CUDA_SUCCESS {
        let reason =
            if status == CUDA_ERROR_NO_DEVICE { NativeReason::NoDevice } else { NativeReason::DriverInitFailed };
        return Err((reason, format!("cuDeviceGetCount failed with {}", name_of(status))));
    }
    let device_get = symbol::<CuDeviceGet>(library, "cuDeviceGet").ok();
    let get_name = symbol::<CuDeviceGetName>(library, "cuDeviceGetName").ok();
    let get_attribute = symbol::<CuDeviceGetAttribute>(library, "cuDeviceGetAttribute").ok();
    let total_mem = symbol::<CuDeviceTotalMem>(library, "cuDeviceTotalMem_v2").ok();
    let mut devices = Vec::new();
    for ordinal in 0..count.max(0) {
        let mut device = ordinal;
        if let Some(f) = device_get {
            // SAFETY: writes one CUdevice (an int).
            if unsafe { f(&mut device, ordinal) } != CUDA_SUCCESS {
                continue;
            }
        }
        let name = get_name
            .and_then(|f| {
                let mut buffer = [0 as c_char; 256];
                // SAFETY: writes at most `len` bytes, NUL-terminated.
                (unsafe { f(buffer.as_mut_ptr(), buffer.len() as c_int, device) } == CUDA_SUCCESS)
                    .then(|| unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| format!("CUDA device {ordinal}"));
        let attribute = |which: c_int| {
            get_attribute.and_then(|f| {
                let mut value = 0;
                // SAFETY: writes one int.
                (unsafe { f(&mut value, which, device) } == CUDA_SUCCESS).then_some(value)
            })
        };
        let compute_capability = match (attribute(COMPUTE_CAPABILITY_MAJOR), attribute(COMPUTE_CAPABILITY_MINOR)) {
            (Some(major), Some(minor)) => Some(format!("{major}.{minor}")),
            _ => None,
        };
        let memory_bytes = total_mem.and_then(|f| {
            let mut bytes = 0usize;
            // SAFETY: writes one size_t.
            (unsafe { f(&mut bytes, device) } == CUDA_SUCCESS).then_some(bytes as u64)
        });
        devices.push(HostDevice { index: ordinal as u32, name, compute_capability, memory_bytes });
    }
    Ok((version, devices))
}
