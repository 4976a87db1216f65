//! Integration tests: the one drop-in driver, against LLVM 19 byte for byte (stdout, stderr, exit
//! status) for what every tool shares: response files (`@dir`, `@missing`, `@unreadable`,
//! recursive and nested ones), `--help`/`--help-hidden`/`--version`, no arguments, unknown
//! options; and LLVM's OS-error text (`'x': No such file or directory`, `Is a directory`,
//! `Permission denied`) for an input that is missing, a directory or unreadable, in every mode
//! of every tool.
//!
//! Both tools run with the same `argv[0]` (the bare tool name) in the same directory. When the
//! tests run as root, which reads any file, both tools run as `nobody` (uid and gid 65534, no
//! supplementary groups) so that an unreadable file is one; the directory and a copy of offkit
//! are made reachable for that user. `clang-offload-wrapper` is not part of LLVM 19: its texts
//! are checked against what LLVM 19's packager (the same `cl` driver) prints for the same case.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use offkit_testutil::{llvm_bin, Output};

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");
const NOBODY: u32 = 65534;

const BUNDLER: &str = "clang-offload-bundler";
const PACKAGER: &str = "clang-offload-packager";
const LINKER_WRAPPER: &str = "clang-linker-wrapper";
const WRAPPER: &str = "clang-offload-wrapper";

/// A work directory with the inputs of every case, and offkit where `nobody` can run it.
struct Bench {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    offkit: PathBuf,
    /// Run the tools as `nobody` (the tests run as root).
    drop_privileges: bool,
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

impl Bench {
    fn new() -> Bench {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let work = root.join("work");
        std::fs::create_dir(&work).unwrap();
        // Whoever owns a new file is who the tests run as.
        let drop_privileges = std::fs::metadata(&work).unwrap().uid() == 0;
        let bin = root.join("bin");
        std::fs::create_dir(&bin).unwrap();
        let offkit = bin.join("offkit");
        offkit_testutil::run::copy_executable(Path::new(OFFKIT), &offkit);
        chmod(&offkit, 0o755);
        chmod(&bin, 0o755);
        chmod(&root, 0o755);
        chmod(&work, 0o777);
        let w = |name: &str, text: &str| std::fs::write(work.join(name), text).unwrap();
        std::fs::create_dir(work.join("dir")).unwrap();
        std::fs::create_dir(work.join("libdir.a")).unwrap();
        w("unreadable", "--version\n");
        chmod(&work.join("unreadable"), 0o000);
        w("libsecret.a", "!<arch>\n");
        chmod(&work.join("libsecret.a"), 0o000);
        w("version.rsp", "--version\n");
        w("self.rsp", "-v @self.rsp\n");
        w("nested.rsp", "--version @dir\n");
        w("outer.rsp", "@inner.rsp\n");
        w("inner.rsp", "@outer.rsp\n");
        Bench {
            _tmp: tmp,
            work,
            offkit,
            drop_privileges,
        }
    }

    /// Runs `program` as `tool` (its `argv[0]`) in the work directory.
    fn run(&self, program: &Path, tool: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(program);
        cmd.arg0(tool)
            .args(args)
            .current_dir(&self.work)
            .env_remove("TERM");
        if self.drop_privileges {
            cmd.uid(NOBODY).gid(NOBODY);
        }
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
        Output {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }

    fn llvm(&self, tool: &str, args: &[&str]) -> Output {
        self.run(&llvm_bin().join(tool), tool, args)
    }

    fn ours(&self, tool: &str, args: &[&str]) -> Output {
        self.run(&self.offkit, tool, args)
    }
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.code,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs every case with LLVM 19's tool and offkit's and fails with all the differences.
fn same_as_llvm(tool: &str, cases: &[Vec<&str>]) -> Vec<(Vec<String>, Output)> {
    let b = Bench::new();
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for args in cases {
        let llvm = b.llvm(tool, args);
        let ours = b.ours(tool, args);
        if llvm != ours {
            failures.push(format!(
                "{tool} {args:?}\n=== LLVM 19\n{}=== offkit\n{}",
                show(&llvm),
                show(&ours)
            ));
        }
        seen.push((args.iter().map(|s| s.to_string()).collect(), llvm));
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from LLVM 19:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    seen
}

/// The command lines every tool shares: response files and the generic options.
fn driver_cases() -> Vec<Vec<&'static str>> {
    [
        "@dir",
        "@missing",
        "@unreadable",
        "@self.rsp",
        "@outer.rsp",
        "@version.rsp",
        "@nested.rsp",
        "--version @dir",
        "@dir --version",
        "--help @self.rsp",
        "",
        "-bogus",
        "--help",
        "--help-hidden",
        "--version",
    ]
    .iter()
    .map(|l| l.split_whitespace().collect())
    .collect()
}

/// A missing input, a directory and an unreadable file, in each of `modes` (`{}` is the file).
fn os_error_cases(modes: &[&'static str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for mode in modes {
        for file in ["missing", "dir", "unreadable"] {
            out.push(
                mode.split_whitespace()
                    .map(|w| w.replace("{}", file))
                    .collect(),
            );
        }
    }
    out
}

fn borrowed(v: &[Vec<String>]) -> Vec<Vec<&str>> {
    v.iter()
        .map(|a| a.iter().map(String::as_str).collect())
        .collect()
}

#[test]
fn bundler_driver_and_os_errors_as_llvm_19() {
    let seen = same_as_llvm(BUNDLER, &driver_cases());
    // The case the two drivers disagreed on: 19 reports the directory, then runs unparsed.
    let (_, dir) = &seen[0];
    assert!(dir.stderr_str().starts_with("cannot not open file '"));
    assert!(dir
        .stderr_str()
        .ends_with("': Is a directory\nclang-offload-bundler: error: no output file specified!\n"));
    let cases = os_error_cases(&[
        "-type=o -input={} -output=out -targets=host-x86_64-unknown-linux-gnu",
        "-type=bc -input={} -output=out -targets=host-x86_64-unknown-linux-gnu",
        "-type=o -unbundle -input={} -output=out -targets=host-x86_64-unknown-linux-gnu",
        "-type=a -unbundle -input={} -output=out -targets=openmp-x86_64-unknown-linux-gnu",
        "-type=o -list -input={}",
    ]);
    let seen = same_as_llvm(BUNDLER, &borrowed(&cases));
    for (args, out) in seen {
        let file = args
            .iter()
            .find_map(|a| a.strip_prefix("-input="))
            .unwrap_or_default();
        let why = match file {
            "missing" => "No such file or directory",
            "dir" => "Is a directory",
            _ => "Permission denied",
        };
        assert_eq!(
            out.stderr_str(),
            format!("{BUNDLER}: error: '{file}': {why}\n"),
            "{args:?}"
        );
    }
}

#[test]
fn packager_driver_and_os_errors_as_llvm_19() {
    same_as_llvm(PACKAGER, &driver_cases());
    let cases = os_error_cases(&[
        "--image=file={},triple=x86_64-unknown-linux-gnu -o out",
        "{} --image=triple=x86_64-unknown-linux-gnu",
    ]);
    let seen = same_as_llvm(PACKAGER, &borrowed(&cases));
    assert_eq!(
        seen[2].1.stderr_str(),
        format!("{PACKAGER}: error: Permission denied\n")
    );
    assert_eq!(
        seen[3].1.stderr_str(),
        format!("{PACKAGER}: error: 'missing': No such file or directory\n")
    );
}

#[test]
fn linker_wrapper_driver_and_os_errors_as_llvm_19() {
    same_as_llvm(LINKER_WRAPPER, &driver_cases());
    // A missing input or a directory goes to the host linker as it is (`--dry-run` prints the
    // command); an unreadable one is `'unreadable': Permission denied`.
    let mut cases = os_error_cases(&[
        "--host-triple=x86_64-unknown-linux-gnu --linker-path=/nonexistent/ld --dry-run {} -o out",
    ]);
    // A library found through `-L`: unreadable, and a directory of that name (passed on).
    for lib in ["-lsecret", "-ldir"] {
        cases.push(
            ["--linker-path=/nonexistent/ld", "--dry-run", "-L.", lib]
                .map(String::from)
                .to_vec(),
        );
    }
    let seen = same_as_llvm(LINKER_WRAPPER, &borrowed(&cases));
    assert_eq!(
        seen[2].1.stderr_str(),
        format!("{LINKER_WRAPPER}: error: 'unreadable': Permission denied\n")
    );
    assert_eq!(
        seen[3].1.stderr_str(),
        format!("{LINKER_WRAPPER}: error: './libsecret.a': Permission denied\n")
    );
}

/// `clang-offload-wrapper` is not in LLVM 19: its driver texts are the packager's (the same `cl`
/// driver), and an input error reads as the packager's extraction input error.
#[test]
fn wrapper_driver_and_os_errors_as_llvm_19s_cl_tools() {
    let b = Bench::new();
    let as_wrapper = |s: String| s.replace(PACKAGER, WRAPPER);
    for args in [
        vec!["@dir"],
        vec!["@unreadable"],
        vec!["@self.rsp"],
        vec!["@nested.rsp"],
    ] {
        let llvm = b.llvm(PACKAGER, &args);
        let ours = b.ours(WRAPPER, &args);
        // The expansion error, then the tool runs with nothing set: no target.
        assert_eq!(
            ours.stderr_str(),
            format!(
                "{}{WRAPPER}: error: '': unsupported target triple\n",
                llvm.stderr_str()
            ),
            "{args:?}"
        );
        assert_eq!(ours.code, Some(1));
    }
    for args in [vec!["@version.rsp"], vec!["--version"], vec!["-bogus-x"]] {
        let llvm = b.llvm(PACKAGER, &args);
        let ours = b.ours(WRAPPER, &args);
        assert_eq!(ours.code, llvm.code, "{args:?}");
        assert_eq!(as_wrapper(llvm.stdout_str()), ours.stdout_str(), "{args:?}");
        assert_eq!(
            ours.stderr_str().lines().next(),
            as_wrapper(llvm.stderr_str()).lines().next(),
            "{args:?}"
        );
    }
    for file in ["missing", "dir", "unreadable"] {
        let llvm = b.llvm(PACKAGER, &[file, "--image=triple=x86_64-unknown-linux-gnu"]);
        let ours = b.ours(
            WRAPPER,
            &["-o", "out.o", "--target=x86_64-pc-linux-gnu", file],
        );
        assert_eq!(ours.code, Some(1));
        assert_eq!(ours.stderr_str(), as_wrapper(llvm.stderr_str()), "{file}");
        assert!(!b.work.join("out.o").exists());
    }
}

/// Special files under the faces that read inputs (`clang-offload-bundler -list`/`-unbundle`,
/// the packager's extraction and packaging, in LLVM 19's and 22's faces): `/dev/zero` (named, or
/// a thin archive's member) is refused at once, naming the file, under a 1 GiB address space
/// (LLVM reads it until it runs out of memory and aborts); `/dev/null` is still an empty input,
/// as HIP's driver gives it (`-input=/dev/null`).
#[test]
fn special_files_are_refused_at_once_in_bounded_memory() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in [
        "clang-offload-bundler",
        "clang-offload-bundler-22",
        "clang-offload-packager",
        "llvm-offload-binary-22",
    ] {
        std::os::unix::fs::symlink(OFFKIT, d.join(name)).unwrap();
    }
    std::fs::write(
        d.join("thin-zero.a"),
        offkit_testutil::hostile::thin_archive(&[("/dev/zero", 1000)]),
    )
    .unwrap();
    std::fs::write(d.join("img.o"), b"\x7fELF").unwrap();
    const REFUSED: &str = "'/dev/zero': not a regular file (a character device that is not \
                           empty); only regular files and empty devices are read as inputs";
    let gfx = "-targets=hip-amdgcn-amd-amdhsa--gfx90a";
    let image = "--image=file=x.o,triple=amdgcn-amd-amdhsa,arch=gfx90a";
    let zero_image = "--image=file=/dev/zero,triple=amdgcn-amd-amdhsa,arch=gfx90a";
    // (tool, arguments, exit status, stderr after `<tool>: `).
    let cases: Vec<(&str, Vec<&str>, i32, String)> =
        ["clang-offload-bundler", "clang-offload-bundler-22"]
            .into_iter()
            .flat_map(|b| {
                let refused = format!("error: {REFUSED}\n");
                [
                    (
                        b,
                        vec!["-list", "-type=o", "-input=/dev/zero"],
                        1,
                        refused.clone(),
                    ),
                    (
                        b,
                        vec!["-unbundle", "-type=o", "-input=/dev/zero", gfx, "-output=o"],
                        1,
                        refused.clone(),
                    ),
                    (
                        b,
                        vec!["-type=bc", "-input=/dev/zero", gfx, "-output=o"],
                        1,
                        refused,
                    ),
                    // The bundler's archive reader stops at a thin member without reading it.
                    (
                        b,
                        vec![
                            "-unbundle",
                            "-type=a",
                            "-input=thin-zero.a",
                            gfx,
                            "-output=o",
                        ],
                        1,
                        "error: no compatible code object found for the target \
                     'hip-amdgcn-amd-amdhsa--gfx90a' in heterogeneous archive library: \
                     thin-zero.a\n"
                            .into(),
                    ),
                    (
                        b,
                        vec!["-list", "-type=o", "-input=/dev/null"],
                        0,
                        String::new(),
                    ),
                ]
            })
            .chain(
                ["clang-offload-packager", "llvm-offload-binary-22"]
                    .into_iter()
                    .flat_map(|p| {
                        let refused = format!("error: {REFUSED}\n");
                        [
                            (p, vec!["/dev/zero", image], 1, refused.clone()),
                            (p, vec!["thin-zero.a", image], 1, refused.clone()),
                            (p, vec!["-o", "out.bin", zero_image], 1, refused),
                            (p, vec!["/dev/null", image], 0, String::new()),
                        ]
                    }),
            )
            .collect();
    for (tool, args, code, stderr) in cases {
        let start = Instant::now();
        let out = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
            .arg(d.join(tool))
            .args(&args)
            .current_dir(d)
            .output()
            .unwrap();
        let what = format!("{tool} {}", args.join(" "));
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what}: took {:?}",
            start.elapsed()
        );
        let got = String::from_utf8_lossy(&out.stderr);
        let prefix = d.join(tool).display().to_string();
        let got = got.replace(&format!("{prefix}: "), "");
        assert_eq!(
            (out.status.code(), got.as_str()),
            (Some(code), stderr.as_str()),
            "{what}"
        );
        assert!(
            !d.join("o").exists() && !d.join("out.bin").exists(),
            "{what}"
        );
    }
}
