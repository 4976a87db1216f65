#!/bin/sh
# NVIDIA's ptxas, nvlink and fatbinary for the nvlink-wrapper tests, from PyPI's
# `nvidia-cuda-nvcc` wheel (CUDA 13: its bin/ has all three; the cu12 wheel has only ptxas).
# Unpacked once into $OFFKIT_CUDA_TOOLS (default /opt/offkit/cuda-tools) and into the Debian 13
# root's /opt/cuda-tools (where the LLVM 22 tests run them), as <dir>/bin/{ptxas,nvlink,fatbinary}:
# a `--cuda-path=<dir>` for clang and the wrappers. Skipped when present.
set -eu
DIR=${OFFKIT_CUDA_TOOLS:-/opt/offkit/cuda-tools}
ROOT=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
WHEEL_PKG=${OFFKIT_CUDA_WHEEL:-nvidia-cuda-nvcc}

if [ ! -x "$DIR/bin/nvlink" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --no-deps --quiet "$WHEEL_PKG" -d "$tmp"
  whl=$(ls "$tmp"/*.whl)
  mkdir -p "$DIR/bin"
  python3 - "$whl" "$DIR/bin" <<'PY'
import os, stat, sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
want = {"ptxas", "nvlink", "fatbinary"}
found = set()
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        base = n.rsplit("/", 1)[-1]
        if "/bin/" in n and base in want:
            p = os.path.join(out, base)
            with open(p, "wb") as f:
                f.write(z.read(n))
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            found.add(base)
missing = want - found
if missing:
    sys.exit(f"{whl} has no {', '.join(sorted(missing))}")
PY
  echo "NVIDIA tools from $(basename "$whl") in $DIR/bin"
fi
if [ -d "$ROOT/usr/lib/llvm-22" ] && [ ! -x "$ROOT/opt/cuda-tools/bin/nvlink" ]; then
  mkdir -p "$ROOT/opt/cuda-tools/bin"
  cp "$DIR"/bin/ptxas "$DIR"/bin/nvlink "$DIR"/bin/fatbinary "$ROOT/opt/cuda-tools/bin/"
  echo "and in $ROOT/opt/cuda-tools/bin"
fi
