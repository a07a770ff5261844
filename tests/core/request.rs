//! §6 Plan request validation and strict JSON.

use super::*;

#[test]
fn request_defaults() {
    let request = parse_plan_request(r#"{"ops":["add"]}"#, &Limits::DEFAULT).unwrap();
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
        // What serde cannot check in WebGPU's names and values: a feature
        // offered or required twice, a limit value JavaScript would round.
        (
            PlanRequest {
                availability: Some(Availability {
                    web_gpu: Some(WebGpuCapabilities {
                        features: vec!["shader-f16".into(), "timestamp-query".into(), "shader-f16".into()],
                        limits: Default::default(),
                    }),
                    ..Default::default()
                }),
                ..ops()
            },
            ErrorCode::DuplicateValue,
            "availability.webGpu.features[2]",
        ),
        (
            PlanRequest {
                availability: Some(Availability {
                    web_gpu: Some(WebGpuCapabilities {
                        features: vec![],
                        limits: [("maxBufferSize".to_string(), MAX_LIMIT_VALUE + 1)].into_iter().collect(),
                    }),
                    ..Default::default()
                }),
                ..ops()
            },
            ErrorCode::InvalidValue,
            "availability.webGpu.limits.maxBufferSize",
        ),
        (
            PlanRequest {
                capsules: Some(vec![
                    cpu_capsule("plain", Op::Add),
                    KernelCapsule {
                        requires: Some(WebGpuRequirements {
                            features: vec!["subgroups".into(), "subgroups".into()],
                            limits: Default::default(),
                        }),
                        ..cpu_capsule("twice", Op::Add)
                    },
                ]),
                ..ops()
            },
            ErrorCode::DuplicateValue,
            "capsules[1].requires.features[1]",
        ),
        (
            PlanRequest {
                capsules: Some(vec![KernelCapsule {
                    requires: Some(WebGpuRequirements {
                        features: vec![],
                        limits: [("maxBindGroups".to_string(), u64::MAX)].into_iter().collect(),
                    }),
                    ..cpu_capsule("huge", Op::Add)
                }]),
                ..ops()
            },
            ErrorCode::InvalidValue,
            "capsules[0].requires.limits.maxBindGroups",
        ),
    ];
    for (request, code, path) in cases {
        for error in [request.validate().unwrap_err(), plan(&request).unwrap_err()] {
            assert_eq!((error.code, error.path.as_str()), (code, path), "{error}");
        }
        // The same through JSON.
        let error = parse_plan_request(&to_json(&request), &Limits::DEFAULT).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (code, path), "{error}");
        let error = plan_json(&to_json(&request), &Limits::DEFAULT).unwrap_err();
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
        let error = parse_plan_request(text, &Limits::DEFAULT).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (*code, *path), "{text}\n  => {error}");
        assert!(!error.message.is_empty());
        // The one-line form names the code and the path.
        let line = error.to_string();
        assert!(line.starts_with(&format!("[{code}] at ")), "{line}");
        if !path.is_empty() {
            assert!(line.contains(path), "{line}");
        }
        assert_eq!(plan_json(text, &Limits::DEFAULT).unwrap_err(), error);
    }
    // Trailing whitespace is fine.
    assert!(parse_plan_request("  {\"ops\":[]}\n\t ", &Limits::DEFAULT).is_ok());
}

#[test]
fn bad_spelling_errors_suggest_the_meant_spelling_or_list_the_valid_ones() {
    // `expected` always lists every valid spelling; the message names the
    // one a misspelling most likely meant, or, when none is that close,
    // lists them all.
    let cases: [(&str, &[&str], Option<&str>); 7] = [
        (r#"{"ops":["Matmul"]}"#, BackendOp::SPELLINGS, Some("matmul")),
        (r#"{"ops":["matmull"]}"#, BackendOp::SPELLINGS, Some("matmul")),
        (r#"{"ops":[],"config":{"vjpMode":"tape"}}"#, VJPMode::SPELLINGS, None),
        (r#"{"ops":[],"target":{"arch":"x86-64"}}"#, Architecture::SPELLINGS, Some("x86_64")),
        (r#"{"ops":[],"availability":{"providers":["torch"]}}"#, Provider::SPELLINGS, None),
        (r#"{"ops":[],"availability":{"providers":["webgpu"]}}"#, Provider::SPELLINGS, Some("webGpu")),
        (r#"{"ops":[],"mode":"whole"}"#, PlanMode::SPELLINGS, None),
    ];
    for (text, expected, meant) in cases {
        let error = parse_plan_request(text, &Limits::DEFAULT).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownVariant, "{text}");
        assert_eq!(error.expected, expected, "{text}");
        match meant {
            Some(meant) => {
                assert!(error.message.ends_with(&format!(": did you mean \"{meant}\"?")), "{}", error.message);
                assert!(!error.message.contains("expected one of"), "{}", error.message);
            }
            None => {
                for spelling in expected {
                    assert!(error.message.contains(spelling), "{}", error.message);
                }
            }
        }
    }
    // An unknown field: the field it most likely meant, and `expected` lists
    // the fields the object does define.
    let error = parse_plan_request(r#"{"ops":[],"capsule":[]}"#, &Limits::DEFAULT).unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownField);
    assert_eq!(error.message, r#"unknown field "capsule": did you mean "capsules"?"#);
    assert_eq!(error.expected, ["ops", "config", "configs", "target", "availability", "capsules", "mode", "explain"]);
}

#[test]
fn error_json_shape() {
    let error = parse_plan_request(r#"{"ops":["Add"]}"#, &Limits::DEFAULT).unwrap_err();
    let json: serde_json::Value = serde_json::from_str(&to_json(&error)).unwrap();
    assert_eq!(json["code"], "unknown-variant");
    assert_eq!(json["path"], "ops[0]");
    assert_eq!(json["expected"].as_array().unwrap().len(), 68);
    let error = parse_plan_request(r#"{}"#, &Limits::DEFAULT).unwrap_err();
    let json: serde_json::Value = serde_json::from_str(&to_json(&error)).unwrap();
    assert!(json.get("expected").is_none(), "{json}");
    assert_eq!(error.one_line(), format!("[missing-field] at ops: {}", error.message));
    let error = parse_plan_request("{", &Limits::DEFAULT).unwrap_err();
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
    assert_eq!(parse_plan_request(&to_json(&request), &Limits::DEFAULT).unwrap(), request);
}

/// A bad spelling or an unknown key that itself contains a backtick keeps the
/// valid spellings and field names intact: the strict reader carries them as
/// data (once they were recovered by splitting serde's message on backticks).
#[test]
fn a_backtick_in_the_offending_text_keeps_the_expected_list() {
    assert_eq!("a`b".parse::<BackendOp>().unwrap_err().expected, BackendOp::SPELLINGS);
    let error = parse_plan_request(r#"{"ops":["a`b"]}"#, &Limits::DEFAULT).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownVariant, "ops[0]"));
    assert_eq!(error.expected, BackendOp::SPELLINGS);
    assert!(error.message.contains("a`b"), "{}", error.message);
    let error = parse_plan_request(r#"{"ops":[],"a`b":1}"#, &Limits::DEFAULT).unwrap_err();
    // A key that is not a plain name stands in the path as a quoted index.
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownField, r#"["a`b"]"#));
    assert_eq!(error.expected, ["ops", "config", "configs", "target", "availability", "capsules", "mode", "explain"]);
}
