//! Where checks run, so that a vendor library cannot take the caller down
//! nor forge or garble the answer: each in a child process of a helper
//! executable (the command itself, `HELPER_COMMAND <check>`); or, for a Rust
//! caller without a helper, each on a thread, abandoned at the deadline (a
//! crash there is the caller's crash). Either way the probe answers by the
//! deadline.
//!
//! A check's process (Unix):
//! - answers on a channel of its own, file descriptor `ANSWER_FD` (a pipe),
//!   not stdout: what a library prints (stdout and stderr go to
//!   `/dev/null`) can neither pass for the answer nor hide it, and the
//!   parent reads only the new bytes, at most `MAX_ANSWER_BYTES`; the
//!   answer is written only to that pipe (checked by its inode, on
//!   `ANSWER_FD` or a copy made before any library loaded), never to a file
//!   a library opened in its place (`LOST_CHANNEL_STATUS`);
//! - says on that channel, before its answer, which step it is in (a
//!   library's load, a call into it: `protocol::STEP_PREFIX` lines), so that a process
//!   that ends without an answer is reported with the step it ended in (a
//!   library that calls `exit(N)` in its initialiser, `N` its status);
//! - exits at once after its answer (`_exit`: no library destructor runs);
//! - starts with no signal blocked and every disposition at its default,
//!   whatever the probe's own were (`child_setup`);
//! - runs in its own process group, killed as a group once it has
//!   answered, at the deadline, or, where the program installed
//!   `install_termination_handlers` (the command does, in its `main`), when
//!   the probe is ended by `SIGTERM`, `SIGINT` or `SIGHUP`; on Linux it is
//!   killed when the probe dies (`PR_SET_PDEATHSIG`);
//! - starts in `/`, with `LD_LIBRARY_PATH` stripped of its empty and
//!   relative entries (`LoaderPath`): nothing is loaded from the caller's
//!   working directory.
//!
//! What a library moves out of the group (`setsid`) is ended with the checks
//! only where the program asked for it (`adopt_detached_processes`, Linux:
//! the command does), also when the probe is ended by `SIGTERM`, `SIGINT`
//! or `SIGHUP` (the probe then ends within some 20 ms plus `end_adopted`'s
//! 250 ms at most); otherwise it is not killed. What a library forks lives
//! on if the probe itself is killed with `SIGKILL` (which nothing can catch)
//! while the check runs.

use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use super::checks::{Context, run};
#[cfg(not(unix))]
use super::protocol::{Line, line_in};
use backend_targets::probe::native::{CheckReport, NativeCheck, NativeReason};

/// The file descriptor a check's process writes its answer to.
#[cfg(unix)]
pub const ANSWER_FD: i32 = 3;

/// The exit status of a check's process that found, when it came to write on
/// its answer channel, that a library had closed or replaced it (and the
/// copy it made at its start): it wrote its answer nowhere. Chosen away
/// from the statuses a library that ends the process itself uses (0 to a
/// few, `exit(-1)`'s 255), and above 128 + every signal's number (64), so
/// that no shell reads it as a signal's end either: any other status is
/// reported as the library's `exit(N)`, with the step it ended in.
#[cfg(unix)]
pub const LOST_CHANNEL_STATUS: i32 = 193;

/// The most bytes an answer may take (a report with 64 devices is a few KiB).
const MAX_ANSWER_BYTES: usize = 1 << 20;

fn timed_out(check: NativeCheck, timeout_ms: u32, what: &str) -> CheckReport {
    CheckReport::new(
        check,
        NativeReason::Timeout,
        format!("the {check} check gave no answer within {timeout_ms} ms; {what}"),
    )
}

fn crashed(check: NativeCheck, message: String) -> CheckReport {
    CheckReport::new(check, NativeReason::CheckCrashed, message)
}

/// Why `check`'s helper process did not start, and, where the helper is
/// not there, what to do.
fn not_started(check: NativeCheck, helper: &std::path::Path, error: &std::io::Error) -> String {
    let mut message = format!("the {check} check could not start ({}: {error})", helper.display());
    if error.kind() == std::io::ErrorKind::NotFound && helper.starts_with("/proc") {
        // A program that names its own file through `/proc/self/exe` (the
        // command does) where no `/proc` is mounted (a chroot, a container).
        message.push_str(
            "; /proc is not mounted here, so the program cannot name its own executable to run the check in: \
             mount /proc (`mount -t proc proc /proc`), or give an absolute helper path",
        );
    } else if error.kind() == std::io::ErrorKind::NotFound && helper.components().count() == 1 {
        message.push_str(&format!(
            "; the helper was not found: put the `{}` command on PATH (`cargo install --path crates/cli` in its \
             repository) or name another in `backend_targets_native_probe::Options::helper`",
            super::DEFAULT_HELPER
        ));
    }
    message
}

/// The report on the first complete line of `bytes` that is not a step:
/// `Some(Err)` when it is not this check's report.
#[cfg(not(unix))]
fn answer_in(bytes: &[u8], check: NativeCheck) -> Option<Result<CheckReport, String>> {
    let mut lines = bytes.split_inclusive(|&b| b == b'\n').filter(|line| line.ends_with(b"\n"));
    lines.find_map(|line| match line_in(&line[..line.len() - 1], check) {
        Line::Step(_) => None,
        Line::Answer(answer) => Some(answer),
    })
}

#[cfg(unix)]
pub(crate) use unix::{in_processes, install_termination_handlers};

/// Elsewhere (Windows) there are no termination signals to handle.
#[cfg(not(unix))]
pub(crate) fn install_termination_handlers() {}

#[cfg(target_os = "linux")]
pub(crate) use unix::adopt_detached_processes;

/// Elsewhere no process adopts orphans but the system's first.
#[cfg(not(target_os = "linux"))]
pub(crate) fn adopt_detached_processes() -> bool {
    false
}

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io::{ErrorKind, Read};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::path::Path;
    use std::process::{Child, Command, ExitStatus, Stdio};
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::time::{Duration, Instant};

    use super::super::checks::Context;
    use super::super::load::LOADER_PATH_VARIABLE;
    use super::super::protocol::{Line, Request, line_in};
    use super::{ANSWER_FD, LOST_CHANNEL_STATUS, MAX_ANSWER_BYTES, crashed, not_started, timed_out};
    use backend_targets::probe::native::{CheckReport, NativeCheck};

    /// One check's process while it runs.
    struct Running {
        check: NativeCheck,
        child: Child,
        /// The answer channel's read end; `None` once it closed.
        answer: Option<File>,
        /// What it wrote after its last complete line.
        bytes: Vec<u8>,
        /// How many bytes it wrote in all.
        received: usize,
        /// The step it last said it was in.
        step: Option<String>,
        /// The slot of its group in `GROUPS`.
        slot: Option<usize>,
    }

    /// Runs `checks` in child processes of `helper`, all at once, until `deadline`.
    pub(crate) fn in_processes(
        helper: &Path,
        checks: &[NativeCheck],
        context: &Context,
        deadline: Instant,
        timeout_ms: u32,
    ) -> Vec<CheckReport> {
        let start = Instant::now();
        #[cfg(target_os = "linux")]
        PROBING.fetch_add(1, Ordering::SeqCst);
        // Where this process adopts: the children it has before the checks
        // start are not the probe's (the program's own, or another probe's
        // checks), and the sweep leaves them alone.
        #[cfg(target_os = "linux")]
        let before: Vec<libc::pid_t> = if ADOPTING.load(Ordering::SeqCst) {
            children().unwrap_or_default().into_iter().map(|(pid, _)| pid).collect()
        } else {
            Vec::new()
        };
        let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
        let mut running: Vec<(usize, Running)> = Vec::new();
        let mut started: Vec<libc::pid_t> = Vec::new();
        for (index, &check) in checks.iter().enumerate() {
            match spawn(helper, check, context) {
                Ok(process) => {
                    started.push(process.child.id() as libc::pid_t);
                    running.push((index, process));
                }
                Err(message) => reports[index] = Some(crashed(check, message)),
            }
        }
        while !running.is_empty() {
            wait_for_news(&running, deadline);
            // Ended by a signal the handler left to this loop: no answer.
            #[cfg(target_os = "linux")]
            if TERMINATING.load(Ordering::SeqCst) != 0 {
                running.drain(..).for_each(|(_, process)| end(process));
                break;
            }
            let now = Instant::now();
            let mut still = Vec::new();
            for (index, mut process) in running {
                match step(&mut process, now >= deadline, timeout_ms) {
                    Some(mut report) => {
                        end(process);
                        report.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
                        reports[index] = Some(report);
                    }
                    None => still.push((index, process)),
                }
            }
            running = still;
        }
        #[cfg(target_os = "linux")]
        {
            PROBING.fetch_sub(1, Ordering::SeqCst);
            end_adopted(&started, &before);
            let signal = TERMINATING.load(Ordering::SeqCst);
            if signal != 0 {
                // SAFETY: raise is async-signal-safe; the handler left the
                // signal's action at its default (SA_RESETHAND), so this
                // ends the process as the signal would have.
                unsafe { libc::raise(signal) };
            }
        }
        reports
            .into_iter()
            .zip(checks)
            .map(|(report, &check)| report.unwrap_or_else(|| timed_out(check, timeout_ms, "not run")))
            .collect()
    }

    /// Whether `adopt_detached_processes` made this process a subreaper.
    #[cfg(target_os = "linux")]
    static ADOPTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    /// How many `in_processes` calls are running.
    #[cfg(target_os = "linux")]
    static PROBING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// A termination signal whose handler, in a subreaper with a probe
    /// running, left the process's end to that probe (0: none): the probe
    /// ends its checks, then what they detached (`end_adopted`), then raises
    /// the signal again. The handler stores it before it reads `PROBING`,
    /// and a probe decrements `PROBING` before it reads it: one of the two
    /// sees the other, so the signal is never lost.
    #[cfg(target_os = "linux")]
    static TERMINATING: AtomicI32 = AtomicI32::new(0);

    #[cfg(target_os = "linux")]
    pub(crate) fn adopt_detached_processes() -> bool {
        // A live child this process has already (one it inherited through
        // exec, `sh -c 'job & exec backend-targets probe …'`, or started
        // itself) is not the probe's, and neither are the orphans its own
        // children would leave: a subreaper would adopt those too and could
        // not tell them from what a check detached. Then, or where the
        // children cannot be read (no /proc), it adopts nothing. (With none,
        // every process that can later become this one's child descends
        // from a child it starts after this call.)
        if !may_adopt(children().as_deref()) {
            return false;
        }
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes a flag; it changes
        // only which process adopts this process's orphaned descendants.
        let adopted = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) } == 0;
        if adopted {
            ADOPTING.store(true, Ordering::SeqCst);
        }
        adopted
    }

    /// Whether a process whose `children` (pid, zombie) are these may adopt
    /// orphans: only one with no live child (a zombie has no descendant left
    /// to orphan: they were reparented when it died), and only where they
    /// could be read.
    #[cfg(target_os = "linux")]
    pub(super) fn may_adopt(children: Option<&[(libc::pid_t, bool)]>) -> bool {
        children.is_some_and(|children| children.iter().all(|&(_, zombie)| zombie))
    }

    /// Where this process adopts orphans: kills and reaps every child of
    /// this process that is not one of the `checks` it started (all ended by
    /// now), nor one it had `before` they started, nor a check another probe
    /// of this process is running, until none is left and every check has
    /// died (its own children are reparented here only then), for at most
    /// 250 ms: a killed check dies within a few milliseconds, but one stuck
    /// in the kernel dies only when it leaves it, and the probe's answer
    /// must not wait for that.
    #[cfg(target_os = "linux")]
    fn end_adopted(checks: &[libc::pid_t], before: &[libc::pid_t]) {
        if !ADOPTING.load(Ordering::SeqCst) {
            return;
        }
        let until = Instant::now() + Duration::from_millis(250);
        let running = |pid: libc::pid_t| GROUPS.iter().any(|group| group.load(Ordering::SeqCst) == pid);
        loop {
            let children = children().unwrap_or_default();
            let mut adopted = false;
            let mut checks_alive = false;
            for (pid, zombie) in children {
                if checks.contains(&pid) {
                    checks_alive |= !zombie;
                    continue;
                }
                if before.contains(&pid) || running(pid) {
                    continue;
                }
                adopted = true;
                // SAFETY: `pid` is a child of this process, so its id cannot
                // be reused before this process reaps it; killing a zombie
                // does nothing, and waitpid reaps it without blocking.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
                }
            }
            if (!adopted && !checks_alive) || Instant::now() >= until {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// This process's children (from `/proc`), each with whether it is a
    /// zombie; `None` where `/proc` cannot be read.
    #[cfg(target_os = "linux")]
    fn children() -> Option<Vec<(libc::pid_t, bool)>> {
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let proc = Path::new("/proc");
        listed_children(proc, me).or_else(|| children_in(proc, me))
    }

    /// The children of `parent` as its threads' `children` files at `proc`
    /// list them (`/proc/PID/task/TID/children`, zombies too: a few reads),
    /// each with whether it is a zombie; `None` where a kernel built without
    /// them (`CONFIG_PROC_CHILDREN`) has none, or one cannot be read.
    #[cfg(target_os = "linux")]
    pub(super) fn listed_children(proc: &Path, parent: libc::pid_t) -> Option<Vec<(libc::pid_t, bool)>> {
        let mut listed = Vec::new();
        for task in std::fs::read_dir(proc.join(parent.to_string()).join("task")).ok()? {
            let text = std::fs::read_to_string(task.ok()?.path().join("children")).ok()?;
            listed.extend(text.split_whitespace().filter_map(|pid| pid.parse::<libc::pid_t>().ok()));
        }
        // A child that ended and was reaped meanwhile is left out.
        let children = listed.into_iter().filter_map(|pid| {
            let (ppid, zombie) = stat_of(proc, pid)?;
            (ppid == parent).then_some((pid, zombie))
        });
        Some(children.collect())
    }

    /// The children of `parent` that the process table at `proc` (`/proc`)
    /// lists, each with whether it is a zombie, from every process's `stat`
    /// (where no `children` file is); `None` where it cannot be read. A
    /// process that ends while it is read is left out.
    #[cfg(target_os = "linux")]
    pub(super) fn children_in(proc: &Path, parent: libc::pid_t) -> Option<Vec<(libc::pid_t, bool)>> {
        let entries = std::fs::read_dir(proc).ok()?;
        // A /proc that lists no process at all (this one's is always there)
        // is not a process table: an empty folder where none is mounted.
        let mut any = false;
        let children = entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
            .filter_map(|pid| {
                any = true;
                let (ppid, zombie) = stat_of(proc, pid)?;
                (ppid == parent).then_some((pid, zombie))
            })
            .collect();
        any.then_some(children)
    }

    /// The parent of `pid` and whether it is a zombie, from its `stat` at
    /// `proc`.
    #[cfg(target_os = "linux")]
    fn stat_of(proc: &Path, pid: libc::pid_t) -> Option<(libc::pid_t, bool)> {
        let stat = std::fs::read_to_string(proc.join(pid.to_string()).join("stat")).ok()?;
        // `pid (comm) state ppid ...`; comm may hold anything, `)` too.
        let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
        let state = fields.next()?;
        let ppid: libc::pid_t = fields.next()?.parse().ok()?;
        Some((ppid, state == "Z"))
    }

    fn spawn(helper: &Path, check: NativeCheck, context: &Context) -> Result<Running, String> {
        let cannot = |what: &str, error: std::io::Error| format!("the {check} check could not start ({what}: {error})");
        let (read, write) = pipe().map_err(|e| cannot("a pipe", e))?;
        let mut command = Command::new(helper);
        command.args(Request { check, driver: context.driver }.args());
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        command.current_dir("/").process_group(0);
        match context.search.value() {
            Some(value) => command.env(LOADER_PATH_VARIABLE, value),
            None => command.env_remove(LOADER_PATH_VARIABLE),
        };
        let write_fd = write.as_raw_fd();
        // SAFETY: getpid is async-signal-safe.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the forked child before exec and calls
        // only async-signal-safe functions (fcntl, dup2, prctl, getppid,
        // sigaction, sigemptyset, sigprocmask); it allocates nothing and
        // takes no lock.
        unsafe { command.pre_exec(move || child_setup(write_fd, parent)) };
        // A termination signal that arrives between the spawn and the group's
        // registration would miss the group: hold those signals back until it
        // is registered (the child inherits this mask through the fork, and
        // `child_setup` clears it before exec).
        let held = TerminationHeld::now();
        let child = command.spawn().map_err(|e| not_started(check, helper, &e))?;
        let slot = register(child.id() as i32);
        drop(held);
        // The child holds the write end now; the parent's copy must close, or
        // the channel never reports its end.
        drop(write);
        Ok(Running { check, child, answer: Some(File::from(read)), bytes: Vec::new(), received: 0, step: None, slot })
    }

    /// `SIGTERM`, `SIGINT` and `SIGHUP` blocked on this thread while it
    /// lives; delivered (to the handler) once it is dropped.
    struct TerminationHeld(libc::sigset_t);

    impl TerminationHeld {
        fn now() -> Self {
            // SAFETY: sigset operations on a local set; pthread_sigmask
            // changes only this thread's mask and saves the old one.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                    libc::sigaddset(&mut set, signal);
                }
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
                Self(old)
            }
        }
    }

    impl Drop for TerminationHeld {
        fn drop(&mut self) {
            // SAFETY: restores the mask saved by `now`.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
        }
    }

    /// In the child, between fork and exec: the answer channel on
    /// `ANSWER_FD` (without close-on-exec), and death with the parent.
    fn child_setup(write_fd: RawFd, parent: libc::pid_t) -> std::io::Result<()> {
        // SAFETY: plain system calls on descriptors this process holds.
        let status = unsafe {
            if write_fd == ANSWER_FD {
                libc::fcntl(ANSWER_FD, libc::F_SETFD, 0)
            } else {
                libc::dup2(write_fd, ANSWER_FD)
            }
        };
        if status < 0 {
            return Err(std::io::Error::last_os_error());
        }
        #[cfg(target_os = "linux")]
        {
            // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number.
            if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the request took effect.
            // SAFETY: getppid has no preconditions.
            if unsafe { libc::getppid() } != parent {
                return Err(std::io::Error::from(ErrorKind::Interrupted));
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = parent;
        default_signals();
        Ok(())
    }

    /// In the child, between fork and exec: every signal's disposition back
    /// to its default, then none blocked. `spawn` with a `pre_exec` closure
    /// keeps the parent's mask (here `TerminationHeld`'s, which blocks
    /// `SIGTERM`, `SIGINT` and `SIGHUP`), and an ignored signal stays ignored
    /// across exec (a probe started with `nohup`, or as a background job,
    /// ignores `SIGHUP` or `SIGINT`): a check, and whatever a driver forks
    /// from it, would ignore `kill PID`. The order matters: a handler this
    /// process inherited (`on_termination`) must not run in the child, so
    /// the dispositions are reset while the signals are still blocked.
    fn default_signals() {
        // Linux numbers its signals up to 64 (glibc keeps 32 and 33 for
        // itself: sigaction refuses them, as it refuses SIGKILL and SIGSTOP);
        // the other Unix systems stop at 31.
        let last = if cfg!(target_os = "linux") { 64 } else { 31 };
        for signal in 1..=last {
            // SAFETY: sigaction is async-signal-safe; it reads a zeroed
            // struct whose handler is SIG_DFL. A refusal is ignored.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        // SAFETY: sigemptyset fills a local set; sigprocmask is
        // async-signal-safe and the child has one thread.
        unsafe {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        }
    }

    /// A pipe whose two ends close on exec (the child gets its write end as
    /// `ANSWER_FD` by `dup2`, which clears the flag on the copy only).
    fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe writes two descriptors into the array.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        for fd in [&read, &write] {
            // SAFETY: fcntl on a descriptor this process owns.
            unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        // The parent never blocks on a read.
        // SAFETY: as above.
        unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        Ok((read, write))
    }

    /// Sleeps until an answer channel has news, or a short while (a process
    /// can end without closing a channel that a process it started still
    /// holds), or the deadline.
    fn wait_for_news(running: &[(usize, Running)], deadline: Instant) {
        let mut fds: Vec<libc::pollfd> = running
            .iter()
            .filter_map(|(_, p)| p.answer.as_ref())
            .map(|file| libc::pollfd { fd: file.as_raw_fd(), events: libc::POLLIN, revents: 0 })
            .collect();
        let left = deadline.saturating_duration_since(Instant::now());
        let wait = left.min(Duration::from_millis(if fds.is_empty() { 2 } else { 20 }));
        let ms = wait.as_millis().max(u128::from(!left.is_zero())) as libc::c_int;
        // SAFETY: `fds` is a valid array of its length.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    }

    /// Reads what is new on the channel, without blocking; `Some` with the
    /// report once there is an outcome.
    fn step(process: &mut Running, past_deadline: bool, timeout_ms: u32) -> Option<CheckReport> {
        let check = process.check;
        if let Some(outcome) = read_new(process) {
            return Some(outcome.unwrap_or_else(|message| crashed(check, message)));
        }
        match process.child.try_wait() {
            Ok(Some(status)) => {
                // Exited: what it wrote before it ended is all in the pipe.
                if let Some(outcome) = read_new(process) {
                    return Some(outcome.unwrap_or_else(|message| crashed(check, message)));
                }
                Some(exited_without_answer(check, status, process.step.as_deref()))
            }
            Ok(None) if past_deadline => Some(timed_out(check, timeout_ms, "its process group was killed")),
            Ok(None) => None,
            Err(error) => Some(crashed(check, format!("waiting for the {check} check failed: {error}"))),
        }
    }

    /// The new bytes on the channel: the steps it names are noted; `Some`
    /// once the answer's line is complete (or too long); `None` while it is
    /// not.
    fn read_new(process: &mut Running) -> Option<Result<CheckReport, String>> {
        let check = process.check;
        let file = process.answer.as_mut()?;
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match file.read(&mut chunk) {
                Ok(0) => {
                    process.answer = None;
                    break;
                }
                Ok(n) => {
                    process.received += n;
                    // Only the new bytes are searched for a line's end: the
                    // bytes kept hold none (complete lines are taken out).
                    let mut from = process.bytes.len();
                    process.bytes.extend_from_slice(&chunk[..n]);
                    while let Some(at) = process.bytes[from..].iter().position(|&b| b == b'\n') {
                        let line: Vec<u8> = process.bytes.drain(..=from + at).collect();
                        match line_in(&line[..line.len() - 1], check) {
                            Line::Step(step) => process.step = Some(step),
                            Line::Answer(answer) => return Some(answer),
                        }
                        from = 0;
                    }
                    if process.received > MAX_ANSWER_BYTES {
                        return Some(Err(format!(
                            "the {check} check's process wrote more than {MAX_ANSWER_BYTES} bytes without an answer"
                        )));
                    }
                }
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        None
    }

    /// The report of a check's process that ended without an answer, in
    /// `step` (the last it named, if any).
    fn exited_without_answer(check: NativeCheck, status: ExitStatus, step: Option<&str>) -> CheckReport {
        let during = step.map(|step| format!(" during {step}")).unwrap_or_default();
        match (status.signal(), status.code()) {
            (Some(signal), _) => {
                let mut report = crashed(
                    check,
                    format!(
                        "the {check} check's process was killed by signal {signal} ({}){during}",
                        signal_name(signal)
                    ),
                );
                report.signal = Some(signal);
                report
            }
            (None, Some(LOST_CHANNEL_STATUS)) => crashed(
                check,
                format!(
                    "the {check} check's process lost its answer channel{during}: a library it loaded closed or \
                     replaced file descriptor {ANSWER_FD} (and the copy made before it loaded), so the answer was \
                     written nowhere ({status})"
                ),
            ),
            // It ended itself in a library's code: the library's `exit(N)`.
            (None, Some(code)) if step.is_some() => crashed(
                check,
                format!(
                    "the {check} check's process ended without an answer: the library exited the process with \
                     status {code}{during}"
                ),
            ),
            (None, _) => crashed(check, format!("the {check} check's process exited ({status}) without an answer")),
        }
    }

    /// Ends a check's process group (what it started with it) and reaps it
    /// without blocking the probe: a process stuck in the kernel dies only
    /// when it leaves it.
    fn end(mut process: Running) {
        let group = process.child.id() as libc::pid_t;
        // SAFETY: kill with a negative pid signals the group this probe
        // created for the check; its id is not reused while its leader is
        // unreaped or any member lives (once all are gone, ESRCH).
        unsafe { libc::kill(-group, libc::SIGKILL) };
        if let Some(slot) = process.slot {
            GROUPS[slot].store(0, Ordering::SeqCst);
        }
        if matches!(process.child.try_wait(), Ok(Some(_))) {
            return;
        }
        let mut child = process.child;
        let reaper = std::thread::Builder::new().name("probe-reaper".into()).spawn(move || {
            let _ = child.wait();
        });
        // Without a thread (a pids limit), the zombie waits for this process's end.
        drop(reaper);
    }

    /// The groups of the running checks, for the termination handler.
    static GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

    fn register(group: i32) -> Option<usize> {
        (0..GROUPS.len())
            .find(|&slot| GROUPS[slot].compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst).is_ok())
    }

    extern "C" fn on_termination(signal: libc::c_int) {
        for group in &GROUPS {
            let group = group.load(Ordering::SeqCst);
            if group > 0 {
                // SAFETY: kill is async-signal-safe.
                unsafe { libc::kill(-group, libc::SIGKILL) };
            }
        }
        // Where this process adopts what checks detach, a running probe
        // ends that first (within 250 ms), then raises the signal itself.
        #[cfg(target_os = "linux")]
        if ADOPTING.load(Ordering::SeqCst) {
            TERMINATING.store(signal, Ordering::SeqCst);
            if PROBING.load(Ordering::SeqCst) > 0 {
                return;
            }
        }
        // The handler was reset to the default (SA_RESETHAND): the signal,
        // blocked while this runs, ends the process as it would have.
        // SAFETY: raise is async-signal-safe.
        unsafe { libc::raise(signal) };
    }

    /// Where `SIGTERM`, `SIGINT` and `SIGHUP` would end this process with
    /// their default action (nobody handles them), ends the running checks'
    /// groups first. Installed once; a handler the program has is left alone.
    /// Called by the program (`native::install_termination_handlers`), never
    /// by the probe itself: a signal's disposition is the whole process's.
    pub(crate) fn install_termination_handlers() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                // SAFETY: sigaction reads and writes plain structs; the
                // handler calls only async-signal-safe functions.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                        continue;
                    }
                    let mut new: libc::sigaction = std::mem::zeroed();
                    new.sa_sigaction = on_termination as extern "C" fn(libc::c_int) as usize;
                    new.sa_flags = libc::SA_RESETHAND;
                    libc::sigemptyset(&mut new.sa_mask);
                    libc::sigaction(signal, &new, std::ptr::null_mut());
                }
            }
        });
    }

    /// `SIGSEGV` for 11, from the platform's own numbering.
    pub(crate) fn signal_name(signal: i32) -> &'static str {
        const NAMES: &[(i32, &str)] = &[
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGABRT, "SIGABRT"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGFPE, "SIGFPE"),
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGTERM, "SIGTERM"),
            (libc::SIGTRAP, "SIGTRAP"),
            (libc::SIGSYS, "SIGSYS"),
            (libc::SIGPIPE, "SIGPIPE"),
            (libc::SIGINT, "SIGINT"),
            (libc::SIGHUP, "SIGHUP"),
            (libc::SIGQUIT, "SIGQUIT"),
        ];
        NAMES.iter().find(|(n, _)| *n == signal).map_or("another signal", |(_, name)| name)
    }
}

/// Elsewhere (Windows): each check in a child process that answers on its
/// stdout, read with the same bound; a hang is killed at the deadline.
#[cfg(not(unix))]
pub(crate) fn in_processes(
    helper: &std::path::Path,
    checks: &[NativeCheck],
    context: &Context,
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    checks
        .iter()
        .map(|&check| {
            let mut command = Command::new(helper);
            command.args(super::protocol::Request { check, driver: context.driver }.args());
            command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).current_dir("\\");
            let mut child = match command.spawn() {
                Ok(child) => child,
                Err(error) => return crashed(check, not_started(check, helper, &error)),
            };
            let mut stdout = child.stdout.take();
            let (sender, receiver) = mpsc::channel();
            let reader = thread::Builder::new().spawn(move || {
                let mut bytes = Vec::new();
                if let Some(out) = stdout.as_mut() {
                    let _ = out.take(MAX_ANSWER_BYTES as u64).read_to_end(&mut bytes);
                }
                let _ = sender.send(bytes);
            });
            if reader.is_err() {
                let _ = child.kill();
                return crashed(check, format!("the {check} check's reader thread did not start"));
            }
            match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(bytes) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    match answer_in(&bytes, check) {
                        Some(Ok(report)) => report,
                        Some(Err(message)) => crashed(check, message),
                        None => crashed(check, format!("the {check} check's process ended without an answer")),
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    timed_out(check, timeout_ms, "its process was killed")
                }
            }
        })
        .collect()
}

/// Runs `checks` on threads of this process until `deadline`; a check still
/// running then is abandoned (its thread stays blocked in the library).
///
/// # Safety
///
/// The checks load vendor libraries into this process, where their
/// initialisers run, and call into them: the caller must ensure this
/// process may suffer what they do, past the deadline too
/// (`probe_in_threads`'s contract).
pub(crate) unsafe fn in_threads(
    checks: &[NativeCheck],
    context: &Context,
    deadline: Instant,
    timeout_ms: u32,
) -> Vec<CheckReport> {
    let (sender, receiver) = mpsc::channel();
    for (index, &check) in checks.iter().enumerate() {
        let answer = sender.clone();
        let context = context.clone();
        let spawned = thread::Builder::new().name(format!("probe-{check}")).spawn(move || {
            // SAFETY: forwarded: `run`'s contract is this function's.
            let _ = answer.send((index, unsafe { run(check, &context) }));
        });
        if let Err(error) = spawned {
            let _ = sender.send((index, crashed(check, format!("the {check} check's thread did not start: {error}"))));
        }
    }
    drop(sender);
    let mut reports: Vec<Option<CheckReport>> = vec![None; checks.len()];
    while reports.iter().any(Option::is_none) {
        let wait = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(wait) {
            Ok((index, report)) => reports[index] = Some(report),
            // Every thread answered or died (a panic), or the deadline passed.
            Err(_) => break,
        }
    }
    reports
        .into_iter()
        .zip(checks)
        .map(|(report, &check)| {
            report.unwrap_or_else(|| {
                if Instant::now() >= deadline {
                    timed_out(check, timeout_ms, "its thread was abandoned")
                } else {
                    crashed(check, format!("the {check} check's thread ended without an answer"))
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process table at a folder of the test's (`/proc`'s layout): each
    /// `(pid, stat line)`.
    #[cfg(target_os = "linux")]
    fn table(name: &str, processes: &[(i32, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("native-probe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for (pid, stat) in processes {
            let dir = root.join(pid.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("stat"), stat).unwrap();
        }
        root
    }

    /// The children are read from the table where it is there; where no
    /// `/proc` is mounted (missing, or an empty folder) they are unknown, not
    /// none, and a process that has them unknown adopts nothing.
    #[cfg(target_os = "linux")]
    #[test]
    fn children_are_read_from_the_process_table_or_unknown_without_one() {
        use unix::{children_in, listed_children, may_adopt};
        let root = table(
            "table",
            &[
                (10, "10 (parent) S 1 10 10 0"),
                (11, "11 (a (tricky) name) S 10 11 10 0"),
                (12, "12 (zombie) Z 10 12 10 0"),
                (13, "13 (other) S 1 13 13 0"),
                (14, "garbled"),
            ],
        );
        std::fs::create_dir_all(root.join("self")).unwrap();
        let mut children = children_in(&root, 10).unwrap();
        children.sort();
        assert_eq!(children, [(11, false), (12, true)]);
        assert_eq!(children_in(&root, 13), Some(vec![]));
        // Through the threads' `children` files, where the kernel has them
        // (13 is listed but is another's child now: left out).
        assert_eq!(listed_children(&root, 10), None, "no children files: the table is read instead");
        for (task, listed) in [(10, "11 13 "), (15, "12")] {
            let dir = root.join("10/task").join(task.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("children"), listed).unwrap();
        }
        let mut listed = listed_children(&root, 10).unwrap();
        listed.sort();
        assert_eq!(listed, children);
        assert!(!may_adopt(Some(&children)), "a live child: nothing is adopted");
        assert!(may_adopt(Some(&[(12, true)])), "a zombie has no descendant left to orphan");
        assert!(may_adopt(Some(&[])));
        let empty = table("empty", &[]);
        assert_eq!(children_in(&empty, 10), None, "an empty folder where /proc is not mounted");
        assert_eq!(children_in(&root.join("missing"), 10), None);
        assert!(!may_adopt(None), "children unknown: nothing is adopted");
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&empty);
    }
}
