//! Integration tests: the drop-in `clang-linker-wrapper` against LLVM 19's, on the same command
//! lines: help, version, the host link command (`--dry-run`), errors, and the device link
//! commands for objects clang-19 builds.

use std::path::{Path, PathBuf};

use offkit_testutil::fixtures;
use offkit_testutil::link::{llvm_wrapper, normalize_temps};
use offkit_testutil::packager::run_as;

mod bad_binary;
mod dry_run;
mod foreign_hosts;
mod lto;
mod relocatable;
mod windows;

const ARGV0: &str = "clang-linker-wrapper";

fn offkit() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_offkit"))
}

/// Runs LLVM's tool and offkit's with the same `argv[0]` and arguments; returns both.
fn both(args: &[&str], cwd: &Path) -> (offkit_testutil::Output, offkit_testutil::Output) {
    let theirs = run_as(&llvm_wrapper(), ARGV0, args, cwd, None);
    let ours = run_as(&offkit(), ARGV0, args, cwd, None);
    (theirs, ours)
}

#[track_caller]
fn same(args: &[&str], cwd: &Path) {
    let (theirs, ours) = both(args, cwd);
    assert_eq!(
        (ours.code, ours.stdout_str(), ours.stderr_str()),
        (theirs.code, theirs.stdout_str(), theirs.stderr_str()),
        "for {args:?}"
    );
}

#[test]
fn help_and_version_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    for a in [
        &["--help"][..],
        &["--help-hidden"],
        &["--version"],
        &["-v"],
        &["--v"],
        &["-version", "x.o"],
        &["--help", "-v"],
    ] {
        same(a, dir.path());
    }
}

#[test]
fn host_link_commands_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("resp"), "-L /r1 \"a b\" -lz\n").unwrap();
    std::fs::write(dir.path().join("libq.a"), "!<arch>\n").unwrap();
    let cases: &[&[&str]] = &[
        &["-o", "a.out", "x.o"],
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
            "--rpath=/g",
            "--whole-archive",
            "--no-whole-archive",
            "-pie",
            "-m",
            "elf_x86_64",
            "/out:foo",
            "/libpath:/h",
            "/wholearchive",
            "--linker-arg=zz",
            "--arch=gfx",
            "--whole-program",
            "--sysroot=/s",
            "--",
            "-omagic",
        ],
        &[
            "@resp",
            "-L/usr/lib/x86_64-linux-gnu",
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
            "--eh-frame-hdr",
            "-m",
            "elf_x86_64",
            "-pie",
            "-dynamic-linker",
            "/lib64/ld-linux-x86-64.so.2",
            "-o",
            "p",
            "-L/lib",
            "p.o",
            "--as-needed",
            "-lgcc_s",
            "--no-as-needed",
            "-verbose",
            "-z",
            "relro",
        ],
        &[
            "-mllvm",
            "-pass-remarks=inline",
            "--offload-opt=-openmp-opt-disable",
            "--opt-level=O3",
            "--device-debug",
            "--save-temps",
            "--cuda-path=/c",
            "--ptxas-arg=-v",
            "--device-linker=a=b",
            "--wrapper-jobs=2",
            "--host-triple=x86_64-pc-linux-gnu",
            "-o",
            "q",
        ],
    ];
    for c in cases {
        let mut a = vec!["--dry-run", "--linker-path=/usr/bin/ld"];
        a.extend_from_slice(c);
        same(&a, dir.path());
    }
}

#[test]
fn errors_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    for a in [
        &["--dry-run", "--linker-path=/usr/bin/ld", "x.o", "-o"][..],
        &["--dry-run", "--library"],
        &["--dry-run", "--wrapper-jobs=0", "-o", "x"],
        &["--dry-run", "--wrapper-jobs=abc"],
        &["--dry-run", "-lnosuchlibrary_offkit", "-L/usr/lib"],
        &["-o", "x", "--linker-path=/nonexistent/ld"],
        &["-o", "x"],
        &[
            "--dry-run",
            "-mllvm",
            "--foo-bar-baz",
            "--offload-opt=-mattr=+avx",
            "-o",
            "x",
        ],
    ] {
        same(a, dir.path());
    }
}

/// The device link command for an x86_64 object is LLVM 19's, temporary names aside.
#[test]
fn device_link_command_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    let o = fixtures::compile_openmp(
        dir.path(),
        "p",
        fixtures::OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu"],
        &[],
    );
    let o = o.to_str().unwrap();
    let args = [
        "--host-triple=x86_64-pc-linux-gnu",
        "--dry-run",
        "--wrapper-verbose",
        "--linker-path=/usr/bin/ld",
        "-o",
        "p",
        "-L/usr/lib/x86_64-linux-gnu",
        o,
        "-lomp",
        &format!("-L{}", offkit_testutil::llvm_lib().display()),
        "-lc",
    ];
    let (theirs, ours) = both(&args, dir.path());
    let theirs = normalize_temps(&theirs.stderr_str());
    let ours = normalize_temps(&ours.stderr_str());
    let first = |s: &str| s.lines().next().unwrap_or("").to_string();
    assert_eq!(first(&ours), first(&theirs));
    assert!(first(&theirs).contains("--target=x86_64-pc-linux-gnu -march=native -O2"));
}

/// Real OpenMP programs built with clang-19 and with `clang-19 -B <offkit shims>`: both run
/// their target regions on the offload device with the same output, and list the same images.
mod e2e {
    use std::path::{Path, PathBuf};

    use offkit_testutil::link::{self as tl, Program};
    use offkit_testutil::{llvm_tool, run, run_ok, Output};

    const X86: &str = "x86_64-pc-linux-gnu";
    const AMD: &str = "amdgcn-amd-amdhsa";

    /// LLVM 19's `lib/`, where libomptarget is.
    fn libdir() -> String {
        offkit_testutil::llvm_lib().display().to_string()
    }

    struct Env {
        dir: tempfile::TempDir,
        shims: PathBuf,
    }

    impl Env {
        fn new() -> Env {
            let dir = tempfile::tempdir().unwrap();
            let shims = tl::shims(&super::offkit(), &dir.path().join("shims"));
            Env { dir, shims }
        }

        fn path(&self) -> &Path {
            self.dir.path()
        }

        /// Compiles `name` (C, or C++ for `.cpp`) to an object.
        fn compile(&self, name: &str, src: &str, targets: &[&str], extra: &[&str]) -> PathBuf {
            let p = self.path().join(name);
            std::fs::write(&p, src).unwrap();
            let o = p.with_extension("o");
            let mut args: Vec<String> = vec!["-fopenmp".into()];
            if name.ends_with(".cpp") {
                args.extend(["-x".into(), "c++".into()]);
            }
            args.push(format!("-fopenmp-targets={}", targets.join(",")));
            args.extend(extra.iter().map(|s| s.to_string()));
            args.extend([
                "-c".into(),
                p.display().to_string(),
                "-o".into(),
                o.display().to_string(),
            ]);
            run_ok(llvm_tool("clang"), &args, self.path());
            o
        }

        /// Links with clang-19 (`ours`: through offkit's shims); returns clang's result.
        fn link(&self, ours: bool, out: &str, targets: &[&str], args: &[&str]) -> Output {
            let mut a: Vec<String> = Vec::new();
            if ours {
                a.extend(["-B".into(), self.shims.display().to_string()]);
            }
            a.push("-fopenmp".into());
            if !targets.is_empty() {
                a.push(format!("-fopenmp-targets={}", targets.join(",")));
            }
            a.extend(args.iter().map(|s| s.to_string()));
            a.extend(["-o".into(), out.into()]);
            run(llvm_tool("clang"), &a, self.path())
        }

        fn exe(&self, name: &str) -> PathBuf {
            self.path().join(name)
        }

        /// Runs a program on LLVM 19's libomptarget.
        fn run(&self, name: &str) -> String {
            let out = std::process::Command::new(self.exe(name))
                .env("LD_LIBRARY_PATH", libdir())
                .current_dir(self.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        }

        /// `llvm-objdump --offloading`, without the file name line.
        fn images(&self, name: &str) -> String {
            let o = run_ok(
                llvm_tool("llvm-objdump"),
                ["--offloading".as_ref(), self.exe(name).as_os_str()],
                self.path(),
            );
            o.stdout_str()
                .lines()
                .skip(2)
                .collect::<Vec<_>>()
                .join("\n")
        }
    }

    #[track_caller]
    fn ok(o: &Output) {
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    }

    /// Builds `p` both ways from `objs`, checks both run as expected and list the same
    /// images; returns the image listing.
    #[track_caller]
    fn both(e: &Env, objs: &[&str], targets: &[&str], extra: &[&str], expected: &str) -> String {
        let mut args: Vec<&str> = objs.to_vec();
        args.extend_from_slice(extra);
        ok(&e.link(false, "ref", targets, &args));
        ok(&e.link(true, "ours", targets, &args));
        assert_eq!(e.run("ref"), expected);
        assert_eq!(e.run("ours"), expected);
        let images = e.images("ours");
        assert_eq!(images, e.images("ref"));
        assert!(images.contains("OFFLOADING IMAGE [0]"), "{images}");
        images
    }

    fn program(e: &Env, p: &Program, targets: &[&str], extra: &[&str]) -> Vec<String> {
        p.sources
            .iter()
            .map(|(name, src)| e.compile(name, src, targets, extra).display().to_string())
            .collect()
    }

    #[test]
    fn programs_run_the_same() {
        let e = Env::new();
        for p in [tl::TARGET_REGION, tl::DECLARE_TARGET, tl::CXX_CTORS] {
            let objs = program(&e, &p, &[X86], &[]);
            let objs: Vec<&str> = objs.iter().map(String::as_str).collect();
            let extra: &[&str] = if p.name == "ctors" {
                &["-lstdc++"]
            } else {
                &[]
            };
            both(&e, &objs, &[X86], extra, p.expected);
            // Through offkit, an x86_64 program is LLVM 19's byte for byte, and deterministic.
            assert_eq!(
                std::fs::read(e.exe("ours")).unwrap(),
                std::fs::read(e.exe("ref")).unwrap(),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn static_library_and_whole_archive() {
        let e = Env::new();
        let main = e.compile("main.c", tl::LIBRARY_MAIN, &[X86], &[]);
        let used = e.compile("used.c", tl::LIBRARY_USED, &[X86], &[]);
        let unused = e.compile("unused.c", tl::LIBRARY_UNUSED, &[X86], &[]);
        run_ok(
            llvm_tool("llvm-ar"),
            [
                "rcs".as_ref(),
                e.path().join("libk.a").as_os_str(),
                used.as_os_str(),
                unused.as_os_str(),
            ],
            e.path(),
        );
        let main = main.display().to_string();
        both(
            &e,
            &[&main, "-L.", "-lk"],
            &[X86],
            &[],
            tl::LIBRARY_EXPECTED,
        );
        // --whole-archive: whatever LLVM 19 does (its CPU device link then sees the archive's
        // host objects too), offkit does the same.
        let args = [
            main.as_str(),
            "-Wl,--whole-archive",
            "-L.",
            "-lk",
            "-Wl,--no-whole-archive",
        ];
        let theirs = e.link(false, "ref", &[X86], &args);
        let ours = e.link(true, "ours", &[X86], &args);
        assert_eq!(
            ours.code,
            theirs.code,
            "ours:\n{}\ntheirs:\n{}",
            ours.stderr_str(),
            theirs.stderr_str()
        );
        if theirs.code == Some(0) {
            assert_eq!(e.run("ours"), e.run("ref"));
            assert_eq!(e.images("ours"), e.images("ref"));
        }
    }

    #[test]
    fn shared_library() {
        let e = Env::new();
        let lib = e.compile("k.c", tl::LIBRARY_USED, &[X86], &["-fPIC"]);
        let main = e.compile("main.c", tl::LIBRARY_MAIN, &[X86], &[]);
        let lib = lib.display().to_string();
        for (ours, so) in [(false, "libk_ref.so"), (true, "libk_ours.so")] {
            ok(&e.link(ours, so, &[X86], &["-shared", &lib]));
        }
        assert_eq!(e.images("libk_ours.so"), e.images("libk_ref.so"));
        let main = main.display().to_string();
        for (ours, exe, so) in [
            (false, "ref", "libk_ref.so"),
            (true, "ours", "libk_ours.so"),
        ] {
            ok(&e.link(ours, exe, &[X86], &[&main, so, "-Wl,-rpath,$ORIGIN"]));
        }
        assert_eq!(e.run("ours"), tl::LIBRARY_EXPECTED);
        assert_eq!(e.run("ref"), tl::LIBRARY_EXPECTED);
    }

    #[test]
    fn relocatable_link() {
        let e = Env::new();
        let lib = e.compile(
            "lib.c",
            "#include <omp.h>\nint on_device(void) { int d = 1;\n#pragma omp target map(from: d)\n{ d = omp_is_initial_device(); }\nreturn d; }\n",
            &[X86],
            &[],
        );
        std::fs::write(
            e.path().join("main.c"),
            "#include <stdio.h>\nint on_device(void);\nint main(void) { printf(\"initial=%d\\n\", on_device()); return 0; }\n",
        )
        .unwrap();
        let lib = lib.display().to_string();
        for (ours, merged, exe) in [
            (false, "merged_ref.o", "ref"),
            (true, "merged_ours.o", "ours"),
        ] {
            ok(&e.link(ours, merged, &[X86], &["--offload-link", "-r", &lib]));
            // The merged object registers itself: the program needs no offloading link.
            let o = run(
                llvm_tool("clang"),
                [
                    "-fopenmp",
                    "main.c",
                    merged,
                    "-L",
                    &libdir(),
                    "-lomptarget",
                    "-o",
                    exe,
                ],
                e.path(),
            );
            ok(&o);
            assert_eq!(e.run(exe), "initial=0\n");
        }
        let sections = |f: &str| {
            let o = run_ok(llvm_tool("llvm-readelf"), ["-S", f], e.path());
            o.stdout_str()
                .lines()
                .filter(|l| {
                    l.contains("offloading_entries") || l.contains("offloading.relocatable")
                })
                .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(sections("merged_ours.o"), sections("merged_ref.o"));
    }

    #[test]
    fn offload_lto() {
        let e = Env::new();
        let objs = program(&e, &tl::DECLARE_TARGET, &[X86], &["-foffload-lto"]);
        let objs: Vec<&str> = objs.iter().map(String::as_str).collect();
        both(
            &e,
            &objs,
            &[X86],
            &["-foffload-lto"],
            tl::DECLARE_TARGET.expected,
        );
    }

    #[test]
    fn two_targets_and_dropping_one() {
        let e = Env::new();
        let amd = ["-Xopenmp-target=amdgcn-amd-amdhsa", "-march=gfx90a"];
        let mut cflags = amd.to_vec();
        cflags.push("-nogpulib");
        let o = e.compile(
            "region.c",
            tl::TARGET_REGION.sources[0].1,
            &[X86, AMD],
            &cflags,
        );
        let o = o.display().to_string();
        // Linked for both: x86_64 and gfx90a (with the device runtime from devicertl).
        let images = both(
            &e,
            &[&o, amd[0], amd[1]],
            &[X86, AMD],
            &[],
            tl::TARGET_REGION.expected,
        );
        assert!(
            images.contains("gfx90a") && images.contains(X86),
            "{images}"
        );
        // Linked for x86_64 only: LLVM 19 still embeds both; so does offkit without options.
        let images = both(&e, &[&o], &[X86], &[], tl::TARGET_REGION.expected);
        assert_eq!(images.matches("OFFLOADING IMAGE").count(), 2, "{images}");
        // With --offload-targets only x86_64 is linked and embedded.
        ok(&e.link(
            true,
            "one",
            &[X86],
            &[&o, "-Wl,--offload-targets=x86_64-pc-linux-gnu"],
        ));
        assert_eq!(e.run("one"), tl::TARGET_REGION.expected);
        let one = e.images("one");
        assert_eq!(one.matches("OFFLOADING IMAGE").count(), 1, "{one}");
        assert!(one.contains(X86) && !one.contains("gfx90a"), "{one}");
    }

    /// `--emit-plan` writes a script that, run by hand, makes the same bytes.
    #[test]
    fn emitted_plan_reproduces_the_link() {
        let e = Env::new();
        let amd = ["-Xopenmp-target=amdgcn-amd-amdhsa", "-march=gfx90a"];
        let o = e.compile(
            "region.c",
            tl::TARGET_REGION.sources[0].1,
            &[X86, AMD],
            &[amd[0], amd[1], "-nogpulib"],
        );
        let o = o.display().to_string();
        let lib = format!("-L{}", libdir());
        for (out, args) in [
            (
                "prog",
                vec![o.as_str(), amd[0], amd[1], "-Wl,--emit-plan=plan.sh"],
            ),
            (
                "merged.o",
                vec![
                    "--offload-link",
                    "-r",
                    lib.as_str(),
                    "-lomptarget.devicertl",
                    o.as_str(),
                    amd[0],
                    amd[1],
                    "-Wl,--emit-plan=plan.sh",
                ],
            ),
        ] {
            ok(&e.link(true, out, &[X86, AMD], &args));
            let made = std::fs::read(e.exe(out)).unwrap();
            std::fs::remove_file(e.exe(out)).unwrap();
            let r = std::process::Command::new("sh")
                .arg("plan.sh")
                .env("OFFKIT", super::offkit())
                .current_dir(e.path())
                .output()
                .unwrap();
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            assert_eq!(std::fs::read(e.exe(out)).unwrap(), made, "{out}");
        }
        assert_eq!(e.run("prog"), tl::TARGET_REGION.expected);
    }

    /// Under `make -j`, the device links run inside make's jobserver (inherited pipes).
    #[test]
    fn under_make_jobserver() {
        let e = Env::new();
        let amd = ["-Xopenmp-target=amdgcn-amd-amdhsa", "-march=gfx90a"];
        e.compile(
            "region.c",
            tl::TARGET_REGION.sources[0].1,
            &[X86, AMD],
            &[amd[0], amd[1], "-nogpulib"],
        );
        let shims = e.shims.display();
        let rule = |out: &str| {
            format!(
                "{out}:\n\t+clang-19 -B {shims} -fopenmp -fopenmp-targets={X86},{AMD} {} {} region.o -o {out}\n",
                amd[0], amd[1]
            )
        };
        std::fs::write(
            e.path().join("Makefile"),
            format!("all: one two\n{}{}", rule("one"), rule("two")),
        )
        .unwrap();
        let o = run("make", ["-j3"], e.path());
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        assert_eq!(
            std::fs::read(e.exe("one")).unwrap(),
            std::fs::read(e.exe("two")).unwrap()
        );
        assert_eq!(e.run("one"), tl::TARGET_REGION.expected);
    }
}

/// `/dev/null` as an input (or found by `-l:`) is read, empty, as LLVM 19 reads it. A FIFO, on
/// which LLVM 19 waits for a writer forever, is refused at once: exit 1, a message naming it.
#[test]
fn device_and_fifo_inputs() {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    same(
        &[
            "--dry-run",
            "--linker-path=/usr/bin/ld",
            "/dev/null",
            "-o",
            "a.out",
        ],
        dir.path(),
    );
    same(
        &[
            "--dry-run",
            "--linker-path=/usr/bin/ld",
            "-L/dev",
            "-l:null",
            "-o",
            "a.out",
        ],
        dir.path(),
    );
    let made = Command::new("mkfifo")
        .arg(dir.path().join("ff"))
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        &[
            "--dry-run",
            "--linker-path=/usr/bin/ld",
            "ff",
            "-o",
            "a.out",
        ][..],
        &[
            "--dry-run",
            "--linker-path=/usr/bin/ld",
            "-L.",
            "-l:ff",
            "-o",
            "a.out",
        ],
        &["--linker-path=/usr/bin/ld", "ff", "-o", "a.out"],
    ] {
        let mut child = Command::new(offkit())
            .arg0(ARGV0)
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > Duration::from_secs(30) {
                child.kill().unwrap();
                panic!("{args:?}: still waiting on the FIFO after 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("ff") && stderr.contains("not a regular file"),
            "{args:?}: {stderr}"
        );
        assert!(!dir.path().join("a.out").exists());
    }
}
