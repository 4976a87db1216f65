"""Every call of the ``offkit`` package on inputs clang-19 built, each checked against what the
``offkit`` command the wheel installed says or writes for the same input."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

import offkit


def cli(*args: object, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs the installed ``offkit`` command, found on PATH."""
    exe = shutil.which("offkit")
    assert exe is not None
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def cli_images(path: pathlib.Path) -> list[dict]:
    doc = json.loads(cli("inspect", "--json", path).stdout)
    return [i for i in doc["files"][0]["images"] if not i["host_placeholder"]]


def test_inspect_openmp_program(inputs):
    images = offkit.inspect(inputs.prog)
    assert [(i.offload_kind, i.image_kind, i.triple) for i in images] == [
        ("openmp", "object", "x86_64-pc-linux-gnu")
    ]
    (i,) = images
    assert i.source == "offload-binary"
    assert i.strings["triple"] == "x86_64-pc-linux-gnu"
    assert i.code_object is not None and i.code_object.arch == "other"
    assert "scale" in i.code_object.entries
    assert i.address == f"file://{inputs.prog}#offset={i.offset}&size={i.size}"
    assert isinstance(i, offkit.Image)


@pytest.mark.parametrize("lib", ["libk", "libkc"])
def test_inspect_hip_library_every_bundle(inputs, lib):
    path = getattr(inputs, lib)
    images = [i for i in offkit.inspect(path) if i.offload_kind != "host"]
    # One bundle per translation unit, each with both targets.
    assert sorted((i.bundle, i.target_id) for i in images) == [
        (0, "gfx1030"), (0, "gfx90a:xnack+"), (1, "gfx1030"), (1, "gfx90a:xnack+"),
    ]
    for i in images:
        assert (i.offload_kind, i.image_kind, i.triple) == ("hipv4", "object", "amdgcn-amd-amdhsa")
        assert i.code_object.arch == "amdgpu"
        assert i.code_object.target_id == i.target_id
        assert i.code_object.kernels == ["_Z5kern1Pi"] if i.bundle == 0 else ["_Z5kern2Pi"]
        if lib == "libkc":
            assert i.compression.format == "ccob"
            assert i.compression.method == "zstd"
            assert i.compression.uncompressed_size > i.compression.compressed_size
            assert "&inflated-offset=" in i.address
        else:
            assert i.compression is None
    # The same images, places and addresses as `offkit inspect --json`.
    want = [(j["location"], j["offset"], j["size"], j["address"]) for j in cli_images(path)]
    got = [(i.location, i.offset, i.size, i.address) for i in offkit.inspect(path)]
    assert got == want


def test_inspect_rdc(inputs):
    objs = offkit.inspect(inputs.rdc_object)
    device = [i for i in objs if i.offload_kind == "hip"]
    assert {i.target_id for i in device} == {"gfx1030", "gfx90a:xnack+"}
    assert {i.image_kind for i in device} == {"bitcode"}
    assert {i.source for i in device} == {"bundle-section"}
    linked = [i for i in offkit.inspect(inputs.librdc) if i.offload_kind == "hipv4"]
    assert {i.target_id for i in linked} == {"gfx1030", "gfx90a:xnack+"}
    assert {i.bundle for i in linked} == {0}


def test_check(inputs):
    cov = offkit.check([inputs.libk, inputs.libkc], ["gfx90a:xnack+", "gfx1030"])
    assert cov.covered and bool(cov)
    assert cov.devices == ["gfx90a:xnack+", "gfx1030"]
    for f in cov.files:
        assert [d.status for d in f.devices] == ["covered", "covered"]
        assert f.devices[0].fit == "exact"
        assert f.devices[0].image.target_id == "gfx90a:xnack+"
    cov = offkit.check([inputs.libk], ["gfx90a", "gfx1100", "sm_80"])
    assert not cov.covered
    (f,) = cov.files
    assert [d.status for d in f.devices] == ["missing", "missing", "missing"]
    assert f.devices[1].flag == "--offload-arch=gfx1100"
    assert "xnack" in f.devices[0].reason
    # The verdicts of `offkit check --json`.
    p = cli("check", "--json", inputs.libk, "--device", "gfx90a,gfx1100,sm_80", ok=False)
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    want = [(d["device"], d["status"], d["reason"], d["flag"]) for d in doc["files"][0]["devices"]]
    assert [(d.device, d.status, d.reason, d.flag) for d in f.devices] == want


def test_check_directory(inputs, tmp_path):
    lib = tmp_path / "wheel" / "pkg" / "lib"
    lib.mkdir(parents=True)
    shutil.copy(inputs.libk, lib)
    shutil.copy(inputs.prog, lib)
    (lib / "README").write_text("not code\n")
    cov = offkit.check([tmp_path / "wheel"], ["gfx1030", "x86_64"])
    assert cov.covered
    by_file = {pathlib.Path(f.path).name: [d.status for d in f.devices] for f in cov.files}
    assert by_file == {"libk.so": ["covered", "n/a"], "prog": ["n/a", "covered"]}
    cov = offkit.check([tmp_path / "wheel"], ["gfx1100"])
    assert not cov.covered and cov.nowhere == []


def test_check_unreadable_and_bad_device(inputs, tmp_path):
    broken = tmp_path / "broken.so"
    broken.write_bytes(inputs.libkc.read_bytes()[:6000])
    cov = offkit.check([broken, inputs.libk], ["gfx1030"])
    assert not cov.covered
    assert cov.files[0].error and cov.files[0].devices == []
    assert cov.files[1].devices[0].covered
    with pytest.raises(ValueError, match="generic target"):
        offkit.check([inputs.libk], ["gfx9-generic"])


def test_extract(inputs, tmp_path):
    got = offkit.extract(inputs.libk, device="gfx1030")
    assert [i.bundle for i, _ in got] == [0, 1]
    # The bytes `offkit extract` writes for the same selection.
    out = tmp_path / "cli"
    cli("extract", inputs.libk, "--device", "gfx1030", "-o", out)
    assert sorted(b for _, b in got) == sorted(p.read_bytes() for p in out.iterdir())
    assert all(b.startswith(b"\x7fELF") for _, b in got)
    # Images of compressed bundles, decompressed; an address picks one.
    out = tmp_path / "cli-compressed"
    cli("extract", inputs.libkc, "--triple", "amdgcn-amd-amdhsa", "-o", out)
    got = offkit.extract(inputs.libkc, triple="amdgcn-amd-amdhsa")
    assert sorted(b for _, b in got) == sorted(p.read_bytes() for p in out.iterdir())
    for i, b in got:
        assert len(b) == i.size and i.compression is not None
        assert offkit.extract(inputs.libkc, address=i.address) == [(i, b)]
    (omp,) = offkit.extract(inputs.prog)
    assert omp[0].triple == "x86_64-pc-linux-gnu" and len(omp[1]) == omp[0].size


def test_prune(inputs, tmp_path):
    out, out_cli = tmp_path / "libk-gfx1030.so", tmp_path / "cli.so"
    r = offkit.prune(inputs.libkc, keep=["gfx1030"], output=out)
    assert r.output == str(out) and r.bundles == 2
    assert sorted(r.removed) == ["hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"] * 2
    assert {i.target_id for i in offkit.inspect(out) if i.offload_kind != "host"} == {"gfx1030"}
    cli("prune", inputs.libkc, "--keep", "gfx1030", "-o", out_cli)
    assert out.read_bytes() == out_cli.read_bytes()
    # A dry run writes nothing; in place rewrites the file itself.
    dry = offkit.prune(inputs.libk, drop=["gfx1030"], dry_run=True)
    assert dry.output is None and len(dry.removed) == 2
    copy = tmp_path / "copy.so"
    shutil.copy(inputs.libk, copy)
    assert offkit.prune(copy, drop=["gfx1030"]).output == str(copy)
    assert {i.target_id for i in offkit.inspect(copy) if i.offload_kind != "host"} == {
        "gfx90a:xnack+"
    }
    with pytest.raises(ValueError):
        offkit.prune(copy)
    with pytest.raises(ValueError, match="at least one device"):
        offkit.prune(copy, keep=[])


def test_compress_and_decompress(inputs, tmp_path):
    small, small_cli = tmp_path / "small.so", tmp_path / "small-cli.so"
    r = offkit.compress(inputs.libk, output=small)
    assert (r.bundles_changed, r.bundles) == (2, 2) and r.freed > 0
    cli("compress", inputs.libk, "-o", small_cli)
    assert small.read_bytes() == small_cli.read_bytes()
    assert {i.compression.method for i in offkit.inspect(small) if i.offload_kind != "host"} == {
        "zstd"
    }
    plain = tmp_path / "plain.so"
    offkit.decompress(small, output=plain)
    assert all(i.compression is None for i in offkit.inspect(plain))
    def images(path):
        return [(i.location.split(":", 1)[1], b) for i, b in offkit.extract(path, kind="hip")]

    assert images(plain) == images(inputs.libk)
    with pytest.raises(ValueError):
        offkit.compress(inputs.libk, method="lz4", dry_run=True)


def test_errors_carry_file_offset_reason(inputs, tmp_path):
    # The second compressed bundle of the library claims an unknown version.
    data = bytearray(inputs.libkc.read_bytes())
    second = data.find(b"CCOB", data.find(b"CCOB") + 1)
    data[second + 4] = 9
    broken = tmp_path / "broken.so"
    broken.write_bytes(bytes(data))
    with pytest.raises(offkit.Error) as e:
        offkit.inspect(broken)
    assert e.value.file == str(broken)
    assert e.value.offset == second
    assert "version" in e.value.reason
    assert str(e.value).startswith(f"{broken}: ")
    # The offset and causes `offkit inspect --json` gives.
    p = cli("inspect", "--json", broken, ok=False)
    error = json.loads(p.stdout)["files"][0]["error"]
    assert error["offset"] == e.value.offset
    assert error["causes"][-1] in e.value.reason
    with pytest.raises(offkit.Error) as e:
        offkit.inspect(tmp_path / "missing.o")
    assert e.value.offset is None and "No such file" in e.value.reason
    with pytest.raises(offkit.Error) as e:
        offkit.decompress(broken, dry_run=True)
    assert e.value.offset == second
