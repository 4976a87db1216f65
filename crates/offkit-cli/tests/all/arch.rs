//! `offkit arch` on recorded KFD topologies (offkit-rt's `tests/sysfs`, in the kernel's
//! `properties` format) and with a stand-in CUDA driver (`libcuda.so.1` built here with the
//! driver API's signatures), loaded through `LD_LIBRARY_PATH` as the real one would be.
use std::path::{Path, PathBuf};
use std::process::Command;

fn tree(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../offkit-rt/tests/sysfs")
        .join(name)
}

fn arch(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_offkit"));
    c.arg("arch").args(args).env_remove("HSA_XNACK");
    c.envs(env.iter().copied());
    let o = c.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn text_lists_gpus_by_node_then_the_host() {
    let root = tree("mixed");
    let (code, out, err) = arch(&["--sysfs-root", root.to_str().unwrap()], &[]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "gfx1100                  amdgcn-amd-amdhsa    kfd node 2",
            "gfx90a:sramecc-          amdgcn-amd-amdhsa    kfd node 3",
            "gfx942:sramecc+          amdgcn-amd-amdhsa    kfd node 10",
        ]
    );
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[3].starts_with("x86-64"), "{out}");
    assert!(lines[3].contains("x86_64-pc-linux-gnu  cpu"), "{out}");
}

#[test]
fn json_with_hsa_xnack_read_through_env() {
    let root = tree("mi210-xnack-off");
    let (code, out, _) = arch(
        &["--json", "--sysfs-root", root.to_str().unwrap()],
        &[("HSA_XNACK", "1")],
    );
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    let d = v["devices"].as_array().unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(d[0]["target_id"], "gfx90a:sramecc+:xnack+");
    assert_eq!(d[0]["features"]["sramecc"], true);
    assert_eq!(d[1]["target_id"], "gfx90a:sramecc-:xnack+");
    assert_eq!(d[1]["origin"], "kfd node 2");
    assert_eq!(d[2]["kind"], "host");
    // The host's extensions are the runtime's image-selection checks, and its level follows.
    let ext: Vec<&str> = d[2]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    let level = d[2]["processor"].as_str().unwrap();
    assert_eq!(ext.contains(&"avx512f"), level == "x86-64-v4", "{out}");
}

#[test]
fn malformed_topology_is_an_error_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("sys/class/kfd/kfd/topology/nodes/1");
    std::fs::create_dir_all(&node).unwrap();
    std::fs::write(node.join("properties"), "capability 0x10\n").unwrap();
    let (code, out, err) = arch(&["--sysfs-root", dir.path().to_str().unwrap()], &[]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(
        err.contains("`capability` is not a decimal number at offset 0x0")
            && err.contains("nodes/1/properties"),
        "{err}"
    );
}

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
"#;

/// A `libcuda.so.1` whose `cuInit` returns `init`, in its own directory.
fn fake_cuda(dir: &Path, init: i32) -> PathBuf {
    let d = dir.join(format!("cuda{init}"));
    std::fs::create_dir_all(&d).unwrap();
    let src = d.join("cuda.c");
    std::fs::write(&src, FAKE_CUDA).unwrap();
    let o = Command::new("clang-19")
        .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1"])
        .arg(format!("-DINIT={init}"))
        .arg(&src)
        .arg("-o")
        .arg(d.join("libcuda.so.1"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    d
}

#[test]
fn nvidia_gpus_come_from_the_driver_library_when_it_loads() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tree("cpu-only");
    let root = ["--sysfs-root", empty.to_str().unwrap()];
    let lib = fake_cuda(dir.path(), 0);
    let (code, out, err) = arch(&root, &[("LD_LIBRARY_PATH", lib.to_str().unwrap())]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "sm_86                    nvptx64-nvidia-cuda  cuda device 0",
            "sm_90                    nvptx64-nvidia-cuda  cuda device 1",
        ]
    );
    assert_eq!(lines.len(), 3);
    // CUDA_ERROR_NO_DEVICE: a driver without devices lists none.
    let lib = fake_cuda(dir.path(), 100);
    let (code, out, _) = arch(&root, &[("LD_LIBRARY_PATH", lib.to_str().unwrap())]);
    assert_eq!((code, out.lines().count()), (Some(0), 1), "{out}");
    // Another failure is reported with its code.
    let lib = fake_cuda(dir.path(), 999);
    let (code, _, err) = arch(&root, &[("LD_LIBRARY_PATH", lib.to_str().unwrap())]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("the CUDA driver's `cuInit` failed with error 999"),
        "{err}"
    );
    // No driver library (the case on these machines): only the host.
    let (code, out, _) = arch(&root, &[("LD_LIBRARY_PATH", "/nonexistent")]);
    assert_eq!((code, out.lines().count()), (Some(0), 1), "{out}");
}
