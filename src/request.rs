//! The plan request of SPEC §6 (its form and the rules serde cannot
//! express), and [`plan`], the one validated way to plan from Rust. Its limits
//! are [`Limits`] ([`limits`](crate::limits)), checked here ([`Limits::check_request`]); its JSON
//! text is read by [`parse_plan_request`](crate::parse_plan_request).

use serde::{Deserialize, Serialize};

use crate::availability::Availability;
use crate::capsule::{KernelCapsule, reference_capsules};
use crate::config::ExecutionConfig;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use crate::plan_result::{PlanMode, PlanResult};
use crate::planner::{Planner, ResultBound};
use crate::target::Target;
use crate::vocab::BackendOp;

/// What to plan, under which configs, against what, with which catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct PlanRequest {
    /// The ops to plan, in order (snake_case report names are accepted).
    pub ops: Vec<BackendOp>,
    /// One config. Exclusive with `configs`; neither means the default config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub config: Option<ExecutionConfig>,
    /// Configs tried in order (non-empty). Exclusive with `config`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub configs: Option<Vec<ExecutionConfig>>,
    /// Plan against this target's declared availability. Exclusive with
    /// `availability`; neither means the default availability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub target: Option<Target>,
    /// Plan against this availability. Exclusive with `target`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub availability: Option<Availability>,
    /// The catalog; absent means the built-in reference catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub capsules: Option<Vec<KernelCapsule>>,
    /// `wholePlan` (default): the first config that plans every op wins.
    /// `perOp`: each op takes the first config that admits it.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(optional))]
    pub mode: PlanMode,
    /// Explain successful ops too (default `true`); failures are always
    /// explained.
    #[serde(default = "crate::json::default_true")]
    #[cfg_attr(feature = "typescript", tsify(optional))]
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
        for (index, capsule) in self.capsules.iter().flatten().enumerate() {
            if let Some(requires) = &capsule.requires {
                requires.validate(&format!("capsules[{index}].requires"))?;
            }
        }
        Ok(())
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

    /// Plans the request as it is, without checking it against limits
    /// again: for a request that [`parse_plan_request`](crate::parse_plan_request) read (which checks
    /// them as it reads) and that was then changed only in ways the limits
    /// do not bound (the command's `plan --probe` sets the availability).
    /// Otherwise call [`plan`], which checks and plans.
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

fn conflict(field: &str, other: &str) -> Error {
    Error::new(ErrorCode::ConflictingFields, field, format!("give `{other}` or `{field}`, not both"))
}

/// Validates `request` against `limits` and plans it: the one way to plan
/// from Rust ([`plan_json`](crate::plan_json) is the one for JSON text). `Err` only for invalid
/// input; an unplannable request is `Ok` with `ok: false`, every decision
/// explained. [`Limits::DEFAULT`] are the limits every runtime applies unless
/// told otherwise.
///
/// ```
/// use backend_targets::{Limits, PlanRequest, plan, vocab::BackendOp};
/// let result = plan(&PlanRequest::new(vec![BackendOp::Matmul]), &Limits::DEFAULT).unwrap();
/// assert!(result.ok);
/// ```
pub fn plan(request: &PlanRequest, limits: &Limits) -> Result<PlanResult> {
    limits.validate("limits")?;
    request.validate()?;
    limits.check_request(request)?;
    Ok(request.run())
}

// A request's checks against `Limits` live with the request: `limits` knows
// no request, so the two modules depend one way (tests/module_graph.rs).
impl Limits {
    /// Checks `request` against these limits (counts, names, WebGPU lists,
    /// the planner's work and the answer's size); a text's bytes are checked
    /// before it is parsed ([`Limits::check_bytes`]).
    pub fn check_request(&self, request: &PlanRequest) -> Result<()> {
        let (limits, request) = (self, request);
        Limits::check("ops", "ops", "ops", request.ops.len(), limits.ops)?;
        let configs = request.configs.as_ref().map_or(1, Vec::len);
        Limits::check("configs", "configs", "configs", configs, limits.configs)?;
        let capsules = request.capsules.as_ref().map_or(BackendOp::ALL.len(), Vec::len);
        Limits::check("capsules", "capsules", "capsules", capsules, limits.capsules)?;
        for (index, capsule) in request.capsules.iter().flatten().enumerate() {
            // Paths relative to the capsule: its own is built only on failure.
            check_capsule(capsule, limits).map_err(|e| e.under(&format!("capsules[{index}]")))?;
        }
        if let Some(capabilities) = request.availability.as_ref().and_then(|a| a.web_gpu.as_ref()) {
            limits.check_webgpu("availability.webGpu", &capabilities.features, capabilities.limits.keys())?;
        }
        let work = configs.saturating_mul(request.ops.len().saturating_add(capsules));
        Limits::check("", "work", "units of work (configs × (ops + capsules))", work, limits.work)?;
        limits.check_output(request)
    }

    /// Refuses a request whose answer could be larger than `outputBytes`
    /// (see [`ResultBound`]), saying which combination makes it so.
    fn check_output(&self, request: &PlanRequest) -> Result<()> {
        let limits = self;
        let reference;
        let catalog = match &request.capsules {
            Some(capsules) => capsules.as_slice(),
            None => {
                reference = reference_capsules();
                reference.as_slice()
            }
        };
        let configs = request.configs.as_ref().map_or(1, Vec::len);
        let web_gpu = request.availability.as_ref().and_then(|availability| availability.web_gpu.as_ref());
        let bound = ResultBound::of(catalog, &request.ops, configs, web_gpu);
        if bound.bytes <= limits.output_bytes {
            return Ok(());
        }
        // `Limits::check`'s sentence, with what the bound counted.
        let what = format!(
            "bytes of JSON the plan could take ({configs} configs, each explaining {} ops and {} capsules with {} \
             bytes of names)",
            request.ops.len(),
            bound.candidates,
            bound.name_bytes
        );
        Limits::check("", "outputBytes", &what, bound.bytes, limits.output_bytes)
    }
}

/// Checks one capsule's names and WebGPU requirements against `limits` (their
/// repeats and values are [`PlanRequest::validate`]'s); the
/// error's path is relative to the capsule (`requires.features[2]`).
fn check_capsule(capsule: &KernelCapsule, limits: &Limits) -> Result<()> {
    limits.check_name("name", &capsule.name)?;
    if let Some(requires) = &capsule.requires {
        limits.check_webgpu("requires", &requires.features, requires.limits.keys())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::entry_points::parse_plan_request;
    use crate::error::{Error, ErrorCode};
    use crate::json::from_json_within;
    use crate::limits::{COUNTED, Limits, Step};

    /// A request whose list or map at `counted` (a [`COUNTED`] row's place)
    /// has three items, every other one that a count limit bounds one;
    /// every item valid.
    fn three_at(counted: &[Step]) -> String {
        let n = |steps: &[Step]| if steps == counted { 3 } else { 1 };
        let list =
            |steps: &[Step], item: &dyn Fn(usize) -> String| (0..n(steps)).map(item).collect::<Vec<_>>().join(",");
        use Step::{Item, Key};
        let features = |steps: &[Step]| list(steps, &|i| format!(r#""f{i}""#));
        let limits = |steps: &[Step]| list(steps, &|i| format!(r#""maxL{i}":{i}"#));
        let capsule = |i: usize| {
            let requires = format!(
                r#""requires":{{"features":[{}],"limits":{{{}}}}}"#,
                features(&[Key("capsules"), Item, Key("requires"), Key("features")]),
                limits(&[Key("capsules"), Item, Key("requires"), Key("limits")])
            );
            format!(
                r#"{{"name":"c{i}","op":"add","provider":"reference","device":"cpu","trustLevel":"checked",{requires}}}"#
            )
        };
        format!(
            r#"{{"ops":[{}],"configs":[{}],"availability":{{"devices":["cpu"],"providers":["reference","webGpu"],"webGpu":{{"features":[{}],"limits":{{{}}}}}}},"capsules":[{}]}}"#,
            list(&[Key("ops")], &|_| r#""add""#.to_string()),
            list(&[Key("configs")], &|_| r#"{"device":"cpu"}"#.to_string()),
            features(&[Key("availability"), Key("webGpu"), Key("features")]),
            limits(&[Key("availability"), Key("webGpu"), Key("limits")]),
            list(&[Key("capsules")], &capsule),
        )
    }

    /// `limits` with the count limit `name` at `value`, the rest at default.
    fn with(name: &str, value: usize) -> Limits {
        let mut limits = Limits::DEFAULT;
        limits.set(name, value).unwrap();
        limits
    }

    /// The path of the first place `steps` reach in `three_at(steps)`.
    fn first_place(steps: &[Step]) -> String {
        let mut path = String::new();
        for step in steps {
            match step {
                Step::Key(key) => path = crate::error::join_path(&path, key),
                Step::Item => path.push_str("[0]"),
            }
        }
        path
    }

    fn refusal(result: crate::error::Result<impl std::fmt::Debug>) -> Error {
        result.expect_err("a refusal")
    }

    #[test]
    fn every_counted_list_is_refused_as_read_as_check_request_refuses_it() {
        for counted in COUNTED {
            let (name, steps) = (counted.name, counted.steps);
            let text = three_at(steps);
            let read = parse_plan_request(&text, &Limits::DEFAULT).unwrap();
            let limits = with(name, 2);
            let expected = refusal(limits.check_request(&read));
            assert_eq!(expected.code, ErrorCode::LimitExceeded, "{name}");
            assert_eq!(expected.path, first_place(steps), "{name}");
            assert!(
                expected.message.starts_with(&format!("3 {name}, more than the limit {name} = 2 ")),
                "{expected:?}"
            );
            // The reader refuses it where it reads it, in the same words.
            let read = refusal(from_json_within::<super::PlanRequest>(&text, &limits));
            assert_eq!(read, expected, "{name}");
            // At the limit, nothing is refused.
            parse_plan_request(&text, &with(name, 3)).unwrap();
        }
    }

    #[test]
    fn a_list_over_its_limit_is_counted_to_its_end_but_not_read() {
        // Items past the limit are counted, not read: a misspelling there is not said.
        let error = refusal(parse_plan_request(r#"{"ops":["matmul","mtmul",{"x":[1,"]"]},3]}"#, &with("ops", 1)));
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::LimitExceeded, "ops"));
        assert!(error.message.starts_with("4 ops, more than the limit ops = 1 "), "{}", error.message);
        // One within the limit is read first.
        let error = refusal(parse_plan_request(r#"{"ops":["mtmul","matmul"]}"#, &with("ops", 1)));
        assert_eq!((error.code, error.path.as_str()), (ErrorCode::UnknownVariant, "ops[0]"));
        // What follows the list is not read: its wrong type, and a rule
        // across fields (`config` with `configs`), are not said.
        for text in
            [r#"{"ops":["matmul","add"],"capsules":"none"}"#, r#"{"ops":["matmul","add"],"config":{},"configs":[{}]}"#]
        {
            let error = refusal(parse_plan_request(text, &with("ops", 1)));
            assert_eq!((error.code, error.path.as_str()), (ErrorCode::LimitExceeded, "ops"), "{text}");
        }
        // Text that is not JSON anywhere is still said first.
        let error = refusal(parse_plan_request(r#"{"ops":["matmul","add"],}"#, &with("ops", 1)));
        assert_eq!(error.code, ErrorCode::InvalidJson);
        // A map's repeated key is said if it comes no later than the key
        // past the limit.
        let map = |entries: &str| {
            format!(
                r#"{{"ops":[],"availability":{{"devices":["cpu"],"providers":["reference"],"webGpu":{{"limits":{{{entries}}}}}}}}}"#
            )
        };
        for (entries, limit, code) in [
            (r#""maxA":1,"maxA":2,"maxB":3"#, 1, ErrorCode::DuplicateField),
            (r#""maxA":1,"maxB":2,"maxA":3"#, 2, ErrorCode::DuplicateField),
            (r#""maxA":1,"maxB":2,"maxA":3"#, 1, ErrorCode::LimitExceeded),
        ] {
            let (text, limits) = (map(entries), with("limits", limit));
            let one = refusal(from_json_within::<super::PlanRequest>(&text, &limits));
            assert_eq!(one.code, code, "{entries} within {limit}");
            let path = if code == ErrorCode::LimitExceeded { "" } else { ".maxA" };
            assert_eq!(one.path, format!("availability.webGpu.limits{path}"));
        }
    }
}
