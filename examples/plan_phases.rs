//! The planner's phases timed apart, built natively and for `wasm32-wasip1`
//! (`bench/phases.mjs` runs both): reads one plan request from stdin, then
//! ITERATIONS times parses it (`parse_plan_request`), plans it (`plan`) and
//! writes the answer (`json::to_json`), timing each phase, after one untimed
//! round. Prints one JSON line: each phase's median in microseconds.
//! (`plan` checks the request again before planning, which `plan_json`,
//! the command's path, does once: the plan phase holds that second check.)
//!
//!     plan_phases [ITERATIONS] < request.json
use std::io::Read;
use std::time::Instant;

use backend_targets::{Limits, json::to_json, parse_plan_request, plan};

fn main() {
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("read stdin");
    let limits = Limits::DEFAULT;
    let mut phases = [Vec::new(), Vec::new(), Vec::new()];
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
        // The first round touches cold caches and fresh pages: not counted.
        if round > 0 {
            for (times, (from, to)) in phases.iter_mut().zip([(start, parsed), (parsed, planned), (planned, written)]) {
                times.push((to - from).as_secs_f64() * 1e6);
            }
        }
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let [parse, plan, write] = &mut phases;
    println!(
        "{{\"iterations\":{iterations},\"requestBytes\":{},\"answerBytes\":{bytes},\"parseUs\":{:.1},\"planUs\":{:.1},\"writeUs\":{:.1}}}",
        text.len(),
        median(parse),
        median(plan),
        median(write)
    );
}
