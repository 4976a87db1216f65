//! Conformance tests: offkit's drop-in `clang-offload-packager` against LLVM 19's, on the same
//! inputs — exit status, stdout, stderr and every file written (bytes and mode).
//!
//! * packaging: seeded random image sets (1–8 images, every image kind by extension and by
//!   bitcode magic, every offload kind and unknown ones, empty and non-empty arch, extra keys,
//!   keys over 64 bytes, repeated keys, several `file=`, stdin);
//! * extraction: from packager outputs, clang-19 objects (one and two offload targets), a
//!   COFF object, an executable, a shared library, archives (long member names), stdin; with
//!   random filters, `file=`, and `--archive`;
//! * errors and command-line parsing: missing keys and files, both modes, bad options,
//!   grouped one-letter options, typos and their suggestions, help and version output.

use std::path::Path;

use offkit_testutil::fixtures::OPENMP_SAXPY;
use offkit_testutil::llvm22_packager::Pair;
use offkit_testutil::packager::{Rng, Twin};
use offkit_testutil::{clang, llvm_tool, run_ok};

const TOOL: &str = "clang-offload-packager";

fn twin() -> Twin {
    Twin::new(TOOL, Path::new(env!("CARGO_BIN_EXE_offkit")))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const TRIPLES: &[&str] = &[
    "x86_64-pc-linux-gnu",
    "amdgcn-amd-amdhsa",
    "nvptx64-nvidia-cuda",
    "spirv64-intel",
    "t",
];
const ARCHES: &[&str] = &["gfx90a", "gfx90a:xnack+", "sm_70", "", "generic"];
const KINDS: &[&str] = &["openmp", "cuda", "hip", "sycl", "none", "bogus", ""];
const EXTENSIONS: &[&str] = &[
    ".o", ".bc", ".cubin", ".fatbin", ".s", ".spv", ".ptx", ".a", ".bin", "", ".x.o", ".O",
];

/// Random image contents: empty, random, or starting with either bitcode magic.
fn contents(rng: &mut Rng) -> Vec<u8> {
    let n = rng.range(0, 300);
    let mut data = rng.bytes(n);
    match rng.below(6) {
        0 => data = b"BC\xC0\xDE".iter().copied().chain(data).collect(),
        1 => data = [0xDE, 0xC0, 0x17, 0x0B].into_iter().chain(data).collect(),
        2 => data.clear(),
        3 => data.truncate(3),
        _ => {}
    }
    data
}

/// One random `--image` for packaging; writes its files into `twin`. `stdin` is set when the
/// image reads standard input.
fn random_image(rng: &mut Rng, twin: &impl Pair, n: usize, stdin: &mut Option<Vec<u8>>) -> String {
    let mut parts = Vec::new();
    let files = if rng.chance(1, 6) { rng.range(2, 3) } else { 1 };
    for f in 0..files {
        if stdin.is_none() && rng.chance(1, 25) {
            *stdin = Some(contents(rng));
            parts.push("file=-".to_string());
            continue;
        }
        let name = format!("img{n}_{f}{}", rng.pick(EXTENSIONS));
        twin.put(&name, &contents(rng));
        parts.push(format!("file={name}"));
    }
    if !rng.chance(1, 30) {
        parts.push(format!("triple={}", rng.pick(TRIPLES)));
    }
    if rng.chance(4, 5) {
        parts.push(format!("arch={}", rng.pick(ARCHES)));
    }
    if rng.chance(4, 5) {
        parts.push(format!("kind={}", rng.pick(KINDS)));
    }
    for _ in 0..rng.range(0, 6) {
        let klen = match rng.below(3) {
            0 => rng.range(65, 200),
            _ => rng.range(1, 20),
        };
        let key = rng.word(klen);
        let vlen = rng.range(0, 30);
        let value = rng.word(vlen);
        parts.push(format!("{key}={value}"));
        if rng.chance(1, 4) {
            let vlen = rng.range(0, 8);
            parts.push(format!("{key}={}", rng.word(vlen)));
        }
    }
    if rng.chance(1, 10) {
        parts.push("feature=+xnack".into());
        parts.push("feature=-sramecc".into());
    }
    rng.shuffle(&mut parts);
    format!("--image={}", parts.join(","))
}

#[test]
fn packaging_random_image_sets() {
    packaging_random_image_sets_on(&twin());
}

/// Seeded random image sets packaged by both tools of `t`.
pub(crate) fn packaging_random_image_sets_on(t: &impl Pair) {
    let mut rng = Rng::new(2);
    for case in 0..120 {
        t.clear();
        let mut stdin = None;
        let mut args = strings(&["-o", "out.bin"]);
        for n in 0..rng.range(1, 8) {
            args.push(random_image(&mut rng, t, n, &mut stdin));
        }
        if rng.chance(1, 8) {
            // Options before, between and after, in their other spellings.
            args.rotate_left(2);
            args.push("--o=out2.bin".into());
        }
        let out = t.assert_same(&args, stdin.as_deref(), &format!("case {case}"));
        if out.code != Some(0) {
            // A few cases lack a triple or read stdin twice; most must package.
            assert!(
                out.stderr_str().contains("required image arguments")
                    || out.stderr_str().contains("No such file"),
                "case {case}: {}",
                out.stderr_str()
            );
        }
    }
}

#[test]
fn packaging_to_stdout_special_files_and_errors() {
    packaging_to_stdout_special_files_and_errors_on(&twin());
}

/// Packaging to stdout, to special files, and its errors.
pub(crate) fn packaging_to_stdout_special_files_and_errors_on(t: &impl Pair) {
    t.put("a.o", b"ABCDEFGHIJ");
    t.put("b.bc", b"BC\xC0\xDE1234");
    std::fs::create_dir_all(t.llvm_dir().join("dir")).unwrap();
    std::fs::create_dir_all(t.ours_dir().join("dir")).unwrap();
    let cases: &[&[&str]] = &[
        &["-o", "-", "--image=file=a.o,triple=t,kind=openmp"],
        &["-o", "/dev/null", "--image=file=a.o,triple=t"],
        &["-o", "out", "--image=file=a.o"],
        &["-o", "out", "--image=triple=t"],
        &["-o", "out", "--image="],
        &["-o", "out", "--image=file=a.o,triple=t", "--image=file=a.o"],
        &["-o", "out", "--image=file=missing.o,triple=t"],
        &["-o", "out", "--image=file=dir,triple=t"],
        &["-o", "out", "--image=file=a.o,triple=t,file=,arch=x"],
        &["-o", "dir", "--image=file=a.o,triple=t"],
        &["-o", "nodir/out", "--image=file=a.o,triple=t"],
        &["-o", "out"],
        &["-o", "out", "a.o"],
        &[
            "-o",
            "out",
            "--image=file=a.o,triple=t",
            "--image=file=b.bc,triple=t,file=a.o",
        ],
        &["-o", "a", "-o", "b", "--image=file=b.bc,triple=x"],
        &["-oout", "--image=file=a.o,triple=t"],
        &["-o=out", "--image=file=a.o,triple=t"],
        &["-o", "--help"],
        &["--image", "--version"],
        &["--image=file=a.o,triple=t", "--", "-o"],
    ];
    for (i, c) in cases.iter().enumerate() {
        t.assert_same(&strings(c), None, &format!("case {i}"));
    }
    // Standard input as an image, twice in one command (the second read is empty).
    t.assert_same(
        &strings(&["-o", "out", "--image=file=-,triple=t,file=-"]),
        Some(b"BC\xC0\xDEstdin"),
        "stdin",
    );
}

#[test]
fn command_line_parsing_help_and_typos() {
    command_line_parsing_help_and_typos_on(&twin());
}

/// Command-line parsing, help texts and typos.
pub(crate) fn command_line_parsing_help_and_typos_on(t: &impl Pair) {
    t.put("self.rsp", b"-h @self.rsp");
    t.put("args.rsp", b"--bogus 'quoted arg' \\\"x\\\" @missing");
    let cases: &[&[&str]] = &[
        &[],
        &["--help"],
        &["-help"],
        &["--help-hidden"],
        &["--help-list"],
        &["--help-list-hidden"],
        &["-h"],
        &["--h"],
        &["-hh"],
        &["-h=0"],
        &["-h=1"],
        &["-h=x"],
        &["--version"],
        &["--version=1"],
        &["--help=0"],
        &["--bogus", "--version"],
        &["--bogus", "-h"],
        &["--help", "--bogus"],
        &["a", "b", "--version"],
        &["a", "b"],
        &["", ""],
        &["-ho"],
        &["-ho", "x"],
        &["-hx"],
        &["-oh"],
        &["-hel"],
        &["--hel=5"],
        &["--zz=5"],
        &["--=x"],
        &["---help"],
        &["-"],
        &["--archive=foo"],
        &["--archive", "--archive=0"],
        &["--print-options=yes"],
        &["--print-options", "--print-all-options"],
        &["-o"],
        &["--image"],
        &["@missing-response-file"],
        &["@."],
        &["@self.rsp"],
        &["@args.rsp", "--version"],
        &["-W"],
        &["-Wh"],
        &["-W=0"],
        &["-Wq"],
        &["-Wox"],
        &["-hWo", "out"],
        &[
            "-x",
            "-y",
            "--arch",
            "-imag",
            "--im=4",
            "-versio=1",
            "-Help",
        ],
    ];
    for (i, c) in cases.iter().enumerate() {
        t.assert_same(&strings(c), None, &format!("case {i}"));
    }
    // Random typos: every unknown option gets its own "Did you mean" in one run, which checks
    // the order in which LLVM meets the options.
    let mut rng = Rng::new(7);
    let words = [
        "help", "version", "archive", "image", "o", "print", "options", "list", "hidden", "all",
    ];
    let mut args = Vec::new();
    for _ in 0..150 {
        let mut w = rng.pick(&words).to_string();
        for _ in 0..rng.range(0, 3) {
            let at = rng.below(w.len() + 1);
            let c = *rng.pick(b"abcdefghilmnoprstvx-") as char;
            match rng.below(3) {
                0 if !w.is_empty() && at < w.len() => {
                    w.remove(at);
                }
                1 if at < w.len() => w.replace_range(at..at + 1, &c.to_string()),
                _ => w.insert(at, c),
            }
        }
        let dashes = if rng.chance(1, 2) { "-" } else { "--" };
        let value = if rng.chance(1, 4) { "=v" } else { "" };
        args.push(format!("{dashes}{w}{value}"));
    }
    t.assert_same(&args, None, "typos");
}

#[test]
fn argv0_as_invoked_appears_in_messages() {
    // Without a normalized argv[0], LLVM prints the path it was run by; so does offkit.
    let t = twin();
    let dir = t.root().join("bin");
    let ours = dir.join(TOOL);
    let llvm = llvm_tool(TOOL);
    for args in [vec!["--bogus"], vec!["-o", "x", "y"], vec!["--help"]] {
        let a = offkit_testutil::run(&llvm, &args, t.root());
        let b = offkit_testutil::run(&ours, &args, t.root());
        let norm = |s: String, p: &Path| s.replace(&p.display().to_string(), "PROG");
        assert_eq!(a.code, b.code);
        assert_eq!(
            norm(a.stderr_str(), &llvm),
            norm(b.stderr_str(), &ours),
            "{args:?}"
        );
        assert_eq!(a.stdout, b.stdout);
    }
}

/// Packages a random image set with LLVM's tool in both directories (as `name`); returns the
/// triples and arches used.
pub(crate) fn random_package(rng: &mut Rng, t: &impl Pair, name: &str) {
    let mut args = strings(&["-o", name]);
    for n in 0..rng.range(1, 8) {
        let ext = rng.pick(&[".o", ".bc", ".s", ".cubin", ".fatbin", ".bin"]);
        let file = format!("{name}.{n}{ext}");
        let len = rng.range(0, 100);
        t.put(&file, &rng.bytes(len));
        let mut parts = vec![
            format!("file={file}"),
            format!("triple={}", rng.pick(TRIPLES)),
            format!("kind={}", rng.pick(KINDS)),
        ];
        if rng.chance(3, 4) {
            parts.push(format!("arch={}", rng.pick(ARCHES)));
        }
        if rng.chance(1, 3) {
            parts.push(format!("extra={}", rng.pick(&["1", "2", ""])));
        }
        args.push(format!("--image={}", parts.join(",")));
    }
    let out = t.llvm_ok(&args);
    // (LLVM 22 warns that `clang-offload-packager` is deprecated.)
    assert!(!out.stderr_str().contains("error"), "{}", out.stderr_str());
    let bytes = std::fs::read(t.llvm_dir().join(name)).unwrap();
    t.put(name, &bytes);
}

/// A random extraction filter.
fn random_filter(rng: &mut Rng, archive: bool) -> String {
    let mut parts = Vec::new();
    if rng.chance(1, 2) {
        parts.push(format!("triple={}", rng.pick(TRIPLES)));
    }
    if rng.chance(1, 3) {
        parts.push(format!("arch={}", rng.pick(ARCHES)));
    }
    if rng.chance(1, 3) {
        parts.push(format!("kind={}", rng.pick(KINDS)));
    }
    if rng.chance(1, 8) {
        parts.push(format!("extra={}", rng.pick(&["1", "2", ""])));
    }
    if archive || rng.chance(1, 3) {
        let ext = if archive { "a" } else { "out" };
        parts.push(format!("file=sel{}.{ext}", rng.below(3)));
    }
    rng.shuffle(&mut parts);
    format!("--image={}", parts.join(","))
}

#[test]
fn extraction_from_packager_outputs_random_filters() {
    extraction_from_packager_outputs_random_filters_on(&twin());
}

/// Extraction from packager outputs with random filters.
pub(crate) fn extraction_from_packager_outputs_random_filters_on(t: &impl Pair) {
    let mut rng = Rng::new(3);
    let mut extracted = 0;
    for case in 0..60 {
        t.clear();
        random_package(&mut rng, t, "pk.bin");
        let archive = rng.chance(1, 4);
        let mut args = vec!["pk.bin".to_string()];
        for _ in 0..rng.range(0, 4) {
            args.push(random_filter(&mut rng, archive));
        }
        if archive {
            args.push("--archive".into());
        }
        let before = Twin::snapshot(t.llvm_dir()).len();
        let stdin_case = rng.chance(1, 8);
        if stdin_case {
            args[0] = "-".into();
            let data = std::fs::read(t.llvm_dir().join("pk.bin")).unwrap();
            t.assert_same(&args, Some(&data), &format!("case {case} (stdin)"));
        } else {
            t.assert_same(&args, None, &format!("case {case}"));
        }
        if Twin::snapshot(t.llvm_dir()).len() > before {
            extracted += 1;
        }
    }
    assert!(extracted > 10, "only {extracted} cases extracted anything");
}

/// Objects built by clang-19 the way users build them.
struct Built {
    dir: tempfile::TempDir,
}

fn build_fixtures() -> Built {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build_fixtures_in(
        d,
        &|args: &[&str]| {
            run_ok(clang(), args, d);
        },
        &|args: &[&str]| {
            run_ok(llvm_tool("llvm-ar"), args, d);
        },
    );
    Built { dir }
}

/// The extraction inputs: OpenMP objects of a release's clang (`cc`, run in `d` with names
/// relative to it) for one and two offload targets, a COFF object, a MinGW executable, a Linux
/// executable and shared library, an `-flto` object, and archives of them (`ar`: llvm-ar).
pub(crate) fn build_fixtures_in(d: &Path, cc: &dyn Fn(&[&str]), ar: &dyn Fn(&[&str])) {
    let omp = |name: &str, src: &str, targets: &[&str], extra: &[&str]| {
        std::fs::write(d.join(format!("{name}.c")), src).unwrap();
        let t = format!("-fopenmp-targets={}", targets.join(","));
        let (c, o) = (format!("{name}.c"), format!("{name}.o"));
        let mut args = vec!["-fopenmp", &t];
        args.extend(extra);
        args.extend(["-c", &c, "-o", &o]);
        cc(&args);
    };
    omp("one", OPENMP_SAXPY, &["x86_64-pc-linux-gnu"], &[]);
    omp(
        "two",
        OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu", "amdgcn-amd-amdhsa"],
        &[
            "-Xopenmp-target=amdgcn-amd-amdhsa",
            "-march=gfx90a",
            "-nogpulib",
        ],
    );
    omp(
        "coff",
        OPENMP_SAXPY
            .replace("#include <omp.h>", "int omp_is_initial_device(void);")
            .as_str(),
        &["x86_64-pc-linux-gnu"],
        &["--target=x86_64-pc-windows-msvc"],
    );
    // A PE image linked by lld (MinGW): the wrapped image is in a section lld cuts to `.llvm`;
    // LLVM's packager reads no PE image. Stand-in runtime libraries: it is never run.
    omp(
        "mingw",
        "int main(void) {\n  int x = 0;\n#pragma omp target map(tofrom : x)\n  x = 42;\n  \
         return x;\n}\n",
        &["x86_64-pc-linux-gnu"],
        &["--target=x86_64-w64-windows-gnu"],
    );
    for lib in ["libomp.a", "libomptarget.a"] {
        std::fs::write(d.join(lib), b"!<arch>\n").unwrap();
    }
    cc(&[
        "--target=x86_64-w64-windows-gnu",
        "-fopenmp",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
        "-fuse-ld=lld",
        "-nostartfiles",
        "-nodefaultlibs",
        "mingw.o",
        "-L.",
        "-Wl,-Xlink=/force:unresolved",
        "-o",
        "app.exe",
    ]);
    std::fs::write(
        d.join("main.c"),
        "int saxpy(int, float *, float *);\nint main(void) { float x[4] = {1}, y[4] = {2}; \
         return saxpy(4, x, y) != 1; }\n",
    )
    .unwrap();
    cc(&[
        "-fopenmp",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
        "main.c",
        "one.o",
        // The stand-in runtime (Debian 13 ships no libomptarget): the program never runs.
        "-L.",
        "-Wl,--unresolved-symbols=ignore-all",
        "-o",
        "app",
    ]);
    cc(&[
        "-fopenmp",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
        "-fPIC",
        "-shared",
        "one.c",
        "-L.",
        "-o",
        "libone.so",
    ]);
    // An -flto host object: LLVM bitcode with the offload binaries in a global.
    omp(
        "lto",
        OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu", "amdgcn-amd-amdhsa"],
        &[
            "-flto",
            "-Xopenmp-target=amdgcn-amd-amdhsa",
            "-march=gfx90a",
            "-nogpulib",
        ],
    );
    std::fs::copy(d.join("two.o"), d.join("a_member_with_a_long_name.o")).unwrap();
    ar(&[
        "rcs",
        "libk.a",
        "one.o",
        "a_member_with_a_long_name.o",
        "lto.o",
    ]);
    ar(&["rcs", "libnest.a", "libk.a", "two.o"]);
}

#[test]
fn extraction_from_clang_objects_executables_and_archives() {
    let built = build_fixtures();
    extraction_from_clang_objects_on(&twin(), built.dir.path(), (2, 3));
}

/// Extraction from the objects, executables and archives [`build_fixtures_in`] made in
/// `built`; at least the share `min` (numerator, denominator) of the cases must extract
/// something.
pub(crate) fn extraction_from_clang_objects_on(t: &impl Pair, built: &Path, min: (usize, usize)) {
    let inputs = [
        "one.o",
        "two.o",
        "lto.o",
        "coff.o",
        "app.exe",
        "app",
        "libone.so",
        "libk.a",
        "libnest.a",
    ];
    for i in inputs {
        t.put_file(i, &built.join(i));
    }
    let filters: &[&[&str]] = &[
        &[],
        &["--image=kind=openmp"],
        &["--image=triple=x86_64-pc-linux-gnu"],
        &["--image=triple=amdgcn-amd-amdhsa,arch=gfx90a"],
        &["--image=arch="],
        &["--image=kind=openmp,file=dev.o"],
        &["--image=kind=hip"],
        &["--image=kind=openmp", "--image=triple=amdgcn-amd-amdhsa"],
        &["--image=kind=openmp,file=lib.a", "--archive"],
        &[
            "--image=triple=x86_64-pc-linux-gnu,file=host.a",
            "--archive",
        ],
        &["--image=triple=amdgcn-amd-amdhsa,file=gpu.a", "--archive"],
        &["--image=kind=openmp", "--archive"],
    ];
    let mut cases = 0;
    let mut extracted = 0;
    for input in inputs {
        for f in filters {
            t.clear();
            for i in inputs {
                t.put_file(i, &built.join(i));
            }
            let mut args = vec![input.to_string()];
            args.extend(strings(f));
            t.assert_same(&args, None, &format!("{input} {f:?}"));
            let wrote = Twin::snapshot(t.llvm_dir()).len() > inputs.len();
            if input == "app.exe" {
                // LLVM reads no PE image (nor does offkit under its name).
                assert!(!wrote, "{input} {f:?}");
                continue;
            }
            cases += 1;
            if wrote {
                extracted += 1;
            }
        }
    }
    // Most filters select something from every input but the COFF object's host-only ones.
    assert!(
        extracted >= cases * min.0 / min.1,
        "only {extracted} of {cases} extracted anything"
    );
    // From standard input.
    t.clear();
    let data = std::fs::read(built.join("libk.a")).unwrap();
    t.assert_same(
        &strings(&["-", "--image=kind=openmp"]),
        Some(&data),
        "stdin archive",
    );
    t.assert_same(
        &strings(&["-", "--image=kind=openmp,file=x.a", "--archive"]),
        Some(&data),
        "stdin archive --archive",
    );
    assert_eq!(cases, (inputs.len() - 1) * filters.len());
}

#[test]
fn extraction_errors() {
    extraction_errors_on(&twin());
}

/// Extraction from truncated and corrupted packager outputs, and its other errors.
pub(crate) fn extraction_errors_on(t: &impl Pair) {
    let mut rng = Rng::new(5);
    random_package(&mut rng, t, "pk.bin");
    let good = std::fs::read(t.llvm_dir().join("pk.bin")).unwrap();
    // Truncations and corruptions of a packager output.
    let mut bad: Vec<(String, Vec<u8>)> = Vec::new();
    for cut in [1, 10, 40, 71, 72, 100, good.len() - 8, good.len() - 1] {
        bad.push((
            format!("cut{cut}.bin"),
            good[..cut.min(good.len())].to_vec(),
        ));
    }
    for (field, value) in [
        (4usize, 2u64),
        (4, 0),
        (8, 0),
        (8, 71),
        (8, 1 << 40),
        (16, 1 << 40),
        (24, 1 << 40),
        (24, 0),
    ] {
        let mut b = good.clone();
        let w = if field == 4 { 4 } else { 8 };
        b[field..field + w].copy_from_slice(&value.to_le_bytes()[..w]);
        bad.push((format!("f{field}_{value}.bin"), b));
    }
    let mut b = good.clone();
    b.extend_from_slice(&[0u8; 16]);
    bad.push(("trailing.bin".into(), b));
    let mut b = good.clone();
    b.extend_from_slice(b"!<arch>\n");
    bad.push(("junk.bin".into(), b));
    for (name, data) in &bad {
        t.put(name, data);
    }
    std::fs::create_dir_all(t.llvm_dir().join("dir")).unwrap();
    std::fs::create_dir_all(t.ours_dir().join("dir")).unwrap();
    t.put("text.txt", b"hello, not an offload file");
    let mut cases: Vec<Vec<String>> = bad
        .iter()
        .map(|(n, _)| vec![n.clone(), "--image=kind=openmp".to_string()])
        .collect();
    for c in [
        &["missing.bin", "--image=kind=openmp"][..],
        &["dir", "--image=kind=openmp"],
        &["text.txt", "--image=kind=openmp"],
        &["pk.bin", "--image=kind=openmp", "--archive"],
        &["pk.bin", "--image=file=dir"],
        &["pk.bin", "--image=file=nodir/x"],
        &["pk.bin", "--image=file=nodir/x.a", "--archive"],
        &["pk.bin", "--image=file=dir", "--archive"],
        &["pk.bin", "--image=triple=nope,file=dir", "--archive"],
    ] {
        cases.push(strings(c));
    }
    for (i, c) in cases.iter().enumerate() {
        t.assert_same(c, None, &format!("case {i}"));
    }
}

#[test]
fn packaged_outputs_have_llvms_mode_and_atomicity() {
    packaged_outputs_have_llvms_mode_and_atomicity_on(&twin());
}

/// Outputs replace read-only files, get LLVM's mode, and appear only on success.
pub(crate) fn packaged_outputs_have_llvms_mode_and_atomicity_on(t: &impl Pair) {
    t.put("a.o", b"x");
    // An existing read-only output is replaced (rename), as LLVM does.
    t.put("out", b"old");
    for d in [t.llvm_dir(), t.ours_dir()] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("out"), std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    t.assert_same(
        &strings(&["-o", "out", "--image=file=a.o,triple=t"]),
        None,
        "read-only output",
    );
    // On failure nothing is left behind (no partial output, no temporary file).
    t.clear();
    t.put("a.o", b"x");
    t.assert_same(
        &strings(&[
            "-o",
            "out",
            "--image=file=a.o,triple=t",
            "--image=file=gone.o,triple=t",
        ]),
        None,
        "failure leaves nothing",
    );
    assert!(!t.ours_dir().join("out").exists());
}
