//! `Limits` is made by one table (`limits_table!` in src/limits.rs: a row a
//! limit, from which come its fields, `DEFAULT`, `CEILING`, `NAMES`, `get`
//! and `set`: as six hand lists, a field missing from `NAMES` would escape
//! its ceiling, since `validate` walks `NAMES`). This test holds what the
//! table makes to the JSON form serde writes: the fields are `NAMES`, in
//! order, and every name reads, sets and is bounded.

use backend_targets::{ErrorCode, Limits};

/// The limits as their JSON form names them, in field order (the text's:
/// every value is a number, so a comma ends each member).
fn fields(limits: &Limits) -> Vec<(String, u64)> {
    let text = serde_json::to_string(limits).unwrap();
    let members = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')).expect("Limits is a JSON object");
    members
        .split(',')
        .map(|member| {
            let (name, value) = member.split_once(':').unwrap();
            (serde_json::from_str(name).unwrap(), value.parse().unwrap())
        })
        .collect()
}

#[test]
fn every_field_is_named_read_set_and_bounded() {
    let defaults = fields(&Limits::DEFAULT);
    let names: Vec<&str> = defaults.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, Limits::NAMES, "the fields (as serde names them) are Limits::NAMES, in order");
    let ceilings = fields(&Limits::CEILING);
    for ((name, default), (_, ceiling)) in defaults.iter().zip(&ceilings) {
        let (default, ceiling) = (*default as usize, *ceiling as usize);
        assert_eq!(Limits::DEFAULT.get(name), Some(default), "{name}: get reads its field");
        assert_eq!(Limits::CEILING.get(name), Some(ceiling), "{name}: get reads its ceiling");
        assert!(default <= ceiling, "{name}: default {default} above its ceiling {ceiling}");
        // set writes its field (and only it), up to the ceiling.
        let mut raised = Limits::DEFAULT;
        raised.set(name, ceiling).unwrap();
        assert_eq!(raised.get(name), Some(ceiling), "{name}: set writes its field");
        let changed: Vec<String> =
            fields(&raised).into_iter().zip(&defaults).filter(|(now, was)| now != *was).map(|(now, _)| now.0).collect();
        assert_eq!(changed, std::slice::from_ref(name), "{name}: set writes no other field");
        let mut over = Limits::DEFAULT;
        let error = over.set(name, ceiling + 1).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::InvalidValue, name.as_str()));
        // The same value given as JSON is read, then refused by validate.
        let text = format!("{{\"{name}\": {}}}", ceiling + 1);
        let over: Limits = serde_json::from_str(&text).unwrap();
        let error = over.validate("limits").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidValue, "{name}: above its ceiling, from JSON");
    }
    assert_eq!(Limits::DEFAULT.get("noSuchLimit"), None);
    let mut unknown = Limits::DEFAULT;
    assert_eq!(unknown.set("noSuchLimit", 1).unwrap_err().code, ErrorCode::UnknownVariant);
    assert_eq!(unknown, Limits::DEFAULT, "an unknown name sets nothing");
}

/// `apply_override`, the one reader of `NAME=N` (the command's `--limit`,
/// the service's `?limit=`): sets the limit and notes its name; every
/// refusal at the caller's path, with the words both edges print.
#[test]
fn an_override_sets_one_limit_once_within_its_ceiling() {
    let mut limits = Limits::DEFAULT;
    let mut given = Vec::new();
    limits.apply_override("ops=20000", "--limit", &mut given).unwrap();
    assert_eq!((limits.ops, given.as_slice()), (20_000, ["ops".to_string()].as_slice()));
    limits.apply_override("capsules=7", "--limit", &mut given).unwrap();
    assert_eq!(limits.capsules, 7);
    assert_eq!(given, ["ops", "capsules"]);
    let refused = |text: &str, given: &mut Vec<String>| {
        let mut limits = Limits::DEFAULT;
        let error = limits.apply_override(text, "limit", given).unwrap_err();
        assert_eq!(limits, Limits::DEFAULT, "{text}: a refused override sets nothing");
        (error.code, error.path, error.message)
    };
    let names = Limits::NAMES.join(", ");
    for text in ["ops", "ops=", "ops=-1", "ops=1.5"] {
        let (code, path, message) = refused(text, &mut Vec::new());
        assert_eq!((code, path.as_str()), (ErrorCode::Usage, "limit"), "{text}");
        assert_eq!(message, format!("expected NAME=N (NAME one of: {names}), found \"{text}\""), "{text}");
    }
    let (code, path, message) = refused("opz=3", &mut Vec::new());
    assert_eq!((code, path.as_str()), (ErrorCode::UnknownVariant, "limit"));
    assert!(message.contains("did you mean \"ops\""), "{message}");
    let mut twice = vec!["ops".to_string()];
    let (code, path, message) = refused("ops=3", &mut twice);
    assert_eq!((code, path.as_str(), message.as_str()), (ErrorCode::Usage, "limit", "the limit ops is given twice"));
    assert_eq!(twice, ["ops"]);
    let over = format!("ops={}", Limits::CEILING.ops + 1);
    let (code, path, _) = refused(&over, &mut Vec::new());
    assert_eq!((code, path.as_str()), (ErrorCode::InvalidValue, "limit.ops"));
}

/// Each limit admits a request at its value and refuses one just past it,
/// at the path of what exceeds it (`check`'s `>`, `check_bytes`,
/// `check_name`, `check_webgpu`, read through `parse_plan_request`).
#[test]
fn each_limit_admits_its_value_and_refuses_one_more() {
    use backend_targets::parse_plan_request;
    let text = serde_json::json!({
        "ops": ["add", "mul"],
        "configs": [{"device": "wasm", "vjpMode": "none"}],
        "capsules": [{
            "name": "abcde", "op": "add", "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
            "requires": {"features": ["shader-f16", "float32-filterable"], "limits": {"maxBindGroups": 4, "maxBufferSize": 1024}},
        }],
    })
    .to_string();
    let at = |limits: Limits| parse_plan_request(&text, &limits).map(|_| ()).map_err(|e| (e.code, e.path));
    let longest_name = "float32-filterable".len();
    for (limits, path) in [
        (Limits { request_bytes: text.len(), ..Limits::DEFAULT }, ""),
        (Limits { ops: 2, ..Limits::DEFAULT }, "ops"),
        (Limits { name_bytes: longest_name, ..Limits::DEFAULT }, "capsules[0].requires.features[1]"),
        (Limits { features: 2, ..Limits::DEFAULT }, "capsules[0].requires.features"),
        (Limits { limits: 2, ..Limits::DEFAULT }, "capsules[0].requires.limits"),
    ] {
        assert_eq!(at(limits), Ok(()), "{path}: at the limit");
        let mut under = limits;
        for name in Limits::NAMES {
            if limits.get(name) != Limits::DEFAULT.get(name) {
                under.set(name, limits.get(name).unwrap() - 1).unwrap();
            }
        }
        assert_eq!(at(under), Err((ErrorCode::LimitExceeded, path.to_string())), "{path}: one past the limit");
    }
}
