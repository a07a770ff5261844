//! §2 Targets and presets.

use super::*;

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

/// The one reader of a preset option's text (the command's flags, the
/// service's query parameters): the value read, an error at the option as
/// the caller spells it, and `false` for a name that is no option.
#[test]
fn preset_options_read_from_text_in_either_spelling() {
    let mut read = PresetOptions::default();
    assert!(read.set_from_text("os", "linux", OptionSpelling::Flag).unwrap());
    assert!(read.set_from_text("arch", "aarch64", OptionSpelling::Json).unwrap());
    assert!(read.set_from_text("enableLibTorch", "false", OptionSpelling::Json).unwrap());
    assert_eq!(read, options(Some(OperatingSystem::Linux), Some(Architecture::Aarch64), Some(false)));
    assert!(read.set_from_text("enableLibTorch", "true", OptionSpelling::Flag).unwrap());
    assert_eq!(read.enable_lib_torch, Some(true));
    assert!(!read.set_from_text("accelerator", "cuda", OptionSpelling::Json).unwrap(), "not an option");
    let cases = [
        ("os", "MacOS", OptionSpelling::Flag, ErrorCode::UnknownVariant, "--os"),
        ("os", "MacOS", OptionSpelling::Json, ErrorCode::UnknownVariant, "os"),
        ("arch", "x64", OptionSpelling::Flag, ErrorCode::UnknownVariant, "--arch"),
        ("enableLibTorch", "yes", OptionSpelling::Json, ErrorCode::InvalidValue, "enableLibTorch"),
        ("enableLibTorch", "1", OptionSpelling::Flag, ErrorCode::InvalidValue, "--enable-libtorch"),
    ];
    for (name, value, spelling, code, path) in cases {
        let error = PresetOptions::default().set_from_text(name, value, spelling).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (code, path), "{name}={value}");
    }
    let error = PresetOptions::default().set_from_text("enableLibTorch", "yes", OptionSpelling::Json).unwrap_err();
    assert_eq!(error.message, "expected true or false, found \"yes\"");
}
