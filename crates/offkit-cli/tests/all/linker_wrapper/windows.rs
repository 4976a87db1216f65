//! Windows (COFF) hosts run-tested: programs cross-compiled by clang-19 for
//! `x86_64-w64-windows-gnu` (Debian's mingw-w64 C runtime), linked by clang-19 through LLVM 19's
//! `clang-linker-wrapper` and through offkit's drop-in (MinGW `ld.lld`), run under Debian's
//! wine64 against a stand-in offload runtime DLL of the tests' own that prints what it is
//! handed. Both executables are the same bytes, and the registration object hands the runtime
//! exactly the image it wraps (size and hash of the linked device image) and the program's
//! entries, and unregisters at exit. OpenMP and CUDA: clang-19 cannot compile HIP host code for
//! Windows (a backend crash), so HIP's COFF module is checked by the dry-run matrix.

use std::path::{Path, PathBuf};

use offkit_testutil::offload::{compile, Kind};
use offkit_testutil::stub_runtime::{fake_cuda, stub_runtime_dll};
use offkit_testutil::{llvm_tool, run, Output};

const TARGET: &str = "x86_64-w64-windows-gnu";
/// Debian 12's wine64 loader.
const WINE: &str = "/usr/lib/wine/wine64";

#[track_caller]
fn ok(o: &Output, what: &str) {
    assert_eq!(o.code, Some(0), "{what}: {}", o.stderr_str());
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Links `args` for Windows with clang-19 (through offkit's shims when `shims` is given).
fn link(dir: &Path, shims: Option<&Path>, args: &[&str], out: &str) {
    let mut a: Vec<String> = Vec::new();
    if let Some(s) = shims {
        a.extend(["-B".into(), s.display().to_string()]);
    }
    a.extend([
        format!("--target={TARGET}"),
        "-fuse-ld=lld".into(),
        "-Wl,--no-insert-timestamp".into(),
        "-L".into(),
        "rt".into(),
    ]);
    a.extend(args.iter().map(|s| s.to_string()));
    a.extend(["-o".into(), out.into()]);
    ok(&run(llvm_tool("clang"), &a, dir), out);
}

/// Runs `exe` under wine with the stand-in runtime beside it; returns its stdout.
fn wine(dir: &Path, exe: &str) -> String {
    let out = std::process::Command::new(WINE)
        .arg(exe)
        .current_dir(dir)
        .env("WINEPREFIX", dir.join("wineprefix"))
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {WINE} (scripts/setup.sh installs wine64): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(
        out.status.success(),
        "{exe} under wine: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Compiles C `src` for Windows to an object beside it.
fn compile_c(dir: &Path, src: &Path) -> PathBuf {
    let o = src.with_extension("o");
    let args = [
        format!("--target={TARGET}"),
        "-c".into(),
        src.display().to_string(),
        "-o".into(),
        o.display().to_string(),
    ];
    ok(&run(llvm_tool("clang"), &args, dir), "compile");
    o
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shims = offkit_testutil::link::shims(&super::offkit(), &dir.join("shims"));
    let rt = stub_runtime_dll(&dir.join("rt"), TARGET);
    std::fs::copy(rt.join("omp.dll"), dir.join("omp.dll")).unwrap();
    (tmp, shims)
}

#[test]
fn windows_programs_register_what_they_wrap() {
    let (tmp, shims) = setup();
    let dir = tmp.path();

    // OpenMP offloading to x86_64 Linux from a Windows host: the device image is a Linux
    // shared object the stand-in runtime only looks at. (An amdgcn image cannot be linked for
    // a Windows host: LLVM 19's device runtime has Linux's wchar_t.)
    let target = format!("--target={TARGET}");
    let omp = offkit_testutil::fixtures::compile_openmp(
        dir,
        "omp",
        offkit_testutil::offload::OPENMP_SOURCE,
        &["x86_64-pc-linux-gnu"],
        &[&target, "-nogpuinc"],
    );
    let main = offkit_testutil::fixtures::write_source(
        dir,
        "ompmain.c",
        "#include <stdio.h>\nint run(void);\nint main(void) { printf(\"run=%d\\n\", run()); return 0; }\n",
    );
    let main = compile_c(dir, &main);
    let (omp, main) = (omp.display().to_string(), main.display().to_string());
    let mut args = vec![
        "-fopenmp",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
        main.as_str(),
        omp.as_str(),
    ];
    link(dir, None, &args, "omp-llvm.exe");
    args.push("-Wl,--save-temps");
    link(dir, Some(&shims), &args, "omp-ours.exe");
    assert_eq!(
        std::fs::read(dir.join("omp-ours.exe")).unwrap(),
        std::fs::read(dir.join("omp-llvm.exe")).unwrap(),
        "the OpenMP program through offkit is LLVM 19's, byte for byte"
    );
    let printed = wine(dir, "omp-ours.exe");
    // The images offkit linked (kept by --save-temps), in the order LLVM 19 registers them.
    let mut expected = String::from("__tgt register: 1 image(s), 2 entries\n");
    for (i, img) in ["omp-ours.exe.x86_64.native.img"].iter().enumerate() {
        let data = std::fs::read(dir.join(img)).unwrap_or_else(|e| panic!("{img}: {e}"));
        expected.push_str(&format!(
            "  image {i}: {} bytes fnv {:016x}, entries the program's\n",
            data.len(),
            fnv(&data)
        ));
    }
    assert!(
        printed.starts_with(&expected),
        "{printed}\nexpected:\n{expected}"
    );
    assert!(
        printed.contains("  entry counter size 4 flags 0\n"),
        "{printed}"
    );
    assert!(printed.contains("run=2\n"), "{printed}");
    assert!(
        printed.ends_with("__tgt unregister: 1 image(s)\n"),
        "{printed}"
    );
    assert_eq!(wine(dir, "omp-llvm.exe"), printed);

    // CUDA (stand-in toolkit): the fatbinary, its kernel and variables.
    let cuda = fake_cuda(dir);
    let k = compile(dir, "k", Kind::Cuda, TARGET, false, &[]);
    let cmain =
        offkit_testutil::fixtures::write_source(dir, "cmain.c", "int main(void) { return 0; }\n");
    let cuda_path = format!("-Wl,--cuda-path={}", cuda.display());
    let cmain = compile_c(dir, &cmain);
    let (k, cmain) = (k.display().to_string(), cmain.display().to_string());
    let args = [
        "--offload-link",
        "--offload-new-driver",
        "-Wno-unused-command-line-argument",
        cuda_path.as_str(),
        cmain.as_str(),
        k.as_str(),
        "-lomp",
    ];
    link(dir, None, &args, "cuda-llvm.exe");
    link(dir, Some(&shims), &args, "cuda-ours.exe");
    assert_eq!(
        std::fs::read(dir.join("cuda-ours.exe")).unwrap(),
        std::fs::read(dir.join("cuda-llvm.exe")).unwrap(),
        "the CUDA program through offkit is LLVM 19's, byte for byte"
    );
    let printed = wine(dir, "cuda-ours.exe");
    for line in [
        "__cuda register: magic 0x466243b1 version 1\n",
        "  function _Z4kernPi\n",
        "  variable dv size 16 extern 0 constant 0\n",
        "  variable cv size 4 extern 0 constant 1\n",
        "__cuda register end\n",
        "__cuda unregister ok\n",
    ] {
        assert!(printed.contains(line), "{line:?} not in:\n{printed}");
    }
}

/// The registration objects for the hosts offkit has LLVM 19's `llc` compile (COFF: MSVC and
/// MinGW x86_64, MSVC aarch64; ELF hosts it has no code for: 64-bit PowerPC) are LLVM 19's byte
/// for byte (`--save-temps` keeps both tools' objects).
#[test]
fn llc_registration_objects_are_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (host, device, machine) in [
        (
            "x86_64-pc-windows-msvc",
            "x86_64-pc-linux-gnu",
            &[0x64, 0x86][..],
        ),
        (
            "x86_64-w64-windows-gnu",
            "x86_64-pc-linux-gnu",
            &[0x64, 0x86],
        ),
        (
            "aarch64-pc-windows-msvc",
            "aarch64-unknown-linux-gnu",
            &[0x64, 0xaa],
        ),
        (
            "powerpc64le-unknown-linux-gnu",
            "powerpc64le-unknown-linux-gnu",
            b"\x7fELF",
        ),
    ] {
        let target = format!("--target={host}");
        let obj = offkit_testutil::fixtures::compile_openmp(
            dir,
            host,
            offkit_testutil::offload::OPENMP_SOURCE,
            &[device],
            &[&target, "-nogpuinc"],
        );
        let mut objects = Vec::new();
        for (who, tool) in [
            ("llvm", offkit_testutil::link::llvm_wrapper()),
            ("ours", super::offkit()),
        ] {
            let work = dir.join(format!("{host}-{who}"));
            std::fs::create_dir(&work).unwrap();
            // The CPU device image is linked without a C library (none here for PowerPC).
            let args = [
                format!("--host-triple={host}"),
                format!("--device-linker={device}=-fuse-ld=lld"),
                format!("--device-linker={device}=-nostdlib"),
                "--save-temps".into(),
                "--linker-path=/bin/true".into(),
                "-o".into(),
                "p.exe".into(),
                obj.display().to_string(),
            ];
            let o = offkit_testutil::packager::run_as(&tool, super::ARGV0, &args, &work, None);
            ok(&o, &format!("{host} {who}"));
            objects.push(std::fs::read(work.join("p.exe.openmp.image.wrapper.o")).unwrap());
        }
        assert!(objects[0].starts_with(machine), "{host}");
        assert_eq!(objects[1], objects[0], "{host}");
    }
}
