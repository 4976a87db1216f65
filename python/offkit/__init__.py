"""offkit: LLVM's offloading formats and tools, from Python.

The device code inside objects, archives, shared libraries, executables and bundles, typed::

    import offkit

    for image in offkit.inspect("libk.so"):
        print(image.location, image.triple, image.target_id, image.size)

    coverage = offkit.check(["site-packages/mypkg/lib"], ["gfx90a:xnack-", "gfx1100", "sm_80"])
    if not coverage.covered:
        for f in coverage.files:
            for d in f.devices:
                if d.status == "missing":
                    print(f.path, d.device, d.reason, d.flag)

    offkit.prune("libk.so", keep=["gfx90a:xnack-", "gfx1100"], output="libk-small.so")

Every call is the library behind the ``offkit`` command that this package also installs
(``offkit inspect``, ``check``, ``extract``, ``prune``, ``compress``, ``decompress``); a file that
cannot be read raises :class:`offkit.Error` with its ``file``, ``offset`` and ``reason``.
:func:`runtime_dir` is the directory of offkit's OpenMP offload runtime
(``libomptarget.so.19.1`` for clang-19 programs, ``libomptarget.so.22.1`` for clang-22's).
"""

from __future__ import annotations

import os
import pathlib
import shutil
from importlib import metadata

from ._offkit import (
    CodeObject,
    Compression,
    Coverage,
    DeviceCoverage,
    Error,
    FileCoverage,
    Image,
    Rewrite,
    __version__,
    check,
    compress,
    decompress,
    extract,
    inspect,
    prune,
)

__all__ = [
    "CodeObject",
    "Compression",
    "Coverage",
    "DeviceCoverage",
    "Error",
    "FileCoverage",
    "Image",
    "Rewrite",
    "__version__",
    "check",
    "compress",
    "decompress",
    "executable",
    "extract",
    "inspect",
    "prune",
    "runtime_dir",
]

RUNTIME_LIBRARIES = ("libomptarget.so.19.1", "libomptarget.so.22.1")


def _installed_file(name: str) -> pathlib.Path | None:
    """The installed file of this distribution whose name is ``name``, from its RECORD."""
    try:
        dist = metadata.distribution("offkit")
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if f.name == name:
            p = pathlib.Path(str(dist.locate_file(f))).resolve()
            if p.is_file():
                return p
    return None


def runtime_dir() -> pathlib.Path:
    """The directory holding offkit's runtime libraries, ``libomptarget.so.19.1`` and
    ``libomptarget.so.22.1``, as the wheel installed them (``<prefix>/lib/offkit``, the
    directory ``offkit rt --libdir`` prints).

    Run a clang-19 OpenMP offloading program on it with
    ``LD_LIBRARY_PATH=offkit.runtime_dir()``. Raises :class:`FileNotFoundError` when the
    package was installed without them (not from a wheel).
    """
    lib = _installed_file(RUNTIME_LIBRARIES[0])
    if lib is None or not all((lib.parent / n).is_file() for n in RUNTIME_LIBRARIES):
        raise FileNotFoundError(
            "offkit's runtime libraries (%s) are not installed with this package; "
            "install offkit from its wheel" % ", ".join(RUNTIME_LIBRARIES)
        )
    return lib.parent


def executable() -> pathlib.Path:
    """The ``offkit`` command this package installed (or the first on ``PATH``)."""
    exe = _installed_file("offkit")
    if exe is not None and os.access(exe, os.X_OK):
        return exe
    found = shutil.which("offkit")
    if found is None:
        raise FileNotFoundError("the offkit command is not installed")
    return pathlib.Path(found)
