//! Peak memory against the bounds `offkit_read::limits` states, on a HIP library whose one bundle
//! holds two 40 MiB code objects (a kernel and a 40 MiB initialized `__device__` array, for
//! gfx90a and gfx1030): compressed by offkit, the bundle shrinks to a few KiB and the 80 MiB it
//! freed become a hole of the file.
//!
//! - Listing (`inspect`, `list`, `check`) stays under 64 MiB whatever the input: the hole is
//!   walked (its zeros skipped) without its pages becoming resident.
//! - `extract`, `decompress` and `compress` hold at most 64 MiB plus the bundle's decompressed
//!   size (zstd keeps the whole frame as its window: LLVM's frames are single-segment).
//! - `prune` of the compressed bundle holds at most 64 MiB plus twice that (the window and the
//!   pruned bundle it is compressed from).
//!
//! Peak resident set sizes are GNU time's `%M` for each command alone; the outputs are checked
//! too (decompressing gives back the library byte for byte).

use std::path::Path;
use std::process::Command;

use offkit_testutil::hip;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

const MIB: u64 = 1 << 20;

/// The peak resident set of `offkit args` in `dir`, in bytes; the command must succeed.
#[track_caller]
fn peak(dir: &Path, args: &[&str]) -> u64 {
    let report = dir.join("time.txt");
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(OFFKIT)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("GNU time (/usr/bin/time, package `time`) runs");
    assert!(
        out.status.success(),
        "offkit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kib: u64 = std::fs::read_to_string(&report)
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    kib * 1024
}

#[test]
fn large_bundles_are_read_and_rewritten_within_the_stated_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let src = dir.join("big.hip");
    std::fs::write(
        &src,
        "#define __global__ __attribute__((global))\n\
         #define __device__ __attribute__((device))\n\
         typedef struct { unsigned x, y, z; } dim3;\n\
         extern \"C\" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, \
         unsigned long shm, void *stream);\n\
         __device__ char big[40 << 20] = {1};\n\
         __global__ void touch(int i) { big[i] += 1; }\n",
    )
    .unwrap();
    let clang = offkit_testutil::llvm_tool("clang");
    let arch = format!("--offload-arch={}", hip::ARCHS);
    offkit_testutil::run_ok(
        &clang,
        [
            "-x",
            "hip",
            &arch,
            "-nogpulib",
            "-nogpuinc",
            "-fPIC",
            "-c",
            "big.hip",
            "-o",
            "big.o",
        ],
        dir,
    );
    let stub = hip::runtime_stub(dir);
    let stub = stub.display().to_string();
    offkit_testutil::run_ok(
        &clang,
        ["-shared", "-fuse-ld=lld", "big.o", &stub, "-o", "libbig.so"],
        dir,
    );
    let size = std::fs::metadata(dir.join("libbig.so")).unwrap().len();
    assert!(size > 80 * MIB, "the library is {size} bytes");
    // The bundle's decompressed size: the two code objects and its header.
    let bundle = 81 * MIB;

    let compress = peak(dir, &["compress", "libbig.so", "-o", "c.so"]);
    assert!(
        std::fs::metadata(dir.join("c.so")).unwrap().len() == size,
        "a linked file keeps its size"
    );
    let mut report = vec![("compress", compress, 64 * MIB + bundle)];
    for cmd in ["inspect", "list"] {
        report.push((cmd, peak(dir, &[cmd, "c.so"]), 64 * MIB));
    }
    report.push((
        "check",
        peak(dir, &["check", "--device", "gfx90a", "c.so"]),
        64 * MIB,
    ));
    report.push((
        "extract",
        peak(dir, &["extract", "c.so", "-o", "ex"]),
        64 * MIB + bundle,
    ));
    report.push((
        "decompress",
        peak(dir, &["decompress", "c.so", "-o", "d.so"]),
        64 * MIB + bundle,
    ));
    assert_eq!(
        std::fs::read(dir.join("d.so")).unwrap(),
        std::fs::read(dir.join("libbig.so")).unwrap(),
        "decompressing gives back the library"
    );
    report.push((
        "prune",
        peak(dir, &["prune", "--keep", "gfx90a", "c.so", "-o", "p.so"]),
        64 * MIB + 2 * bundle,
    ));
    for (cmd, got, bound) in &report {
        eprintln!("{cmd}: {} MiB (bound {} MiB)", got / MIB, bound / MIB);
    }
    let over: Vec<String> = report
        .iter()
        .filter(|(_, got, bound)| got > bound)
        .map(|(cmd, got, bound)| format!("{cmd}: {} MiB > {} MiB", got / MIB, bound / MIB))
        .collect();
    assert!(
        over.is_empty(),
        "over the bound: {over:?} (all: {:?})",
        report
            .iter()
            .map(|(c, g, _)| format!("{c} {} MiB", g / MIB))
            .collect::<Vec<_>>()
    );
    // The extracted images are the plain library's.
    offkit_testutil::run_ok(OFFKIT, ["extract", "libbig.so", "-o", "ex-plain"], dir);
    for arch in ["gfx90a", "gfx1030"] {
        let find = |d: &str| {
            std::fs::read_dir(dir.join(d))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.to_string_lossy().contains(&format!("amdhsa-{arch}.")))
                .unwrap_or_else(|| panic!("no {arch} image in {d}"))
        };
        assert_eq!(
            std::fs::read(find("ex")).unwrap(),
            std::fs::read(find("ex-plain")).unwrap()
        );
    }
}

/// Pruning a CUDA fat binary holds its header and the entries it keeps, not the fat binary:
/// `.nv_fatbin` of three 24 MiB cubins (sm_70, sm_80, sm_90) in a host object, pruned to sm_80,
/// stays under 64 MiB + the 24 MiB kept. (It used to hold the whole fat binary as a patch, zeros
/// included, and a clone of it for the after-check: 183 MiB here; cupy's 79 MB thrust module
/// took 149 MiB.) The freed bytes are holes, and the pruned object lists only sm_80.
#[test]
fn pruning_a_cuda_fat_binary_holds_what_it_keeps() {
    use offkit_testutil::fatbin::{self, EntrySpec, Packing, KIND_ELF};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let entry = 24 * MIB as usize;
    let cubins: Vec<Vec<u8>> = [70u32, 80, 90]
        .iter()
        .map(|&sm| {
            let mut c = fatbin::cubin(sm, &["k"]);
            let mut x = sm;
            c.extend((c.len()..entry).map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            }));
            c
        })
        .collect();
    let specs: Vec<EntrySpec<'_>> = cubins
        .iter()
        .zip([70, 80, 90])
        .map(|(data, arch)| EntrySpec {
            kind: KIND_ELF,
            arch,
            data,
            packing: Packing::None,
            name: None,
        })
        .collect();
    let fb = fatbin::fatbin(&specs);
    std::fs::write(
        dir.join("cuda.o"),
        fatbin::host_object(&[(".nv_fatbin", &fb)]),
    )
    .unwrap();
    let got = peak(dir, &["prune", "--keep", "sm_80", "cuda.o", "-o", "p.o"]);
    let bound = 64 * MIB + entry as u64;
    eprintln!("prune: {} MiB (bound {} MiB)", got / MIB, bound / MIB);
    assert!(
        got <= bound,
        "prune: {} MiB > {} MiB",
        got / MIB,
        bound / MIB
    );
    let listed = offkit_testutil::run_ok(OFFKIT, ["inspect", "p.o"], dir).stdout_str();
    assert!(listed.contains("sm_80") && !listed.contains("sm_70") && !listed.contains("sm_90"));
    let on_disk = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir.join("p.o")).unwrap().blocks() * 512
    };
    assert!(
        on_disk < 2 * entry as u64,
        "the freed 48 MiB are holes: {on_disk} bytes on disk"
    );
}
