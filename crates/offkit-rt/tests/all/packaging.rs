//! The library is the one a program loads, under LLVM 19's SONAME, with its exports.
use std::process::Command;

use offkit_testutil::llvm_lib;

use crate::harness::{clang, rt_dir, run, work_dir, Runtime};

fn readelf(args: &[&str], file: &std::path::Path) -> String {
    let o = Command::new("readelf")
        .args(args)
        .arg(file)
        .output()
        .expect("readelf runs");
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `name@@VERS1.0` of every defined dynamic symbol.
fn versioned_exports(file: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = readelf(&["--dyn-syms", "-W"], file)
        .lines()
        .filter(|l| !l.contains(" UND "))
        .filter_map(|l| l.split_whitespace().nth(7))
        .filter(|n| n.ends_with("@@VERS1.0"))
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

#[test]
fn soname_version_node_and_exports_match_llvm_19() {
    let ours = rt_dir().join("libomptarget.so.19.1");
    let llvm = llvm_lib().join("libomptarget.so.19.1");
    assert!(readelf(&["-d", "-W"], &ours).contains("Library soname: [libomptarget.so.19.1]"));
    assert!(readelf(&["-V", "-W"], &ours).contains("Name: VERS1.0"));
    let mut ours = versioned_exports(&ours);
    // offkit also exports AMD's image-info registration (`__tgt_register_image_info`).
    ours.retain(|s| s != "__tgt_register_image_info@@VERS1.0");
    assert_eq!(versioned_exports(&llvm), ours);
}

#[test]
fn programs_load_offkits_library_without_warnings() {
    let d = work_dir("loading");
    let exe = clang(&d, "basic", &["basic.c"], &[]);
    let o = run(Runtime::Offkit, &exe, &[], &[("LD_DEBUG", "libs")]);
    let err = String::from_utf8_lossy(&o.stderr);
    let ours = rt_dir().join("libomptarget.so.19.1");
    assert!(
        err.contains(&format!("calling init: {}", ours.display())),
        "{err}"
    );
    assert!(
        !err.contains(&format!(
            "calling init: {}",
            llvm_lib().join("libomptarget").display()
        )),
        "{err}"
    );
    assert!(!err.contains("no version information"), "{err}");
    let ldd = Command::new("ldd")
        .arg(&exe)
        .env(
            "LD_LIBRARY_PATH",
            format!("{}:{}", rt_dir().display(), llvm_lib().display()),
        )
        .output()
        .expect("ldd runs");
    let ldd = String::from_utf8_lossy(&ldd.stdout);
    assert!(
        ldd.contains(&format!("libomptarget.so.19.1 => {}", ours.display())),
        "{ldd}"
    );
}

#[test]
fn images_are_loaded_from_memory_not_from_tmp() {
    let d = work_dir("image_path");
    let exe = clang(&d, "image_path", &["image_path.c"], &[]);
    let out = |rt| {
        let o = run(rt, &exe, &[], &[]);
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let llvm = out(Runtime::Llvm);
    assert!(llvm.starts_with("on_dev 1 image /tmp/tmpfile_"), "{llvm}");
    let ours = out(Runtime::Offkit);
    assert!(
        ours.starts_with("on_dev 1 image /memfd:omptarget-image"),
        "{ours}"
    );
}
