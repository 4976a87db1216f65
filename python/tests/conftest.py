"""Inputs for the tests of the installed wheel, built by clang-19 once per session: an OpenMP
offloading program and a HIP library of two translation units, with and without
``--offload-compress``, and with ``-fgpu-rdc``.

The tests run against the wheel installed in a fresh virtual environment
(scripts/test-python.sh): ``offkit`` is the installed package and command, never the source tree.
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

LLVM_BIN = pathlib.Path(os.environ.get("OFFKIT_LLVM_ROOT", "/usr/lib/llvm-19")) / "bin"
CLANG = str(LLVM_BIN / "clang")
ARCHS = "--offload-arch=gfx90a:xnack+,gfx1030"
HIP = ["-x", "hip", ARCHS, "-nogpulib", "-nogpuinc", "-fPIC"]

KERNEL = """#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
__global__ void NAME(int *p) { p[0] = 1; }
"""

OPENMP = """#include <stdio.h>
#pragma omp declare target
int scale = 2;
#pragma omp end declare target
int main(void) {
  int n = 1000, sum = 0, a[1000];
  for (int i = 0; i < n; i++) a[i] = i;
#pragma omp target teams distribute parallel for map(to: a[0:n]) reduction(+: sum)
  for (int i = 0; i < n; i++) sum += scale * a[i];
  printf("sum %d\\n", sum);
  return sum != 999000;
}
"""


def run(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(args, cwd=cwd, check=True)


class Inputs:
    """The files the tests read (never written to: tests copy what they rewrite)."""

    def __init__(self, d: pathlib.Path) -> None:
        self.dir = d
        (d / "k1.hip").write_text(KERNEL.replace("NAME", "kern1"))
        (d / "k2.hip").write_text(KERNEL.replace("NAME", "kern2"))
        (d / "p.c").write_text(OPENMP)
        for tu in ("k1", "k2"):
            run(CLANG, *HIP, "-c", f"{tu}.hip", "-o", f"{tu}.o", cwd=d)
            run(CLANG, *HIP, "--offload-compress", "-c", f"{tu}.hip", "-o", f"{tu}c.o", cwd=d)
            run(CLANG, *HIP, "-fgpu-rdc", "-c", f"{tu}.hip", "-o", f"{tu}r.o", cwd=d)
        run(CLANG, "-shared", "-fuse-ld=lld", "k1.o", "k2.o", "-o", "libk.so", cwd=d)
        run(CLANG, "-shared", "-fuse-ld=lld", "k1c.o", "k2c.o", "-o", "libkc.so", cwd=d)
        run(CLANG, "--hip-link", "-fgpu-rdc", ARCHS, "-no-hip-rt", "-shared", "-fuse-ld=lld",
            "k1r.o", "k2r.o", "-o", "librdc.so", cwd=d)
        run(CLANG, "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "p.c", "-o", "prog", cwd=d)
        self.libk = d / "libk.so"
        self.libkc = d / "libkc.so"
        self.librdc = d / "librdc.so"
        self.rdc_object = d / "k1r.o"
        self.prog = d / "prog"


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("inputs"))
