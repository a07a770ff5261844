//! §1 Spellings.

use super::*;

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
    // Every spelled enum, Verdict and both probes' vocabularies included (the
    // native probe's four are not in the browser build).
    let native = if cfg!(all(target_arch = "wasm32", target_os = "unknown")) { 0 } else { 4 };
    assert_eq!(walked, 19 + native);
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
