//! One check's child process (Unix): how it starts (the helper with the
//! request as its arguments, stdin, stdout and stderr on `/dev/null`, `/` as
//! its working directory, a loader path without working-directory entries,
//! its own process group, the answer pipe on [`ANSWER_FD`], death with the
//! probe on Linux, every signal at its default) and how it ends (its group
//! killed, and the check's own process by its pid, whatever group it moved
//! to; reaped without blocking the probe).

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;

use super::super::checks::Context;
use super::super::load::LOADER_PATH_VARIABLE;
use super::super::protocol::Request;
use super::outcome::not_started;
use super::signals::{GROUPS, TerminationHeld, default_signals, register};
use super::wire::ANSWER_FD;
use backend_targets::probe::native::NativeCheck;

/// One check's process while it runs.
pub(super) struct Running {
    pub(super) check: NativeCheck,
    pub(super) child: Child,
    /// The answer channel's read end; `None` once it closed.
    pub(super) answer: Option<File>,
    /// What it wrote after its last complete line.
    pub(super) bytes: Vec<u8>,
    /// How many bytes it wrote in all.
    pub(super) received: usize,
    /// The step it last said it was in.
    pub(super) step: Option<String>,
    /// The slot of its group in [`GROUPS`].
    pub(super) slot: Option<usize>,
}

pub(super) fn spawn(helper: &Path, check: NativeCheck, context: &Context) -> Result<Running, String> {
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

/// In the child, between fork and exec: the answer channel on
/// [`ANSWER_FD`] (without close-on-exec), and death with the parent.
fn child_setup(write_fd: RawFd, parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: plain system calls on descriptors this process holds.
    let status = unsafe {
        if write_fd == ANSWER_FD { libc::fcntl(ANSWER_FD, libc::F_SETFD, 0) } else { libc::dup2(write_fd, ANSWER_FD) }
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
            return Err(std::io::Error::from(std::io::ErrorKind::Interrupted));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent;
    default_signals();
    Ok(())
}

/// A pipe whose two ends close on exec (the child gets its write end as
/// [`ANSWER_FD`] by `dup2`, which clears the flag on the copy only).
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

/// Ends a check's process group (what it started with it) and the check's
/// own process, and reaps it without blocking the probe: a process stuck in
/// the kernel dies only when it leaves it.
pub(super) fn end(mut process: Running) {
    let group = process.child.id() as libc::pid_t;
    // SAFETY: kill with a negative pid signals the group this probe
    // created for the check; its id is not reused while its leader is
    // unreaped or any member lives (once all are gone, ESRCH).
    unsafe { libc::kill(-group, libc::SIGKILL) };
    // The check's process may have left that group (a library's
    // initialiser that calls `setpgid` into another group of the session,
    // the probe's own, and clears its parent-death signal): the group's
    // kill misses it then, and it would outlive the probe. It is killed by
    // its pid too; `Child::kill` signals nothing once the child has been
    // reaped (its id may be another process's by then). What it started
    // outside the group is the subreaper's sweep's (`end_adopted`).
    let _ = process.child.kill();
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
