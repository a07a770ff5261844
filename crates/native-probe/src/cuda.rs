//! The CUDA driver check: `libcuda.so.1` (`nvcuda.dll`) loads, its version
//! is read (`cuDriverGetVersion` needs no `cuInit`), `cuInit(0)` succeeds,
//! at least one device. Only eight driver entry points are used (`cuInit`,
//! `cuDriverGetVersion`, `cuDeviceGetCount`, `cuDeviceGet`,
//! `cuDeviceGetName`, `cuDeviceGetAttribute`, `cuDeviceTotalMem_v2`,
//! `cuGetErrorName`), so that a test double can stand in for the driver.
//! Every value the driver hands back is bounded and checked before it is
//! reported.

use std::ffi::{c_char, c_int, c_uint};

use libloading::Library;

use super::codes::{CUDA_ERROR_NO_DEVICE, CUDA_ERROR_STUB_LIBRARY, CUDA_RESULTS, name_in};
use super::load::{Loaded, LoaderPath, open_first, returned_text, symbol, text_in};
use backend_targets::probe::native::{CheckReport, HostDevice, NativeCheck, NativeReason};

/// The driver library, as the loader names it.
#[cfg(windows)]
pub(crate) const DRIVER: &[&str] = &["nvcuda.dll"];
#[cfg(not(windows))]
pub(crate) const DRIVER: &[&str] = &["libcuda.so.1"];

const CUDA_SUCCESS: c_int = 0;
const COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const COMPUTE_CAPABILITY_MINOR: c_int = 76;

/// At most this many devices are listed (a host has at most a few dozen;
/// a driver that counts more is still reported with its count).
pub(crate) const MAX_LISTED_DEVICES: c_int = 64;
/// The size of the buffer a device's name is read into.
pub(crate) const NAME_BUFFER: usize = 256;
/// Memory sizes above this (2^53, what JSON readers hold exactly) are not
/// believed.
const MAX_MEMORY_BYTES: u64 = 1 << 53;

type CuInit = unsafe extern "C" fn(c_uint) -> c_int;
type CuOutInt = unsafe extern "C" fn(*mut c_int) -> c_int;
type CuDeviceGet = unsafe extern "C" fn(*mut c_int, c_int) -> c_int;
type CuDeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;
type CuDeviceGetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
type CuDeviceTotalMem = unsafe extern "C" fn(*mut usize, c_int) -> c_int;
type CuGetErrorName = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

/// A CUDA version as `cuDriverGetVersion` encodes it (`12040` = 12.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct CudaVersion {
    pub major: u32,
    pub minor: u32,
}

impl CudaVersion {
    /// From the driver's encoding; `None` for a value no driver reports.
    pub fn from_encoded(version: c_int) -> Option<Self> {
        (1000..100_000)
            .contains(&version)
            .then_some(Self { major: version as u32 / 1000, minor: (version as u32 % 1000) / 10 })
    }

    /// From its text, `major.minor` (as reported in `driverVersion`).
    pub fn parse(text: &str) -> Option<Self> {
        let (major, minor) = text.split_once('.')?;
        Some(Self { major: major.parse().ok()?, minor: minor.parse().ok()? })
    }
}

impl std::fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Runs the CUDA check in this process.
///
/// # Safety
///
/// Loads the CUDA driver into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
pub(crate) unsafe fn check(search: &LoaderPath) -> CheckReport {
    // SAFETY: forwarded: this function's contract is `open_first`'s.
    let Loaded { library, path, name, .. } = match unsafe { open_first(DRIVER, search) } {
        Ok(loaded) => loaded,
        Err(message) => {
            return CheckReport::new(
                NativeCheck::Cuda,
                NativeReason::DriverNotFound,
                format!("the CUDA driver did not load: {message}"),
            );
        }
    };
    let driver = Driver::new(&library);
    let version = driver.version();
    let mut report = match driver.devices(&path) {
        Ok((count, devices)) => {
            let listed = if count as usize > devices.len() {
                format!(" (the first {} listed)", devices.len())
            } else {
                String::new()
            };
            let described: Vec<String> = devices.iter().map(describe).collect();
            let message =
                format!("{count} CUDA device{}{listed}: {}", if count == 1 { "" } else { "s" }, described.join(", "));
            let mut report = CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, message);
            report.devices = devices;
            report
        }
        Err((reason, message)) => CheckReport::new(NativeCheck::Cuda, reason, message),
    };
    report.driver_version = version.map(|v| v.to_string());
    report.library = Some(path);
    report.library_name = Some(name);
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

/// The driver's entry points (those it lacks are `None`).
struct Driver {
    init: Option<CuInit>,
    driver_get_version: Option<CuOutInt>,
    get_count: Option<CuOutInt>,
    device_get: Option<CuDeviceGet>,
    get_name: Option<CuDeviceGetName>,
    get_attribute: Option<CuDeviceGetAttribute>,
    total_mem: Option<CuDeviceTotalMem>,
    error_name: Option<CuGetErrorName>,
}

impl Driver {
    fn new(library: &Library) -> Self {
        // SAFETY: each type is the entry point's documented C signature
        // (cuda.h); the library stays loaded (forgotten by `check`).
        unsafe {
            Self {
                init: symbol(library, "cuInit").ok(),
                driver_get_version: symbol(library, "cuDriverGetVersion").ok(),
                get_count: symbol(library, "cuDeviceGetCount").ok(),
                device_get: symbol(library, "cuDeviceGet").ok(),
                get_name: symbol(library, "cuDeviceGetName").ok(),
                get_attribute: symbol(library, "cuDeviceGetAttribute").ok(),
                total_mem: symbol(library, "cuDeviceTotalMem_v2").ok(),
                error_name: symbol(library, "cuGetErrorName").ok(),
            }
        }
    }

    /// The driver's name for `code`, or the project's table's when its own
    /// name function fails (the stub's does).
    fn name_of(&self, code: c_int) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string, read
        // within a bound by `returned_text`.
        let own = self
            .error_name
            .filter(|f| unsafe { f(code, &mut text) } == CUDA_SUCCESS)
            .and_then(|_| unsafe { returned_text(text) })
            .filter(|name| !name.is_empty());
        own.unwrap_or_else(|| name_in(CUDA_RESULTS, "CUresult", code))
    }

    /// `cuDriverGetVersion`, which answers without `cuInit`.
    fn version(&self) -> Option<CudaVersion> {
        let f = self.driver_get_version?;
        let mut version = 0;
        // SAFETY: writes one int.
        (unsafe { f(&mut version) } == CUDA_SUCCESS).then_some(version).and_then(CudaVersion::from_encoded)
    }

    /// `cuInit`, then the devices: the count and at most
    /// [`MAX_LISTED_DEVICES`] of them.
    fn devices(&self, path: &str) -> Result<(u32, Vec<HostDevice>), Failure> {
        let init_failed = |message: String| (NativeReason::DriverInitFailed, message);
        let init = self.init.ok_or_else(|| init_failed("the library has no `cuInit`".into()))?;
        // SAFETY: the driver's documented signature; 0 is the only valid flag.
        let status = unsafe { init(0) };
        match status {
            CUDA_SUCCESS => {}
            CUDA_ERROR_NO_DEVICE => {
                return Err((NativeReason::NoDevice, format!("cuInit(0) answered {}", self.name_of(status))));
            }
            CUDA_ERROR_STUB_LIBRARY => {
                return Err((
                    NativeReason::DriverNotFound,
                    format!(
                        "{path} is the CUDA toolkit's stub library, not a driver (cuInit(0) answered \
                         CUDA_ERROR_STUB_LIBRARY): install the NVIDIA driver, or take the toolkit's \
                         stubs folder off the loader's path"
                    ),
                ));
            }
            _ => return Err(init_failed(format!("cuInit(0) failed with {}", self.name_of(status)))),
        }
        let get_count = self.get_count.ok_or_else(|| init_failed("the library has no `cuDeviceGetCount`".into()))?;
        let mut count = 0;
        // SAFETY: writes one int.
        let status = unsafe { get_count(&mut count) };
        if status != CUDA_SUCCESS {
            let reason =
                if status == CUDA_ERROR_NO_DEVICE { NativeReason::NoDevice } else { NativeReason::DriverInitFailed };
            return Err((reason, format!("cuDeviceGetCount failed with {}", self.name_of(status))));
        }
        if count < 0 {
            return Err(init_failed(format!("cuDeviceGetCount answered {count}, which is not a count")));
        }
        if count == 0 {
            return Err((NativeReason::NoDevice, "cuDeviceGetCount counted 0 CUDA devices".into()));
        }
        let devices = (0..count.min(MAX_LISTED_DEVICES)).filter_map(|ordinal| self.device(ordinal)).collect();
        Ok((count as u32, devices))
    }

    fn device(&self, ordinal: c_int) -> Option<HostDevice> {
        let mut device = ordinal;
        if let Some(f) = self.device_get {
            // SAFETY: writes one CUdevice (an int).
            if unsafe { f(&mut device, ordinal) } != CUDA_SUCCESS {
                return None;
            }
        }
        let name = self
            .get_name
            .and_then(|f| {
                let mut buffer = [0 as c_char; NAME_BUFFER];
                // SAFETY: writes at most `len` bytes; read back within the
                // buffer (a driver that fills it without a NUL is cut there).
                (unsafe { f(buffer.as_mut_ptr(), buffer.len() as c_int, device) } == CUDA_SUCCESS)
                    .then(|| text_in(&buffer))
            })
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| format!("CUDA device {ordinal}"));
        let attribute = |which: c_int| {
            self.get_attribute.and_then(|f| {
                let mut value = 0;
                // SAFETY: writes one int.
                (unsafe { f(&mut value, which, device) } == CUDA_SUCCESS).then_some(value)
            })
        };
        // Compute capabilities run from 1.0 to the tens; anything else is
        // not reported.
        let compute_capability = match (attribute(COMPUTE_CAPABILITY_MAJOR), attribute(COMPUTE_CAPABILITY_MINOR)) {
            (Some(major @ 1..=99), Some(minor @ 0..=99)) => Some(format!("{major}.{minor}")),
            _ => None,
        };
        let memory_bytes = self.total_mem.and_then(|f| {
            let mut bytes = 0usize;
            // SAFETY: writes one size_t.
            (unsafe { f(&mut bytes, device) } == CUDA_SUCCESS).then_some(bytes as u64)
        });
        let memory_bytes = memory_bytes.filter(|&bytes| bytes > 0 && bytes <= MAX_MEMORY_BYTES);
        Some(HostDevice::new(ordinal as u32, name, compute_capability, memory_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_versions_are_decoded_and_bounded() {
        assert_eq!(CudaVersion::from_encoded(12040), Some(CudaVersion { major: 12, minor: 4 }));
        assert_eq!(CudaVersion::from_encoded(12020).unwrap().to_string(), "12.2");
        assert_eq!(CudaVersion::from_encoded(13000).unwrap().to_string(), "13.0");
        assert_eq!(CudaVersion::from_encoded(0), None);
        assert_eq!(CudaVersion::from_encoded(-5), None);
        assert_eq!(CudaVersion::parse("12.2"), CudaVersion::from_encoded(12020));
        assert_eq!(CudaVersion::parse("12"), None);
    }
}
