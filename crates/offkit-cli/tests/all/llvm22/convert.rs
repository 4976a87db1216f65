//! `offkit convert --to offload-binary --llvm 22`: an old-driver HIP `-fgpu-rdc` object made by
//! clang-22 (fat object: `__CLANG_OFFLOAD_BUNDLE__` sections, `__hip_module_ctor`) converted for
//! LLVM 22's linker wrapper — offload binaries numbering HIP 4, one 56-byte entry of kind 4 per
//! kernel in `llvm_offload_entries` — reads as clang-22's new-driver object does, and links
//! with clang-22 `--offload-new-driver` through LLVM 22's own linker wrapper and through
//! offkit's 22 shims (the same program, byte for byte); run with a stand-in HIP runtime, the
//! program registers the image and every kernel as the new-driver program does. Converted for
//! LLVM 19 (the default), LLVM 22's wrapper reads kind 3 as no HIP and the link fails.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::run_ok;
use serde_json::Value;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

/// The kernels: two external, one static (which the old driver externalizes under a CUID).
const KERNELS: &str = r#"#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *);
__global__ void kern(int *p) { p[0] = 1; }
__global__ void scale(float *x, float a) { x[0] *= a; }
static __global__ void hidden(int *p) { p[1] = 2; }
void *use_hidden = (void *)hidden;
"#;

/// An entry as compared: name (without a static kernel's CUID), role, version, kind, flags.
type EntryShape = (String, Value, Value, Value, Value);
/// An entry table as compared: section, entry size, entries.
type TableShape = (Value, Value, Vec<EntryShape>);

/// Registered lines of a run of the stand-in runtime, with what two compiles of the same
/// source differ in taken out: the image's size and hash, a static kernel's CUID.
fn registered(out: &str) -> Vec<String> {
    out.lines()
        .map(
            |l| match (l.split_once(" size "), l.split_once(".intern.")) {
                (Some((entry, _)), _) if l.contains("bundle entry") => entry.to_string(),
                (_, Some((name, _))) => format!("{name}.intern.<cuid>"),
                _ => l.to_string(),
            },
        )
        .collect()
}

#[test]
fn converted_old_driver_object_links_with_clang_22s_new_driver() {
    let shims = llvm22::offkit_shims(Path::new(OFFKIT));
    let s = Scratch::new();
    let d = s.path();
    s.write("k.hip", KERNELS);
    s.write("main.c", "int main(void) { return 0; }\n");
    s.write("rt.c", offkit_testutil::stub_runtime::STUB_RUNTIME);
    let inner = s.inner();
    let hip = [
        "-x",
        "hip",
        "--offload-arch=gfx90a",
        "-fgpu-rdc",
        "-nogpulib",
        "-nogpuinc",
        "-c",
        "k.hip",
    ];
    llvm22::clang(
        &[&hip[..], &["--no-offload-new-driver", "-o", "old.o"]].concat(),
        &inner,
    );
    llvm22::clang(
        &[&hip[..], &["--offload-new-driver", "-o", "new.o"]].concat(),
        &inner,
    );
    llvm22::clang(&["-c", "main.c", "-o", "main.o"], &inner);
    llvm22::clang(&["-shared", "-fPIC", "rt.c", "-o", "librt.so"], &inner);

    let convert = |llvm: &str, out: &str| {
        run_ok(
            OFFKIT,
            [
                "convert",
                "old.o",
                "--to",
                "offload-binary",
                "--llvm",
                llvm,
                "-o",
                out,
            ],
            d,
        )
        .stdout_str()
    };
    let said = convert("22", "conv.o");
    for k in ["_Z4kernPi", "_Z5scalePff", "_ZL6hiddenPi.intern."] {
        assert!(said.contains(&format!("put in entry {k}")), "{said}");
    }
    convert("19", "conv19.o");

    // What offkit inspect reads: the new driver's kinds, strings and entries.
    let inspect = |f: &str| -> Value {
        let out = run_ok(OFFKIT, ["inspect", "--json", f], d);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["files"][0].clone()
    };
    let shape = |f: &Value| {
        let images: Vec<_> = f["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["offload_kind"].clone(),
                    i["image_kind"].clone(),
                    i["binary"]["flags"].clone(),
                )
            })
            .collect();
        let tables: Vec<_> = f["entry_tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let entries: Vec<_> = t["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| {
                        let name = e["name"].as_str().unwrap();
                        let name = name.split(".intern.").next().unwrap().to_string();
                        (
                            name,
                            e["role"].clone(),
                            e["version"].clone(),
                            e["kind"].clone(),
                            e["flags"].clone(),
                        )
                    })
                    .collect();
                (t["section"].clone(), t["entry_size"].clone(), entries)
            })
            .collect();
        (images, tables)
    };
    let (conv, new) = (inspect("conv.o"), inspect("new.o"));
    let (conv_images, conv_tables) = shape(&conv);
    let (new_images, new_tables) = shape(&new);
    assert_eq!(conv_images, new_images);
    // The new-driver object also lists its device variable; the conversion carries kernels.
    let kernels = |t: &[TableShape]| {
        t.iter()
            .map(|(s, n, e)| {
                let k: Vec<_> = e.iter().filter(|e| e.1 == "kernel").cloned().collect();
                (s.clone(), n.clone(), k)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(kernels(&conv_tables), kernels(&new_tables));
    assert_eq!(conv_tables[0].0, "llvm_offload_entries");
    assert_eq!(conv_tables[0].1, 56);
    assert_eq!(conv_tables[0].2.len(), 3);
    assert!(conv_tables[0].2.iter().all(|e| e.3 == 4 && e.2 == 1));
    let readelf = Run::new(Side::Llvm, "llvm-readelf", ["-S", "conv.o"], &inner).ok();
    let sections = readelf.stdout_str();
    assert!(sections.contains("llvm_offload_entries"), "{sections}");
    assert!(!sections.contains("hip_offloading_entries"), "{sections}");
    assert!(!sections.contains("__CLANG_OFFLOAD_BUNDLE__"), "{sections}");

    // Linked by clang-22's new driver: through LLVM 22's linker wrapper, and offkit's.
    let link = |obj: &str, exe: &str, ours: bool| {
        let shims = shims.display().to_string();
        let mut a: Vec<&str> = Vec::new();
        if ours {
            a.extend(["-B", &shims]);
        }
        let rpath = format!("-Wl,-rpath,{}", inner.display());
        a.extend([
            "-fgpu-rdc",
            "--offload-new-driver",
            "--offload-arch=gfx90a",
            "--hip-link",
            "-no-hip-rt",
            "main.o",
            obj,
            "-L.",
            "-lrt",
            &rpath,
            "-o",
            exe,
        ]);
        let run = Run::new(Side::Llvm, "clang", &a, &inner);
        let run = if ours {
            run.env("COMPILER_PATH", &shims)
        } else {
            run
        };
        run.output()
    };
    let run = |exe: &str| {
        let out = Run::new(
            Side::Llvm,
            &inner.join(exe).to_string_lossy(),
            Vec::<String>::new(),
            &inner,
        )
        .ok();
        registered(&out.stdout_str())
    };
    for (obj, exe, ours) in [
        ("new.o", "new.exe", false),
        ("conv.o", "conv.exe", false),
        ("conv.o", "conv-ours.exe", true),
    ] {
        let out = link(obj, exe, ours);
        assert_eq!(
            out.code,
            Some(0),
            "{obj} (offkit's: {ours}): {}",
            out.stderr_str()
        );
    }
    assert!(
        s.read("conv.exe") == s.read("conv-ours.exe"),
        "offkit's link differs from LLVM 22's"
    );
    let new = run("new.exe");
    assert_eq!(run("conv.exe"), new);
    for line in [
        "  bundle entry hip-amdgcn-amd-amdhsa--gfx90a",
        "  function _Z4kernPi",
        "  function _Z5scalePff",
        "  function _ZL6hiddenPi.intern.<cuid>",
    ] {
        assert!(new.iter().any(|l| l == line), "{line}: {new:?}");
    }
    // For LLVM 19 (HIP is kind 3, read by 22 as OpenMP and CUDA's bits) 22's link fails.
    let old = link("conv19.o", "conv19.exe", false);
    assert_ne!(old.code, Some(0));
}
