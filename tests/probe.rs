//! SPEC §3 as data: `resolve` decides only `webGpu` from a probe report, and
//! planning gates capsules on probed WebGPU capabilities (rejected when unmet,
//! unverified when nothing was probed). The browser probe itself is tested in
//! Chromium (tests/js/browser.test.mjs) and with wasm-bindgen-test.

use backend_targets::{json::*, plan_result::*, probe::web::*, vocab::*, webgpu::*, *};

fn adapter_report() -> ProbeReport {
    ProbeReport {
        available: true,
        reason: ProbeReason::AdapterAvailable,
        message: "fallback adapter google swiftshader".into(),
        api_present: true,
        adapter: Some(AdapterReport {
            info: AdapterInfo {
                vendor: "google".into(),
                architecture: "swiftshader".into(),
                device: String::new(),
                description: String::new(),
            },
            is_fallback_adapter: true,
            features: vec!["float32-filterable".into(), "timestamp-query".into()],
            limits: [
                ("maxStorageBufferBindingSize".to_string(), 1 << 30),
                ("minStorageBufferOffsetAlignment".to_string(), 256),
            ]
            .into(),
        }),
        device_verified: None,
        verification: None,
        timeout_ms: 2000,
        elapsed_ms: 12.5,
    }
}

/// `plan` under the default limits, as every runtime plans unless told otherwise.
fn plan(request: &PlanRequest) -> Result<PlanResult> {
    backend_targets::plan(request, &Limits::DEFAULT)
}

fn unavailable(reason: ProbeReason) -> ProbeReport {
    ProbeReport::unavailable(reason, format!("because {reason}"), reason != ProbeReason::NoNavigator, 2000)
}

#[test]
fn an_answering_adapter_keeps_webgpu_and_carries_its_capabilities() {
    let resolution = resolve(&Target::wasm(), &adapter_report());
    assert_eq!(resolution.effective, Target::wasm());
    assert_eq!(resolution.changes.len(), 1);
    let change = &resolution.changes[0];
    assert_eq!(
        (change.feature, change.action, change.reason),
        (BuildFeature::WebGpu, FeatureAction::Kept, ProbeReason::AdapterAvailable)
    );
    assert_eq!(resolution.availability.devices, [Device::Cpu, Device::Wasm]);
    assert_eq!(resolution.availability.providers, [Provider::Reference, Provider::TorchLean, Provider::WebGpu]);
    let caps = resolution.availability.web_gpu.as_ref().expect("probed capabilities");
    assert!(caps.features.contains(&"timestamp-query".to_string()));
    assert!(resolution.as_declared.is_empty());
}

#[test]
fn allow_fallback_adapter_false_refuses_a_software_adapter_and_keeps_reporting_it() {
    let refuse = ProbeOptions { allow_fallback_adapter: false, ..ProbeOptions::default() };
    assert!(ProbeOptions::default().allow_fallback_adapter, "the default keeps the declared answers");
    let report = adapter_report().under(&refuse);
    assert_eq!((report.available, report.reason), (false, ProbeReason::FallbackAdapter));
    assert_eq!(
        report.message,
        "fallback adapter google swiftshader: a software adapter, refused (allowFallbackAdapter: false): \
         WebGPU kernels would run on the CPU"
    );
    assert!(report.adapter.as_ref().unwrap().is_fallback_adapter, "the adapter is still reported");
    let resolution = resolve(&Target::wasm(), &report);
    assert_eq!(resolution.changes[0].action, FeatureAction::Dropped);
    assert_eq!(resolution.changes[0].reason, ProbeReason::FallbackAdapter);
    assert_eq!(resolution.availability.web_gpu, None);
    // A hardware adapter, the default, and an outcome without an adapter: unchanged.
    let mut hardware = adapter_report();
    hardware.adapter.as_mut().unwrap().is_fallback_adapter = false;
    assert_eq!(hardware.clone().under(&refuse), hardware);
    assert_eq!(adapter_report().under(&ProbeOptions::default()), adapter_report());
    let none = unavailable(ProbeReason::NoAdapter);
    assert_eq!(none.clone().under(&refuse), none);
    // The option in JSON, as JS passes it.
    let options: ProbeOptions = from_json(r#"{"allowFallbackAdapter": false}"#).unwrap();
    assert_eq!(options, refuse);
}

#[test]
fn a_verification_whose_module_could_not_load_drops_webgpu_and_says_why() {
    let cause = "TypeError: import() is disallowed on ServiceWorkerGlobalScope";
    let report = adapter_report().without_verification(cause);
    assert_eq!((report.available, report.reason), (false, ProbeReason::VerifyFailed));
    assert_eq!(
        report.message,
        "fallback adapter google swiftshader: not verified: the verification's module could not be loaded \
         (TypeError: import() is disallowed on ServiceWorkerGlobalScope); where import() is refused, as in a \
         service worker, import backend-targets/verify, which needs none"
    );
    assert!(!report.reason.is_lasting(), "not kept: the next call tries again");
    assert_eq!((report.adapter, report.verification), (adapter_report().adapter, None));
    let resolution = resolve(&Target::wasm(), &adapter_report().without_verification(cause));
    assert_eq!(resolution.changes[0].action, FeatureAction::Dropped);
    assert_eq!(resolution.changes[0].reason, ProbeReason::VerifyFailed);
    assert_eq!(resolution.availability.web_gpu, None);
    // An outcome that kept no adapter is already the answer.
    let refused = adapter_report().under(&ProbeOptions { allow_fallback_adapter: false, ..ProbeOptions::default() });
    assert_eq!(refused.clone().without_verification(cause), refused);
    let none = unavailable(ProbeReason::NoAdapter);
    assert_eq!(none.clone().without_verification(cause), none);
}

#[test]
fn every_unavailable_outcome_drops_webgpu_with_its_reason_and_keeps_the_devices() {
    for &reason in ProbeReason::ALL {
        if reason == ProbeReason::AdapterAvailable {
            continue;
        }
        let resolution = resolve(&Target::wasm(), &unavailable(reason));
        assert!(resolution.effective.features.is_empty(), "{reason}");
        assert_eq!(resolution.changes[0].action, FeatureAction::Dropped);
        assert_eq!(resolution.changes[0].reason, reason);
        assert_eq!(resolution.availability.devices, [Device::Cpu, Device::Wasm], "devices stay");
        assert_eq!(resolution.availability.providers, [Provider::Reference, Provider::TorchLean]);
        assert!(resolution.availability.web_gpu.is_none());
    }
}

#[test]
fn native_targets_and_other_features_stay_as_declared() {
    for preset in presets() {
        for report in [adapter_report(), unavailable(ProbeReason::NoAdapter)] {
            let resolution = resolve(&preset.target, &report);
            if preset.name == Preset::Wasm {
                continue;
            }
            assert_eq!(resolution.effective, preset.target, "{}", preset.name);
            assert!(resolution.changes.is_empty(), "{}", preset.name);
            assert_eq!(resolution.as_declared, preset.target.features);
            assert_eq!(resolution.availability.devices, preset.target.devices());
            assert_eq!(resolution.availability.providers, preset.target.providers());
        }
    }
    // webGpu next to other features: only webGpu is decided.
    let mixed =
        Target { features: vec![BuildFeature::Xla, BuildFeature::WebGpu, BuildFeature::Neuron], ..Target::wasm() };
    let resolution = resolve(&mixed, &unavailable(ProbeReason::Timeout));
    assert_eq!(resolution.effective.features, [BuildFeature::Xla, BuildFeature::Neuron]);
    assert_eq!(resolution.as_declared, [BuildFeature::Xla, BuildFeature::Neuron]);
}

fn webgpu_capsule(name: &str, requires: Option<WebGpuRequirements>) -> KernelCapsule {
    KernelCapsule {
        name: name.into(),
        op: BackendOp::Matmul,
        provider: Provider::WebGpu,
        device: Device::Wasm,
        trust_level: TrustLevel::Checked,
        supports_forward: true,
        vjp_mode: VJPMode::TorchLeanTape,
        requires,
    }
}

fn requires(features: &[&str], limits: &[(&str, u64)]) -> Option<WebGpuRequirements> {
    Some(WebGpuRequirements {
        features: features.iter().map(|s| s.to_string()).collect(),
        limits: limits.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    })
}

fn plan_with(availability: Availability, catalog: Vec<KernelCapsule>) -> PlanResult {
    let mut request = PlanRequest::new(vec![BackendOp::Matmul]);
    request.availability = Some(availability);
    request.capsules = Some(catalog);
    request.config = Some(ExecutionConfig { device: Device::Wasm, ..ExecutionConfig::default() });
    plan(&request).unwrap()
}

#[test]
fn probed_capabilities_gate_capsules_with_reason_codes() {
    let probed = resolve(&Target::wasm(), &adapter_report()).availability;
    let catalog = vec![
        webgpu_capsule("needs-f16", requires(&["shader-f16"], &[])),
        webgpu_capsule("needs-2GiB", requires(&[], &[("maxStorageBufferBindingSize", 1 << 31)])),
        webgpu_capsule("needs-unknown-limit", requires(&[], &[("maxMadeUpThing", 1)])),
        webgpu_capsule("needs-alignment-64", requires(&[], &[("minStorageBufferOffsetAlignment", 64)])),
        webgpu_capsule(
            "fits",
            requires(
                &["timestamp-query"],
                &[("maxStorageBufferBindingSize", 1 << 27), ("minStorageBufferOffsetAlignment", 256)],
            ),
        ),
    ];
    let result = plan_with(probed, catalog);
    assert!(result.ok);
    assert_eq!(result.kernels.as_ref().unwrap()[0].capsule, "fits");
    let candidates = &result.attempts[0].ops[0].candidates();
    let reasons: Vec<_> = candidates.iter().map(|c| c.reason).collect();
    use RejectionReason as R;
    assert_eq!(
        reasons,
        [
            Some(R::WebGpuFeatureMissing),
            Some(R::WebGpuLimitTooLow),
            Some(R::WebGpuLimitTooLow),
            Some(R::WebGpuLimitTooLow),
            None
        ]
    );
    assert!(candidates[0].detail.contains("shader-f16"), "{}", candidates[0].detail);
    assert!(candidates[1].detail.contains("maxStorageBufferBindingSize is 1073741824"), "{}", candidates[1].detail);
    assert!(candidates[2].detail.contains("reports no limit maxMadeUpThing"), "{}", candidates[2].detail);
    assert!(candidates[3].detail.contains("at most 64"), "{}", candidates[3].detail);
    assert!(candidates.iter().all(|c| !c.unverified));
}

#[test]
fn a_declared_availability_admits_requirements_unverified() {
    let declared = Target::wasm().declared_availability();
    let result = plan_with(declared, vec![webgpu_capsule("needs-f16", requires(&["shader-f16"], &[]))]);
    assert!(result.ok);
    let candidate = &result.attempts[0].ops[0].candidates()[0];
    assert_eq!(candidate.verdict, Verdict::Chosen);
    assert!(candidate.unverified);
    assert!(candidate.detail.contains("unverified"), "{}", candidate.detail);
    assert!(to_json(&result).contains(r#""unverified":true"#));
}

#[test]
fn a_server_can_recheck_a_client_plan_from_the_probed_availability_json() {
    let client = resolve(&Target::wasm(), &adapter_report());
    let request = format!(
        r#"{{"ops":["matmul"],"config":{{"device":"wasm"}},"availability":{},"capsules":[{}]}}"#,
        to_json(&client.availability),
        to_json(&webgpu_capsule("needs-f16", requires(&["shader-f16"], &[]))),
    );
    let result = plan(&parse_plan_request(&request, &Limits::DEFAULT).unwrap()).unwrap();
    assert!(!result.ok);
    assert_eq!(result.attempts[0].ops[0].candidates()[0].reason, Some(RejectionReason::WebGpuFeatureMissing));
}

#[test]
fn probe_reports_round_trip_strictly() {
    for report in [adapter_report(), unavailable(ProbeReason::NoWebGpuApi)] {
        let parsed: ProbeReport = from_json(&to_json(&report)).unwrap();
        assert_eq!(parsed, report);
    }
    let error = from_json::<ProbeReport>(r#"{"available":true}"#).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::MissingField, "reason"));
    let options = from_json::<ProbeOptions>(r#"{"timeoutMs": 50, "powerPreference": "low-power"}"#).unwrap();
    assert_eq!(options.timeout_ms, 50);
    let error = from_json::<ProbeOptions>(r#"{"powerPreference": "fast"}"#).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownVariant);
    assert_eq!(error.expected, ["low-power", "high-performance"]);
    let error = from_json::<Availability>(r#"{"webGpu":{"limits":{"maxBufferSize":-1}}}"#).unwrap_err();
    assert_eq!(error.path, "webGpu.limits.maxBufferSize");
    let error = from_json::<Availability>(r#"{"webGpu":{"limits":{"a":1,"a":2}}}"#).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::DuplicateField, "webGpu.limits.a"));
}

/// A verification's figures as the browser would fill them.
fn verification(gpu_ms: f64, wasm_ms: f64) -> probe::verify::Verification {
    use backend_targets::probe::verify::*;
    Verification {
        workload: workload_text(PASSES),
        checked: vec![VerifyPrecision::F32],
        gpu_ms: Some(gpu_ms),
        gpu_ms_more_than: None,
        wasm_ms: Some(wasm_ms),
        ratio: Some(gpu_ms / wasm_ms),
        timer_resolution_ms: 0.1,
        margin: SPEED_MARGIN,
        max_error: Some(1.5e-7),
        max_error_at: Some("17 (f32)".into()),
        tolerance: F32_TOLERANCE,
        budget_ms: DEFAULT_VERIFY_BUDGET_MS,
        elapsed_ms: 120.0,
        adapter_key: "backend-targets:verify:0123456789abcdef".into(),
        cached: false,
        not_kept: None,
        kept_at: None,
    }
}

#[test]
fn a_verdict_keeps_webgpu_only_when_verified_and_says_why_with_its_figures() {
    let adapter = adapter_report();
    let kept = adapter.clone().with_verdict(WebGpuVerdict::new(
        ProbeReason::Verified,
        "",
        &adapter.message,
        verification(0.4, 2.9),
    ));
    assert!(kept.available);
    assert_eq!(
        kept.message,
        "fallback adapter google swiftshader: verified: right numbers (f32), 0.4 ms a pass on the GPU against 2.9 ms in \
         WebAssembly"
    );
    let resolution = resolve(&Target::wasm(), &kept);
    assert_eq!(
        (resolution.changes[0].action, resolution.changes[0].reason),
        (FeatureAction::Kept, ProbeReason::Verified)
    );
    assert!(resolution.effective.features.contains(&BuildFeature::WebGpu));
    assert!(resolution.availability.web_gpu.is_some(), "a verified adapter's capabilities are planned against");

    let slow = adapter.clone().with_verdict(WebGpuVerdict::new(
        ProbeReason::SlowerThanWasm,
        "",
        &adapter.message,
        verification(41.25, 2.5),
    ));
    assert!(!slow.available);
    assert_eq!(
        slow.message,
        "fallback adapter google swiftshader: slower than WebAssembly: 41.25 ms a pass on the GPU against 2.5 ms in \
         WebAssembly (more than 1.1 times)"
    );
    // A run the budget stopped: a lower bound, said as one, and no ratio.
    let stopped = probe::verify::Verification {
        gpu_ms: None,
        gpu_ms_more_than: Some(12.5),
        ratio: None,
        timer_resolution_ms: 1.0,
        ..verification(1.0, 2.5)
    };
    let bounded =
        adapter.clone().with_verdict(WebGpuVerdict::new(ProbeReason::SlowerThanWasm, "", &adapter.message, stopped));
    assert_eq!(
        bounded.message,
        "fallback adapter google swiftshader: slower than WebAssembly: more than 12.5 ms a pass on the GPU (its run \
         stopped there, at the budget) against 2.5 ms in WebAssembly (more than 1.1 times)"
    );
    let text = to_json(&bounded);
    assert!(text.contains(r#""gpuMsMoreThan":12.5"#) && !text.contains(r#""gpuMs""#) && !text.contains(r#""ratio""#));
    assert!(text.contains(r#""timerResolutionMs":1"#), "{text}");
    for reason in [
        ProbeReason::SlowerThanWasm,
        ProbeReason::WrongResults,
        ProbeReason::DeviceLost,
        ProbeReason::VerifyFailed,
        ProbeReason::VerifyTimeout,
    ] {
        let report = adapter.clone().with_verdict(WebGpuVerdict::new(
            reason,
            "in its words",
            &adapter.message,
            verification(1.0, 1.0),
        ));
        let resolution = resolve(&Target::wasm(), &report);
        assert_eq!((resolution.changes[0].action, resolution.changes[0].reason), (FeatureAction::Dropped, reason));
        assert!(!resolution.effective.features.contains(&BuildFeature::WebGpu), "{reason}");
        assert!(!resolution.availability.providers.contains(&Provider::WebGpu), "{reason}");
        assert!(resolution.availability.web_gpu.is_none(), "{reason}");
        if reason != ProbeReason::SlowerThanWasm {
            assert_eq!(report.message, "fallback adapter google swiftshader: in its words");
        }
        // Only what the adapter computed lasts: faults and timeouts are verified again.
        assert_eq!(
            reason.is_lasting(),
            matches!(reason, ProbeReason::SlowerThanWasm | ProbeReason::WrongResults),
            "{reason}"
        );
    }
    assert!(ProbeReason::Verified.is_lasting());
    // The verdict and its figures round-trip through the cache's text.
    let verdict = WebGpuVerdict::new(ProbeReason::Verified, "", "adapter", verification(0.25, 3.0));
    assert_eq!(from_json::<WebGpuVerdict>(&to_json(&verdict)).unwrap(), verdict);
    // A report with its verification reads back as it was written (`resolve` in JS).
    assert_eq!(from_json::<ProbeReport>(&to_json(&kept)).unwrap(), kept);
}

#[test]
fn a_report_without_verification_is_written_as_before() {
    let text = to_json(&adapter_report());
    assert!(!text.contains("verification"), "{text}");
    let options: ProbeOptions = from_json(r#"{"allowFallbackAdapter":false}"#).unwrap();
    assert_eq!(options.verify, None);
    assert_eq!(
        to_json(&options),
        r#"{"timeoutMs":2000,"forceFallbackAdapter":false,"verifyDevice":false,"allowFallbackAdapter":false}"#
    );
}

/// The one reader of kept verdicts (every entry of the package asks it):
/// the form this build writes, for the key asked, younger than seven days,
/// not kept "in the future". Anything else is no verdict (the adapter is
/// verified afresh), never an error.
#[test]
fn a_kept_verdict_is_read_by_the_core_alone_and_strictly() {
    const DAY: f64 = 24.0 * 3600.0 * 1000.0;
    let key = "backend-targets:verify:0123456789abcdef";
    let now = 1.8e12;
    let verdict = WebGpuVerdict::new(ProbeReason::Verified, "", "adapter", verification(0.25, 3.0));
    let kept = |at: f64| to_json(&KeptVerdict { at, verdict: verdict.clone() });
    assert_eq!(VERDICT_MAX_AGE_MS, 7.0 * DAY);
    assert_eq!(KeptVerdict::read(&kept(now - DAY), key, now), Some(verdict.clone()));
    assert_eq!(KeptVerdict::read(&kept(now), key, now), Some(verdict.clone()), "kept this very moment");
    assert_eq!(KeptVerdict::read(&kept(now - 7.0 * DAY + 1.0), key, now), Some(verdict.clone()));
    assert_eq!(KeptVerdict::read(&kept(now - 7.0 * DAY), key, now), None, "seven days old");
    assert_eq!(KeptVerdict::read(&kept(now + 60_000.0), key, now), None, "kept while the clock ran a minute ahead");
    assert_eq!(KeptVerdict::read(&kept(now + 365.0 * DAY), key, now), None, "a year ahead");
    assert_eq!(KeptVerdict::read(&kept(now), "backend-targets:verify:fedcba9876543210", now), None, "another key");
    // Texts the core does not read: no verdict, whatever they say.
    let text = kept(now);
    let verdict_text = to_json(&verdict);
    let refused = [
        String::new(),
        "null".into(),
        "not JSON".into(),
        // The previous form: the verdict as text inside the text.
        format!(r#"{{"at":{now},"verdict":{}}}"#, to_json(&verdict_text)),
        // A duplicate reason, an unknown top-level field, an unknown field of the figures.
        text.replacen(r#""reason":"verified""#, r#""reason":"verified","reason":"verified""#, 1),
        text.replacen('{', r#"{"surprise":1,"#, 1),
        text.replacen(r#""cached":false"#, r#""cached":false,"surprise":true"#, 1),
        text.replacen('{', r#"{"__proto__":{},"#, 1),
        // A missing message, a wrong type.
        text.replacen(r#""message":"adapter: "#, r#""msg":"adapter: "#, 1),
        text.replacen(r#""cached":false"#, r#""cached":"no""#, 1),
        text.replacen(&format!(r#""at":{now}"#), r#""at":"yesterday""#, 1),
    ];
    for text in refused {
        assert_eq!(KeptVerdict::read(&text, key, now), None, "{text}");
    }
    // Applied to a probe report as the cache's answer.
    let report = adapter_report();
    let applied = report.with_kept_verdict(&kept(now - DAY), key, now).unwrap();
    assert!(applied.available);
    let figures = applied.verification.unwrap();
    assert!(figures.cached);
    assert_eq!(figures.elapsed_ms, 0.0);
    assert_eq!(figures.kept_at, Some(now - DAY), "when it was measured and kept");
    assert_eq!(report.with_kept_verdict("{}", key, now), None);
}

/// A kept verdict's form is versioned in its cache key (`VERDICT_FORMAT`):
/// this test lists the form's fields, so that changing them fails here
/// until the version is raised (and this list written again).
#[test]
fn the_kept_verdicts_form_is_versioned() {
    fn fields(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        if let serde_json::Value::Object(map) = value {
            for (key, item) in map {
                let here = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                out.push(here.clone());
                fields(item, &here, out);
            }
        }
    }
    let mut full = verification(0.25, 3.0);
    full.gpu_ms_more_than = Some(1.0);
    full.not_kept = Some("n".into());
    full.kept_at = Some(2.0);
    let kept = KeptVerdict { at: 1.0, verdict: WebGpuVerdict::new(ProbeReason::Verified, "", "a", full) };
    let mut names = Vec::new();
    fields(&serde_json::from_str(&to_json(&kept)).unwrap(), "", &mut names);
    names.sort();
    assert_eq!(
        (VERDICT_FORMAT, names.join(" ")),
        (
            3,
            "at verdict verdict.message verdict.reason verdict.verification verdict.verification.adapterKey \
             verdict.verification.budgetMs verdict.verification.cached verdict.verification.checked \
             verdict.verification.elapsedMs verdict.verification.gpuMs verdict.verification.gpuMsMoreThan \
             verdict.verification.keptAt \
             verdict.verification.margin verdict.verification.maxError verdict.verification.maxErrorAt \
             verdict.verification.notKept verdict.verification.ratio verdict.verification.timerResolutionMs \
             verdict.verification.tolerance verdict.verification.wasmMs verdict.verification.workload"
                .to_string()
        ),
        "the kept verdict's form changed: raise VERDICT_FORMAT (src/probe/web.rs) and write the new list here"
    );
}
