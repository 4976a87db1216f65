#!/usr/bin/env python3
"""Code-shape figures for review: public items per crate, functions over 100 lines, files over
800 lines, and module import cycles within each crate. Reads the sources as text (rustfmt'd
code: items start at a line's indentation, functions end at the matching closing brace at the
same indentation). Usage: scripts/code-metrics.py [--list]"""
import os, re, sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LIST = "--list" in sys.argv

def rs_files(crate_src):
    for d, _, fs in os.walk(crate_src):
        for f in fs:
            if f.endswith(".rs"):
                yield os.path.join(d, f)

def strip_tests(lines):
    # Unit tests sit at the bottom in `#[cfg(test)] mod tests`: leave them out of API counts.
    for i, l in enumerate(lines):
        if l.startswith("#[cfg(test)]"):
            return lines[:i]
    return lines

PUB = re.compile(r"^\s*pub(\((crate|super|in [^)]*)\))?\s+(unsafe\s+)?(async\s+)?(const\s+)?(extern\s+\"C\"\s+)?(fn|struct|enum|trait|type|const|static|mod|use|union)\b")
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")

def main():
    crates = sorted(os.listdir(os.path.join(ROOT, "crates")))
    total_long, total_big = [], []
    print(f"{'crate':18} {'pub':>5} {'pub(crate)':>10} {'fns>100':>8} {'files>800':>9} {'cycles':>6}")
    for c in crates:
        src = os.path.join(ROOT, "crates", c, "src")
        if not os.path.isdir(src):
            continue
        pub = pubc = 0
        long_fns, big_files = [], []
        mods = {}
        for f in rs_files(src):
            lines = open(f, encoding="utf-8").read().split("\n")
            rel = os.path.relpath(f, ROOT)
            if len(lines) > 800:
                big_files.append((len(lines), rel))
            body = strip_tests(lines)
            for l in body:
                m = PUB.match(l)
                if m:
                    if m.group(1):
                        pubc += 1
                    else:
                        pub += 1
            # Function lengths, tests included (a long test is long too).
            for i, l in enumerate(lines):
                m = FN.match(l)
                if not m or l.rstrip().endswith(";"):
                    continue
                indent = m.group(1)
                for j in range(i + 1, len(lines)):
                    if lines[j] == indent + "}":
                        n = j - i + 1
                        if n > 100:
                            long_fns.append((n, f"{rel}:{i+1} {m.group(8)}"))
                        break
            modname = os.path.relpath(f, src)[:-3].replace(os.sep, "::")
            mods[modname] = set(re.findall(r"(?:crate|super)::(\w+)", "\n".join(body)))
        # Cycles between top-level modules of the crate.
        top = defaultdict(set)
        for m, uses in mods.items():
            t = m.split("::")[0]
            for u in uses:
                if u != t and (u in mods or any(k.startswith(u + "::") for k in mods)):
                    top[t].add(u)
        cycles = set()
        for a in top:
            for b in top[a]:
                if a in top.get(b, ()):
                    cycles.add(tuple(sorted((a, b))))
        total_long += long_fns
        total_big += big_files
        print(f"{c:18} {pub:5} {pubc:10} {len(long_fns):8} {len(big_files):9} {len(cycles):6}")
        if LIST:
            for n, w in sorted(long_fns, reverse=True):
                print(f"    fn {n:4} {w}")
            for n, w in sorted(big_files, reverse=True):
                print(f"    file {n:4} {w}")
            for a, b in sorted(cycles):
                print(f"    cycle {a} <-> {b}")
    print(f"total: {len(total_long)} functions over 100 lines, {len(total_big)} files over 800 lines")

main()
