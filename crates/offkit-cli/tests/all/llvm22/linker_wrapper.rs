//! The drop-in `clang-linker-wrapper` against LLVM 22's, on the same command lines inside the
//! Debian 13 root: help, version, host link commands and errors (`--dry-run`), the device link
//! commands for objects clang-22 makes (OpenMP x86_64 and gfx90a, archives and
//! `--should-extract=`, HIP on the new driver, `--emit-fatbin-only`, `-r`, `--save-temps`,
//! `--embed-bitcode`), the output bytes of real links, and the options of LLVM 19, which a 22
//! face refuses naming the fix (and the reverse).

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::llvm22_link::{both, normalize, same, Objects};

const TOOL: &str = "clang-linker-wrapper";

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

#[test]
fn help_and_version_as_llvm_22() {
    shims();
    let s = Scratch::new();
    for a in [
        &["--help"][..],
        &["--help-hidden"],
        &["--version"],
        &["-version", "x.o"],
        &["--help", "-v"],
        &["--help-hidden", "--help"],
    ] {
        same(TOOL, a, &s.inner());
    }
}

#[test]
fn host_link_commands_as_llvm_22() {
    shims();
    let s = Scratch::new();
    s.write("resp", "-L /r1 \"a b\" -lz\n");
    s.write("libq.a", "!<arch>\n");
    let cases: &[&[&str]] = &[
        &["-o", "a.out", "x.o"],
        // `-v` and `--v` are the host linker's in LLVM 22.
        &["-v", "--v", "-o", "a.out"],
        &[
            "-r",
            "--output=x.o",
            "--library-path=/a",
            "--library-path",
            "/b",
            "--library=/c",
            "-L/d",
            "-rpath=/e",
            "-rpath",
            "/f",
            "--whole-archive",
            "--no-whole-archive",
            "-pie",
            "-m",
            "elf_x86_64",
            "/out:foo",
            "/libpath:/h",
            "/wholearchive",
            "--linker-arg=zz",
            "--compiler-arg=yy",
            "--arch=gfx",
            "--whole-program",
            "--sysroot=/s",
            "--",
            "-omagic",
        ],
        &[
            "@resp",
            "-L.",
            "-lq",
            "-l:libq.a",
            "x.o",
            "-",
            "",
            "-o",
            "out",
        ],
        &[
            "--hash-style=gnu",
            "--build-id",
            "-m",
            "elf_x86_64",
            "-pie",
            "-dynamic-linker",
            "/lib64/ld-linux-x86-64.so.2",
            "-o",
            "p",
            "p.o",
            "--as-needed",
            "-lgcc_s",
            "--no-as-needed",
            "-z",
            "relro",
        ],
        &[
            "-mllvm",
            "-pass-remarks=inline",
            "--offload-opt=-openmp-opt-disable",
            "--save-temps",
            "--cuda-path=/c",
            "--device-linker=a=b",
            "--device-compiler=x86_64-pc-linux-gnu=-O3",
            "--should-extract=gfx90a,sm_70",
            "--wrapper-jobs=2",
            "--wrapper-jobs=JobServer",
            "--compress",
            "--compression-level=9",
            "--host-triple=x86_64-pc-linux-gnu",
            "-o",
            "q",
        ],
    ];
    for c in cases {
        let mut a = vec!["--dry-run", "--linker-path=/usr/bin/ld"];
        a.extend_from_slice(c);
        same(TOOL, &a, &s.inner());
    }
}

#[test]
fn errors_as_llvm_22() {
    shims();
    let s = Scratch::new();
    for a in [
        &["--dry-run", "--linker-path=/usr/bin/ld", "x.o", "-o"][..],
        &["--dry-run", "--library"],
        &["--dry-run", "--wrapper-jobs=0", "-o", "x"],
        &["--dry-run", "--wrapper-jobs=abc"],
        &["--dry-run", "--wrapper-jobs=", "-o", "x"],
        &["--dry-run", "-lnosuchlibrary_offkit", "-L/usr/lib"],
        &["-o", "x", "--linker-path=/nonexistent/ld"],
        // LLVM 22 says the linker path is missing (19 ran a program named "").
        &["-o", "x"],
        &["--dry-run", "-o", "x"],
        &[
            "--dry-run",
            "-mllvm",
            "--foo-bar-baz",
            "--offload-opt=-mattr=+avx",
            "-o",
            "x",
        ],
        &["--dry-run", "--offload-opt=foo", "-mllvm", "bar", "-o", "x"],
        &[
            "--dry-run",
            "--linker-path=/usr/bin/ld",
            "nosuch.o",
            "-o",
            "x",
        ],
    ] {
        same(TOOL, a, &s.inner());
    }
}

/// `--dry-run --wrapper-verbose` on the objects clang-22 makes: every device link command, the
/// bundler, the host link.
#[test]
fn device_links_as_llvm_22() {
    shims();
    let o = Objects::get();
    let base = ["--dry-run", "--linker-path=/usr/bin/ld", "-o", "prog"];
    let cases: &[&[&str]] = &[
        &["omp-x86.o", "-L.", "-lomptarget", "-lc"],
        &["--wrapper-verbose", "omp-amd.o", "--wrapper-jobs=2"],
        &[
            "omp-both.o",
            "--device-compiler=amdgcn-amd-amdhsa=-O3",
            "--device-compiler=-g",
            "--device-linker=amdgcn-amd-amdhsa=-lfoo",
            "--device-linker=-v",
            "--device-linker=a=b=c",
            "--device-linker=x86_64-pc-linux-gnu=",
            "-mllvm",
            "-x86-asm-syntax=intel",
            "--offload-opt=-x86-asm-syntax=att",
            "-mllvm",
            "-openmp-opt-disable",
        ],
        // Archive members: for the targets the objects have, and those --should-extract names.
        &["omp-x86.o", "-L.", "-lk"],
        &["omp-amd.o", "-L.", "-lk"],
        &["omp-amd.o", "-L.", "-lk", "--should-extract=gfx1030"],
        &["omp-x86.o", "libk.a", "--should-extract=gfx1030,gfx90a"],
        &[
            "omp-x86.o",
            "--whole-archive",
            "libk.a",
            "--no-whole-archive",
        ],
        &["--save-temps", "omp-both.o"],
        &[
            "--save-temps",
            "--linker-path=/usr/bin/ld.lld",
            "omp-both.o",
        ],
        &["--embed-bitcode", "omp-amd.o"],
        &["-r", "omp-x86.o"],
        &["--host-triple=aarch64-unknown-linux-gnu", "omp-x86.o"],
        &["hip-rdc.o", "--compress", "--compression-level=9"],
        &["hip-z.o", "-L.", "-lamdhip64"],
        &["--emit-fatbin-only", "hip.o"],
        &["--emit-fatbin-only", "hip-dev.out", "--compress"],
        &["--emit-fatbin-only", "omp-amd.o"],
        &["--emit-fatbin-only", "omp-both.o"],
        &["--override-image=openmp=libomptarget.so", "omp-x86.o"],
    ];
    for c in cases {
        let mut a = base.to_vec();
        a.extend_from_slice(c);
        same(TOOL, &a, &o.inner());
    }
}

/// What LLVM 22's wrapper writes, offkit's face writes byte for byte: HIP's `--emit-fatbin-only`
/// bundles (what clang-22 links for HIP without `-fgpu-rdc`), the device images of OpenMP and
/// HIP programs (`--save-temps` keeps them), and the programs' embedded images.
#[test]
fn real_links_write_llvm_22s_bytes() {
    shims();
    let o = Objects::get();
    let sides = [(Side::Llvm, Scratch::new()), (Side::Offkit, Scratch::new())];
    for (_, s) in &sides {
        o.copy_to(s);
    }
    let links: &[(&[&str], &[&str])] = &[
        (
            &[
                "--emit-fatbin-only",
                "--host-triple=amdgcn-amd-amdhsa",
                "--linker-path=/usr/lib/llvm-22/bin/clang-offload-bundler",
                "--device-compiler=amdgcn-amd-amdhsa=-flto-partitions=8",
                "-o",
                "dev.hipfb",
                "hip-dev.out",
            ],
            &["dev.hipfb"],
        ),
        (
            &[
                "--save-temps",
                "--linker-path=/usr/bin/ld",
                // No device runtime (-nogpulib): its functions stay undefined.
                "--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all",
                "-o",
                "omp",
                "omp-both.o",
                "-L.",
                "-lomptarget",
                "-shared",
            ],
            &["omp.x86_64..img", "omp.amdgcn.gfx90a.img"],
        ),
        (
            &[
                "--save-temps",
                "--linker-path=/usr/bin/ld",
                "-o",
                "hip",
                "hip-z.o",
                "-L.",
                "-lamdhip64",
                "-shared",
            ],
            &[
                "hip.amdgcn.gfx90a.img",
                "hip.amdgcn.gfx1030.img",
                "hip.hipfb",
            ],
        ),
    ];
    for (args, files) in links {
        let outs: Vec<_> = sides
            .iter()
            .map(|(side, s)| Run::new(*side, TOOL, *args, &s.inner()).output())
            .collect();
        for out in &outs {
            assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr_str());
        }
        for f in *files {
            let (theirs, ours) = (sides[0].1.read(f), sides[1].1.read(f));
            assert!(theirs.is_some(), "LLVM 22 wrote no {f}");
            assert!(theirs == ours, "{f} differs ({args:?})");
        }
    }
    // The images embedded in the programs.
    for (file, section) in [("omp", ".llvm.offloading"), ("hip", ".hip_fatbin")] {
        let dump = |s: &Scratch| {
            Run::new(
                Side::Llvm,
                "llvm-objcopy",
                [&format!("--dump-section={section}={file}.sec"), file],
                &s.inner(),
            )
            .ok();
            s.read(format!("{file}.sec"))
        };
        assert!(
            dump(&sides[0].1) == dump(&sides[1].1),
            "{section} of {file}"
        );
    }
}

/// A 22 face refuses LLVM 19's options and a 19 face LLVM 22's, each saying how to choose the
/// other; LLVM's tools would hand them to the host linker.
#[test]
fn options_of_the_other_release_name_the_fix() {
    shims();
    let s = Scratch::new();
    let run = |version: &str, args: &[&str]| {
        Run::new(Side::Offkit, TOOL, args, &s.inner())
            .env("OFFKIT_LLVM", version)
            .output()
    };
    let out = run("22", &["--opt-level=O3", "-o", "a", "x.o"]);
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr_str(),
        "clang-linker-wrapper: error: `--opt-level=O3` is an option of LLVM 19's \
         clang-linker-wrapper, and this one is LLVM 22's: set OFFKIT_LLVM=19\n"
    );
    for a in [
        &["--device-compiler=amdgcn-amd-amdhsa=-O3", "-o", "a"][..],
        &["--should-extract=gfx90a", "-o", "a"],
        &["--emit-fatbin-only", "-o", "a"],
        &["--wrapper-jobs=jobserver", "-o", "a"],
    ] {
        let out = run("19", a);
        assert_eq!(out.code, Some(1), "{a:?}");
        assert!(
            out.stderr_str().contains("is an option of LLVM 22's")
                && out.stderr_str().ends_with("set OFFKIT_LLVM=22\n"),
            "{a:?}: {}",
            out.stderr_str()
        );
    }
    // Run through shims made with --llvm 22, a 19 option names the shims' fix; the version of
    // the tool is 22's.
    let out = Run::new(
        Side::Offkit,
        TOOL,
        ["--device-debug", "-o", "a"],
        &s.inner(),
    )
    .output();
    assert!(
        out.stderr_str()
            .contains("make the shims with `offkit shims --llvm 19 DIR`"),
        "{}",
        out.stderr_str()
    );
    let (theirs, ours) = both(TOOL, &["--version"], &s.inner());
    assert_eq!(ours.stdout_str(), theirs.stdout_str());
    assert_eq!(normalize(&ours.stderr_str()), "");
}
