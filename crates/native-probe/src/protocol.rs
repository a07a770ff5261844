//! The check protocol: the exchange between a probe and the child process
//! that runs one check. The probe starts the helper with the request as its
//! arguments (`HELPER_COMMAND <check> [--driver-version M.m]`,
//! [`Request::args`]); the helper reads it ([`Request::parse`], refusing what it
//! does not know with a usage error) and answers on its channel: a line per
//! step it enters (`step_line`), then its report as one JSON line
//! ([`answer`]). The probe reads those lines back ([`line_in`]). How the bytes
//! travel (a pipe on `isolate::ANSWER_FD`, stdout elsewhere) is [`isolate`](crate::isolate)'s
//! and [`serve_check`](crate::serve_check)'s; what they say is here.

use std::ffi::OsString;

use super::HELPER_COMMAND;
use super::checks::Context;
use super::cuda::CudaVersion;
use super::load::LoaderPath;
use backend_targets::json::to_json;
use backend_targets::probe::native::{CheckReport, NativeCheck, NativeReason};
use backend_targets::{Error, ErrorCode};

/// What a probe asks of one check's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Request {
    /// The check to run.
    pub check: NativeCheck,
    /// The CUDA driver's version, as the CUDA check read it (the CUDA
    /// libraries are judged against it).
    pub driver: Option<CudaVersion>,
}

/// What a helper says, after `backend-targets: `, to arguments that are not
/// a request.
const USAGE: &str = "__probe-check takes <check> [--driver-version M.m]";

impl Request {
    /// The helper's arguments for this request, [`HELPER_COMMAND`] first.
    pub fn args(&self) -> Vec<OsString> {
        let mut args = vec![OsString::from(HELPER_COMMAND), OsString::from(self.check.as_str())];
        if let Some(driver) = self.driver {
            args.extend([OsString::from("--driver-version"), OsString::from(driver.to_string())]);
        }
        args
    }

    /// Reads a request from the arguments after `HELPER_COMMAND`: `<check>
    /// [--driver-version MAJOR.MINOR]`, nothing else. Anything else is a
    /// `usage` error whose message the helper writes to stderr.
    pub fn parse(args: &[OsString]) -> Result<Self, Error> {
        let check = args.first().and_then(|a| a.to_str()).and_then(NativeCheck::from_spelling);
        let driver = match &args[1.min(args.len())..] {
            [] => Some(None),
            [flag, value] if flag == "--driver-version" => value.to_str().and_then(CudaVersion::parse).map(Some),
            _ => None,
        };
        match (check, driver) {
            (Some(check), Some(driver)) => Ok(Self { check, driver }),
            _ => Err(Error::new(ErrorCode::Usage, "", USAGE)),
        }
    }
}

/// The answer to `request`: the report `run` gives for it, in a context read
/// from this process's environment, as one JSON line. A panic in the
/// check's own code is its answer too (`check-crashed`), never an exit that
/// reads as a library's (a release build aborts: `SIGABRT`).
pub(crate) fn answer(request: &Request, run: impl FnOnce(NativeCheck, &Context) -> CheckReport) -> String {
    let check = request.check;
    let context = Context { search: LoaderPath::from_env(), driver: request.driver };
    let report =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(check, &context))).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            CheckReport::new(check, NativeReason::CheckCrashed, format!("the {check} check panicked: {what}"))
        });
    let mut line = to_json(&report);
    line.push('\n');
    line
}

/// How a line on the answer channel that names the step the check's process
/// is in begins (`step the load of libcuda.so.1 (its initialisers)`); the
/// answer is the first line that does not.
pub(crate) const STEP_PREFIX: &str = "step ";

/// The longest step a line carries (a library's path may be long), in bytes.
#[cfg(unix)]
pub(crate) const MAX_STEP_BYTES: usize = 512;

/// The line that says a check's process is in `step`: control characters
/// (a newline in a path) replaced, at most [`MAX_STEP_BYTES`] of it.
#[cfg(unix)]
pub(crate) fn step_line(step: &str) -> String {
    let mut line = String::from(STEP_PREFIX);
    for c in step.chars() {
        if line.len() + c.len_utf8() > STEP_PREFIX.len() + MAX_STEP_BYTES {
            break;
        }
        line.push(if c.is_control() { '?' } else { c });
    }
    line.push('\n');
    line
}

/// One line the channel carried (without its newline): a step, or the answer.
pub(crate) enum Line {
    /// (Its text is read on Unix only, where a check's process names its steps.)
    #[cfg_attr(not(unix), allow(dead_code))]
    Step(String),
    Answer(Result<CheckReport, String>),
}

/// What one line of `check`'s channel says: a step, or the answer, which is
/// an error unless it is `check`'s report.
pub(crate) fn line_in(line: &[u8], check: NativeCheck) -> Line {
    if let Some(step) = line.strip_prefix(STEP_PREFIX.as_bytes()) {
        return Line::Step(String::from_utf8_lossy(step).into_owned());
    }
    let parsed = std::str::from_utf8(line)
        .ok()
        .and_then(|line| backend_targets::json::from_json::<CheckReport>(line).ok())
        .filter(|report| report.check == check);
    Line::Answer(parsed.ok_or_else(|| format!("the {check} check's process answered something that is not its report")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    /// A request goes out as the helper's arguments and comes back the same;
    /// what is not a request is refused with a `usage` error, in the words
    /// the helper writes to stderr.
    #[test]
    fn a_request_is_read_back_from_its_arguments_and_a_malformed_one_refused() {
        let plain = Request { check: NativeCheck::Cuda, driver: None };
        let with_driver = Request { check: NativeCheck::CuDnn, driver: CudaVersion::parse("12.4") };
        assert_eq!(plain.args(), args(&[HELPER_COMMAND, "cuda"]));
        assert_eq!(with_driver.args(), args(&[HELPER_COMMAND, "cuDNN", "--driver-version", "12.4"]));
        for request in [plain, with_driver] {
            assert_eq!(Request::parse(&request.args()[1..]), Ok(request));
        }
        for malformed in [
            &[][..],
            &["nonsense"],
            &["cuda", "--driver-version"],
            &["cuda", "--driver-version", "twelve"],
            &["cuda", "--driver"],
            &["cuda", "extra", "words"],
            &["--driver-version", "12.4", "cuda"],
        ] {
            let error = Request::parse(&args(malformed)).expect_err(&format!("{malformed:?} is not a request"));
            assert_eq!(error.code, ErrorCode::Usage, "{malformed:?}");
            assert_eq!(error.message, "__probe-check takes <check> [--driver-version M.m]");
        }
    }

    /// The answer is the report of the check asked for, run with the
    /// request's driver, as one JSON line the probe's reader takes for that
    /// check's answer (and refuses as another check's); a panic in the check
    /// is answered as `check-crashed`.
    #[test]
    fn the_answer_is_one_line_the_probe_reads_back() {
        let request = Request { check: NativeCheck::CuBlas, driver: CudaVersion::parse("12.4") };
        let line = answer(&request, |check, context| {
            assert_eq!(context.driver, request.driver);
            CheckReport::new(check, NativeReason::LibraryAvailable, "cuBLAS 12.4.5 answered")
        });
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "{line:?}");
        let body = line.trim_end().as_bytes();
        match line_in(body, NativeCheck::CuBlas) {
            Line::Answer(Ok(report)) => {
                assert_eq!(
                    report,
                    CheckReport::new(NativeCheck::CuBlas, NativeReason::LibraryAvailable, "cuBLAS 12.4.5 answered")
                );
            }
            _ => panic!("not read back as the answer: {line}"),
        }
        assert!(matches!(line_in(body, NativeCheck::CuFft), Line::Answer(Err(_))), "another check's answer");
        let crashed = answer(&request, |_, _| panic!("a bug in the check"));
        match line_in(crashed.trim_end().as_bytes(), NativeCheck::CuBlas) {
            Line::Answer(Ok(report)) => {
                assert_eq!(report.reason, NativeReason::CheckCrashed);
                assert_eq!(report.message, "the cuBLAS check panicked: a bug in the check");
            }
            _ => panic!("a panic not answered: {crashed}"),
        }
    }

    /// The channel's lines: steps (sanitised, bounded), then the answer.
    #[cfg(unix)]
    #[test]
    fn steps_come_before_the_answer_on_the_channel() {
        let line = step_line("the load of /opt/x\nstep evil (its initialisers)");
        assert_eq!(line, "step the load of /opt/x?step evil (its initialisers)\n");
        let long = step_line(&"é".repeat(1000));
        assert!(long.len() <= STEP_PREFIX.len() + MAX_STEP_BYTES + 1 && long.ends_with("é\n"), "{long}");
        let check = NativeCheck::Cuda;
        match line_in(line.trim_end().as_bytes(), check) {
            Line::Step(step) => assert_eq!(step, "the load of /opt/x?step evil (its initialisers)"),
            Line::Answer(_) => panic!("a step read as the answer"),
        }
        let report = CheckReport::new(check, NativeReason::NoDevice, String::from("none"));
        let answer = to_json(&report);
        assert!(matches!(line_in(answer.as_bytes(), check), Line::Answer(Ok(r)) if r == report));
        assert!(matches!(line_in(answer.as_bytes(), NativeCheck::Rocm), Line::Answer(Err(_))));
        assert!(matches!(line_in(b"garbage", check), Line::Answer(Err(_))));
    }
}
