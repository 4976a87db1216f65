//! aarch64 and ppc64le hosts run-tested: OpenMP programs compiled by clang-19 for
//! `aarch64-linux-gnu` and `powerpc64le-linux-gnu`, offloading to their own triple, linked
//! through LLVM 19's linker wrapper and through offkit's drop-in (ld.lld for both the device and
//! the host link), are the same bytes, and run under Debian's qemu-user on Debian's LLVM 19
//! runtime for that architecture (libomp, libomptarget and its host plugin, unpacked by
//! `scripts/setup-foreign-runtimes.sh`) with their target regions on the offload device.
//! (aarch64 registration objects are offkit's own code; ppc64le ones are compiled by llc.)

use std::path::Path;

use offkit_testutil::link::{self as tl, Program};
use offkit_testutil::{llvm_tool, run, Output};

/// A foreign host: clang's target, the device triple, Debian's architecture, qemu.
struct Host {
    target: &'static str,
    device: &'static str,
    dpkg: &'static str,
    qemu: &'static str,
}

const HOSTS: [Host; 2] = [
    Host {
        target: "aarch64-linux-gnu",
        device: "aarch64-unknown-linux-gnu",
        dpkg: "arm64",
        qemu: "qemu-aarch64",
    },
    Host {
        target: "powerpc64le-linux-gnu",
        device: "powerpc64le-unknown-linux-gnu",
        dpkg: "ppc64el",
        qemu: "qemu-ppc64le",
    },
];

impl Host {
    /// Where `scripts/setup-foreign-runtimes.sh` unpacks the runtime.
    fn runtime(&self) -> String {
        format!("/opt/offkit/{}-libomp-19", self.dpkg)
    }
    /// Debian's cross C library (libc6-dev-<arch>-cross), the guest's root for qemu.
    fn sysroot(&self) -> String {
        format!("/usr/{}", self.target)
    }
}

#[track_caller]
fn ok(o: &Output, what: &str) {
    assert_eq!(o.code, Some(0), "{what}: {}", o.stderr_str());
}

/// Links `objs` for `h` (through offkit's shims when `shims` is given) into `out`.
fn link(dir: &Path, h: &Host, shims: Option<&Path>, objs: &[String], out: &str) {
    let mut a: Vec<String> = Vec::new();
    if let Some(s) = shims {
        a.extend(["-B".into(), s.display().to_string()]);
    }
    a.extend([
        format!("--target={}", h.target),
        "--offload-link".into(),
        "-fuse-ld=lld".into(),
        // The device link of a CPU image is a clang link too; GNU ld here is x86 only.
        format!("-Xoffload-linker-{}", h.device),
        "-fuse-ld=lld".into(),
    ]);
    a.extend(objs.iter().cloned());
    let lib = format!("lib-{}", h.dpkg);
    a.extend(["-L", &lib, "-lomp", "-lomptarget", "-o", out].map(String::from));
    ok(&run(llvm_tool("clang"), &a, dir), out);
}

/// Runs `exe` under qemu on `h`'s runtime; returns its stdout.
fn qemu(dir: &Path, h: &Host, exe: &str) -> String {
    let rt = h.runtime();
    let libs = [
        "usr/lib/llvm-19/lib".to_string(),
        format!("usr/lib/{}", h.target),
        format!("lib/{}", h.target),
    ]
    .map(|d| format!("{rt}/{d}"))
    .join(":");
    let out = std::process::Command::new(h.qemu)
        .args([
            "-L",
            &h.sysroot(),
            "-E",
            &format!("LD_LIBRARY_PATH={libs}"),
            exe,
        ])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} (scripts/setup.sh installs it): {e}", h.qemu));
    assert!(
        out.status.success(),
        "{exe} under {}: {}",
        h.qemu,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn foreign_hosts_run_their_target_regions_on_the_device() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shims = offkit_testutil::link::shims(&super::offkit(), &dir.join("shims"));
    for h in &HOSTS {
        let lib = dir.join(format!("lib-{}", h.dpkg));
        std::fs::create_dir(&lib).unwrap();
        let rt = Path::new(&h.runtime()).join("usr/lib/llvm-19/lib");
        assert!(
            rt.join("libomptarget.so.19.1").exists(),
            "{} is missing: run scripts/setup.sh",
            h.runtime()
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
                    let target = format!("--target={}", h.target);
                    offkit_testutil::fixtures::compile_openmp(
                        dir,
                        &format!("{}-{}", h.dpkg, name.trim_end_matches(".c")),
                        src,
                        &[h.device],
                        &[&target],
                    )
                    .display()
                    .to_string()
                })
                .collect();
            let theirs = format!("{}-{}-llvm", h.dpkg, p.name);
            let ours = format!("{}-{}-ours", h.dpkg, p.name);
            link(dir, h, None, &objs, &theirs);
            link(dir, h, Some(&shims), &objs, &ours);
            assert_eq!(
                std::fs::read(dir.join(&ours)).unwrap(),
                std::fs::read(dir.join(&theirs)).unwrap(),
                "{} {}: offkit's program is LLVM 19's, byte for byte",
                h.target,
                p.name
            );
            assert_eq!(qemu(dir, h, &ours), p.expected, "{} {}", h.target, p.name);
        }
    }
}
