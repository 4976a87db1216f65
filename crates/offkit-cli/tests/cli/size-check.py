#!/usr/bin/env python3
"""Checks of `offkit size` for size.test (exit 1 with a message when one fails).

  size-check.py sums SIZE.json
      every file's tables add up: targets + headers = units = totals (stored and inflated),
      each unit's images + headers = the unit, kernels' code + other = the code objects' bytes,
      the files' totals = the document's
  size-check.py same SIZE.json PATH prune|compress OUT LOG
      the estimate for PATH equals what the real command did: OUT's size is `size_after`, and
      the `N bytes freed` of the command's summary line (LOG) is `freed`
  size-check.py kernel SIZE.json PATH NAME CODE-OBJECT...
      the code bytes given for kernel NAME of PATH are the sum of the sizes llvm-nm gives its
      symbol in the code objects (extracted by `offkit extract`)
  size-check.py treemap DOM
      the line the injected script wrote in the dumped DOM: every leaf's area in proportion
      to its bytes, the leaves covering the map
"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print(f"size-check: {msg}", file=sys.stderr)
    sys.exit(1)


def sums(path):
    doc = json.load(open(path))
    total = {"stored": 0, "inflated": 0}
    for f in doc["files"]:
        if f["error"]:
            continue
        for k in ("stored", "inflated"):
            t = sum(x[k] for x in f["targets"]) + f["headers"][k]
            u = sum(x[k] for x in f["units"])
            if not (t == u == f["totals"][k]):
                fail(f"{f['path']}: {k}: targets+headers {t}, units {u}, total {f['totals'][k]}")
            for unit in f["units"]:
                i = sum(x[k] for x in unit["images"]) + unit["headers"][k]
                if i != unit[k]:
                    fail(f"{f['path']}{unit['name']}: {k}: images+headers {i}, unit {unit[k]}")
            total[k] += f["totals"][k]
        if sum(len(u["images"]) for u in f["units"]) != f["images"]:
            fail(f"{f['path']}: image count")
        if sum(t["images"] for t in f["targets"]) != f["images"]:
            fail(f"{f['path']}: image count by target")
        k = f["kernels"]
        if sum(x["code"] for x in k["list"]) + k["other"] != k["image_bytes"]:
            fail(f"{f['path']}: kernels do not add up")
    if total != doc["totals"]:
        fail(f"files {total} != totals {doc['totals']}")
    print("sums add up")


def same(path, name, kind, out, log):
    doc = json.load(open(path))
    f = next((f for f in doc["files"] if f["path"] == name), None)
    if f is None:
        fail(f"no file {name}")
    e = f[kind]
    if not e or not e["ok"]:
        fail(f"{name}: no {kind} estimate: {e}")
    actual = os.path.getsize(out)
    if e["size_after"] != actual:
        fail(f"{name}: {kind}: estimated size {e['size_after']}, written {actual}")
    m = re.search(r"(\d+) bytes? (freed|taken)\s*$", open(log).read().strip().splitlines()[-1])
    if not m:
        fail(f"{name}: no summary line in {log}")
    freed = int(m.group(1)) * (1 if m.group(2) == "freed" else -1)
    if e["freed"] != freed:
        fail(f"{name}: {kind}: estimated {e['freed']} bytes freed, the command {freed}")
    print(f"{name}: {kind}: {actual} bytes, {freed} freed, as estimated")


def kernel(path, name, kernel, *objects):
    doc = json.load(open(path))
    f = next(f for f in doc["files"] if f["path"] == name)
    k = next((k for k in f["kernels"]["list"] if k["name"] == kernel), None)
    if k is None:
        fail(f"{name}: no kernel {kernel}")
    want = 0
    for o in objects:
        nm = subprocess.run(["llvm-nm", "-S", "--defined-only", o], capture_output=True,
                            text=True, check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[3] == kernel and parts[2] in "Tt":
                want += int(parts[1], 16)
    if k["code"] != want or want == 0:
        fail(f"{name}: {kernel}: {k['code']} bytes of code given, llvm-nm says {want}")
    print(f"{name}: {kernel}: {want} bytes of code, as llvm-nm says")


def treemap(dom):
    m = re.search(r"leaves=(\d+) worst=(\S+) cover=(\S+) ok=(\w+)", open(dom).read())
    if not m:
        fail("the check script left no result (did the page load?)")
    if m.group(4) != "true" or int(m.group(1)) == 0:
        fail(f"treemap areas are not in proportion: {m.group(0)}")
    print(f"treemap: {m.group(1)} leaves in proportion to their bytes")


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:]
    {"sums": sums, "same": same, "kernel": kernel, "treemap": treemap}[cmd](*rest)
