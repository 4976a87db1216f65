//! aarch64 hosts run-tested: OpenMP programs compiled by clang-19 for `aarch64-linux-gnu`,
//! offloading to their own triple, linked through LLVM 19's linker wrapper and through
//! offkit's drop-in (ld.lld for both the device and the host link), are the same bytes, and
//! run under Debian's qemu-user on Debian's arm64 LLVM 19 runtime (libomp, libomptarget and
//! its host plugin, unpacked by `scripts/setup-arm64-runtime.sh`) with their target regions on
//! the offload device.

use std::path::Path;

use offkit_testutil::link::{self as tl, Program};
use offkit_testutil::{llvm_tool, run, Output};

const HOST: &str = "aarch64-linux-gnu";
const DEVICE: &str = "aarch64-unknown-linux-gnu";
/// Where `scripts/setup-arm64-runtime.sh` unpacks the arm64 runtime.
const RUNTIME: &str = "/opt/offkit/arm64-libomp-19";
/// Debian's aarch64 C library (libc6-dev-arm64-cross), the guest's root for qemu.
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

#[track_caller]
fn ok(o: &Output, what: &str) {
    assert_eq!(o.code, Some(0), "{what}: {}", o.stderr_str());
}

/// Links `objs` (through offkit's shims when `shims` is given) into `out`.
fn link(dir: &Path, shims: Option<&Path>, objs: &[String], out: &str) {
    let mut a: Vec<String> = Vec::new();
    if let Some(s) = shims {
        a.extend(["-B".into(), s.display().to_string()]);
    }
    a.extend([
        format!("--target={HOST}"),
        "--offload-link".into(),
        "-fuse-ld=lld".into(),
        // The device link of a CPU image is a clang link too; GNU ld here is x86 only.
        format!("-Xoffload-linker-{DEVICE}"),
        "-fuse-ld=lld".into(),
    ]);
    a.extend(objs.iter().cloned());
    a.extend(["-L", "lib", "-lomp", "-lomptarget", "-o", out].map(String::from));
    ok(&run(llvm_tool("clang"), &a, dir), out);
}

/// Runs `exe` under qemu-aarch64 on the arm64 runtime; returns its stdout.
fn qemu(dir: &Path, exe: &str) -> String {
    let libs = [
        "usr/lib/llvm-19/lib",
        "usr/lib/aarch64-linux-gnu",
        "lib/aarch64-linux-gnu",
    ]
    .map(|d| format!("{RUNTIME}/{d}"))
    .join(":");
    let out = std::process::Command::new("qemu-aarch64")
        .args(["-L", SYSROOT, "-E", &format!("LD_LIBRARY_PATH={libs}"), exe])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run qemu-aarch64 (scripts/setup.sh installs it): {e}"));
    assert!(
        out.status.success(),
        "{exe} under qemu: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn aarch64_programs_run_their_target_regions_on_the_device() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shims = offkit_testutil::link::shims(&super::offkit(), &dir.join("shims"));
    let lib = dir.join("lib");
    std::fs::create_dir(&lib).unwrap();
    let rt = Path::new(RUNTIME).join("usr/lib/llvm-19/lib");
    assert!(
        rt.join("libomptarget.so.19.1").exists(),
        "{RUNTIME} is missing: run scripts/setup.sh"
    );
    std::os::unix::fs::symlink(rt.join("libomptarget.so.19.1"), lib.join("libomptarget.so"))
        .unwrap();
    std::os::unix::fs::symlink(rt.join("libomp.so.5"), lib.join("libomp.so")).unwrap();
    let programs: [&Program; 2] = [&tl::TARGET_REGION, &tl::DECLARE_TARGET];
    for p in programs {
        let objs: Vec<String> = p
            .sources
            .iter()
            .map(|(name, src)| {
                let target = format!("--target={HOST}");
                offkit_testutil::fixtures::compile_openmp(
                    dir,
                    name.trim_end_matches(".c"),
                    src,
                    &[DEVICE],
                    &[&target],
                )
                .display()
                .to_string()
            })
            .collect();
        let (theirs, ours) = (format!("{}-llvm", p.name), format!("{}-ours", p.name));
        link(dir, None, &objs, &theirs);
        link(dir, Some(&shims), &objs, &ours);
        assert_eq!(
            std::fs::read(dir.join(&ours)).unwrap(),
            std::fs::read(dir.join(&theirs)).unwrap(),
            "{}: offkit's aarch64 program is LLVM 19's, byte for byte",
            p.name
        );
        assert_eq!(qemu(dir, &ours), p.expected, "{}", p.name);
    }
}
