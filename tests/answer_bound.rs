//! The answer's bound, through the library alone: `outputBytes`
//! bounds a plan's answer before planning, the refusal names the
//! combination, and the bound is an upper bound and a close one. Here, with
//! the core, so that the core's suites (and mutation testing of the planner,
//! scripts/mutants.sh) hold it; the command's hostile input is
//! crates/cli/tests/hostile.rs.

use backend_targets::*;

/// Names are repeated by every config that explains them, so the work
/// limit alone did not bound the answer (19 configs × 100,000 capsules
/// with 1 KB names: some 2.3 GB of JSON, more than the npm module's 2 GiB).
/// `outputBytes` bounds it before planning, and says which combination is
/// too large.
#[test]
fn the_answer_is_bounded_before_planning_and_the_refusal_names_the_combination() {
    let name = "n".repeat(1_000);
    let capsule =
        format!(r#"{{"name":"{name}","op":"matmul","provider":"cuBLAS","device":"cuda","trustLevel":"checked"}}"#);
    let capsules = vec![capsule.as_str(); 2_000].join(",");
    let configs = [r#"{"device":"cuda"}"#; 19].join(",");
    let text = format!(r#"{{"ops":["matmul"],"configs":[{configs}],"capsules":[{capsules}]}}"#);
    let limits = Limits { output_bytes: 10_000_000, ..Limits::DEFAULT };
    let error = plan_json(&text, &limits).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), (ErrorCode::LimitExceeded, ""));
    assert!(
        error.message.split(' ').next().is_some_and(|count| count.parse::<usize>().is_ok_and(|n| n > 10_000_000))
            && error.message.ends_with(
                " bytes of JSON the plan could take (19 configs, each explaining 1 ops and 2000 capsules with 2000000 \
             bytes of names), more than the limit outputBytes = 10000000 (raise it: --limit outputBytes=N, \
             ?limit=outputBytes=N, { limits: { outputBytes: N } })"
            ),
        "{}",
        error.message
    );
    // Under the default (128 MiB) it plans, and the answer is within its bound.
    let (_, out) = plan_json(&text, &Limits::DEFAULT).unwrap();
    assert!(out.len() > 19 * 2_000 * 1_000, "{}", out.len());
    // The defaults keep a 16 MiB request with one config well inside it.
    let capsule = |i: usize| {
        format!(r#"{{"name":"{i:0>80}","op":"matmul","provider":"cuBLAS","device":"cuda","trustLevel":"checked"}}"#)
    };
    let capsules: Vec<String> = (0..99_999).map(capsule).collect();
    let text = format!(r#"{{"ops":["matmul"],"capsules":[{}]}}"#, capsules.join(","));
    assert!(text.len() < 16 << 20 && text.len() > 15 << 20, "{}", text.len());
    let (_, out) = plan_json(&text, &Limits::DEFAULT).unwrap();
    assert!(out.len() < 64 << 20, "{}", out.len());
}

/// The answer's bound is an upper bound, and a close one: each name it
/// counts is counted once per place the answer can quote it, so a request
/// whose answer is a third of the limit `outputBytes` is not refused (here
/// the bound is 16,068 bytes for a 7,967-byte answer). (A bound
/// that multiplied where it should add would refuse it: mutation testing
/// found no test that said so.)
#[test]
fn the_answer_bound_stays_within_three_times_the_answer_for_long_names() {
    let long = |c: char, n: usize| c.to_string().repeat(n);
    let offered: Vec<String> = (0..4).map(|i| format!("\"{}{i}\"", long('f', 1_000))).collect();
    let required = format!("\"{}\"", long('r', 500));
    let capsule = |i: usize| {
        format!(
            r#"{{"name":"{}{i}","op":"matmul","provider":"webGpu","device":"wasm","trustLevel":"checked","requires":{{"features":[{required}]}}}}"#,
            long('n', 1_000)
        )
    };
    let text = format!(
        r#"{{"ops":["matmul","matmul","matmul"],"config":{{"device":"wasm","vjpMode":"none"}},
        "availability":{{"devices":["cpu","wasm"],"providers":["reference","webGpu"],"webGpu":{{"features":[{}]}}}},
        "capsules":[{},{}]}}"#,
        offered.join(","),
        capsule(0),
        capsule(1)
    );
    let (_, answer) = plan_json(&text, &Limits::DEFAULT).unwrap();
    // Over the bound by one byte: refused (the bound never underestimates).
    let below = Limits { output_bytes: answer.len() - 1, ..Limits::DEFAULT };
    assert_eq!(plan_json(&text, &below).unwrap_err().code, ErrorCode::LimitExceeded);
    // At three times the answer: planned.
    let thrice = Limits { output_bytes: answer.len() * 3, ..Limits::DEFAULT };
    let error = plan_json(&text, &thrice).err();
    assert!(error.is_none(), "answer {} bytes: {error:?}", answer.len());
}
