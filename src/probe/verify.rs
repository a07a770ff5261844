//! The verified WebGPU decision, its pure half (SPEC §3, "Verification"):
//! the options of `detect({ verify })`, the workload an adapter must compute
//! (a short MLP: matmul + bias + ReLU layers at an inference-like size),
//! its WebAssembly reference, the comparison of what the GPU answered with
//! it, the speed rule and the verdict's report. The edge that runs the
//! workload through wgpu and times both sides is the browser module's
//! `verify` (crates/browser); the cached verdicts, and the key that
//! identifies an adapter and browser, are its JS half's
//! (`crates/browser/src/verify.js`), which the other entries read too.

use serde::{Deserialize, Deserializer, Serialize};

use crate::vocab::spelled_enum;

spelled_enum! {
    /// Which arithmetic the verification checks: `f32` always; `f16` also
    /// checks a half-precision path when the adapter offers `shader-f16`
    /// (fp16 failures are the common ones in the field).
    pub enum VerifyPrecision {
        F32 = "f32",
        F16 = "f16",
    }
}

spelled_enum! {
    /// Where a verdict is kept: `persistent` (localStorage in a page or in
    /// Deno, IndexedDB in a worker; else `session`), `session` (this
    /// module's memory, until the page goes), or `none` (always verify).
    pub enum VerifyCache {
        Persistent = "persistent",
        Session = "session",
        None = "none",
    }
}

/// `verify`'s default budget, in milliseconds: the whole verification (the
/// device, the pipelines, the WebAssembly reference, both GPU runs, the
/// readbacks). Measured (docs/webgpu.md, "Verification"): 95–140 ms on SwiftShader
/// (2 cores) and in Deno on llvmpipe, for a verdict; a real GPU's device
/// request can take 100 ms more.
pub const DEFAULT_VERIFY_BUDGET_MS: u32 = 1000;

/// How much slower than WebAssembly the GPU may be and still be kept: its
/// warm time for the workload at most this many times the WebAssembly time.
pub const SPEED_MARGIN: f64 = 1.1;

/// How many ticks of the clock a timing of the WebAssembly reference spans
/// at least (the pass repeated until it does): a clock of 1 ms steps
/// (Firefox) then errs by at most 5 % of the figure, under the margin.
pub const REFERENCE_TICKS: f64 = 20.0;

/// How many times past (or within) the margin one warm run must be to decide
/// the speed alone; runs nearer the margin are taken by the majority of
/// [`WARM_RUNS`].
pub const DECISIVE_FACTOR: f64 = 2.0;

/// The most warm runs timed: the verdict is the majority's.
pub const WARM_RUNS: usize = 3;

/// The largest error allowed, relative to the largest magnitude of the
/// expected output, for the `f32` and the `f16` paths.
pub const F32_TOLERANCE: f64 = 1e-3;
/// See [`F32_TOLERANCE`]; the `f16` path rounds its operands to 11 bits.
pub const F16_TOLERANCE: f64 = 2e-2;

/// `detect({ verify })`'s object form; `verify: true` is every default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct VerifyOptions {
    /// The most the verification may take, in milliseconds; past it WebGPU
    /// is dropped (`verify-timeout`). Default 1000.
    pub budget_ms: u32,
    /// `f32` (default) or `f16` (also checks half precision where the
    /// adapter has `shader-f16`).
    pub precision: VerifyPrecision,
    /// Where the verdict is kept: `persistent` (default), `session`, `none`.
    pub cache: VerifyCache,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self { budget_ms: DEFAULT_VERIFY_BUDGET_MS, precision: VerifyPrecision::F32, cache: VerifyCache::Persistent }
    }
}

/// `verify`: `true` (every default), `false` or absent (no verification),
/// or the options.
pub(crate) fn deserialize_verify<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<VerifyOptions>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Option<VerifyOptions>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a boolean or VerifyOptions")
        }
        fn visit_bool<E: serde::de::Error>(self, verify: bool) -> Result<Self::Value, E> {
            Ok(verify.then(VerifyOptions::default))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            VerifyOptions::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    deserializer.deserialize_any(Visitor)
}

/// What the verification measured and found: the report beside the
/// verdict (whose reason is the probe report's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct Verification {
    /// The workload, in words (`"mlp 6x256x256, batch 8, 4 passes per
    /// readback"`: the passes of each warm run, fewer for a slow adapter).
    pub workload: String,
    /// The precisions checked (`["f32"]`, or `["f32", "f16"]` where `f16`
    /// was asked for and the adapter has `shader-f16`).
    pub checked: Vec<VerifyPrecision>,
    /// The GPU's warm time for one pass of the workload, in milliseconds:
    /// the middle of the warm runs timed, each run to its readback (several
    /// passes per readback, divided; pipeline creation apart). Always a
    /// measurement: absent where no warm run finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub gpu_ms: Option<f64>,
    /// Where the budget ran out during a warm run that had already taken
    /// longer than WebAssembly would (with the margin): the time it had
    /// taken by then, per pass. A lower bound, never a measurement: the
    /// verdict is `slower-than-wasm`, and `gpuMs` and `ratio` are absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub gpu_ms_more_than: Option<f64>,
    /// The same pass computed in this module's WebAssembly, in milliseconds
    /// (repeated until the timing spans `REFERENCE_TICKS` ticks of the
    /// clock, the fastest of three such timings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub wasm_ms: Option<f64>,
    /// `gpuMs / wasmMs`: above `margin`, WebGPU is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub ratio: Option<f64>,
    /// The resolution of the clock both were timed with, in milliseconds, as
    /// measured (0.1 in Chromium's pages, 1 in Firefox's; 0.005 where the
    /// page is cross-origin isolated).
    pub timer_resolution_ms: f64,
    /// The margin `ratio` is held to (1.1).
    pub margin: f64,
    /// The largest error found, relative to the largest expected magnitude
    /// (`null` where a value was NaN or infinite: see `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub max_error: Option<f64>,
    /// Where it was: the output's flat index (row × 256 + column) and precision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub max_error_at: Option<String>,
    /// The tolerance of the `f32` path (1e-3; `f16`: 2e-2).
    pub tolerance: f64,
    /// The budget it ran under, in milliseconds.
    pub budget_ms: u32,
    /// How long the verification took (0 when answered from the cache).
    pub elapsed_ms: f64,
    /// What identifies the adapter and browser the verdict holds for
    /// (`verdictKey`): the cache's key.
    pub adapter_key: String,
    /// Whether this verdict was read from the cache (no device was created).
    pub cached: bool,
    /// Where the verdict was to be kept (`cache: 'persistent'`) but could
    /// not be (`NOT_KEPT`: storage full or denied, or its write not done
    /// within the budget): this page keeps it, the next verifies again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub not_kept: Option<String>,
    /// Where the verdict came from the cache (`cached`): when it was
    /// measured and kept, in milliseconds since the Unix epoch (what a
    /// support report says of its age).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub kept_at: Option<f64>,
}

/// [`Verification::not_kept`]'s sentence.
pub const NOT_KEPT: &str = "this origin's storage did not keep the verdict (full, denied, or not written within the \
                            budget): this page keeps it, and the next page verifies again";

/// The workload's shape: [`LAYERS`] dense layers of [`WIDTH`] × [`WIDTH`], a
/// batch of [`ROWS`]; [`PASSES`] passes per submission and readback.
pub const ROWS: usize = 8;
/// See [`ROWS`].
pub const WIDTH: usize = 256;
/// See [`ROWS`].
pub const LAYERS: usize = 6;
/// See [`ROWS`].
pub const PASSES: usize = 4;

/// The workload in words, as [`Verification::workload`] gives it, with the
/// passes each warm run made per readback ([`PASSES`], or fewer: see
/// [`warm_passes`]).
pub fn workload_text(passes: usize) -> String {
    let unit = if passes == 1 { "pass" } else { "passes" };
    format!("mlp {LAYERS}x{WIDTH}x{WIDTH}, batch {ROWS}, {passes} {unit} per readback")
}

/// The passes per readback of the warm runs: [`PASSES`] (which spread a
/// readback's latency over several passes), or fewer where a run of them,
/// at the first run's time per pass (`first_run_ms`, an upper bound: it
/// includes what the driver compiles late and a readback), would take more
/// than half the budget left (`left_ms`): a slow adapter is then timed one
/// pass per readback, to its readback, within the budget, rather than cut
/// short with work left queued. At least one.
pub fn warm_passes(first_run_ms: f64, left_ms: f64) -> usize {
    let fitting = (left_ms / 2.0 / first_run_ms).floor();
    if fitting >= PASSES as f64 {
        PASSES
    } else if fitting >= 1.0 {
        fitting as usize
    } else {
        1
    }
}

/// The inputs: the batch ([`ROWS`] × [`WIDTH`]), the weights ([`LAYERS`] ×
/// [`WIDTH`] × [`WIDTH`], row `k` of layer `l` at `(l × WIDTH + k) × WIDTH`)
/// and the biases ([`LAYERS`] × [`WIDTH`]), from a fixed seed: every run and
/// every runtime computes the same numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// The batch.
    pub input: Vec<f32>,
    /// The weights, layer after layer, row-major.
    pub weights: Vec<f32>,
    /// The biases, layer after layer.
    pub biases: Vec<f32>,
}

impl Workload {
    /// The fixed workload. Weights uniform in ±√(6/WIDTH) (He's bound for
    /// ReLU), so magnitudes stay near 1 through the layers; biases ±0.1.
    pub fn new() -> Self {
        let mut state = 0x9e37_79b9_u32;
        let mut uniform = |bound: f32| {
            // xorshift32: a fixed sequence, identical everywhere.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            ((state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0) * bound
        };
        let bound = (6.0 / WIDTH as f32).sqrt();
        let input = (0..ROWS * WIDTH).map(|_| uniform(1.0)).collect();
        let weights = (0..LAYERS * WIDTH * WIDTH).map(|_| uniform(bound)).collect();
        let biases = (0..LAYERS * WIDTH).map(|_| uniform(0.1)).collect();
        Self { input, weights, biases }
    }

    /// The output of one pass, as the shader computes it: per layer,
    /// `y[r][j] = b[j] + Σₖ x[r][k] · w[k][j]` summed in `k` order, then
    /// ReLU on every layer but the last. With `F16`, each product's
    /// operands and the product are rounded to half precision first (what
    /// the `f16` shader does), the sum kept in `f32`.
    pub fn forward(&self, precision: VerifyPrecision) -> Vec<f32> {
        let mut x = self.input.clone();
        let mut y = vec![0.0f32; ROWS * WIDTH];
        for layer in 0..LAYERS {
            let weights = &self.weights[layer * WIDTH * WIDTH..(layer + 1) * WIDTH * WIDTH];
            let biases = &self.biases[layer * WIDTH..(layer + 1) * WIDTH];
            for (row, out) in x.chunks_exact(WIDTH).zip(y.chunks_exact_mut(WIDTH)) {
                out.fill(0.0);
                // Row by row of the weights: the same sum, in the same k order,
                // as the shader's, and vectorisable.
                for (k, &value) in row.iter().enumerate() {
                    let weight_row = &weights[k * WIDTH..(k + 1) * WIDTH];
                    match precision {
                        VerifyPrecision::F32 => multiply_add(out, value, weight_row),
                        VerifyPrecision::F16 => {
                            let value = half_round(value);
                            for (o, &w) in out.iter_mut().zip(weight_row) {
                                *o += half_round(value * half_round(w));
                            }
                        }
                    }
                }
                let relu = layer + 1 < LAYERS;
                for (o, &b) in out.iter_mut().zip(biases) {
                    *o += b;
                    if relu && *o < 0.0 {
                        *o = 0.0;
                    }
                }
            }
            std::mem::swap(&mut x, &mut y);
        }
        x
    }
}

impl Default for Workload {
    fn default() -> Self {
        Self::new()
    }
}

/// `out[j] += value × row[j]` for every `j`: the reference's inner loop, a
/// multiply then an add for each element (never fused), as the shader
/// computes each output.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn multiply_add(out: &mut [f32], value: f32, row: &[f32]) {
    for (o, &w) in out.iter_mut().zip(row) {
        *o += value * w;
    }
}

/// `multiply_add` four lanes at a time, where the module is built with
/// WebAssembly SIMD (the verification's module, `scripts/build.sh`): the
/// same multiply then add per element, so the same sums, at the speed a
/// WebAssembly inference runtime computes them (a scalar loop would make
/// WebAssembly look slower than it is, and the GPU faster).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn multiply_add(out: &mut [f32], value: f32, row: &[f32]) {
    use core::arch::wasm32::{f32x4, f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat};
    let times = f32x4_splat(value);
    let (out4, out_rest) = out.as_chunks_mut::<4>();
    let (row4, row_rest) = row.as_chunks::<4>();
    for (o, r) in out4.iter_mut().zip(row4) {
        // (Lanes in and out by value, which the compiler makes one 16-byte
        // load and store: the core has no `unsafe`.)
        let sum = f32x4_add(f32x4(o[0], o[1], o[2], o[3]), f32x4_mul(times, f32x4(r[0], r[1], r[2], r[3])));
        *o = [
            f32x4_extract_lane::<0>(sum),
            f32x4_extract_lane::<1>(sum),
            f32x4_extract_lane::<2>(sum),
            f32x4_extract_lane::<3>(sum),
        ];
    }
    for (o, &w) in out_rest.iter_mut().zip(row_rest) {
        *o += value * w;
    }
}

/// `value` rounded to the nearest half-precision value (ties to even), as
/// an `f32`.
pub fn half_round(value: f32) -> f32 {
    half::f16::from_f32(value).to_f32()
}

/// The layer shader: one invocation per output element, the sum in `k`
/// order as [`Workload::forward`]'s. `{PRELUDE}` and `{PRODUCT}` are
/// filled for each precision (`shader`).
const SHADER: &str = "PRELUDE
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read> biases: array<f32>;
@group(0) @binding(4) var<uniform> layer: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let j = id.x;
  let r = id.y;
  let width = WIDTHu;
  let w0 = layer.x * width * width;
  var sum = 0.0;
  for (var k = 0u; k < width; k++) {
    let a = src[r * width + k];
    let b = weights[w0 + k * width + j];
    sum += PRODUCT;
  }
  sum += biases[layer.x * width + j];
  if (layer.y != 0u) { sum = max(sum, 0.0); }
  dst[r * width + j] = sum;
}
";

/// The WGSL of the layer shader for `precision` (given to the browser as it
/// is: wgpu's web backend passes WGSL through, with no naga).
pub fn shader(precision: VerifyPrecision) -> String {
    let (prelude, product) = match precision {
        VerifyPrecision::F32 => ("", "a * b"),
        VerifyPrecision::F16 => ("enable f16;", "f32(f16(a) * f16(b))"),
    };
    SHADER.replace("PRELUDE", prelude).replace("PRODUCT", product).replace("WIDTH", &WIDTH.to_string())
}

/// How the GPU's output compares with the reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The largest error relative to the largest expected magnitude (infinite
    /// where a value is NaN or infinite).
    pub max_error: f64,
    /// Where it was (the flat index).
    pub at: usize,
    /// Within the tolerance.
    pub within: bool,
    /// Why not, as a sentence; empty when within.
    pub why: String,
}

/// Compares `actual` with `expected` within `tolerance` of the largest
/// expected magnitude. NaN, an infinity, an output of all zeros or of
/// another length are never within.
pub fn compare(expected: &[f32], actual: &[f32], tolerance: f64) -> Comparison {
    let scale = expected.iter().fold(0.0f64, |m, &v| m.max(f64::from(v).abs())).max(f64::MIN_POSITIVE);
    if actual.len() != expected.len() {
        let why = format!("{} values read back where {} were expected", actual.len(), expected.len());
        return Comparison { max_error: f64::INFINITY, at: 0, within: false, why };
    }
    let mut worst = (0.0f64, 0usize);
    for (index, (&e, &a)) in expected.iter().zip(actual).enumerate() {
        if !a.is_finite() {
            let what = if a.is_nan() { "NaN" } else { "an infinity" };
            let why = format!("{what} at index {index}, where {} was expected", number(e.into()));
            return Comparison { max_error: f64::INFINITY, at: index, within: false, why };
        }
        let error = (f64::from(a) - f64::from(e)).abs() / scale;
        if error > worst.0 {
            worst = (error, index);
        }
    }
    let (max_error, at) = worst;
    if actual.iter().all(|&a| a == 0.0) && expected.iter().any(|&e| e != 0.0) {
        return Comparison { max_error, at, within: false, why: "every value read back is zero".into() };
    }
    if max_error > tolerance {
        let why = format!(
            "index {at} is {} where {} was expected: an error of {} of the largest value, above {}",
            number(actual[at].into()),
            number(expected[at].into()),
            number(max_error),
            number(tolerance)
        );
        return Comparison { max_error, at, within: false, why };
    }
    Comparison { max_error, at, within: true, why: String::new() }
}

/// A number for a sentence, rounded to millionths (serde_json's shortest
/// text, not [`core::fmt`]'s float formatting, which the browser module
/// does not otherwise link).
pub fn number(value: f64) -> String {
    crate::json::to_json(&((value * 1e6).round() / 1e6))
}

/// Whether a GPU that took `gpu_ms` for what WebAssembly did in `wasm_ms`
/// is slower past the margin.
pub fn slower_than_wasm(gpu_ms: f64, wasm_ms: f64) -> bool {
    gpu_ms > wasm_ms * SPEED_MARGIN
}

/// Whether the warm runs timed so far (`per_pass_ms`, each run's time per
/// pass, in order) decide the speed against `wasm_ms`: the last run was
/// [`DECISIVE_FACTOR`] past the margin or within it by as much (a GPU's noise
/// does not move a run that far), or a majority of [`WARM_RUNS`] agree. Every
/// run that is started is waited for: a verification leaves no work queued.
pub fn warm_runs_decided(per_pass_ms: &[f64], wasm_ms: f64) -> bool {
    let Some(&last) = per_pass_ms.last() else { return false };
    let threshold = wasm_ms * SPEED_MARGIN;
    if last > threshold * DECISIVE_FACTOR || last * DECISIVE_FACTOR < threshold {
        return true;
    }
    let slower = per_pass_ms.iter().filter(|&&ms| slower_than_wasm(ms, wasm_ms)).count();
    let majority = WARM_RUNS / 2 + 1;
    slower >= majority || per_pass_ms.len() - slower >= majority || per_pass_ms.len() >= WARM_RUNS
}

/// The warm time a verdict is given on: the median of the runs (of two, their
/// mean: two runs are only ever taken where both agree, so their mean is on
/// the same side of the margin).
pub fn middle_run(per_pass_ms: &[f64]) -> Option<f64> {
    let mut sorted = per_pass_ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    let half = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[half]),
        _ => Some((sorted[half - 1] + sorted[half]) / 2.0),
    }
}

/// How many times to repeat the reference pass in one timing so that it
/// spans [`REFERENCE_TICKS`] ticks of a clock of `resolution_ms`, given that
/// one pass took `one_pass_ms`: at least once, and at most twice
/// [`REFERENCE_TICKS`] times (a pass that took less than half a tick, or
/// that the clock did not see, is taken as half a tick).
pub fn reference_repeats(one_pass_ms: f64, resolution_ms: f64) -> u32 {
    let span = REFERENCE_TICKS * resolution_ms;
    let per_pass = one_pass_ms.max(resolution_ms / 2.0);
    (span / per_pass).ceil().max(1.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workload_is_fixed_and_its_output_neither_vanishes_nor_explodes() {
        let workload = Workload::new();
        assert_eq!(workload, Workload::new());
        assert_eq!((workload.input.len(), workload.weights.len(), workload.biases.len()), (2048, 393_216, 1536));
        let out = workload.forward(VerifyPrecision::F32);
        assert_eq!(out.len(), ROWS * WIDTH);
        let largest = out.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!((0.1..100.0).contains(&largest), "largest output {largest}");
        // The last layer has no ReLU: negatives survive, and most values are not zero.
        assert!(out.iter().any(|&v| v < 0.0));
        assert!(out.iter().filter(|&&v| v != 0.0).count() > out.len() * 9 / 10);
        // A fixed first value, so a change of the workload is seen.
        assert_eq!(workload.input[0], {
            let mut s = 0x9e37_79b9_u32;
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        });
    }

    #[test]
    fn the_half_path_differs_from_the_single_one_within_its_tolerance_only() {
        let workload = Workload::new();
        let single = workload.forward(VerifyPrecision::F32);
        let half = workload.forward(VerifyPrecision::F16);
        let between = compare(&single, &half, F16_TOLERANCE);
        assert!(between.within, "{}", between.why);
        assert!(between.max_error > F32_TOLERANCE / 100.0, "f16 rounding must show: {}", between.max_error);
        assert_eq!(half_round(1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(half_round(65504.0), 65504.0);
    }

    #[test]
    fn compare_names_each_way_to_be_wrong() {
        let expected: Vec<f32> = (0..64).map(|i| (i as f32 - 20.0) / 10.0).collect();
        assert!(compare(&expected, &expected, F32_TOLERANCE).within);
        let mut one = expected.clone();
        one[17] += 0.5;
        let c = compare(&expected, &one, F32_TOLERANCE);
        assert!(!c.within);
        assert_eq!(c.at, 17);
        assert!((c.max_error - 0.5 / 4.3).abs() < 1e-6, "{}", c.max_error);
        assert!(c.why.starts_with("index 17 is "), "{}", c.why);
        let mut nan = expected.clone();
        nan[3] = f32::NAN;
        let c = compare(&expected, &nan, F32_TOLERANCE);
        assert!(!c.within && c.max_error.is_infinite() && c.at == 3 && c.why.starts_with("NaN at index 3"), "{c:?}");
        let mut inf = expected.clone();
        inf[5] = f32::INFINITY;
        assert!(compare(&expected, &inf, F32_TOLERANCE).why.starts_with("an infinity at index 5"));
        let zeros = vec![0.0; 64];
        assert_eq!(compare(&expected, &zeros, F32_TOLERANCE).why, "every value read back is zero");
        assert!(compare(&expected, &zeros[..10], F32_TOLERANCE).why.contains("10 values read back"));
        // Just within, and just past, the tolerance.
        let mut near = expected.clone();
        near[0] += (4.3 * 0.9e-3) as f32;
        assert!(compare(&expected, &near, F32_TOLERANCE).within);
        near[0] += (4.3 * 0.2e-3) as f32;
        assert!(!compare(&expected, &near, F32_TOLERANCE).within);
    }

    #[test]
    fn the_speed_rule_keeps_what_is_at_most_the_margin_slower() {
        assert!(!slower_than_wasm(1.0, 1.0));
        assert!(!slower_than_wasm(1.1, 1.0));
        assert!(slower_than_wasm(1.11, 1.0));
        assert!(slower_than_wasm(168.0, 0.8));
        assert!(!slower_than_wasm(0.3, 2.0));
    }

    #[test]
    fn warm_runs_stop_once_one_is_decisive_or_a_majority_agrees() {
        // WebAssembly 2 ms: the threshold is 2.2 ms, decisive past 4.4 or under 1.1.
        assert!(!warm_runs_decided(&[], 2.0));
        assert!(warm_runs_decided(&[4.5], 2.0));
        assert!(warm_runs_decided(&[1.0], 2.0));
        assert!(!warm_runs_decided(&[4.4], 2.0));
        assert!(!warm_runs_decided(&[1.2], 2.0));
        assert!(!warm_runs_decided(&[2.3], 2.0));
        assert!(warm_runs_decided(&[2.3, 2.4], 2.0), "two of three slower");
        assert!(warm_runs_decided(&[2.0, 2.1], 2.0), "two of three within");
        assert!(!warm_runs_decided(&[2.0, 2.3], 2.0), "one each: a third run");
        assert!(warm_runs_decided(&[2.0, 2.3, 2.1], 2.0));
        assert!(warm_runs_decided(&[2.3, 2.0, 9.0], 2.0));
        assert_eq!(middle_run(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(middle_run(&[2.4, 2.2]), Some(2.3));
        assert_eq!(middle_run(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(middle_run(&[5.0]), Some(5.0));
        assert_eq!(middle_run(&[]), None);
    }

    #[test]
    fn a_slow_first_run_makes_shorter_warm_runs_within_the_budget() {
        assert_eq!(warm_passes(1.0, 800.0), PASSES);
        assert_eq!(warm_passes(100.0, 800.0), 4);
        assert_eq!(warm_passes(100.0, 799.0), 3);
        assert_eq!(warm_passes(100.0, 400.0), 2);
        assert_eq!(warm_passes(100.0, 200.0), 1);
        assert_eq!(warm_passes(100.0, 10.0), 1);
        assert_eq!(warm_passes(100.0, 0.0), 1);
        assert_eq!(warm_passes(0.0, 0.0), 1);
        assert_eq!(warm_passes(0.0, 10.0), PASSES);
        assert_eq!(workload_text(4), "mlp 6x256x256, batch 8, 4 passes per readback");
        assert_eq!(workload_text(1), "mlp 6x256x256, batch 8, 1 pass per readback");
    }

    #[test]
    fn the_reference_is_repeated_to_span_its_ticks() {
        // Chromium's 0.1 ms clock, a 1.5 ms pass: once is 15 ticks, twice 30.
        assert_eq!(reference_repeats(1.5, 0.1), 2);
        assert_eq!(reference_repeats(2.0, 0.1), 1);
        // Firefox's 1 ms clock: a pass under half a tick is taken as half a tick.
        assert_eq!(reference_repeats(0.0, 1.0), 40);
        assert_eq!(reference_repeats(0.4, 1.0), 40);
        assert_eq!(reference_repeats(0.8, 1.0), 25);
        assert_eq!(reference_repeats(3.0, 1.0), 7);
        assert_eq!(reference_repeats(30.0, 1.0), 1);
        // A pass the clock could not time: bounded all the same.
        assert_eq!(reference_repeats(f64::NAN, 0.1), 40);
        assert_eq!(reference_repeats(f64::INFINITY, 0.1), 1);
    }

    #[test]
    fn the_shaders_are_filled_for_each_precision() {
        let single = shader(VerifyPrecision::F32);
        assert!(!single.contains("PRELUDE") && !single.contains("PRODUCT") && !single.contains("f16"));
        assert!(single.contains("let width = 256u;") && single.contains("sum += a * b;"));
        let half = shader(VerifyPrecision::F16);
        assert!(half.starts_with("enable f16;") && half.contains("sum += f32(f16(a) * f16(b));"));
    }

    #[test]
    fn verify_reads_true_false_and_the_options() {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "deserialize_verify", default)]
            verify: Option<VerifyOptions>,
        }
        let read = |text: &str| crate::json::from_json::<Holder>(text).map(|h| h.verify);
        assert_eq!(read(r#"{"verify":true}"#).unwrap(), Some(VerifyOptions::default()));
        assert_eq!(read(r#"{"verify":false}"#).unwrap(), None);
        assert_eq!(read(r#"{}"#).unwrap(), None);
        let options = read(r#"{"verify":{"budgetMs":50,"precision":"f16","cache":"none"}}"#).unwrap().unwrap();
        assert_eq!(options, VerifyOptions { budget_ms: 50, precision: VerifyPrecision::F16, cache: VerifyCache::None });
        let error = read(r#"{"verify":{"budget":50}}"#).unwrap_err();
        assert_eq!((error.code.as_str(), error.path.as_str()), ("unknown-field", "verify.budget"), "{error:?}");
        let error = read(r#"{"verify":{"precision":"f64"}}"#).unwrap_err();
        assert_eq!((error.code.as_str(), error.path.as_str()), ("unknown-variant", "verify.precision"), "{error:?}");
        let error = read(r#"{"verify":3}"#).unwrap_err();
        assert_eq!(error.code.as_str(), "wrong-type", "{error:?}");
    }
}
