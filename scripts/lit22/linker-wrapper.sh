#!/bin/sh
# LLVM 22.1.8's own lit tests of the linker wrapper and the nvlink wrapper
# (clang/test/Driver/linker-wrapper*.c, nvlink-wrapper.c), run with LLVM 22's tools and with
# offkit's LLVM 22 faces, in the Debian 13 root (scripts/setup-trixie.sh; FileCheck, not and
# count come with llvm-22-tools).
#
# Every RUN line of a test file runs in order, as lit runs them (`set -o pipefail`, lit's
# substitutions %clang, %s, %S, %t, %T, %if/%else for a Linux host), in a fresh directory, once
# with PATH=/usr/lib/llvm-22/bin:... (LLVM's side) and once with offkit's shims first (offkit's
# side). Unlike lit, a failing line does not stop its file: every line is counted. The counts:
# lines that pass with LLVM 22's tools, and of those, how many pass with offkit's faces; the
# lines that pass with LLVM and fail with offkit are listed.
#
# Usage: scripts/lit22/linker-wrapper.sh [OFFKIT_EXE]   (default: target/debug/offkit)
#        OFFKIT_TRIXIE_ROOT (default /opt/offkit/trixie), LLVM22_SRC (the sources) may be set.
set -eu
ROOT=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
SRC=${LLVM22_SRC:-/opt/offkit/src22/llvm-toolchain-22_22.1.8}
OFFKIT=${1:-target/debug/offkit}
[ -x "$ROOT/usr/lib/llvm-22/bin/clang" ] || { echo "no LLVM 22 in $ROOT: run scripts/setup-trixie.sh" >&2; exit 1; }
[ -x "$ROOT/usr/lib/llvm-22/bin/FileCheck" ] || { echo "no FileCheck in $ROOT: install llvm-22-tools there (scripts/setup-trixie.sh)" >&2; exit 1; }
[ -x "$OFFKIT" ] || { echo "no offkit at $OFFKIT: cargo build -p offkit-cli" >&2; exit 1; }

WORK=$(mktemp -d "$ROOT/tmp/lit22-lw-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
INNER=${WORK#"$ROOT"}
cp "$OFFKIT" "$WORK/offkit"
mkdir -p "$WORK/shims" "$WORK/tests"
chroot "$ROOT" "$INNER/offkit" shims --llvm 22 "$INNER/shims" >/dev/null
for t in "$SRC"/clang/test/Driver/linker-wrapper*.c "$SRC"/clang/test/Driver/nvlink-wrapper.c; do
  cp "$t" "$WORK/tests/"
done

python3 - "$ROOT" "$INNER" <<'PY'
import os, re, subprocess, sys
root, inner = sys.argv[1], sys.argv[2]
tests = sorted(os.listdir(f"{root}{inner}/tests"))
llvm_path = "/usr/lib/llvm-22/bin:/usr/bin:/bin"
sides = {"llvm": llvm_path, "offkit": f"{inner}/shims:{llvm_path}"}

def run_lines(path):
    lines, cur = [], None
    for raw in open(path, encoding="utf-8"):
        m = re.search(r"\bRUN:(.*)$", raw)
        if not m:
            continue
        part = m.group(1).rstrip()
        cur = (cur or "") + " " + part
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        lines.append(cur.strip())
        cur = None
    return lines

def expand_if(cmd):
    # %if <feature> %{ a %} %else %{ b %}: this host is Linux, without system-windows.
    m = re.match(r"^%if\s+(\S+)\s+%\{(.*?)%\}\s*(?:%else\s+%\{(.*?)%\})?\s*$", cmd)
    if not m:
        return cmd
    feature, yes, no = m.group(1), m.group(2), m.group(3) or ""
    return (yes if feature in ("x86-registered-target", "amdgpu-registered-target",
                               "nvptx-registered-target", "spirv-registered-target") else no).strip()

def substitute(cmd, test, tmp):
    cmd = expand_if(cmd)
    cmd = cmd.replace("%clang_cc1", "clang -cc1 -internal-isystem /usr/lib/llvm-22/lib/clang/22/include -nostdsysteminc")
    cmd = cmd.replace("%clang", "clang")
    cmd = cmd.replace("%s", test).replace("%S", os.path.dirname(test))
    cmd = cmd.replace("%t", tmp).replace("%T", os.path.dirname(tmp))
    return cmd

totals = {"lines": 0, "llvm": 0, "offkit": 0}
failing = []
for name in tests:
    test = f"{inner}/tests/{name}"
    lines = run_lines(f"{root}{test}")
    results = {}
    for side, path in sides.items():
        d = f"{inner}/run-{side}-{name}"
        os.makedirs(f"{root}{d}", exist_ok=True)
        tmp = f"{d}/t"
        ok = []
        for cmd in lines:
            c = substitute(cmd, test, tmp)
            r = subprocess.run(["chroot", root, "/usr/bin/env", "-i", f"PATH={path}", "HOME=/root",
                                "LANG=C", "/bin/bash", "-c", f"set -o pipefail; cd {d} && {c}"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ok.append(r.returncode == 0)
        results[side] = ok
    n = len(lines)
    l = sum(results["llvm"])
    o = sum(1 for a, b in zip(results["llvm"], results["offkit"]) if a and b)
    totals["lines"] += n; totals["llvm"] += l; totals["offkit"] += o
    print(f"{name}: {n} RUN lines, {l} pass with LLVM 22, {o} of those with offkit")
    for i, (a, b) in enumerate(zip(results["llvm"], results["offkit"])):
        if a and not b:
            failing.append(f"  {name} line {i + 1}: {lines[i][:160]}")
print(f"total: {totals['lines']} RUN lines, {totals['llvm']} pass with LLVM 22, "
      f"{totals['offkit']} of those pass with offkit")
if failing:
    print("passing with LLVM 22, failing with offkit:")
    print("\n".join(failing))
PY
