//! How this probe runs each check the core's table names (the table and
//! the decisions it gives from the checks' reports are the core's,
//! `backend_targets::probe::native_table`, re-exported here): the driver's,
//! a library's or a runtime's check, or Metal's, and what each needs to know.

use std::time::Instant;

use super::cuda::CudaVersion;
use super::libraries::LibraryCheck;
use super::load::LoaderPath;
use super::runtimes::RuntimeCheck;
use backend_targets::probe::native::{CheckReport, NativeCheck};
pub(crate) use backend_targets::probe::native_table::{DecidedBy, Row, TABLE, decide, dependent_checks, first_checks};

/// The bare file names a check asks the loader for (what an empty or
/// relative `LD_LIBRARY_PATH` entry would have found in the working
/// directory).
pub(crate) fn bare_names(check: NativeCheck) -> Vec<&'static str> {
    match runner(check) {
        Runner::Driver => super::cuda::DRIVER.to_vec(),
        Runner::Library(library) => super::libraries::candidates(library).iter().map(|c| c.name).collect(),
        Runner::Runtime(runtime) => super::runtimes::runtime_names(runtime).to_vec(),
        // The system's framework, by its path: nothing the loader looks for.
        Runner::Metal => Vec::new(),
    }
}

/// How this probe runs a check: the driver's, a library's or a runtime's
/// check, or Metal's. Every check the core names is matched here, with no
/// catch-all (the core's [`NativeCheck`] is exhaustive): a check added there
/// is a compile error here, then in its kind's own matches (its files, its
/// first call: `libraries`, `runtimes`), and [`run`] and [`bare_names`]
/// follow from this one answer. ARCHITECTURE.md, "Adding a native check".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runner {
    /// The CUDA driver (`cuda`).
    Driver,
    /// A library loaded and asked a first question (`libraries`).
    Library(LibraryCheck),
    /// A vendor runtime and its devices (`runtimes`).
    Runtime(RuntimeCheck),
    /// A default Metal device (`metal`).
    Metal,
}

/// How this probe runs `check`.
pub(crate) const fn runner(check: NativeCheck) -> Runner {
    match check {
        NativeCheck::Cuda => Runner::Driver,
        NativeCheck::CuBlas => Runner::Library(LibraryCheck::CuBlas),
        NativeCheck::CuFft => Runner::Library(LibraryCheck::CuFft),
        NativeCheck::CuDnn => Runner::Library(LibraryCheck::CuDnn),
        NativeCheck::LibTorch => Runner::Library(LibraryCheck::LibTorch),
        NativeCheck::Rocm => Runner::Runtime(RuntimeCheck::Rocm),
        NativeCheck::Tpu => Runner::Runtime(RuntimeCheck::Tpu),
        NativeCheck::Neuron => Runner::Runtime(RuntimeCheck::Neuron),
        NativeCheck::Metal => Runner::Metal,
    }
}

/// Whether a check answers without loading anything on this platform
/// (Metal off macOS): no process needed.
pub(crate) fn loads_nothing(check: NativeCheck) -> bool {
    check == NativeCheck::Metal && !cfg!(target_os = "macos")
}

/// What a check needs to know besides its name: where the loader may
/// search, and the CUDA driver's version (for the CUDA libraries, which
/// must be built for a CUDA major it supports).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Context {
    pub search: LoaderPath,
    pub driver: Option<CudaVersion>,
}

impl Context {
    /// The context of the checks that wait for the accelerator's: the CUDA
    /// driver's version as its check read it, when it kept the accelerator
    /// (a library is judged against a driver only where the driver runs).
    pub fn after(&self, first: &[CheckReport]) -> Self {
        let driver = first
            .iter()
            .find(|r| r.check == NativeCheck::Cuda)
            .filter(|r| r.reason.is_available())
            .and_then(|r| r.driver_version.as_deref())
            .and_then(CudaVersion::parse);
        Self { search: self.search.clone(), driver }
    }
}

/// Runs one check in this process, timed.
///
/// # Safety
///
/// Unless the check loads nothing here ([`loads_nothing`]), it loads vendor
/// libraries into this process, where their initialisers run, and calls
/// into them: the caller must ensure this process may suffer what they do
/// ([`load::open`](crate::load::open)'s contract): a check's own child process ([`serve_check`](crate::serve_check)),
/// or one whose owner accepted it ([`probe_in_threads`](crate::probe_in_threads)).
pub(crate) unsafe fn run(check: NativeCheck, context: &Context) -> CheckReport {
    let start = Instant::now();
    let search = &context.search;
    let mut report = match runner(check) {
        // SAFETY: forwarded: each check's contract is this function's.
        Runner::Driver => unsafe { super::cuda::check(search) },
        // SAFETY: forwarded, as above.
        Runner::Library(library) => unsafe { super::libraries::check(library, context.driver, search) },
        // SAFETY: forwarded, as above.
        Runner::Runtime(RuntimeCheck::Rocm) => unsafe { super::runtimes::rocm(search) },
        // SAFETY: forwarded, as above.
        Runner::Runtime(RuntimeCheck::Tpu) => unsafe { super::runtimes::tpu(search) },
        // SAFETY: forwarded, as above.
        Runner::Runtime(RuntimeCheck::Neuron) => unsafe { super::runtimes::neuron(search) },
        // SAFETY: forwarded, as above.
        Runner::Metal => unsafe { super::metal::check() },
    };
    report.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every check the core names has one runner, which names it back, and
    /// the loader's bare names are its kind's files.
    #[test]
    fn every_check_is_run_as_its_kind_and_named_back() {
        for &check in NativeCheck::ALL {
            let named = match runner(check) {
                Runner::Driver => NativeCheck::Cuda,
                Runner::Library(library) => library.check(),
                Runner::Runtime(runtime) => runtime.check(),
                Runner::Metal => NativeCheck::Metal,
            };
            assert_eq!(named, check);
            let names = bare_names(check);
            match runner(check) {
                Runner::Metal => assert!(names.is_empty()),
                _ if cfg!(target_os = "linux") => assert!(!names.is_empty(), "{check}: no file to look for"),
                _ => {}
            }
        }
    }

    #[test]
    fn device_nodes_are_matched_by_prefix_and_digit() {
        let dir = std::env::temp_dir().join(format!("bt-nodes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["accel0", "accel1", "accelerator", "neuron0", "vfio"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let nodes = super::super::runtimes::device_nodes(&dir, &["accel"]);
        let names: Vec<_> = nodes.iter().map(|p| p.rsplit('/').next().unwrap()).collect();
        assert_eq!(names, ["accel0", "accel1"]);
        assert!(super::super::runtimes::device_nodes(&dir.join("missing"), &["accel"]).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
