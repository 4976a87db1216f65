"""Type stubs of offkit's native module (crates/offkit-py)."""

from __future__ import annotations

import os
from typing import Literal, Optional, Sequence, Tuple, Union

_Path = Union[str, "os.PathLike[str]"]

__version__: str

class Error(Exception):
    """An input that cannot be read or rewritten."""

    file: str
    """The file."""
    offset: Optional[int]
    """The absolute offset of the bad byte, for malformed data."""
    reason: str
    """The causes, outermost first, joined by ``: ``."""

class Compression:
    """How an image's bytes were compressed."""

    format: Literal["ccob", "offload-binary"]
    version: int
    method: str
    """``zstd``, ``zlib``, or ``method N``."""
    offset: int
    compressed_size: int
    uncompressed_size: int

class CodeObject:
    """What a device ELF image's header and symbols say."""

    arch: Literal["amdgpu", "cuda", "other"]
    processor: str
    target_id: str
    xnack: Optional[Literal["on", "off", "any", "unsupported"]]
    sramecc: Optional[Literal["on", "off", "any", "unsupported"]]
    code_object_version: Optional[int]
    kernels: list[str]
    entries: list[str]

class Image:
    """A device image: where it is in its file and what it is for."""

    path: str
    """The file it was found in."""
    location: str
    """Where it is in the file: ``libk.so:.hip_fatbin[1]:hipv4-amdgcn-amd-amdhsa--gfx90a``."""
    source: Literal["offload-binary", "bundle", "bundle-section", "nv-fatbin", "hip-fatbin", "cuda-fatbin"]
    offload_kind: str
    """``openmp``, ``hip``, ``hipv4``, ``cuda``, ``none``, ``host``, or a bundle entry's kind."""
    image_kind: str
    """``object``, ``bitcode``, ``cubin``, ``fatbinary``, ``ptx``, ``spirv``, ``none``."""
    triple: str
    target_id: str
    """``gfx90a:xnack+``, ``sm_80``; may be empty."""
    offset: int
    """The absolute offset of its first byte (in the inflated bundle when compressed)."""
    size: int
    compression: Optional[Compression]
    bundle: Optional[int]
    """The index of its bundle in its section's (or file's) sequence of bundles."""
    address: Optional[str]
    """``file://PATH#offset=N&size=M[&inflated-offset=I&inflated-size=J]``."""
    strings: dict[str, str]
    """An offload binary entry's key/value strings."""
    code_object: Optional[CodeObject]

class DeviceCoverage:
    """What one device gets from one file."""

    device: str
    status: Literal["covered", "missing", "n/a"]
    covered: bool
    image: Optional[Image]
    fit: Optional[Literal["exact", "any", "generic", "cubin", "ptx", "triple"]]
    reason: Optional[str]
    flag: Optional[str]
    """The compile flag that adds code for the device, when it is missing."""
    bundles_without: list[str]

class FileCoverage:
    """What one file offers the devices."""

    path: str
    available: list[str]
    devices: list[DeviceCoverage]
    error: Optional[str]
    error_offset: Optional[int]

class Coverage:
    """The coverage of a set of devices by a set of files; true when everything is covered."""

    devices: list[str]
    files: list[FileCoverage]
    nowhere: list[str]
    skipped: list[str]
    covered: bool
    def __bool__(self) -> bool: ...

class Rewrite:
    """What a rewrite did (or, for a dry run, would do)."""

    path: str
    output: Optional[str]
    size: Optional[int]
    bundles_changed: int
    bundles: int
    removed: list[str]
    freed: int

def inspect(path: _Path) -> list[Image]:
    """The device images of a file (objects, archives, executables, shared libraries, offload
    binaries, bundles; nested and compressed)."""

def extract(
    path: _Path,
    *,
    kind: Optional[str] = None,
    triple: Optional[str] = None,
    device: Optional[str] = None,
    address: Optional[str] = None,
) -> list[Tuple[Image, bytes]]:
    """The bytes of the selected device images of a file."""

def check(paths: Sequence[_Path], devices: Sequence[str]) -> Coverage:
    """Which image each device would load from each file, and which devices files leave
    without code."""

def prune(
    path: _Path,
    *,
    keep: Optional[Sequence[str]] = None,
    drop: Optional[Sequence[str]] = None,
    output: Optional[_Path] = None,
    dry_run: bool = False,
    level: int = 3,
    allow_empty: bool = False,
) -> Rewrite:
    """Takes the device images a set of devices does not need out of a file."""

def compress(
    path: _Path,
    *,
    output: Optional[_Path] = None,
    dry_run: bool = False,
    version: int = 2,
    method: Literal["zstd", "zlib"] = "zstd",
    level: Optional[int] = None,
) -> Rewrite:
    """Compresses every offload bundle of a file as LLVM 19's bundler does."""

def decompress(
    path: _Path, *, output: Optional[_Path] = None, dry_run: bool = False
) -> Rewrite:
    """Decompresses every compressed offload bundle of a file."""
