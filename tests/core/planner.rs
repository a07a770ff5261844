//! §5 Capsules and the planner.

use super::*;

#[test]
fn capsule_json_defaults_and_required_fields() {
    let parsed: KernelCapsule =
        from_json(r#"{"name":"r","op":"add","provider":"reference","device":"cpu","trustLevel":"checked"}"#).unwrap();
    assert!(parsed.supports_forward);
    assert_eq!(parsed.vjp_mode, VJPMode::None);
    for field in ["name", "op", "provider", "device", "trustLevel"] {
        let mut object = serde_json::json!({
            "name": "r", "op": "add", "provider": "reference", "device": "cpu", "trustLevel": "checked"
        });
        object.as_object_mut().unwrap().remove(field);
        let error = from_json::<KernelCapsule>(&object.to_string()).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::MissingField, field), "{field}");
    }
}

#[test]
fn reference_catalog_covers_every_op_on_cpu() {
    let catalog = reference_capsules();
    assert_eq!(catalog.len(), 68);
    for (capsule, &op) in catalog.iter().zip(BackendOp::ALL) {
        assert_eq!(capsule.op, op);
        assert_eq!(capsule.name, format!("reference.{op}"));
        assert_eq!((capsule.provider, capsule.device), (P::Reference, D::Cpu));
        assert_eq!(capsule.trust_level, TrustLevel::Checked);
        assert!(capsule.supports_forward);
        let vjp = if op.requires_vjp() { VJPMode::TorchLeanTape } else { VJPMode::None };
        assert_eq!(capsule.vjp_mode, vjp, "{op}");
    }
}

#[test]
fn auto_picks_the_first_admissible_capsule_in_catalog_order() {
    let availability = everything();
    let auto = config(D::Cpu, BackendPreference::Auto);
    let catalog = vec![
        capsule("gpu.add", Op::Add, P::WebGpu, D::Wasm), // wrong device
        capsule("tl.add", Op::Add, P::TorchLean, D::Cpu),
        cpu_capsule("ref.add", Op::Add),
        cpu_capsule("ref.mul", Op::Mul),
    ];
    assert_eq!(chosen(&[Op::Add, Op::Mul], &auto, &availability, &catalog).unwrap(), ["tl.add", "ref.mul"]);
    let mut swapped = catalog.clone();
    swapped.swap(1, 2);
    assert_eq!(chosen(&[Op::Add, Op::Mul], &auto, &availability, &swapped).unwrap(), ["ref.add", "ref.mul"]);
    // Kernels come in request order, repeats included.
    let kernels = plan_ops(&[Op::Mul, Op::Add, Op::Mul], &auto, &availability, &catalog).unwrap();
    let ops: Vec<BackendOp> = kernels.iter().map(|k| k.op).collect();
    assert_eq!(ops, [Op::Mul, Op::Add, Op::Mul]);
    assert_eq!((kernels[1].provider, kernels[1].device), (P::TorchLean, D::Cpu));
    // Capsules the availability does not admit are dropped first.
    let narrow = Availability { devices: vec![D::Cpu], providers: vec![P::Reference], web_gpu: None };
    assert_eq!(chosen(&[Op::Add], &auto, &narrow, &catalog).unwrap(), ["ref.add"]);
}

#[test]
fn prefer_moves_the_providers_capsules_first_keeping_catalog_order() {
    let availability = everything();
    let catalog = vec![
        cpu_capsule("ref.1", Op::Add),
        capsule("tl.1", Op::Add, P::TorchLean, D::Cpu),
        cpu_capsule("ref.2", Op::Add),
        capsule("tl.2", Op::Add, P::TorchLean, D::Cpu),
        capsule("cuda.1", Op::Add, P::NativeCuda, D::Cuda),
    ];
    let prefer = config(D::Cpu, BackendPreference::Prefer(P::TorchLean));
    let result = planned(&catalog, &availability, &[Op::Add], &[prefer], PlanMode::WholePlan);
    let order: Vec<usize> = result.attempts[0].ops[0].candidates().iter().map(|c| c.catalog_index).collect();
    assert_eq!(order, [1, 3, 0, 2, 4]);
    assert_eq!(result.kernels.unwrap()[0].capsule, "tl.1");
    // Within the preferred group, catalog order decides.
    let mut untrusted = catalog.clone();
    untrusted[1].trust_level = TrustLevel::Fuzzed;
    assert_eq!(chosen(&[Op::Add], &prefer, &availability, &untrusted).unwrap(), ["tl.2"]);
    // With no admissible preferred capsule, the others are tried in catalog order.
    untrusted[3].trust_level = TrustLevel::Fuzzed;
    assert_eq!(chosen(&[Op::Add], &prefer, &availability, &untrusted).unwrap(), ["ref.1"]);
    // Preferring a provider with no capsules is the catalog order.
    let prefer_xla = config(D::Cpu, BackendPreference::Prefer(P::Xla));
    assert_eq!(chosen(&[Op::Add], &prefer_xla, &availability, &catalog).unwrap(), ["ref.1"]);
    // Auto keeps catalog order.
    let auto = config(D::Cpu, BackendPreference::Auto);
    let result = planned(&catalog, &availability, &[Op::Add], &[auto], PlanMode::WholePlan);
    let order: Vec<usize> = result.attempts[0].ops[0].candidates().iter().map(|c| c.catalog_index).collect();
    assert_eq!(order, [0, 1, 2, 3, 4]);
}

#[test]
fn only_never_yields_another_provider() {
    let availability = everything();
    let catalog = vec![
        cpu_capsule("ref.add", Op::Add),
        capsule("tl.add", Op::Add, P::TorchLean, D::Cpu),
        cpu_capsule("ref.mul", Op::Mul),
    ];
    let only_tl = config(D::Cpu, BackendPreference::Only(P::TorchLean));
    assert_eq!(chosen(&[Op::Add], &only_tl, &availability, &catalog).unwrap(), ["tl.add"]);
    // mul has only a reference capsule: only(torchLean) fails rather than fall back.
    assert_eq!(
        chosen(&[Op::Add, Op::Mul], &only_tl, &availability, &catalog).unwrap_err(),
        ["no admissible backend capsule for op mul on device cpu"]
    );
    let reason = first_reason(&catalog[2..], Op::Mul, &only_tl, &availability);
    assert_eq!(reason, Some(RejectionReason::ProviderNotAllowed));
}

/// Each rejection reason, and that each is reported only when every earlier
/// rule passes: starting from a capsule that breaks every rule, fix one rule
/// at a time; the reported reason walks the SPEC order.
#[test]
fn rejection_reasons_in_order_of_precedence() {
    use RejectionReason as R;
    // A probed adapter with one feature and one limit.
    let probed = WebGpuCapabilities {
        features: vec!["timestamp-query".into()],
        limits: [("maxStorageBufferBindingSize".to_string(), 1 << 27)].into(),
    };
    let availability = Availability {
        devices: vec![D::Cpu, D::Cuda],
        providers: vec![P::Reference, P::NativeCuda],
        web_gpu: Some(probed),
    };
    let config = ExecutionConfig {
        device: D::Cuda,
        backend: BackendPreference::Only(P::NativeCuda),
        trust_policy: TrustPolicy::Checked,
        vjp_mode: VJPMode::BackendVjp,
    };
    let op = Op::Matmul;
    let mut capsule = KernelCapsule {
        name: "k".into(),
        op,
        provider: P::Mps, // not available, and not allowed by only(nativeCuda)
        device: D::Metal, // not available, and not the config's device
        trust_level: TrustLevel::Fuzzed,
        supports_forward: false,
        vjp_mode: VJPMode::TorchLeanTape,
        // Lacks the adapter's feature set and asks more than its limit.
        requires: Some(WebGpuRequirements {
            features: vec!["shader-f16".into()],
            limits: [("maxStorageBufferBindingSize".to_string(), 1 << 28)].into(),
        }),
    };
    type Fix = fn(&mut KernelCapsule);
    // Each reason, its sentence, and what makes the next rule the first to fail.
    let steps: [(R, &str, Fix); 9] = [
        (R::DeviceNotAvailable, "device metal is not available", |c| c.device = D::Cpu),
        (R::ProviderNotAvailable, "provider mps is not available", |c| c.provider = P::Reference),
        (R::WebGpuFeatureMissing, "the WebGPU adapter lacks feature shader-f16", |c| {
            c.requires.as_mut().unwrap().features.clear()
        }),
        (
            R::WebGpuLimitTooLow,
            "the WebGPU adapter's maxStorageBufferBindingSize is 134217728; the capsule needs at least 268435456",
            |c| c.requires = None,
        ),
        (R::NoForward, "the capsule does not support forward execution", |c| c.supports_forward = true),
        (R::TrustRefused, "trust policy checked does not accept trust level fuzzed", |c| {
            c.trust_level = TrustLevel::Checked
        }),
        (R::ProviderNotAllowed, "the config allows only provider nativeCuda, not reference", |c| {
            c.provider = P::NativeCuda
        }),
        (R::DeviceMismatch, "the capsule runs on cpu, the config on cuda", |c| c.device = D::Cuda),
        (R::VjpIncompatible, "VJP mode backendVJP cannot be served by a capsule with VJP mode torchLeanTape", |c| {
            c.vjp_mode = VJPMode::BackendVjp
        }),
    ];
    let mut reported = Vec::new();
    for (expected, sentence, fix) in steps {
        assert!(!is_admissible(&capsule, op, &config, &availability));
        let (reason, detail) = first_verdict(std::slice::from_ref(&capsule), op, &config, &availability);
        assert_eq!(reason, Some(expected), "{capsule:?}");
        assert_eq!(detail, sentence, "{expected:?}");
        reported.push(expected);
        fix(&mut capsule);
    }
    assert_eq!(reported, RejectionReason::ALL);
    assert!(is_admissible(&capsule, op, &config, &availability));
    assert_eq!(first_reason(&[capsule.clone()], op, &config, &availability), None);
    // A capsule of another op is never admissible for this one.
    assert!(!is_admissible(&capsule, Op::Bmm, &config, &availability));
}

#[test]
fn candidates_carry_verdicts_reasons_and_details() {
    let availability = everything();
    let catalog = vec![
        KernelCapsule { trust_level: TrustLevel::TrustedExternal, ..cpu_capsule("untrusted", Op::Add) },
        cpu_capsule("first", Op::Add),
        cpu_capsule("other.op", Op::Mul),
        cpu_capsule("second", Op::Add),
        capsule("elsewhere", Op::Add, P::Reference, D::Cuda),
    ];
    let result = plan(&PlanRequest {
        capsules: Some(catalog),
        availability: Some(availability),
        ..PlanRequest::new(vec![Op::Add])
    })
    .unwrap();
    assert!(result.ok);
    let explanation = &result.attempts[0].ops[0];
    assert_eq!((explanation.op, explanation.op_index), (Op::Add, 0));
    assert_eq!(explanation.capsule.as_deref(), Some("first"));
    assert_eq!(explanation.message, None);
    let summary: Vec<(&str, usize, Verdict, Option<RejectionReason>)> =
        explanation.candidates().iter().map(|c| (c.capsule.as_str(), c.catalog_index, c.verdict, c.reason)).collect();
    assert_eq!(
        summary,
        [
            ("untrusted", 0, Verdict::Rejected, Some(RejectionReason::TrustRefused)),
            ("first", 1, Verdict::Chosen, None),
            ("second", 3, Verdict::Admissible, None),
            ("elsewhere", 4, Verdict::Rejected, Some(RejectionReason::DeviceMismatch)),
        ]
    );
    for candidate in explanation.candidates() {
        assert!(!candidate.detail.is_empty());
    }
    assert_eq!(explanation.candidates()[0].detail, "trust policy checked does not accept trust level trustedExternal");
    assert_eq!(explanation.candidates()[3].detail, "the capsule runs on cuda, the config on cpu");
    // Rejected candidates carry a reason in JSON; others do not.
    let json: serde_json::Value = serde_json::from_str(&to_json(&result)).unwrap();
    let candidates = &json["attempts"][0]["ops"][0]["candidates"];
    assert_eq!(candidates[0]["reason"], "trust-refused");
    assert_eq!(candidates[0]["verdict"], "rejected");
    assert!(candidates[1].get("reason").is_none());
    assert_eq!(candidates[1]["verdict"], "chosen");
    assert_eq!(candidates[2]["verdict"], "admissible");
}

#[test]
fn failure_message_text() {
    assert_eq!(
        no_capsule_message(Op::ScaledDotProductAttention, D::Wasm),
        "no admissible backend capsule for op scaledDotProductAttention on device wasm"
    );
    let cuda = config(D::Cuda, BackendPreference::Auto);
    let availability = Target::linux_cuda(false).declared_availability();
    let messages = chosen(&[Op::Matmul, Op::LogSoftmax], &cuda, &availability, &reference_capsules()).unwrap_err();
    assert_eq!(
        messages,
        [
            "no admissible backend capsule for op matmul on device cuda",
            "no admissible backend capsule for op logSoftmax on device cuda",
        ]
    );
    // An op with no capsule at all fails the same way.
    assert_eq!(
        chosen(&[Op::FftFno], &ExecutionConfig::default(), &Availability::default(), &[]).unwrap_err(),
        ["no admissible backend capsule for op fftFno on device cpu"]
    );
    // The failure is data in the result, with the message per op.
    let result = plan(&PlanRequest {
        config: Some(cuda),
        target: Some(Target::linux_cuda(false)),
        ..PlanRequest::new(vec![Op::Add, Op::Matmul])
    })
    .unwrap();
    assert!(!result.ok);
    assert_eq!((result.config_index, result.config, result.kernels.as_ref()), (None, None, None));
    let attempt = &result.attempts[0];
    assert!(!attempt.ok);
    let messages: Vec<Option<&str>> = attempt.ops.iter().map(|o| o.message.as_deref()).collect();
    assert_eq!(
        messages,
        [
            Some("no admissible backend capsule for op add on device cuda"),
            Some("no admissible backend capsule for op matmul on device cuda"),
        ]
    );
    assert_eq!(attempt.ops[1].candidates()[0].reason, Some(RejectionReason::DeviceMismatch));
}

#[test]
fn default_request_plans_all_68_ops() {
    let result = plan(&PlanRequest::new(BackendOp::ALL.to_vec())).unwrap();
    assert!(result.ok);
    assert_eq!(result.mode, PlanMode::WholePlan);
    assert_eq!(result.config_index, Some(0));
    assert_eq!(result.config, Some(ExecutionConfig::default()));
    assert_eq!(result.availability, Availability::default());
    let kernels = result.kernels.unwrap();
    assert_eq!(kernels.len(), 68);
    for (kernel, &op) in kernels.iter().zip(BackendOp::ALL) {
        assert_eq!(kernel.op, op);
        assert_eq!(kernel.capsule, format!("reference.{op}"));
        assert_eq!((kernel.provider, kernel.device, kernel.config_index), (P::Reference, D::Cpu, 0));
    }
    // The same through JSON, and through every strict-enough default config.
    let (ok, _) = plan_json(&format!(r#"{{"ops":{}}}"#, to_json(&BackendOp::ALL)), &Limits::DEFAULT).unwrap();
    assert!(ok);
    // Default config, default availability, plain plan_ops.
    let planned =
        plan_ops(BackendOp::ALL, &ExecutionConfig::default(), &Availability::default(), &reference_capsules());
    assert_eq!(planned.unwrap().len(), 68);
    // An empty op list plans to an empty plan.
    let empty = plan(&PlanRequest::new(vec![])).unwrap();
    assert!(empty.ok);
    assert_eq!(empty.kernels, Some(vec![]));
}

#[test]
fn reference_catalog_and_trust_or_vjp_demands() {
    let all = BackendOp::ALL.to_vec();
    // (trust policy, vjp mode, plans every op?)
    let table = [
        (TrustPolicy::Checked, VJPMode::TorchLeanTape, true),
        (TrustPolicy::FuzzedOk, VJPMode::None, true),
        (TrustPolicy::VerifiedOnly, VJPMode::TorchLeanTape, false),
        (TrustPolicy::Checked, VJPMode::BackendVjp, false),
        (TrustPolicy::Checked, VJPMode::ExternalAutograd, false),
    ];
    for (trust_policy, vjp_mode, ok) in table {
        let config = ExecutionConfig { trust_policy, vjp_mode, ..Default::default() };
        let result = plan(&PlanRequest { config: Some(config), ..PlanRequest::new(all.clone()) }).unwrap();
        assert_eq!(result.ok, ok, "{trust_policy} {vjp_mode}");
        if vjp_mode == VJPMode::BackendVjp {
            // Only the two random ops (no VJP needed) still plan.
            let planned: Vec<BackendOp> =
                result.attempts[0].ops.iter().filter(|o| o.capsule.is_some()).map(|o| o.op).collect();
            assert_eq!(planned, [Op::RandUniform, Op::BernoulliMask]);
        }
    }
}

#[test]
fn config_lists_first_config_planning_every_op_wins() {
    let wasm = Target::wasm();
    let catalog = {
        let mut catalog = reference_capsules();
        catalog.push(capsule("webgpu.matmul", Op::Matmul, P::WebGpu, D::Wasm));
        catalog.push(capsule("webgpu.add", Op::Add, P::WebGpu, D::Wasm));
        catalog
    };
    let gpu = config(D::Wasm, BackendPreference::Prefer(P::WebGpu));
    let cpu = ExecutionConfig::default();
    let strict = ExecutionConfig { trust_policy: TrustPolicy::VerifiedOnly, ..cpu };
    let request = PlanRequest {
        configs: Some(vec![gpu, strict, cpu]),
        target: Some(wasm.clone()),
        capsules: Some(catalog.clone()),
        ..PlanRequest::new(vec![Op::Matmul, Op::Relu])
    };
    let result = plan(&request).unwrap();
    assert!(result.ok);
    assert_eq!(result.config_index, Some(2));
    assert_eq!(result.config, Some(cpu));
    assert_eq!(result.availability, wasm.declared_availability());
    // The earlier configs' failures are explained, in order.
    let attempts: Vec<(usize, bool)> = result.attempts.iter().map(|a| (a.config_index, a.ok)).collect();
    assert_eq!(attempts, [(0, false), (1, false), (2, true)]);
    assert_eq!(result.attempts[0].config, gpu);
    let first: Vec<Option<&str>> = result.attempts[0].ops.iter().map(|o| o.message.as_deref()).collect();
    assert_eq!(first, [None, Some("no admissible backend capsule for op relu on device wasm")]);
    assert_eq!(result.attempts[0].ops[0].capsule.as_deref(), Some("webgpu.matmul"));
    let second = &result.attempts[1].ops[0];
    assert_eq!(second.message.as_deref(), Some("no admissible backend capsule for op matmul on device cpu"));
    assert_eq!(second.candidates()[0].reason, Some(RejectionReason::TrustRefused));
    let kernels = result.kernels.unwrap();
    assert!(kernels.iter().all(|k| k.config_index == 2 && k.provider == P::Reference));
    // A list whose first config plans everything stops there.
    let request = PlanRequest { configs: Some(vec![cpu, gpu]), ..request };
    let result = plan(&request).unwrap();
    assert_eq!(result.config_index, Some(0));
    assert_eq!(result.attempts.len(), 1);
    // No config plans everything: ok false, every config explained.
    let request = PlanRequest { configs: Some(vec![gpu, strict]), ..request };
    let result = plan(&request).unwrap();
    assert!(!result.ok);
    assert_eq!(result.attempts.len(), 2);
    assert_eq!(result.kernels, None);
}

#[test]
fn per_op_fallback_uses_a_kernel_where_one_exists_and_cpu_for_the_rest() {
    let mut catalog = reference_capsules();
    catalog.push(capsule("webgpu.matmul", Op::Matmul, P::WebGpu, D::Wasm));
    catalog.push(capsule("webgpu.add", Op::Add, P::WebGpu, D::Wasm));
    let gpu = config(D::Wasm, BackendPreference::Only(P::WebGpu));
    let cpu = ExecutionConfig::default();
    let request = parse_plan_request(
        &format!(
            r#"{{"ops":["matmul","relu","add","softmax"],"mode":"perOp","configs":[{},{}],
            "target":{{"os":"wasi","arch":"wasm32","accelerator":"wasm","features":["webGpu"]}},
            "capsules":{}}}"#,
            to_json(&gpu),
            to_json(&cpu),
            to_json(&catalog)
        ),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(request.mode, PlanMode::PerOp);
    let result = plan(&request).unwrap();
    assert!(result.ok);
    assert_eq!(result.mode, PlanMode::PerOp);
    assert_eq!((result.config_index, result.config), (None, None));
    let kernels: Vec<(BackendOp, &str, Provider, Device, usize)> = result
        .kernels
        .as_ref()
        .unwrap()
        .iter()
        .map(|k| (k.op, k.capsule.as_str(), k.provider, k.device, k.config_index))
        .collect();
    assert_eq!(
        kernels,
        [
            (Op::Matmul, "webgpu.matmul", P::WebGpu, D::Wasm, 0),
            (Op::Relu, "reference.relu", P::Reference, D::Cpu, 1),
            (Op::Add, "webgpu.add", P::WebGpu, D::Wasm, 0),
            (Op::Softmax, "reference.softmax", P::Reference, D::Cpu, 1),
        ]
    );
    // The first config was asked for every op; the second only for the rest.
    let asked: Vec<Vec<(BackendOp, usize)>> =
        result.attempts.iter().map(|a| a.ops.iter().map(|o| (o.op, o.op_index)).collect()).collect();
    assert_eq!(
        asked,
        [vec![(Op::Matmul, 0), (Op::Relu, 1), (Op::Add, 2), (Op::Softmax, 3)], vec![(Op::Relu, 1), (Op::Softmax, 3)]]
    );
    assert_eq!((result.attempts[0].ok, result.attempts[1].ok), (false, true));

    // Without the webGpu provider (probe dropped it) everything falls back to CPU.
    let mut unprobed = request.clone();
    unprobed.target.as_mut().unwrap().features.clear();
    let result = plan(&unprobed).unwrap();
    assert!(result.ok);
    assert!(result.kernels.unwrap().iter().all(|k| k.config_index == 1 && k.device == D::Cpu));
    assert_eq!(
        result.attempts[0].ops[0].candidates().last().unwrap().reason,
        Some(RejectionReason::ProviderNotAvailable)
    );

    // Later configs are not tried once every op is planned.
    let gpu_only_ops = PlanRequest { ops: vec![Op::Add, Op::Matmul], ..request.clone() };
    let result = plan(&gpu_only_ops).unwrap();
    assert_eq!(result.attempts.len(), 1);
    assert!(result.kernels.unwrap().iter().all(|k| k.config_index == 0));

    // An op no config can serve fails the whole request, explained per config.
    let failing = PlanRequest { configs: Some(vec![gpu]), ..request };
    let result = plan(&failing).unwrap();
    assert!(!result.ok);
    assert_eq!(result.kernels, None);
    let messages: Vec<&str> = result.attempts[0].ops.iter().filter_map(|o| o.message.as_deref()).collect();
    assert_eq!(
        messages,
        [
            "no admissible backend capsule for op relu on device wasm",
            "no admissible backend capsule for op softmax on device wasm",
        ]
    );
}

#[test]
fn explain_false_keeps_only_failing_ops() {
    let base = PlanRequest {
        configs: Some(vec![
            ExecutionConfig { trust_policy: TrustPolicy::VerifiedOnly, ..Default::default() },
            ExecutionConfig::default(),
        ]),
        explain: false,
        ..PlanRequest::new(vec![Op::Add, Op::Mul])
    };
    let mut catalog = reference_capsules();
    catalog.insert(0, KernelCapsule { trust_level: TrustLevel::Verified, ..catalog[Op::Mul.index()].clone() });
    catalog[0].name = "verified.mul".into();
    let request = PlanRequest { capsules: Some(catalog), ..base.clone() };
    let result = plan(&request).unwrap();
    assert!(result.ok);
    assert_eq!(result.config_index, Some(1));
    // Config 0 planned mul but not add: only add is kept.
    let kept: Vec<BackendOp> = result.attempts[0].ops.iter().map(|o| o.op).collect();
    assert_eq!(kept, [Op::Add]);
    assert!(result.attempts[1].ops.is_empty());
    // With explain (the default), every op is kept.
    let result = plan(&PlanRequest { explain: true, ..request }).unwrap();
    assert_eq!(result.attempts[0].ops.len(), 2);
    assert_eq!(result.attempts[1].ops.len(), 2);
    // `explain` defaults to true in JSON.
    assert!(parse_plan_request(r#"{"ops":[]}"#, &Limits::DEFAULT).unwrap().explain);
    assert!(!parse_plan_request(r#"{"ops":[],"explain":false}"#, &Limits::DEFAULT).unwrap().explain);
}

#[test]
fn planning_is_deterministic_to_the_byte() {
    let mut catalog = reference_capsules();
    catalog.push(capsule("webgpu.matmul", Op::Matmul, P::WebGpu, D::Wasm));
    let request = PlanRequest {
        configs: Some(vec![config(D::Wasm, BackendPreference::Prefer(P::WebGpu)), ExecutionConfig::default()]),
        target: Some(Target::wasm()),
        capsules: Some(catalog),
        mode: PlanMode::PerOp,
        ..PlanRequest::new(BackendOp::ALL.to_vec())
    };
    let text = to_json(&request);
    let first = plan_json(&text, &Limits::DEFAULT).unwrap();
    let second = plan_json(&text, &Limits::DEFAULT).unwrap();
    assert_eq!(first, second);
    assert!(first.0);
    assert_eq!(to_json(&plan(&request).unwrap()), first.1);
    assert_eq!(to_json(&plan(&request).unwrap()), to_json(&plan(&request).unwrap()));
    // The same request with whitespace and field order changed gives the same bytes.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    assert_eq!(plan_json(&pretty, &Limits::DEFAULT).unwrap(), first);
}

#[test]
fn plan_result_json_shape() {
    let (ok, text) = plan_json(r#"{"ops":["add"],"explain":false}"#, &Limits::DEFAULT).unwrap();
    assert!(ok);
    assert_eq!(
        text,
        concat!(
            r#"{"ok":true,"mode":"wholePlan","configIndex":0,"#,
            r#""config":{"device":"cpu","backend":"auto","trustPolicy":"checked","vjpMode":"torchLeanTape"},"#,
            r#""kernels":[{"op":"add","capsule":"reference.add","provider":"reference","device":"cpu","configIndex":0}],"#,
            r#""availability":{"devices":["cpu"],"providers":["reference","torchLean"]},"#,
            r#""attempts":[{"configIndex":0,"config":{"device":"cpu","backend":"auto","trustPolicy":"checked","vjpMode":"torchLeanTape"},"ok":true,"ops":[]}]}"#
        )
    );
    let (ok, text) = plan_json(r#"{"ops":["add"],"config":{"device":"cuda"}}"#, &Limits::DEFAULT).unwrap();
    assert!(!ok);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["ok"], false);
    assert!(json.get("kernels").is_none() && json.get("configIndex").is_none());
    assert_eq!(json["attempts"][0]["ops"][0]["message"], "no admissible backend capsule for op add on device cuda");
    assert_eq!(json["attempts"][0]["ops"][0]["candidates"][0]["reason"], "device-mismatch");
}
