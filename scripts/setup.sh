#!/usr/bin/env bash
# Installs every dependency of AutoKernel Workbench. Idempotent: a second run only checks.
#
#   scripts/setup.sh            Debian packages, CUDA toolkit check, LibTorch
#   AK_SKIP_APT=1               skip the Debian packages (machines without apt, e.g. the GPU machine)
#   AK_NO_TORCH=1               skip LibTorch (the evaluator is then not built)
#
# LibTorch, in this order:
#   1. the torch that `python3` already has (the GPU machine: torch 2.11 cu130 in /opt/torch/.venv);
#   2. otherwise PyPI's torch 2.11.0 wheel in the project-local virtual environment .venv, with
#      --no-deps plus the three CUDA libraries its libtorch_cuda.so needs that the CUDA toolkit does not
#      ship (cuSPARSELt, NVSHMEM, cuFile). docs/libtorch-choice.md says why this beat Debian's
#      libtorch-dev 1.13 (measured).
# Writes build/ak-env.cmake with the prefix paths the build uses.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

TORCH_VERSION=2.11.0
DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libqcustomplot-dev libqcustomplot2.1-qt6
  libgit2-dev libgtest-dev libgmock-dev nlohmann-json3-dev libcurl4-openssl-dev
  xvfb xauth fonts-dejavu-core python3-venv
)

# ---- Debian packages ------------------------------------------------------------------------------
if [[ -z "${AK_SKIP_APT:-}" ]] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # KF6 SyntaxHighlighting when the distribution has it (Debian 12 does not: the built-in highlighter is used).
  if apt-cache show libkf6syntaxhighlighting-dev >/dev/null 2>&1; then
    dpkg-query -W -f='${Status}' libkf6syntaxhighlighting-dev 2>/dev/null | grep -q "install ok installed" ||
      missing+=(libkf6syntaxhighlighting-dev)
  fi
  if ((${#missing[@]})); then
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
    say "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "Debian packages: all present"
  fi
  if apt-cache show libkf6syntaxhighlighting-dev >/dev/null 2>&1; then
    say "syntax highlighting: KF6SyntaxHighlighting"
  else
    say "syntax highlighting: built-in highlighter (this distribution has no KF6SyntaxHighlighting package)"
  fi
fi

# ---- CUDA toolkit (required: NVRTC, CUPTI, driver API headers) ------------------------------------
cuda_root=${CUDA_HOME:-${CUDAToolkit_ROOT:-/usr/local/cuda}}
if [[ ! -x "$cuda_root/bin/nvcc" ]] && command -v nvcc >/dev/null; then
  cuda_root=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
fi
for f in include/nvrtc.h include/cuda.h; do
  [[ -f "$cuda_root/$f" ]] || die "the CUDA toolkit is required but $cuda_root/$f is missing. Install the CUDA 13 toolkit (NVRTC, CUPTI and driver API headers) and set CUDA_HOME to it."
done
cupti=$(ls "$cuda_root"/include/cupti.h "$cuda_root"/extras/CUPTI/include/cupti.h 2>/dev/null | head -1 || true)
[[ -n "$cupti" ]] || die "the CUDA toolkit at $cuda_root has no CUPTI (cupti.h). Install its CUPTI component."
ls "$cuda_root"/lib64/libnvrtc.so* >/dev/null 2>&1 || ls "$cuda_root"/lib/libnvrtc.so* >/dev/null 2>&1 ||
  die "the CUDA toolkit at $cuda_root has no libnvrtc. Install its NVRTC component."
say "CUDA toolkit: $cuda_root ($("$cuda_root/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'nvcc not found'))"

# ---- LibTorch ----------------------------------------------------------------------------------------
torch_prefix=""
if [[ -z "${AK_NO_TORCH:-}" ]]; then
  if python3 -c 'import torch' >/dev/null 2>&1; then
    torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
    say "LibTorch: python3's torch $(python3 -c 'import torch;print(torch.__version__)') at $torch_prefix"
  else
    site="$root/.venv/lib/python$(python3 -c 'import sys;print(f"{sys.version_info.major}.{sys.version_info.minor}")')/site-packages"
    if [[ ! -f "$site/torch/share/cmake/Torch/TorchConfig.cmake" ]]; then
      say "LibTorch: installing PyPI torch $TORCH_VERSION into .venv (about 1.5 GB on disk, about a minute)"
      python3 -m venv "$root/.venv"
      "$root/.venv/bin/pip" install -q --disable-pip-version-check --no-deps "torch==$TORCH_VERSION" \
        nvidia-cusparselt-cu13==0.8.0 nvidia-nvshmem-cu13==3.4.5 nvidia-cufile==1.20.0.107
    fi
    torch_prefix="$site/torch/share/cmake"
    say "LibTorch: PyPI torch $TORCH_VERSION in .venv"
  fi
fi

mkdir -p build
{
  echo "# written by scripts/setup.sh"
  echo "set(CUDAToolkit_ROOT \"$cuda_root\" CACHE PATH \"\")"
  if [[ -n "$torch_prefix" ]]; then
    echo "list(APPEND CMAKE_PREFIX_PATH \"$torch_prefix\")"
    echo "set(AK_BUILD_EVALUATOR ON CACHE STRING \"\")"
  else
    echo "set(AK_BUILD_EVALUATOR OFF CACHE STRING \"\")"
  fi
  [[ -d "$root/.deps/root/usr" ]] && echo "list(APPEND CMAKE_PREFIX_PATH \"$root/.deps/root/usr\")"
  echo "set(CMAKE_PREFIX_PATH \"\${CMAKE_PREFIX_PATH}\" CACHE STRING \"\")"
} > build/ak-env.cmake
say "done"
