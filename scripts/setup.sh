#!/usr/bin/env bash
# Installs what offkit's tests and demo need, when it is missing: LLVM 19 and LLVM 22 (the
# oracles offkit is compared against, and the compilers of the examples; 22 in a Debian 13
# root), libomptarget, the system libzstd that byte-identical compressed bundles need (Debian 12
# packages), and NVIDIA's device tools from PyPI.
set -euo pipefail

packages=(clang-19 clang-tools-19 lld-19 llvm-19 libomp-19-dev libzstd-dev zlib1g-dev pkg-config make lz4 time man-db chromium
  mingw-w64 wine64 qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
  libc6-dev-ppc64el-cross libgcc-12-dev-ppc64el-cross)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "offkit setup: installing ${missing[*]}" >&2
  "$(dirname "$0")/apt-update.sh"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
"$(dirname "$0")/setup-foreign-runtimes.sh"
# The LLVM 22 oracle: Debian 13's clang-22 and its tools in a debootstrapped root.
"$(dirname "$0")/setup-trixie.sh"
# NVIDIA's ptxas, nvlink and fatbinary (PyPI nvidia-cuda-nvcc) for the nvlink-wrapper tests.
"$(dirname "$0")/setup-cuda-tools.sh"
if ! command -v cargo >/dev/null; then
  echo "offkit setup: cargo is missing; install Rust with rustup (https://rustup.rs)" >&2
  exit 1
fi
