//! The library checks (cuBLAS, cuFFT, cuDNN, libtorch): a library is kept
//! only when it loads, has what it needs (cuDNN 9's sub-libraries), answers
//! one cheap first call that needs no device (a version or property query),
//! and was built for a CUDA major the driver supports. Candidates are tried
//! newest first; a newer one the driver is too old for is passed over for
//! an older one, and named when nothing older is there (`driver-too-old`).
//! A library missing from the loader's path but present in the active
//! Python environment is named in the message, not loaded.

use std::ffi::{OsString, c_int};
use std::path::{Path, PathBuf};

use libloading::Library;

use super::cuda::CudaVersion;
use super::load::{Loaded, LoaderPath, open, symbol};
use super::python;
use backend_targets::probe::native::{CheckReport, NativeCheck, NativeReason};

/// One file a library check tries, and the CUDA major it was built for when
/// its name says so (cuBLAS and cuFFT sonames do; cuDNN's do not: the
/// library says, `cudnnGetCudartVersion`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub name: &'static str,
    pub cuda_major: Option<u32>,
}

#[cfg(not(target_os = "macos"))]
const fn candidate(name: &'static str, cuda_major: u32) -> Candidate {
    Candidate { name, cuda_major: Some(cuda_major) }
}

const fn any_cuda(name: &'static str) -> Candidate {
    Candidate { name, cuda_major: None }
}

/// The checks that load a vendor library and ask it a first question: each
/// match over them is exhaustive, so that a library check added to
/// [`checks::runner`](crate::checks::runner) is a compile error here until it
/// has its files and its question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LibraryCheck {
    CuBlas,
    CuFft,
    CuDnn,
    LibTorch,
}

impl LibraryCheck {
    /// The core's name of the check.
    pub(crate) const fn check(self) -> NativeCheck {
        match self {
            Self::CuBlas => NativeCheck::CuBlas,
            Self::CuFft => NativeCheck::CuFft,
            Self::CuDnn => NativeCheck::CuDnn,
            Self::LibTorch => NativeCheck::LibTorch,
        }
    }
}

/// The files a library check tries on this platform, newest first (cuFFT's
/// major is one behind CUDA's: cuFFT 11 ships with CUDA 12, cuFFT 12 with
/// CUDA 13).
#[cfg(all(unix, not(target_os = "macos")))]
pub(crate) const fn candidates(library: LibraryCheck) -> &'static [Candidate] {
    match library {
        LibraryCheck::CuBlas => {
            const { &[candidate("libcublas.so.13", 13), candidate("libcublas.so.12", 12), candidate("libcublas.so.11", 11)] }
        }
        LibraryCheck::CuFft => {
            const { &[candidate("libcufft.so.12", 13), candidate("libcufft.so.11", 12), candidate("libcufft.so.10", 11)] }
        }
        LibraryCheck::CuDnn => const { &[any_cuda("libcudnn.so.9"), any_cuda("libcudnn.so.8")] },
        LibraryCheck::LibTorch => const { &[any_cuda("libtorch.so")] },
    }
}
/// The files a library check tries on macOS (no CUDA there).
#[cfg(target_os = "macos")]
pub(crate) const fn candidates(library: LibraryCheck) -> &'static [Candidate] {
    match library {
        LibraryCheck::LibTorch => const { &[any_cuda("libtorch.dylib")] },
        LibraryCheck::CuBlas | LibraryCheck::CuFft | LibraryCheck::CuDnn => &[],
    }
}
/// The files a library check tries on Windows, newest first.
#[cfg(windows)]
pub(crate) const fn candidates(library: LibraryCheck) -> &'static [Candidate] {
    match library {
        LibraryCheck::CuBlas => {
            const { &[candidate("cublas64_13.dll", 13), candidate("cublas64_12.dll", 12), candidate("cublas64_11.dll", 11)] }
        }
        LibraryCheck::CuFft => {
            const { &[candidate("cufft64_12.dll", 13), candidate("cufft64_11.dll", 12), candidate("cufft64_10.dll", 11)] }
        }
        LibraryCheck::CuDnn => const { &[any_cuda("cudnn64_9.dll"), any_cuda("cudnn64_8.dll")] },
        LibraryCheck::LibTorch => const { &[any_cuda("torch.dll")] },
    }
}

/// The sub-libraries cuDNN 9's `libcudnn.so.9` (a shim) loads on its first
/// call; without them that call aborts the process ("Invalid handle. Cannot
/// load symbol cudnnGetVersion").
pub(crate) const CUDNN9_SUB_LIBRARIES: &[&str] =
    if cfg!(windows) { &["cudnn_graph64_9.dll"] } else { &["libcudnn_graph.so.9"] };

/// What one candidate came to.
enum Tried {
    /// Loaded and answered: the report to give.
    Usable(CheckReport),
    /// Loaded, but built for a newer CUDA than the driver: `(name, major)`.
    TooNew(String, u32),
    /// Loaded but its first call failed, or a part is missing: why.
    Unusable(String),
    /// Did not load: the loader's words.
    NotFound(String),
    /// The file an earlier candidate already opened (a bare name that
    /// finds the library `LIBTORCH` named, which is loaded by then).
    Again,
}

/// A library check: the newest usable candidate, judged against the
/// driver's version (`driver`, when the CUDA check read it).
///
/// # Safety
///
/// Loads the check's candidate libraries into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
pub(crate) unsafe fn check(library: LibraryCheck, driver: Option<CudaVersion>, search: &LoaderPath) -> CheckReport {
    let check = library.check();
    let mut names: Vec<(OsString, Option<u32>)> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    if library == LibraryCheck::LibTorch {
        let (first, note) = libtorch_first();
        names.extend(first.map(|path| (path.into_os_string(), None)));
        notes.extend(note);
    }
    names.extend(candidates(library).iter().map(|c| (OsString::from(c.name), c.cuda_major)));
    let mut too_new: Vec<(String, u32)> = Vec::new();
    let mut unusable: Vec<String> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();
    let mut opened: Vec<String> = Vec::new();
    for (name, major) in &names {
        let shown = name.to_string_lossy().into_owned();
        // SAFETY: forwarded: this function's contract is `try_one`'s.
        match unsafe { try_one(library, name, *major, driver, search, &mut opened) } {
            Tried::Usable(mut report) => {
                let mut passed = Vec::new();
                passed.extend(too_new.iter().map(|(n, m)| format!("{n} needs a CUDA {m} driver")));
                passed.extend(unusable.iter().cloned());
                if !passed.is_empty() {
                    report.message.push_str(&format!(" (passed over: {})", passed.join("; ")));
                }
                return report;
            }
            Tried::TooNew(name, major) => too_new.push((name, major)),
            Tried::Unusable(why) => unusable.push(why),
            Tried::NotFound(words) => not_found.push(if words.is_empty() { shown } else { words }),
            Tried::Again => {}
        }
    }
    let mut report = if !unusable.is_empty() {
        CheckReport::new(
            check,
            NativeReason::LibraryUnusable,
            format!("{check} cannot run here: {}", unusable.join("; ")),
        )
    } else if let (Some((name, major)), Some(driver)) = (too_new.first(), driver) {
        let all: Vec<String> = too_new.iter().map(|(n, m)| format!("{n} needs a CUDA {m} driver")).collect();
        // A file name that does not say its CUDA (libcudnn.so.9, libtorch.so)
        // is the loader's first on its path: one for an older CUDA further
        // along is shadowed, not missing.
        // A path (`LIBTORCH`'s) or a name that says its CUDA: another build
        // is the fix; a bare name that does not: the order of the path too.
        let named_by_version =
            name.contains('/') || names.iter().any(|(n, m)| m.is_some() && n.to_string_lossy() == *name);
        let advice = if named_by_version {
            format!("install a newer driver, or a {check} built for CUDA {}", driver.major)
        } else {
            format!(
                "install a newer driver, or put a {name} built for CUDA {} first on the loader's path \
                 (the loader takes the first file of that name)",
                driver.major
            )
        };
        let mut report = CheckReport::new(
            check,
            NativeReason::DriverTooOld,
            format!("{}; this driver is {driver}: {advice}", all.join("; ")),
        );
        report.cuda_major = Some(*major);
        report.library_name = Some(name.clone());
        report
    } else {
        let mut message = format!("{check} did not load: {}", not_found.join("; "));
        if let Some(hint) =
            python::hint(check, &names.iter().map(|(n, _)| n.to_string_lossy().into_owned()).collect::<Vec<_>>())
        {
            message.push_str(&format!(". {hint}"));
        }
        CheckReport::new(check, NativeReason::LibraryNotFound, message)
    };
    if !report.reason.is_available() && report.reason != NativeReason::LibraryNotFound {
        report.library = opened.first().cloned();
    }
    for note in notes {
        report.message.push_str(&format!(" ({note})"));
    }
    report
}

/// Loads one candidate and asks it its first question.
///
/// # Safety
///
/// Loads the candidate (and, for cuDNN, its parts) into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
unsafe fn try_one(
    library_check: LibraryCheck,
    name: &OsString,
    major_by_name: Option<u32>,
    driver: Option<CudaVersion>,
    search: &LoaderPath,
    opened: &mut Vec<String>,
) -> Tried {
    // SAFETY: forwarded: this function's contract is `open`'s.
    let Loaded { library, path, loaded_as, name: asked } = match unsafe { open(name, search) } {
        Ok(loaded) => loaded,
        Err(words) => return Tried::NotFound(words),
    };
    if opened.contains(&path) {
        std::mem::forget(library);
        return Tried::Again;
    }
    opened.push(path.clone());
    // A library built for a newer CUDA than the driver is passed over
    // before it is asked anything.
    if let (Some(major), Some(driver)) = (major_by_name, driver)
        && major > driver.major
    {
        std::mem::forget(library);
        return Tried::TooNew(asked, major);
    }
    // SAFETY: forwarded: this function's contract is `first_call`'s.
    let answer = unsafe { first_call(library_check, &library, &loaded_as, search) };
    // Stay loaded: the process ends soon, and a caller probing on a thread
    // is about to use it.
    std::mem::forget(library);
    let answer = match answer {
        Ok(answer) => answer,
        Err(why) => return Tried::Unusable(format!("{asked} ({path}) {why}")),
    };
    let cuda_major = answer.cuda_major.or(major_by_name);
    if let (Some(major), Some(driver)) = (cuda_major, driver)
        && major > driver.major
    {
        return Tried::TooNew(asked, major);
    }
    let version = answer.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
    let built = cuda_major.map(|m| format!(", built for CUDA {m}")).unwrap_or_default();
    let check = library_check.check();
    let mut report = CheckReport::new(
        check,
        NativeReason::LibraryAvailable,
        format!("{check}{version} answered from {path}{built}"),
    );
    report.library = Some(path);
    report.library_name = Some(asked);
    report.library_version = answer.version;
    report.cuda_major = cuda_major;
    Tried::Usable(report)
}

/// What a first call told.
struct Answer {
    version: Option<String>,
    cuda_major: Option<u32>,
}

type LibraryPropertyQuery = unsafe extern "C" fn(c_int, *mut c_int) -> c_int;
type SizeQuery = unsafe extern "C" fn() -> usize;

/// `libraryPropertyType`: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL.
const PROPERTIES: [c_int; 3] = [0, 1, 2];

/// `major.minor.patch` from a `…GetProperty(libraryPropertyType, int*)`
/// entry point (cuBLAS, cuFFT): an error when any call fails.
fn property_version(library: &Library, entry: &str) -> Result<String, String> {
    // SAFETY: cublasGetProperty and cufftGetProperty take
    // (libraryPropertyType, int*) and return a status (0: success).
    let get = unsafe { symbol::<LibraryPropertyQuery>(library, entry) }.map_err(|m| format!("cannot answer: {m}"))?;
    let mut parts = Vec::new();
    for property in PROPERTIES {
        let mut value = -1;
        // SAFETY: writes one int.
        let status = unsafe { get(property, &mut value) };
        if status != 0 || !(0..100_000).contains(&value) {
            return Err(format!("answered its first call, {entry}, with status {status}"));
        }
        parts.push(value.to_string());
    }
    Ok(parts.join("."))
}

/// `major` of a `…GetCudartVersion()` answer (`12080` = CUDA 12.8).
fn cudart_major(library: &Library, entry: &str) -> Option<u32> {
    // SAFETY: cublasGetCudartVersion and cudnnGetCudartVersion take nothing
    // and return a size_t.
    let get = unsafe { symbol::<SizeQuery>(library, entry) }.ok()?;
    // SAFETY: no arguments.
    let version = unsafe { get() };
    (1000..100_000).contains(&version).then_some(version as u32 / 1000)
}

/// Asks `library` the check's first question.
///
/// # Safety
///
/// May load cuDNN's parts ([`cudnn`]) into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
unsafe fn first_call(
    check: LibraryCheck,
    library: &Library,
    loaded_as: &Path,
    search: &LoaderPath,
) -> Result<Answer, String> {
    match check {
        LibraryCheck::CuBlas => Ok(Answer {
            version: Some(property_version(library, "cublasGetProperty")?),
            cuda_major: cudart_major(library, "cublasGetCudartVersion"),
        }),
        LibraryCheck::CuFft => {
            Ok(Answer { version: Some(property_version(library, "cufftGetProperty")?), cuda_major: None })
        }
        // SAFETY: forwarded: this function's contract is `cudnn`'s.
        LibraryCheck::CuDnn => unsafe { cudnn(library, loaded_as, search) },
        LibraryCheck::LibTorch => libtorch(library),
    }
}

/// cuDNN: its sub-libraries (version 9) are there, then `cudnnGetVersion()`
/// answers, and `cudnnGetCudartVersion()` says which CUDA it was built for.
///
/// # Safety
///
/// Loads cuDNN 9's sub-libraries into this process, where their initialisers run: the caller must
/// ensure this process may suffer what they do ([`load::open`](crate::load::open)'s contract).
unsafe fn cudnn(library: &Library, loaded_as: &Path, search: &LoaderPath) -> Result<Answer, String> {
    // SAFETY: `size_t cudnnGetVersion(void)`.
    let get_version =
        unsafe { symbol::<SizeQuery>(library, "cudnnGetVersion") }.map_err(|m| format!("cannot answer: {m}"))?;
    let file = loaded_as.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let is_nine = file.contains("cudnn.so.9") || file.contains("cudnn64_9");
    if is_nine {
        // The shim's `$ORIGIN` is the folder of the path the loader used,
        // links not resolved: a link to the wheel's file finds nothing beside
        // the link (measured with the real shim: it aborts).
        let folder = loaded_as.parent().map(PathBuf::from);
        for sub in CUDNN9_SUB_LIBRARIES {
            // As the shim finds them: beside it (DT_RPATH $ORIGIN), or through the loader.
            let beside = folder.as_ref().map(|f| f.join(sub)).filter(|p| p.exists());
            let name = beside.as_ref().map_or(std::ffi::OsStr::new(sub), |file| file.as_os_str());
            // SAFETY: forwarded: this function's contract is `open`'s.
            let loaded = unsafe { open(name, search) };
            match loaded {
                Ok(sub) => std::mem::forget(sub.library),
                Err(words) => return Err(format!("is missing a part it loads on its first call: {words}")),
            }
        }
    }
    // SAFETY: no arguments; the shim's parts are loadable (checked above).
    let version = unsafe { get_version() };
    if version == 0 {
        return Err("answered cudnnGetVersion() with 0".into());
    }
    let text = if version >= 90_000 {
        format!("{}.{}.{}", version / 10_000, (version % 10_000) / 100, version % 100)
    } else {
        format!("{}.{}.{}", version / 1000, (version % 1000) / 100, version % 100)
    };
    Ok(Answer { version: Some(text), cuda_major: cudart_major(library, "cudnnGetCudartVersion") })
}

/// libtorch: `aoti_torch_abi_version()` (a C entry point since libtorch
/// 2.6: `major << 56 | minor << 48`), else `at::get_num_threads()` (older
/// ones). Neither needs a device.
fn libtorch(library: &Library) -> Result<Answer, String> {
    type AbiVersion = unsafe extern "C" fn() -> u64;
    type NumThreads = unsafe extern "C" fn() -> c_int;
    // SAFETY: `uint64_t aoti_torch_abi_version(void)` (torch/csrc/inductor/aoti_torch/c/shim.h).
    if let Ok(abi) = unsafe { symbol::<AbiVersion>(library, "aoti_torch_abi_version") } {
        // SAFETY: no arguments.
        let version = unsafe { abi() };
        let (major, minor) = (version >> 56, (version >> 48) & 0xff);
        if major == 0 {
            return Err(format!("answered aoti_torch_abi_version() with {version:#x}"));
        }
        return Ok(Answer { version: Some(format!("{major}.{minor}")), cuda_major: libtorch_cuda_major() });
    }
    // SAFETY: `int at::get_num_threads()`, a plain C++ function without
    // arguments (its mangled name).
    let threads = unsafe { symbol::<NumThreads>(library, "_ZN2at15get_num_threadsEv") }.map_err(|_| {
        "cannot answer: the library has neither `aoti_torch_abi_version` nor `at::get_num_threads`".to_string()
    })?;
    // SAFETY: no arguments.
    match unsafe { threads() } {
        n if n > 0 => Ok(Answer { version: None, cuda_major: libtorch_cuda_major() }),
        n => Err(format!("answered at::get_num_threads() with {n}")),
    }
}

/// The CUDA major a loaded libtorch was built for: that of the CUDA
/// runtime it pulled in (`libcudart.so.13` for PyTorch's cu13 builds);
/// `None` for a CPU build, which loads none.
fn libtorch_cuda_major() -> Option<u32> {
    super::load::loaded_objects().iter().find_map(|name| {
        let file = name.rsplit('/').next()?;
        file.strip_prefix("libcudart.so.")?.split('.').next()?.parse().ok()
    })
}

/// libtorch's first candidate from the environment, as `tch`/`torch-sys`
/// find it: `$LIBTORCH/lib/libtorch.so`, or with `LIBTORCH_USE_PYTORCH`
/// the active Python environment's `torch/lib/libtorch.so`; and a note when
/// a value is not used.
fn libtorch_first() -> (Option<PathBuf>, Option<String>) {
    let file = candidates(LibraryCheck::LibTorch).first().map_or("libtorch.so", |c| c.name);
    if let Some(root) = std::env::var_os("LIBTORCH").filter(|v| !v.is_empty()) {
        let root = PathBuf::from(root);
        if !root.is_absolute() {
            let note = format!("LIBTORCH={} is relative, which names the working directory: not used", root.display());
            return (None, Some(note));
        }
        return (Some(root.join("lib").join(file)), None);
    }
    if std::env::var_os("LIBTORCH_USE_PYTORCH").is_some_and(|v| !v.is_empty()) {
        return match python::torch_library(file) {
            Some(path) => (Some(path), None),
            None => (None, Some("LIBTORCH_USE_PYTORCH is set, but no Python environment holds torch/lib".into())),
        };
    }
    (None, None)
}
