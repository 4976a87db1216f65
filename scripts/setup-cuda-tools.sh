#!/bin/sh
# A minimal CUDA installation from PyPI wheels, for the nvlink-wrapper tests and for clang-22's
# CUDA compiles (--cuda-path): NVIDIA's ptxas, nvlink and fatbinary from `nvidia-cuda-nvcc`
# (CUDA 13: its bin/ has all three; the cu12 wheel has only ptxas), `cuobjdump` from
# `nvidia-cuda-cuobjdump` (the oracle of `offkit inspect --resources`), and the headers of
# `nvidia-cuda-runtime` (include/, with cuda.h: clang takes the CUDA version from its
# CUDA_VERSION, and wants include/ and bin/ to call a directory a CUDA installation; with
# -nocudainc -nocudalib it needs nothing else — no libdevice, no libcudart).
# Unpacked once into $OFFKIT_CUDA_TOOLS (default /opt/offkit/cuda-tools) and into the Debian 13
# root's /opt/cuda-tools (where the LLVM 22 tests run them), as <dir>/bin/{ptxas,nvlink,fatbinary}
# and <dir>/include: a `--cuda-path=<dir>` for clang and the wrappers. Each part is skipped when
# present.
set -eu
DIR=${OFFKIT_CUDA_TOOLS:-/opt/offkit/cuda-tools}
ROOT=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
WHEEL_PKG=${OFFKIT_CUDA_WHEEL:-nvidia-cuda-nvcc}
HEADERS_PKG=${OFFKIT_CUDA_HEADERS_WHEEL:-nvidia-cuda-runtime}
CUOBJDUMP_PKG=${OFFKIT_CUOBJDUMP_WHEEL:-nvidia-cuda-cuobjdump}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# unpack WHEEL_PACKAGE DEST KIND: bin (ptxas, nvlink, fatbinary), cuobjdump, or include (the
# whole include/).
unpack() {
  mkdir -p "$tmp/$1"
  python3 -m pip download --no-deps --quiet "$1" -d "$tmp/$1"
  whl=$(ls "$tmp/$1"/*.whl)
  mkdir -p "$2"
  python3 - "$whl" "$2" "$3" <<'PY'
import os, stat, sys, zipfile
whl, out, kind = sys.argv[1], sys.argv[2], sys.argv[3]
want = {"cuobjdump"} if kind == "cuobjdump" else {"ptxas", "nvlink", "fatbinary"}
found = set()
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        base = n.rsplit("/", 1)[-1]
        if kind in ("bin", "cuobjdump") and "/bin/" in n and base in want:
            p = os.path.join(out, base)
            with open(p, "wb") as f:
                f.write(z.read(n))
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            found.add(base)
        elif kind == "include" and "/include/" in n and not n.endswith("/"):
            rel = n.split("/include/", 1)[1]
            p = os.path.join(out, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(z.read(n))
            found.add(rel)
missing = {"cuda.h"} - found if kind == "include" else want - found
if missing:
    sys.exit(f"{whl} has no {', '.join(sorted(missing))}")
PY
  echo "$3 of $(basename "$whl") in $2"
}

[ -x "$DIR/bin/nvlink" ] || unpack "$WHEEL_PKG" "$DIR/bin" bin
[ -f "$DIR/include/cuda.h" ] || unpack "$HEADERS_PKG" "$DIR/include" include
[ -x "$DIR/bin/cuobjdump" ] || unpack "$CUOBJDUMP_PKG" "$DIR/bin" cuobjdump
if [ -d "$ROOT/usr/lib/llvm-22" ]; then
  if [ ! -x "$ROOT/opt/cuda-tools/bin/nvlink" ]; then
    mkdir -p "$ROOT/opt/cuda-tools/bin"
    cp "$DIR"/bin/ptxas "$DIR"/bin/nvlink "$DIR"/bin/fatbinary "$ROOT/opt/cuda-tools/bin/"
    echo "and in $ROOT/opt/cuda-tools/bin"
  fi
  if [ ! -f "$ROOT/opt/cuda-tools/include/cuda.h" ]; then
    mkdir -p "$ROOT/opt/cuda-tools/include"
    cp -R "$DIR"/include/. "$ROOT/opt/cuda-tools/include/"
    echo "and in $ROOT/opt/cuda-tools/include"
  fi
fi
