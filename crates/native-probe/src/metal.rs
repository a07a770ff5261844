//! The Metal check: on macOS a default Metal device exists
//! (`MTLCreateSystemDefaultDevice` through a dlopen of the Metal framework,
//! no Objective-C runtime needed); elsewhere `unsupported-platform`.

use backend_targets::probe::native::{CheckReport, NativeCheck, NativeReason};

/// Runs the Metal check in this process.
///
/// # Safety
///
/// Loads the Metal and CoreGraphics frameworks into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
#[cfg(target_os = "macos")]
pub(crate) unsafe fn check() -> CheckReport {
    use super::load::{LoaderPath, open, symbol};
    use std::ffi::{OsStr, c_void};

    const METAL: &str = "/System/Library/Frameworks/Metal.framework/Metal";
    // A command-line process gets no default device unless CoreGraphics is
    // loaded (it registers the displays' GPUs).
    const CORE_GRAPHICS: &str = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics";
    type CreateDevice = unsafe extern "C" fn() -> *mut c_void;

    let check = NativeCheck::Metal;
    // Both by absolute path: no search.
    let search = LoaderPath::default();
    // SAFETY: forwarded: this function's contract is `open`'s.
    if let Ok(graphics) = unsafe { open(OsStr::new(CORE_GRAPHICS), &search) } {
        std::mem::forget(graphics.library);
    }
    // SAFETY: as above.
    let loaded = match unsafe { open(OsStr::new(METAL), &search) } {
        Ok(loaded) => loaded,
        Err(message) => {
            return CheckReport::new(check, NativeReason::DriverNotFound, format!("Metal did not load: {message}"));
        }
    };
    // SAFETY: `id<MTLDevice> MTLCreateSystemDefaultDevice(void)`; the
    // framework stays loaded (forgotten below).
    let create = unsafe { symbol::<CreateDevice>(&loaded.library, "MTLCreateSystemDefaultDevice") };
    let mut report = match create {
        Err(message) => CheckReport::new(check, NativeReason::DriverInitFailed, message),
        // SAFETY: no arguments; returns a retained `id<MTLDevice>` or nil
        // (kept: the check's process ends soon, a thread's caller will use it).
        Ok(create) if unsafe { create() }.is_null() => {
            CheckReport::new(check, NativeReason::NoDevice, "MTLCreateSystemDefaultDevice answered nil")
        }
        Ok(_) => CheckReport::new(check, NativeReason::DeviceAvailable, "a default Metal device exists"),
    };
    report.library = Some(loaded.path);
    report.library_name = Some(loaded.name);
    std::mem::forget(loaded.library);
    report
}

/// The Metal check off macOS, which loads nothing ([`checks::loads_nothing`](crate::checks::loads_nothing)).
///
/// # Safety
///
/// None here; `unsafe` as the macOS check is, which loads the frameworks.
#[cfg(not(target_os = "macos"))]
pub(crate) unsafe fn check() -> CheckReport {
    CheckReport::new(NativeCheck::Metal, NativeReason::UnsupportedPlatform, "Metal exists only on macOS")
}
