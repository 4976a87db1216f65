#!/usr/bin/env python3
"""The public API of offkit's library crates, one line per item, as golden files in `api/`.

    scripts/public-api.py            write api/<crate>.txt for every library crate
    scripts/public-api.py --check    compare with the committed files; exit 1 and show the
                                     difference when an API changed (scripts/test.sh runs this)
    scripts/public-api.py CRATE...   only these crates

The listing is read from rustdoc's JSON output (`--output-format json`, which the stable
toolchain gives with RUSTC_BOOTSTRAP=1), walked from each crate root through public modules
and re-exports, so every item is listed under the path a caller writes: modules, types with
their public fields and variants, functions and methods with their signatures, constants,
traits, and the traits each type implements (auto and blanket impls left out). Like
`cargo public-api`, it shows an API change as a diff in review.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "api"
# The crates others build on (offkit-cli and offkit-testutil are not libraries of offkit's API;
# offkit-py's API is Python's, listed by its .pyi).
CRATES = [
    "offkit-read",
    "offkit-llvm",
    "offkit-format",
    "offkit-elf",
    "offkit-tools",
    "offkit-bundle",
    "offkit-wrap",
    "offkit-link",
    "offkit-surgery",
    "offkit-rt",
]


def rustdoc_json(crate):
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    subprocess.run(
        ["cargo", "rustdoc", "-q", "-p", crate, "--lib", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, env=env, check=True,
    )
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "-q", "--no-deps", "--format-version", "1"],
        cwd=ROOT, check=True, capture_output=True).stdout)
    (lib,) = [t["name"] for p in meta["packages"] if p["name"] == crate
              for t in p["targets"] if "lib" in t["kind"] or "cdylib" in t["kind"]]
    return json.loads((target / "doc" / (lib.replace("-", "_") + ".json")).read_text())


class Lister:
    def __init__(self, doc):
        self.doc = doc
        self.index = doc["index"]
        self.lines = set()
        self.seen = set()

    def item(self, id_):
        return self.index.get(str(id_))

    # Types, as a caller writes them.
    def ty(self, t):
        if t is None:
            return "()"
        (k, v), = t.items()
        if k == "primitive" or k == "generic":
            return v
        if k == "resolved_path":
            return self.path(v)
        if k == "borrowed_ref":
            lt = (v["lifetime"] + " ") if v.get("lifetime") else ""
            return "&" + lt + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if k == "raw_pointer":
            return "*" + ("mut " if v["is_mutable"] else "const ") + self.ty(v["type"])
        if k == "slice":
            return "[" + self.ty(v) + "]"
        if k == "array":
            return "[" + self.ty(v["type"]) + "; " + str(v["len"]) + "]"
        if k == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if k == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if k == "dyn_trait":
            parts = [self.path(p["trait"]) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if k == "qualified_path":
            trait = self.path(v["trait"]) if v.get("trait") else "_"
            return "<" + self.ty(v["self_type"]) + " as " + trait + ">::" + v["name"]
        if k == "function_pointer":
            sig = v["sig"]
            return "fn(" + ", ".join(self.ty(x[1]) for x in sig["inputs"]) + ") -> " + self.ty(sig["output"])
        if k == "infer":
            return "_"
        return k

    def path(self, p):
        s = p["path"]
        args = p.get("args")
        if args and "angle_bracketed" in args:
            a = args["angle_bracketed"]
            parts = []
            for x in a.get("args", []):
                (ak, av), = x.items()
                parts.append(self.ty(av) if ak == "type" else av if ak == "lifetime" else str(av))
            for c in a.get("constraints", []):
                b = c.get("binding", {})
                if "equality" in b:
                    eq = b["equality"]
                    parts.append(c["name"] + " = " + (self.ty(eq["type"]) if "type" in eq else str(eq)))
            if parts:
                s += "<" + ", ".join(parts) + ">"
        elif args and "parenthesized" in args:
            pa = args["parenthesized"]
            s += "(" + ", ".join(self.ty(x) for x in pa["inputs"]) + ")"
            if pa.get("output"):
                s += " -> " + self.ty(pa["output"])
        return s

    def bound(self, b):
        if "trait_bound" in b:
            return self.path(b["trait_bound"]["trait"])
        if "outlives" in b:
            return b["outlives"]
        return "?"

    def generics(self, g):
        out = []
        for p in g.get("params", []):
            kind = p["kind"]
            if "lifetime" in kind:
                out.append(p["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                bounds = kind["type"].get("bounds", [])
                out.append(p["name"] + (": " + " + ".join(self.bound(b) for b in bounds) if bounds else ""))
            elif "const" in kind:
                out.append("const " + p["name"] + ": " + self.ty(kind["const"]["type"]))
        return "<" + ", ".join(out) + ">" if out else ""

    def fn(self, name, f):
        sig = f["sig"]
        h = f.get("header", {})
        quals = ("const " if h.get("is_const") else "") + ("async " if h.get("is_async") else "") + \
            ("unsafe " if h.get("is_unsafe") else "")
        ins = []
        for n, t in sig["inputs"]:
            if n == "self":
                ins.append({"&Self": "&self", "&mut Self": "&mut self", "Self": "self"}.get(self.ty(t), "self: " + self.ty(t)))
            else:
                ins.append(n + ": " + self.ty(t))
        out = "" if sig.get("output") is None else " -> " + self.ty(sig["output"])
        return quals + "fn " + name + self.generics(f["generics"]) + "(" + ", ".join(ins) + ")" + out

    def emit(self, line):
        self.lines.add(line)

    def walk(self, id_, path):
        it = self.item(id_)
        if it is None:
            return
        (kind, inner), = it["inner"].items()
        key = (str(id_), path)
        if key in self.seen:
            return
        self.seen.add(key)
        if kind == "module":
            self.emit("pub mod " + path)
            for c in inner["items"]:
                self.child(c, path)
        elif kind == "struct":
            self.emit("pub struct " + path + self.generics(inner["generics"]))
            k = inner["kind"]
            if isinstance(k, dict) and "plain" in k:
                for f in k["plain"]["fields"]:
                    fi = self.item(f)
                    if fi and fi["visibility"] == "public":
                        self.emit("pub " + path + "::" + fi["name"] + ": " + self.ty(fi["inner"]["struct_field"]))
            elif isinstance(k, dict) and "tuple" in k:
                for i, f in enumerate(k["tuple"]):
                    fi = self.item(f) if f is not None else None
                    if fi and fi["visibility"] == "public":
                        self.emit("pub " + path + "::" + str(i) + ": " + self.ty(fi["inner"]["struct_field"]))
            self.impls(inner["impls"], path)
        elif kind == "enum":
            self.emit("pub enum " + path + self.generics(inner["generics"]))
            for v in inner["variants"]:
                vi = self.item(v)
                if vi:
                    self.emit("pub " + path + "::" + vi["name"] + self.variant(vi["inner"]["variant"]))
            self.impls(inner["impls"], path)
        elif kind == "union":
            self.emit("pub union " + path)
            self.impls(inner["impls"], path)
        elif kind == "function":
            self.emit("pub " + self.fn(path, inner))
        elif kind == "constant":
            self.emit("pub const " + path + ": " + self.ty(inner["type"]))
        elif kind == "static":
            self.emit("pub static " + path + ": " + self.ty(inner["type"]))
        elif kind == "type_alias":
            self.emit("pub type " + path + self.generics(inner["generics"]) + " = " + self.ty(inner["type"]))
        elif kind == "trait":
            self.emit("pub trait " + path + self.generics(inner["generics"]))
            for m in inner["items"]:
                mi = self.item(m)
                if mi and "function" in mi["inner"]:
                    self.emit("pub " + path + "::" + self.fn(mi["name"], mi["inner"]["function"]))
        elif kind == "macro":
            self.emit("pub macro " + path + "!")
        else:
            self.emit("pub " + kind + " " + path)

    def variant(self, v):
        k = v["kind"]
        if k == "plain":
            return ""
        if "tuple" in k:
            return "(" + ", ".join(self.ty(self.item(f)["inner"]["struct_field"]) if f is not None and self.item(f) else "_" for f in k["tuple"]) + ")"
        if "struct" in k:
            fs = [self.item(f) for f in k["struct"]["fields"]]
            return " { " + ", ".join(f["name"] + ": " + self.ty(f["inner"]["struct_field"]) for f in fs if f) + " }"
        return ""

    def impls(self, ids, path):
        for i in ids:
            im = self.item(i)
            if im is None:
                continue
            inner = im["inner"]["impl"]
            if inner.get("is_synthetic") or inner.get("blanket_impl"):
                continue
            if inner.get("trait"):
                if inner["trait"]["path"] == "StructuralPartialEq":
                    continue  # what derive(PartialEq) adds for the compiler, not an API
                self.emit("impl " + self.path(inner["trait"]) + " for " + path)
                continue
            for m in inner["items"]:
                mi = self.item(m)
                if mi is None or mi["visibility"] != "public":
                    continue
                (mk, mv), = mi["inner"].items()
                if mk == "function":
                    self.emit("pub " + path + "::" + self.fn(mi["name"], mv))
                elif mk == "constant":
                    self.emit("pub const " + path + "::" + mi["name"] + ": " + self.ty(mv["type"]))

    def child(self, c, path):
        ci = self.item(c)
        if ci is None or ci["visibility"] != "public":
            return
        if "use" in ci["inner"]:
            u = ci["inner"]["use"]
            target = self.item(u["id"]) if u.get("id") is not None else None
            if u["is_glob"]:
                if target and "module" in target["inner"]:
                    for g in target["inner"]["module"]["items"]:
                        self.child(g, path)
                elif target and "enum" in target["inner"]:
                    for v in target["inner"]["enum"]["variants"]:
                        self.emit("pub use " + path + "::" + self.item(v)["name"])
                else:
                    self.emit("pub use " + path + "::" + u["source"] + "::*")
            elif target is not None:
                self.walk(u["id"], path + "::" + u["name"])
            else:
                # A re-export of another crate's item.
                self.emit("pub use " + path + "::" + u["name"] + " = " + u["source"])
        else:
            self.walk(c, path + "::" + ci["name"])


def listing(crate):
    doc = rustdoc_json(crate)
    lister = Lister(doc)
    root = doc["root"]
    lister.walk(root, doc["index"][str(root)]["name"])
    return "".join(line + "\n" for line in sorted(lister.lines))


def main(argv):
    check = "--check" in argv
    crates = [a for a in argv if not a.startswith("--")] or CRATES
    API.mkdir(exist_ok=True)
    changed = []
    for crate in crates:
        text = listing(crate)
        golden = API / (crate + ".txt")
        if check:
            old = golden.read_text() if golden.exists() else ""
            if old != text:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(golden), crate + " (now)"))
                changed.append(crate)
        else:
            golden.write_text(text)
            print(f"{golden.relative_to(ROOT)}: {text.count(chr(10))} items")
    if changed:
        print(f"\nthe public API of {', '.join(changed)} changed: if that is meant, run "
              f"scripts/public-api.py and commit api/", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
