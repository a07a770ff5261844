//! Linux: adopting what a check detached from its group (a daemon a driver
//! started with `setsid`, or moved with `setpgid` into another group of the
//! session, the probe's own, its parent-death signal cleared): this process
//! made a child subreaper, its children read from `/proc`, and the sweep
//! that ends and reaps what was adopted once a probe's checks have ended.
//!
//! Whatever group or session a check's descendant moved to, it stays a
//! descendant: when its parent dies (the check, killed by its group and by
//! its pid, `child::end`) it is reparented to the nearest subreaper, this
//! process, and the sweep kills it by its pid, which cannot be reused
//! before this process reaps it; what it started in turn comes here when it
//! dies, and the sweep goes on until no adopted child is left (bounded at
//! 250 ms). Chosen over the alternatives because it needs no privilege and
//! changes nothing of what the check sees:
//! - a PID namespace per check (`unshare(CLONE_NEWUSER | CLONE_NEWPID)`,
//!   where killing its first process ends every process in it) works
//!   unprivileged only where user namespaces are allowed: many hosts refuse
//!   them (Ubuntu's AppArmor restriction since 23.10, Debian kernels'
//!   `kernel.unprivileged_userns_clone=0`, container runtimes' seccomp
//!   profiles, `user.max_user_namespaces=0`), and inside one the
//!   check runs as a mapped user, with its own pids but the host's `/proc`
//!   (unless it mounts its own): a vendor driver that reads either sees
//!   something no real run sees, and a probe must not change the answer;
//! - a cgroup per check (killed whole with `cgroup.kill`) needs a delegated
//!   subtree, which an ordinary process, or one in a container, seldom has.
//!
//! A subreaper adopts every orphan below it, so only a process whose
//! children are all the probe's may become one (`adopt_detached_processes`,
//! which the command calls at its start); elsewhere what a check detached
//! lives on, as the crate's documentation says.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::signals::{ADOPTING, GROUPS};

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
fn may_adopt(children: Option<&[(libc::pid_t, bool)]>) -> bool {
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
pub(super) fn end_adopted(checks: &[libc::pid_t], before: &[libc::pid_t]) {
    if !ADOPTING.load(Ordering::SeqCst) {
        return;
    }
    let until = Instant::now() + Duration::from_millis(250);
    let running = |pid: libc::pid_t| GROUPS.iter().any(|group| group.load(Ordering::SeqCst) == pid);
    // The threads' `children` files are quick, but a child reparented to
    // a thread of this process that is ending (the reaper thread `end`
    // starts) moves between them, and a read can miss it: before the
    // sweep ends, the process table, by parent id, confirms that none is
    // left.
    let mut confirming = false;
    loop {
        let children = if confirming { every_child() } else { children() }.unwrap_or_default();
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
        if Instant::now() >= until || (!adopted && !checks_alive && confirming) {
            return;
        }
        confirming = !adopted && !checks_alive;
        if !confirming {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// This process's children (from `/proc`), each with whether it is a
/// zombie; `None` where `/proc` cannot be read.
pub(super) fn children() -> Option<Vec<(libc::pid_t, bool)>> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let proc = Path::new("/proc");
    listed_children(proc, me).or_else(|| children_in(proc, me))
}

/// This process's children from the whole process table at `/proc` (by
/// each process's parent id, which a move between this process's threads
/// leaves alone); `None` where it cannot be read.
fn every_child() -> Option<Vec<(libc::pid_t, bool)>> {
    // SAFETY: getpid has no preconditions.
    children_in(Path::new("/proc"), unsafe { libc::getpid() })
}

/// The children of `parent` as its threads' `children` files at `proc`
/// list them (`/proc/PID/task/TID/children`, zombies too: a few reads),
/// each with whether it is a zombie; `None` where a kernel built without
/// them (`CONFIG_PROC_CHILDREN`) has none, or one cannot be read.
fn listed_children(proc: &Path, parent: libc::pid_t) -> Option<Vec<(libc::pid_t, bool)>> {
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
fn children_in(proc: &Path, parent: libc::pid_t) -> Option<Vec<(libc::pid_t, bool)>> {
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
fn stat_of(proc: &Path, pid: libc::pid_t) -> Option<(libc::pid_t, bool)> {
    let stat = std::fs::read_to_string(proc.join(pid.to_string()).join("stat")).ok()?;
    // `pid (comm) state ppid ...`; comm may hold anything, `)` too.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?;
    let ppid: libc::pid_t = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process table at a folder of the test's (`/proc`'s layout): each
    /// `(pid, stat line)`.
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
    #[test]
    fn children_are_read_from_the_process_table_or_unknown_without_one() {
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
