//! What decides each declared accelerator and feature of a native target,
//! as one table (data, not a chain of branches), and the decisions it gives
//! from the checks' reports: the native probe (crates/native-probe) runs the
//! checks the table names and asks [`decide`] here; a runtime that cannot
//! probe the host (a browser, or Node without the platform package) answers
//! with [`NativeResolution::without_probe`], by the same table.

use crate::probe::native::{
    ChangeAction, CheckReport, HostReport, Isolation, NativeChange, NativeCheck, NativeReason, NativeResolution,
    Subject,
};
use crate::target::Target;
use crate::vocab::{Accelerator, Architecture, BuildFeature, OperatingSystem};

/// How one row is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecidedBy {
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
pub struct Row {
    /// The accelerator or feature the row decides.
    pub subject: Subject,
    /// What decides it.
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
pub const TABLE: &[Row] = {
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
pub fn row(subject: Subject) -> Option<&'static Row> {
    TABLE.iter().find(|row| row.subject == subject)
}

/// What `target` declares, accelerator first, then its features in order.
pub fn subjects(target: &Target) -> Vec<Subject> {
    let accelerator = (target.accelerator != Accelerator::None).then_some(Subject::Accelerator(target.accelerator));
    accelerator.into_iter().chain(target.features.iter().map(|&f| Subject::Feature(f))).collect()
}

fn push_once(list: &mut Vec<NativeCheck>, check: NativeCheck) {
    if !list.contains(&check) {
        list.push(check);
    }
}

/// The checks to run first: those that depend on nothing.
pub fn first_checks(target: &Target) -> Vec<NativeCheck> {
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
pub fn dependent_checks(target: &Target, first: &[CheckReport]) -> Vec<NativeCheck> {
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
pub fn decide(target: &Target, reports: &[CheckReport]) -> Vec<NativeChange> {
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

impl NativeResolution {
    /// The answer where no check could run (`reason`: `unsupported-platform`
    /// in a runtime that cannot probe the host, `timeout` or `check-crashed`
    /// when the probe itself gave no answer), decided by the same table as a
    /// probe's: every row a check decides is dropped with `reason` and
    /// `message`, the rows that wait for a dropped accelerator with
    /// `requires-accelerator`, the ones no probe decides left as declared.
    /// The host report names no check (`isolation` `not-run`) and says
    /// why (its `reason` and `message`), also where the target declares
    /// nothing a check decides.
    pub fn without_probe(
        declared: &Target,
        host: (OperatingSystem, Architecture),
        (reason, message): (NativeReason, &str),
        (timeout_ms, elapsed_ms): (u32, f64),
    ) -> Self {
        let mut checks = first_checks(declared);
        for row in subjects(declared).into_iter().filter_map(row) {
            if let DecidedBy::AcceleratorThen(_, check) | DecidedBy::CheckAfter(_, check) = row.decided_by
                && !checks.contains(&check)
            {
                checks.push(check);
            }
        }
        // A reason that would keep a row is not one a missing probe can give.
        let reason = if reason.is_available() { NativeReason::CheckCrashed } else { reason };
        let reports: Vec<CheckReport> =
            checks.into_iter().map(|check| CheckReport::new(check, reason, message)).collect();
        let changes = decide(declared, &reports);
        let mut report = HostReport::new(host, Isolation::NotRun, (timeout_ms, elapsed_ms), Vec::new(), Vec::new());
        report.reason = Some(reason);
        report.message = Some(message.to_string());
        Self::from_changes(declared, changes, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let cpu = Target { features: vec![BuildFeature::LibTorch], ..Target::linux_cpu(Architecture::X86_64) };
        assert_eq!(first_checks(&cpu), [NativeCheck::LibTorch]);
        assert!(dependent_checks(&cpu, &[]).is_empty());
    }

    #[test]
    fn a_cuda_library_without_the_cuda_accelerator_requires_it() {
        let target = Target { features: vec![BuildFeature::CuBlas], ..Target::linux_cpu(Architecture::X86_64) };
        let changes = decide(&target, &[]);
        assert_eq!(changes.len(), 1);
        assert_eq!((changes[0].action, changes[0].reason), (ChangeAction::Dropped, NativeReason::RequiresAccelerator));
        assert!(changes[0].detail.contains("not declared"), "{}", changes[0].detail);
    }

    #[test]
    fn without_a_probe_every_checked_row_is_dropped_with_the_reason() {
        let mut target = Target::linux_cuda(false);
        target.features.push(BuildFeature::CuDnn);
        let host = (OperatingSystem::Linux, Architecture::X86_64);
        let answer = NativeResolution::without_probe(
            &target,
            host,
            (NativeReason::UnsupportedPlatform, "no native probe in this runtime"),
            (5000, 0.5),
        );
        assert_eq!(answer.effective.accelerator, Accelerator::None);
        assert!(answer.effective.features.is_empty(), "{:?}", answer.effective.features);
        assert_eq!(answer.changes.len(), 1 + target.features.len());
        assert_eq!(
            (answer.changes[0].action, answer.changes[0].reason),
            (ChangeAction::Dropped, NativeReason::UnsupportedPlatform)
        );
        assert!(answer.changes[0].detail.contains("no native probe in this runtime"), "{}", answer.changes[0].detail);
        for change in &answer.changes[1..] {
            assert_eq!((change.action, change.reason), (ChangeAction::Dropped, NativeReason::RequiresAccelerator));
        }
        assert_eq!(answer.probe.isolation, Isolation::NotRun);
        assert!(answer.probe.checks.is_empty());
        assert_eq!(answer.probe.reason, Some(NativeReason::UnsupportedPlatform));
        assert_eq!(answer.probe.message.as_deref(), Some("no native probe in this runtime"));
        // Nothing to decide: no change, and the report still says why.
        let cpu = Target::portable_cpu(OperatingSystem::Unknown, Architecture::Unknown);
        let answer =
            NativeResolution::without_probe(&cpu, host, (NativeReason::UnsupportedPlatform, "a browser"), (1, 0.0));
        assert!(answer.changes.is_empty());
        assert_eq!(answer.probe.reason, Some(NativeReason::UnsupportedPlatform));
        // libtorch on a CPU target is its own check, dropped with the reason;
        // a caller's chip is left as declared.
        let mut cpu = Target::linux_cpu(Architecture::X86_64);
        cpu.features = vec![BuildFeature::LibTorch, BuildFeature::CustomChip];
        let answer =
            NativeResolution::without_probe(&cpu, host, (NativeReason::Timeout, "no answer within 10 ms"), (10, 12.0));
        let reasons: Vec<_> = answer.changes.iter().map(|c| (c.action, c.reason)).collect();
        assert_eq!(
            reasons,
            [(ChangeAction::Dropped, NativeReason::Timeout), (ChangeAction::AsDeclared, NativeReason::NotProbeable)]
        );
        // A reason that keeps is not given by a missing probe.
        let answer =
            NativeResolution::without_probe(&target, host, (NativeReason::DeviceAvailable, "forged"), (10, 1.0));
        assert_eq!(answer.changes[0].reason, NativeReason::CheckCrashed);
    }
}
