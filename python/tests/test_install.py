"""What the wheel installs besides the package: the ``offkit`` command on PATH, its man pages
and completions, and the runtime libraries, found through the API and run."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import offkit

PREFIX = pathlib.Path(sys.prefix)


def test_command_on_path_is_the_wheels():
    exe = shutil.which("offkit")
    assert exe is not None
    assert pathlib.Path(exe).resolve() == offkit.executable().resolve()
    assert pathlib.Path(exe).resolve().parent == (PREFIX / "bin").resolve()
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    assert out == f"offkit {offkit.__version__}\n"


def test_faces_through_shims(tmp_path):
    subprocess.run(["offkit", "shims", tmp_path / "bin"], check=True, capture_output=True)
    p = subprocess.run([tmp_path / "bin" / "clang-offload-bundler", "--version"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "clang-offload-bundler" in p.stdout


def test_runtime_dir_is_offkit_rt_libdir():
    d = offkit.runtime_dir()
    assert d == (PREFIX / "lib" / "offkit").resolve()
    assert sorted(p.name for p in d.iterdir()) == sorted(offkit.RUNTIME_LIBRARIES)
    out = subprocess.run(["offkit", "rt", "--libdir"], capture_output=True, text=True, check=True)
    assert pathlib.Path(out.stdout.strip()) == d


def test_openmp_program_runs_on_the_wheels_runtime(inputs):
    env = dict(os.environ, LD_LIBRARY_PATH=str(offkit.runtime_dir()),
               OMP_TARGET_OFFLOAD="mandatory", LD_DEBUG="libs")
    p = subprocess.run([inputs.prog], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout == "sum 999000\n"
    # The loader initialised the wheel's libomptarget.so.19.1, not LLVM's.
    lib = offkit.runtime_dir() / "libomptarget.so.19.1"
    assert f"calling init: {lib}" in p.stderr


def test_man_pages_and_completions():
    share = PREFIX / "share"
    pages = {p.name for p in (share / "man" / "man1").iterdir()}
    assert {"offkit.1", "offkit-inspect.1", "offkit-check.1", "offkit-rt.1"} <= pages
    bash = share / "bash-completion" / "completions" / "offkit"
    assert "offkit__subcmd__inspect" in bash.read_text()
    assert (share / "zsh" / "site-functions" / "_offkit").read_text().startswith("#compdef offkit")
    assert "__fish_offkit" in (share / "fish" / "vendor_completions.d" / "offkit.fish").read_text()
    p = subprocess.run(["man", "-l", str(share / "man" / "man1" / "offkit-check.1")],
                       capture_output=True, text=True, env=dict(os.environ, MANWIDTH="80"))
    if p.returncode == 0:  # man(1) is optional on a CI machine; the page is checked above.
        assert "offkit check" in p.stdout


def test_typed_package():
    pkg = pathlib.Path(offkit.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_offkit.pyi").is_file()
    assert offkit.inspect.__doc__ and "device images" in offkit.inspect.__doc__
    assert issubclass(offkit.Error, Exception)


def test_clang22_program_runs_on_the_wheels_22_runtime(inputs):
    """A clang-22 OpenMP program (Debian 13 has no offload runtime for it), built and run in the
    Debian 13 root of scripts/setup-trixie.sh, linked against the wheel's libomptarget.so.22.1."""
    root = pathlib.Path(os.environ.get("OFFKIT_TRIXIE_ROOT", "/opt/offkit/trixie"))
    assert (root / "usr/bin/clang-22").exists(), f"no Debian 13 root at {root} (scripts/setup-trixie.sh)"
    work = pathlib.Path(tempfile.mkdtemp(dir=root / "tmp", prefix="offkit-wheel-"))
    try:
        inner = "/" + str(work.relative_to(root))
        shutil.copy(inputs.dir / "p.c", work)
        (work / "lib").mkdir()
        shutil.copy(offkit.runtime_dir() / "libomptarget.so.22.1", work / "lib")
        (work / "lib" / "libomptarget.so").symlink_to("libomptarget.so.22.1")

        def in_root(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["chroot", str(root), "/usr/bin/env", "-i", "PATH=/usr/bin:/bin",
                 "OMP_TARGET_OFFLOAD=mandatory", "/bin/sh", "-c", 'cd "$0" && exec "$@"', inner,
                 *args],
                capture_output=True, text=True, check=True)

        in_root("clang-22", "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "p.c",
                f"-L{inner}/lib", f"-Wl,-rpath,{inner}/lib", "-o", "prog")
        assert in_root("./prog").stdout == "sum 999000\n"
        assert f"libomptarget.so.22.1 => {inner}/lib/libomptarget.so.22.1" in in_root(
            "ldd", "./prog").stdout
    finally:
        shutil.rmtree(work)
