#!/usr/bin/env python3
"""LLVM 22's own lit tests for one tool family, run with LLVM 22's tools and with offkit's
LLVM 22 faces in the Debian 13 root; prints the RUN-line counts. The one runner of
scripts/lit22/*.sh (bundler.sh, linker-wrapper.sh, objdump.sh).

A small stand-in for lit: each test file's RUN lines (joined at a trailing `\\`, with lit's
substitutions: %s %S %p %t %T %clang %clangxx %clang_cc1 %itanium_abi_triple %errc_*, and
`%if FEATURE %{ … %} %else %{ … %}`) run in order with `bash -o pipefail -c` inside the root,
once with LLVM 22's tools first on PATH and once with offkit's shims (made by `offkit shims
--llvm 22`, plus `--with-objdump` when asked) first; every other program (clang, FileCheck,
yaml2obj, llvm-objcopy, obj2yaml, diff) is LLVM 22's or Debian's on both sides. A test's
`Inputs/` directory goes with it. A RUN line passes when it exits 0; later lines run even after
a failure, as a count of lines (not of files, as lit gives) needs. Files whose REQUIRES are not
met here (`asserts`: Debian builds without them; `zlib && !zstd`) are reported and not run, as
lit reports them UNSUPPORTED.

With --with-objdump, offkit's side has offkit's `llvm-objdump` face first on PATH; it does
`--offloading` only, so a RUN line that runs `llvm-objdump` without `--offloading` (the
disassembly of what `--offloading` extracted) runs LLVM 22's `llvm-objdump` there on both
sides.

usage: run.py [--with-objdump] [-v] ROOT OFFKIT_EXE TESTFILE...
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# What Debian's LLVM 22 has: every target, lld, zstd and zlib; no assertions.
FEATURES = {"x86-registered-target", "amdgpu-registered-target", "nvptx-registered-target",
            "spirv-registered-target", "lld", "zlib", "zstd", "shell"}
LLVM_BIN = "/usr/lib/llvm-22/bin"
HOST_TRIPLE = "x86_64-pc-linux-gnu"


def feature(name):
    """Whether a lit feature holds here; `target=<regex>` matches the host triple."""
    if name.startswith("target="):
        pattern = name[len("target="):]
        regex = "".join(re.escape(p) if i % 2 == 0 else p
                        for i, p in enumerate(re.split(r"\{\{(.*?)\}\}", pattern)))
        return re.fullmatch(regex, HOST_TRIPLE) is not None
    return name in FEATURES


def requires_met(expr):
    """A lit boolean expression over features (&&, ||, !, parentheses)."""
    py = expr.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    py = re.sub(r"target=\S+|[A-Za-z0-9_.+-]+",
                lambda m: m.group(0) if m.group(0) in ("and", "or", "not")
                else str(feature(m.group(0))), py)
    return eval(py)  # noqa: S307 - the test files' own feature expressions


def run_lines(path):
    text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    runs, requires, cur = [], [], None
    for line in text:
        m = re.search(r"\b(RUN|REQUIRES):(.*)$", line)
        if not m:
            continue
        kind, body = m.group(1), m.group(2).rstrip()
        if kind == "REQUIRES":
            requires += [r.strip() for r in body.split(",")]
            continue
        if cur is not None:
            cur += " " + body.strip()
        else:
            cur = body.strip()
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        runs.append(cur)
        cur = None
    return runs, requires


def expand_if(cmd):
    """`%if FEATURE %{ a %} %else %{ b %}` (the whole line), by this host's features."""
    m = re.match(r"^%if\s+(\S+)\s+%\{(.*?)%\}\s*(?:%else\s+%\{(.*?)%\})?\s*$", cmd)
    if not m:
        return cmd
    yes, no = m.group(2), m.group(3) or ""
    return (yes if requires_met(m.group(1)) else no).strip()


def substitute(cmd, src, tmp):
    d = os.path.dirname(src)
    subs = [
        ("%clang_cc1", f"clang -cc1 -internal-isystem {LLVM_BIN}/../lib/clang/22/include "
                       "-nostdsysteminc"),
        ("%clangxx", "clang++"),
        ("%clang", "clang"),
        ("%itanium_abi_triple", HOST_TRIPLE),
        ("%errc_ENOENT", "'No such file or directory'"),
        ("%errc_EISDIR", "'Is a directory'"),
        ("%errc_EINVAL", "'Invalid argument'"),
        ("%errc_EACCES", "'Permission denied'"),
        ("%s", src),
        ("%S", d),
        ("%p", d),
        ("%t", tmp),
        ("%T", os.path.dirname(tmp)),
    ]
    cmd = expand_if(cmd)
    for k, v in subs:
        cmd = cmd.replace(k, v)
    return cmd


def objdump_elsewhere(cmd):
    """A RUN line's `llvm-objdump` without `--offloading`, run as LLVM 22's."""
    if "llvm-objdump" not in cmd or "--offloading" in cmd:
        return cmd
    return re.sub(r"(?<![\w/.-])llvm-objdump(?![\w.-])", f"{LLVM_BIN}/llvm-objdump", cmd)


def run_file(root, shims, test, side, with_objdump):
    """Runs one file's RUN lines for one side; returns (passed, total, failures)."""
    runs, _ = run_lines(test)
    work = tempfile.mkdtemp(prefix=f"lit22-{side}-", dir=os.path.join(root, "tmp"))
    inner_work = "/" + os.path.relpath(work, root)
    name = os.path.basename(test)
    shutil.copy(test, os.path.join(work, name))
    inputs = os.path.join(os.path.dirname(test), "Inputs")
    if os.path.isdir(inputs):
        shutil.copytree(inputs, os.path.join(work, "Inputs"))
    os.makedirs(os.path.join(work, "Output"), exist_ok=True)
    src = f"{inner_work}/{name}"
    tmp = f"{inner_work}/Output/{name}.tmp"
    path = f"{LLVM_BIN}:/usr/bin:/bin"
    if side == "offkit":
        path = f"{shims}:{path}"
    passed, failures = 0, []
    for i, raw in enumerate(runs):
        cmd = substitute(raw, src, tmp)
        if with_objdump:
            cmd = objdump_elsewhere(cmd)
        r = subprocess.run(
            ["chroot", root, "/usr/bin/env", "-i", f"PATH={path}", "HOME=/root", "LANG=C",
             "/bin/bash", "-o", "pipefail", "-c", f"cd {inner_work}/Output && {cmd}"],
            capture_output=True, text=True, errors="replace")
        if r.returncode == 0:
            passed += 1
        else:
            failures.append((i, raw, r.stdout[-400:] + r.stderr[-800:]))
    shutil.rmtree(work, ignore_errors=True)
    return passed, len(runs), failures


def main():
    flags = {a for a in sys.argv[1:] if a in ("-v", "--with-objdump")}
    args = [a for a in sys.argv[1:] if a not in flags]
    verbose, with_objdump = "-v" in flags, "--with-objdump" in flags
    root, offkit, tests = args[0], args[1], args[2:]
    shims_host = tempfile.mkdtemp(prefix="lit22-shims-", dir=os.path.join(root, "tmp"))
    shims = "/" + os.path.relpath(shims_host, root)
    shutil.copy(offkit, os.path.join(shims_host, "offkit"))
    extra = ["--with-objdump"] if with_objdump else []
    subprocess.run(["chroot", root, f"{shims}/offkit", "shims", "--llvm", "22", *extra, shims],
                   check=True, capture_output=True)
    totals = {"lines": 0, "llvm": 0, "offkit": 0, "unsupported": 0, "both": 0}
    for test in tests:
        runs, requires = run_lines(test)
        rel = test.split("llvm-toolchain-22_22.1.8/")[-1]
        unmet = [r for r in requires if not requires_met(r)]
        if unmet:
            totals["unsupported"] += len(runs)
            print(f"{rel}: {len(runs)} RUN lines UNSUPPORTED here (REQUIRES: {', '.join(unmet)})")
            continue
        lp, n, lf = run_file(root, shims, test, "llvm", with_objdump)
        op, _, of = run_file(root, shims, test, "offkit", with_objdump)
        lfail = {i for i, _, _ in lf}
        ofail = {i for i, _, _ in of}
        both = sum(1 for i in range(n) if i not in lfail and i not in ofail)
        totals["lines"] += n
        totals["llvm"] += lp
        totals["offkit"] += op
        totals["both"] += both
        print(f"{rel}: {n} RUN lines; pass with LLVM 22's tools: {lp}; with offkit: {op}; "
              f"with both: {both}")
        for i, raw, out in of:
            if i not in lfail:
                print(f"  offkit fails line {i + 1} (LLVM 22 passes): {raw}")
                if verbose:
                    print("    " + out.replace("\n", "\n    "))
        if verbose:
            for i, raw, out in lf:
                print(f"  LLVM 22 fails line {i + 1}: {raw}\n    " + out.replace("\n", "\n    "))
    shutil.rmtree(shims_host, ignore_errors=True)
    print(f"TOTAL: {totals['lines']} RUN lines run; pass with LLVM 22's tools: {totals['llvm']}; "
          f"with offkit: {totals['offkit']}; with both: {totals['both']}; "
          f"{totals['unsupported']} RUN lines in files unsupported here")
    return 0 if totals["both"] == totals["llvm"] else 1


if __name__ == "__main__":
    sys.exit(main())
