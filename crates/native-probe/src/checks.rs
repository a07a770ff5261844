//! What decides each declared accelerator and feature, as one table (data,
//! not a chain of branches), and the decisions it gives from the checks'
//! reports.

use std::time::Instant;

use super::cuda::CudaVersion;
use super::libraries::LibraryCheck;
use super::load::LoaderPath;
use super::runtimes::RuntimeCheck;
use backend_targets::Target;
use backend_targets::probe::native::{ChangeAction, CheckReport, NativeChange, NativeCheck, NativeReason, Subject};
use backend_targets::vocab::{Accelerator, BuildFeature};

/// How one row is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecidedBy {
    /// The check's reason decides (kept when it found what it looked for).
    Check(NativeCheck),
    /// Kept with this accelerator (declared and kept), else `requires-accelerator`.
    WithAccelerator(Accelerator),
    /// This accelerator kept, then the check.
    AcceleratorThen(Accelerator, NativeCheck),
    /// The check decides, but runs after this accelerator's own when the
    /// target declares it, and is then judged against its driver's version
    /// (libtorch: a CUDA build for a newer CUDA than the driver runs is
    /// `driver-too-old` on a CUDA target, kept on a CPU one).
    CheckAfter(Accelerator, NativeCheck),
    /// `asDeclared` with `not-probeable`, and why.
    NotProbeable(&'static str),
}

/// One row: what is declared, what decides it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub subject: Subject,
    pub decided_by: DecidedBy,
}

const fn accelerator(a: Accelerator, decided_by: DecidedBy) -> Row {
    Row { subject: Subject::Accelerator(a), decided_by }
}

const fn feature(f: BuildFeature, decided_by: DecidedBy) -> Row {
    Row { subject: Subject::Feature(f), decided_by }
}

const CALLER_CHIP: &str = "a caller-supplied chip or provider cannot be probed here";
const BROWSER: &str = "the browser probes WebGPU (resolve); a native host cannot";

/// The table: every accelerator but `none`, every feature, once.
pub(crate) const TABLE: &[Row] = {
    use Accelerator as A;
    use BuildFeature as F;
    use DecidedBy::*;
    use NativeCheck as C;
    &[
        accelerator(A::Cuda, Check(C::Cuda)),
        feature(F::NativeCuda, WithAccelerator(A::Cuda)),
        feature(F::CuBlas, AcceleratorThen(A::Cuda, C::CuBlas)),
        feature(F::CuFft, AcceleratorThen(A::Cuda, C::CuFft)),
        feature(F::CuDnn, AcceleratorThen(A::Cuda, C::CuDnn)),
        feature(F::LibTorch, CheckAfter(A::Cuda, C::LibTorch)),
        feature(F::Aten, CheckAfter(A::Cuda, C::LibTorch)),
        accelerator(A::Rocm, Check(C::Rocm)),
        accelerator(A::Metal, Check(C::Metal)),
        feature(F::Mps, Check(C::Metal)),
        accelerator(A::Tpu, Check(C::Tpu)),
        feature(F::Xla, Check(C::Tpu)),
        accelerator(A::Trainium, Check(C::Neuron)),
        feature(F::Neuron, Check(C::Neuron)),
        accelerator(A::Custom, NotProbeable(CALLER_CHIP)),
        feature(F::CustomChip, NotProbeable(CALLER_CHIP)),
        accelerator(A::External, NotProbeable(CALLER_CHIP)),
        feature(F::ExternalProvider, NotProbeable(CALLER_CHIP)),
        accelerator(A::Wasm, NotProbeable(BROWSER)),
        feature(F::WebGpu, NotProbeable(BROWSER)),
    ]
};

/// The row of `subject` (every subject but accelerator `none` has one).
pub(crate) fn row(subject: Subject) -> Option<&'static Row> {
    TABLE.iter().find(|row| row.subject == subject)
}

/// What `target` declares, accelerator first, then its features in order.
pub(crate) fn subjects(target: &Target) -> Vec<Subject> {
    let accelerator = (target.accelerator != Accelerator::None).then_some(Subject::Accelerator(target.accelerator));
    accelerator.into_iter().chain(target.features.iter().map(|&f| Subject::Feature(f))).collect()
}

fn push_once(list: &mut Vec<NativeCheck>, check: NativeCheck) {
    if !list.contains(&check) {
        list.push(check);
    }
}

/// The checks to run first: those that depend on nothing.
pub(crate) fn first_checks(target: &Target) -> Vec<NativeCheck> {
    let mut checks = Vec::new();
    for row in subjects(target).into_iter().filter_map(row) {
        match row.decided_by {
            DecidedBy::Check(check) => push_once(&mut checks, check),
            DecidedBy::CheckAfter(accelerator, check) if target.accelerator != accelerator => {
                push_once(&mut checks, check);
            }
            _ => {}
        }
    }
    checks
}

/// The checks that wait for the accelerator's: the CUDA libraries when it
/// was kept, libtorch whatever it answered.
pub(crate) fn dependent_checks(target: &Target, first: &[CheckReport]) -> Vec<NativeCheck> {
    let mut checks = Vec::new();
    for row in subjects(target).into_iter().filter_map(row) {
        match row.decided_by {
            DecidedBy::AcceleratorThen(accelerator, check) if accelerator_kept(target, accelerator, first) => {
                push_once(&mut checks, check);
            }
            DecidedBy::CheckAfter(accelerator, check) if target.accelerator == accelerator => {
                push_once(&mut checks, check);
            }
            _ => {}
        }
    }
    checks
}

fn report_of(reports: &[CheckReport], check: NativeCheck) -> Option<&CheckReport> {
    reports.iter().find(|r| r.check == check)
}

/// The declared accelerator's own check found it.
fn accelerator_kept(target: &Target, accelerator: Accelerator, reports: &[CheckReport]) -> bool {
    target.accelerator == accelerator
        && match row(Subject::Accelerator(accelerator)).map(|r| r.decided_by) {
            Some(DecidedBy::Check(check)) => report_of(reports, check).is_some_and(|r| r.reason.is_available()),
            _ => false,
        }
}

fn name(subject: Subject) -> String {
    match subject {
        Subject::Accelerator(a) => format!("the {a} accelerator"),
        Subject::Feature(f) => f.to_string(),
    }
}

/// Decides every declared accelerator and feature from the checks' reports.
pub(crate) fn decide(target: &Target, reports: &[CheckReport]) -> Vec<NativeChange> {
    subjects(target)
        .into_iter()
        .filter_map(|subject| Some(decide_one(target, subject, row(subject)?, reports)))
        .collect()
}

fn decide_one(target: &Target, subject: Subject, row: &Row, reports: &[CheckReport]) -> NativeChange {
    let by_check = |check: NativeCheck| match report_of(reports, check) {
        Some(report) if report.reason.is_available() => {
            (ChangeAction::Kept, report.reason, format!("{} kept: {}", name(subject), report.message))
        }
        Some(report) => {
            (ChangeAction::Dropped, report.reason, format!("{} dropped: {}", name(subject), report.message))
        }
        None => (ChangeAction::Dropped, NativeReason::CheckCrashed, format!("the {check} check gave no answer")),
    };
    let needs = |accelerator: Accelerator| {
        if accelerator_kept(target, accelerator, reports) {
            return None;
        }
        let why = if target.accelerator != accelerator {
            "which is not declared".to_string()
        } else {
            let reason = row_reason(Subject::Accelerator(accelerator), reports);
            format!("which was dropped ({})", reason.map_or("no answer", NativeReason::as_str))
        };
        Some((
            ChangeAction::Dropped,
            NativeReason::RequiresAccelerator,
            format!("{} dropped: it requires the {accelerator} accelerator, {why}", name(subject)),
        ))
    };
    let (action, reason, detail) = match row.decided_by {
        DecidedBy::Check(check) | DecidedBy::CheckAfter(_, check) => by_check(check),
        DecidedBy::WithAccelerator(accelerator) => needs(accelerator).unwrap_or_else(|| {
            let reason =
                row_reason(Subject::Accelerator(accelerator), reports).unwrap_or(NativeReason::DeviceAvailable);
            (ChangeAction::Kept, reason, format!("{} kept with the {accelerator} accelerator", name(subject)))
        }),
        DecidedBy::AcceleratorThen(accelerator, check) => needs(accelerator).unwrap_or_else(|| by_check(check)),
        DecidedBy::NotProbeable(why) => {
            (ChangeAction::AsDeclared, NativeReason::NotProbeable, format!("{} as declared: {why}", name(subject)))
        }
    };
    NativeChange::new(subject, action, reason, detail)
}

/// The reason the check of `subject`'s row gave.
fn row_reason(subject: Subject, reports: &[CheckReport]) -> Option<NativeReason> {
    match row(subject)?.decided_by {
        DecidedBy::Check(check) | DecidedBy::CheckAfter(_, check) => report_of(reports, check).map(|r| r.reason),
        DecidedBy::AcceleratorThen(..) | DecidedBy::WithAccelerator(_) | DecidedBy::NotProbeable(_) => None,
    }
}

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
        let driver = report_of(first, NativeCheck::Cuda)
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
    fn the_table_has_one_row_per_accelerator_and_feature() {
        for &a in Accelerator::ALL {
            let rows = TABLE.iter().filter(|r| r.subject == Subject::Accelerator(a)).count();
            assert_eq!(rows, usize::from(a != Accelerator::None), "{a}");
        }
        for &f in BuildFeature::ALL {
            assert_eq!(TABLE.iter().filter(|r| r.subject == Subject::Feature(f)).count(), 1, "{f}");
        }
    }

    #[test]
    fn dependent_libraries_wait_for_a_kept_accelerator() {
        let target = Target::linux_cuda(true);
        assert_eq!(first_checks(&target), [NativeCheck::Cuda]);
        let found = CheckReport::new(NativeCheck::Cuda, NativeReason::DeviceAvailable, "1 device");
        assert_eq!(
            dependent_checks(&target, &[found]),
            [NativeCheck::CuBlas, NativeCheck::CuFft, NativeCheck::LibTorch]
        );
        // libtorch is checked whatever the driver answered (its CPU kernels
        // run without one); the CUDA libraries only when it was kept.
        let missing = CheckReport::new(NativeCheck::Cuda, NativeReason::DriverNotFound, "no driver");
        assert_eq!(dependent_checks(&target, &[missing]), [NativeCheck::LibTorch]);
        // Without CUDA declared, libtorch is a first check.
        let cpu = Target {
            features: vec![BuildFeature::LibTorch],
            ..Target::linux_cpu(backend_targets::vocab::Architecture::X86_64)
        };
        assert_eq!(first_checks(&cpu), [NativeCheck::LibTorch]);
        assert!(dependent_checks(&cpu, &[]).is_empty());
    }

    #[test]
    fn a_cuda_library_without_the_cuda_accelerator_requires_it() {
        let target = Target {
            features: vec![BuildFeature::CuBlas],
            ..Target::linux_cpu(backend_targets::vocab::Architecture::X86_64)
        };
        let changes = decide(&target, &[]);
        assert_eq!(changes.len(), 1);
        assert_eq!((changes[0].action, changes[0].reason), (ChangeAction::Dropped, NativeReason::RequiresAccelerator));
        assert!(changes[0].detail.contains("not declared"), "{}", changes[0].detail);
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
