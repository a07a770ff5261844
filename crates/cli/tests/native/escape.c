/* A stand-in for the CUDA driver (libcuda.so.1) whose initialiser escapes
 * the end the probe gives a check, then hangs: the check is never answered,
 * and the probe ends it at its deadline. Each escaped process clears its
 * parent-death signal (prctl(PR_SET_PDEATHSIG, 0)), so that nothing but
 * the probe's own end can take it down. ESCAPE_MODE says who escapes:
 *   fork-setsid  a process the initialiser forks leaves the check's group
 *                and session (setsid) and sleeps 30 s
 *   fork-join    a process the initialiser forks joins the probe's process
 *                group (setpgid to the group of the check's parent) and
 *                sleeps 30 s
 *   check-join   the check's process itself joins the probe's group
 * Once the escape has taken effect, the check writes the escaped process's
 * pid and its own, then a newline, to the file ESCAPE_PIDFILE names. Without
 * ESCAPE_MODE it does nothing (and the check answers nothing: no entry
 * point is defined). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void write_pids(pid_t escaped, pid_t check) {
    const char *file = getenv("ESCAPE_PIDFILE");
    if (file) {
        FILE *f = fopen(file, "w");
        if (f) { fprintf(f, "%d %d\n", (int)escaped, (int)check); fclose(f); }
    }
}

static void hang_forever(void) {
    for (;;) pause();
}

__attribute__((constructor)) static void escape(void) {
    const char *mode = getenv("ESCAPE_MODE");
    if (!mode) return;
    /* The probe's group, taken in the check (whose parent is the probe). */
    pid_t probe_group = getpgid(getppid());
    if (strcmp(mode, "check-join") == 0) {
        if (setpgid(0, probe_group) != 0) return;
        prctl(PR_SET_PDEATHSIG, 0);
        write_pids(getpid(), getpid());
        hang_forever();
    }
    int setsid_mode = strcmp(mode, "fork-setsid") == 0;
    if (!setsid_mode && strcmp(mode, "fork-join") != 0) return;
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        if (setsid_mode ? setsid() < 0 : setpgid(0, probe_group) != 0) _exit(1);
        prctl(PR_SET_PDEATHSIG, 0);
        /* Escaped: the check may write the pids now. */
        (void)write(ready[1], "e", 1);
        close(ready[1]);
        sleep(30);
        _exit(0);
    }
    close(ready[1]);
    char byte;
    if (pid > 0 && read(ready[0], &byte, 1) == 1) write_pids(pid, getpid());
    close(ready[0]);
    hang_forever();
}
