//! The capsule planner (SPEC §5): per op, the first admissible capsule under a
//! config and an availability, with every decision explained. Configs are
//! tried in order (whole plan), or per op (fallback mode).

use std::borrow::Cow;

use crate::availability::Availability;
use crate::capsule::KernelCapsule;
use crate::config::ExecutionConfig;
use crate::plan_result::{
    Candidate, ConfigAttempt, Kernel, OpExplanation, PlanMode, PlanResult, RejectionReason, Verdict,
};
use crate::vocab::{BackendOp, Device};
use crate::webgpu::{FeatureSet, LimitBound, Unmet, WebGpuCapabilities};

/// The probed WebGPU capabilities with their features as a set.
type Offered<'s, 'a> = Option<(&'s FeatureSet<'a>, &'a WebGpuCapabilities)>;

/// Step 1: whether the availability admits the capsule (device, provider,
/// probed WebGPU requirements). The same under every config.
fn not_admitted(capsule: &KernelCapsule, availability: &Availability, offered: Offered) -> Option<RejectionReason> {
    use RejectionReason::*;
    if !availability.has_device(capsule.device) {
        Some(DeviceNotAvailable)
    } else if !availability.has_provider(capsule.provider) {
        Some(ProviderNotAvailable)
    } else {
        unmet_webgpu_requirement(capsule, offered).map(|unmet| match unmet {
            Unmet::Feature(_) => WebGpuFeatureMissing,
            Unmet::Limit { .. } => WebGpuLimitTooLow,
        })
    }
}

/// Rules 1–5 of SPEC §5, those that depend on the config.
fn config_rejection(capsule: &KernelCapsule, op: BackendOp, config: &ExecutionConfig) -> Option<RejectionReason> {
    use RejectionReason::*;
    Some(if !capsule.supports_forward {
        NoForward
    } else if !config.trust_policy.accepts(capsule.trust_level) {
        TrustRefused
    } else if !config.backend.allows(capsule.provider) {
        ProviderNotAllowed
    } else if capsule.device != config.device {
        DeviceMismatch
    } else if !config.vjp_mode.is_served_by(capsule.vjp_mode, op) {
        VjpIncompatible
    } else {
        return None;
    })
}

/// The first WebGPU requirement the probed adapter does not meet; `None`
/// when there is none, or when nothing was probed (then it is unverified).
fn unmet_webgpu_requirement<'a>(capsule: &'a KernelCapsule, offered: Offered) -> Option<Unmet<'a>> {
    let (set, capabilities) = offered?;
    capsule.requires.as_ref()?.first_unmet_in(set, capabilities)
}

/// The SPEC §5 failure message.
pub(crate) fn no_capsule_message(op: BackendOp, device: Device) -> String {
    format!("no admissible backend capsule for op {op} on device {device}")
}

fn rejection_detail(
    reason: RejectionReason,
    capsule: &KernelCapsule,
    config: &ExecutionConfig,
    offered: Offered,
) -> String {
    use RejectionReason::*;
    match reason {
        WebGpuFeatureMissing | WebGpuLimitTooLow => match unmet_webgpu_requirement(capsule, offered) {
            Some(Unmet::Feature(feature)) => format!("the WebGPU adapter lacks feature {feature}"),
            Some(Unmet::Limit { name, needed, offered: Some(offered) }) => {
                let bound = LimitBound::of(name).words();
                format!("the WebGPU adapter's {name} is {offered}; the capsule needs {bound} {needed}")
            }
            Some(Unmet::Limit { name, .. }) => format!("the WebGPU adapter reports no limit {name}"),
            None => String::new(),
        },
        DeviceNotAvailable => format!("device {} is not available", capsule.device),
        ProviderNotAvailable => format!("provider {} is not available", capsule.provider),
        NoForward => "the capsule does not support forward execution".to_string(),
        TrustRefused => {
            format!("trust policy {} does not accept trust level {}", config.trust_policy, capsule.trust_level)
        }
        ProviderNotAllowed => format!(
            "the config allows only provider {}, not {}",
            config.backend.only_provider().map_or("?", |p| p.as_str()),
            capsule.provider
        ),
        DeviceMismatch => format!("the capsule runs on {}, the config on {}", capsule.device, config.device),
        VjpIncompatible => {
            format!("VJP mode {} cannot be served by a capsule with VJP mode {}", config.vjp_mode, capsule.vjp_mode)
        }
    }
}

/// A catalog indexed by op once, then planned under any number of configs.
///
/// The work is linear in the request: the availability's verdict on each
/// capsule is taken once, each config scans each distinct op's capsules
/// once (an op that repeats shares the first occurrence's outcome and
/// explanation), and WebGPU requirements are checked against a set.
pub(crate) struct Planner<'a> {
    catalog: &'a [KernelCapsule],
    availability: &'a Availability,
    /// Catalog indices of each op's capsules, in catalog order.
    by_op: Vec<Vec<usize>>,
    /// Step 1 for each capsule: the availability's verdict.
    admitted: Vec<Option<RejectionReason>>,
    /// The probed WebGPU features as a set.
    offered: Option<FeatureSet<'a>>,
    explain: bool,
}

/// How one op fared under one config, before it becomes JSON.
struct OpOutcome {
    chosen: Option<usize>,
    explanation: Option<OpExplanation>,
}

impl<'a> Planner<'a> {
    /// A planner over `catalog`, admitting what `availability` offers.
    pub fn new(catalog: &'a [KernelCapsule], availability: &'a Availability) -> Self {
        let mut by_op = vec![Vec::new(); BackendOp::ALL.len()];
        for (index, capsule) in catalog.iter().enumerate() {
            by_op[capsule.op.index()].push(index);
        }
        let offered = availability.web_gpu.as_ref().map(WebGpuCapabilities::feature_set);
        let mut planner = Self { catalog, availability, by_op, admitted: Vec::new(), offered, explain: true };
        planner.admitted =
            catalog.iter().map(|capsule| not_admitted(capsule, availability, planner.offered())).collect();
        planner
    }

    fn offered(&self) -> Offered<'_, 'a> {
        Some((self.offered.as_ref()?, self.availability.web_gpu.as_ref()?))
    }

    /// With `false`, explanations are kept only for ops that fail.
    pub fn explain(mut self, explain: bool) -> Self {
        self.explain = explain;
        self
    }

    fn rejection(&self, index: usize, op: BackendOp, config: &ExecutionConfig) -> Option<RejectionReason> {
        self.admitted[index].or_else(|| config_rejection(&self.catalog[index], op, config))
    }

    /// The op's capsules in planning order: with `prefer(p)`, the capsules
    /// of `p` first; catalog order within both groups.
    fn planning_order(&self, op: BackendOp, config: &ExecutionConfig) -> Cow<'_, [usize]> {
        let indices = &self.by_op[op.index()];
        Cow::Owned(match config.backend.preferred() {
            // Catalog order: the index as it is, no copy.
            None => return Cow::Borrowed(indices),
            Some(preferred) => {
                let (mut first, rest): (Vec<usize>, Vec<usize>) =
                    indices.iter().partition(|&&i| self.catalog[i].provider == preferred);
                first.extend(rest);
                first
            }
        })
    }

    fn plan_op(&self, op: BackendOp, op_index: usize, config: &ExecutionConfig) -> OpOutcome {
        let order = self.planning_order(op, config);
        let chosen = order.iter().copied().find(|&index| self.rejection(index, op, config).is_none());
        // Failures are always explained; successes only when asked.
        let explanation =
            (self.explain || chosen.is_none()).then(|| self.explain_op(op, op_index, config, &order, chosen));
        OpOutcome { chosen, explanation }
    }

    fn explain_op(
        &self,
        op: BackendOp,
        op_index: usize,
        config: &ExecutionConfig,
        order: &[usize],
        chosen: Option<usize>,
    ) -> OpExplanation {
        let chosen_name = chosen.map(|c| self.catalog[c].name.as_str());
        let candidates = order
            .iter()
            .map(|&index| {
                let capsule = &self.catalog[index];
                let reason = self.rejection(index, op, config);
                let (verdict, detail) = match reason {
                    Some(reason) => (Verdict::Rejected, rejection_detail(reason, capsule, config, self.offered())),
                    None if chosen == Some(index) => (Verdict::Chosen, "the first admissible capsule".to_string()),
                    // The chosen capsule is named once, in the op's `capsule`.
                    None => (Verdict::Admissible, "admissible, but the chosen capsule comes first".to_string()),
                };
                let unverified = reason.is_none() && capsule.requires.is_some() && self.availability.web_gpu.is_none();
                let detail = if unverified {
                    format!("{detail}; its WebGPU requirements are unverified (nothing was probed)")
                } else {
                    detail
                };
                Candidate {
                    capsule: capsule.name.clone(),
                    catalog_index: index,
                    provider: capsule.provider,
                    device: capsule.device,
                    verdict,
                    reason,
                    detail,
                    unverified,
                }
            })
            .collect();
        OpExplanation {
            op,
            op_index,
            capsule: chosen_name.map(str::to_string),
            message: chosen.is_none().then(|| no_capsule_message(op, config.device)),
            same_as: None,
            candidates: Some(candidates),
        }
    }

    /// Plans `ops` (given with their request positions) under one config.
    /// Each distinct op is planned once; a repeat takes its first
    /// occurrence's outcome, and its explanation points there (`sameAs`).
    fn attempt(
        &self,
        config_index: usize,
        config: &ExecutionConfig,
        ops: &[(usize, BackendOp)],
    ) -> (ConfigAttempt, Vec<(usize, Option<usize>)>) {
        let mut explanations = Vec::new();
        let mut chosen = Vec::with_capacity(ops.len());
        // Per op: the first occurrence's position and chosen capsule.
        let mut first: Vec<Option<(usize, Option<usize>)>> = vec![None; BackendOp::ALL.len()];
        for &(op_index, op) in ops {
            match first[op.index()] {
                Some((first_index, capsule)) => {
                    chosen.push((op_index, capsule));
                    if self.explain || capsule.is_none() {
                        explanations.push(OpExplanation {
                            op,
                            op_index,
                            capsule: capsule.map(|c| self.catalog[c].name.clone()),
                            message: capsule.is_none().then(|| no_capsule_message(op, config.device)),
                            same_as: Some(first_index),
                            candidates: None,
                        });
                    }
                }
                None => {
                    let outcome = self.plan_op(op, op_index, config);
                    first[op.index()] = Some((op_index, outcome.chosen));
                    chosen.push((op_index, outcome.chosen));
                    explanations.extend(outcome.explanation);
                }
            }
        }
        let ok = chosen.iter().all(|(_, c)| c.is_some());
        (ConfigAttempt { config_index, config: *config, ok, ops: explanations }, chosen)
    }

    fn kernel(&self, op: BackendOp, capsule_index: usize, config_index: usize) -> Kernel {
        let capsule = &self.catalog[capsule_index];
        Kernel { op, capsule: capsule.name.clone(), provider: capsule.provider, device: capsule.device, config_index }
    }

    /// Plans `ops` under `configs` (non-empty) in the given mode.
    pub fn plan(&self, ops: &[BackendOp], configs: &[ExecutionConfig], mode: PlanMode) -> PlanResult {
        match mode {
            PlanMode::WholePlan => self.plan_whole(ops, configs),
            PlanMode::PerOp => self.plan_per_op(ops, configs),
        }
    }

    fn plan_whole(&self, ops: &[BackendOp], configs: &[ExecutionConfig]) -> PlanResult {
        let indexed: Vec<(usize, BackendOp)> = ops.iter().copied().enumerate().collect();
        let mut attempts = Vec::new();
        for (config_index, config) in configs.iter().enumerate() {
            let (attempt, chosen) = self.attempt(config_index, config, &indexed);
            let ok = attempt.ok;
            attempts.push(attempt);
            if ok {
                let kernels = chosen
                    .iter()
                    .zip(ops)
                    .filter_map(|(&(_, c), &op)| c.map(|c| self.kernel(op, c, config_index)))
                    .collect();
                return PlanResult {
                    ok: true,
                    mode: PlanMode::WholePlan,
                    config_index: Some(config_index),
                    config: Some(*config),
                    kernels: Some(kernels),
                    availability: self.availability.clone(),
                    attempts,
                };
            }
        }
        self.failure(PlanMode::WholePlan, attempts)
    }

    fn plan_per_op(&self, ops: &[BackendOp], configs: &[ExecutionConfig]) -> PlanResult {
        let mut remaining: Vec<(usize, BackendOp)> = ops.iter().copied().enumerate().collect();
        let mut kernels: Vec<Option<Kernel>> = vec![None; ops.len()];
        let mut attempts = Vec::new();
        for (config_index, config) in configs.iter().enumerate() {
            if remaining.is_empty() {
                break;
            }
            let (attempt, chosen) = self.attempt(config_index, config, &remaining);
            attempts.push(attempt);
            for (op_index, capsule_index) in chosen {
                if let Some(capsule_index) = capsule_index {
                    kernels[op_index] = Some(self.kernel(ops[op_index], capsule_index, config_index));
                }
            }
            remaining.retain(|&(op_index, _)| kernels[op_index].is_none());
        }
        if !remaining.is_empty() {
            return self.failure(PlanMode::PerOp, attempts);
        }
        PlanResult {
            ok: true,
            mode: PlanMode::PerOp,
            config_index: None,
            config: None,
            kernels: Some(kernels.into_iter().flatten().collect()),
            availability: self.availability.clone(),
            attempts,
        }
    }

    fn failure(&self, mode: PlanMode, attempts: Vec<ConfigAttempt>) -> PlanResult {
        PlanResult {
            ok: false,
            mode,
            config_index: None,
            config: None,
            kernels: None,
            availability: self.availability.clone(),
            attempts,
        }
    }
}

/// An upper bound of the compact JSON a plan result takes, from the request
/// alone, before planning: every config tried, every op explained (failures
/// always are), each op's capsules listed with their names and their longest
/// sentence. [`Limits::check_request`](crate::Limits::check_request) refuses a request whose bound is
/// above `outputBytes`, which keeps its answer (and the plan behind it)
/// inside the browser module's memory. tests/properties.rs checks that the
/// answer never exceeds it.
pub(crate) struct ResultBound {
    /// The bound, in bytes (saturated at [`usize::MAX`]).
    pub bytes: usize,
    /// Capsules each config lists (those of the requested ops).
    pub candidates: usize,
    /// Their names and the longest requirement each may quote, as JSON.
    pub name_bytes: usize,
}

// The most each part of a result takes beyond the names it quotes, as
// compact JSON (keys, punctuation, the longest spelling of each value, 20
// digits for a number, the longest fixed sentence: 106 bytes, an admissible
// capsule whose requirements are unverified; the WebGPU sentences are shorter
// than that plus the requirement they quote). A config is at most 130 bytes,
// an availability's devices and providers 400, a WebGPU limit's value 16.
const RESULT_BYTES: usize = 1_000;
const CONFIG_BYTES: usize = 250;
const KERNEL_BYTES: usize = 140;
const OP_BYTES: usize = 230;
const CANDIDATE_BYTES: usize = 300;
const WEBGPU_NAME_BYTES: usize = 24;

impl ResultBound {
    /// The bound for planning `ops` under `configs` configs with `catalog`
    /// against an availability that carries `web_gpu`.
    pub(crate) fn of(
        catalog: &[KernelCapsule],
        ops: &[BackendOp],
        configs: usize,
        web_gpu: Option<&WebGpuCapabilities>,
    ) -> Self {
        use crate::json::escaped_len;
        let mut requested = vec![false; BackendOp::ALL.len()];
        for op in ops {
            requested[op.index()] = true;
        }
        let (mut candidates, mut name_bytes, mut longest_name) = (0usize, 0usize, 0usize);
        for capsule in catalog.iter().filter(|capsule| requested[capsule.op.index()]) {
            let name = escaped_len(&capsule.name);
            let quoted = capsule.requires.as_ref().map_or(0, |requires| {
                requires.features.iter().chain(requires.limits.keys()).map(|n| escaped_len(n)).max().unwrap_or(0)
            });
            candidates += 1;
            name_bytes = name_bytes.saturating_add(name + quoted);
            longest_name = longest_name.max(name);
        }
        // The availability is repeated once, with its WebGPU names.
        let offered = web_gpu.map_or(0, |web_gpu| {
            web_gpu.features.iter().chain(web_gpu.limits.keys()).map(|n| escaped_len(n) + WEBGPU_NAME_BYTES).sum()
        });
        let per_config = CONFIG_BYTES
            .saturating_add(ops.len().saturating_mul(OP_BYTES + longest_name))
            .saturating_add(candidates.saturating_mul(CANDIDATE_BYTES))
            .saturating_add(name_bytes);
        let bytes = RESULT_BYTES
            .saturating_add(offered)
            .saturating_add(ops.len().saturating_mul(KERNEL_BYTES + longest_name))
            .saturating_add(configs.saturating_mul(per_config));
        Self { bytes, candidates, name_bytes }
    }
}
