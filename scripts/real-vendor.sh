#!/usr/bin/env bash
# scripts/real-vendor.sh: the optional real-vendor check (not in .ci/run: it downloads about
# 4 GB). Fetches NVIDIA's CUDA 12 and CUDA 13 wheels, torch 2.15.0 and Debian's HIP 5.2 at pinned versions
# into VENDOR_CACHE (default .tools/vendor; scripts/vendor-fetch.sh), builds the probe (cargo build
# --release) and the stand-in CUDA driver (crates/cli/tests/native/fake_cuda.c, with the system cc), then runs
# scripts/real_vendor.py: every case's probe answer beside the library's own answer (ctypes, each call in a
# child process). Prints the table; exits 1 on any disagreement, 2 when the check itself cannot run.
# Debian's libcuda1 (non-free) joins only where this machine's apt already offers it.
# Environment: VENDOR_CACHE, PYTHON (default python3), PROBE_TIMEOUT_MS (the probe's --timeout-ms).
set -euo pipefail
cd "$(dirname "$0")/.."
export VENDOR_CACHE=${VENDOR_CACHE:-$PWD/.tools/vendor}
PYTHON=${PYTHON:-python3}
WORK=$PWD/target/real-vendor
START=$(date +%s)

echo "== fetch into $VENDOR_CACHE"
scripts/vendor-fetch.sh cu12 cu13 torch hip driver

echo "== build"
nice -n 10 cargo build --release
mkdir -p "$WORK/standin"
cc -shared -fPIC -O2 -Wl,-soname,libcuda.so.1 -o "$WORK/standin/libcuda.so.1" crates/cli/tests/native/fake_cuda.c -ldl

echo "== cases"
args=(--cache "$VENDOR_CACHE" --bin target/release/backend-targets --standin "$WORK/standin" --work "$WORK"
      --markdown "$WORK/table.md")
[ -n "${PROBE_TIMEOUT_MS:-}" ] && args+=(--timeout-ms "$PROBE_TIMEOUT_MS")
status=0
nice -n 10 "$PYTHON" scripts/real_vendor.py "${args[@]}" || status=$?
echo "real-vendor.sh: $(($(date +%s) - START)) s in all, exit $status"
exit $status
