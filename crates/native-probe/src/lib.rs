//! The native probe (native builds only): before an executable launches
//! work on a native target, it asks the host whether the declared
//! accelerator and features are really there, and gets the declared →
//! effective resolution with a reason per decision.
//!
//! ```no_run
//! use backend_targets::Target;
//! use backend_targets_native_probe as native;
//! // In the program's `main`: a termination signal ends the checks too.
//! native::install_termination_handlers();
//! // Each check in a child process of the helper (crash- and hang-proof):
//! // by default the `backend-targets` command, looked up on `PATH` (install
//! // it: `cargo install --path crates/cli` in this repository); else give its
//! // absolute path, or this program's own (`std::env::current_exe()`) if its
//! // `main` answers `HELPER_COMMAND` (`serve_check_if_requested`).
//! let resolution = native::probe(&Target::linux_cuda(false), &native::Options::default());
//! println!("{:?}", resolution.effective.accelerator);
//! ```
//!
//! What decides each row is one table (`checks::TABLE`); the checks load
//! vendor libraries (`cuda`, `libraries`, `runtimes`, `metal`, through
//! `load`, with `codes` naming their results and `python` pointing at copies
//! the loader cannot see), and `isolate` runs them where a hang, a crash or
//! a chatty library cannot take the caller down or garble the answer.
//! The core's [`NativeResolution::from_changes`] turns the decisions into the
//! effective target.

#![cfg(not(target_family = "wasm"))]

mod checks;
mod codes;
mod cuda;
mod isolate;
mod libraries;
mod load;
mod metal;
mod protocol;
mod python;
mod runtimes;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use checks::Context;
use load::LoaderPath;

use backend_targets::Target;
use backend_targets::probe::native::{
    CheckReport, HostReport, Isolation, NATIVE_PROBE_TIMEOUT_MS, NativeCheck, NativeReason, NativeResolution,
};
use backend_targets::vocab::{Architecture, OperatingSystem};

/// The hidden subcommand a helper executable answers: `HELPER_COMMAND
/// <check> [--driver-version M.m]` writes one `CheckReport` as a JSON line
/// on its answer channel and exits 0 ([`serve_check`]; a program's `main`
/// answers it in one call, [`serve_check_if_requested`]).
pub const HELPER_COMMAND: &str = "__probe-check";

/// Makes `SIGTERM`, `SIGINT` and `SIGHUP` end the running checks' process
/// groups before they end this process as they would have (Unix; nothing
/// elsewhere), where no handler is installed for them yet: a probe with a
/// `helper` that is ended by one of them then leaves no check behind.
///
/// A signal's disposition belongs to the whole process, so the probe never
/// installs these itself: a program calls this once, early in its `main`
/// (the `backend-targets` command does, `crates/cli/src/main.rs`). A handler the
/// program has is left alone; a second call does nothing.
pub fn install_termination_handlers() {
    isolate::install_termination_handlers();
}

/// How to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The bound on the whole probe, in milliseconds: a check that has not
    /// answered by then is reported `timeout`. Default
    /// [`NATIVE_PROBE_TIMEOUT_MS`] (5000).
    pub timeout_ms: u32,
    /// The executable that runs each check in a child process: it must
    /// answer `HELPER_COMMAND <check>`, as `backend-targets` does, or call
    /// [`serve_check_if_requested`]. Default [`DEFAULT_HELPER`], the command, looked up on
    /// `PATH` (`cargo install --path crates/cli` puts it there); any other path
    /// should be absolute (the checks start in `/`, where a relative one
    /// would be resolved); a program that is its own helper gives
    /// [`std::env::current_exe()`]. A helper that cannot be started is each
    /// check's `check-crashed`, with the reason.
    /// (A program ended by `SIGTERM`, `SIGINT` or `SIGHUP` while checks run
    /// ends them too only after [`install_termination_handlers`].)
    pub helper: PathBuf,
}

/// The helper [`Options::default()`] names: the `backend-targets` command,
/// looked up on `PATH` when a check starts.
pub const DEFAULT_HELPER: &str = "backend-targets";

impl Default for Options {
    fn default() -> Self {
        Self { timeout_ms: NATIVE_PROBE_TIMEOUT_MS, helper: PathBuf::from(DEFAULT_HELPER) }
    }
}

/// Linux: makes this process a child subreaper (`PR_SET_CHILD_SUBREAPER`)
/// for the rest of its life, and has every later [`probe`] with a helper end,
/// once its checks have ended, each process that became this process's
/// child without being one of its checks: what a vendor library detached
/// from a check (a daemon started with `setsid`, out of the check's process
/// group) is reparented here when its parent dies, and is killed and reaped
/// with the checks; when `SIGTERM`, `SIGINT` or `SIGHUP` ends the process
/// while a probe runs (and the probe installed its handler: the signal's
/// action was the default), the probe does that first, then the signal ends
/// the process (within some 300 ms). Answers whether it took effect (false
/// elsewhere, where the kernel refused, or where this process already has a
/// live child or its children cannot be read: see below).
///
/// This changes the whole process, so [`probe`] never does it by itself: call
/// it early, in a process whose every child will be the probe's. A process
/// that has a live child when it calls this (one it inherited through
/// `exec`, as in `sh -c 'job & exec backend-targets probe …'`, or started
/// itself) adopts nothing: the orphans that child's own children leave would
/// be adopted too, and could not be told from what a check detached. The
/// children a process has when a probe starts are left alone by that
/// probe's sweep; a process it starts later, while a probe runs, is not
/// (nor the orphans of one it started after this call). The
/// `backend-targets` command calls it at its start (`crates/cli/src/main.rs`).
pub fn adopt_detached_processes() -> bool {
    isolate::adopt_detached_processes()
}

/// This build's operating system, as the vocabulary spells it.
pub const fn host_os() -> OperatingSystem {
    if cfg!(target_os = "linux") {
        OperatingSystem::Linux
    } else if cfg!(target_os = "macos") {
        OperatingSystem::MacOS
    } else if cfg!(windows) {
        OperatingSystem::Windows
    } else {
        OperatingSystem::Unknown
    }
}

/// This build's architecture, as the vocabulary spells it.
pub const fn host_arch() -> Architecture {
    if cfg!(target_arch = "x86_64") {
        Architecture::X86_64
    } else if cfg!(target_arch = "aarch64") {
        Architecture::Aarch64
    } else {
        Architecture::Unknown
    }
}

/// Probes the host for `target`'s accelerator and features, within
/// `options.timeout_ms`; always answers. Each check that loads a vendor
/// library runs in a child process of `options.helper`: a crash, a hang or
/// a library's output there cannot reach the caller.
pub fn probe(target: &Target, options: &Options) -> NativeResolution {
    // SAFETY: with a helper, every check that loads a library runs in a
    // child process of it, never in this one.
    unsafe { probe_with(target, options.timeout_ms, Some(&options.helper)) }
}

/// [`probe`], with each check that loads a vendor library run on a thread of
/// this process instead of a child process: no helper executable, some
/// milliseconds faster, and what the libraries do, done to this process.
///
/// # Safety
///
/// A check loads vendor libraries (`libcuda`, `libcudart`, cuDNN, HIP,
/// libtorch, …) and calls their initialisers, foreign code whose contract
/// this crate cannot check (loading a library is `unsafe` in `libloading`
/// for that reason). The caller accepts, for its whole process, what that
/// code does: a crash or an `abort` ends the process; a hang past
/// `timeout_ms` is reported `timeout` and its thread is abandoned, still
/// running; a library may write to stdout or stderr, change signal
/// dispositions or the environment, start threads or processes, and stays
/// loaded. Use [`probe`] unless the process can afford that.
pub unsafe fn probe_in_threads(target: &Target, timeout_ms: u32) -> NativeResolution {
    // SAFETY: forwarded: without a helper, `probe_with`'s contract is this
    // function's.
    unsafe { probe_with(target, timeout_ms, None) }
}

/// The probe: the checks in `helper`'s child processes, or (`None`) on
/// threads of this process.
///
/// # Safety
///
/// With a helper, none: every check that loads a library runs in a child
/// process of it. Without one (`None`), the checks load vendor libraries
/// into this process, where their initialisers run: the caller must uphold
/// [`probe_in_threads`]'s contract.
unsafe fn probe_with(target: &Target, timeout_ms: u32, helper: Option<&std::path::Path>) -> NativeResolution {
    let start = Instant::now();
    let deadline = start + Duration::from_millis(u64::from(timeout_ms));
    let search = LoaderPath::from_env();
    let run = |checks: Vec<NativeCheck>, context: &Context| -> Vec<CheckReport> {
        // Checks that load nothing here answer at once, without a process.
        let (here, isolated): (Vec<_>, Vec<_>) = checks.into_iter().partition(|&c| checks::loads_nothing(c));
        // SAFETY: these checks load nothing on this platform (`loads_nothing`).
        let mut reports: Vec<CheckReport> = here.into_iter().map(|c| unsafe { checks::run(c, context) }).collect();
        reports.extend(match helper {
            Some(helper) => isolate::in_processes(helper, &isolated, context, deadline, timeout_ms),
            // SAFETY: forwarded: without a helper, `in_threads`'s contract
            // is this function's.
            None => unsafe { isolate::in_threads(&isolated, context, deadline, timeout_ms) },
        });
        reports
    };
    let context = Context { search: search.clone(), driver: None };
    let mut reports = run(checks::first_checks(target), &context);
    let dependent = checks::dependent_checks(target, &reports);
    let context = context.after(&reports);
    reports.extend(run(dependent, &context));
    // Report the checks in the table's order, as decided.
    reports.sort_by_key(|r| checks::TABLE.iter().position(|row| row_check(row) == Some(r.check)));
    // A library the checks did not find, but that an ignored entry of the
    // loader's path would have found in the caller's working directory: say so.
    for report in &mut reports {
        if matches!(report.reason, NativeReason::DriverNotFound | NativeReason::LibraryNotFound) {
            let notes: Vec<String> = checks::bare_names(report.check)
                .into_iter()
                .filter_map(|name| search.shadowed_in_working_directory(std::ffi::OsStr::new(name)))
                .filter(|note| !report.message.contains(note.as_str()))
                .collect();
            if !notes.is_empty() {
                report.message.push_str(&format!(" ({})", notes.join("; ")));
            }
        }
    }
    let changes = checks::decide(target, &reports);
    let report = HostReport::new(
        (host_os(), host_arch()),
        if helper.is_some() { Isolation::Process } else { Isolation::Thread },
        (timeout_ms, start.elapsed().as_secs_f64() * 1000.0),
        search.ignored,
        reports,
    );
    NativeResolution::from_changes(target, changes, report)
}

fn row_check(row: &checks::Row) -> Option<NativeCheck> {
    match row.decided_by {
        checks::DecidedBy::Check(check)
        | checks::DecidedBy::AcceleratorThen(_, check)
        | checks::DecidedBy::CheckAfter(_, check) => Some(check),
        checks::DecidedBy::WithAccelerator(_) | checks::DecidedBy::NotProbeable(_) => None,
    }
}

/// A program's side of the check protocol, in one call from its `main`:
/// where `args` (its arguments, without its own name) are a check's request
/// (`HELPER_COMMAND …`, as a probe starts its helper), answers it
/// ([`serve_check`]) and ends the process; otherwise returns at once, having
/// done nothing.
///
/// # Safety
///
/// Where `args` are a request, [`serve_check`]'s: the check loads vendor
/// libraries into this process, which then ends. None otherwise.
pub unsafe fn serve_check_if_requested(args: &[OsString]) {
    if args.first().is_some_and(|first| first == HELPER_COMMAND) {
        // SAFETY: forwarded: where `args` are a request, `serve_check`'s
        // contract is this function's.
        unsafe { serve_check(&args[1..]) }
    }
}

/// The helper's side, for the arguments after `HELPER_COMMAND`: `<check>
/// [--driver-version MAJOR.MINOR]`. Runs the check in this process, writes
/// its report as one JSON line on the answer channel (file descriptor 3 on
/// Unix, which the probe opens, after lines naming the step it is in, each
/// library's load and the calls into it; stdout where it was not open at the
/// start, or elsewhere; on Unix nowhere, exit status 193, when a library
/// closed or replaced it), and ends the process at once: no library
/// destructor runs after the answer. Exit status 0, or 2 for arguments it
/// does not know (its usage on stderr).
///
/// # Safety
///
/// The check loads vendor libraries (`libcuda`, cuDNN, HIP, libtorch, …)
/// into this process, where their initialisers run, and calls into them:
/// foreign code that may crash, abort, exit or hang the process, write to
/// its stdout or stderr, change its signal dispositions or environment,
/// start threads or processes. The caller must ensure this process is one
/// it may give up to that: the child process a probe started for this
/// check ([`HELPER_COMMAND`], in its own process group, stdout and stderr on
/// `/dev/null`, `/` as its working directory), or one started by hand to
/// run it. It never returns: the process ends here.
pub unsafe fn serve_check(args: &[OsString]) -> ! {
    let request = match protocol::Request::parse(args) {
        Ok(request) => request,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "backend-targets: {}", error.message);
            exit_now(2);
        }
    };
    disable_core_dumps();
    // Before any library loads: what the channel is.
    let channel = CHANNEL.get_or_init(Channel::at_start);
    // SAFETY: forwarded: `run`'s contract is this function's.
    let line = protocol::answer(&request, |check, context| unsafe { checks::run(check, context) });
    channel.write_answer(line.as_bytes());
    exit_now(0)
}

/// The answer channel of this process, where it is a check's
/// ([`serve_check`]); unset elsewhere (a probe on threads of its caller).
static CHANNEL: std::sync::OnceLock<Channel> = std::sync::OnceLock::new();

/// In a check's process, says on its channel which step it is in now
/// (`what`: `the load of libcuda.so.1 (its initialisers)`), so that the probe
/// can say where a process that ended without an answer ended. Nothing
/// elsewhere.
pub(crate) fn step(what: impl FnOnce() -> String) {
    if let Some(channel) = CHANNEL.get() {
        channel.write_step(&what());
    }
}

/// The answer channel as the check's process found it at its start, before
/// any library loaded: a library may close file descriptor 3 and open a file
/// of its own, which gets 3; the answer must not be appended to that file.
#[cfg(unix)]
struct Channel {
    /// The device and inode of `ANSWER_FD` at the start; `None` when it was
    /// not open (the answer goes to stdout).
    identity: Option<(libc::dev_t, libc::ino_t)>,
    /// A close-on-exec copy of `ANSWER_FD` made at the start, at 100 or
    /// above (-1 when none could be made).
    copy: std::os::fd::RawFd,
}

#[cfg(unix)]
impl Channel {
    fn at_start() -> Self {
        let identity = identity_of(isolate::ANSWER_FD);
        let copy = if identity.is_some() {
            // SAFETY: F_DUPFD_CLOEXEC duplicates a descriptor this process
            // holds (or fails with EBADF) onto the lowest free one from 100;
            // it reads and writes no memory of ours.
            unsafe { libc::fcntl(isolate::ANSWER_FD, libc::F_DUPFD_CLOEXEC, 100) }
        } else {
            -1
        };
        Self { identity, copy }
    }

    /// Writes the answer on the channel the probe opened ([`write`](Self::write)). Where
    /// no channel was open at the start, on stdout.
    fn write_answer(&self, bytes: &[u8]) {
        if self.identity.is_none() {
            let _ = std::io::stdout().write_all(bytes);
            let _ = std::io::stdout().flush();
            return;
        }
        self.write(bytes);
    }

    /// Writes the line that names `step` on the channel ([`write`](Self::write)); nothing
    /// where no channel was open at the start (stdout is a person's).
    fn write_step(&self, step: &str) {
        if self.identity.is_some() {
            self.write(protocol::step_line(step).as_bytes());
        }
    }

    /// Writes `bytes` on the channel the probe opened: on `ANSWER_FD` if it
    /// is still the channel, else on the copy if that still is; with
    /// neither, writes nothing and exits [`isolate::LOST_CHANNEL_STATUS`] at
    /// once (no answer can reach the probe), which the probe reports as a
    /// lost channel.
    fn write(&self, bytes: &[u8]) {
        use std::os::fd::FromRawFd;
        let still = self.identity.and_then(|identity| {
            [isolate::ANSWER_FD, self.copy].into_iter().find(|&fd| fd >= 0 && identity_of(fd) == Some(identity))
        });
        let Some(fd) = still else { exit_now(isolate::LOST_CHANNEL_STATUS) };
        // SAFETY: the descriptor is open (fstat just succeeded on it) and
        // not owned elsewhere in this process (the probe passed it, or it is
        // this process's copy); ManuallyDrop leaves it open.
        let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        let _ = channel.write_all(bytes);
    }
}

/// The device and inode of the file open on `fd`, or `None` when it is closed.
#[cfg(unix)]
fn identity_of(fd: std::os::fd::RawFd) -> Option<(libc::dev_t, libc::ino_t)> {
    // SAFETY: fstat writes one struct, zeroed here, or fails (EBADF).
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    (unsafe { libc::fstat(fd, &mut stat) } == 0).then_some((stat.st_dev, stat.st_ino))
}

#[cfg(not(unix))]
struct Channel;

#[cfg(not(unix))]
impl Channel {
    fn at_start() -> Self {
        Self
    }

    fn write_answer(&self, bytes: &[u8]) {
        let _ = std::io::stdout().write_all(bytes);
        let _ = std::io::stdout().flush();
    }

    /// The answer is stdout's only line here: no step is said.
    fn write_step(&self, _step: &str) {}
}

/// Ends this process without running exit handlers or library destructors
/// (a vendor library's may hang or print).
fn exit_now(status: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: _exit ends the process; nothing after it runs.
    unsafe {
        libc::_exit(status)
    }
    #[cfg(not(unix))]
    std::process::exit(status)
}

/// A vendor library that crashes its check leaves no core file behind.
#[cfg(unix)]
fn disable_core_dumps() {
    let limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: setrlimit reads one struct; lowering a limit needs no privilege.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &limit) };
}

#[cfg(not(unix))]
fn disable_core_dumps() {}
