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
    // native probe's four only with the feature `native-forms`, a default one).
    let native = if cfg!(feature = "native-forms") { 4 } else { 0 };
    assert_eq!(walked, 19 + native);
}

/// SPEC §1 as the contract writes it (docs/SPEC.md), read from the
/// document rather than copied here: the enum table, and the 68 ops with
/// their snake_case report names.
struct SpecSpellings {
    /// `(enum, its values in order)`, per row of the table.
    enums: Vec<(String, Vec<String>)>,
    /// `(canonical, report name)` of each op, in order.
    ops: Vec<(String, Option<String>)>,
}

fn spec_spellings() -> SpecSpellings {
    let spec = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SPEC.md")).unwrap();
    let section = &spec[spec.find("## 1. Spellings").unwrap()..spec.find("## 2. Target").unwrap()];
    let enums = section
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split_once(" | "))
        .filter(|(name, _)| !name.starts_with("enum") && !name.starts_with("---"))
        .map(|(name, values)| {
            let values = values.trim_end_matches(" |").split(", ").map(str::to_string).collect();
            (name.to_string(), values)
        })
        .collect();
    let list = section.split("also accepted when parsing):").nth(1).unwrap();
    let list = &list[..list.find("\n\n").unwrap()];
    let ops = list
        .replace('\n', " ")
        .trim_end_matches('.')
        .split(", ")
        .map(|entry| match entry.split_once(" [") {
            Some((name, alias)) => (name.trim().to_string(), Some(alias.trim_end_matches(']').to_string())),
            None => (entry.trim().to_string(), None),
        })
        .collect();
    SpecSpellings { enums, ops }
}

/// SPEC §1's table, value for value and in order.
#[test]
fn vocabularies_have_the_spec_values_in_the_spec_order() {
    let spec = spec_spellings();
    let code: [(&str, &[&str]); 9] = [
        ("OperatingSystem", OperatingSystem::SPELLINGS),
        ("Architecture", Architecture::SPELLINGS),
        ("Accelerator", Accelerator::SPELLINGS),
        ("BuildFeature", BuildFeature::SPELLINGS),
        ("Device", Device::SPELLINGS),
        ("Provider", Provider::SPELLINGS),
        ("TrustLevel", TrustLevel::SPELLINGS),
        ("TrustPolicy", TrustPolicy::SPELLINGS),
        ("VJPMode", VJPMode::SPELLINGS),
    ];
    let names: Vec<&str> = spec.enums.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, code.map(|(name, _)| name), "the SPEC's table rows");
    for ((name, values), (_, spellings)) in spec.enums.iter().zip(code) {
        assert_eq!(values, spellings, "{name}");
    }
    assert_eq!(OperatingSystem::TYPE_NAME, "OperatingSystem");
    assert_eq!(VJPMode::TYPE_NAME, "VJPMode");
}

#[test]
fn backend_ops_are_the_68_of_the_spec_in_order() {
    let spec = spec_spellings();
    let names: Vec<&str> = spec.ops.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.len(), 68, "the SPEC lists 68 ops");
    assert_eq!(BackendOp::SPELLINGS, names.as_slice());
    assert_eq!(BackendOp::ALL.len(), 68);
}

#[test]
fn every_snake_case_report_name_parses_to_its_op() {
    let spec = spec_spellings();
    let mut aliases = 0;
    for (index, (canonical, alias)) in spec.ops.iter().enumerate() {
        let op = BackendOp::ALL[index];
        assert_eq!(op.as_str(), canonical);
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
    let request =
        parse_plan_request(r#"{"ops": ["log_softmax", "scaled_dot_product_attention"]}"#, &Limits::DEFAULT).unwrap();
    assert_eq!(request.ops, [Op::LogSoftmax, Op::ScaledDotProductAttention]);
}

#[test]
fn requires_vjp_is_false_only_for_the_two_random_ops() {
    for &op in BackendOp::ALL {
        let random = matches!(op, Op::RandUniform | Op::BernoulliMask);
        assert_eq!(op.requires_vjp(), !random, "{op}");
    }
}
