//! Test support for the `offload-arch`, `amdgpu-arch` and `nvptx-arch` faces: machines with
//! GPUs made up for LLVM's tools and offkit's alike, with no GPU needed.
//!
//! * **AMD**: a KFD topology (offkit-rt's recorded `tests/sysfs` trees) laid out as the kernel
//!   has it (`/sys/devices/virtual/kfd/kfd/topology/nodes`, which LLVM 22 reads, and the
//!   `/sys/class/kfd/kfd` link to it, which offkit reads), bind-mounted on the Debian 13 root's
//!   `/sys` in a mount namespace of the command's own (`unshare --mount`), so no other test
//!   sees it.
//! * **NVIDIA**: a stand-in `libcuda.so.1` with the driver API's signatures, found through
//!   `LD_LIBRARY_PATH` as the real one would be.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::llvm22::{self, Side, LLVM22_BIN};
use crate::run::Output;

/// A stand-in CUDA driver: two devices (compute capability 8.6 and 9.0), `cuInit` returning
/// `INIT`, and (with `ERRSTR`) `cuGetErrorString`.
const FAKE_CUDA: &str = r#"
int cuInit(unsigned flags) { return flags == 0 ? INIT : 1; }
int cuDeviceGetCount(int *n) { *n = 2; return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = 10 + ordinal; return 0; }
int cuDeviceGetAttribute(int *v, int attr, int dev) {
  if (attr == 75) *v = dev == 10 ? 8 : 9;       /* COMPUTE_CAPABILITY_MAJOR */
  else if (attr == 76) *v = dev == 10 ? 6 : 0;  /* COMPUTE_CAPABILITY_MINOR */
  else return 1;
  return 0;
}
#if ERRSTR
int cuGetErrorString(int e, const char **s) {
  if (e == 998) return 1;
  *s = "a stand-in driver's error";
  return 0;
}
#endif
"#;

/// Builds (with LLVM 19's clang) a stand-in `libcuda.so.1` whose `cuInit` returns `init`, with
/// or without `cuGetErrorString`, in a directory of its own under `dir`; returns the directory.
#[track_caller]
pub fn fake_cuda(dir: &Path, init: i32, error_string: bool) -> PathBuf {
    let d = dir.join(format!("cuda{init}-{}", u8::from(error_string)));
    std::fs::create_dir_all(&d).expect("mkdir");
    let src = d.join("cuda.c");
    std::fs::write(&src, FAKE_CUDA).expect("write source");
    let o = Command::new(crate::clang())
        .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1"])
        .arg(format!("-DINIT={init}"))
        .arg(format!("-DERRSTR={}", u8::from(error_string)))
        .arg(&src)
        .arg("-o")
        .arg(d.join("libcuda.so.1"))
        .output()
        .expect("run clang");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    d
}

/// Lays out the nodes of a recorded KFD topology (`fixture/sys/class/kfd/kfd/topology/nodes`)
/// in `dir` as a sysfs tree: the nodes under `devices/virtual/kfd/kfd`, and `class/kfd/kfd` a
/// link to them. Returns `dir`, to be mounted on `/sys`.
#[track_caller]
pub fn kfd_sysfs(fixture: &Path, dir: &Path) -> PathBuf {
    let from = fixture.join("sys/class/kfd/kfd/topology/nodes");
    let to = dir.join("devices/virtual/kfd/kfd/topology/nodes");
    std::fs::create_dir_all(&to).expect("mkdir");
    for e in std::fs::read_dir(&from).expect("read fixture") {
        let e = e.expect("dir entry");
        let node = to.join(e.file_name());
        std::fs::create_dir_all(&node).expect("mkdir");
        std::fs::copy(e.path().join("properties"), node.join("properties")).expect("copy");
    }
    std::fs::create_dir_all(dir.join("class/kfd")).expect("mkdir");
    std::os::unix::fs::symlink("../../devices/virtual/kfd/kfd", dir.join("class/kfd/kfd"))
        .expect("link");
    dir.to_path_buf()
}

/// Runs `program args…` of `side` inside the root in `cwd` (inner), as
/// [`llvm22::Run`] does, with `sys` (a host directory) mounted on the root's `/sys` for this
/// command alone, and `env` set. offkit's side needs [`llvm22::offkit_shims`] made first.
#[track_caller]
pub fn run_with_sys(
    side: Side,
    program: &str,
    args: &[&str],
    cwd: &Path,
    sys: Option<&Path>,
    env: &[(&str, &str)],
) -> Output {
    let root = llvm22::root();
    let path = match side {
        Side::Llvm => format!("{LLVM22_BIN}:/usr/bin:/bin"),
        Side::Offkit => format!(
            "{}:{LLVM22_BIN}:/usr/bin:/bin",
            llvm22::offkit_shims(Path::new("/nonexistent")).display()
        ),
    };
    let mut cmd = Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "sh", "-c"]);
    cmd.arg(
        "if [ -n \"$1\" ]; then mount --bind \"$1\" \"$2/sys\" || exit 125; fi; \
         shift 2; exec \"$@\"",
    );
    cmd.arg("sh")
        .arg(sys.map(Path::as_os_str).unwrap_or_default())
        .arg(root)
        .arg("chroot")
        .arg(root)
        .args(["/usr/bin/env", "-i"])
        .arg(format!("PATH={path}"))
        .args(["HOME=/root", "LANG=C"]);
    for (k, v) in env {
        cmd.arg(format!("{k}={v}"));
    }
    cmd.args(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\""])
        .arg(cwd)
        .arg(program)
        .args(args)
        .stdin(Stdio::null());
    let out = cmd.output().expect("run unshare");
    assert_ne!(
        out.status.code(),
        Some(125),
        "cannot mount a sysfs tree on the root's /sys: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Output {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}
