//! The crate's text entry points: JSON text in, parsed strictly (an unknown
//! field, a wrong type, a repeated key or value, a bad spelling: an `Error`
//! with a code and a path) and validated, and for [`plan_json`] the compact
//! JSON result out, the same bytes in every runtime.

use crate::availability::Availability;
use crate::error::Result;
use crate::json::{from_json, to_json};
use crate::limits::Limits;
use crate::request::PlanRequest;
use crate::target::Target;

/// Parses a plan request strictly and validates it against `limits` (its
/// bytes before it is read): what [`plan_json`] plans.
pub fn parse_plan_request(text: &str, limits: &Limits) -> Result<PlanRequest> {
    limits.validate("limits")?;
    limits.check_bytes(text.len())?;
    let request: PlanRequest = crate::json::from_json_within(text, limits)?;
    request.validate()?;
    limits.check_request(&request)?;
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

/// The planner as text, the one way to plan JSON: a request in (parsed
/// strictly, validated against `limits`), whether it planned and the compact
/// JSON result out. Every runtime calls this, so every runtime gives the
/// same bytes (`backend-targets plan`, `planJson` in JS, the HTTP service).
pub fn plan_json(text: &str, limits: &Limits) -> Result<(bool, String)> {
    let result = parse_plan_request(text, limits)?.run();
    Ok((result.ok, to_json(&result)))
}

/// A form an edge writes as JSON text: [`json::to_json`](crate::json::to_json) of it, instantiated
/// here. The browser module (crates/browser, a crate of its own) writes
/// through these rather than `to_json::<T>`: serde's and serde_json's
/// generic code compiled in its crate would carry its own copy of every
/// string that code names (field names, spellings, serde_json's words),
/// which the linker keeps beside the core's, in the size-bound module.
pub trait ToJsonText {
    /// The compact JSON text ([`json::to_json`](crate::json::to_json)).
    fn to_json_text(&self) -> String;
}

/// A form an edge reads from JSON text, strictly: [`json::from_json`](crate::json::from_json) of it,
/// instantiated here (see [`ToJsonText`]).
pub trait FromJsonText: Sized {
    /// The value read strictly ([`json::from_json`](crate::json::from_json)).
    fn from_json_text(text: &str) -> Result<Self>;
}

macro_rules! json_text_forms {
    (write: $($write:ty),+; read: $($read:ty),+;) => {
        $(impl ToJsonText for $write {
            fn to_json_text(&self) -> String {
                to_json(self)
            }
        })+
        $(impl FromJsonText for $read {
            fn from_json_text(text: &str) -> Result<Self> {
                from_json(text)
            }
        })+
    };
}

json_text_forms! {
    write: Target, Availability, Vec<crate::vocab::Device>, Vec<crate::vocab::Provider>,
        Vec<crate::target::NamedPreset>, Vec<crate::capsule::KernelCapsule>, crate::probe::web::ProbeReport,
        crate::probe::web::AdapterReport, crate::probe::web::Resolution;
    read: Target, crate::target::PresetOptions, crate::limits::PlanOptions, crate::probe::web::ProbeOptions,
        crate::probe::web::ProbeReport;
}

json_text_forms! {
    write: crate::probe::web::KeptVerdict;
    read: crate::probe::web::KeptVerdict;
}

json_text_forms! {
    write: crate::probe::native::NativeResolution;
    read: crate::probe::native::NativeOptions;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::web::{ProbeOptions, ProbeReason, ProbeReport, resolve};

    /// Each form's own text is `to_json`'s and reads back as `from_json`
    /// reads it, errors included: the browser module answers through these.
    #[test]
    fn the_forms_texts_are_to_json_and_from_json() {
        let target = Target::linux_cuda(true);
        assert_eq!(target.to_json_text(), to_json(&target));
        assert_eq!(target.declared_availability().to_json_text(), to_json(&target.declared_availability()));
        assert_eq!(target.devices().to_json_text(), to_json(&target.devices()));
        assert_eq!(target.providers().to_json_text(), to_json(&target.providers()));
        assert_eq!(crate::target::presets().to_json_text(), to_json(&crate::target::presets()));
        assert_eq!(crate::capsule::reference_capsules().to_json_text(), to_json(&crate::capsule::reference_capsules()));
        let report = ProbeReport::unavailable(ProbeReason::NoNavigator, "no navigator", false, 2000);
        assert_eq!(report.to_json_text(), to_json(&report));
        let resolution = resolve(&Target::wasm(), &report);
        assert_eq!(resolution.to_json_text(), to_json(&resolution));
        assert_eq!(ProbeReport::from_json_text(&report.to_json_text()).unwrap(), report);
        assert_eq!(Target::from_json_text(&target.to_json_text()).unwrap(), target);
        assert_eq!(ProbeOptions::from_json_text("{}").unwrap(), ProbeOptions::default());
        let options = crate::limits::PlanOptions::from_json_text(r#"{"limits":{"ops":7}}"#).unwrap();
        assert_eq!(options.limits.ops, 7);
        for text in ["{\"os\":1}", "[", "{\"limits\":{\"x\":1}}"] {
            assert_eq!(Target::from_json_text(text).err(), from_json::<Target>(text).err(), "{text}");
            assert_eq!(
                crate::limits::PlanOptions::from_json_text(text).err(),
                from_json::<crate::limits::PlanOptions>(text).err(),
                "{text}"
            );
        }
        let options = crate::target::PresetOptions::from_json_text("{}").unwrap();
        assert_eq!(to_json(&options), to_json(&crate::target::PresetOptions::default()));
    }
}
