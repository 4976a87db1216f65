//! Every runtime test for clang-22: the same programs built by clang-22 in the Debian 13 root and
//! run there on offkit's `libomptarget.so.22.1` end as their clang-19 builds do on LLVM 19's
//! runtime — the same exit status or signal and the same stdout, but for the lines where LLVM
//! 22's sources say LLVM 22 behaves differently (`harness22::STDOUT_DIFFERENCES`). Error cases
//! abort with LLVM 22's wording, taken from its sources.
use std::process::Command;

use crate::harness::{ran_on_device, Outcome};
use crate::harness22::{build19, llvm19, run19, same_as_19, Root22};

/// Builds `sources` both ways and compares one run of each.
#[track_caller]
fn both(name: &str, sources: &[&str], args: &[&str], env: &[(&str, &str)]) -> (Root22, Outcome) {
    let r = Root22::new();
    let exe = r.clang(name, sources, &[]);
    let ours = r.run(&exe, args, env);
    same_as_19(name, &llvm19(name, sources, &[], args, env), &ours);
    (r, ours)
}

#[test]
fn kernels_globals_private_and_device_numbers() {
    let (r, o) = both("basic", &["basic.c"], &[], &[]);
    ran_on_device(&o);
    let exe = "./basic";
    let exe19 = build19("basic", &["basic.c"], &[]);
    for env in [[("OMP_DEFAULT_DEVICE", "2")], [("LIBOMPTARGET_INFO", "-1")]] {
        let ours = r.run(exe, &[], &env);
        same_as_19("basic", &run19(&exe19, &[], &env), &ours);
    }
    let ours = r.run(exe, &[], &[("OMP_TARGET_OFFLOAD", "mandatory")]);
    ran_on_device(&ours);
    // LLVM 22 loads no plugin when offloading is disabled: no devices, the initial device is
    // 0, and asking whether g is present on device 1 is fatal (LLVM 19 keeps its 4 devices).
    let ours = r.run(exe, &[], &[("OMP_TARGET_OFFLOAD", "disabled")]);
    assert_eq!(ours.signal, Some(6), "{ours:?}");
    assert!(
        ours.stderr.contains(
            "omptarget fatal error 1: invalid value device number '1' out of range, only 0 \
             devices available"
        ),
        "{}",
        ours.stderr
    );
}

#[test]
fn data_regions_reference_counts_and_memory_routines() {
    let (r, o) = both("data", &["data.c"], &[], &[]);
    ran_on_device(&o);
    let env = [("LIBOMPTARGET_INFO", "-1")];
    same_as_19(
        "data",
        &llvm19("data", &["data.c"], &[], &[], &env),
        &r.run("./data", &[], &env),
    );
}

#[test]
fn pointers_members_mappers_and_link_variables() {
    let (_, o) = both("ptr", &["ptr.c"], &[], &[]);
    ran_on_device(&o);
}

#[test]
fn cxx_lambdas_templates_and_device_constructors() {
    let (_, o) = both("lambda", &["lambda.cpp"], &[], &[]);
    ran_on_device(&o);
    // Device constructors run at the device's first use, destructors after the host's.
    let start = o.stdout.find("main start").unwrap();
    let ctor = o.stdout.find("ctor 1 on device").unwrap();
    assert!(start < ctor, "{}", o.stdout);
    assert!(
        o.stdout.ends_with("dtor 1 on device\ndtor 1 on device\n"),
        "{}",
        o.stdout
    );
    ran_on_device(&both("classes", &["classes.cpp"], &[], &[]).1);
}

#[test]
fn hold_zero_length_2d_update_pointer_chains_nested_mappers() {
    let (_, o) = both("more", &["more.c"], &[], &[]);
    ran_on_device(&o);
    assert!(o.stdout.contains("hold survives delete: 1"), "{}", o.stdout);
}

#[test]
fn indirect_function_pointers() {
    let (_, o) = both("indirect", &["indirect.c"], &[], &[]);
    assert_eq!(o.stdout, "r 21 on_dev 1\n");
}

#[test]
fn requires_clauses_of_several_translation_units() {
    let (_, o) = both("requires", &["requires_a.c", "requires_b.c"], &[], &[]);
    assert_eq!(o.stdout, "1 2\n");
}

#[test]
fn several_translation_units() {
    let (_, o) = both("multi", &["multi_a.c", "multi_b.c"], &[], &[]);
    ran_on_device(&o);
    assert!(o.stdout.contains("b: 511\nb: 612\n"), "{}", o.stdout);
}

#[test]
fn unified_shared_memory() {
    let (_, o) = both("usm", &["usm.c"], &[], &[]);
    ran_on_device(&o);
}

#[test]
fn shared_library_with_its_own_target_regions() {
    let r = Root22::new();
    r.clang("libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
    let main = r.clang(
        "main",
        &["lib_main.c"],
        &["-L.", "-lk", "-Wl,-rpath,$ORIGIN"],
    );
    let shared = |extra: &[&str], sources: &[&str], name: &str| {
        let d = crate::harness::work_dir(&format!("llvm22-shared-{name}"));
        crate::harness::clang(&d, "libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
        let exe = crate::harness::clang(&d, name, sources, extra);
        crate::harness::outcome(&crate::harness::run(
            crate::harness::Runtime::Llvm,
            &exe,
            &[],
            &[],
        ))
    };
    let ours = r.run(&main, &[], &[]);
    let want = shared(
        &["-L.", "-lk", "-Wl,-rpath,$ORIGIN"],
        &["lib_main.c"],
        "main",
    );
    same_as_19("lib_main", &want, &ours);
    ran_on_device(&ours);
    assert!(
        ours.stdout
            .contains("library sees the executable's mapping: 1"),
        "{}",
        ours.stdout
    );
    // The same library opened with dlopen after main started, then closed.
    let late = r.clang("dlopen_main", &["dlopen_main.c"], &["-ldl"]);
    let ours = r.run(&late, &[], &[]);
    same_as_19(
        "dlopen_main",
        &shared(&["-ldl"], &["dlopen_main.c"], "dlopen_main"),
        &ours,
    );
    assert!(
        ours.stdout.contains("library loaded late: on_dev 1"),
        "{}",
        ours.stdout
    );
}

#[test]
fn nowait_regions_under_threads() {
    let r = Root22::new();
    let exe = r.clang("nowait", &["nowait.c"], &[]);
    let want = llvm19("nowait", &["nowait.c"], &[], &[], &[]);
    for _ in 0..3 {
        let o = r.run(&exe, &[], &[]);
        same_as_19("nowait", &want, &o);
        assert!(o.stdout.contains("all threads ok: 1"), "{}", o.stdout);
    }
}

#[test]
fn failures_abort_with_llvm_22s_messages() {
    let r = Root22::new();
    let plain = r.clang("errors", &["errors.c"], &[]);
    let g = r.clang("errors_g", &["errors.c"], &["-g"]);
    let mandatory =
        "omptarget fatal error 1: failure of target construct while offloading is mandatory";
    let out_of_range = |n: u32| {
        format!(
            "omptarget fatal error {n}: invalid value device number '{n}' out of range, only 4 \
             devices available"
        )
    };
    for (exe, extra) in [(&plain, &[][..]), (&g, &["-g"][..])] {
        let exe19 = build19(exe.trim_start_matches("./"), &["errors.c"], extra);
        for (case, fatal) in [
            ("present", mandatory.to_owned()),
            ("extension", mandatory.to_owned()),
            ("update", mandatory.to_owned()),
            ("enter", mandatory.to_owned()),
            ("exit", mandatory.to_owned()),
            ("device", out_of_range(9)),
            ("data-device", out_of_range(7)),
            ("alloc-device", out_of_range(12)),
        ] {
            let ours = r.run(exe, &[case], &[]);
            let want = run19(&exe19, &[case], &[]);
            same_as_19("errors", &want, &ours);
            assert_eq!(ours.signal, Some(6), "{case}: {ours:?}");
            assert!(ours.stderr.contains(&fatal), "{case}: {}", ours.stderr);
            // Every line LLVM 19 printed before its fatal error, LLVM 22 prints too.
            let before = |s: &str| {
                s.lines()
                    .take_while(|l| !l.contains("fatal error"))
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            };
            assert_eq!(before(&want.stderr), before(&ours.stderr), "{case}");
        }
        let ours = r.run(exe, &["mapped-null"], &[]);
        same_as_19("errors", &run19(&exe19, &["mapped-null"], &[]), &ours);
        assert!(ours
            .stderr
            .contains("omptarget error: Call to omp_get_mapped_ptr with nullptr."));
        ran_on_device(&r.run(exe, &["none"], &[]));
    }
    let o = r.run(&g, &["present"], &[]);
    assert!(
        o.stderr.contains("errors.c:12:1: omptarget fatal error 1"),
        "{}",
        o.stderr
    );
    let o = r.run(&plain, &["present"], &[]);
    assert!(
        o.stderr.contains("Source location information not present"),
        "{}",
        o.stderr
    );
    // Disabled offloading never fails: the host fallback runs.
    let o = r.run(&plain, &["present"], &[("OMP_TARGET_OFFLOAD", "disabled")]);
    assert_eq!(o.status, Some(3), "{o:?}");
    let o = r.run(&plain, &["none"], &[("OMP_DEFAULT_DEVICE", "9")]);
    assert_eq!(o.signal, Some(6), "{o:?}");
    assert!(o.stderr.contains(&out_of_range(9)), "{}", o.stderr);
}

#[test]
fn libomptarget_info_lines() {
    let r = Root22::new();
    let exe = r.clang("info", &["info.c"], &["-g"]);
    let exe19 = build19("info", &["info.c"], &["-g"]);
    for level in ["-1", "1", "2", "4", "8", "16", "32", "0x10"] {
        let env = [("LIBOMPTARGET_INFO", level)];
        same_as_19("info", &run19(&exe19, &[], &env), &r.run(&exe, &[], &env));
    }
    let o = r.run(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    // LLVM 22's plugin prints three-dimensional grids.
    assert!(
        o.stderr
            .contains("\"PluginInterface\" device 0 info: Launching kernel __omp_offloading_"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("with [1,1,1] blocks and [1,1,1] threads in Generic mode"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains(
        "omptarget device 0 info: Entering OpenMP kernel at info.c:7:1 with 2 arguments:"
    ));
}

/// clang-19 builds on the 22 library (which reads their 32-byte entries, as LLVM 22 does) show the
/// differences LLVM 22's runtime makes by itself, and only those: the others come from
/// clang-22's code.
#[test]
fn clang_19_builds_on_the_22_runtime_differ_by_the_runtime_rules_alone() {
    use crate::harness::{outcome, work_dir};
    use crate::harness22::{expected_stdout, Cause};
    // The 22 library under the name clang-19 programs ask for; it still says LLVM 22 (its
    // SONAME).
    let dir = work_dir("llvm22-as-19");
    std::fs::copy(crate::harness22::lib22(), dir.join("libomptarget.so.19.1")).unwrap();
    for (name, source) in [
        ("basic", "basic.c"),
        ("data", "data.c"),
        ("ptr", "ptr.c"),
        ("more", "more.c"),
        ("zero_length", "zero_length.c"),
    ] {
        let exe = build19(&format!("as19-{name}"), &[source], &[]);
        let want = run19(&exe, &[], &[]);
        let o = Command::new(&exe)
            .current_dir(exe.parent().unwrap())
            .env(
                "LD_LIBRARY_PATH",
                format!(
                    "{}:{}",
                    dir.display(),
                    offkit_testutil::llvm_lib().display()
                ),
            )
            .env_remove("OMP_TARGET_OFFLOAD")
            .env_remove("LIBOMPTARGET_INFO")
            .output()
            .unwrap();
        let ours = outcome(&o);
        assert_eq!(ours.status, Some(0), "{name}: {ours:?}");
        assert_eq!(
            expected_stdout(name, &want.stdout, &[Cause::Runtime]),
            ours.stdout,
            "{name}"
        );
    }
}

#[test]
fn soname_version_node_and_llvm_22s_exports() {
    let lib = crate::harness22::lib22();
    let readelf = |args: &[&str]| {
        let o = Command::new("readelf")
            .args(args)
            .arg(lib)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert!(readelf(&["-d", "-W"]).contains("Library soname: [libomptarget.so.22.1]"));
    let mut ours: Vec<String> = readelf(&["--dyn-syms", "-W"])
        .lines()
        .filter(|l| !l.contains(" UND "))
        .filter_map(|l| l.split_whitespace().nth(7))
        .filter_map(|n| n.strip_suffix("@@VERS1.0"))
        .filter(|n| *n != "__tgt_register_image_info")
        .map(str::to_owned)
        .collect();
    ours.sort();
    let mut llvm: Vec<String> = LLVM_22_EXPORTS.iter().map(|s| s.to_string()).collect();
    llvm.sort();
    assert_eq!(llvm, ours);
}

/// LLVM 22.1.8's `offload/libomptarget/exports` (its `VERS1.0` list).
const LLVM_22_EXPORTS: &[&str] = &[
    "__tgt_rtl_init",
    "__tgt_rtl_deinit",
    "__tgt_register_requires",
    "__tgt_register_lib",
    "__tgt_unregister_lib",
    "__tgt_init_all_rtls",
    "__tgt_target_data_begin",
    "__tgt_target_data_end",
    "__tgt_target_data_update",
    "__tgt_target",
    "__tgt_target_teams",
    "__tgt_target_data_begin_nowait",
    "__tgt_target_data_end_nowait",
    "__tgt_target_data_update_nowait",
    "__tgt_target_nowait",
    "__tgt_target_teams_nowait",
    "__tgt_target_data_begin_mapper",
    "__tgt_target_data_end_mapper",
    "__tgt_target_data_update_mapper",
    "__tgt_target_mapper",
    "__tgt_target_teams_mapper",
    "__tgt_target_data_begin_nowait_mapper",
    "__tgt_target_data_end_nowait_mapper",
    "__tgt_target_data_update_nowait_mapper",
    "__tgt_target_nowait_mapper",
    "__tgt_target_teams_nowait_mapper",
    "__tgt_target_kernel",
    "__tgt_target_kernel_nowait",
    "__tgt_target_nowait_query",
    "__tgt_target_kernel_replay",
    "__tgt_activate_record_replay",
    "__tgt_mapper_num_components",
    "__tgt_push_mapper_component",
    "__kmpc_push_target_tripcount",
    "__kmpc_push_target_tripcount_mapper",
    "ompx_dump_mapping_tables",
    "ompx_interop_add_completion_callback",
    "omp_get_mapped_ptr",
    "omp_get_num_devices",
    "omp_get_device_num",
    "omp_get_device_from_uid",
    "omp_get_uid_from_device",
    "omp_get_initial_device",
    "omp_target_alloc",
    "omp_target_free",
    "omp_target_is_accessible",
    "omp_target_is_present",
    "omp_target_memcpy",
    "omp_target_memcpy_rect",
    "omp_target_memcpy_async",
    "omp_target_memcpy_rect_async",
    "omp_target_memset",
    "omp_target_memset_async",
    "omp_target_associate_ptr",
    "omp_target_disassociate_ptr",
    "llvm_omp_target_alloc_host",
    "llvm_omp_target_alloc_shared",
    "llvm_omp_target_alloc_device",
    "llvm_omp_target_free_host",
    "llvm_omp_target_free_shared",
    "llvm_omp_target_free_device",
    "llvm_omp_target_dynamic_shared_alloc",
    "llvm_omp_target_lock_mem",
    "llvm_omp_target_unlock_mem",
    "__tgt_set_info_flag",
    "__tgt_print_device_info",
    "omp_get_interop_ptr",
    "omp_get_interop_str",
    "omp_get_interop_int",
    "omp_get_interop_name",
    "omp_get_interop_type_desc",
    "__tgt_interop_init",
    "__tgt_interop_use",
    "__tgt_interop_destroy",
    "__tgt_interop_get",
    "__tgt_interop_use60",
    "__tgt_interop_release",
    "__tgt_target_sync",
    "__llvmPushCallConfiguration",
    "__llvmPopCallConfiguration",
    "llvmLaunchKernel",
];

#[test]
fn clang_22_programs_load_offkits_22_library_without_warnings() {
    let r = Root22::new();
    let exe = r.clang("basic", &["basic.c"], &[]);
    // clang-22 records the SONAME: `-lomptarget` found lib/libomptarget.so.
    let readelf = Command::new("readelf")
        .args(["-d", "-W"])
        .arg(r.dir.join("basic"))
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&readelf.stdout);
    assert!(
        dynamic.contains("Shared library: [libomptarget.so.22.1]"),
        "{dynamic}"
    );
    let o = r.run(&exe, &[], &[("LD_DEBUG", "libs")]);
    let inner = format!("{}/libomptarget.so.22.1", r.lib_inner());
    assert!(
        o.stderr.contains(&format!("calling init: {inner}")),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("no version information"), "{}", o.stderr);
}

#[test]
fn images_are_loaded_from_memory_not_from_tmp() {
    let r = Root22::new();
    let exe = r.clang("image_path", &["image_path.c"], &[]);
    let o = r.run(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    // LLVM 19's and 22's host plugins write /tmp/tmpfile_XXXXXX and never remove it.
    assert!(
        o.stdout
            .starts_with("on_dev 1 image /memfd:omptarget-image"),
        "{}",
        o.stdout
    );
}

/// A clang-22 program carrying three x86-64 images (baseline, `x86-64-v3`, `x86-64-v4`): the 22
/// runtime, like the 19 one, runs the most specific one this CPU supports.
#[test]
fn most_specific_image_for_this_cpu() {
    let r = Root22::new();
    let inner = r.dir.inner();
    let in_root = |program: &str, args: &[String]| {
        offkit_testutil::llvm22::Run::new(
            offkit_testutil::llvm22::Side::Llvm,
            program,
            args,
            &inner,
        )
        .ok();
    };
    let target = |level: &str, out: &str| {
        r.clang(
            out,
            &["levels.c"],
            &[
                "-c",
                "-Xopenmp-target=x86_64-pc-linux-gnu",
                &format!("-march={level}"),
            ],
        );
    };
    target("x86-64", "base.o");
    let mut objects = vec!["base.o".to_owned()];
    for level in ["x86-64-v3", "x86-64-v4"] {
        target(level, &format!("{level}.o"));
        in_root(
            "llvm-objcopy",
            &[
                format!("--dump-section=.llvm.offloading={level}.bin"),
                format!("{level}.o"),
            ],
        );
        // An object that only carries the image, as the linker wrapper expects it.
        r.dir.write(
            format!("{level}.s"),
            format!(
                ".section .llvm.offloading,\"e\",@llvm_offloading\n.balign 8\n.incbin \
                 \"{level}.bin\"\n.section .note.GNU-stack,\"\",@progbits\n"
            ),
        );
        in_root(
            "clang",
            &[
                "-c".into(),
                format!("{level}.s"),
                "-o".into(),
                format!("{level}-image.o"),
            ],
        );
        objects.push(format!("{level}-image.o"));
    }
    let lib = r.lib_inner();
    let mut args: Vec<String> = vec![
        "-fopenmp".into(),
        "-fopenmp-targets=x86_64-pc-linux-gnu".into(),
    ];
    args.extend(objects);
    args.extend([
        format!("-L{lib}"),
        format!("-Wl,-rpath,{lib}"),
        "-o".into(),
        "levels".into(),
    ]);
    in_root("clang", &args);
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
    let o = r.run("./levels", &[], &[("LIBOMPTARGET_INFO", "1")]);
    assert_eq!(
        o.stdout,
        format!("image level {want} on_dev 1\n"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("of 3: the most specific one this CPU runs"),
        "{}",
        o.stderr
    );
}
