//! Planner timing for the benchmark table (`bench/run.mjs`), built natively
//! and for `wasm32-wasip1`: reads one plan request from stdin and runs the
//! text-in/text-out planner (`plan_json`: parse, plan, serialize)
//! once untimed, then ITERATIONS times, and prints one JSON line: the median,
//! min and max, and every run's time in order.
//!
//!     plan_bench [ITERATIONS] < request.json
use std::io::Read;
use std::time::Instant;

fn main() {
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("read stdin");
    let mut times = Vec::with_capacity(iterations);
    // One untimed plan first: the first touches cold caches and fresh pages.
    let (_, warm) = backend_targets::plan_json(&text, &backend_targets::Limits::DEFAULT).expect("a valid request");
    let mut bytes = warm.len();
    for _ in 0..iterations {
        let start = Instant::now();
        let (_, json) = backend_targets::plan_json(&text, &backend_targets::Limits::DEFAULT).expect("a valid request");
        times.push(start.elapsed().as_secs_f64() * 1e6);
        bytes = json.len();
    }
    let samples: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"iterations\":{iterations},\"medianUs\":{:.1},\"minUs\":{:.1},\"maxUs\":{:.1},\"outputBytes\":{bytes},\"timesUs\":[{}]}}",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        samples.join(",")
    );
}
