#!/usr/bin/env python3
"""Mutates shipped libraries and runs offkit's commands on each mutation under a 1 GiB
address-space limit and a 60 s timeout; reports signals, panics, timeouts, partial outputs and
leftover temporaries, and keeps each input that shows one in ./hostile-found/.

The inputs are not in the project (they are downloaded, not committed), for example:
    apt-get download librocsparse0 librocrand1 && dpkg-deb -x librocrand1_*.deb deb
    pip download --no-deps bitsandbytes==0.50.2 && unzip bitsandbytes-*.whl
Each mutation sets a field just after a container magic (bundle, CCOB, offload binary, CUDA fat
binary, ELF) to 0, 1, 2^31, 2^32-1, 2^63 or 2^64-1, truncates there, or flips bits near it.
The project's own hostile test (crates/offkit-cli/tests/all/hostile.rs) does the same on inputs
it builds, on every CI run.

usage: scripts/hostile-real.py OFFKIT SEED COUNT INPUT...
"""
import os, random, re, shutil, struct, subprocess, sys, tempfile

offkit, seed, count, inputs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rng = random.Random(seed)
MAGICS = [b"__CLANG_OFFLOAD_BUNDLE__", b"CCOB", b"\x10\xff\x10\xad", b"\x50\xed\x55\xba", b"\x7fELF",
          b"\x46\x62\xc1\x31"]
VALUES = [0, 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1]
COMMANDS = [
    ["inspect", "{in}"],
    ["inspect", "--json", "{in}"],
    ["extract", "{in}", "-o", "{out}/x"],
    ["check", "{in}", "--device", "gfx90a,sm_80"],
    ["prune", "{in}", "--keep", "gfx90a", "-o", "{out}/p"],
    ["compress", "{in}", "-o", "{out}/c"],
    ["decompress", "{in}", "-o", "{out}/d"],
]

def spots(data):
    out = []
    for m in MAGICS:
        for hit in re.finditer(re.escape(m), data):
            out.append(hit.end())
            if len(out) > 4000:
                return out
    return out

def mutate(data):
    data = bytearray(data)
    how = rng.choice(["field", "field", "field", "truncate", "flip"])
    places = spots(bytes(data)) or [0]
    if how == "field":
        at = rng.choice(places) + rng.choice([0, 4, 8, 12, 16, 24, 32, 40])
        width = rng.choice([4, 8])
        v = rng.choice(VALUES) & ((1 << (8 * width)) - 1)
        if at + width <= len(data):
            data[at:at + width] = v.to_bytes(width, "little")
        return bytes(data), f"field@{at:#x}={v:#x}/{width}"
    if how == "truncate":
        at = min(len(data), rng.choice(places) + rng.randrange(0, 256))
        return bytes(data[:at]), f"truncate@{at:#x}"
    at = rng.choice(places) + rng.randrange(0, 4096)
    for _ in range(8):
        i = min(len(data) - 1, at + rng.randrange(0, 64))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data), f"flip@{at:#x}"

problems = runs = 0
for path in inputs:
    original = open(path, "rb").read()
    for n in range(count):
        data, what = mutate(original)
        work = tempfile.mkdtemp(prefix="offkit-hostile-")
        inp = os.path.join(work, "in.so")
        open(inp, "wb").write(data)
        out = os.path.join(work, "out")
        os.mkdir(out)
        for cmd in COMMANDS:
            argv = [offkit] + [a.format(**{"in": inp, "out": out}) for a in cmd]
            runs += 1
            try:
                p = subprocess.run(["bash", "-c", 'ulimit -v 1048576; exec "$@"', "-"] + argv,
                                   capture_output=True, timeout=60)
                rc, err = p.returncode, p.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            left = sorted(os.listdir(out))
            bad = []
            if rc == "timeout": bad.append("timeout")
            elif rc < 0 or rc > 1: bad.append(f"exit {rc}")
            if "panicked" in err: bad.append("panic")
            if rc != 0 and left: bad.append(f"partial output {left}")
            if any(".tmp" in l or l.startswith(".") for l in left): bad.append(f"temporary {left}")
            if set(os.listdir(work)) - {"in.so", "out"}: bad.append("file outside the output dir")
            if bad:
                problems += 1
                keep = os.path.join("hostile-found", f"{os.path.basename(path)}-{seed}-{n}")
                os.makedirs(os.path.dirname(keep), exist_ok=True)
                shutil.copy(inp, keep)
                print(f"PROBLEM {os.path.basename(path)} {what} {cmd[0]}: {bad} {err.strip()[-300:]}", flush=True)
            for l in os.listdir(out):
                q = os.path.join(out, l)
                shutil.rmtree(q) if os.path.isdir(q) else os.remove(q)
        shutil.rmtree(work)
print(f"{runs} runs, {problems} problems")
