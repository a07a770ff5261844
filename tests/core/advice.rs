//! What to do about each reason a capsule was refused
//! (`RejectionReason::what_to_do`): one row per reason, and the copies made
//! from that table — the npm package README's (docs/command.md links to it)
//! and the demo's — held to it word for word.

use super::*;

fn repository_file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn every_reason_says_what_to_do_in_words_of_its_own() {
    let table = RejectionReason::what_to_do_markdown();
    assert_eq!(table.lines().count(), RejectionReason::ALL.len() + 2, "{table}");
    let mut seen = Vec::new();
    for reason in RejectionReason::ALL {
        let advice = reason.what_to_do();
        assert!(advice.len() > 40, "{reason}: {advice}");
        assert!(!seen.contains(&advice), "{reason} repeats another reason's advice");
        // Each row names what to declare or change, as a field of the request.
        assert!(advice.contains('`'), "{reason}: {advice}");
        seen.push(advice);
    }
}

#[test]
fn the_package_readme_carries_the_table() {
    let table = RejectionReason::what_to_do_markdown();
    assert!(
        repository_file("pkg-template/README.md").contains(&table),
        "pkg-template/README.md lacks the table; paste `what_to_do_markdown()`:\n{table}"
    );
}

/// The demo's `WHAT_TO_DO` (www/planner.js): each reason's row as a JSON
/// string, and nothing else in it.
#[test]
fn the_demo_says_what_the_table_says() {
    let page = repository_file("www/planner.js");
    let opening = "const WHAT_TO_DO = {\n";
    let start = page.find(opening).expect("www/planner.js defines WHAT_TO_DO") + opening.len();
    let body = &page[start..start + page[start..].find("};").unwrap()];
    let expected: String = RejectionReason::ALL
        .iter()
        .map(|reason| format!("  {}: {},\n", to_json(&reason.as_str()), to_json(&reason.what_to_do())))
        .collect();
    assert_eq!(body, expected, "www/planner.js's WHAT_TO_DO differs from RejectionReason::what_to_do");
}
