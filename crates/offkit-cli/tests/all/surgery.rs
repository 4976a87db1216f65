//! `offkit replace` round trip: every image of real multi-TU HIP libraries (plain and compressed
//! bundles, GNU ld and lld) extracted and put back in place of itself, selected by its location
//! and by its address URI, gives back the library byte for byte.

use offkit_testutil::hip::{self, Linker};
use offkit_testutil::run_ok;
use serde_json::Value;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

#[test]
fn replacing_every_image_with_itself_gives_identical_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for linker in [Linker::Bfd, Linker::Lld] {
        let name = format!("libk_{linker:?}.so");
        let (lib, _) = hip::library(dir, &name, &[false, true, true, false], linker);
        let original = std::fs::read(&lib).unwrap();
        let out = run_ok(OFFKIT, ["inspect", "--json", &name], dir);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let images = doc["files"][0]["images"].as_array().unwrap().clone();
        assert_eq!(images.len(), 12, "{name}");
        for (i, img) in images.iter().enumerate() {
            let location = img["location"].as_str().unwrap();
            let uri = img["address"].as_str().unwrap();
            let co = dir.join(format!("img{i}"));
            std::fs::create_dir_all(&co).unwrap();
            run_ok(
                OFFKIT,
                ["extract", uri, "-o", &co.display().to_string()],
                dir,
            );
            let file = std::fs::read_dir(&co)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let selector = if i % 2 == 0 { location } else { uri };
            let back = dir.join(format!("back{i}.so"));
            run_ok(
                OFFKIT,
                [
                    "replace",
                    &name,
                    "--image",
                    &format!("{selector}={}", file.display()),
                    "-o",
                    &back.display().to_string(),
                ],
                dir,
            );
            assert!(
                std::fs::read(&back).unwrap() == original,
                "{name}: {location} replaced by itself changed the file"
            );
        }
    }
}

/// `--in-place` refuses a file another process has mapped shared and writable (its writes would
/// be lost), names the process, and leaves the file as it was; `-o` still works.
#[test]
fn in_place_refuses_a_file_mapped_for_writing() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (lib, _) = hip::library(dir, "libm.so", &[false], Linker::Lld);
    let src = dir.join("mapper.c");
    std::fs::write(
        &src,
        "#include <fcntl.h>\n#include <stdio.h>\n#include <sys/mman.h>\n#include <unistd.h>\n\
         int main(int c, char **v) { int fd = open(v[1], O_RDWR); \
         void *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); \
         if (p == MAP_FAILED) return 1; puts(\"ready\"); fflush(stdout); \
         char b; while (read(0, &b, 1) > 0) {} return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("mapper");
    run_ok(
        offkit_testutil::clang(),
        [
            src.display().to_string(),
            "-o".into(),
            exe.display().to_string(),
        ],
        dir,
    );
    let mut child = Command::new(&exe)
        .arg(&lib)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready");
    let before = std::fs::read(&lib).unwrap();
    let out = offkit_testutil::run(OFFKIT, ["compress", "libm.so"], dir);
    let err = out.stderr_str();
    assert_eq!(out.code, Some(1), "{err}");
    assert!(
        err.contains(&format!("is mapped for writing by process {}", child.id())),
        "{err}"
    );
    assert!(std::fs::read(&lib).unwrap() == before);
    run_ok(OFFKIT, ["compress", "libm.so", "-o", "libm-c.so"], dir);
    drop(child.stdin.take());
    child.wait().unwrap();
    run_ok(OFFKIT, ["compress", "libm.so"], dir);
}

/// `offkit convert`: an old-driver HIP `-fgpu-rdc` object (a fat object of
/// `__CLANG_OFFLOAD_BUNDLE__` sections) converted to offload binaries reads as the new driver's
/// object does (`llvm-objdump --offloading`, the binaries' kinds and strings), and LLVM 19's
/// `clang-linker-wrapper` and offkit's drop-in plan the same device link for it as for the
/// new-driver object (`--dry-run`; the real link is
/// `converted_old_driver_object_registers_its_kernels_in_a_real_link`); converted back, LLVM 19's
/// bundler lists and unbundles the old entries with the old bytes; an archive is converted
/// member by member.
#[test]
fn convert_old_driver_rdc_object_links_like_a_new_driver_one() {
    use offkit_testutil::link::{llvm_wrapper, normalize_temps};
    use offkit_testutil::packager::run_as;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    old_and_new_rdc_objects(d, "__global__ void kern(int *p) { p[0] = 1; }\n");
    let out = run_ok(
        OFFKIT,
        ["convert", "old.o", "--to", "offload-binary", "-o", "conv.o"],
        d,
    );
    assert!(out
        .stdout_str()
        .contains("put in hip amdgcn-amd-amdhsa gfx90a"));

    // What llvm-objdump reads: the same listing as the new driver's object.
    let objdump = offkit_testutil::llvm_tool("llvm-objdump");
    let listing = |f: &str| {
        run_ok(&objdump, ["--offloading", f], d)
            .stdout_str()
            .replace(f, "X")
    };
    assert_eq!(listing("conv.o"), listing("new.o"));
    assert!(listing("conv.o").contains("producer        hip"));

    // The binaries: the same kinds, flags and strings in the same order; the image is the
    // old bundle entry's bytes.
    let section = |f: &str, name: &str| -> Vec<u8> {
        use object::{Object, ObjectSection};
        let data = std::fs::read(d.join(f)).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let s = file.section_by_name(name).unwrap();
        s.data().unwrap().to_vec()
    };
    let old_image = section(
        "old.o",
        "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a",
    );
    let conv = section("conv.o", ".llvm.offloading");
    let newb = section("new.o", ".llvm.offloading");
    let meta = |b: &[u8]| {
        offkit_format::binary::parse_all(b, 0)
            .map(|b| {
                let b = b.unwrap();
                let e = &b.entries[0];
                let strings: Vec<(Vec<u8>, Vec<u8>)> = e
                    .strings
                    .iter()
                    .map(|(k, v)| (k.to_vec(), v.to_vec()))
                    .collect();
                (b.version, e.image_kind, e.offload_kind, e.flags, strings)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(meta(&conv), meta(&newb));
    let converted = offkit_format::binary::parse_all(&conv, 0)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(&converted.entries[0].image[..], &old_image[..]);

    // The linker wrapper, LLVM 19's and offkit's: the same device link and host link as for
    // the new-driver object; the unconverted object has no device code for it.
    let plan = |tool: &std::path::Path, f: &str| {
        let args = [
            "--host-triple=x86_64-pc-linux-gnu",
            "--dry-run",
            "--wrapper-verbose",
            "--linker-path=/usr/bin/ld",
            "-o",
            "p",
            f,
        ];
        let out = run_as(tool, "clang-linker-wrapper", args, d, None);
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        normalize_temps(&format!("{}{}", out.stdout_str(), out.stderr_str())).replace(f, "X")
    };
    let offkit = std::path::Path::new(OFFKIT);
    for tool in [llvm_wrapper().as_path(), offkit] {
        let conv = plan(tool, "conv.o");
        assert_eq!(conv, plan(tool, "new.o"), "{}", tool.display());
        assert!(
            conv.contains("--target=amdgcn-amd-amdhsa -mcpu=gfx90a"),
            "{conv}"
        );
        assert!(conv.contains("-targets=host-x86_64-unknown-linux,hip-amdgcn-amd-amdhsa--gfx90a"));
        assert!(!plan(tool, "old.o").contains("amdgcn"));
    }
    assert_eq!(plan(&llvm_wrapper(), "conv.o"), plan(offkit, "conv.o"));

    // Back to bundles: LLVM 19's bundler lists the old entries and unbundles the old bytes.
    run_ok(
        OFFKIT,
        ["convert", "conv.o", "--to", "bundle", "-o", "back.o"],
        d,
    );
    let bundler = offkit_testutil::llvm_tool("clang-offload-bundler");
    let mut ids: Vec<String> = run_ok(&bundler, ["-list", "-type=o", "-input=back.o"], d)
        .stdout_str()
        .lines()
        .map(String::from)
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        ["hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-pc-linux-gnu-"]
    );
    run_ok(
        &bundler,
        [
            "-unbundle",
            "-type=o",
            "-input=back.o",
            "-targets=hip-amdgcn-amd-amdhsa--gfx90a",
            "-output=dev.bc",
        ],
        d,
    );
    assert_eq!(std::fs::read(d.join("dev.bc")).unwrap(), old_image);
    assert_eq!(
        section(
            "back.o",
            "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a"
        ),
        old_image
    );

    // A static library: its member converted, the archive's symbol table kept.
    run_ok(
        offkit_testutil::llvm_tool("llvm-ar"),
        ["rcs", "libold.a", "old.o"],
        d,
    );
    run_ok(
        OFFKIT,
        [
            "convert",
            "libold.a",
            "--to",
            "offload-binary",
            "-o",
            "libnew.a",
        ],
        d,
    );
    let listing = run_ok(&objdump, ["--offloading", "libnew.a"], d).stdout_str();
    assert!(listing.contains("arch            gfx90a"), "{listing}");
    let nm = run_ok(
        offkit_testutil::llvm_tool("llvm-nm"),
        ["--print-armap", "libnew.a"],
        d,
    )
    .stdout_str();
    assert!(nm.contains("_Z4kernPi"), "{nm}");
}

/// Writes `k.hip` (a HIP prelude, then `kernels`) in `d` and compiles it with clang-19 for
/// gfx90a with `-fgpu-rdc` by the old driver (`old.o`) and the new one (`new.o`).
fn old_and_new_rdc_objects(d: &std::path::Path, kernels: &str) {
    std::fs::write(
        d.join("k.hip"),
        format!(
            "#define __global__ __attribute__((global))\ntypedef struct {{ unsigned x, y, z; }} dim3;\n\
             extern \"C\" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, \
             void *);\n{kernels}"
        ),
    )
    .unwrap();
    let clang = offkit_testutil::llvm_tool("clang");
    for (driver, out) in [
        ("--no-offload-new-driver", "old.o"),
        ("--offload-new-driver", "new.o"),
    ] {
        let args = [
            "-x",
            "hip",
            "--offload-arch=gfx90a",
            "-fgpu-rdc",
            "-nogpulib",
            "-nogpuinc",
            "-c",
            "k.hip",
            driver,
            "-o",
            out,
        ];
        run_ok(&clang, args, d);
    }
}

/// An old-driver HIP `-fgpu-rdc` object converted, then linked for real through LLVM 19's
/// `clang-linker-wrapper` (clang-19 `--offload-new-driver --hip-link`) with a stand-in HIP
/// runtime: the program registers one fat binary holding the gfx90a image and every kernel,
/// as the same program built with the new driver does. Unconverted, the old object does not
/// link at all (the old driver's device link never ran).
#[test]
fn converted_old_driver_object_registers_its_kernels_in_a_real_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    old_and_new_rdc_objects(
        d,
        "__global__ void kern(int *p) { p[0] = 1; }\n\
         __global__ void scale(float *x, float a) { x[0] *= a; }\n\
         static __global__ void hidden(int *p) { p[1] = 2; }\n\
         void *use_hidden = (void *)hidden;\n",
    );
    std::fs::write(d.join("main.c"), "int main(void) { return 0; }\n").unwrap();
    let clang = offkit_testutil::llvm_tool("clang");
    let rt = offkit_testutil::stub_runtime::stub_runtime(d);
    run_ok(&clang, ["-c", "main.c", "-o", "main.o"], d);
    let out = run_ok(
        OFFKIT,
        ["convert", "old.o", "--to", "offload-binary", "-o", "conv.o"],
        d,
    );
    assert!(out.stdout_str().contains("put in entry _Z4kernPi"));
    let link = |obj: &str, exe: &str| {
        offkit_testutil::run(
            &clang,
            [
                "-fgpu-rdc",
                "--offload-new-driver",
                "--offload-arch=gfx90a",
                "--hip-link",
                "-no-hip-rt",
                "main.o",
                obj,
                &rt.display().to_string(),
                "-o",
                exe,
            ],
            d,
        )
    };
    let registered = |obj: &str| {
        let exe = format!("{obj}.exe");
        let l = link(obj, &exe);
        assert_eq!(l.code, Some(0), "{obj}: {}", l.stderr_str());
        let run = run_ok(d.join(&exe), Vec::<String>::new(), d).stdout_str();
        // The image's size and hash differ, and a static kernel's name ends in its compile's
        // CUID: the two drivers compile the device code apart.
        run.lines()
            .map(
                |l| match (l.split_once(" size "), l.split_once(".intern.")) {
                    (Some((entry, _)), _) if l.contains("bundle entry") => entry.to_string(),
                    (_, Some((name, _))) => format!("{name}.intern.<cuid>"),
                    _ => l.to_string(),
                },
            )
            .collect::<Vec<_>>()
    };
    let new = registered("new.o");
    assert_eq!(registered("conv.o"), new);
    assert!(new.iter().any(|l| l == "  function _Z4kernPi"), "{new:?}");
    assert!(
        new.iter()
            .any(|l| l == "  function _ZL6hiddenPi.intern.<cuid>"),
        "{new:?}"
    );
    assert!(
        new.iter()
            .any(|l| l == "  bundle entry hip-amdgcn-amd-amdhsa--gfx90a"),
        "{new:?}"
    );
    let old = link("old.o", "old.exe");
    assert_ne!(old.code, Some(0));
    assert!(old.stderr_str().contains("__hip_gpubin_handle_"));
}
