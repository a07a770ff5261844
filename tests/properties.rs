//! Property tests (proptest) of SPEC §2, §5 and §6 over random targets,
//! configs, availabilities (declared, or with probed WebGPU capabilities) and
//! catalogs (with WebGPU requirements): what a target declares, that every
//! planned kernel is admitted and admissible, that the planner picks exactly
//! what a restatement of SPEC §5 written here from the document picks
//! (whole-plan and per-op; it does not call the crate's own admissibility),
//! that `only(p)` stays on `p`, that planning is deterministic, that JSON
//! forms round-trip, and that parsing never panics, whatever the input.

use backend_targets::{json::*, plan_result::*, vocab::*, webgpu::*, *};
use proptest::prelude::*;
use proptest::sample::{Index, select, subsequence};

/// `plan` under the default limits, as every runtime plans unless told otherwise.
fn plan(request: &PlanRequest) -> Result<PlanResult> {
    backend_targets::plan(request, &Limits::DEFAULT)
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// A handful of ops (two that need no VJP), so that capsules collide.
const OPS: &[BackendOp] =
    &[BackendOp::RandUniform, BackendOp::Add, BackendOp::Matmul, BackendOp::Relu, BackendOp::Softmax];
/// A handful of devices and providers for catalogs and configs.
const DEVICES: &[Device] = &[Device::Cpu, Device::Cuda, Device::Wasm];
const PROVIDERS: &[Provider] = &[Provider::Reference, Provider::TorchLean, Provider::WebGpu, Provider::NativeCuda];

fn config_with() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// Any target: features are a random subset in random order, never repeated.
fn target() -> impl Strategy<Value = Target> {
    (
        select(OperatingSystem::ALL),
        select(Architecture::ALL),
        select(Accelerator::ALL),
        subsequence(BuildFeature::ALL.to_vec(), 0..=BuildFeature::ALL.len()).prop_shuffle(),
    )
        .prop_map(|(os, arch, accelerator, features)| Target { os, arch, accelerator, features })
}

/// A few WebGPU feature names and limits (a minimum and a `min…` maximum),
/// so that requirements and capabilities meet and miss each other.
const FEATURES: &[&str] = &["shader-f16", "subgroups", "timestamp-query"];
const LIMITS: &[&str] = &["maxBufferSize", "maxComputeWorkgroupSizeX", "minUniformBufferOffsetAlignment"];

fn limit_map(max_entries: usize) -> impl Strategy<Value = LimitMap> {
    subsequence(LIMITS.to_vec(), 0..=max_entries).prop_flat_map(|names| {
        prop::collection::vec(prop_oneof![Just(64u64), Just(256), Just(1024), 0u64..4096], names.len())
            .prop_map(move |values| names.iter().map(|n| n.to_string()).zip(values).collect())
    })
}

/// What a probe found: some features, some limits (a limit it does not
/// report is unmet).
fn capabilities() -> impl Strategy<Value = WebGpuCapabilities> {
    (subsequence(FEATURES.to_vec(), 0..=FEATURES.len()).prop_shuffle(), limit_map(LIMITS.len())).prop_map(
        |(features, limits)| WebGpuCapabilities { features: features.into_iter().map(String::from).collect(), limits },
    )
}

fn requirements() -> impl Strategy<Value = WebGpuRequirements> {
    (subsequence(FEATURES.to_vec(), 0..=2).prop_shuffle(), limit_map(2)).prop_map(|(features, limits)| {
        WebGpuRequirements { features: features.into_iter().map(String::from).collect(), limits }
    })
}

fn availability() -> impl Strategy<Value = Availability> {
    prop_oneof![
        2 => target().prop_map(|t| t.declared_availability()),
        1 => (
            subsequence(DEVICES.to_vec(), 0..=DEVICES.len()).prop_shuffle(),
            subsequence(PROVIDERS.to_vec(), 0..=PROVIDERS.len()).prop_shuffle(),
            prop::option::weighted(0.6, capabilities()),
        )
            .prop_map(|(devices, providers, web_gpu)| Availability { devices, providers, web_gpu }),
    ]
}

fn backend() -> impl Strategy<Value = BackendPreference> {
    prop_oneof![
        Just(BackendPreference::Auto),
        select(PROVIDERS).prop_map(BackendPreference::Prefer),
        select(PROVIDERS).prop_map(BackendPreference::Only),
    ]
}

/// Mostly lenient trust policies and VJP modes, so that plans often succeed.
fn execution_config() -> impl Strategy<Value = ExecutionConfig> {
    let trust = prop_oneof![2 => Just(TrustPolicy::AllowTrustedExternal), 1 => select(TrustPolicy::ALL)];
    let vjp = prop_oneof![2 => Just(VJPMode::None), 1 => select(VJPMode::ALL)];
    let device = prop_oneof![Just(Device::Cpu), select(DEVICES)];
    (device, backend(), trust, vjp).prop_map(|(device, backend, trust_policy, vjp_mode)| ExecutionConfig {
        device,
        backend,
        trust_policy,
        vjp_mode,
    })
}

/// 0..40 capsules over `OPS`, named `c0`, `c1`, … (unique, so a kernel's
/// capsule can be found by name); mostly on `cpu` from the base providers.
fn catalog() -> impl Strategy<Value = Vec<KernelCapsule>> {
    let capsule = (
        select(OPS),
        prop_oneof![2 => select(&PROVIDERS[..2]), 1 => select(PROVIDERS)],
        prop_oneof![2 => Just(Device::Cpu), 1 => select(DEVICES)],
        select(TrustLevel::ALL),
        prop::bool::weighted(0.9),
        select(VJPMode::ALL),
        prop::option::weighted(0.3, requirements()),
    );
    prop::collection::vec(capsule, 0..40).prop_map(|parts| {
        parts
            .into_iter()
            .enumerate()
            .map(|(i, (op, provider, device, trust_level, supports_forward, vjp_mode, requires))| KernelCapsule {
                name: format!("c{i}"),
                op,
                provider,
                device,
                trust_level,
                supports_forward,
                vjp_mode,
                requires,
            })
            .collect()
    })
}

fn ops() -> impl Strategy<Value = Vec<BackendOp>> {
    prop::collection::vec(select(OPS), 0..5)
}

/// A valid plan request using every optional form: no config, `config` or
/// `configs`; no availability, `target` or `availability`; a random catalog
/// or the reference one.
fn request() -> impl Strategy<Value = PlanRequest> {
    (
        ops(),
        0..3u8,
        prop::collection::vec(execution_config(), 1..4),
        0..3u8,
        target(),
        availability(),
        prop::option::weighted(0.9, catalog()),
        select(PlanMode::ALL),
        any::<bool>(),
    )
        .prop_map(|(ops, config_form, configs, against, target, availability, capsules, mode, explain)| {
            PlanRequest {
                ops,
                config: (config_form == 1).then(|| configs[0]),
                configs: (config_form == 2).then_some(configs),
                target: (against == 1).then_some(target),
                availability: (against == 2).then_some(availability),
                capsules,
                mode,
                explain,
            }
        })
}

// ---------------------------------------------------------------------------
// SPEC §5, restated from docs/SPEC.md to compare the planner against (none of
// the crate's own rules is called here)
// ---------------------------------------------------------------------------

/// SPEC §4's table: which trust levels a policy accepts.
fn spec_trust_accepts(policy: TrustPolicy, level: TrustLevel) -> bool {
    let rank = |level| match level {
        TrustLevel::Verified => 0,
        TrustLevel::Checked => 1,
        TrustLevel::Fuzzed => 2,
        TrustLevel::TrustedExternal => 3,
    };
    let highest = match policy {
        TrustPolicy::VerifiedOnly => 0,
        TrustPolicy::Checked => 1,
        TrustPolicy::FuzzedOk => 2,
        TrustPolicy::AllowTrustedExternal => 3,
    };
    rank(level) <= highest
}

/// SPEC §1: `requiresVJP(op)` is false for the two random ops only.
fn spec_requires_vjp(op: BackendOp) -> bool {
    !matches!(op, BackendOp::RandUniform | BackendOp::BernoulliMask)
}

/// SPEC §5 rule 5.
fn spec_vjp_passes(wanted: VJPMode, op: BackendOp, offered: VJPMode) -> bool {
    if wanted == VJPMode::None || !spec_requires_vjp(op) {
        return true;
    }
    match wanted {
        VJPMode::TorchLeanTape => matches!(offered, VJPMode::TorchLeanTape | VJPMode::BackendVjp),
        VJPMode::BackendVjp => offered == VJPMode::BackendVjp,
        VJPMode::ExternalAutograd => offered == VJPMode::ExternalAutograd,
        VJPMode::None => true,
    }
}

/// SPEC §6: a capsule's WebGPU requirements against probed capabilities
/// (every feature offered; a `min…` limit at most, any other at least, the
/// value needed; an unreported limit unmet); without capabilities, admitted.
fn spec_webgpu_met(requires: Option<&WebGpuRequirements>, availability: &Availability) -> bool {
    let (Some(requires), Some(offered)) = (requires, &availability.web_gpu) else { return true };
    requires.features.iter().all(|f| offered.features.contains(f))
        && requires.limits.iter().all(|(name, needed)| match offered.limits.get(name) {
            None => false,
            Some(value) if name.starts_with("min") => value <= needed,
            Some(value) => value >= needed,
        })
}

/// SPEC §5's admissibility (rules 1–5) and §6's WebGPU requirements.
fn spec_admissible(
    capsule: &KernelCapsule,
    op: BackendOp,
    config: &ExecutionConfig,
    availability: &Availability,
) -> bool {
    capsule.op == op
        && capsule.supports_forward
        && spec_trust_accepts(config.trust_policy, capsule.trust_level)
        && match config.backend {
            BackendPreference::Only(p) => capsule.provider == p,
            _ => true,
        }
        && capsule.device == config.device
        && spec_vjp_passes(config.vjp_mode, op, capsule.vjp_mode)
        && spec_webgpu_met(capsule.requires.as_ref(), availability)
}

/// Step 1: the availability admits a capsule's device and provider.
fn spec_admitted(capsule: &KernelCapsule, availability: &Availability) -> bool {
    availability.devices.contains(&capsule.device) && availability.providers.contains(&capsule.provider)
}

/// Steps 1–3 for one op: drop what the availability does not admit, move
/// `prefer(p)`'s capsules first (stable), take the first admissible.
fn spec_choice(
    op: BackendOp,
    config: &ExecutionConfig,
    availability: &Availability,
    catalog: &[KernelCapsule],
) -> Option<usize> {
    let mut candidates: Vec<usize> =
        (0..catalog.len()).filter(|&i| catalog[i].op == op && spec_admitted(&catalog[i], availability)).collect();
    if let BackendPreference::Prefer(p) = config.backend {
        candidates.sort_by_key(|&i| catalog[i].provider != p); // stable
    }
    candidates.into_iter().find(|&i| spec_admissible(&catalog[i], op, config, availability))
}

/// The expected kernels as `(capsule index, config index)`, per mode.
fn spec_plan(request: &PlanRequest, catalog: &[KernelCapsule]) -> Option<Vec<(usize, usize)>> {
    let configs = request.configs();
    let availability = request.availability();
    match request.mode {
        PlanMode::WholePlan => configs.iter().enumerate().find_map(|(k, config)| {
            request.ops.iter().map(|&op| spec_choice(op, config, &availability, catalog).map(|c| (c, k))).collect()
        }),
        PlanMode::PerOp => request
            .ops
            .iter()
            .map(|&op| {
                configs
                    .iter()
                    .enumerate()
                    .find_map(|(k, config)| spec_choice(op, config, &availability, catalog).map(|c| (c, k)))
            })
            .collect(),
    }
}

fn effective_catalog(request: &PlanRequest) -> Vec<KernelCapsule> {
    request.capsules.clone().unwrap_or_else(reference_capsules)
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config_with())]

    #[test]
    fn targets_declare_cpu_and_the_two_base_providers(t in target()) {
        let devices = t.devices();
        prop_assert_eq!(devices[0], Device::Cpu);
        prop_assert!(devices.contains(&Device::Cpu));
        let expected: Vec<Device> = std::iter::once(Device::Cpu).chain(t.accelerator.device()).collect();
        prop_assert_eq!(&devices, &expected);
        let providers = t.providers();
        prop_assert_eq!(&providers[..2], &[Provider::Reference, Provider::TorchLean][..]);
        let availability = t.declared_availability();
        prop_assert_eq!(availability.devices, devices);
        prop_assert_eq!(availability.providers, providers);
    }

    #[test]
    fn providers_after_the_first_two_follow_the_features(t in target()) {
        let from_features: Vec<Provider> = t.features.iter().map(|f| f.provider()).collect();
        prop_assert_eq!(&t.providers()[2..], from_features.as_slice());
    }

    #[test]
    fn targets_round_trip_through_json(t in target()) {
        prop_assert_eq!(parse_target(&to_json(&t)).unwrap(), t.clone());
        prop_assert_eq!(parse_target(&to_json_pretty(&t)).unwrap(), t.clone());
        prop_assert_eq!(
            parse_availability(&to_json(&t.declared_availability())).unwrap(),
            t.declared_availability()
        );
    }

    #[test]
    fn requests_round_trip_through_json(request in request()) {
        prop_assert_eq!(parse_plan_request(&to_json(&request), &Limits::DEFAULT).unwrap(), request);
    }

    /// Every kernel is admitted by the availability and admissible under the
    /// config that served it; kernels follow the request's ops.
    #[test]
    fn every_kernel_is_admitted_and_admissible(request in request()) {
        let result = plan(&request).unwrap();
        let catalog = effective_catalog(&request);
        let availability = request.availability();
        let configs = request.configs();
        prop_assert_eq!(&result.availability, &availability);
        prop_assert_eq!(result.mode, request.mode);
        if let Some(kernels) = &result.kernels {
            prop_assert!(result.ok);
            prop_assert_eq!(kernels.len(), request.ops.len());
            for (kernel, &op) in kernels.iter().zip(&request.ops) {
                prop_assert_eq!(kernel.op, op);
                let capsule = catalog.iter().find(|c| c.name == kernel.capsule).unwrap();
                prop_assert_eq!((capsule.provider, capsule.device), (kernel.provider, kernel.device));
                prop_assert!(spec_admitted(capsule, &availability));
                prop_assert!(spec_admissible(capsule, op, &configs[kernel.config_index], &availability));
                if request.mode == PlanMode::WholePlan {
                    prop_assert_eq!(Some(kernel.config_index), result.config_index);
                }
            }
            if request.mode == PlanMode::WholePlan {
                let k = result.config_index.unwrap();
                prop_assert_eq!(result.config, Some(configs[k]));
                prop_assert_eq!(result.attempts.len(), k + 1);
                prop_assert!(result.attempts[..k].iter().all(|a| !a.ok));
            }
        } else {
            prop_assert!(!result.ok);
            prop_assert_eq!(result.config_index, None);
            // Every config was tried, and every failing op carries the SPEC message.
            if request.mode == PlanMode::WholePlan {
                prop_assert_eq!(result.attempts.len(), configs.len());
            }
            for attempt in &result.attempts {
                prop_assert!(!attempt.ok);
                for explained in &attempt.ops {
                    let config = &configs[attempt.config_index];
                    match &explained.capsule {
                        None => prop_assert_eq!(
                            explained.message.clone(),
                            Some(format!("no admissible backend capsule for op {} on device {}", explained.op, config.device))
                        ),
                        Some(_) => prop_assert_eq!(&explained.message, &None),
                    }
                }
            }
        }
    }

    /// The planner picks exactly what SPEC §5 picks, in both modes.
    #[test]
    fn the_planner_agrees_with_the_spec(request in request()) {
        let catalog = effective_catalog(&request);
        let result = plan(&request).unwrap();
        let actual: Option<Vec<(String, usize)>> = result
            .kernels
            .map(|ks| ks.into_iter().map(|k| (k.capsule, k.config_index)).collect());
        let expected: Option<Vec<(String, usize)>> = spec_plan(&request, &catalog)
            .map(|ks| ks.into_iter().map(|(c, k)| (catalog[c].name.clone(), k)).collect());
        prop_assert_eq!(actual, expected);
    }

    /// Each candidate's verdict agrees with `is_admissible`, exactly one
    /// (the first admissible, in planning order) is chosen, and the
    /// candidates are exactly the op's capsules.
    #[test]
    fn explanations_agree_with_admissibility(
        ops in ops(),
        config in execution_config(),
        availability in availability(),
        catalog in catalog(),
    ) {
        let request = PlanRequest {
            config: Some(config),
            availability: Some(availability.clone()),
            capsules: Some(catalog.clone()),
            ..PlanRequest::new(ops.clone())
        };
        let result = plan(&request).unwrap();
        let attempt = &result.attempts[0];
        prop_assert_eq!(attempt.ops.len(), ops.len());
        for explained in &attempt.ops {
            // A repeated op points to its first occurrence, which fared the same.
            if let Some(first) = explained.same_as {
                let earlier = attempt.ops.iter().find(|e| e.op_index == first).unwrap();
                prop_assert!(first < explained.op_index);
                prop_assert_eq!(earlier.op, explained.op);
                prop_assert_eq!(earlier.same_as, None);
                prop_assert_eq!(&earlier.capsule, &explained.capsule);
                prop_assert_eq!(&earlier.message, &explained.message);
                prop_assert!(explained.candidates.is_none());
                continue;
            }
            let mut indices: Vec<usize> = explained.candidates().iter().map(|c| c.catalog_index).collect();
            indices.sort_unstable();
            let of_op: Vec<usize> = (0..catalog.len()).filter(|&i| catalog[i].op == explained.op).collect();
            prop_assert_eq!(indices, of_op);
            let mut seen_admissible = false;
            for candidate in explained.candidates() {
                let capsule = &catalog[candidate.catalog_index];
                let admissible =
                    spec_admitted(capsule, &availability) && spec_admissible(capsule, explained.op, &config, &availability);
                prop_assert_eq!(admissible, candidate.reason.is_none());
                let verdict = match (admissible, seen_admissible) {
                    (false, _) => Verdict::Rejected,
                    (true, false) => Verdict::Chosen,
                    (true, true) => Verdict::Admissible,
                };
                prop_assert_eq!(candidate.verdict, verdict);
                if verdict == Verdict::Chosen {
                    prop_assert_eq!(explained.capsule.as_deref(), Some(capsule.name.as_str()));
                }
                seen_admissible |= admissible;
            }
            prop_assert_eq!(explained.capsule.is_some(), seen_admissible);
        }
    }

    /// `only(p)`: a plan exists exactly when SPEC §5 says one does, and then
    /// uses `p` alone, even with another provider's capsules first in the
    /// catalog and every device and provider available.
    #[test]
    fn only_p_plans_use_only_p(
        ops in ops(),
        config in execution_config(),
        provider in select(PROVIDERS),
        availability in availability(),
        catalog in catalog(),
    ) {
        let config = ExecutionConfig { backend: BackendPreference::Only(provider), ..config };
        let mut catalog = catalog;
        for &op in &ops {
            catalog.insert(0, KernelCapsule {
                name: format!("other.{op}"),
                op,
                provider: Provider::Xla,
                device: config.device,
                trust_level: TrustLevel::Verified,
                supports_forward: true,
                vjp_mode: VJPMode::BackendVjp,
                requires: None,
            });
        }
        let everything = Availability { devices: Device::ALL.to_vec(), providers: Provider::ALL.to_vec(), web_gpu: None };
        for availability in [availability, everything] {
            let request = PlanRequest {
                config: Some(config),
                availability: Some(availability.clone()),
                capsules: Some(catalog.clone()),
                ..PlanRequest::new(ops.clone())
            };
            let result = plan(&request).unwrap();
            let plannable = ops.iter().all(|&op| spec_choice(op, &config, &availability, &catalog).is_some());
            prop_assert_eq!(result.ok, plannable);
            for kernel in result.kernels.iter().flatten() {
                prop_assert_eq!(kernel.provider, provider);
            }
        }
    }

    /// Per-op fallback never fails where some single config of the list plans
    /// the whole request, and it fails exactly when some op has no config.
    #[test]
    fn per_op_never_fails_where_one_config_plans_everything(
        ops in ops(),
        configs in prop::collection::vec(execution_config(), 1..4),
        availability in availability(),
        catalog in catalog(),
    ) {
        let planned = |configs: &[ExecutionConfig], mode| {
            plan(&PlanRequest {
                configs: Some(configs.to_vec()),
                availability: Some(availability.clone()),
                capsules: Some(catalog.clone()),
                mode,
                ..PlanRequest::new(ops.clone())
            })
            .unwrap()
        };
        let per_op = planned(&configs, PlanMode::PerOp);
        let whole = planned(&configs, PlanMode::WholePlan);
        for config in &configs {
            let single = planned(std::slice::from_ref(config), PlanMode::WholePlan);
            if single.ok {
                prop_assert!(per_op.ok);
                prop_assert!(whole.ok);
            }
        }
        // Whole-plan success implies per-op success.
        prop_assert!(!whole.ok || per_op.ok);
        let every_op_served = ops.iter().all(|&op| {
            configs.iter().any(|c| spec_choice(op, c, &availability, &catalog).is_some())
        });
        prop_assert_eq!(per_op.ok, every_op_served);
    }

    #[test]
    fn planning_is_deterministic(request in request()) {
        let text = to_json(&request);
        let first = plan_json(&text, &Limits::DEFAULT).unwrap();
        let second = plan_json(&text, &Limits::DEFAULT).unwrap();
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(to_json(&plan(&request).unwrap()), first.1.clone());
        prop_assert_eq!(plan(&request).unwrap(), plan(&request).unwrap());
    }

    #[test]
    fn parsing_arbitrary_strings_never_panics(text in any::<String>()) {
        let _ = parse_plan_request(&text, &Limits::DEFAULT);
        let _ = parse_target(&text);
        let _ = parse_availability(&text);
        let _ = text.parse::<BackendOp>();
    }

    #[test]
    fn parsing_json_like_strings_never_panics(text in r#"[\[\]{}":,` a-zA-Z0-9_.\-\\]{0,80}"#) {
        let _ = parse_plan_request(&text, &Limits::DEFAULT);
        let _ = parse_target(&text);
    }

    /// A valid request, mutated (characters deleted, inserted or replaced):
    /// parsing never panics, errors carry a code-specific sentence, and
    /// whatever still parses also plans.
    #[test]
    fn parsing_mutated_requests_never_panics(
        request in request(),
        mutations in prop::collection::vec(
            (any::<Index>(), 0..3u8, select(&[
                '"', '{', '}', '[', ']', ',', ':', ' ', '`', '\\', 'a', 'x', '0', '-', '.', 'é', '\u{0}',
            ][..])),
            1..6,
        ),
    ) {
        let mut chars: Vec<char> = to_json(&request).chars().collect();
        for (at, kind, c) in mutations {
            if chars.is_empty() {
                chars.push(c);
                continue;
            }
            let i = at.index(chars.len());
            match kind {
                0 => { chars.remove(i); }
                1 => chars.insert(i, c),
                _ => chars[i] = c,
            }
        }
        let text: String = chars.into_iter().collect();
        match parse_plan_request(&text, &Limits::DEFAULT) {
            Ok(parsed) => {
                let (ok, json) = plan_json(&text, &Limits::DEFAULT).unwrap();
                prop_assert_eq!(ok, plan(&parsed).unwrap().ok);
                let prefix = "{\"ok\":";
                prop_assert!(json.starts_with(prefix), "{}", json);
            }
            Err(error) => {
                prop_assert!(!error.message.is_empty());
                prop_assert_eq!(plan_json(&text, &Limits::DEFAULT).unwrap_err(), error);
            }
        }
    }

    /// With a CPU reference fallback last, per-op planning always succeeds,
    /// and each op is served by the first config that admits a capsule for it.
    #[test]
    fn per_op_takes_each_op_from_the_first_config_that_serves_it(
        ops in ops(),
        configs in prop::collection::vec(execution_config(), 0..4),
        t in target(),
        catalog in catalog(),
    ) {
        let mut catalog = catalog;
        catalog.extend(reference_capsules());
        let mut configs = configs;
        configs.push(ExecutionConfig { vjp_mode: VJPMode::TorchLeanTape, ..ExecutionConfig::default() });
        let availability = t.declared_availability();
        let result = plan(&PlanRequest {
            configs: Some(configs.clone()),
            availability: Some(availability.clone()),
            capsules: Some(catalog.clone()),
            mode: PlanMode::PerOp,
            ..PlanRequest::new(ops.clone())
        })
        .unwrap();
        prop_assert!(result.ok);
        let kernels = result.kernels.unwrap();
        prop_assert_eq!(kernels.len(), ops.len());
        for kernel in &kernels {
            let first = configs
                .iter()
                .position(|c| spec_choice(kernel.op, c, &availability, &catalog).is_some());
            prop_assert_eq!(Some(kernel.config_index), first);
        }
        // Each attempt after the first was asked only for the ops that the
        // earlier configs could not serve.
        for attempt in result.attempts.iter().skip(1) {
            for explained in &attempt.ops {
                prop_assert!(kernels[explained.op_index].config_index >= attempt.config_index);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The answer's size, bounded before planning (the limit outputBytes)
// ---------------------------------------------------------------------------

/// Names JSON escapes (quotes, backslashes, control characters), long ones,
/// and plain ones.
fn awkward_name() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z]{1,6}", "[\"\\\\\\x00-\\x1f\\x7fa-z]{0,24}", "[a-zé😀]{0,300}",]
}

/// WebGPU names, distinct, with limit values up to 2^53 - 1.
fn webgpu_names() -> impl Strategy<Value = (Vec<String>, Vec<(String, u64)>)> {
    (
        prop::collection::btree_set(awkward_name(), 0..4),
        prop::collection::vec((prop_oneof!["min[a-z]{0,4}", awkward_name()], 0..=(1u64 << 53) - 1), 0..4),
    )
        .prop_map(|(features, limits)| (features.into_iter().collect(), limits))
}

/// A request whose answer quotes as much as it can: awkward capsule names,
/// WebGPU requirements against a probed availability (their sentences
/// quote a requirement) or a declared one (unverified), repeated ops.
fn wordy_request() -> impl Strategy<Value = PlanRequest> {
    let capsule = (select(OPS), select(PROVIDERS), select(DEVICES), select(TrustLevel::ALL), any::<bool>())
        .prop_flat_map(|parts| (Just(parts), awkward_name(), prop::option::of(webgpu_names()), select(VJPMode::ALL)))
        .prop_map(|((op, provider, device, trust_level, supports_forward), name, requires, vjp_mode)| KernelCapsule {
            name,
            op,
            provider,
            device,
            trust_level,
            supports_forward,
            vjp_mode,
            requires: requires
                .map(|(features, limits)| WebGpuRequirements { features, limits: limits.into_iter().collect() }),
        });
    let offered = (
        subsequence(DEVICES.to_vec(), 0..=DEVICES.len()),
        subsequence(PROVIDERS.to_vec(), 0..=PROVIDERS.len()),
        prop::option::of(webgpu_names()),
    )
        .prop_map(|(devices, providers, web_gpu)| Availability {
            devices,
            providers,
            web_gpu: web_gpu
                .map(|(features, limits)| WebGpuCapabilities { features, limits: limits.into_iter().collect() }),
        });
    (
        prop::collection::vec(select(OPS), 0..6),
        prop::collection::vec(execution_config(), 1..4),
        offered,
        prop::collection::vec(capsule, 0..12),
        select(PlanMode::ALL),
        any::<bool>(),
    )
        .prop_map(|(ops, configs, availability, capsules, mode, explain)| PlanRequest {
            ops,
            config: None,
            configs: Some(configs),
            target: None,
            availability: Some(availability),
            capsules: Some(capsules),
            mode,
            explain,
        })
}

proptest! {
    #![proptest_config(config_with())]

    /// The bound never underestimates: with `outputBytes` one byte below the
    /// answer's length, the request is refused before planning.
    #[test]
    fn the_answer_never_exceeds_its_bound(request in prop_oneof![request(), wordy_request()]) {
        let text = to_json(&request);
        let (_, answer) = plan_json(&text, &Limits::DEFAULT).unwrap();
        let below = Limits { output_bytes: answer.len() - 1, ..Limits::DEFAULT };
        let error = parse_plan_request(&text, &below).unwrap_err();
        prop_assert_eq!(error.code, ErrorCode::LimitExceeded);
        prop_assert!(error.message.contains("the limit outputBytes"), "{}", error.message);
    }
}
