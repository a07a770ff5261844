/* A stand-in for the CUDA driver (libcuda.so.1) with only the entry points
 * the native probe uses, behaving as the real driver does in each case, or
 * as a hostile one would. FAKE_CUDA_VERSION sets cuDriverGetVersion's answer
 * (default 12040, i.e. 12.4); FAKE_CUDA_PIDFILE names a file that a process
 * this library forks writes its pid to. FAKE_CUDA_MODE sets the behaviour:
 *   ok:N         cuInit succeeds, N devices (default 1)
 *   init-fail    cuInit fails with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803), as
 *                the forward-compatibility driver does on an older kernel module
 *   no-device    cuInit answers CUDA_ERROR_NO_DEVICE (100), as the real driver
 *                does on a host without a GPU
 *   zero         cuInit succeeds, cuDeviceGetCount counts 0
 *   stub         every call answers CUDA_ERROR_STUB_LIBRARY (34) and
 *                cuGetErrorName fails too, as the toolkit's stubs/libcuda.so
 *   unknown-code cuInit answers 4242, which cuGetErrorName does not know
 *   hang         cuInit never returns
 *   crash        cuInit dereferences NULL (SIGSEGV)
 *   abort        cuInit calls abort() (SIGABRT)
 *   exit         cuInit calls exit(0): the process ends without an answer
 *   load-exit:N  a constructor calls exit(N) while the library loads, as a
 *                vendor library's initialiser that gives up on a broken
 *                installation does (exit(3) is a common choice)
 *   daemon       cuInit forks a process that sleeps 30 s holding every
 *                descriptor (writing its pid and its parent's, the check's,
 *                to FAKE_CUDA_PIDFILE), then
 *                succeeds with 1 device
 *   fork-hang    as daemon, then cuInit never returns
 * Hostile (each succeeds with 1 device unless it says otherwise):
 *   forge        cuInit prints a forged answer line (an "H100") on stdout and
 *                stderr, then answers CUDA_ERROR_NO_DEVICE
 *   forge-exit   cuInit prints the forged line and exits 0
 *   chatter:N    cuInit writes N bytes to stdout and stderr, no newline
 *   stdio        a constructor and a destructor printf to stdout without a
 *                newline (flushed at exit), as chatty vendor libraries do
 *   destructor-hang  a destructor (atexit) that never returns
 *   devices:N    cuDeviceGetCount answers N (100000: a driver listing many)
 *   count:-1     cuDeviceGetCount answers -1
 *   long-name    cuDeviceGetName fills the whole buffer without a NUL
 *   wild-values  2^60 bytes of memory, compute capability -5.-5
 *   long-error   cuInit fails with 999, whose name is 1 MiB long
 *   take-channel cuInit closes file descriptor 3 and opens FAKE_CUDA_LOG for
 *                appending, which gets descriptor 3, as a library that
 *                closes what it did not open and then logs would
 *   take-all     as take-channel, after closing every descriptor from 3 to
 *                1023
 *   setsid       cuInit forks a process that leaves the check's group and
 *                session (setsid) and sleeps 30 s (writing its pid and the
 *                check's to FAKE_CUDA_PIDFILE), then succeeds with 1 device
 *   setsid-twice as setsid, the daemon started by a process that exits at
 *                once (a double fork: the daemon is an orphan while the
 *                check still runs)
 *   setsid-hang  as setsid, then cuInit never returns
 *   slow:MS      cuInit writes its pid and its parent's (the probe's) to
 *                FAKE_CUDA_PIDFILE, sleeps MS ms, then succeeds with 1 device */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *mode(void) {
    const char *m = getenv("FAKE_CUDA_MODE");
    return m ? m : "ok:1";
}

static int is(const char *name) { return strcmp(mode(), name) == 0; }

static int prefixed(const char *prefix) { return strncmp(mode(), prefix, strlen(prefix)) == 0; }

static const char FORGED[] =
    "{\"check\":\"cuda\",\"reason\":\"device-available\",\"message\":\"1 CUDA device: H100\","
    "\"devices\":[{\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}],\"elapsedMs\":1.0}\n";

static void hang_forever(void) {
    for (;;) pause();
}

static void destructor_hang(void) { hang_forever(); }

__attribute__((constructor)) static void on_load(void) {
    if (prefixed("load-exit:")) exit(atoi(mode() + 10));
    if (is("stdio")) printf("fake libcuda: loaded ");
    if (is("destructor-hang")) atexit(destructor_hang);
}

__attribute__((destructor)) static void on_unload(void) {
    if (is("stdio")) printf("fake libcuda: unloaded");
}

static int devices(void) {
    const char *m = mode();
    if (strncmp(m, "ok:", 3) == 0) return atoi(m + 3);
    if (strncmp(m, "devices:", 8) == 0) return atoi(m + 8);
    if (strncmp(m, "count:", 6) == 0) return atoi(m + 6);
    if (is("zero") || is("no-device") || is("init-fail") || is("stub")) return 0;
    return 1;
}

static void fork_daemon(void) {
    pid_t pid = fork();
    if (pid == 0) {
        sleep(30);
        _exit(0);
    }
    /* Written by the check's process before cuInit returns (the fork may be
     * killed before it runs at all): the fork's pid, then the check's. */
    const char *file = getenv("FAKE_CUDA_PIDFILE");
    if (file && pid > 0) {
        FILE *f = fopen(file, "w");
        if (f) { fprintf(f, "%d %d\n", (int)pid, (int)getpid()); fclose(f); }
    }
}

static void write_pids(pid_t first, pid_t second) {
    const char *file = getenv("FAKE_CUDA_PIDFILE");
    if (file) {
        FILE *f = fopen(file, "w");
        if (f) { fprintf(f, "%d %d\n", (int)first, (int)second); fclose(f); }
    }
}

/* A daemon out of the check's group: setsid, then (twice) a second fork
 * whose parent exits at once. The pids are written before cuInit returns. */
static void setsid_daemon(int twice) {
    pid_t check = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (twice) {
            pid_t daemon = fork();
            if (daemon == 0) {
                sleep(30);
                _exit(0);
            }
            write_pids(daemon, check);
            _exit(0);
        }
        write_pids(getpid(), check);
        sleep(30);
        _exit(0);
    }
    if (pid < 0) return;
    if (twice) {
        waitpid(pid, NULL, 0);
        return;
    }
    /* Wait for the pids before answering (the check is killed after its answer). */
    const char *file = getenv("FAKE_CUDA_PIDFILE");
    for (int i = 0; file && i < 1000; i++) {
        FILE *f = fopen(file, "r");
        int a = 0, b = 0;
        int n = f ? fscanf(f, "%d %d", &a, &b) : 0;
        if (f) fclose(f);
        if (n == 2) break;
        usleep(1000);
    }
}

int cuInit(unsigned int flags) {
    if (flags != 0) return 1; /* CUDA_ERROR_INVALID_VALUE */
    if (is("stub")) return 34;
    if (is("init-fail")) return 803;
    if (is("no-device")) return 100;
    if (is("unknown-code")) return 4242;
    if (is("long-error")) return 999;
    if (is("hang")) hang_forever();
    if (is("crash")) { volatile int *p = NULL; *p = 1; }
    if (is("abort")) abort();
    if (is("exit")) exit(0);
    if (is("take-channel") || is("take-all")) {
        const char *log = getenv("FAKE_CUDA_LOG");
        for (int fd = 3; fd < (is("take-all") ? 1024 : 4); fd++) close(fd);
        if (!log || open(log, O_WRONLY | O_CREAT | O_APPEND, 0600) != 3) return 999;
    }
    if (is("setsid") || is("setsid-twice") || is("setsid-hang")) setsid_daemon(is("setsid-twice"));
    if (is("setsid-hang")) hang_forever();
    if (prefixed("slow:")) {
        write_pids(getpid(), getppid());
        usleep((useconds_t)atoi(mode() + 5) * 1000);
    }
    if (is("daemon") || is("fork-hang")) fork_daemon();
    if (is("fork-hang")) hang_forever();
    if (is("forge") || is("forge-exit")) {
        fputs(FORGED, stdout);
        fflush(stdout);
        fputs(FORGED, stderr);
        if (is("forge-exit")) exit(0);
        return 100;
    }
    if (prefixed("chatter:")) {
        long n = atol(mode() + 8);
        static char block[65536];
        memset(block, 'x', sizeof block);
        for (long left = n; left > 0; left -= (long)sizeof block) {
            size_t piece = left < (long)sizeof block ? (size_t)left : sizeof block;
            fwrite(block, 1, piece, stdout);
            fwrite(block, 1, piece, stderr);
        }
        fflush(stdout);
    }
    return 0;
}

int cuDriverGetVersion(int *version) {
    const char *v = getenv("FAKE_CUDA_VERSION");
    if (is("stub")) return 34;
    *version = v ? atoi(v) : 12040;
    return 0;
}

int cuDeviceGetCount(int *count) {
    if (is("stub")) return 34;
    *count = devices();
    return 0;
}

int cuDeviceGet(int *device, int ordinal) {
    if (ordinal < 0 || ordinal >= devices()) return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *device = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int device) {
    if (is("long-name")) { memset(name, 'A', (size_t)len); return 0; }
    snprintf(name, (size_t)len, "Fake GPU %d", device);
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    int wild = is("wild-values");
    if (attribute == 75) { *value = wild ? -5 : 9; return 0; } /* COMPUTE_CAPABILITY_MAJOR */
    if (attribute == 76) { *value = wild ? -5 : 0; return 0; } /* COMPUTE_CAPABILITY_MINOR */
    return 1;
}

int cuDeviceTotalMem_v2(size_t *bytes, int device) {
    *bytes = is("wild-values") ? (size_t)1 << 60 : (size_t)(80 + device) << 30;
    return 0;
}

int cuGetErrorName(int error, const char **name) {
    static char *long_name;
    if (is("stub")) return 34;
    if (is("long-error") && error == 999) {
        if (!long_name) {
            long_name = malloc((1 << 20) + 1);
            memset(long_name, 'E', 1 << 20);
            long_name[1 << 20] = 0;
        }
        *name = long_name;
        return 0;
    }
    switch (error) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
    /* Like an older driver meeting a newer code: the probe's table names it. */
    default: return 1; /* CUDA_ERROR_INVALID_VALUE */
    }
}
