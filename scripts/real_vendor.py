#!/usr/bin/env python3
"""The real-vendor check: `backend-targets probe` against NVIDIA's and AMD's own libraries,
each answer compared with what the library itself answers.

    python3 scripts/real_vendor.py --cache DIR --bin target/release/backend-targets --standin DIR --work DIR

(scripts/real-vendor.sh fetches the libraries, builds the probe and the stand-in driver, then runs this.)

For each case the probe runs once, as a user would run it (a clean environment: PATH=/usr/bin:/bin, an
empty HOME, only the case's LD_LIBRARY_PATH and variables), and the libraries are asked the same question
through ctypes, in the same environment and working directory, each in a child process of its own (this
file, `truth KIND ARGS`), so that an abort is seen as one (rc -6) and not taken for an answer. What the
probe should say follows from those answers and the probe's documented rules (docs/native-probe.md):
the newest library whose first call answers and whose CUDA major the driver supports is kept, etc. The
table says, per case and subject, the probe's answer, the library's, and whether they agree. Exit 1 on
any disagreement, 2 on a broken setup (a missing file, a probe that does not answer).

There is no GPU and no real CUDA driver on the machine this was written on: where a case needs a driver,
the probe's stand-in (crates/cli/tests/native/fake_cuda.c, FAKE_CUDA_MODE / FAKE_CUDA_VERSION) stands beside the
real libraries. Debian's libcuda1 (non-free) is used when scripts/vendor-fetch.sh could fetch it.
"""

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.abspath(__file__)

# ---------------------------------------------------------------------------------------------------------
# The libraries' own answers. Each `truth` kind runs in a fresh child process and prints one JSON line per
# step, flushed, so that the steps before an abort are kept.


def say(**fields):
    print(json.dumps(fields), flush=True)


def loaded_path(lib):
    """The file the loader opened for a ctypes handle (glibc's dlinfo RTLD_DI_LINKMAP), links resolved."""

    class LinkMap(ctypes.Structure):
        _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p)]

    libc = ctypes.CDLL(None)
    link_map = ctypes.POINTER(LinkMap)()
    if libc.dlinfo(ctypes.c_void_p(lib._handle), 2, ctypes.byref(link_map)) != 0:
        return None
    return os.path.realpath(link_map.contents.l_name.decode())


def t_dlopen(name):
    try:
        lib = ctypes.CDLL(name)
    except OSError as error:
        say(step="dlopen", name=name, loaded=False, error=str(error))
        return None
    say(step="dlopen", name=name, loaded=True, path=loaded_path(lib))
    return lib


def property_triple(function):
    values, statuses = [], []
    for which in (0, 1, 2):  # libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        value = ctypes.c_int(-1)
        statuses.append(function(which, ctypes.byref(value)))
        values.append(value.value)
    return values, statuses


def truth_cublas(name):
    lib = t_dlopen(name)
    if lib:
        values, statuses = property_triple(lib.cublasGetProperty)
        lib.cublasGetCudartVersion.restype = ctypes.c_size_t
        say(step="first-call", call="cublasGetProperty", values=values, statuses=statuses,
            cudart=lib.cublasGetCudartVersion())


def truth_cufft(name):
    lib = t_dlopen(name)
    if lib:
        values, statuses = property_triple(lib.cufftGetProperty)
        version = ctypes.c_int(-1)
        status = lib.cufftGetVersion(ctypes.byref(version))
        say(step="first-call", call="cufftGetProperty", values=values, statuses=statuses,
            getVersion=[status, version.value])


def truth_cudnn(name):
    lib = t_dlopen(name)
    if lib:
        lib.cudnnGetVersion.restype = ctypes.c_size_t
        say(step="about-to-call", call="cudnnGetVersion")
        version = lib.cudnnGetVersion()  # aborts the process when the shim cannot load its graph library
        lib.cudnnGetCudartVersion.restype = ctypes.c_size_t
        say(step="first-call", call="cudnnGetVersion", version=version, cudart=lib.cudnnGetCudartVersion())


def truth_cudart(name):
    lib = t_dlopen(name)
    if lib:
        lib.cudaGetErrorName.restype = ctypes.c_char_p
        runtime, driver, count = ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_int(-1)
        r_runtime = lib.cudaRuntimeGetVersion(ctypes.byref(runtime))
        r_driver = lib.cudaDriverGetVersion(ctypes.byref(driver))
        r_count = lib.cudaGetDeviceCount(ctypes.byref(count))
        say(step="first-call", runtime=[r_runtime, runtime.value], driver=[r_driver, driver.value],
            count=[r_count, count.value], countName=lib.cudaGetErrorName(r_count).decode())


def truth_cuda_driver(name):
    lib = t_dlopen(name)
    if lib:
        version, count = ctypes.c_int(-1), ctypes.c_int(-1)
        r_version = lib.cuDriverGetVersion(ctypes.byref(version))
        r_init = lib.cuInit(0)
        r_count = lib.cuDeviceGetCount(ctypes.byref(count)) if r_init == 0 else None
        say(step="first-call", version=[r_version, version.value], init=r_init,
            count=None if r_count is None else [r_count, count.value])


def truth_hip(name):
    lib = t_dlopen(name)
    if lib:
        lib.hipGetErrorName.restype = ctypes.c_char_p
        runtime, driver, count = ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_int(-1)
        r_runtime = lib.hipRuntimeGetVersion(ctypes.byref(runtime))
        r_driver = lib.hipDriverGetVersion(ctypes.byref(driver))
        r_init = lib.hipInit(0)
        r_count = lib.hipGetDeviceCount(ctypes.byref(count))
        say(step="first-call", runtime=[r_runtime, runtime.value], driver=[r_driver, driver.value],
            init=[r_init, lib.hipGetErrorName(r_init).decode()],
            count=[r_count, lib.hipGetErrorName(r_count).decode(), count.value])


def truth_libtorch(path):
    lib = t_dlopen(path)
    if lib:
        cpu = ctypes.CDLL(os.path.join(os.path.dirname(path), "libtorch_cpu.so"))  # loaded with libtorch.so
        cpu.aoti_torch_abi_version.restype = ctypes.c_uint64
        abi = cpu.aoti_torch_abi_version()
        version_py = Path(path).parent.parent / "version.py"
        text = version_py.read_text() if version_py.is_file() else ""
        found = re.search(r"__version__ = '([^']+)'", text)
        say(step="first-call", call="aoti_torch_abi_version", abi=abi,
            version=found.group(1) if found else None)


def truth_libtorch_cuda(path):
    """libtorch's own CUDA answer: torch::cuda::is_available() and device_count() (exported C++ functions,
    `bool f()` and `int8_t f()`), and the CUDA it was built for (torch/version.py)."""
    lib = t_dlopen(path)
    if lib:
        available = lib._ZN5torch4cuda12is_availableEv
        available.restype = ctypes.c_bool
        count = lib._ZN5torch4cuda12device_countEv
        count.restype = ctypes.c_int8
        text = (Path(path).parent.parent / "version.py").read_text()
        built = re.search(r"^cuda: .*= '([^']+)'", text, re.M)
        say(step="first-call", available=available(), count=count(), cuda=built.group(1) if built else None)


TRUTHS = {
    "dlopen": t_dlopen, "cublas": truth_cublas, "cufft": truth_cufft, "cudnn": truth_cudnn,
    "cudart": truth_cudart, "cuda-driver": truth_cuda_driver, "hip": truth_hip, "libtorch": truth_libtorch,
    "libtorch-cuda": truth_libtorch_cuda,
}

# ---------------------------------------------------------------------------------------------------------
# The parent: run the probe and the truths, compare.


class Setup(Exception):
    """The check itself cannot run (a missing file, a probe that did not answer): exit 2."""


class Ctx:
    def __init__(self, cache, binary, standin, work, timeout_ms):
        self.cache, self.bin, self.standin, self.work = cache, binary, standin, work
        self.timeout_ms = timeout_ms
        self.home = work / "home"
        self.evidence = []

    def short(self, text):
        """A table cell: the folders named by their roles, the loader's commonest words shortened (ENOENT)."""
        text = str(text).replace(str(self.work), "<work>").replace(str(self.cache), "<cache>")
        return text.replace("cannot open shared object file: No such file or directory", "ENOENT")

    def env(self, ld=None, **extra):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8"}
        if ld is not None:
            env["LD_LIBRARY_PATH"] = ld if isinstance(ld, str) else ":".join(str(p) for p in ld)
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def truth(self, kind, arg, env, cwd=None):
        start = time.monotonic()
        p = subprocess.run([sys.executable, HERE, "truth", kind, str(arg)], env=env, cwd=cwd or "/",
                           capture_output=True, text=True, timeout=300)
        steps = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        result = {"kind": kind, "arg": str(arg), "rc": p.returncode, "steps": steps, "stderr": p.stderr,
                  "seconds": round(time.monotonic() - start, 3)}
        if p.returncode > 0:
            raise Setup(f"truth {kind} {arg} failed (rc {p.returncode}): {p.stderr.strip()}")
        self.evidence.append({"truth": result, "env": env, "cwd": cwd})
        return result

    def probe(self, args, env, cwd=None, stdin=None):
        argv = [str(self.bin), "probe", *args]
        if self.timeout_ms:
            argv += ["--timeout-ms", str(self.timeout_ms)]
        start = time.monotonic()
        p = subprocess.run(argv, input=stdin, env=env, cwd=cwd or "/", capture_output=True, text=True,
                           timeout=300)
        wall = time.monotonic() - start
        if p.returncode != 0 or not p.stdout.strip():
            raise Setup(f"probe {args} exited {p.returncode}: {p.stderr.strip()}")
        result = json.loads(p.stdout)
        self.evidence.append({"probe": argv[1:], "stdin": stdin, "env": env, "cwd": cwd, "result": result,
                              "stderr": p.stderr, "wallSeconds": round(wall, 3)})
        return result, wall


def step(truth, name):
    return next((s for s in truth["steps"] if s["step"] == name), None)


def check_of(resolution, name):
    return next(c for c in resolution["probe"]["checks"] if c["check"] == name)


def change_of(resolution, key, name):
    return next(c for c in resolution["changes"] if c.get(key) == name)


def target(accelerator, *features):
    return json.dumps({"os": "linux", "arch": "x86_64", "accelerator": accelerator, "features": list(features)})


# The probe's candidates (docs/native-probe.md; crates/native-probe/src/libraries.rs), newest first, and the CUDA
# major each soname means (cuFFT's major is one behind CUDA's); cuDNN's sonames do not say.
CANDIDATES = {
    "cuBLAS": [("libcublas.so.13", 13), ("libcublas.so.12", 12), ("libcublas.so.11", 11)],
    "cuFFT": [("libcufft.so.12", 13), ("libcufft.so.11", 12), ("libcufft.so.10", 11)],
    "cuDNN": [("libcudnn.so.9", None), ("libcudnn.so.8", None)],
}
KIND = {"cuBLAS": "cublas", "cuFFT": "cufft", "cuDNN": "cudnn"}
HIP_CANDIDATES = ["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"]


def wheel_of(path):
    """The wheel that installed `path` (its dist-info RECORD lists it): (name, version), else None."""
    path = Path(path)
    for root in path.parents:
        for record in root.glob("*.dist-info/RECORD"):
            relative = str(path.relative_to(root))
            if any(line.split(",", 1)[0] == relative for line in record.read_text().splitlines()):
                meta = (record.parent / "METADATA").read_text()
                name = re.search(r"^Name: (.+)$", meta, re.M).group(1).strip()
                version = re.search(r"^Version: (.+)$", meta, re.M).group(1).strip()
                return name, version
    return None


def wheel_cuda_major(path):
    """The CUDA major a wheel's library is for, as the wheel says it: a `-cuNN` name suffix, else the
    `nvidia/cuNN/` folder it installs into (CUDA 13's unsuffixed wheels share nvidia/cu13/lib)."""
    wheel = wheel_of(path)
    if wheel:
        found = re.search(r"-cu(\d+)$", wheel[0])
        if found:
            return int(found.group(1)), f"wheel {wheel[0]} {wheel[1]}"
        found = re.search(r"/nvidia/cu(\d+)/", str(path))
        if found:
            return int(found.group(1)), f"wheel {wheel[0]} {wheel[1]}, installed in nvidia/cu{found.group(1)}/lib"
    return None, None


class LibraryTruth:
    """What one candidate library answers through ctypes."""

    def __init__(self, ctx, feature, name, env, cwd=None):
        t = ctx.truth(KIND[feature], name, env, cwd)
        opened = step(t, "dlopen")
        first = step(t, "first-call")
        self.name, self.loaded = name, opened["loaded"]
        self.path = opened.get("path")
        self.error = opened.get("error")
        self.rc, self.stderr = t["rc"], t["stderr"].strip()
        self.version = self.major = None
        self.usable = False
        self.words = ""
        by_name = dict(CANDIDATES[feature]).get(name)
        if not self.loaded:
            self.words = f"dlopen: {self.error}"
            return
        if first is None:
            call = step(t, "about-to-call")["call"] if step(t, "about-to-call") else "the first call"
            signal_name = f"SIGABRT" if self.rc == -6 else f"rc {self.rc}"
            self.words = f"{call}() killed the process ({signal_name}), stderr {self.stderr!r}"
            return
        if feature == "cuBLAS":
            ok = first["statuses"] == [0, 0, 0]
            self.version = ".".join(map(str, first["values"])) if ok else None
            self.major = first["cudart"] // 1000
            self.words = f"cublasGetProperty → {self.version}, cublasGetCudartVersion → {first['cudart']}"
        elif feature == "cuFFT":
            ok = first["statuses"] == [0, 0, 0]
            self.version = ".".join(map(str, first["values"])) if ok else None
            major, source = wheel_cuda_major(self.path)
            self.major = major if major is not None else by_name
            self.words = f"cufftGetProperty → {self.version} (cufftGetVersion {first['getVersion'][1]}); " \
                         f"CUDA {self.major} by its {source or 'soname'}"
        else:
            ok = first["version"] > 0
            v = first["version"]
            self.version = f"{v // 10000}.{v % 10000 // 100}.{v % 100}" if v >= 90000 else str(v)
            self.major = first["cudart"] // 1000
            self.words = f"cudnnGetVersion → {v}, cudnnGetCudartVersion → {first['cudart']}"
        self.usable = ok


def expected_library(ctx, feature, env, driver_major, cwd=None):
    """What the probe should answer for a library feature, from the libraries' own answers: the newest
    candidate that answers and whose CUDA major the driver supports is kept; else library-unusable when one
    loaded but could not answer, driver-too-old when all that answered need a newer driver,
    library-not-found when none loaded."""
    truths = [LibraryTruth(ctx, feature, name, env, cwd) for name, _ in CANDIDATES[feature]]
    loaded = [t for t in truths if t.loaded]
    # The full words name the file each answer came from; the brief ones (README) leave the paths out.
    words = "; ".join(f"{t.name}: {t.words}" + (f" ({ctx.short(t.path)})" if t.path else "") for t in loaded) \
        or "; ".join(f"{t.words}" for t in truths)
    brief = "; ".join(f"{t.name}: {t.words}" for t in loaded) or "; ".join(t.words for t in truths)
    for t in truths:
        if t.usable and (driver_major is None or t.major <= driver_major):
            return ("library-available", t), (words, brief)
    if any(t.loaded and not t.usable for t in truths):
        return ("library-unusable", next(t for t in truths if t.loaded and not t.usable)), (words, brief)
    if any(t.usable for t in truths):
        return ("driver-too-old", next(t for t in truths if t.usable)), (words, brief)
    return ("library-not-found", None), (words, brief)


class Table:
    def __init__(self, ctx):
        self.ctx, self.rows = ctx, []

    def add(self, case, subject, probe, library, agree, brief):
        """One answer: the probe's and the library's in full (console, JSON) and `brief` = (probe, library)
        for the README's table."""
        short = self.ctx.short
        self.rows.append({"case": case, "subject": subject, "probe": short(probe), "library": short(library),
                          "agree": bool(agree), "brief": [short(brief[0]), short(brief[1])]})
        mark = "agree" if agree else "DISAGREE"
        print(f"  [{mark}] {case} / {subject}", flush=True)

    def markdown(self, brief=False):
        def cell(text):
            return str(text).replace("|", "\\|").replace("\n", " ")

        lines = ["| case | subject | probe's answer | library's own answer | agree? |", "|---|---|---|---|---|"]
        for r in self.rows:
            probe, library = r["brief"] if brief else (r["probe"], r["library"])
            lines.append(f"| {cell(r['case'])} | {cell(r['subject'])} | {cell(probe)} | "
                         f"{cell(library)} | {'yes' if r['agree'] else '**NO**'} |")
        return "\n".join(lines)


# Names the probe itself tries: a loader message about one of them is no news; one about another file names a
# missing part.
TRIED = {name for names in CANDIDATES.values() for name, _ in names} | set(HIP_CANDIDATES) | \
    {"libcuda.so.1", "libtorch.so"}


def brief_probe(c):
    """A check's answer in a few words: its reason, the version and CUDA major it kept, the driver a library
    needs, the missing part its loader messages name, the Python environment it points at."""
    reason, message = c["reason"], c["message"]
    if reason == "library-available":
        text = f"kept {c.get('libraryVersion')}" + (f", CUDA {c['cudaMajor']}" if c.get("cudaMajor") else "")
        passed = re.search(r"passed over: ([^)]*)", message)
        if passed:
            names = re.findall(r"(\S+) needs", passed.group(1))
            text += f" (passed over {', '.join(names)})"
        return text
    if reason == "driver-too-old":
        found = re.match(r"(.+?); this driver is ([\d.]+)", message)
        return f"driver-too-old: {found.group(1)}; driver {found.group(2)}" if found else f"{reason}: {message}"
    if reason in ("library-not-found", "library-unusable", "driver-not-found"):
        named = [n for n in re.findall(r"([^\s:;(]+): cannot open shared object file", message) if
                 Path(n).name not in TRIED]
        text = reason + (f", names {', '.join(dict.fromkeys(named))}" if named else "")
        hint = re.search(r"is in a Python environment \(([^)]+)\)", message)
        if hint:
            text += f"; points at {hint.group(1)}"
        if not named and not hint and reason == "driver-not-found":
            text += f" ({message.split(': ', 1)[-1]})"
        return text
    return f"{reason}: {message}"


def probe_library_row(table, case, feature, resolution, expected, words, must_name=None):
    """One library feature's row: the probe's check against what the candidates answered (`expected`);
    `must_name`: a file the probe's message must name (the missing part)."""
    (reason, lib) = expected
    c = check_of(resolution, feature)
    ch = change_of(resolution, "feature", feature)
    said = f"{ch['action']} {c['reason']}"
    if c["reason"] == "library-available":
        said += f" {c.get('libraryVersion')} (CUDA {c.get('cudaMajor')}) from {c.get('library')}: {c['message']}"
    else:
        said += f": {c['message']}"
    agree = c["reason"] == reason
    if reason == "library-available":
        # The same file, the version it answered, the CUDA major it was built for.
        agree = agree and (c.get("library"), c.get("libraryVersion"), c.get("cudaMajor")) == \
            (lib.path, lib.version, lib.major)
    elif reason == "driver-too-old":
        agree = agree and c.get("cudaMajor") == lib.major and f"{lib.name} needs a CUDA {lib.major} driver" in \
            c["message"]
    elif reason == "library-unusable":
        agree = agree and c.get("signal") is None  # the probe named the problem instead of crashing on it
    if must_name:
        agree = agree and f"{must_name}: cannot open shared object file" in c["message"]
    table.add(case, feature, said, f"{words[0]} ⇒ {reason}", agree, (brief_probe(c), words[1]))
    return c


def cuda_expectation(truth):
    """The reason the driver's own answers give: none loads → driver-not-found; the stub's 34 →
    driver-not-found; cuInit 100 or a count of 0 → no-device; cuInit ≠ 0 → driver-init-failed."""
    opened, first = step(truth, "dlopen"), step(truth, "first-call")
    if not opened["loaded"]:
        return "driver-not-found", f"dlopen(libcuda.so.1): {opened['error']}"
    if first is None:
        return "check-crashed", f"killed (rc {truth['rc']})"
    words = f"loads {opened['path']}; cuDriverGetVersion → {first['version']}, cuInit(0) → {first['init']}"
    if first["count"] is not None:
        words += f", cuDeviceGetCount → {first['count']}"
    if first["init"] == 34:
        return "driver-not-found", words
    if first["init"] == 100 or (first["init"] == 0 and first["count"][1] == 0):
        return "no-device", words
    if first["init"] != 0:
        return "driver-init-failed", words
    return "device-available", words


def driver_major(truth):
    first = step(truth, "first-call")
    return first["version"][1] // 1000 if first and first["version"][0] == 0 else None


# ---------------------------------------------------------------------------------------------------------
# The cases.


def cu12_dirs(c):
    return [c / "cu12/nvidia" / part / "lib" for part in ("cublas", "cufft", "cudnn", "cuda_runtime")]


def cu13_dirs(c):
    return [c / "cu13/nvidia/cu13/lib", c / "cu13/nvidia/cudnn/lib"]


def link_or_copy(source, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def prepare(ctx):
    """The case folders, made afresh under the work folder from the cache (hard links where possible)."""
    c, w = ctx.cache, ctx.work
    for name in ("home", "shim-cu12", "shim-cu13", "cudnn-link", "cublas-alone", "cwd", "hip-no-hsa", "venv-cu12",
                 "venv-torch", "torch-bare"):
        shutil.rmtree(w / name, ignore_errors=True)
        (w / name).mkdir(parents=True)
    link_or_copy(c / "cu12/nvidia/cudnn/lib/libcudnn.so.9", w / "shim-cu12/libcudnn.so.9")
    link_or_copy(c / "cu13/nvidia/cudnn/lib/libcudnn.so.9", w / "shim-cu13/libcudnn.so.9")
    (w / "cudnn-link/libcudnn.so.9").symlink_to(c / "cu12/nvidia/cudnn/lib/libcudnn.so.9")
    link_or_copy(c / "cu12/nvidia/cublas/lib/libcublas.so.12", w / "cublas-alone/libcublas.so.12")
    shutil.copy2(ctx.standin / "libcuda.so.1", w / "cwd/libcuda.so.1")
    hip = c / "hip/root/usr/lib/x86_64-linux-gnu"
    for entry in hip.iterdir():
        if entry.name.startswith("libhsa-runtime64"):
            continue
        if entry.is_symlink():
            (w / "hip-no-hsa" / entry.name).symlink_to(os.readlink(entry))
        else:
            link_or_copy(entry, w / "hip-no-hsa" / entry.name)
    for venv, site in (("venv-cu12", c / "cu12"), ("venv-torch", c / "torchsite")):
        (w / venv / "lib/python3.11").mkdir(parents=True)
        (w / venv / "lib/python3.11/site-packages").symlink_to(site)
    for entry in (c / "torchsite/torch/lib").iterdir():
        if entry.is_file():
            link_or_copy(entry, w / "torch-bare/torch/lib" / entry.name)


def required_files(c):
    return [*(d / n for d, n in zip(cu12_dirs(c), ("libcublas.so.12", "libcufft.so.11", "libcudnn.so.9",
                                                    "libcudart.so.12"))),
            c / "cu13/nvidia/cu13/lib/libcublas.so.13", c / "cu13/nvidia/cu13/lib/libcufft.so.12",
            c / "cu13/nvidia/cudnn/lib/libcudnn.so.9", c / "cu13/nvidia/cu13/lib/libcupti.so.13",
            c / "torchsite/torch/lib/libtorch.so", c / "torchsite/nvidia/cu13/lib/libcudart.so.13",
            c / "hip/root/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"]


CUDA_LIBS = ("nativeCuda", "cuBLAS", "cuFFT", "cuDNN")


def case_no_driver(ctx, table):
    case = "no driver; CUDA 12 wheels on LD_LIBRARY_PATH"
    env = ctx.env(cu12_dirs(ctx.cache))
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", *CUDA_LIBS))
    t = ctx.truth("cuda-driver", "libcuda.so.1", env)
    cudart = step(ctx.truth("cudart", "libcudart.so.12", env), "first-call")
    reason, words = cuda_expectation(t)
    runtime = f"libcudart.so.12: cudaGetDeviceCount → {cudart['count'][0]} {cudart['countName']}, " \
              f"cudaDriverGetVersion → {cudart['driver'][1]}"
    c = check_of(r, "cuda")
    error = step(t, "dlopen").get("error") or ""
    agree = c["reason"] == reason and (reason != "driver-not-found" or error in c["message"])
    libs = sorted({change_of(r, "feature", f)["reason"] for f in ("cuBLAS", "cuFFT", "cuDNN")})
    agree = agree and (reason == "device-available" or libs == ["requires-accelerator"])
    table.add(case, "cuda (+ cuBLAS, cuFFT, cuDNN)", f"{c['reason']}: {c['message']}; the libraries: {', '.join(libs)}",
              f"{words}; {runtime} ⇒ {reason}", agree,
              (f"{brief_probe(c)}; the libraries {', '.join(libs)}", f"{words}; {runtime}"))


def case_libraries(ctx, table, case, ld, version, features=("cuBLAS", "cuFFT", "cuDNN")):
    """A stand-in driver answering `version` (cuDriverGetVersion) and one device, beside real libraries."""
    env = ctx.env([ctx.standin, *ld], FAKE_CUDA_MODE="ok:1", FAKE_CUDA_VERSION=version)
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", *features))
    major = driver_major(ctx.truth("cuda-driver", "libcuda.so.1", env))
    if check_of(r, "cuda")["driverVersion"] != f"{int(version) // 1000}.{int(version) % 1000 // 10}":
        raise Setup(f"{case}: the stand-in driver answered {check_of(r, 'cuda')['driverVersion']}")
    for feature in features:
        expected, words = expected_library(ctx, feature, env, major)
        probe_library_row(table, case, feature, r, expected, words)


def case_shim(ctx, table, flavour):
    case = f"cuDNN shim alone ({flavour} libcudnn.so.9 without libcudnn_graph.so.9), stand-in driver"
    folder = ctx.work / f"shim-{flavour}"
    env = ctx.env([ctx.standin, folder], FAKE_CUDA_MODE="ok:1")
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", "cuDNN"))
    expected, (words, brief) = expected_library(ctx, "cuDNN", env, None)
    graph = step(ctx.truth("dlopen", "libcudnn_graph.so.9", env), "dlopen")
    beside = "yes" if (folder / "libcudnn_graph.so.9").exists() else "no"
    more = f"; libcudnn_graph.so.9 beside it: {beside}, dlopen: {graph.get('error', 'loads')}"
    # The missing part is named only when the library's own call shows one is missing (it aborted).
    must = "libcudnn_graph.so.9" if expected[0] == "library-unusable" else None
    probe_library_row(table, case, "cuDNN", r, expected, (words + more, brief + more), must_name=must)


def case_cudnn_link(ctx, table):
    """The wheel's whole cuDNN folder, reached through a symbolic link to libcudnn.so.9 in another folder (as a
    `lib` folder of links has it): the shim's $ORIGIN is the link's folder, where libcudnn_graph.so.9 is not."""
    case = "cuDNN 9 reached through a link (<work>/cudnn-link/libcudnn.so.9 → the cu12 wheel's file), stand-in driver"
    env = ctx.env([ctx.standin, ctx.work / "cudnn-link"], FAKE_CUDA_MODE="ok:1")
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", "cuDNN"))
    expected, (words, brief) = expected_library(ctx, "cuDNN", env, None)
    real_folder = ctx.cache / "cu12/nvidia/cudnn/lib"
    more = f"; libcudnn_graph.so.9 is beside the file the link points to ({real_folder}), not beside the link"
    probe_library_row(table, case, "cuDNN", r, expected, (words + more, brief + more))


def case_cublas_alone(ctx, table):
    case = "libcublas.so.12 copied without libcublasLt.so.12, stand-in driver"
    env = ctx.env([ctx.standin, ctx.work / "cublas-alone"], FAKE_CUDA_MODE="ok:1")
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", "cuBLAS"))
    expected, words = expected_library(ctx, "cuBLAS", env, 12)
    missing = re.search(r"([^\s:]+): cannot open shared object file", words[0].split("libcublas.so.12: ", 1)[-1])
    probe_library_row(table, case, "cuBLAS", r, expected, words, must_name=missing and missing.group(1))


def case_working_directory(ctx, table):
    case = "a driver in the working directory, LD_LIBRARY_PATH ending in ':'"
    cwd = ctx.work / "cwd"
    value = f"{ctx.cache / 'cu12/nvidia/cublas/lib'}:"
    env = ctx.env(value, FAKE_CUDA_MODE="ok:1")
    r, _ = ctx.probe(["linuxCuda"], env, cwd=str(cwd))
    t = ctx.truth("cuda-driver", "libcuda.so.1", env, cwd=str(cwd))
    opened, first = step(t, "dlopen"), step(t, "first-call")
    c = check_of(r, "cuda")
    loader = f"ctypes.CDLL('libcuda.so.1') run there loads {opened.get('path') or opened.get('error')}"
    if first:
        loader += f" (cuInit → {first['init']}, cuDeviceGetCount → {first['count'][1]})"
    from_cwd = bool(opened["loaded"]) and str(opened["path"]).startswith(str(cwd))
    ignored = r["probe"].get("ignoredLoaderPath")
    said = f"{c['reason']}: {c['message']}; ignoredLoaderPath {json.dumps(ignored)}"
    agree = from_cwd and c["reason"] == "driver-not-found" and not str(c.get("library", "")).startswith(str(cwd)) \
        and ignored == [""]
    table.add(case, "cuda", said, f"{loader} ⇒ the probe must not load it, and say the empty entry was left out",
              agree, (f"{brief_probe(c)}; ignoredLoaderPath {json.dumps(ignored)}", loader))


def hip_expectation(ctx, env):
    """The reason HIP's own answers give, trying the probe's candidates in its order: none loads →
    driver-not-found; hipInit 100 or 101 (HIP 5.2 without a GPU), hipGetDeviceCount 100 or 0 → no-device;
    another hipInit error → driver-init-failed."""
    errors = []
    for name in HIP_CANDIDATES:
        t = ctx.truth("hip", name, env)
        opened, first = step(t, "dlopen"), step(t, "first-call")
        if opened["loaded"]:
            break
        errors.append(opened["error"])
    else:
        return "driver-not-found", None, errors
    if first is None:
        return "check-crashed", None, [f"{name} killed the process (rc {t['rc']})"]
    init, count = first["init"], first["count"]
    words = f"{name}: hipRuntimeGetVersion → {first['runtime'][1]}, hipDriverGetVersion → {first['driver'][1]}, " \
            f"hipInit(0) → {init[0]} {init[1]}, hipGetDeviceCount → {count[0]} {count[1]}, n = {count[2]}"
    if init[0] in (100, 101) or count[0] == 100 or (count[0] == 0 and count[2] == 0):
        return "no-device", first, [words]
    if init[0] != 0:
        return "driver-init-failed", first, [words]
    return "device-available", first, [words]


def hip_text(v):
    return f"{v // 10_000_000}.{v // 100_000 % 100}.{v % 100_000}"


def case_hip(ctx, table, case, ld):
    env = ctx.env(ld)
    r, _ = ctx.probe(["linuxRocm"], env)
    reason, first, words = hip_expectation(ctx, env)
    c = check_of(r, "rocm")
    agree = c["reason"] == reason
    if first:
        agree = agree and c.get("libraryVersion") == hip_text(first["runtime"][1]) \
            and c.get("driverVersion") == hip_text(first["driver"][1])
    else:
        # Every candidate's loader message, as the loader said it (the one naming the missing part among them).
        agree = agree and all(error in c["message"] for error in words)
    words = "; ".join(words)
    said = f"{c['reason']}: {c['message']}"
    if c.get("libraryVersion"):
        said += f" (libraryVersion {c['libraryVersion']}, driverVersion {c.get('driverVersion')})"
    brief = brief_probe(c) + (f"; HIP {c['libraryVersion']}" if c.get("libraryVersion") else "")
    table.add(case, "rocm", f"{said} ({c.get('library')})", f"{words} ⇒ {reason}", agree, (brief, words))


def case_python_environment(ctx, table):
    case = "CUDA 12 wheels only in a Python environment (VIRTUAL_ENV), stand-in driver"
    venv = ctx.work / "venv-cu12"
    env = ctx.env([ctx.standin], FAKE_CUDA_MODE="ok:1", VIRTUAL_ENV=venv)
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", "cuBLAS", "cuFFT", "cuDNN"))
    site = venv / "lib/python3.11/site-packages"
    for feature in ("cuBLAS", "cuFFT", "cuDNN"):
        (reason, _), (words, _) = expected_library(ctx, feature, env, 12)
        there = next((p for name, _ in CANDIDATES[feature] for p in sorted(site.glob(f"nvidia/*/lib/{name}"))), None)
        in_env = LibraryTruth(ctx, feature, str(there), env) if there else None
        c = check_of(r, feature)
        library = f"by name: {words}"
        by_path = f"by its path {there}: {in_env.words}" if in_env else "in the environment: none"
        agree = c["reason"] == reason == "library-not-found" and in_env is not None and in_env.usable \
            and f"({there})" in c["message"]
        table.add(case, feature, f"{c['reason']}: {c['message']}",
                  f"{library}; {by_path} ⇒ library-not-found, naming {there}", agree,
                  (brief_probe(c), f"by name: not found; {by_path}"))


def case_libtorch(ctx, table, case, env, path):
    r, _ = ctx.probe(["-"], env, stdin=target("none", "libTorch"))
    t = ctx.truth("libtorch", path, env)
    opened, first = step(t, "dlopen"), step(t, "first-call")
    c = check_of(r, "libTorch")
    said = f"{c['reason']}"
    if c["reason"] == "library-available":
        said += f" {c.get('libraryVersion')} from {c.get('library')}"
    else:
        said += f": {c['message']}"
    if opened["loaded"] and first:
        abi = first["abi"]
        version = f"{abi >> 56}.{abi >> 48 & 0xff}"
        words = f"aoti_torch_abi_version → {abi:#018x} = {version}; torch/version.py {first['version']}"
        agree = c["reason"] == "library-available" and c.get("libraryVersion") == version \
            and c.get("library") == opened["path"]
        table.add(case, "libTorch", said, f"loads {opened['path']}; {words} ⇒ library-available {version}", agree,
                  (brief_probe(c), words))
    else:
        missing = re.search(r"([^\s:]+): cannot open shared object file", opened.get("error", ""))
        words = f"dlopen: {opened.get('error')}"
        agree = c["reason"] == "library-not-found" and missing is not None and missing.group(0) in c["message"]
        table.add(case, "libTorch", said, f"dlopen({path}): {opened.get('error')} ⇒ library-not-found naming "
                  f"{missing and missing.group(1)}", agree, (brief_probe(c), words))


def case_libtorch_behind_old_driver(ctx, table):
    """libtorch built for CUDA 13.2 with the CUDA accelerator kept on a 12.2 driver: whether libTorch is kept
    where libtorch itself says its CUDA cannot run (cuBLAS and cuFFT are driver-too-old in the same place)."""
    case = "libtorch 2.15 (a CUDA 13.2 build) via LIBTORCH, stand-in driver 12.2 with 1 device, cuda declared"
    path = ctx.cache / "torchsite/torch/lib/libtorch.so"
    env = ctx.env([ctx.standin], FAKE_CUDA_MODE="ok:1", FAKE_CUDA_VERSION=12020, LIBTORCH=path.parent.parent)
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", "nativeCuda", "libTorch"))
    t = ctx.truth("libtorch-cuda", path, env)
    first = step(t, "first-call")
    said_why = re.search(r"CUDA initialization: (.*?\.)", t["stderr"])
    words = f"torch::cuda::is_available() → {str(first['available']).lower()}, torch::cuda::device_count() → " \
            f"{first['count']}; built for CUDA {first['cuda']}" + \
            (f"; libtorch says: {said_why.group(1)}" if said_why else "")
    c = check_of(r, "libTorch")
    cuda_kept = change_of(r, "accelerator", "cuda")["action"] == "kept"
    # Kept for a target whose CUDA accelerator is kept, libTorch should be able to use it: when libtorch's
    # own CUDA answer is no, keeping it as available is a disagreement.
    agree = first["available"] or not cuda_kept or c["reason"] != "library-available"
    said = f"cuda {change_of(r, 'accelerator', 'cuda')['reason']} (driver {check_of(r, 'cuda').get('driverVersion')}); " \
           f"libTorch {c['reason']} {c.get('libraryVersion') or ''}: {c['message']}"
    brief = f"cuda kept (driver {check_of(r, 'cuda').get('driverVersion')}); libTorch {brief_probe(c)}"
    expected = "libTorch not kept as usable with this cuda (as cuBLAS, cuFFT: driver-too-old)" if not first["available"] \
        else "library-available"
    table.add(case, "libTorch", said, f"{words} ⇒ {expected}", agree, (brief, words))


def case_debian_driver(ctx, table):
    """Debian's own driver, where this machine's apt offered it (non-free): not run where this was written."""
    case = "Debian's libcuda1 (non-free), CUDA 12 wheels"
    root = ctx.cache / "driver/root"
    found = sorted(root.rglob("libcuda.so.1")) if root.is_dir() else []
    if not found:
        print(f"  [skip] {case}: not in the cache (this machine's apt does not offer libcuda1)", flush=True)
        return
    env = ctx.env([found[0].parent, *cu12_dirs(ctx.cache)])
    r, _ = ctx.probe(["-"], env, stdin=target("cuda", *CUDA_LIBS))
    t = ctx.truth("cuda-driver", "libcuda.so.1", env)
    reason, words = cuda_expectation(t)
    c = check_of(r, "cuda")
    first = step(t, "first-call")
    version = first and first["version"][0] == 0 and first["version"][1]
    want_version = f"{version // 1000}.{version % 1000 // 10}" if version else None
    agree = c["reason"] == reason and c.get("driverVersion") == want_version
    table.add(case, "cuda", f"{c['reason']}: {c['message']} (driverVersion {c.get('driverVersion')})",
              f"{words} ⇒ {reason}, driver {want_version}", agree,
              (f"{brief_probe(c)}; driver {c.get('driverVersion')}", words))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "truth":
        TRUTHS[sys.argv[2]](sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", required=True, type=Path)
    parser.add_argument("--bin", required=True, type=Path)
    parser.add_argument("--standin", required=True, type=Path, help="the folder holding the stand-in libcuda.so.1")
    parser.add_argument("--work", required=True, type=Path, help="a scratch folder (remade)")
    parser.add_argument("--timeout-ms", type=int, default=0, help="the probe's --timeout-ms (default: its own)")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    ctx = Ctx(args.cache.resolve(), args.bin.resolve(), args.standin.resolve(), args.work.resolve(),
              args.timeout_ms)
    start = time.monotonic()
    try:
        missing = [str(p) for p in [*required_files(ctx.cache), ctx.bin, ctx.standin / "libcuda.so.1"]
                   if not p.exists()]
        if missing:
            raise Setup("missing (run scripts/real-vendor.sh, which fetches and builds them): " + ", ".join(missing))
        prepare(ctx)
        table = Table(ctx)
        c = ctx.cache
        case_no_driver(ctx, table)
        case_libraries(ctx, table, "stand-in driver 12.9 (1 device); CUDA 12 wheels", cu12_dirs(c), 12090)
        case_libraries(ctx, table, "stand-in driver 12.2; CUDA 13 wheels only", cu13_dirs(c), 12020)
        case_libraries(ctx, table, "stand-in driver 12.2; CUDA 12 then CUDA 13 wheels on the path",
                       [*cu12_dirs(c), *cu13_dirs(c)], 12020)
        case_libraries(ctx, table, "stand-in driver 12.2; CUDA 13 then CUDA 12 wheels on the path",
                       [*cu13_dirs(c), *cu12_dirs(c)], 12020)
        case_shim(ctx, table, "cu12")
        case_shim(ctx, table, "cu13")
        case_cudnn_link(ctx, table)
        case_cublas_alone(ctx, table)
        case_working_directory(ctx, table)
        case_hip(ctx, table, "Debian HIP 5.2 (libamdhip64-5, libhsa-runtime64-1, libhsakmt1), no GPU",
                 [c / "hip/root/usr/lib/x86_64-linux-gnu"])
        case_hip(ctx, table, "HIP 5.2 without libhsa-runtime64.so.1", [ctx.work / "hip-no-hsa"])
        case_python_environment(ctx, table)
        torch_lib = c / "torchsite/torch/lib/libtorch.so"
        case_libtorch(ctx, table, "libtorch 2.15 (torch wheel + its CUDA 13 wheels) via LIBTORCH",
                      ctx.env(LIBTORCH=c / "torchsite/torch"), torch_lib)
        venv = ctx.work / "venv-torch"
        case_libtorch(ctx, table, "the same via LIBTORCH_USE_PYTORCH=1 (VIRTUAL_ENV holds torch)",
                      ctx.env(LIBTORCH_USE_PYTORCH=1, VIRTUAL_ENV=venv),
                      venv / "lib/python3.11/site-packages/torch/lib/libtorch.so")
        case_libtorch(ctx, table, "libtorch without its CUDA wheels (torch/lib alone) via LIBTORCH",
                      ctx.env(LIBTORCH=ctx.work / "torch-bare/torch"), ctx.work / "torch-bare/torch/lib/libtorch.so")
        case_libtorch_behind_old_driver(ctx, table)
        case_debian_driver(ctx, table)
    except Setup as error:
        print(f"real-vendor: setup failed: {error}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - start
    evidence = args.work / "real-vendor.json"
    evidence.write_text(json.dumps({"rows": table.rows, "runs": ctx.evidence}, indent=1))
    disagree = [r for r in table.rows if not r["agree"]]
    print()
    print(f"<cache> = {ctx.cache}, <work> = {ctx.work}")
    print()
    print(table.markdown())
    print()
    print(f"real-vendor: {len(table.rows)} answers, {len(table.rows) - len(disagree)} agree, {len(disagree)} disagree; "
          f"{elapsed:.1f} s; every probe and ctypes run with its environment: {evidence}")
    if args.markdown:
        args.markdown.write_text(table.markdown(brief=True) + "\n")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
