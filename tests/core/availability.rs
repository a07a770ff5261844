//! §4 Availability, execution config, trust.

use super::*;

#[test]
fn availability_admits_device_and_provider_together() {
    let availability =
        Availability { devices: vec![D::Cpu, D::Wasm], providers: vec![P::Reference, P::WebGpu], web_gpu: None };
    let table = [
        (D::Cpu, P::Reference, true),
        (D::Wasm, P::WebGpu, true),
        (D::Cpu, P::WebGpu, true),
        (D::Cuda, P::Reference, false),
        (D::Cpu, P::TorchLean, false),
        (D::Cuda, P::TorchLean, false),
    ];
    for (device, provider, admitted) in table {
        assert_eq!(availability.admits(device, provider), admitted, "{device} {provider}");
    }
}

#[test]
fn execution_config_defaults_and_json() {
    let default = ExecutionConfig::default();
    assert_eq!(
        default,
        ExecutionConfig {
            device: D::Cpu,
            backend: BackendPreference::Auto,
            trust_policy: TrustPolicy::Checked,
            vjp_mode: VJPMode::TorchLeanTape,
        }
    );
    assert_eq!(from_json::<ExecutionConfig>("{}").unwrap(), default);
    assert_eq!(
        to_json(&default),
        r#"{"device":"cpu","backend":"auto","trustPolicy":"checked","vjpMode":"torchLeanTape"}"#
    );
    let backends = [
        (r#""auto""#, BackendPreference::Auto),
        (r#"{"prefer":"webGpu"}"#, BackendPreference::Prefer(P::WebGpu)),
        (r#"{"only":"libTorch"}"#, BackendPreference::Only(P::LibTorch)),
    ];
    for (json, backend) in backends {
        assert_eq!(from_json::<BackendPreference>(json).unwrap(), backend, "{json}");
        assert_eq!(to_json(&backend), json);
    }
    assert_eq!(BackendPreference::default(), BackendPreference::Auto);
    let error = from_json::<BackendPreference>(r#"{"prefer":"webgpu"}"#).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownVariant);
    assert_eq!(error.path, "prefer");
    assert_eq!(error.expected, Provider::SPELLINGS);
    let error = from_json::<BackendPreference>(r#""Auto""#).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownVariant);
    assert_eq!(error.expected, ["auto", "prefer", "only"]);
}

#[test]
fn trust_policy_table() {
    use TrustLevel as L;
    use TrustPolicy as T;
    let levels = [L::Verified, L::Checked, L::Fuzzed, L::TrustedExternal];
    // SPEC §4: rows are policies, columns verified, checked, fuzzed, trustedExternal.
    let table = [
        (T::VerifiedOnly, [true, false, false, false]),
        (T::Checked, [true, true, false, false]),
        (T::FuzzedOk, [true, true, true, false]),
        (T::AllowTrustedExternal, [true, true, true, true]),
    ];
    let mut cells = 0;
    for (policy, row) in table {
        for (level, accepted) in levels.into_iter().zip(row) {
            assert_eq!(policy.accepts(level), accepted, "{policy} × {level}");
            // The same cell through admissibility and the planner's reason.
            let capsule = KernelCapsule { trust_level: level, ..cpu_capsule("k", Op::Add) };
            let config = ExecutionConfig { trust_policy: policy, vjp_mode: VJPMode::None, ..Default::default() };
            let availability = Availability::default();
            assert_eq!(is_admissible(&capsule, Op::Add, &config, &availability), accepted);
            let reason = first_reason(&[capsule], Op::Add, &config, &availability);
            assert_eq!(reason, (!accepted).then_some(RejectionReason::TrustRefused));
            cells += 1;
        }
    }
    assert_eq!(cells, 16);
}

#[test]
fn vjp_rule_five_table() {
    use VJPMode as V;
    let modes = [V::None, V::TorchLeanTape, V::BackendVjp, V::ExternalAutograd];
    // Rows: the config's vjpMode; columns: the capsule's vjpMode in `modes` order.
    let table = [
        (V::None, [true, true, true, true]),
        (V::TorchLeanTape, [false, true, true, false]),
        (V::BackendVjp, [false, false, true, false]),
        (V::ExternalAutograd, [false, false, false, true]),
    ];
    let availability = Availability::default();
    for (config_mode, row) in table {
        for (capsule_mode, served) in modes.into_iter().zip(row) {
            let config = ExecutionConfig { vjp_mode: config_mode, ..Default::default() };
            for op in [Op::Matmul, Op::Add, Op::RandUniform, Op::BernoulliMask] {
                // Ops that need no VJP are served by any capsule.
                let expected = served || !op.requires_vjp();
                assert_eq!(config_mode.is_served_by(capsule_mode, op), expected, "{config_mode} {capsule_mode} {op}");
                let capsule = KernelCapsule { vjp_mode: capsule_mode, ..cpu_capsule("k", op) };
                assert_eq!(is_admissible(&capsule, op, &config, &availability), expected);
                let reason = first_reason(&[capsule], op, &config, &availability);
                assert_eq!(reason, (!expected).then_some(RejectionReason::VjpIncompatible));
            }
        }
    }
}

#[test]
fn backend_preference_allows() {
    for &provider in Provider::ALL {
        assert!(BackendPreference::Auto.allows(provider));
        assert_eq!(BackendPreference::Auto.preferred(), None);
        for &other in Provider::ALL {
            assert!(BackendPreference::Prefer(other).allows(provider), "prefer({other}) {provider}");
            assert_eq!(BackendPreference::Only(other).allows(provider), other == provider);
        }
        assert_eq!(BackendPreference::Prefer(provider).preferred(), Some(provider));
        assert_eq!(BackendPreference::Only(provider).preferred(), None);
    }
}
