//! Integration tests of every rule of `SPEC.md`, through the public Rust API:
//! the spellings of §1, targets and presets of §2, availability, configs and
//! trust of §4, admissibility and the planner of §5, and the plan request of
//! §6 (validation and strict JSON errors). Tables mirror the SPEC's tables so
//! that a reader can check one against the other.

use backend_targets::*;
use backend_targets::{from_json, to_json};

use BackendOp as Op;
use Device as D;
use Provider as P;

// ---------------------------------------------------------------------------
// §1 Spellings
// ---------------------------------------------------------------------------

/// For every variant of a vocabulary: `Display` == `as_str()` == the serde
/// JSON string; `FromStr` and serde round-trip; `ALL`/`SPELLINGS` agree; a
/// bad spelling fails with `UnknownVariant` listing `SPELLINGS`.
macro_rules! check_vocabulary {
    ($ty:ty) => {{
        let name = stringify!($ty);
        assert_eq!(<$ty>::ALL.len(), <$ty>::SPELLINGS.len(), "{name}");
        for (index, (&value, &spelling)) in <$ty>::ALL.iter().zip(<$ty>::SPELLINGS).enumerate() {
            assert_eq!(value.as_str(), spelling, "{name}");
            assert_eq!(value.to_string(), spelling, "{name}");
            assert_eq!(value.index(), index, "{name}");
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("\"{spelling}\""), "{name}");
            assert_eq!(to_json(&value), json, "{name}");
            assert_eq!(spelling.parse::<$ty>().unwrap(), value, "{name}");
            assert_eq!(<$ty>::from_spelling(spelling), Some(value), "{name}");
            assert_eq!(serde_json::from_str::<$ty>(&json).unwrap(), value, "{name}");
            assert_eq!(from_json::<$ty>(&json).unwrap(), value, "{name}");
            // Spellings are case-sensitive.
            let mut chars = spelling.chars();
            let first = chars.next().unwrap();
            let recased: String = first.to_uppercase().chain(chars).collect();
            if recased != spelling {
                let error = recased.parse::<$ty>().unwrap_err();
                assert_eq!(error.code, ErrorCode::UnknownVariant, "{name} {recased}");
            }
        }
        let expected: Vec<String> = <$ty>::SPELLINGS.iter().map(|s| s.to_string()).collect();
        for bad in ["", "bogus", " none", "cpu ", "CPU", "Add"] {
            if <$ty>::from_spelling(bad).is_some() {
                continue;
            }
            let error = bad.parse::<$ty>().unwrap_err();
            assert_eq!(error.code, ErrorCode::UnknownVariant, "{name} {bad:?}");
            assert_eq!(error.expected, expected, "{name} {bad:?}");
            assert!(error.message.contains(bad), "{name}: {}", error.message);
            let error = from_json::<$ty>(&serde_json::to_string(bad).unwrap()).unwrap_err();
            assert_eq!(error.code, ErrorCode::UnknownVariant, "{name} {bad:?} (JSON)");
            assert_eq!(error.expected, expected, "{name} {bad:?} (JSON)");
            assert_eq!(error.path, "", "{name} {bad:?} (JSON)");
        }
        // A non-string is a wrong type, not a bad spelling.
        let error = from_json::<$ty>("3").unwrap_err();
        assert_eq!(error.code, ErrorCode::WrongType, "{name}");
    }};
}

#[test]
fn every_vocabulary_round_trips_through_every_spelling() {
    check_vocabulary!(OperatingSystem);
    check_vocabulary!(Architecture);
    check_vocabulary!(Accelerator);
    check_vocabulary!(BuildFeature);
    check_vocabulary!(Device);
    check_vocabulary!(Provider);
    check_vocabulary!(TrustLevel);
    check_vocabulary!(TrustPolicy);
    check_vocabulary!(VJPMode);
    check_vocabulary!(BackendOp);
    check_vocabulary!(Preset);
    check_vocabulary!(SchemaName);
    check_vocabulary!(ErrorCode);
    check_vocabulary!(RejectionReason);
    check_vocabulary!(PlanMode);
    check_vocabulary!(Verdict);
}

#[test]
fn the_exported_vocabulary_walker_covers_the_same_tables() {
    let mut walked = 0;
    macro_rules! walk {
        ($ty:ty) => {{
            check_vocabulary!($ty);
            walked += 1;
        }};
    }
    backend_targets::for_each_vocabulary!(walk);
    assert_eq!(walked, 19); // every spelled enum, Verdict and the probe vocabularies included
}

/// SPEC §1's table, value for value and in order.
#[test]
fn vocabularies_have_the_spec_values_in_the_spec_order() {
    let table: [(&str, &[&str], &[&str]); 9] = [
        ("OperatingSystem", OperatingSystem::SPELLINGS, &["linux", "macOS", "windows", "wasi", "unknown"]),
        ("Architecture", Architecture::SPELLINGS, &["x86_64", "aarch64", "wasm32", "unknown"]),
        (
            "Accelerator",
            Accelerator::SPELLINGS,
            &["none", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"],
        ),
        (
            "BuildFeature",
            BuildFeature::SPELLINGS,
            &[
                "nativeCuda",
                "libTorch",
                "aten",
                "mps",
                "webGpu",
                "cuBLAS",
                "cuDNN",
                "cuFFT",
                "xla",
                "neuron",
                "customChip",
                "externalProvider",
            ],
        ),
        (
            "Device",
            Device::SPELLINGS,
            &["cpu", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"],
        ),
        (
            "Provider",
            Provider::SPELLINGS,
            &[
                "reference",
                "torchLean",
                "nativeCuda",
                "libTorch",
                "aten",
                "mps",
                "webGpu",
                "cuBLAS",
                "cuDNN",
                "cuFFT",
                "xla",
                "neuron",
                "customChip",
                "external",
            ],
        ),
        ("TrustLevel", TrustLevel::SPELLINGS, &["verified", "checked", "fuzzed", "trustedExternal"]),
        ("TrustPolicy", TrustPolicy::SPELLINGS, &["verifiedOnly", "checked", "fuzzedOk", "allowTrustedExternal"]),
        ("VJPMode", VJPMode::SPELLINGS, &["none", "torchLeanTape", "backendVJP", "externalAutograd"]),
    ];
    for (name, actual, expected) in table {
        assert_eq!(actual, expected, "{name}");
    }
    assert_eq!(OperatingSystem::TYPE_NAME, "OperatingSystem");
    assert_eq!(VJPMode::TYPE_NAME, "VJPMode");
}

/// The 68 ops of SPEC §1 in order, each with its snake_case report name
/// (`None` where the report name is the canonical spelling).
const OPS: [(&str, Option<&str>); 68] = [
    ("randUniform", Some("rand_uniform")),
    ("bernoulliMask", Some("bernoulli_mask")),
    ("add", None),
    ("sub", None),
    ("mul", None),
    ("scale", None),
    ("abs", None),
    ("sqrt", None),
    ("clamp", None),
    ("max", None),
    ("min", None),
    ("relu", None),
    ("gelu", None),
    ("sigmoid", None),
    ("tanh", None),
    ("softplus", None),
    ("exp", None),
    ("log", None),
    ("sin", None),
    ("cos", None),
    ("inv", None),
    ("safeLog", Some("safe_log")),
    ("logSoftmax", Some("log_softmax")),
    ("softmax", None),
    ("sum", None),
    ("reduceSum", Some("reduce_sum")),
    ("reduceMean", Some("reduce_mean")),
    ("flatten", None),
    ("reshape", None),
    ("permute", None),
    ("transpose2d", None),
    ("swapAdjacentAtDepth", None),
    ("transpose3dFirstToLast", Some("transpose3d_first_to_last")),
    ("transpose3dLastToFirst", Some("transpose3d_last_to_first")),
    ("transpose3dLastTwo", Some("transpose3d_last_two")),
    ("broadcastTo", None),
    ("concatVectors", Some("concat_vectors")),
    ("concatLeadingAxis", Some("concat_leading_axis")),
    ("sliceLeadingAxisRange", Some("slice_leading_axis_range")),
    ("gatherScalar", Some("gather_scalar")),
    ("gatherScalarNat", Some("gather_scalar_nat")),
    ("gatherRow", Some("gather_row")),
    ("gatherVecNat", Some("gather_vec_nat")),
    ("gatherRowsNat", Some("gather_rows_nat")),
    ("scatterAddVec", Some("scatter_add_vec")),
    ("scatterAddRow", Some("scatter_add_row")),
    ("matmul", None),
    ("bmm", None),
    ("linear", None),
    ("mseLoss", Some("mse_loss")),
    ("layerNorm", Some("layer_norm")),
    ("batchNorm", Some("batch_norm")),
    ("batchNormChannelFirst", Some("batchnorm_channel_first")),
    ("conv", None),
    ("conv2d", None),
    ("convTranspose", Some("conv_transpose")),
    ("convTranspose2d", Some("conv_transpose2d")),
    ("maxPool", Some("max_pool")),
    ("maxPool2d", Some("max_pool2d")),
    ("maxPool2dPad", Some("max_pool2d_pad")),
    ("smoothMaxPool", Some("smooth_max_pool")),
    ("smoothMaxPool2d", Some("smooth_max_pool2d")),
    ("avgPool", Some("avg_pool")),
    ("avgPool2d", Some("avg_pool2d")),
    ("avgPool2dPad", Some("avg_pool2d_pad")),
    ("fftFno", Some("fft_fno")),
    ("selectiveScan", Some("selective_scan")),
    ("scaledDotProductAttention", Some("scaled_dot_product_attention")),
];

#[test]
fn backend_ops_are_the_68_of_the_spec_in_order() {
    let spec: Vec<&str> = OPS.iter().map(|(name, _)| *name).collect();
    assert_eq!(BackendOp::SPELLINGS, spec.as_slice());
    assert_eq!(BackendOp::ALL.len(), 68);
}

#[test]
fn every_snake_case_report_name_parses_to_its_op() {
    let mut aliases = 0;
    for (index, (canonical, alias)) in OPS.iter().enumerate() {
        let op = BackendOp::ALL[index];
        assert_eq!(op.as_str(), *canonical);
        let Some(alias) = alias else { continue };
        aliases += 1;
        assert_eq!(alias.parse::<BackendOp>().unwrap(), op, "{alias}");
        assert_eq!(from_json::<BackendOp>(&format!("\"{alias}\"")).unwrap(), op, "{alias}");
        // An alias parses, but the canonical spelling is what comes out.
        assert_eq!(to_json(&alias.parse::<BackendOp>().unwrap()), format!("\"{canonical}\""));
    }
    assert_eq!(aliases, 36);
    // Ops whose canonical spelling is already snake_case have no other name.
    assert!("Matmul".parse::<BackendOp>().is_err());
    assert!("batch_norm_channel_first".parse::<BackendOp>().is_err());
    // Aliases are accepted inside a request too.
    let request = parse_plan_request(r#"{"ops": ["log_softmax", "scaled_dot_product_attention"]}"#).unwrap();
    assert_eq!(request.ops, [Op::LogSoftmax, Op::ScaledDotProductAttention]);
}

#[test]
fn requires_vjp_is_false_only_for_the_two_random_ops() {
    for &op in BackendOp::ALL {
        let random = matches!(op, Op::RandUniform | Op::BernoulliMask);
        assert_eq!(op.requires_vjp(), !random, "{op}");
    }
}

// ---------------------------------------------------------------------------
// §2 Targets and presets
// ---------------------------------------------------------------------------

fn target(os: OperatingSystem, arch: Architecture, accelerator: Accelerator, features: &[BuildFeature]) -> Target {
    Target { os, arch, accelerator, features: features.to_vec() }
}

#[test]
fn target_defaults() {
    let default = Target::default();
    assert_eq!(default, target(OperatingSystem::Unknown, Architecture::Unknown, Accelerator::None, &[]));
    assert_eq!(parse_target("{}").unwrap(), default);
    assert_eq!(to_json(&default), r#"{"os":"unknown","arch":"unknown","accelerator":"none","features":[]}"#);
}

#[test]
fn accelerator_to_device_map() {
    use Accelerator as A;
    let table = [
        (A::None, None),
        (A::Cuda, Some(D::Cuda)),
        (A::Rocm, Some(D::Rocm)),
        (A::Metal, Some(D::Metal)),
        (A::Wasm, Some(D::Wasm)),
        (A::Tpu, Some(D::Tpu)),
        (A::Trainium, Some(D::Trainium)),
        (A::Custom, Some(D::Custom)),
        (A::External, Some(D::External)),
    ];
    assert_eq!(table.len(), A::ALL.len());
    for (accelerator, device) in table {
        assert_eq!(accelerator.device(), device, "{accelerator}");
        // Every device but none is the device of the same name.
        if let Some(device) = device {
            assert_eq!(device.as_str(), accelerator.as_str());
        }
        let t = Target { accelerator, ..Target::default() };
        let expected: Vec<Device> = std::iter::once(D::Cpu).chain(device).collect();
        assert_eq!(t.devices(), expected, "{accelerator}");
    }
}

#[test]
fn build_feature_to_provider_map() {
    use BuildFeature as F;
    let table = [
        (F::NativeCuda, P::NativeCuda),
        (F::LibTorch, P::LibTorch),
        (F::Aten, P::Aten),
        (F::Mps, P::Mps),
        (F::WebGpu, P::WebGpu),
        (F::CuBlas, P::CuBlas),
        (F::CuDnn, P::CuDnn),
        (F::CuFft, P::CuFft),
        (F::Xla, P::Xla),
        (F::Neuron, P::Neuron),
        (F::CustomChip, P::CustomChip),
        (F::ExternalProvider, P::External),
    ];
    assert_eq!(table.len(), F::ALL.len());
    for (feature, provider) in table {
        assert_eq!(feature.provider(), provider, "{feature}");
        if feature != F::ExternalProvider {
            assert_eq!(provider.as_str(), feature.as_str());
        }
    }
}

#[test]
fn providers_follow_feature_order() {
    use BuildFeature as F;
    let t = target(
        OperatingSystem::Linux,
        Architecture::X86_64,
        Accelerator::None,
        &[F::ExternalProvider, F::CuFft, F::Aten, F::NativeCuda],
    );
    assert_eq!(t.devices(), [D::Cpu]);
    assert_eq!(t.providers(), [P::Reference, P::TorchLean, P::External, P::CuFft, P::Aten, P::NativeCuda]);
    let availability = t.declared_availability();
    assert_eq!(availability.devices, t.devices());
    assert_eq!(availability.providers, t.providers());
}

fn options(os: Option<OperatingSystem>, arch: Option<Architecture>, enable_lib_torch: Option<bool>) -> PresetOptions {
    PresetOptions { os, arch, enable_lib_torch }
}

/// SPEC §2's preset table, with default parameters.
fn preset_table() -> Vec<(Preset, Target)> {
    use Accelerator as A;
    use Architecture as Ar;
    use BuildFeature as F;
    use OperatingSystem as O;
    vec![
        (Preset::PortableCpu, target(O::Unknown, Ar::Unknown, A::None, &[])),
        (Preset::LinuxCpu, target(O::Linux, Ar::X86_64, A::None, &[])),
        (Preset::MacOSCpu, target(O::MacOS, Ar::Aarch64, A::None, &[])),
        (Preset::WindowsCpu, target(O::Windows, Ar::X86_64, A::None, &[])),
        (Preset::LinuxCuda, target(O::Linux, Ar::X86_64, A::Cuda, &[F::NativeCuda, F::CuBlas, F::CuFft])),
        (Preset::WindowsCuda, target(O::Windows, Ar::X86_64, A::Cuda, &[F::NativeCuda, F::CuBlas, F::CuFft])),
        (Preset::LinuxRocm, target(O::Linux, Ar::X86_64, A::Rocm, &[])),
        (Preset::MacOSMetal, target(O::MacOS, Ar::Aarch64, A::Metal, &[F::Mps])),
        (Preset::Wasm, target(O::Wasi, Ar::Wasm32, A::Wasm, &[F::WebGpu])),
        (Preset::LinuxTpu, target(O::Linux, Ar::X86_64, A::Tpu, &[F::Xla])),
        (Preset::LinuxTrainium, target(O::Linux, Ar::X86_64, A::Trainium, &[F::Neuron])),
        (Preset::CustomChip, target(O::Linux, Ar::Unknown, A::Custom, &[F::CustomChip])),
        (Preset::External, target(O::Unknown, Ar::Unknown, A::External, &[F::ExternalProvider])),
    ]
}

#[test]
fn presets_with_default_parameters() {
    let table = preset_table();
    assert_eq!(table.len(), 13);
    for (preset, expected) in &table {
        assert_eq!(&preset.default_target(), expected, "{preset}");
        assert_eq!(&preset.build(&PresetOptions::default()).unwrap(), expected, "{preset}");
    }
    // The constructor functions agree with the table.
    use Architecture as Ar;
    use OperatingSystem as O;
    let constructors = [
        Target::portable_cpu(O::Unknown, Ar::Unknown),
        Target::linux_cpu(Ar::X86_64),
        Target::macos_cpu(Ar::Aarch64),
        Target::windows_cpu(Ar::X86_64),
        Target::linux_cuda(false),
        Target::windows_cuda(false),
        Target::linux_rocm(),
        Target::macos_metal(),
        Target::wasm(),
        Target::linux_tpu(),
        Target::linux_trainium(),
        Target::custom_chip(O::Linux, Ar::Unknown),
        Target::external(O::Unknown, Ar::Unknown),
    ];
    for ((preset, expected), built) in table.iter().zip(constructors) {
        assert_eq!(&built, expected, "{preset}");
    }
}

#[test]
fn presets_list_is_in_seed_order_with_defaults() {
    let listed = presets();
    let names: Vec<Preset> = listed.iter().map(|p| p.name).collect();
    assert_eq!(names, Preset::ALL);
    assert_eq!(
        Preset::SPELLINGS,
        [
            "portableCpu",
            "linuxCpu",
            "macOSCpu",
            "windowsCpu",
            "linuxCuda",
            "windowsCuda",
            "linuxRocm",
            "macOSMetal",
            "wasm",
            "linuxTpu",
            "linuxTrainium",
            "customChip",
            "external",
        ]
    );
    for (named, (preset, expected)) in listed.iter().zip(preset_table()) {
        assert_eq!(named.name, preset);
        assert_eq!(named.target, expected, "{preset}");
    }
    let json: serde_json::Value = serde_json::from_str(&to_json(&listed)).unwrap();
    assert_eq!(json[4]["name"], "linuxCuda");
    assert_eq!(json[4]["target"]["features"], serde_json::json!(["nativeCuda", "cuBLAS", "cuFFT"]));
}

#[test]
fn os_arch_presets_take_every_os_and_arch() {
    use Accelerator as A;
    use BuildFeature as F;
    use OperatingSystem as O;
    // (preset, default os, default arch, accelerator, features)
    let table = [
        (Preset::PortableCpu, O::Unknown, Architecture::Unknown, A::None, &[][..]),
        (Preset::CustomChip, O::Linux, Architecture::Unknown, A::Custom, &[F::CustomChip][..]),
        (Preset::External, O::Unknown, Architecture::Unknown, A::External, &[F::ExternalProvider][..]),
    ];
    for (preset, default_os, default_arch, accelerator, features) in table {
        for &os in OperatingSystem::ALL {
            for &arch in Architecture::ALL {
                let built = preset.build(&options(Some(os), Some(arch), None)).unwrap();
                assert_eq!(built, target(os, arch, accelerator, features), "{preset} {os} {arch}");
            }
            let built = preset.build(&options(Some(os), None, None)).unwrap();
            assert_eq!(built, target(os, default_arch, accelerator, features), "{preset} {os}");
        }
        for &arch in Architecture::ALL {
            let built = preset.build(&options(None, Some(arch), None)).unwrap();
            assert_eq!(built, target(default_os, arch, accelerator, features), "{preset} {arch}");
        }
    }
}

#[test]
fn arch_presets_take_every_arch() {
    use OperatingSystem as O;
    let table = [(Preset::LinuxCpu, O::Linux), (Preset::MacOSCpu, O::MacOS), (Preset::WindowsCpu, O::Windows)];
    for (preset, os) in table {
        for &arch in Architecture::ALL {
            let built = preset.build(&options(None, Some(arch), None)).unwrap();
            assert_eq!(built, target(os, arch, Accelerator::None, &[]), "{preset} {arch}");
        }
    }
    assert_eq!(Target::linux_cpu(Architecture::Aarch64).arch, Architecture::Aarch64);
}

#[test]
fn cuda_presets_take_enable_lib_torch() {
    use BuildFeature as F;
    use OperatingSystem as O;
    for (preset, os) in [(Preset::LinuxCuda, O::Linux), (Preset::WindowsCuda, O::Windows)] {
        for (enable, features) in [
            (false, &[F::NativeCuda, F::CuBlas, F::CuFft][..]),
            (true, &[F::NativeCuda, F::CuBlas, F::CuFft, F::LibTorch][..]),
        ] {
            let built = preset.build(&options(None, None, Some(enable))).unwrap();
            let expected = target(os, Architecture::X86_64, Accelerator::Cuda, features);
            assert_eq!(built, expected, "{preset} {enable}");
        }
    }
    assert_eq!(Target::linux_cuda(true).features.last(), Some(&F::LibTorch));
    assert_eq!(Target::windows_cuda(true).os, O::Windows);
}

#[test]
fn presets_refuse_options_they_do_not_take() {
    let os = options(Some(OperatingSystem::Linux), None, None);
    let arch = options(None, Some(Architecture::X86_64), None);
    let libtorch = options(None, None, Some(false));
    for &preset in Preset::ALL {
        let takes: &[&str] = match preset {
            Preset::PortableCpu | Preset::CustomChip | Preset::External => &["os", "arch"],
            Preset::LinuxCpu | Preset::MacOSCpu | Preset::WindowsCpu => &["arch"],
            Preset::LinuxCuda | Preset::WindowsCuda => &["enableLibTorch"],
            _ => &[],
        };
        assert_eq!(preset.parameters().names(), takes, "{preset}");
        for (name, given) in [("os", &os), ("arch", &arch), ("enableLibTorch", &libtorch)] {
            let result = preset.build(given);
            if takes.contains(&name) {
                assert!(result.is_ok(), "{preset} should take {name}");
            } else {
                let error = result.unwrap_err();
                assert_eq!(error.code, ErrorCode::UnsupportedOption, "{preset} {name}");
                assert_eq!(error.path, name, "{preset} {name}");
                assert!(error.message.contains(preset.as_str()), "{}", error.message);
            }
        }
        // All three at once is refused by every preset (none takes all three).
        let all = options(Some(OperatingSystem::Linux), Some(Architecture::X86_64), Some(true));
        assert_eq!(preset.build(&all).unwrap_err().code, ErrorCode::UnsupportedOption, "{preset}");
    }
}

#[test]
fn preset_options_json_is_strict() {
    let parsed: PresetOptions = from_json(r#"{"os":"linux","enableLibTorch":true}"#).unwrap();
    assert_eq!(parsed, options(Some(OperatingSystem::Linux), None, Some(true)));
    let error = from_json::<PresetOptions>(r#"{"enableLibtorch":true}"#).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownField);
    assert_eq!(error.path, "enableLibtorch");
}

#[test]
fn declared_availability_of_every_preset() {
    use Provider as Pr;
    let base = [Pr::Reference, Pr::TorchLean];
    let cuda = [Pr::Reference, Pr::TorchLean, Pr::NativeCuda, Pr::CuBlas, Pr::CuFft];
    let table: [(Preset, &[Device], &[Provider]); 13] = [
        (Preset::PortableCpu, &[D::Cpu], &base),
        (Preset::LinuxCpu, &[D::Cpu], &base),
        (Preset::MacOSCpu, &[D::Cpu], &base),
        (Preset::WindowsCpu, &[D::Cpu], &base),
        (Preset::LinuxCuda, &[D::Cpu, D::Cuda], &cuda),
        (Preset::WindowsCuda, &[D::Cpu, D::Cuda], &cuda),
        (Preset::LinuxRocm, &[D::Cpu, D::Rocm], &base),
        (Preset::MacOSMetal, &[D::Cpu, D::Metal], &[Pr::Reference, Pr::TorchLean, Pr::Mps]),
        (Preset::Wasm, &[D::Cpu, D::Wasm], &[Pr::Reference, Pr::TorchLean, Pr::WebGpu]),
        (Preset::LinuxTpu, &[D::Cpu, D::Tpu], &[Pr::Reference, Pr::TorchLean, Pr::Xla]),
        (Preset::LinuxTrainium, &[D::Cpu, D::Trainium], &[Pr::Reference, Pr::TorchLean, Pr::Neuron]),
        (Preset::CustomChip, &[D::Cpu, D::Custom], &[Pr::Reference, Pr::TorchLean, Pr::CustomChip]),
        (Preset::External, &[D::Cpu, D::External], &[Pr::Reference, Pr::TorchLean, Pr::External]),
    ];
    for (preset, devices, providers) in table {
        let t = preset.default_target();
        assert_eq!(t.devices(), devices, "{preset}");
        assert_eq!(t.providers(), providers, "{preset}");
        assert_eq!(
            t.declared_availability(),
            Availability { devices: devices.to_vec(), providers: providers.to_vec(), web_gpu: None }
        );
    }
}

#[test]
fn spec_example_linux_cuda_with_libtorch() {
    let availability = Target::linux_cuda(true).declared_availability();
    assert_eq!(availability.devices, [D::Cpu, D::Cuda]);
    assert_eq!(availability.providers, [P::Reference, P::TorchLean, P::NativeCuda, P::CuBlas, P::CuFft, P::LibTorch]);
    assert_eq!(
        to_json(&availability),
        r#"{"devices":["cpu","cuda"],"providers":["reference","torchLean","nativeCuda","cuBLAS","cuFFT","libTorch"]}"#
    );
}

#[test]
fn target_json_is_strict_and_rejects_repeated_features() {
    let t = parse_target(r#"{"os":"linux","accelerator":"cuda","features":["cuBLAS","nativeCuda"]}"#).unwrap();
    assert_eq!(t.arch, Architecture::Unknown);
    assert_eq!(t.features, [BuildFeature::CuBlas, BuildFeature::NativeCuda]);
    let cases = [
        (r#"{"features":["cuBLAS","mps","cuBLAS"]}"#, ErrorCode::DuplicateValue, "features[2]"),
        (r#"{"os":"Linux"}"#, ErrorCode::UnknownVariant, "os"),
        (r#"{"features":["cublas"]}"#, ErrorCode::UnknownVariant, "features[0]"),
        (r#"{"gpu":"cuda"}"#, ErrorCode::UnknownField, "gpu"),
        (r#"{"features":"mps"}"#, ErrorCode::WrongType, "features"),
        (r#"{"os":"linux","os":"linux"}"#, ErrorCode::DuplicateField, "os"),
        (r#"[]"#, ErrorCode::WrongType, ""),
        (r#"["linux","x86_64","none",[]]"#, ErrorCode::WrongType, ""),
        (r#"{"os":"linux"}}"#, ErrorCode::InvalidJson, ""),
    ];
    for (text, code, path) in cases {
        let error = parse_target(text).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (code, path), "{text}: {error}");
    }
}

#[test]
fn availability_defaults_and_validation() {
    let default = Availability::default();
    assert_eq!(default.devices, [D::Cpu]);
    assert_eq!(default.providers, [P::Reference, P::TorchLean]);
    assert_eq!(parse_availability("{}").unwrap(), default);
    let only_devices = parse_availability(r#"{"devices":["cpu","cuda"]}"#).unwrap();
    assert_eq!(only_devices.providers, default.providers);
    let cases = [
        (r#"{"devices":["cpu","cuda","cpu"]}"#, "devices[2]"),
        (r#"{"providers":["reference","reference"]}"#, "providers[1]"),
    ];
    for (text, path) in cases {
        let error = parse_availability(text).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::DuplicateValue, path), "{text}");
    }
}

// ---------------------------------------------------------------------------
// §4 Availability, execution config, trust
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// §5 Capsules and the planner
// ---------------------------------------------------------------------------

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
    let result = Planner::new(catalog, availability).plan(&[op], &[*config], PlanMode::WholePlan);
    let candidate = &result.attempts[0].ops[0].candidates[0];
    assert_eq!(candidate.verdict == Verdict::Rejected, candidate.reason.is_some());
    candidate.reason
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
    let result = Planner::new(&catalog, &availability).plan(&[Op::Add], &[prefer], PlanMode::WholePlan);
    let order: Vec<usize> = result.attempts[0].ops[0].candidates.iter().map(|c| c.catalog_index).collect();
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
    let result = Planner::new(&catalog, &availability).plan(&[Op::Add], &[auto], PlanMode::WholePlan);
    let order: Vec<usize> = result.attempts[0].ops[0].candidates.iter().map(|c| c.catalog_index).collect();
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
    let steps: [(R, Fix); 9] = [
        (R::DeviceNotAvailable, |c| c.device = D::Cpu), // available, still not cuda
        (R::ProviderNotAvailable, |c| c.provider = P::Reference), // available, still not allowed
        (R::WebGpuFeatureMissing, |c| c.requires.as_mut().unwrap().features.clear()),
        (R::WebGpuLimitTooLow, |c| c.requires = None),
        (R::NoForward, |c| c.supports_forward = true),
        (R::TrustRefused, |c| c.trust_level = TrustLevel::Checked),
        (R::ProviderNotAllowed, |c| c.provider = P::NativeCuda),
        (R::DeviceMismatch, |c| c.device = D::Cuda),
        (R::VjpIncompatible, |c| c.vjp_mode = VJPMode::BackendVjp),
    ];
    let mut reported = Vec::new();
    for (expected, fix) in steps {
        assert!(!is_admissible(&capsule, op, &config, &availability));
        let reason = first_reason(std::slice::from_ref(&capsule), op, &config, &availability);
        assert_eq!(reason, Some(expected), "{capsule:?}");
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
        explanation.candidates.iter().map(|c| (c.capsule.as_str(), c.catalog_index, c.verdict, c.reason)).collect();
    assert_eq!(
        summary,
        [
            ("untrusted", 0, Verdict::Rejected, Some(RejectionReason::TrustRefused)),
            ("first", 1, Verdict::Chosen, None),
            ("second", 3, Verdict::Admissible, None),
            ("elsewhere", 4, Verdict::Rejected, Some(RejectionReason::DeviceMismatch)),
        ]
    );
    for candidate in &explanation.candidates {
        assert!(!candidate.detail.is_empty());
    }
    assert_eq!(explanation.candidates[0].detail, "trust policy checked does not accept trust level trustedExternal");
    assert_eq!(explanation.candidates[3].detail, "the capsule runs on cuda, the config on cpu");
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
    assert_eq!(attempt.ops[1].candidates[0].reason, Some(RejectionReason::DeviceMismatch));
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
    let (ok, _) = plan_request_json(&format!(r#"{{"ops":{}}}"#, to_json(&BackendOp::ALL))).unwrap();
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
    assert_eq!(second.candidates[0].reason, Some(RejectionReason::TrustRefused));
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
    let request = parse_plan_request(&format!(
        r#"{{"ops":["matmul","relu","add","softmax"],"mode":"perOp","configs":[{},{}],
            "target":{{"os":"wasi","arch":"wasm32","accelerator":"wasm","features":["webGpu"]}},
            "capsules":{}}}"#,
        to_json(&gpu),
        to_json(&cpu),
        to_json(&catalog)
    ))
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
        result.attempts[0].ops[0].candidates.last().unwrap().reason,
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
    assert!(parse_plan_request(r#"{"ops":[]}"#).unwrap().explain);
    assert!(!parse_plan_request(r#"{"ops":[],"explain":false}"#).unwrap().explain);
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
    let first = plan_request_json(&text).unwrap();
    let second = plan_request_json(&text).unwrap();
    assert_eq!(first, second);
    assert!(first.0);
    assert_eq!(to_json(&plan(&request).unwrap()), first.1);
    assert_eq!(to_json(&plan(&request).unwrap()), to_json(&plan(&request).unwrap()));
    // The same request with whitespace and field order changed gives the same bytes.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    assert_eq!(plan_request_json(&pretty).unwrap(), first);
}

#[test]
fn plan_result_json_shape() {
    let (ok, text) = plan_request_json(r#"{"ops":["add"],"explain":false}"#).unwrap();
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
    let (ok, text) = plan_request_json(r#"{"ops":["add"],"config":{"device":"cuda"}}"#).unwrap();
    assert!(!ok);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["ok"], false);
    assert!(json.get("kernels").is_none() && json.get("configIndex").is_none());
    assert_eq!(json["attempts"][0]["ops"][0]["message"], "no admissible backend capsule for op add on device cuda");
    assert_eq!(json["attempts"][0]["ops"][0]["candidates"][0]["reason"], "device-mismatch");
}

// ---------------------------------------------------------------------------
// §6 Plan request validation and strict JSON
// ---------------------------------------------------------------------------

#[test]
fn request_defaults() {
    let request = parse_plan_request(r#"{"ops":["add"]}"#).unwrap();
    assert_eq!(request, PlanRequest::new(vec![Op::Add]));
    assert_eq!(request.configs(), [ExecutionConfig::default()]);
    assert_eq!(request.availability(), Availability::default());
    assert_eq!(request.mode, PlanMode::WholePlan);
    let with_target = PlanRequest { target: Some(Target::linux_cuda(true)), ..request.clone() };
    assert_eq!(with_target.availability(), Target::linux_cuda(true).declared_availability());
    let cuda = config(D::Cuda, BackendPreference::Auto);
    assert_eq!(PlanRequest { config: Some(cuda), ..request.clone() }.configs(), [cuda]);
    assert_eq!(PlanRequest { configs: Some(vec![cuda, cuda]), ..request }.configs(), [cuda, cuda]);
}

#[test]
fn request_validation_errors() {
    let ops = || PlanRequest::new(vec![Op::Add]);
    let cpu = ExecutionConfig::default();
    let cases = [
        (PlanRequest { config: Some(cpu), configs: Some(vec![cpu]), ..ops() }, ErrorCode::ConflictingFields, "configs"),
        (
            PlanRequest { target: Some(Target::wasm()), availability: Some(Availability::default()), ..ops() },
            ErrorCode::ConflictingFields,
            "availability",
        ),
        (PlanRequest { configs: Some(vec![]), ..ops() }, ErrorCode::EmptyList, "configs"),
        (
            PlanRequest {
                target: Some(Target {
                    features: vec![BuildFeature::Mps, BuildFeature::Xla, BuildFeature::Mps],
                    ..Target::default()
                }),
                ..ops()
            },
            ErrorCode::DuplicateValue,
            "target.features[2]",
        ),
        (
            PlanRequest {
                availability: Some(Availability { devices: vec![D::Cpu, D::Cpu], ..Default::default() }),
                ..ops()
            },
            ErrorCode::DuplicateValue,
            "availability.devices[1]",
        ),
        (
            PlanRequest {
                availability: Some(Availability {
                    providers: vec![P::Reference, P::TorchLean, P::Reference],
                    ..Default::default()
                }),
                ..ops()
            },
            ErrorCode::DuplicateValue,
            "availability.providers[2]",
        ),
    ];
    for (request, code, path) in cases {
        for error in [request.validate().unwrap_err(), plan(&request).unwrap_err()] {
            assert_eq!((error.code, error.path.as_str()), (code, path), "{error}");
        }
        // The same through JSON.
        let error = parse_plan_request(&to_json(&request)).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (code, path), "{error}");
        let error = plan_request_json(&to_json(&request)).unwrap_err();
        assert_eq!(error.code, code);
    }
}

#[test]
fn strict_json_errors_have_a_code_and_a_path() {
    use ErrorCode as E;
    let capsule = r#"{"name":"k","op":"add","provider":"reference","device":"cpu","trustLevel":"checked"}"#;
    let cases: Vec<(String, ErrorCode, &str)> = vec![
        // Unknown fields, at every depth.
        (r#"{"ops":[],"bogus":1}"#.into(), E::UnknownField, "bogus"),
        (r#"{"ops":[],"config":{"device":"cpu","gpu":true}}"#.into(), E::UnknownField, "config.gpu"),
        (r#"{"ops":[],"configs":[{},{"trust":"checked"}]}"#.into(), E::UnknownField, "configs[1].trust"),
        (r#"{"ops":[],"target":{"os":"linux","cpu":"x"}}"#.into(), E::UnknownField, "target.cpu"),
        (r#"{"ops":[],"availability":{"device":["cpu"]}}"#.into(), E::UnknownField, "availability.device"),
        (
            format!(r#"{{"ops":[],"capsules":[{capsule},{{"name":"k","op":"add","provider":"reference","device":"cpu","trustLevel":"checked","vjp":"none"}}]}}"#),
            E::UnknownField,
            "capsules[1].vjp",
        ),
        // Missing required fields.
        (r#"{}"#.into(), E::MissingField, "ops"),
        (r#"{"config":{}}"#.into(), E::MissingField, "ops"),
        (
            r#"{"ops":[],"capsules":[{"name":"k","op":"add","provider":"reference","device":"cpu"}]}"#.into(),
            E::MissingField,
            "capsules[0].trustLevel",
        ),
        (
            format!(r#"{{"ops":[],"capsules":[{capsule},{capsule},{{"op":"add","provider":"reference","device":"cpu","trustLevel":"checked"}}]}}"#),
            E::MissingField,
            "capsules[2].name",
        ),
        // Wrong types.
        (r#"{"ops":"add"}"#.into(), E::WrongType, "ops"),
        (r#"{"ops":[3]}"#.into(), E::WrongType, "ops[0]"),
        (r#"{"ops":[],"explain":"yes"}"#.into(), E::WrongType, "explain"),
        (r#"{"ops":[],"configs":{}}"#.into(), E::WrongType, "configs"),
        (r#"{"ops":[],"config":{"device":["cpu"]}}"#.into(), E::WrongType, "config.device"),
        (
            r#"{"ops":[],"capsules":[{"name":"k","op":"add","provider":"reference","device":"cpu","trustLevel":"checked","supportsForward":1}]}"#.into(),
            E::WrongType,
            "capsules[0].supportsForward",
        ),
        (r#"[]"#.into(), E::WrongType, ""),
        (r#"null"#.into(), E::WrongType, ""),
        // A struct is an object, never an array of its fields by position.
        (r#"[["add"]]"#.into(), E::WrongType, ""),
        (r#"{"ops":[],"config":["cpu","auto","checked","none"]}"#.into(), E::WrongType, "config"),
        (r#"{"ops":[],"target":["linux","x86_64","none",[]]}"#.into(), E::WrongType, "target"),
        (r#"{"ops":[],"availability":[["cpu"],["reference"]]}"#.into(), E::WrongType, "availability"),
        (
            r#"{"ops":[],"capsules":[["k","add","reference","cpu","checked"]]}"#.into(),
            E::WrongType,
            "capsules[0]",
        ),
        // Duplicate fields.
        (r#"{"ops":[],"ops":[]}"#.into(), E::DuplicateField, "ops"),
        (r#"{"ops":[],"config":{"device":"cpu","device":"cpu"}}"#.into(), E::DuplicateField, "config.device"),
        // Bad spellings.
        (r#"{"ops":["add","Matmul"]}"#.into(), E::UnknownVariant, "ops[1]"),
        (r#"{"ops":[],"mode":"per_op"}"#.into(), E::UnknownVariant, "mode"),
        (r#"{"ops":[],"config":{"device":"CPU"}}"#.into(), E::UnknownVariant, "config.device"),
        (r#"{"ops":[],"config":{"backend":{"prefer":"webgpu"}}}"#.into(), E::UnknownVariant, "config.backend.prefer"),
        (r#"{"ops":[],"configs":[{"trustPolicy":"strict"}]}"#.into(), E::UnknownVariant, "configs[0].trustPolicy"),
        (r#"{"ops":[],"target":{"features":["cuda"]}}"#.into(), E::UnknownVariant, "target.features[0]"),
        (
            r#"{"ops":[],"capsules":[{"name":"k","op":"add","provider":"reference","device":"cpu","trustLevel":"trusted"}]}"#.into(),
            E::UnknownVariant,
            "capsules[0].trustLevel",
        ),
        // Not JSON, or JSON followed by more.
        (r#"{"ops":"#.into(), E::InvalidJson, ""),
        (r#"{"ops":[add]}"#.into(), E::InvalidJson, ""),
        ("".into(), E::InvalidJson, ""),
        (r#"{"ops":[]} {}"#.into(), E::InvalidJson, ""),
        (r#"{"ops":[]}x"#.into(), E::InvalidJson, ""),
    ];
    for (text, code, path) in &cases {
        let error = parse_plan_request(text).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (*code, *path), "{text}\n  => {error}");
        assert!(!error.message.is_empty());
        // The one-line form names the code and the path.
        let line = error.to_string();
        assert!(line.starts_with(&format!("[{code}] at ")), "{line}");
        if !path.is_empty() {
            assert!(line.contains(path), "{line}");
        }
        assert_eq!(plan_request_json(text).unwrap_err(), error);
    }
    // Trailing whitespace is fine.
    assert!(parse_plan_request("  {\"ops\":[]}\n\t ").is_ok());
}

#[test]
fn bad_spelling_errors_list_the_valid_spellings() {
    let cases: [(&str, &[&str]); 5] = [
        (r#"{"ops":["Matmul"]}"#, BackendOp::SPELLINGS),
        (r#"{"ops":[],"config":{"vjpMode":"tape"}}"#, VJPMode::SPELLINGS),
        (r#"{"ops":[],"target":{"arch":"x86-64"}}"#, Architecture::SPELLINGS),
        (r#"{"ops":[],"availability":{"providers":["torch"]}}"#, Provider::SPELLINGS),
        (r#"{"ops":[],"mode":"whole"}"#, PlanMode::SPELLINGS),
    ];
    for (text, expected) in cases {
        let error = parse_plan_request(text).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownVariant, "{text}");
        assert_eq!(error.expected, expected, "{text}");
        for spelling in expected {
            assert!(error.message.contains(spelling), "{}", error.message);
        }
    }
    // An unknown field lists the fields the object does define.
    let error = parse_plan_request(r#"{"ops":[],"capsule":[]}"#).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownField);
    assert_eq!(error.expected, ["ops", "config", "configs", "target", "availability", "capsules", "mode", "explain"]);
}

#[test]
fn error_json_shape() {
    let error = parse_plan_request(r#"{"ops":["Add"]}"#).unwrap_err();
    let json: serde_json::Value = serde_json::from_str(&to_json(&error)).unwrap();
    assert_eq!(json["code"], "unknown-variant");
    assert_eq!(json["path"], "ops[0]");
    assert_eq!(json["expected"].as_array().unwrap().len(), 68);
    let error = parse_plan_request(r#"{}"#).unwrap_err();
    let json: serde_json::Value = serde_json::from_str(&to_json(&error)).unwrap();
    assert!(json.get("expected").is_none(), "{json}");
    assert_eq!(error.one_line(), format!("[missing-field] at ops: {}", error.message));
    let error = parse_plan_request("{").unwrap_err();
    assert!(error.one_line().starts_with("[invalid-json] at (top level): "), "{}", error.one_line());
}

#[test]
fn request_round_trips_through_json() {
    let request = PlanRequest {
        configs: Some(vec![
            config(D::Wasm, BackendPreference::Prefer(P::WebGpu)),
            config(D::Cpu, BackendPreference::Only(P::Reference)),
        ]),
        target: Some(Target::linux_cuda(true)),
        capsules: Some(reference_capsules()),
        mode: PlanMode::PerOp,
        explain: false,
        ..PlanRequest::new(BackendOp::ALL.to_vec())
    };
    assert_eq!(parse_plan_request(&to_json(&request)).unwrap(), request);
}

/// BUG (src/json.rs, `classify` + `backticked`): the valid spellings and
/// field names are recovered by splitting serde's message on backticks, so a
/// bad spelling or an unknown key that itself contains a backtick garbles
/// `expected` (and the message). `"a`b".parse::<BackendOp>()` is right; the
/// same value through JSON is not. Un-ignore once fixed.
#[test]
fn a_backtick_in_the_offending_text_keeps_the_expected_list() {
    assert_eq!("a`b".parse::<BackendOp>().unwrap_err().expected, BackendOp::SPELLINGS);
    let error = parse_plan_request(r#"{"ops":["a`b"]}"#).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownVariant, "ops[0]"));
    assert_eq!(error.expected, BackendOp::SPELLINGS);
    assert!(error.message.contains("a`b"), "{}", error.message);
    let error = parse_plan_request(r#"{"ops":[],"a`b":1}"#).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownField, "a`b"));
    assert_eq!(error.expected, ["ops", "config", "configs", "target", "availability", "capsules", "mode", "explain"]);
}
