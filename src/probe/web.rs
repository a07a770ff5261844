//! The browser's half of the pair (SPEC §3): the WebGPU probe's options and
//! report, and [`resolve`], which decides the `wasm` target's `webGpu` feature
//! from a report and carries the adapter's capabilities into the
//! availability. Pure: the probe that fills a report lives in the browser
//! module (crates/browser, `probe.rs`); the native half is [`probe::native`](crate::probe::native).

use serde::{Deserialize, Serialize};

use super::verify::Verification;
use super::verify::{self, VerifyOptions};
use crate::availability::Availability;
use crate::target::Target;
use crate::vocab::{BuildFeature, spelled_enum};
use crate::webgpu::{LimitMap, WebGpuCapabilities};

spelled_enum! {
    /// Why a probe ended as it did: one stable code per outcome.
    #[non_exhaustive]
    pub enum ProbeReason {
        /// An adapter answered (and, with `verifyDevice`, gave a device).
        AdapterAvailable = "adapter-available",
        /// No `navigator` (WASI, Node without WebGPU).
        NoNavigator = "no-navigator",
        /// `navigator` exists but `navigator.gpu` does not (e.g. an insecure context).
        NoWebGpuApi = "no-webgpu-api",
        /// `requestAdapter()` answered `null`.
        NoAdapter = "no-adapter",
        /// `requestAdapter()` threw or rejected.
        AdapterRequestFailed = "adapter-request-failed",
        /// `requestAdapter()` answered something that cannot be read as a
        /// `GPUAdapter`: not an object, features or limits that cannot be
        /// read, or more of them (or longer names) than `plan()` accepts with
        /// its default limits.
        AdapterUnreadable = "adapter-unreadable",
        /// No answer within `timeoutMs`.
        Timeout = "timeout",
        /// `verifyDevice`: the adapter did not give a device.
        DeviceRequestFailed = "device-request-failed",
        /// `allowFallbackAdapter: false`: the adapter that answered is a
        /// fallback (software) one, such as SwiftShader, WARP or llvmpipe.
        FallbackAdapter = "fallback-adapter",
        /// `verify`: the adapter computed the workload right, and no slower
        /// than WebAssembly (past the margin): WebGPU kept.
        Verified = "verified",
        /// `verify`: the adapter computed wrong numbers (an error past the
        /// tolerance, NaN, an infinity, all zeros).
        WrongResults = "wrong-results",
        /// `verify`: the adapter computed right, slower than WebAssembly past
        /// the margin.
        SlowerThanWasm = "slower-than-wasm",
        /// `verify`: the device was lost (or could not be had) while verifying.
        DeviceLost = "device-lost",
        /// `verify`: a WebGPU call threw, an error scope caught an error, or
        /// the verification's module could not be had (a service worker
        /// refuses `import()`; its download held past the call's bound).
        VerifyFailed = "verify-failed",
        /// `verify`: no verdict within `budgetMs`.
        VerifyTimeout = "verify-timeout",
    }
}

spelled_enum! {
    /// What the probe did to a declared feature.
    pub enum FeatureAction {
        Kept = "kept",
        Dropped = "dropped",
    }
}

spelled_enum! {
    /// WebGPU's `powerPreference`.
    pub enum PowerPreference {
        LowPower = "low-power",
        HighPerformance = "high-performance",
    }
}

/// Options of `probe()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ProbeOptions {
    /// How long the whole probe may wait for an adapter (and a device), in
    /// milliseconds. Default 2000.
    pub timeout_ms: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    /// WebGPU's `powerPreference` hint; absent leaves the choice to the browser.
    pub power_preference: Option<PowerPreference>,
    /// Ask for a fallback (software) adapter only. Default false.
    pub force_fallback_adapter: bool,
    /// Also request a device from the adapter (WebGPU's default limits, no
    /// features), then destroy it; drop `webGpu` when that fails. Default false.
    pub verify_device: bool,
    /// Keep `webGpu` when the adapter is a fallback (software) one. Default
    /// true, so that the declared-availability answers stay as they are; an
    /// inference app passes false: on a software adapter WebGPU kernels run
    /// on the CPU, much slower than WebAssembly ones (`fallback-adapter`).
    pub allow_fallback_adapter: bool,
    /// Keep `webGpu` only once the adapter has been seen to compute: `true`
    /// (every default) or the options (`budgetMs`, `precision`, `cache`).
    /// Run by `backend-targets/verify`, to which the other entries hand
    /// it; absent or `false`: no verification. Implies a device
    /// (`verifyDevice` asks for one alone).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "verify::deserialize_verify")]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "boolean | Partial<VerifyOptions>"))]
    #[cfg_attr(feature = "schema", schemars(schema_with = "verify_schema"))]
    pub verify: Option<VerifyOptions>,
}

/// `verify`'s schema: a boolean or the options.
#[cfg(feature = "schema")]
fn verify_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let options = generator.subschema_for::<VerifyOptions>();
    schemars::json_schema!({ "anyOf": [{ "type": "boolean" }, options] })
}

/// A probe's outcome reached before any adapter object exists, with its
/// sentence: what the module answers there (crates/browser, `probe_once`),
/// and what the JS entries answer without fetching the module, from
/// `pkg-template/core.generated.js`, which `tests/generated_js.rs` writes
/// from this table (and fails on when it is stale).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreached {
    /// Its key in the generated file.
    pub name: &'static str,
    /// The report's `reason`.
    pub reason: ProbeReason,
    /// The report's `apiPresent`.
    pub api_present: bool,
    /// The report's `message`, [`Unreached::TIMEOUT_MS`] standing for the
    /// probe's bound.
    pub message: &'static str,
}

impl Unreached {
    /// Where a sentence says the probe's bound (`timeoutMs`).
    pub const TIMEOUT_MS: &'static str = "{timeoutMs}";
    /// No `navigator.gpu` in a page or worker that is a secure context (or
    /// does not say): this browser has no WebGPU, or has it switched off.
    pub const NO_WEBGPU_API: Self = Self {
        name: "no-webgpu-api",
        reason: ProbeReason::NoWebGpuApi,
        api_present: false,
        message: "navigator.gpu is missing in this secure context: this browser has no WebGPU, or has it switched off",
    };
    /// No `navigator.gpu` in a page that is not a secure context
    /// (`isSecureContext === false`): WebGPU is only offered to https pages
    /// and localhost.
    pub const INSECURE_CONTEXT: Self = Self {
        name: "insecure-context",
        reason: ProbeReason::NoWebGpuApi,
        api_present: false,
        message: "navigator.gpu is missing: this page is not a secure context, and WebGPU is only offered over https \
                  or on localhost",
    };
    /// `navigator.gpu` is `null`: the API switched on without an
    /// implementation (WebKitGTK's WebGPU setting on Linux does this).
    pub const NULL_WEBGPU_API: Self = Self {
        name: "null-webgpu-api",
        reason: ProbeReason::NoWebGpuApi,
        api_present: false,
        message: "navigator.gpu is null: this browser has the WebGPU API switched on without an implementation (as \
                  WebKitGTK's WebGPU setting does on Linux)",
    };
    /// No time left to ask anything (`timeoutMs: 0`, or a probe started
    /// again whose time has run out).
    pub const NO_TIME: Self = Self {
        name: "no-time",
        reason: ProbeReason::Timeout,
        api_present: true,
        message: "no answer within {timeoutMs} ms",
    };
    /// `requestAdapter()` did not answer within the bound.
    pub const ADAPTER_TIMEOUT: Self = Self {
        name: "adapter-timeout",
        reason: ProbeReason::Timeout,
        api_present: true,
        message: "no answer from requestAdapter() within {timeoutMs} ms",
    };
    /// `requestAdapter()` answered `null`.
    pub const NO_ADAPTER: Self = Self {
        name: "no-adapter",
        reason: ProbeReason::NoAdapter,
        api_present: true,
        message: "requestAdapter() answered null: no suitable adapter",
    };
    /// The module that probes could not be had within the call's bound (its
    /// download held past it, a fetch refused, a `file:` URL where `fetch`
    /// reads none): no probe ran, WebGPU is not used this time, and the next
    /// call tries again. [`ProbeReport::CAUSE`] stands for why; only the
    /// entries' JS answers it (the module, being there, never does).
    pub const MODULE_UNAVAILABLE: Self = Self {
        name: "module-unavailable",
        reason: ProbeReason::VerifyFailed,
        api_present: true,
        message: "the module that probes and verifies WebGPU could not be had within {timeoutMs} ms ({cause}): \
                  WebGPU is not used this time, and the next call tries again",
    };
    /// Every row, in the order the generated file lists them.
    pub const ALL: [Self; 7] = [
        Self::NO_WEBGPU_API,
        Self::INSECURE_CONTEXT,
        Self::NULL_WEBGPU_API,
        Self::NO_TIME,
        Self::ADAPTER_TIMEOUT,
        Self::NO_ADAPTER,
        Self::MODULE_UNAVAILABLE,
    ];

    /// The report of this outcome under the bound `timeout_ms`.
    pub fn report(self, timeout_ms: u32) -> ProbeReport {
        let message = self.message.replace(Self::TIMEOUT_MS, &timeout_ms.to_string());
        ProbeReport::unavailable(self.reason, message, self.api_present, timeout_ms)
    }
}

/// [`ProbeOptions::timeout_ms`] when not given.
pub const DEFAULT_PROBE_TIMEOUT_MS: u32 = 2000;

impl Default for ProbeOptions {
    fn default() -> Self {
        Self {
            timeout_ms: DEFAULT_PROBE_TIMEOUT_MS,
            power_preference: None,
            force_fallback_adapter: false,
            verify_device: false,
            allow_fallback_adapter: true,
            verify: None,
        }
    }
}

/// `GPUAdapterInfo`'s strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct AdapterInfo {
    /// `GPUAdapterInfo.vendor`.
    pub vendor: String,
    /// `GPUAdapterInfo.architecture`.
    pub architecture: String,
    /// `GPUAdapterInfo.device`.
    pub device: String,
    /// `GPUAdapterInfo.description`.
    pub description: String,
}

/// The adapter that answered a probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct AdapterReport {
    /// What the adapter says of itself.
    pub info: AdapterInfo,
    /// A fallback (software) adapter, such as SwiftShader.
    pub is_fallback_adapter: bool,
    /// Feature names in WebGPU spelling, sorted.
    pub features: Vec<String>,
    /// Limits by WebGPU name.
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, number>"))]
    pub limits: LimitMap,
}

impl AdapterReport {
    /// The features and limits planning can gate capsules on.
    pub fn capabilities(&self) -> WebGpuCapabilities {
        WebGpuCapabilities { features: self.features.clone(), limits: self.limits.clone() }
    }
}

/// The outcome of one `probe()`: never an exception, always a reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ProbeReport {
    /// Whether WebGPU is usable: `reason` is `adapter-available`.
    pub available: bool,
    /// Why the probe ended as it did.
    pub reason: ProbeReason,
    /// The outcome as a sentence (with the browser's message, if any).
    pub message: String,
    /// Whether `navigator.gpu` exists.
    pub api_present: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    /// The adapter that answered, if one did.
    pub adapter: Option<AdapterReport>,
    /// With `verifyDevice`: whether a device was obtained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub device_verified: Option<bool>,
    /// With `verify`, once an adapter passed the other checks: what the
    /// verification measured and found (its verdict is `reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub verification: Option<Verification>,
    /// The bound the probe ran under, in milliseconds.
    pub timeout_ms: u32,
    /// How long the probe took.
    pub elapsed_ms: f64,
}

impl ProbeReport {
    /// The report under `options`: with `allowFallbackAdapter: false`, an
    /// adapter that answered but is a fallback (software) one is refused,
    /// `fallback-adapter`, still reported.
    pub fn under(mut self, options: &ProbeOptions) -> Self {
        let fallback = self.adapter.as_ref().is_some_and(|adapter| adapter.is_fallback_adapter);
        if self.available && fallback && !options.allow_fallback_adapter {
            self.available = false;
            self.reason = ProbeReason::FallbackAdapter;
            self.message = format!(
                "{}: a software adapter, refused (allowFallbackAdapter: false): WebGPU kernels would run on the CPU",
                self.message
            );
        }
        self
    }

    /// An unavailable outcome.
    pub fn unavailable(reason: ProbeReason, message: impl Into<String>, api_present: bool, timeout_ms: u32) -> Self {
        Self {
            available: false,
            reason,
            message: message.into(),
            api_present,
            adapter: None,
            device_verified: None,
            verification: None,
            timeout_ms,
            elapsed_ms: 0.0,
        }
    }
}

/// How long a kept verdict is used: 7 days, in milliseconds. Past that (or
/// kept "in the future", while the clock ran ahead: its age cannot be told)
/// the adapter is verified again.
pub const VERDICT_MAX_AGE_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

/// The version of [`KeptVerdict`]'s form, part of every verdict's cache key
/// (the browser module's `verdictKey`): a change to the form (a field of
/// [`WebGpuVerdict`] or [`Verification`] added, removed or changed) changes
/// it, so that no profile looks up a verdict of another form. A test
/// (tests/probe.rs) holds it to the form's JSON Schema.
pub const VERDICT_FORMAT: u32 = 3;

/// A verdict as the cache keeps it (JSON text in localStorage, IndexedDB or
/// the module's memory): when it was kept (milliseconds since the Unix
/// epoch) and the verdict. The one reader of kept verdicts
/// ([`KeptVerdict::read`]) is the core's: every entry of the package asks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeptVerdict {
    /// When it was kept, in milliseconds since the Unix epoch.
    pub at: f64,
    /// The verdict.
    pub verdict: WebGpuVerdict,
}

impl KeptVerdict {
    /// The verdict kept in `text` for the adapter whose key is `key`, at
    /// `now` (milliseconds since the Unix epoch): `None` where the text is
    /// not a kept verdict as this build writes it (read strictly: an unknown
    /// or repeated field, a wrong type, a missing one), is for another key,
    /// is [`VERDICT_MAX_AGE_MS`] old or more, or was kept after `now`. What
    /// `None` means is the same everywhere: the adapter is verified afresh,
    /// and the new verdict replaces the text.
    pub fn read(text: &str, key: &str, now: f64) -> Option<WebGpuVerdict> {
        Self::read_with_time(text, key, now).map(|(_, verdict)| verdict)
    }

    /// [`KeptVerdict::read`], with when the verdict was kept.
    fn read_with_time(text: &str, key: &str, now: f64) -> Option<(f64, WebGpuVerdict)> {
        let kept: Self = crate::json::from_json(text).ok()?;
        let age = now - kept.at;
        let fresh = (0.0..VERDICT_MAX_AGE_MS).contains(&age);
        (fresh && kept.verdict.verification.adapter_key == key).then_some((kept.at, kept.verdict))
    }
}

impl ProbeReport {
    /// The report with the verdict kept in `text` applied ([`KeptVerdict::read`]
    /// for `key` at `now`), as an answer from the cache (`cached: true`,
    /// the verification's `elapsedMs` 0); `None` where the core does not
    /// read the text (the adapter is verified afresh).
    pub fn with_kept_verdict(&self, text: &str, key: &str, now: f64) -> Option<Self> {
        let (at, mut verdict) = KeptVerdict::read_with_time(text, key, now)?;
        verdict.verification.cached = true;
        verdict.verification.kept_at = Some(at);
        verdict.verification.elapsed_ms = 0.0;
        Some(self.clone().with_verdict(verdict))
    }

    /// The report with a verification's verdict: kept (`verified`) or
    /// dropped with its reason, the verdict's sentence and its figures.
    pub fn with_verdict(mut self, verdict: WebGpuVerdict) -> Self {
        self.available = verdict.reason == ProbeReason::Verified;
        self.reason = verdict.reason;
        self.message = verdict.message;
        self.verification = Some(verdict.verification);
        self
    }

    /// Where [`ProbeReport::VERIFICATION_NOT_LOADED`] says why.
    pub const CAUSE: &'static str = "{cause}";

    /// The sentence after the adapter's when `verify` was asked and the
    /// verification's module could not be loaded ([`ProbeReport::CAUSE`]
    /// standing for the runtime's error).
    pub const VERIFICATION_NOT_LOADED: &'static str = "not verified: the verification's module could not be loaded \
({cause}); where import() is refused, as in a service worker, import backend-targets/verify, which needs none";

    /// The report of a probe asked to verify whose verification could not
    /// run because its module could not be loaded (`cause`: the runtime's
    /// error, such as a service worker refusing `import()`): an adapter the
    /// probe found usable is not kept, `verify-failed` (not a lasting
    /// verdict: the next call tries again), with no figures; any other
    /// report is as it was.
    pub fn without_verification(mut self, cause: &str) -> Self {
        if self.available {
            self.available = false;
            self.reason = ProbeReason::VerifyFailed;
            self.message = format!("{}: {}", self.message, Self::VERIFICATION_NOT_LOADED.replace(Self::CAUSE, cause));
            self.verification = None;
        }
        self
    }
}

impl ProbeReason {
    /// Whether a verification that ended so is worth keeping in the cache:
    /// what the adapter computed (right or wrong) and how fast, not a fault
    /// or a timeout that may not happen again.
    pub fn is_lasting(self) -> bool {
        matches!(self, Self::Verified | Self::WrongResults | Self::SlowerThanWasm)
    }

    /// What happened, then what the app (or its user) should do: one
    /// sentence per reason, the npm package README's table
    /// ([`what_to_do_markdown`](Self::what_to_do_markdown), held to it by
    /// tests/generated_js.rs). Every reason but `adapter-available` and
    /// `verified` drops `webGpu`: the app runs its WebAssembly (CPU) kernels.
    pub fn what_to_do(self) -> &'static str {
        match self {
            Self::AdapterAvailable => {
                "`requestAdapter()` answered an adapter that could be read: use WebGPU; if \
                 `probe().adapter.isFallbackAdapter` is true it is a software adapter, which \
                 `allowFallbackAdapter: false` refuses"
            }
            Self::NoNavigator => {
                "no `navigator` with WebGPU where WebGPU can run (Node, a WASI runtime, Node with a polyfilled \
                 `navigator.gpu`): run the WebAssembly kernels; in Deno the probe runs as in a page"
            }
            Self::NoWebGpuApi => {
                "`navigator.gpu` is absent (a browser without WebGPU, or a page that is not a secure context): serve \
                 the page over `https://` (or `http://localhost`); otherwise run the WebAssembly kernels"
            }
            Self::NoAdapter => {
                "`requestAdapter()` answered `null` (no usable GPU, a GPU or driver the browser blocks, WebGPU \
                 turned off, or a headless browser): run the WebAssembly kernels; `chrome://gpu` (Chromium) says \
                 why the GPU is blocked"
            }
            Self::AdapterRequestFailed => {
                "`requestAdapter()` threw or rejected: run the WebAssembly kernels; the console has the browser's words"
            }
            Self::AdapterUnreadable => {
                "`requestAdapter()` answered something that is not a readable adapter (a polyfill or an extension \
                 standing in for WebGPU): run the WebAssembly kernels; check what replaced `navigator.gpu`"
            }
            Self::Timeout => {
                "no answer within `timeoutMs` (2000 by default; the GPU process starting, or busy): run the \
                 WebAssembly kernels now; probe again later, or give a longer `timeoutMs`"
            }
            Self::DeviceRequestFailed => {
                "with `verifyDevice: true`, the adapter answered but `requestDevice()` failed (a lost GPU, limits it \
                 cannot give): run the WebAssembly kernels"
            }
            Self::FallbackAdapter => {
                "the adapter is a software one (SwiftShader, WARP, llvmpipe) and `allowFallbackAdapter: false` was \
                 given: run the WebAssembly kernels, which are faster than a software GPU"
            }
            Self::Verified => {
                "with `verify`, the adapter computed the workload right and no slower than WebAssembly: use WebGPU \
                 (`verification` has the figures)"
            }
            Self::WrongResults => {
                "with `verify`, the adapter's numbers were wrong: past the tolerance, NaN, infinite or all zeros \
                 (`verification.maxError`, `maxErrorAt`): run the WebAssembly kernels; a driver or browser update may \
                 fix it (the cache key changes with them); with `precision: 'f16'`, an f32 model may still run on \
                 WebGPU"
            }
            Self::SlowerThanWasm => {
                "with `verify`, right numbers, but more than 1.1 × slower than WebAssembly (`gpuMs`, `wasmMs`, \
                 `ratio`; an integrated or software GPU): run the WebAssembly kernels; a much larger model may still \
                 gain from the GPU: measure it with your runtime"
            }
            Self::DeviceLost => {
                "with `verify`, the device was lost (or not given) while verifying, a GPU reset or a driver crash: \
                 run the WebAssembly kernels; `clearVerifications()` is not needed (faults are not kept)"
            }
            Self::VerifyFailed => {
                "with `verify`, a WebGPU call threw or an error scope caught an error, or the verification's module \
                 could not be loaded (a service worker refuses `import()`; a network error), the browser's words in \
                 the message: run the WebAssembly kernels; in a service worker, import `backend-targets/verify`; \
                 else report the message to the browser's bug tracker"
            }
            Self::VerifyTimeout => {
                "with `verify`, no verdict within `budgetMs` (1000 by default; a busy machine or a slow driver): run \
                 the WebAssembly kernels now; a larger `budgetMs` may verify (timeouts are not kept, so the next call \
                 verifies again)"
            }
        }
    }

    /// The npm package README's table of what each reason means and what to
    /// do, from [`what_to_do`](Self::what_to_do).
    pub fn what_to_do_markdown() -> String {
        crate::error::what_to_do_table(Self::ALL.iter().map(|reason| (reason.as_str(), reason.what_to_do())))
    }
}

/// A verification's verdict: the reason, the sentence and the figures (what
/// the cache keeps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WebGpuVerdict {
    /// `verified`, or why WebGPU is dropped.
    pub reason: ProbeReason,
    /// The verdict as a sentence, after the adapter's.
    pub message: String,
    /// What was measured and found.
    pub verification: Verification,
}

impl WebGpuVerdict {
    /// The verdict `reason`, with `detail` (the stop's own words, if any),
    /// said of the adapter `adapter` describes.
    pub fn new(reason: ProbeReason, detail: &str, adapter: &str, verification: Verification) -> Self {
        let ms = |value: Option<f64>| value.map_or_else(|| "?".to_string(), verify::number);
        let (gpu, wasm) = (ms(verification.gpu_ms), ms(verification.wasm_ms));
        let said = match reason {
            ProbeReason::Verified => format!(
                "verified: right numbers ({}), {gpu} ms a pass on the GPU against {wasm} ms in WebAssembly",
                verification.checked.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
            ),
            ProbeReason::SlowerThanWasm => {
                match verification.gpu_ms_more_than.filter(|_| verification.gpu_ms.is_none()) {
                    Some(bound) => format!(
                        "slower than WebAssembly: more than {} ms a pass on the GPU (its run stopped there, at the budget) \
                     against {wasm} ms in WebAssembly (more than {} times)",
                        verify::number(bound),
                        verify::number(verification.margin)
                    ),
                    None => format!(
                        "slower than WebAssembly: {gpu} ms a pass on the GPU against {wasm} ms in WebAssembly (more than {} \
                     times)",
                        verify::number(verification.margin)
                    ),
                }
            }
            _ => detail.to_string(),
        };
        Self { reason, message: format!("{adapter}: {said}"), verification }
    }
}

/// One feature the probe decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct FeatureChange {
    /// The feature decided.
    pub feature: BuildFeature,
    /// Kept or dropped.
    pub action: FeatureAction,
    /// The probe's outcome that decided it.
    pub reason: ProbeReason,
    /// The decision as a sentence.
    pub detail: String,
}

/// A target before and after a probe.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Resolution {
    /// The target as given.
    #[cfg_attr(feature = "typescript", tsify(type = "Required<Target>"))]
    pub declared: Target,
    /// The target after the probe (`webGpu` dropped unless an adapter answered).
    #[cfg_attr(feature = "typescript", tsify(type = "Required<Target>"))]
    pub effective: Target,
    /// The effective availability, with the adapter's WebGPU capabilities
    /// when `webGpu` was kept (so planning can gate capsules on them).
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "Omit<Required<Availability>, \"webGpu\"> & { webGpu?: Required<WebGpuCapabilities> }")
    )]
    pub availability: Availability,
    /// One entry per feature the probe decided (only `webGpu` is).
    pub changes: Vec<FeatureChange>,
    /// Features kept exactly as declared: a browser cannot probe them.
    pub as_declared: Vec<BuildFeature>,
    /// The probe's report.
    pub probe: ProbeReport,
}

/// Decides `webGpu` from a probe; every other feature, and every native
/// target, stays as declared.
pub fn resolve(target: &Target, report: &ProbeReport) -> Resolution {
    let mut effective = target.clone();
    let mut changes = Vec::new();
    let mut capabilities = None;
    if target.features.contains(&BuildFeature::WebGpu) {
        let (action, detail) = if report.available {
            capabilities = report.adapter.as_ref().map(AdapterReport::capabilities);
            (FeatureAction::Kept, format!("an adapter answered: {}", report.message))
        } else {
            effective.features.retain(|&f| f != BuildFeature::WebGpu);
            (FeatureAction::Dropped, report.message.clone())
        };
        changes.push(FeatureChange { feature: BuildFeature::WebGpu, action, reason: report.reason, detail });
    }
    let mut availability = effective.declared_availability();
    availability.web_gpu = capabilities;
    let as_declared = target.features.iter().copied().filter(|&f| f != BuildFeature::WebGpu).collect();
    Resolution { declared: target.clone(), effective, availability, changes, as_declared, probe: report.clone() }
}
