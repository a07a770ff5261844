//! The planner's phases timed apart, built natively and for `wasm32-wasip1`
//! (`bench/phases.mjs` runs both): reads one plan request from stdin, then
//! ITERATIONS times parses it (`parse_plan_request`), plans it (`plan`) and
//! writes the answer (`json::to_json`), timing each phase, after one untimed
//! round. Prints one JSON line: each phase's median in microseconds.
//! (`plan` checks the request again before planning, which `plan_json`,
//! the command's path, does once: the plan phase holds that second check.)
//!
//! Beside them, the floor any strict reader and writer pays: the
//! same text read with plain `serde_json::from_str` into derive-only structs
//! of the same shape (no checks, no paths, no limits) and written back with
//! `serde_json::to_string` (`floorReadUs`, `floorWriteUs`), and the answer
//! written by `serde_json::to_string` of the same `PlanResult`
//! (`serdeWriteUs`, against `writeUs`).
//!
//! `plan_phases floor` is the floor as a process: it reads stdin into the
//! derive-only structs, writes them back to stdout, once (bench/phases.mjs
//! times it against `backend-targets plan`, process against process).
//!
//!     plan_phases [ITERATIONS] < request.json
//!     plan_phases floor < request.json
use std::io::Read;
use std::time::Instant;

use backend_targets::{Limits, json::to_json, parse_plan_request, plan};
use serde::{Deserialize, Serialize};

/// A plan request's shape, derive-only: what serde_json alone reads.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct FloorRequest {
    ops: Vec<String>,
    configs: Vec<FloorConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<FloorTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capsules: Option<Vec<FloorCapsule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    explain: Option<bool>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct FloorTarget {
    os: String,
    arch: String,
    accelerator: String,
    features: Vec<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct FloorConfig {
    device: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    backend: Option<FloorBackend>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trust_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vjp_mode: Option<String>,
}

#[derive(Deserialize, Serialize)]
struct FloorBackend {
    prefer: String,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct FloorCapsule {
    name: String,
    op: String,
    provider: String,
    device: String,
    trust_level: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    supports_forward: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vjp_mode: Option<String>,
}

fn main() {
    let first = std::env::args().nth(1);
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("read stdin");
    if first.as_deref() == Some("floor") {
        let floor: FloorRequest = serde_json::from_str(&text).expect("the request's shape");
        let mut out = serde_json::to_string(&floor).expect("serializable");
        out.push('\n');
        std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes()).expect("write stdout");
        return;
    }
    let iterations: usize = first.and_then(|a| a.parse().ok()).unwrap_or(20);
    let limits = Limits::DEFAULT;
    let mut phases = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut bytes = 0;
    for round in 0..=iterations {
        let start = Instant::now();
        let request = parse_plan_request(&text, &limits).expect("a valid request");
        let parsed = Instant::now();
        let result = plan(&request, &limits).expect("a valid request");
        let planned = Instant::now();
        let answer = to_json(&result);
        let written = Instant::now();
        bytes = answer.len();
        let serde_answer = serde_json::to_string(&result).expect("serializable");
        let serde_written = Instant::now();
        let floor: FloorRequest = serde_json::from_str(&text).expect("the request's shape");
        let floor_read = Instant::now();
        let floor_text = serde_json::to_string(&floor).expect("serializable");
        let floor_written = Instant::now();
        std::hint::black_box((&serde_answer, &floor_text));
        // The first round touches cold caches and fresh pages: not counted.
        if round > 0 {
            let spans = [
                (start, parsed),
                (parsed, planned),
                (planned, written),
                (written, serde_written),
                (serde_written, floor_read),
                (floor_read, floor_written),
            ];
            for (times, (from, to)) in phases.iter_mut().zip(spans) {
                times.push((to - from).as_secs_f64() * 1e6);
            }
        }
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let [parse, plan, write, serde_write, floor_read, floor_write] = &mut phases;
    println!(
        "{{\"iterations\":{iterations},\"requestBytes\":{},\"answerBytes\":{bytes},\"parseUs\":{:.1},\"planUs\":{:.1},\"writeUs\":{:.1},\"serdeWriteUs\":{:.1},\"floorReadUs\":{:.1},\"floorWriteUs\":{:.1}}}",
        text.len(),
        median(parse),
        median(plan),
        median(write),
        median(serde_write),
        median(floor_read),
        median(floor_write)
    );
}
