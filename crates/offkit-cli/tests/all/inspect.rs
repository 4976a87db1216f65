//! Conformance tests of `offkit inspect` and `offkit extract` against LLVM 19: on objects,
//! archives, executables and shared libraries built by clang-19 for one offload target
//! (x86_64) and for two (x86_64 + amdgcn gfx90a), `offkit inspect --json` must list exactly the
//! images `llvm-objdump-19 --offloading` lists (kind, arch, triple, producer, per archive
//! member, in order); the entry tables must agree with the `.offloading.entry.*` symbols
//! (`llvm-nm`), the relocations (`llvm-readelf -r`) and the section bytes (`llvm-readelf -x`);
//! and `offkit extract` must write the same bytes as `clang-offload-packager-19`'s extraction.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_testutil::fixtures::*;
use offkit_testutil::{llvm_tool, run, run_ok};
use serde_json::Value;

struct Fx {
    dir: PathBuf,
}

const TWO: [&str; 4] = [
    "-fopenmp",
    "-fopenmp-targets=x86_64-pc-linux-gnu,amdgcn-amd-amdhsa",
    "-Xopenmp-target=amdgcn-amd-amdhsa",
    "--offload-arch=gfx90a",
];
const ONE: [&str; 2] = ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"];

fn fx() -> &'static Fx {
    static FX: OnceLock<Fx> = OnceLock::new();
    FX.get_or_init(|| {
        let dir = offkit_testutil::fixtures::shared_dir(env!("CARGO_TARGET_TMPDIR"), "inspect");
        let d = dir.as_path();
        for (name, src) in [
            ("kernel.c", OPENMP_KERNEL),
            ("vars.c", OPENMP_VARIABLES),
            ("main.c", MAIN_SAXPY),
            ("empty.c", MAIN_EMPTY),
        ] {
            write_source(d, name, src);
        }
        let cc = |flags: &[&str], args: &[&str]| {
            let mut a: Vec<&str> = flags.to_vec();
            a.extend_from_slice(args);
            clang_in(d, &a);
        };
        // One offload target.
        cc(&ONE, &["-fPIC", "-c", "kernel.c", "-o", "one.o"]);
        cc(&ONE, &["-c", "main.c", "-o", "main1.o"]);
        cc(&ONE, &["one.o", "main1.o", "-o", "one.exe"]);
        cc(&ONE, &["-shared", "one.o", "-o", "libone.so"]);
        // Two offload targets, -nogpulib at compile time.
        cc(
            &TWO,
            &["-nogpulib", "-fPIC", "-c", "kernel.c", "-o", "two.o"],
        );
        cc(&TWO, &["-nogpulib", "-c", "main.c", "-o", "main2.o"]);
        cc(
            &TWO,
            &["-nogpulib", "-fPIC", "-c", "vars.c", "-o", "vars2.o"],
        );
        // Linked with the device runtime (the kernel needs it) ...
        cc(&TWO, &["two.o", "main2.o", "-o", "two.exe"]);
        cc(&TWO, &["-shared", "two.o", "-o", "libtwo.so"]);
        // ... and with -nogpulib (a program without kernels links without it).
        cc(
            &TWO,
            &["-nogpulib", "vars2.o", "empty.c", "-o", "vars-nogpulib.exe"],
        );
        cc(
            &TWO,
            &[
                "-nogpulib",
                "-shared",
                "vars2.o",
                "-o",
                "libvars-nogpulib.so",
            ],
        );
        let members = [dir.join("one.o"), dir.join("two.o"), dir.join("main2.o")];
        let members: Vec<&Path> = members.iter().map(PathBuf::as_path).collect();
        archive(d, "libmix.a", &members, "gnu");
        Fx { dir }
    })
}

const FILES: [&str; 11] = [
    "one.o",
    "one.exe",
    "libone.so",
    "two.o",
    "main2.o",
    "two.exe",
    "libtwo.so",
    "vars2.o",
    "vars-nogpulib.exe",
    "libvars-nogpulib.so",
    "libmix.a",
];

fn offkit(args: &[&str]) -> offkit_testutil::Output {
    run(env!("CARGO_BIN_EXE_offkit"), args, &fx().dir)
}

fn inspect_json(file: &str) -> Value {
    let out = offkit(&["inspect", "--json", file]);
    assert_eq!(out.code, Some(0), "{file}: {}", out.stderr_str());
    serde_json::from_slice(&out.stdout).expect("json")
}

/// One image as `llvm-objdump --offloading` shows it: (member, kind, arch, triple, producer).
type Row = (String, String, String, String, String);

fn objdump_rows(file: &str) -> Vec<Row> {
    let out = run_ok(llvm_tool("llvm-objdump"), ["--offloading", file], &fx().dir).stdout_str();
    let mut rows = Vec::new();
    let mut member = String::new();
    let mut cur: BTreeMap<&str, String> = BTreeMap::new();
    let flush = |cur: &mut BTreeMap<&str, String>, member: &str, rows: &mut Vec<Row>| {
        if !cur.is_empty() {
            let g = |k| cur.get(k).cloned().unwrap_or_default();
            rows.push((
                member.to_string(),
                g("kind"),
                g("arch"),
                g("triple"),
                g("producer"),
            ));
            cur.clear();
        }
    };
    for line in out.lines() {
        if let Some((name, _)) = line.split_once(":\tfile format") {
            flush(&mut cur, &member, &mut rows);
            member = name
                .strip_prefix(file)
                .and_then(|m| m.strip_prefix('('))
                .and_then(|m| m.strip_suffix(')'))
                .unwrap_or_default()
                .to_string();
        } else if line.starts_with("OFFLOADING IMAGE") {
            flush(&mut cur, &member, &mut rows);
        } else if line.len() >= 16 {
            let (k, v) = line.split_at(16);
            let key = match k.trim_end() {
                "kind" => "kind",
                "arch" => "arch",
                "triple" => "triple",
                "producer" => "producer",
                _ => continue,
            };
            cur.insert(key, v.to_string());
        } else if line.trim_end() == "arch" {
            cur.insert("arch", String::new());
        }
    }
    flush(&mut cur, &member, &mut rows);
    rows
}

fn objdump_kind(image_kind: &str) -> &str {
    match image_kind {
        "object" => "elf",
        "bitcode" => "llvm ir",
        "cubin" => "cubin",
        "fatbinary" => "fatbinary",
        "ptx" => "ptx",
        _ => "<none>",
    }
}

/// The images offkit lists that objdump would: offload binaries directly in a section of the
/// file or of an archive member (not inside device images).
fn offkit_rows(file: &str, doc: &Value) -> Vec<Row> {
    let mut rows = Vec::new();
    for img in doc["files"][0]["images"].as_array().expect("images") {
        if img["source"] != "offload-binary" {
            continue;
        }
        let loc = img["location"].as_str().unwrap();
        let rest = loc.strip_prefix(file).unwrap();
        let (member, rest) = match rest.strip_prefix('(') {
            Some(r) => {
                let (m, r) = r.split_once(')').unwrap();
                (m.to_string(), r)
            }
            None => (String::new(), rest),
        };
        // `:<section>[i]` and nothing deeper.
        if rest.matches(':').count() != 1 || rest.matches('[').count() != 1 {
            continue;
        }
        let s = |k: &str| img[k].as_str().unwrap_or_default().to_string();
        rows.push((
            member,
            objdump_kind(&s("image_kind")).to_string(),
            s("target_id"),
            s("triple"),
            s("offload_kind"),
        ));
    }
    rows
}

#[test]
fn inspect_agrees_with_llvm_objdump_offloading() {
    let mut compared = 0;
    for file in FILES {
        let expected = objdump_rows(file);
        assert!(!expected.is_empty(), "{file}: objdump found no image");
        let got = offkit_rows(file, &inspect_json(file));
        assert_eq!(got, expected, "{file}");
        compared += expected.len();
    }
    // Two-target files hold two images each (x86_64 and gfx90a).
    assert!(compared >= 20, "{compared}");
}

fn entry_symbols(file: &str) -> Vec<String> {
    let out = run_ok(llvm_tool("llvm-nm"), [file], &fx().dir).stdout_str();
    let mut v: Vec<(u64, String)> = out
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (a, _t, n) = (it.next()?, it.next()?, it.next()?);
            let name = n.strip_prefix(".offloading.entry.")?;
            Some((u64::from_str_radix(a, 16).ok()?, name.to_string()))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, n)| n).collect()
}

/// The bytes of section `sec` from `llvm-readelf -x`.
fn section_bytes(file: &str, sec: &str) -> Vec<u8> {
    let out = run_ok(llvm_tool("llvm-readelf"), ["-x", sec, file], &fx().dir).stdout_str();
    let mut bytes = Vec::new();
    for line in out.lines().filter(|l| l.trim_start().starts_with("0x")) {
        // `0x00000000 00000000 00000000 ... ascii`: up to four 8-digit groups.
        for w in line.split_whitespace().skip(1).take(4) {
            if w.len() % 2 != 0 || !w.chars().all(|c| c.is_ascii_hexdigit()) {
                break;
            }
            for i in (0..w.len()).step_by(2) {
                bytes.push(u8::from_str_radix(&w[i..i + 2], 16).unwrap());
            }
        }
    }
    bytes
}

/// `llvm-readelf -r` of an object: offset in `sec` → symbol of the relocation there.
fn relocations(file: &str, sec: &str) -> BTreeMap<u64, String> {
    let out = run_ok(llvm_tool("llvm-readelf"), ["-r", file], &fx().dir).stdout_str();
    let mut map = BTreeMap::new();
    let mut inside = false;
    for line in out.lines() {
        if line.starts_with("Relocation section") {
            inside =
                line.contains(&format!("'.rela{sec}'")) || line.contains(&format!("'.rel{sec}'"));
            continue;
        }
        if !inside {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 5 {
            if let Ok(off) = u64::from_str_radix(f[0], 16) {
                map.insert(off, f[4].to_string());
            }
        }
    }
    map
}

#[test]
fn entry_tables_agree_with_nm_readelf_and_section_bytes() {
    let mut checked = 0;
    for file in FILES.iter().filter(|f| !f.ends_with(".a")) {
        let doc = inspect_json(file);
        let tables = doc["files"][0]["entry_tables"].as_array().unwrap();
        // The file's own table (device images have theirs, deeper).
        let Some(t) = tables
            .iter()
            .find(|t| t["location"] == format!("{file}:omp_offloading_entries"))
        else {
            // main2.o has no target region and no variable: no entries.
            assert!(entry_symbols(file).is_empty(), "{file}");
            continue;
        };
        let entries = t["entries"].as_array().unwrap();
        let names: Vec<String> = entries
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, entry_symbols(file), "{file}");
        let raw = section_bytes(file, "omp_offloading_entries");
        assert_eq!(raw.len(), 32 * entries.len(), "{file}");
        let relocs = relocations(file, "omp_offloading_entries");
        for (i, e) in entries.iter().enumerate() {
            let at = 32 * i;
            let word = |o: usize, n: usize| {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(&raw[at + o..at + o + n]);
                u64::from_le_bytes(b)
            };
            assert_eq!(e["size"].as_u64(), Some(word(16, 8)), "{file} [{i}]");
            assert_eq!(e["flags"].as_u64(), Some(word(24, 4)), "{file} [{i}]");
            assert_eq!(e["data"].as_u64(), Some(word(28, 4)), "{file} [{i}]");
            if file.ends_with(".o") {
                let sym = relocs.get(&(at as u64)).expect("addr relocation");
                assert_eq!(
                    e["addr_symbol"].as_str(),
                    Some(sym.as_str()),
                    "{file} [{i}]"
                );
            } else {
                // Linked: the address is the symbol's, as llvm-nm gives it.
                let sym = e["addr_symbol"].as_str().expect("symbol");
                let nm = run_ok(llvm_tool("llvm-nm"), [*file], &fx().dir).stdout_str();
                let value = nm
                    .lines()
                    .find(|l| l.ends_with(&format!(" {sym}")))
                    .and_then(|l| u64::from_str_radix(l.split(' ').next()?, 16).ok());
                assert_eq!(e["addr_value"].as_u64(), value, "{file} [{i}] {sym}");
            }
            checked += 1;
        }
        let role = |r: &str| entries.iter().filter(|e| e["role"] == r).count();
        assert_eq!(role("link"), 1, "{file}");
        assert!(role("variable") >= 2, "{file}");
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn extract_writes_what_clang_offload_packager_extracts() {
    let dir = &fx().dir;
    for file in ["two.o", "libtwo.so", "libmix.a"] {
        let out_dir = dir.join(format!("out-{file}"));
        let out = offkit(&["extract", file, "-o", out_dir.to_str().unwrap()]);
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        let doc = inspect_json(file);
        let images: Vec<&Value> = doc["files"][0]["images"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["source"] == "offload-binary")
            .collect();
        // Every line: path, size, location.
        let written: Vec<(String, String)> = out
            .stdout_str()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0].to_string(), f[2].to_string())
            })
            .collect();
        assert_eq!(written.len(), images.len(), "{file}");
        for img in images {
            let triple = img["triple"].as_str().unwrap();
            let arch = img["target_id"].as_str().unwrap();
            let loc = img["location"].as_str().unwrap();
            // clang-offload-packager extracts by triple and arch into `<stem>-<triple>-<arch>.<i>.<ext>`.
            let pk_dir = dir.join(format!("pk-{file}-{triple}-{arch}"));
            std::fs::create_dir_all(&pk_dir).unwrap();
            run_ok(
                llvm_tool("clang-offload-packager"),
                [
                    dir.join(file).display().to_string(),
                    format!("--image=triple={triple},arch={arch},kind=openmp"),
                ],
                &pk_dir,
            );
            let mut theirs: Vec<Vec<u8>> = std::fs::read_dir(&pk_dir)
                .unwrap()
                .map(|e| std::fs::read(e.unwrap().path()).unwrap())
                .collect();
            theirs.sort();
            let (path, _) = written.iter().find(|(_, l)| l == loc).expect("written");
            let ours = std::fs::read(path).unwrap();
            assert!(
                theirs.contains(&ours),
                "{file}: {loc} differs from every image clang-offload-packager extracted"
            );
        }
    }
}

#[test]
fn extract_filters_and_goes_on_past_a_bad_input() {
    let dir = &fx().dir;
    let out_dir = dir.join("filtered");
    let out = offkit(&[
        "extract",
        "two.o",
        "libmix.a",
        "--triple",
        "amdgcn-amd-amdhsa",
        "--arch",
        "gfx90a",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    let mut names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "libmix-main2-openmp-amdgcn-amd-amdhsa-gfx90a.bc",
            "libmix-two-openmp-amdgcn-amd-amdhsa-gfx90a.bc",
            "two-openmp-amdgcn-amd-amdhsa-gfx90a.bc",
        ]
    );
    // A bad second input is one error: the first input's images are written, nothing of the
    // bad one, and the exit status is 1.
    std::fs::write(dir.join("garbage.bin"), b"\x10\xff\x10\xad\x07\0\0\0").unwrap();
    let bad_dir = dir.join("partial");
    let out = offkit(&[
        "extract",
        "two.o",
        "garbage.bin",
        "-o",
        bad_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr_str().contains("garbage.bin"),
        "{}",
        out.stderr_str()
    );
    assert!(std::fs::read_dir(&bad_dir).unwrap().count() > 0);
    assert!(std::fs::read_dir(&bad_dir).unwrap().all(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("two-")));
    // Only a bad input: nothing is written, not even the directory.
    let bad_dir = dir.join("never");
    let out = offkit(&["extract", "garbage.bin", "-o", bad_dir.to_str().unwrap()]);
    assert_eq!(out.code, Some(1));
    assert!(!bad_dir.exists());
    // Nothing matches: an error, exit 1.
    let out = offkit(&[
        "extract",
        "one.o",
        "--kind",
        "cuda",
        "-o",
        bad_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(1));
    assert!(!bad_dir.exists());
}
