//! Offload entry tables as clang-22 writes them (`llvm_offload_entries`, 56-byte entries, names
//! in `.llvm.rodata.offloading`) for OpenMP, CUDA and HIP objects and a linked OpenMP program:
//! `offkit inspect` reads every field as LLVM 22's `llvm-readelf`/`llvm-nm` show them, reads the
//! same entries when the section has one of the old names, and reports a table it cannot read as
//! a warning on that table while still reading the rest of the file.

use std::collections::BTreeMap;
use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::run;
use serde_json::Value;

const OPENMP: &str = "int x = 1;\n#pragma omp declare target enter(x)\nint y = 2;\n\
#pragma omp declare target link(y)\nvoid g(void){}\n#pragma omp declare target indirect enter(g)\n\
#pragma omp requires unified_shared_memory\nint f(void){int r;\n#pragma omp target map(from:r)\n\
r=x+y;\nreturn r;}\n";

const ATTRS: &str = "#define __global__ __attribute__((global))\n\
#define __device__ __attribute__((device))\n#define __constant__ __attribute__((constant))\n\
#define __managed__ __attribute__((managed))\ntypedef struct { unsigned x, y, z; } dim3;\n";

const KERNELS: &str = "__device__ int dv[4];\n__constant__ int cv;\n\
__global__ void kern(int *p) { p[0] = dv[1] + cv; }\n";

/// Builds the inputs with clang-22 in `s` (once per test: each test has its own scratch).
fn build(s: &Scratch) {
    s.write("e.c", OPENMP);
    s.write("m.c", "int f(void);\nint main(void){return f();}\n");
    s.write(
        "stub.c",
        "void __tgt_register_lib(void*p){}\nvoid __tgt_unregister_lib(void*p){}\n",
    );
    s.write(
        "k.hip",
        format!(
            "{ATTRS}typedef struct ihipStream_t *hipStream_t;\nextern \"C\" int \
             hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);\n\
             __managed__ int mv;\n{KERNELS}"
        ),
    );
    s.write(
        "k.cu",
        format!(
            "{ATTRS}typedef struct CUstream_st *cudaStream_t;\nextern \"C\" int \
             cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, cudaStream_t);\n\
             {KERNELS}"
        ),
    );
    let d = s.inner();
    let omp = [
        "-fopenmp",
        "-fopenmp-version=52",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
    ];
    llvm22::clang(&[&omp[..], &["-c", "e.c", "-o", "omp.o"]].concat(), &d);
    llvm22::clang(&["-shared", "-fPIC", "stub.c", "-o", "libomptarget.so"], &d);
    llvm22::clang(
        &[
            &omp[..],
            &[
                "e.c",
                "m.c",
                "-L.",
                "-Wl,--unresolved-symbols=ignore-all",
                "-o",
                "omp.exe",
            ],
        ]
        .concat(),
        &d,
    );
    llvm22::clang(
        &[
            "-x",
            "hip",
            "--offload-new-driver",
            "-fgpu-rdc",
            "--offload-arch=gfx90a",
            "-nogpulib",
            "-nogpuinc",
            "-c",
            "k.hip",
            "-o",
            "hip.o",
        ],
        &d,
    );
    llvm22::clang(
        &[
            "-x",
            "cuda",
            "--offload-new-driver",
            "-fgpu-rdc",
            "-foffload-lto",
            "--offload-arch=sm_52",
            "-nocudainc",
            "-nocudalib",
            "-c",
            "k.cu",
            "-o",
            "cuda.o",
        ],
        &d,
    );
}

fn tool(s: &Scratch, name: &str, args: &[&str]) -> String {
    Run::new(Side::Llvm, name, args, &s.inner())
        .ok()
        .stdout_str()
}

fn inspect(s: &Scratch, file: &str) -> (Option<i32>, Value, String) {
    let out = run(
        env!("CARGO_BIN_EXE_offkit"),
        ["inspect", "--json", file],
        s.path(),
    );
    let doc = serde_json::from_slice(&out.stdout).expect("inspect --json");
    (out.code, doc, out.stderr_str())
}

/// The bytes of section `sec` from `llvm-readelf -x` (LLVM 22).
fn section_bytes(s: &Scratch, file: &str, sec: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in tool(s, "llvm-readelf", &["-x", sec, file])
        .lines()
        .filter(|l| l.trim_start().starts_with("0x"))
    {
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

/// `llvm-readelf -r` (LLVM 22): offset in `sec` → the relocation's symbol.
fn relocations(s: &Scratch, file: &str, sec: &str) -> BTreeMap<u64, String> {
    let mut map = BTreeMap::new();
    let mut inside = false;
    for line in tool(s, "llvm-readelf", &["-r", file]).lines() {
        if line.starts_with("Relocation section") {
            inside = line.contains(&format!("'.rela{sec}'"));
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if inside && f.len() >= 5 {
            if let Ok(off) = u64::from_str_radix(f[0], 16) {
                map.insert(off, f[4].to_string());
            }
        }
    }
    map
}

/// `llvm-nm` (LLVM 22): symbol → value.
fn symbols(s: &Scratch, file: &str) -> BTreeMap<String, u64> {
    tool(s, "llvm-nm", &[file])
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3).then(|| (f[2].to_string(), u64::from_str_radix(f[0], 16).ok()))
        })
        .filter_map(|(n, v)| Some((n, v?)))
        .collect()
}

/// Checks the file's own `llvm_offload_entries` table against LLVM 22's tools; returns it.
fn check_table(s: &Scratch, file: &str, kind: &str, linked: bool) -> Value {
    let (code, doc, stderr) = inspect(s, file);
    assert_eq!(code, Some(0), "{file}: {stderr}");
    let tables = doc["files"][0]["entry_tables"].as_array().unwrap();
    let t = tables
        .iter()
        .find(|t| t["location"] == format!("{file}:llvm_offload_entries"))
        .unwrap_or_else(|| panic!("{file}: no table in {tables:?}"))
        .clone();
    assert_eq!(t["format"], "llvm20", "{file}");
    assert_eq!(t["entry_size"], 56, "{file}");
    let entries = t["entries"].as_array().unwrap();
    let raw = section_bytes(s, file, "llvm_offload_entries");
    assert_eq!(raw.len(), 56 * entries.len(), "{file}");
    let syms = symbols(s, file);
    // `.offloading.entry.<name>` labels each entry; in address order they are the table.
    let mut labels: Vec<(u64, &str)> = syms
        .iter()
        .filter_map(|(n, &v)| Some((v, n.strip_prefix(".offloading.entry.")?)))
        .collect();
    labels.sort();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        labels.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        "{file}"
    );
    let relocs = relocations(s, file, "llvm_offload_entries");
    for (i, e) in entries.iter().enumerate() {
        let at = 56 * i;
        let word = |o: usize, n: usize| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&raw[at + o..at + o + n]);
            u64::from_le_bytes(b)
        };
        assert_eq!(word(0, 8), 0, "{file} [{i}] reserved");
        assert_eq!(e["version"].as_u64(), Some(word(8, 2)), "{file} [{i}]");
        assert_eq!(e["kind"].as_u64(), Some(word(10, 2)), "{file} [{i}]");
        assert_eq!(e["flags"].as_u64(), Some(word(12, 4)), "{file} [{i}]");
        assert_eq!(e["size"].as_u64(), Some(word(32, 8)), "{file} [{i}]");
        assert_eq!(e["data"].as_u64(), Some(word(40, 8)), "{file} [{i}]");
        assert_eq!(e["offload_kind"], kind, "{file} [{i}]");
        let sym = e["addr_symbol"].as_str();
        if linked {
            match sym {
                Some(sym) => assert_eq!(
                    e["addr_value"].as_u64(),
                    syms.get(sym).copied(),
                    "{file} [{i}]"
                ),
                // The requires entry has a null address.
                None => assert_eq!(e["addr_value"].as_u64(), Some(0), "{file} [{i}]"),
            }
        } else if let Some(r) = relocs.get(&(at as u64 + 16)) {
            assert_eq!(sym, Some(r.as_str()), "{file} [{i}]");
        }
    }
    t
}

#[test]
fn clang_22_entry_tables_read_field_for_field() {
    let s = Scratch::new();
    build(&s);
    let omp = check_table(&s, "omp.o", "openmp", false);
    let roles: Vec<&str> = omp["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["variable", "link", "indirect", "variable", "kernel", "requires"]
    );
    check_table(&s, "omp.exe", "openmp", true);
    let hip = check_table(&s, "hip.o", "hip", false);
    let hip_roles: Vec<&str> = hip["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap())
        .collect();
    assert_eq!(hip_roles, ["kernel", "managed", "variable", "variable"]);
    assert_eq!(hip["entries"][3]["flag_names"][0], "constant");
    check_table(&s, "cuda.o", "cuda", false);
}

#[test]
fn entries_of_either_layout_read_in_any_section_and_a_bad_table_is_a_warning() {
    let s = Scratch::new();
    build(&s);
    let (_, doc, _) = inspect(&s, "omp.o");
    let want = doc["files"][0]["entry_tables"][0]["entries"].clone();
    for old in [
        "omp_offloading_entries",
        "cuda_offloading_entries",
        "hip_offloading_entries",
    ] {
        let renamed = format!("{old}.o");
        tool(
            &s,
            "llvm-objcopy",
            &[
                &format!("--rename-section=llvm_offload_entries={old}"),
                "omp.o",
                &renamed,
            ],
        );
        let (code, doc, stderr) = inspect(&s, &renamed);
        assert_eq!(code, Some(0), "{stderr}");
        let t = &doc["files"][0]["entry_tables"][0];
        assert_eq!(t["location"], format!("{renamed}:{old}"));
        assert_eq!(t["entry_size"], 56, "{old}");
        // The entries carry their own kind (OpenMP), whatever the section is called.
        assert_eq!(t["entries"], want, "{old}");
    }
    // A table of 50 bytes: a warning on that table; the device image is still listed.
    s.write("bad50", [0u8; 50]);
    tool(
        &s,
        "llvm-objcopy",
        &[
            "--update-section=llvm_offload_entries=bad50",
            "omp.o",
            "bad.o",
        ],
    );
    let (code, doc, stderr) = inspect(&s, "bad.o");
    assert_eq!(code, Some(0), "{stderr}");
    let f = &doc["files"][0];
    assert_eq!(f["entry_tables"].as_array().map(Vec::len), Some(0));
    assert_eq!(f["images"].as_array().map(Vec::len), Some(1));
    let w = f["warnings"][0]["message"].as_str().unwrap();
    assert!(
        w.starts_with("cannot read the offload entry table: ") && w.contains("56-byte entries"),
        "{w}"
    );
    assert_eq!(f["warnings"][0]["location"], "bad.o:llvm_offload_entries");
    assert!(
        stderr.contains("warning: bad.o:llvm_offload_entries: cannot read"),
        "{stderr}"
    );
    // The text form says it too, and exits 0.
    let out = run(env!("CARGO_BIN_EXE_offkit"), ["inspect", "bad.o"], s.path());
    assert_eq!(out.code, Some(0));
    assert!(out.stdout_str().contains(".llvm.offloading[0]"));
    assert!(Path::new(&s.join("bad.o")).exists());
}
