//! The plan request of SPEC §6 and the one entry point every edge calls:
//! `plan_request_json` (text in, text out, byte-identical everywhere).

use serde::{Deserialize, Serialize};

use crate::availability::Availability;
use crate::capsule::{KernelCapsule, reference_capsules};
use crate::config::ExecutionConfig;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{from_json, to_json};
use crate::limits::Limits;
use crate::planner::{PlanMode, PlanResult, Planner, ResultBound};
use crate::target::Target;
use crate::vocab::BackendOp;

/// What to plan, under which configs, against what, with which catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(browser, derive(tsify::Tsify))]
pub struct PlanRequest {
    /// The ops to plan, in order (snake_case report names are accepted).
    pub ops: Vec<BackendOp>,
    /// One config. Exclusive with `configs`; neither means the default config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub config: Option<ExecutionConfig>,
    /// Configs tried in order (non-empty). Exclusive with `config`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub configs: Option<Vec<ExecutionConfig>>,
    /// Plan against this target's declared availability. Exclusive with
    /// `availability`; neither means the default availability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub target: Option<Target>,
    /// Plan against this availability. Exclusive with `target`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub availability: Option<Availability>,
    /// The catalog; absent means the built-in reference catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(browser, tsify(optional))]
    pub capsules: Option<Vec<KernelCapsule>>,
    /// `wholePlan` (default): the first config that plans every op wins.
    /// `perOp`: each op takes the first config that admits it.
    #[serde(default)]
    #[cfg_attr(browser, tsify(optional))]
    pub mode: PlanMode,
    /// Explain successful ops too (default `true`); failures are always
    /// explained.
    #[serde(default = "crate::json::default_true")]
    #[cfg_attr(browser, tsify(optional))]
    pub explain: bool,
}

impl PlanRequest {
    /// A request for `ops` with every other field at its default.
    pub fn new(ops: Vec<BackendOp>) -> Self {
        Self {
            ops,
            config: None,
            configs: None,
            target: None,
            availability: None,
            capsules: None,
            mode: PlanMode::WholePlan,
            explain: true,
        }
    }

    /// Checks the rules serde cannot express.
    pub fn validate(&self) -> Result<()> {
        if self.config.is_some() && self.configs.is_some() {
            return Err(conflict("configs", "config"));
        }
        if self.configs.as_ref().is_some_and(Vec::is_empty) {
            return Err(Error::new(ErrorCode::EmptyList, "configs", "`configs` must not be empty"));
        }
        if self.target.is_some() && self.availability.is_some() {
            return Err(conflict("availability", "target"));
        }
        if let Some(target) = &self.target {
            target.validate("target")?;
        }
        if let Some(availability) = &self.availability {
            availability.validate("availability")?;
        }
        Ok(())
    }

    /// Checks the request against `limits` (counts, names, WebGPU lists
    /// and the planner's work); the text's bytes are checked before parsing.
    pub fn check_limits(&self, limits: &Limits) -> Result<()> {
        Limits::check("ops", "ops", "ops", self.ops.len(), limits.ops)?;
        let configs = self.configs.as_ref().map_or(1, Vec::len);
        Limits::check("configs", "configs", "configs", configs, limits.configs)?;
        let capsules = self.capsules.as_ref().map_or(BackendOp::ALL.len(), Vec::len);
        Limits::check("capsules", "capsules", "capsules", capsules, limits.capsules)?;
        for (index, capsule) in self.capsules.iter().flatten().enumerate() {
            // Paths relative to the capsule: its own is built only on failure.
            check_capsule(capsule, limits).map_err(|e| e.under(&format!("capsules[{index}]")))?;
        }
        if let Some(capabilities) = self.availability.as_ref().and_then(|a| a.web_gpu.as_ref()) {
            limits.check_webgpu("availability.webGpu", &capabilities.features, capabilities.limits.keys())?;
        }
        let work = configs.saturating_mul(self.ops.len().saturating_add(capsules));
        Limits::check("", "work", "units of work (configs × (ops + capsules))", work, limits.work)?;
        self.check_output(limits)
    }

    /// Refuses a request whose answer could be larger than `outputBytes`
    /// (see `ResultBound`), saying which combination makes it so.
    fn check_output(&self, limits: &Limits) -> Result<()> {
        let reference;
        let catalog = match &self.capsules {
            Some(capsules) => capsules.as_slice(),
            None => {
                reference = reference_capsules();
                reference.as_slice()
            }
        };
        let configs = self.configs.as_ref().map_or(1, Vec::len);
        let web_gpu = self.availability.as_ref().and_then(|availability| availability.web_gpu.as_ref());
        let bound = ResultBound::of(catalog, &self.ops, configs, web_gpu);
        if bound.bytes <= limits.output_bytes {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::LimitExceeded,
            "",
            format!(
                "the plan could take {} bytes of JSON ({} configs, each explaining {} ops and {} capsules with {} \
                 bytes of names), more than the limit outputBytes = {} (it can be raised)",
                bound.bytes,
                configs,
                self.ops.len(),
                bound.candidates,
                bound.name_bytes,
                limits.output_bytes
            ),
        ))
    }

    /// The configs to try, in order.
    pub fn configs(&self) -> Vec<ExecutionConfig> {
        match (&self.config, &self.configs) {
            (Some(config), _) => vec![*config],
            (None, Some(configs)) => configs.clone(),
            (None, None) => vec![ExecutionConfig::default()],
        }
    }

    /// The availability to plan against.
    pub fn availability(&self) -> Availability {
        match (&self.target, &self.availability) {
            (Some(target), _) => target.declared_availability(),
            (None, Some(availability)) => availability.clone(),
            (None, None) => Availability::default(),
        }
    }

    /// Plans the request (validate it first, or use `plan`).
    pub fn run(&self) -> PlanResult {
        let reference;
        let catalog = match &self.capsules {
            Some(capsules) => capsules.as_slice(),
            None => {
                reference = reference_capsules();
                reference.as_slice()
            }
        };
        let availability = self.availability();
        Planner::new(catalog, &availability).explain(self.explain).plan(&self.ops, &self.configs(), self.mode)
    }
}

/// Checks one capsule's names and WebGPU requirements against `limits`; the
/// error's path is relative to the capsule (`requires.features[2]`).
fn check_capsule(capsule: &KernelCapsule, limits: &Limits) -> Result<()> {
    limits.check_name("name", &capsule.name)?;
    if let Some(requires) = &capsule.requires {
        limits.check_webgpu("requires", &requires.features, requires.limits.keys())?;
        requires.validate("requires")?;
    }
    Ok(())
}

fn conflict(field: &str, other: &str) -> Error {
    Error::new(ErrorCode::ConflictingFields, field, format!("give `{other}` or `{field}`, not both"))
}

/// Validates and plans a request under the default limits. `Err` only for
/// invalid input; an unplannable request is `Ok` with `ok: false`.
pub fn plan(request: &PlanRequest) -> Result<PlanResult> {
    request.validate()?;
    request.check_limits(&Limits::DEFAULT)?;
    Ok(request.run())
}

/// Parses a plan request strictly and validates it (default limits).
pub fn parse_plan_request(text: &str) -> Result<PlanRequest> {
    parse_plan_request_with(text, &Limits::DEFAULT)
}

/// Parses a plan request strictly and validates it against `limits`.
pub fn parse_plan_request_with(text: &str, limits: &Limits) -> Result<PlanRequest> {
    limits.validate("limits")?;
    limits.check_bytes(text.len())?;
    let request: PlanRequest = from_json(text)?;
    request.validate()?;
    request.check_limits(limits)?;
    Ok(request)
}

/// Parses a target strictly and validates it.
pub fn parse_target(text: &str) -> Result<Target> {
    let target: Target = from_json(text)?;
    target.validate("")?;
    Ok(target)
}

/// Parses an availability strictly and validates it.
pub fn parse_availability(text: &str) -> Result<Availability> {
    let availability: Availability = from_json(text)?;
    availability.validate("")?;
    Ok(availability)
}

/// The planner as text: a JSON request in, the compact JSON result out.
/// Every runtime calls this, so every runtime gives the same bytes.
pub fn plan_request_json(text: &str) -> Result<(bool, String)> {
    plan_request_json_with(text, &Limits::DEFAULT)
}

/// `plan_request_json` under `limits`.
pub fn plan_request_json_with(text: &str, limits: &Limits) -> Result<(bool, String)> {
    let result = parse_plan_request_with(text, limits)?.run();
    Ok((result.ok, to_json(&result)))
}
