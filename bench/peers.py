#!/usr/bin/env python3
"""The native probe against its peers, in the same situations, side by side:

  * `backend-targets probe linuxCuda --enable-libtorch` (libtorch from the torch venv through
    LIBTORCH_USE_PYTORCH=1 and VIRTUAL_ENV), wall time of the whole command;
  * `import torch; torch.cuda.is_available()` in a fresh interpreter each time (import included);
  * ONNX Runtime (onnxruntime-gpu): `get_available_providers()`, and an `InferenceSession` asking for
    `CUDAExecutionProvider` only: which providers it really got, and whether it raised.

    nice -n 10 python3 bench/peers.py [--runs 10] [--markdown FILE]

Situations (LD_LIBRARY_PATH: the CUDA 13 wheels' folders, nvidia/cu13/lib and nvidia/cudnn/lib, plus the
stand-in driver's folder where there is one; no GPU here, no real driver):
  no driver                  no libcuda.so.1 anywhere
  driver, no GPU             stand-in FAKE_CUDA_MODE=no-device (cuInit answers 100, as the real driver does
                             without a GPU), FAKE_CUDA_VERSION=13000: a driver new enough for torch's CUDA 13.2
  toolkit stub               stand-in FAKE_CUDA_MODE=stub (every call answers 34, as stubs/libcuda.so does)
  CUDA 13 behind 12.2        stand-in FAKE_CUDA_MODE=ok:1 (one device), FAKE_CUDA_VERSION=12020

Each tool runs --runs times per situation, interleaved (probe, torch, ORT, probe, ...) after one warm-up run
of each that is not counted; the table gives the median wall time and the range. One more run per situation,
not timed, asks each peer why (torch.cuda.init()'s error, ORT's provider load error, and what the real
libcudart.so.13 answers through ctypes), which says whether the stand-in makes the peer's answer meaningless.

The libraries come from VENDOR_CACHE (default .tools/vendor; scripts/vendor-fetch.sh fetches them), the
venvs are VENDOR_CACHE/venv-torch and VENDOR_CACHE/venv-ort, created from PyPI at pinned versions when absent.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What `pip install torch==2.15.0` resolved to when measured; onnxruntime-gpu 1.31.1's dependencies.
TORCH_PINS = """torch==2.15.0
cuda-bindings==13.5.0
cuda-pathfinder==1.9.1
cuda-toolkit==13.2.2
filelock==4.3.1
fsspec==2026.9.0
Jinja2==3.1.6
MarkupSafe==3.0.4
mpmath==1.3.0
networkx==3.6.1
nvidia-cublas==13.4.1.3
nvidia-cuda-cccl==13.3.5.0.6
nvidia-cuda-cupti==13.2.86
nvidia-cuda-nvrtc==13.2.86
nvidia-cuda-runtime==13.2.86
nvidia-cudnn-cu13==9.26.0.51
nvidia-cufft==12.2.0.57
nvidia-cufile==1.17.1.22
nvidia-cusolver==12.2.0.11
nvidia-cusparse==12.7.10.12
nvidia-cusparselt-cu13==0.8.1
nvidia-nccl-cu13==2.30.7
nvidia-nvjitlink==13.5.37
nvidia-nvshmem-cu13==3.7.2
nvidia-nvtx==13.2.86
sympy==1.14.0
triton==3.9.0
typing_extensions==4.16.0
"""
ORT_PINS = """onnxruntime-gpu==1.31.1
flatbuffers==25.12.19
numpy==2.4.6
packaging==26.4
protobuf==7.36.2
"""

TORCH_TIMED = "import torch; print(torch.cuda.is_available())"

TORCH_WHY = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import torch
    available = torch.cuda.is_available()
said = [str(w.message) for w in caught if "NumPy" not in str(w.message)]
try:
    torch.cuda.init()
    error = None
except Exception as e:
    error = f"{type(e).__name__}: {e}"
print(json.dumps({"available": available, "count": torch.cuda.device_count(), "warnings": said, "init": error,
                  "version": torch.__version__, "cuda": torch.version.cuda}))
"""

ORT_RUN = """
import json, sys
import onnxruntime as ort
import numpy as np
out = {"providers": ort.get_available_providers(), "device": ort.get_device()}
try:
    session = ort.InferenceSession(sys.argv[1], providers=["CUDAExecutionProvider"])
    out["session"] = session.get_providers()
    out["result"] = session.run(None, {"x": np.array([-1.0, 2.0], dtype=np.float32)})[0].tolist()
except Exception as e:
    out["exception"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"""

CUDART_WHY = """
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cudaGetErrorName.restype = ctypes.c_char_p
n, v = ctypes.c_int(-1), ctypes.c_int(-1)
count = lib.cudaGetDeviceCount(ctypes.byref(n))
driver = lib.cudaDriverGetVersion(ctypes.byref(v))
print(json.dumps({"count": [count, lib.cudaGetErrorName(count).decode(), n.value], "driver": [driver, v.value]}))
"""


def relu_model():
    """A one-node ONNX model, y = Relu(x), x and y float[2] (opset 13, IR 8), written as protobuf by hand so
    that no `onnx` package is needed."""

    def varint(n):
        out = bytearray()
        while True:
            byte, n = n & 0x7F, n >> 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def number(field, value):
        return varint(field << 3) + varint(value)

    def nested(field, payload):
        payload = payload.encode() if isinstance(payload, str) else payload
        return varint(field << 3 | 2) + varint(len(payload)) + payload

    def value_info(name):  # ValueInfoProto{name, type: TypeProto{tensor_type{elem_type FLOAT, shape [2]}}}
        shape = nested(2, nested(1, number(1, 2)))
        return nested(1, name) + nested(2, nested(1, number(1, 1) + shape))

    node = nested(1, "x") + nested(2, "y") + nested(4, "Relu")
    graph = nested(1, node) + nested(2, "relu") + nested(11, value_info("x")) + nested(12, value_info("y"))
    return number(1, 8) + nested(2, "backend-targets bench") + nested(7, graph) + nested(8, nested(1, "") +
                                                                                          number(2, 13))


def run(argv, env, check=True, **kw):
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, **kw)
    if check and p.returncode != 0:
        sys.exit(f"peers: {' '.join(map(str, argv))} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def ensure_venv(cache, name, pins, check):
    """cache/name, a venv with `pins` installed (pip, from PyPI and the wheels already in cache/wheels);
    made when absent; a venv that is there but broken is an error (not replaced)."""
    venv = cache / name
    python = venv / "bin/python"
    env = dict(os.environ)
    if not python.exists():
        print(f"peers: creating {venv} (pip install {pins.split()[0]})", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        constraints = venv / "pins.txt"
        constraints.write_text(pins)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--find-links", str(cache / "wheels"),
                        "-r", str(constraints)], check=True)
    p = subprocess.run([str(python), "-c", check], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"peers: {venv} does not work ({check}):\n{p.stderr}")
    return python


def timed(argv, env):
    start = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    return time.perf_counter() - start, p


def stats(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def fmt(s):
    return f"{s['median'] * 1000:.0f} ms ({s['min'] * 1000:.0f}–{s['max'] * 1000:.0f})"


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def ort_error(stderr):
    found = re.search(r"with error: (.*)", ANSI.sub("", stderr))
    # "…/libonnxruntime_providers_cuda.so: undefined symbol: X" → "undefined symbol: X"
    return re.sub(r"^/\S+\.so: ", "", found.group(1).strip()) if found else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    cache = Path(os.environ.get("VENDOR_CACHE", ROOT / ".tools/vendor")).resolve()
    work = ROOT / "target/peers"
    (work / "standin").mkdir(parents=True, exist_ok=True)
    (work / "home").mkdir(exist_ok=True)

    subprocess.run([str(ROOT / "scripts/vendor-fetch.sh"), "cu13", "torch", "ort"], check=True,
                   env={**os.environ, "VENDOR_CACHE": str(cache)})
    subprocess.run(["nice", "-n", "10", "cargo", "build", "--release"], cwd=ROOT, check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o",
                    str(work / "standin/libcuda.so.1"), str(ROOT / "crates/cli/tests/native/fake_cuda.c"), "-ldl"], check=True)
    model = work / "relu.onnx"
    model.write_bytes(relu_model())
    torch_python = ensure_venv(cache, "venv-torch", TORCH_PINS,
                               "import torch; assert torch.__version__ == '2.15.0+cu132', torch.__version__")
    ort_python = ensure_venv(cache, "venv-ort", ORT_PINS,
                             "import onnxruntime as o; assert o.__version__ == '1.31.1', o.__version__")
    venv = torch_python.parent.parent
    site = next(venv.glob("lib/python3*/site-packages"))
    cudart = site / "nvidia/cu13/lib/libcudart.so.13"
    binary = ROOT / "target/release/backend-targets"

    cu13 = [cache / "cu13/nvidia/cu13/lib", cache / "cu13/nvidia/cudnn/lib"]
    situations = [
        ("no driver", None, {}),
        ("driver, no GPU (stand-in: cuInit 100, driver 13.0)", "no-device", {"FAKE_CUDA_VERSION": "13000"}),
        ("toolkit stub as libcuda.so.1 (stand-in: every call 34)", "stub", {}),
        ("CUDA 13 libraries behind a 12.2 driver (stand-in: 1 device)", "ok:1", {"FAKE_CUDA_VERSION": "12020"}),
    ]
    load = os.getloadavg()
    results = []
    for title, mode, extra in situations:
        ld = ([work / "standin"] if mode else []) + cu13
        env = {"PATH": "/usr/bin:/bin", "HOME": str(work / "home"), "LANG": "C.UTF-8",
               "LD_LIBRARY_PATH": ":".join(map(str, ld)), "VIRTUAL_ENV": str(venv), "LIBTORCH_USE_PYTORCH": "1",
               **({"FAKE_CUDA_MODE": mode} if mode else {}), **extra}
        commands = {
            "probe": [str(binary), "probe", "linuxCuda", "--enable-libtorch"],
            "torch": [str(torch_python), "-c", TORCH_TIMED],
            "ort": [str(ort_python), "-c", ORT_RUN, str(model)],
        }
        print(f"peers: {title}", flush=True)
        times = {k: [] for k in commands}
        last = {}
        for i in range(args.runs + 1):
            for name, argv in commands.items():
                seconds, p = timed(argv, env)
                if p.returncode != 0:
                    sys.exit(f"peers: {name} exited {p.returncode} in '{title}':\n{p.stdout}\n{p.stderr}")
                if i > 0:  # the first round warms the page cache
                    times[name].append(seconds)
                last[name] = p
        resolution = json.loads(last["probe"].stdout)
        torch_answer = last["torch"].stdout.strip()
        ort_answer = json.loads(last["ort"].stdout)
        torch_why = json.loads(run([str(torch_python), "-c", TORCH_WHY], env).stdout)
        cudart_why = json.loads(run([sys.executable, "-c", CUDART_WHY, str(cudart)], env).stdout)
        results.append({
            "situation": title, "env": env, "times": {k: stats(v) for k, v in times.items()},
            "probe": resolution, "torch": torch_answer, "torchWhy": torch_why, "cudart": cudart_why,
            "ort": ort_answer, "ortError": ort_error(last["ort"].stderr),
            "ortStderrLines": len([line for line in ANSI.sub("", last["ort"].stderr).splitlines() if line.strip()]),
        })
    load_after = os.getloadavg()
    (work / "peers.json").write_text(json.dumps({"results": results, "load": [load, load_after]}, indent=1))
    table = markdown(results, args.runs, (load[0], load_after[0]))
    print()
    print(table)
    print()
    print(f"peers: load average {load[0]:.2f} before, {load_after[0]:.2f} after; every answer in {work / 'peers.json'}")
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return 0


def changes(resolution):
    out = {}
    for c in resolution["changes"]:
        out[c.get("accelerator") or c.get("feature")] = (c["action"], c["reason"])
    return out


def markdown(results, runs, load):
    lines = [
        f"| situation | `probe linuxCuda --enable-libtorch` | its time | `torch.cuda.is_available()` | its time "
        f"(fresh interpreter, import included) | torch says why | ORT `get_available_providers()` | "
        f"ORT session asking for CUDA only | is the peer's answer meaningful here? |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        ch = changes(r["probe"])
        checks = {c["check"]: c for c in r["probe"]["probe"]["checks"]}
        cuda = checks["cuda"]
        probe = f"cuda {ch['cuda'][0]} **{ch['cuda'][1]}**"
        if cuda.get("driverVersion"):
            probe += f" (driver {cuda['driverVersion']})"
        probe += f"; cuBLAS {ch['cuBLAS'][1]}, cuFFT {ch['cuFFT'][1]}"
        torch_lib = checks.get("libTorch", {})
        probe += f"; libTorch {ch['libTorch'][1]} {torch_lib.get('libraryVersion') or ''}".rstrip()
        why = r["torchWhy"]
        said = (why["init"] or "").split(": ", 1)[-1]
        said = re.sub(r"\s*Please .*|\s*Did you run .*?\?", "", said)[:110]
        ort = r["ort"]
        session = f"got {ort.get('session')}, no exception" if "session" in ort else f"raised {ort['exception']}"
        session += f"; {r['ortStderrLines']} lines on stderr"
        if r["ortError"]:
            session += f" (its CUDA provider: `{r['ortError']}`)"
        cudart = r["cudart"]["count"]
        cudart_text = f"the real libcudart.so.13 answers cudaGetDeviceCount {cudart[0]} {cudart[1]}"
        stand_in_symbol = r["ortError"] and "undefined symbol" in r["ortError"]
        notes = []
        if "no driver" == r["situation"]:
            notes.append(f"both: yes ({cudart_text})")
        else:
            if cudart[0] in (34, 35, 100):
                notes.append(f"torch: yes, {cudart_text}, which the stand-in's entry points explain")
            else:
                notes.append(f"torch: **no**, {cudart_text}: the stand-in lacks entry points cudart calls")
            if stand_in_symbol:
                notes.append("ORT: **no** for why (its CUDA provider fails on a driver entry point the stand-in "
                             "lacks, before asking the driver anything); its claim and fallback stand")
        t = r["times"]
        session += f"; the whole run {fmt(t['ort'])}"
        ratio = t["torch"]["median"] / t["probe"]["median"]
        cells = [r["situation"], probe, fmt(t["probe"]), r["torch"], f"{fmt(t['torch'])}, {ratio:.1f}× the probe", said,
                 ", ".join(p.replace("ExecutionProvider", "") for p in ort["providers"]), session, "; ".join(notes)]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    lines.append(f"Times: median of {runs} runs (min–max), wall clock, after one warm-up run each; ORT's run is "
                 f"its interpreter, the import, get_available_providers(), the session and one inference. Load average "
                 f"{load[0]:.2f} before, {load[1]:.2f} after (2 cores, shared).")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
