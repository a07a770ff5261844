//! Hostile input (issue 12): work and output linear in the request, the
//! limits a request meets, and the small inconsistencies found on the way.

use backend_targets::*;

fn plan_text(text: &str) -> Result<(bool, String)> {
    plan_request_json(text)
}

fn matmul_request(ops: usize, capsules: usize) -> String {
    let ops = vec!["\"matmul\""; ops].join(",");
    let capsule = r#"{"name":"c","op":"matmul","provider":"cuBLAS","device":"cuda","trustLevel":"checked"}"#;
    let capsules = vec![capsule; capsules].join(",");
    format!(r#"{{"ops":[{ops}],"capsules":[{capsules}]}}"#)
}

#[test]
fn a_repeated_op_shares_its_first_occurrences_explanation() {
    let (ok, text) = plan_text(&matmul_request(3, 2)).unwrap();
    assert!(!ok);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ops = json["attempts"][0]["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 3);
    assert_eq!(ops[0]["candidates"].as_array().unwrap().len(), 2);
    assert!(ops[0].get("sameAs").is_none());
    for (index, op) in ops.iter().enumerate().skip(1) {
        assert_eq!(op["opIndex"], index);
        assert_eq!(op["sameAs"], 0);
        assert!(op.get("candidates").is_none());
        assert_eq!(op["message"], "no admissible backend capsule for op matmul on device cpu");
    }
}

#[test]
fn an_admissible_sentence_does_not_copy_the_chosen_name() {
    let long = "x".repeat(10_000);
    let text = format!(
        r#"{{"ops":["add"],"capsules":[
            {{"name":"{long}","op":"add","provider":"reference","device":"cpu","trustLevel":"checked","vjpMode":"torchLeanTape"}},
            {{"name":"b","op":"add","provider":"reference","device":"cpu","trustLevel":"checked","vjpMode":"torchLeanTape"}},
            {{"name":"c","op":"add","provider":"reference","device":"cpu","trustLevel":"checked","vjpMode":"torchLeanTape"}}]}}"#
    );
    let (ok, out) = plan_text(&text).unwrap();
    assert!(ok);
    // The name appears in the op's `capsule`, its candidate and its kernel: not in each sibling.
    assert_eq!(out.matches(&long).count(), 3);
    assert_eq!(out.matches("admissible, but the chosen capsule comes first").count(), 2);
}

#[test]
fn output_grows_linearly_with_ops_times_capsules() {
    let small = plan_text(&matmul_request(100, 100)).unwrap().1.len();
    let large = plan_text(&matmul_request(1000, 1000)).unwrap().1.len();
    // Ten times the request, at most a little over ten times the output (not a hundred).
    assert!(large < small * 12, "{small} -> {large}");
}
