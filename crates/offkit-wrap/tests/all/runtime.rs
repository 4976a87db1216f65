//! End to end on the real runtime: a program compiled by clang-19 for OpenMP offloading to the
//! host, its device code linked as LLVM's linker wrapper links it, registered by offkit's
//! object (LLVM 19's form and the image-info form), run against LLVM 19's libomptarget.

use std::path::{Path, PathBuf};

use offkit_testutil::llvm_lib;
use offkit_testutil::wrap::{build_offload_program, link_and_run, EXPECTED};
use offkit_testutil::{llvm_tool, run_ok};
use offkit_wrap::{Image, Kind, Large, WrapOptions, Wrapper};

#[track_caller]
fn write_wrapper(dir: &Path, name: &str, image: &[u8], opts: &WrapOptions) -> PathBuf {
    let images = [Image::new(image, "x86_64-pc-linux-gnu", "")];
    let mut bytes = Vec::new();
    Wrapper::new(&images, opts)
        .unwrap()
        .write_object(&mut bytes)
        .unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn openmp_program_runs_on_the_device_with_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host, dev) = build_offload_program(d);
    let image = std::fs::read(&dev).unwrap();
    let llvm19 = WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp);
    let seed = WrapOptions {
        image_info: true,
        ..llvm19.clone()
    };
    // The large-image layout (`.lrodata…`), forced on a small image, runs the same.
    let large = |o: &WrapOptions| WrapOptions {
        large: Large::Always,
        ..o.clone()
    };
    let wrappers = [
        write_wrapper(d, "llvm19.o", &image, &llvm19),
        write_wrapper(d, "seed.o", &image, &seed),
        write_wrapper(d, "llvm19-large.o", &image, &large(&llvm19)),
        write_wrapper(d, "seed-large.o", &image, &large(&seed)),
    ];
    for linker in ["bfd", "lld"] {
        for w in &wrappers {
            let name = format!("p-{}-{linker}", w.file_stem().unwrap().to_string_lossy());
            assert_eq!(link_and_run(d, &host, w, &name, linker), EXPECTED, "{name}");
        }
    }
    // the target region does not run on the device (LLVM 19's libomptarget even crashes).
    let exe = d.join("p-none");
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            &host.display().to_string(),
            "-L",
            &llvm_lib().display().to_string(),
            "-lomptarget",
            "-o",
            &exe.display().to_string(),
        ],
        d,
    );
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", llvm_lib())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("initial=0"));
}
