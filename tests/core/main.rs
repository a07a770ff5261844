//! Integration tests of every rule of `SPEC.md`, through the public Rust API:
//! the spellings of §1, targets and presets of §2, availability, configs and
//! trust of §4, admissibility and the planner of §5, and the plan request of
//! §6 (validation and strict JSON errors). Tables mirror the SPEC's tables so
//! that a reader can check one against the other.
//!
//! One module per section of the contract (`docs/SPEC.md`).

mod advice;
mod availability;
mod planner;
mod request;
mod spellings;
mod targets;

use backend_targets::{json::*, plan_result::*, vocab::*, webgpu::*, *};

use BackendOp as Op;
use Device as D;
use Provider as P;

/// `plan` under the default limits, as every runtime plans unless told otherwise.
fn plan(request: &PlanRequest) -> Result<PlanResult> {
    backend_targets::plan(request, &Limits::DEFAULT)
}

/// A request for `ops` under `configs` against `availability` with `catalog`, planned.
fn planned(
    catalog: &[KernelCapsule],
    availability: &Availability,
    ops: &[BackendOp],
    configs: &[ExecutionConfig],
    mode: PlanMode,
) -> PlanResult {
    plan(&PlanRequest {
        configs: Some(configs.to_vec()),
        availability: Some(availability.clone()),
        capsules: Some(catalog.to_vec()),
        mode,
        ..PlanRequest::new(ops.to_vec())
    })
    .unwrap()
}

/// Whether `capsule` alone plans `op` under `config`: admitted by the
/// availability and admissible (SPEC §5), through the public planner.
fn is_admissible(
    capsule: &KernelCapsule,
    op: BackendOp,
    config: &ExecutionConfig,
    availability: &Availability,
) -> bool {
    planned(std::slice::from_ref(capsule), availability, &[op], &[*config], PlanMode::WholePlan).ok
}

/// The kernels of `ops` under one config, or the SPEC messages of those it could not plan.
fn plan_ops(
    ops: &[BackendOp],
    config: &ExecutionConfig,
    availability: &Availability,
    catalog: &[KernelCapsule],
) -> std::result::Result<Vec<Kernel>, Vec<String>> {
    let result = planned(catalog, availability, ops, &[*config], PlanMode::WholePlan);
    match result.kernels {
        Some(kernels) => Ok(kernels),
        None => Err(result.attempts.into_iter().flat_map(|a| a.ops).filter_map(|op| op.message).collect()),
    }
}

/// SPEC §5's failure message.
fn no_capsule_message(op: BackendOp, device: Device) -> String {
    format!("no admissible backend capsule for op {op} on device {device}")
}

// Capsules, configs and verdicts shared by the sections.

/// An admissible-everywhere capsule on `cpu` from `reference`: verified, with
/// a backend VJP (so it serves `none`, `torchLeanTape` and `backendVJP`).
fn cpu_capsule(name: &str, op: BackendOp) -> KernelCapsule {
    capsule(name, op, P::Reference, D::Cpu)
}

fn capsule(name: &str, op: BackendOp, provider: Provider, device: Device) -> KernelCapsule {
    KernelCapsule {
        name: name.to_string(),
        op,
        provider,
        device,
        trust_level: TrustLevel::Verified,
        supports_forward: true,
        vjp_mode: VJPMode::BackendVjp,
        requires: None,
    }
}

fn config(device: Device, backend: BackendPreference) -> ExecutionConfig {
    ExecutionConfig { device, backend, ..Default::default() }
}

fn everything() -> Availability {
    Availability { devices: Device::ALL.to_vec(), providers: Provider::ALL.to_vec(), web_gpu: None }
}

/// The reason the planner gives for the only capsule of `catalog`'s op.
fn first_reason(
    catalog: &[KernelCapsule],
    op: BackendOp,
    config: &ExecutionConfig,
    availability: &Availability,
) -> Option<RejectionReason> {
    first_verdict(catalog, op, config, availability).0
}

/// The first candidate's reason and its sentence.
fn first_verdict(
    catalog: &[KernelCapsule],
    op: BackendOp,
    config: &ExecutionConfig,
    availability: &Availability,
) -> (Option<RejectionReason>, String) {
    let request = PlanRequest {
        config: Some(*config),
        availability: Some(availability.clone()),
        capsules: Some(catalog.to_vec()),
        ..PlanRequest::new(vec![op])
    };
    let result = plan(&request).unwrap();
    let candidate = &result.attempts[0].ops[0].candidates()[0];
    assert_eq!(candidate.verdict == Verdict::Rejected, candidate.reason.is_some());
    (candidate.reason, candidate.detail.clone())
}

/// The chosen capsule name of each op, or the failure messages.
fn chosen(
    ops: &[BackendOp],
    config: &ExecutionConfig,
    availability: &Availability,
    catalog: &[KernelCapsule],
) -> Result<Vec<String>, Vec<String>> {
    plan_ops(ops, config, availability, catalog).map(|kernels| kernels.into_iter().map(|k| k.capsule).collect())
}
