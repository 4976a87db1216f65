//! The behaviour of whole programs on both runtimes.
use crate::harness::{aborted, clang, ran_on_device, run, same, same_merged, work_dir, Runtime};

#[test]
fn kernels_globals_private_and_device_numbers() {
    let d = work_dir("basic");
    let exe = clang(&d, "basic", &["basic.c"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    assert!(
        o.stdout.contains("devices 4 initial 4 default 0"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("g present before first use: 0"),
        "{}",
        o.stdout
    );
    // OMP_DEFAULT_DEVICE picks the device of `device`-less regions.
    let o = same(&exe, &[], &[("OMP_DEFAULT_DEVICE", "2")]);
    assert!(o.stdout.contains("default 2"), "{}", o.stdout);
    // Disabled offloading: every region runs on the host, no device is used.
    let o = same(&exe, &[], &[("OMP_TARGET_OFFLOAD", "disabled")]);
    assert!(o.stdout.contains("on_dev 0"), "{}", o.stdout);
    same(&exe, &[], &[("OMP_TARGET_OFFLOAD", "mandatory")]);
}

#[test]
fn data_regions_reference_counts_and_memory_routines() {
    let d = work_dir("data");
    let exe = clang(&d, "data", &["data.c"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    assert!(
        o.stdout.contains("after last exit: x[1]=101 present 0"),
        "{}",
        o.stdout
    );
}

#[test]
fn pointers_members_mappers_and_link_variables() {
    let d = work_dir("ptr");
    let exe = clang(&d, "ptr", &["ptr.c"], &[]);
    ran_on_device(&same(&exe, &[], &[]));
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn cxx_lambdas_templates_and_device_constructors() {
    let d = work_dir("lambda");
    let exe = clang(&d, "lambda", &["lambda.cpp"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    // Device constructors run at the device's first use, destructors after the host's.
    let start = o.stdout.find("main start").unwrap();
    let ctor = o.stdout.find("ctor 1 on device").unwrap();
    assert!(start < ctor, "{}", o.stdout);
    assert!(
        o.stdout.ends_with("dtor 1 on device\ndtor 1 on device\n"),
        "{}",
        o.stdout
    );
    let classes = clang(&d, "classes", &["classes.cpp"], &[]);
    ran_on_device(&same(&classes, &[], &[]));
    same_merged(&classes, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn hold_zero_length_2d_update_pointer_chains_nested_mappers() {
    let d = work_dir("more");
    let exe = clang(&d, "more", &["more.c"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    assert!(o.stdout.contains("hold survives delete: 1"), "{}", o.stdout);
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn indirect_function_pointers() {
    let d = work_dir("indirect");
    let exe = clang(&d, "indirect", &["indirect.c"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    assert_eq!(o.stdout, "r 21 on_dev 1\n");
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn requires_clauses_of_several_translation_units() {
    let d = work_dir("requires");
    let exe = clang(&d, "requires", &["requires_a.c", "requires_b.c"], &[]);
    let o = same(&exe, &[], &[]);
    assert_eq!(o.stdout, "1 2\n");
}

#[test]
fn several_translation_units() {
    let d = work_dir("multi");
    let exe = clang(&d, "multi", &["multi_a.c", "multi_b.c"], &[]);
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    assert!(o.stdout.contains("b: 511\nb: 612\n"), "{}", o.stdout);
}

#[test]
fn shared_library_with_its_own_target_regions() {
    let d = work_dir("shared");
    clang(&d, "libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
    let exe = clang(
        &d,
        "main",
        &["lib_main.c"],
        &["-L.", "-lk", "-Wl,-rpath,$ORIGIN"],
    );
    let o = same(&exe, &[], &[]);
    ran_on_device(&o);
    assert!(
        o.stdout
            .contains("library sees the executable's mapping: 1"),
        "{}",
        o.stdout
    );
    // Every INFO line but the exit-time table dump (bit 4, see docs/runtime.md).
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "59")]);
    // The same library opened with dlopen after main started, then closed.
    let late = clang(&d, "dlopen_main", &["dlopen_main.c"], &["-ldl"]);
    let o = same(&late, &[], &[]);
    ran_on_device(&o);
    assert!(
        o.stdout.contains("library loaded late: on_dev 1"),
        "{}",
        o.stdout
    );
    same_merged(&late, &[], &[("LIBOMPTARGET_INFO", "59")]);
}

#[test]
fn nowait_regions_under_threads() {
    let d = work_dir("nowait");
    let exe = clang(&d, "nowait", &["nowait.c"], &[]);
    for _ in 0..3 {
        let o = same(&exe, &[], &[]);
        assert!(o.stdout.contains("all threads ok: 1"), "{}", o.stdout);
        assert!(o.stdout.contains("x[100]=200 present 0"), "{}", o.stdout);
    }
}

#[test]
fn failures_abort_as_llvm_19_does() {
    let d = work_dir("errors");
    let plain = clang(&d, "errors", &["errors.c"], &[]);
    let g = clang(&d, "errors_g", &["errors.c"], &["-g"]);
    let mandatory =
        "omptarget fatal error 1: failure of target construct while offloading is mandatory";
    for exe in [&plain, &g] {
        for case in ["present", "extension", "update", "enter", "exit"] {
            aborted(&same(exe, &[case], &[]), mandatory);
        }
        aborted(
            &same(exe, &["device"], &[]),
            "omptarget fatal error 9: Device number '9' out of range, only 4 devices available",
        );
        aborted(
            &same(exe, &["data-device"], &[]),
            "fatal error 7: Device number '7'",
        );
        aborted(
            &same(exe, &["alloc-device"], &[]),
            "fatal error 12: Device number '12'",
        );
        let o = same(exe, &["mapped-null"], &[]);
        assert!(o
            .stderr
            .contains("omptarget error: Call to omp_get_mapped_ptr with nullptr."));
        ran_on_device(&same(exe, &["none"], &[]));
    }
    let o = same(&g, &["present"], &[]);
    assert!(
        o.stderr.contains("errors.c:12:1: omptarget fatal error 1"),
        "{}",
        o.stderr
    );
    let o = same(&plain, &["present"], &[]);
    assert!(
        o.stderr.contains("Source location information not present"),
        "{}",
        o.stderr
    );
    // Disabled offloading never fails: the host fallback runs.
    let o = same(&plain, &["present"], &[("OMP_TARGET_OFFLOAD", "disabled")]);
    assert_eq!(o.status, Some(3));
    aborted(
        &same(&plain, &["none"], &[("OMP_DEFAULT_DEVICE", "9")]),
        "Device number '9' out of range",
    );
}

#[test]
fn libomptarget_info_lines() {
    let d = work_dir("info");
    let exe = clang(&d, "info", &["info.c"], &["-g"]);
    for level in ["-1", "1", "2", "4", "8", "16", "32", "0x10"] {
        let o = same(&exe, &[], &[("LIBOMPTARGET_INFO", level)]);
        ran_on_device(&o);
    }
    let o = same(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    assert!(o
        .stderr
        .contains("\"PluginInterface\" device 0 info: Launching kernel __omp_offloading_"));
    assert!(o.stderr.contains(
        "omptarget device 0 info: Entering OpenMP kernel at info.c:7:1 with 2 arguments:"
    ));
}

/// A program carrying three x86-64 images (baseline, `x86-64-v3`, `x86-64-v4`): offkit runs the
/// most specific one this CPU supports (LLVM 19 runs the last one registered, which may need
/// instructions this CPU lacks).
#[test]
fn most_specific_image_for_this_cpu() {
    use std::process::Command;
    let d = work_dir("levels");
    let march = |level: &str, out: &str| {
        crate::harness::clang(
            &d,
            out,
            &["levels.c"],
            &[
                "-c",
                "-Xopenmp-target=x86_64-pc-linux-gnu",
                &format!("-march={level}"),
            ],
        )
    };
    march("x86-64", "base.o");
    let mut extra = Vec::new();
    for level in ["x86-64-v3", "x86-64-v4"] {
        let obj = march(level, &format!("{level}.o"));
        let bin = d.join(format!("{level}.bin"));
        let ok = Command::new(offkit_testutil::llvm_tool("llvm-objcopy"))
            .arg(format!("--dump-section=.llvm.offloading={}", bin.display()))
            .arg(&obj)
            .status()
            .expect("llvm-objcopy runs");
        assert!(ok.success());
        // An object that only carries the image, as the linker wrapper expects it.
        let asm = d.join(format!("{level}.s"));
        std::fs::write(
            &asm,
            format!(
                ".section .llvm.offloading,\"e\",@llvm_offloading\n.balign 8\n.incbin \"{}\"\n\
                 .section .note.GNU-stack,\"\",@progbits\n",
                bin.display()
            ),
        )
        .unwrap();
        let o = d.join(format!("{level}-image.o"));
        let ok = Command::new(offkit_testutil::clang())
            .arg("-c")
            .arg(&asm)
            .arg("-o")
            .arg(&o)
            .status()
            .unwrap();
        assert!(ok.success());
        extra.push(o);
    }
    let exe = d.join("levels");
    let ok = Command::new(offkit_testutil::clang())
        .args(["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"])
        .arg(d.join("base.o"))
        .args(&extra)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(ok.success());

    let v3 = std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("movbe");
    let v4 = v3
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl");
    let want = if v4 {
        512
    } else if v3 {
        2
    } else {
        0
    };
    let o = run(Runtime::Offkit, &exe, &[], &[("LIBOMPTARGET_INFO", "1")]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(out, format!("image level {want} on_dev 1\n"), "{err}");
    assert!(
        err.contains("omptarget device 0 info: Selected image "),
        "{err}"
    );
    assert!(
        err.contains("of 3: the most specific one this CPU runs"),
        "{err}"
    );
}
