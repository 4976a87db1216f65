//! OMPT for clang-22 programs: the OMPT tool (`ompt_tool.c`) and the programs of `ompt.rs`, built
//! by clang-22 in the Debian 13 root, run on offkit's `libomptarget.so.22.1`; what the tool
//! prints must be what the clang-19 build prints on LLVM 19's runtime.
//!
//! LLVM 22.1.8 connects as 19 does (`OffloadRTL.cpp`: `initRuntime` calls `connectLibrary`
//! before anything else, which `dlopen`s `libomp.so` and calls its `ompt_libomp_connect`), makes
//! the same callbacks with the same arguments (`OpenMP/OMPT/Callback.cpp` and the plugins'
//! `PluginInterface.cpp` did not change them) and only dropped `ompt_libomptarget_connect`: its
//! plugins are linked into the runtime and bind the callbacks directly. So the outputs agree
//! but for what is not the runtime's, masked here (code offsets: another compiler, and Debian
//! 13's libomp, whose `libomp-22-dev` runs programs on `libomp5-19`; image sizes: clang-22's
//! device code), and the one order LLVM 22's sources change ([`llvm_22_deinit`]).
use crate::harness::{clang, outcome, run, work_dir, Outcome, Runtime};
use crate::harness22::Root22;
use crate::ompt::unnumbered;

/// Code offsets (`object+0x…`) become `+0x?` and image sizes (`bytes=N host=`) `bytes=?`.
fn masked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['+', 'b']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let (marker, keep) = if tail.starts_with("+0x") {
            ("+0x", "+0x?")
        } else if tail.starts_with("bytes=") && device_load_size(tail) {
            ("bytes=", "bytes=?")
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
            continue;
        };
        out.push_str(keep);
        let digits = tail[marker.len()..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(tail.len() - marker.len());
        rest = &tail[marker.len() + digits..];
    }
    out.push_str(rest);
    out
}

/// Whether `bytes=N` is a `device_load` image size (followed by ` host=`).
fn device_load_size(s: &str) -> bool {
    let n = s["bytes=".len()..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(0);
    s["bytes=".len() + n..].starts_with(" host=")
}

/// LLVM 22's end of the runtime (`deinitRuntime` → `GenericDeviceTy::deinit`): device by device,
/// its images close (their destructors run) before its `device_finalize`. LLVM 19 reports
/// `device_finalize` for every device first and closes the images afterwards, the last loaded
/// first. `images` are the lines each image's destructors print, in load order, with its device.
fn llvm_22_deinit(out19: &str, images: &[(i32, &str)]) -> String {
    let mut tail19 = String::new();
    for d in 0..4 {
        tail19 += &format!("device_finalize dev={d}\n");
    }
    for (_, dtors) in images.iter().rev() {
        tail19 += dtors;
    }
    let mut tail22 = String::new();
    for d in 0..4 {
        for (_, dtors) in images.iter().filter(|(dev, _)| *dev == d) {
            tail22 += dtors;
        }
        tail22 += &format!("device_finalize dev={d}\n");
    }
    assert!(
        out19.contains(&tail19),
        "LLVM 19 ends differently:\n{out19}"
    );
    out19.replacen(&tail19, &tail22, 1)
}

/// Runs the clang-19 build on LLVM 19's runtime.
fn on_19(exe: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    outcome(&run(Runtime::Llvm, exe, args, env))
}

#[track_caller]
fn same_end(want: &Outcome, ours: &Outcome) {
    assert_eq!(
        (want.status, want.signal),
        (ours.status, ours.signal),
        "{ours:?}"
    );
}

#[test]
fn the_target_callbacks_for_clang_22_programs() {
    let r = Root22::new();
    let exe = r.clang("ompt", &["ompt.c", "ompt_tool.c"], &[]);
    let exe19 = clang(&work_dir("ompt22"), "ompt", &["ompt.c", "ompt_tool.c"], &[]);
    for mode in ["emi", "plain"] {
        // Without hidden helper threads the output is deterministic, pointer numbers included.
        let env = [
            ("OMPT_TOOL_MODE", mode),
            ("LIBOMP_USE_HIDDEN_HELPER_TASK", "0"),
        ];
        let (want, ours) = (on_19(&exe19, &[], &env), r.run(&exe, &[], &env));
        same_end(&want, &ours);
        assert_eq!(masked(&want.stdout), masked(&ours.stdout), "{mode}");
        assert!(
            ours.stdout
                .contains("device_finalize dev=3\ntool finalize\n"),
            "{}",
            ours.stdout
        );
        // Which hidden helper thread runs a task is libomp's choice: numbers removed.
        let env = [("OMPT_TOOL_MODE", mode)];
        let (want, ours) = (on_19(&exe19, &[], &env), r.run(&exe, &[], &env));
        same_end(&want, &ours);
        assert_eq!(
            unnumbered(&masked(&want.stdout)),
            unnumbered(&masked(&ours.stdout)),
            "{mode}, hidden helpers"
        );
    }
    let o = r.run(&exe, &[], &[("LIBOMP_USE_HIDDEN_HELPER_TASK", "0")]);
    assert!(
        o.stdout.contains(
            "target_emi target begin dev=0 task=P5(0) target_task=P6(0) \
             target=P7(8000000000000001) code=ompt+0x"
        ),
        "{}",
        o.stdout
    );
}

#[test]
fn shared_libraries_device_destructors_errors_and_usm() {
    let r = Root22::new();
    let d = work_dir("ompt22_more");
    r.clang("libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
    clang(&d, "libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
    let link = ["-L.", "-lk", "-Wl,-rpath,$ORIGIN"];
    let exe = r.clang("main", &["lib_main.c", "ompt_tool.c"], &link);
    let exe19 = clang(&d, "main", &["lib_main.c", "ompt_tool.c"], &link);
    for mode in ["emi", "plain"] {
        let env = [("OMPT_TOOL_MODE", mode)];
        let (want, ours) = (on_19(&exe19, &[], &env), r.run(&exe, &[], &env));
        same_end(&want, &ours);
        assert_eq!(masked(&want.stdout), masked(&ours.stdout), "{mode}");
    }
    // C++ device constructors run before device_load (dlopen runs them) in both; the
    // destructors come before each device's device_finalize in LLVM 22.
    let exe = r.clang("lambda", &["lambda.cpp", "ompt_tool.c"], &[]);
    let exe19 = clang(&d, "lambda", &["lambda.cpp", "ompt_tool.c"], &[]);
    for mode in ["emi", "plain"] {
        let env = [("OMPT_TOOL_MODE", mode)];
        let (want, ours) = (on_19(&exe19, &[], &env), r.run(&exe, &[], &env));
        same_end(&want, &ours);
        let images = [(0, "dtor 1 on device\n"), (1, "dtor 1 on device\n")];
        // A device block may land where the program freed memory: numbers removed.
        assert_eq!(
            unnumbered(&masked(&llvm_22_deinit(&want.stdout, &images))),
            unnumbered(&masked(&ours.stdout)),
            "{mode}"
        );
        assert!(
            ours.stdout.contains(
                "dtor 1 on device\ndevice_finalize dev=0\ndtor 1 on device\ndevice_finalize \
                 dev=1\n"
            ),
            "{}",
            ours.stdout
        );
    }
    // A failing construct: the region begins and the program aborts before its end.
    let exe = r.clang("errors", &["errors.c", "ompt_tool.c"], &[]);
    let exe19 = clang(&d, "errors", &["errors.c", "ompt_tool.c"], &[]);
    for case in ["present", "update", "none"] {
        let (want, ours) = (on_19(&exe19, &[case], &[]), r.run(&exe, &[case], &[]));
        same_end(&want, &ours);
        assert_eq!(masked(&want.stdout), masked(&ours.stdout), "{case}");
    }
    let exe = r.clang("usm", &["usm_globals.c", "ompt_tool.c"], &["-DREQUIRE_USM"]);
    let exe19 = clang(
        &d,
        "usm",
        &["usm_globals.c", "ompt_tool.c"],
        &["-DREQUIRE_USM"],
    );
    let (want, ours) = (on_19(&exe19, &[], &[]), r.run(&exe, &[], &[]));
    assert_eq!(ours.status, Some(0), "{ours:?}");
    assert_eq!(masked(&want.stdout), masked(&ours.stdout));
}

#[test]
fn masking_keeps_what_the_runtime_decides() {
    assert_eq!(
        masked("device_load dev=0 file=(nil) off=0 vma=(nil) bytes=17184 host=ompt+0x5750 x"),
        "device_load dev=0 file=(nil) off=0 vma=(nil) bytes=? host=ompt+0x? x"
    );
    assert_eq!(
        masked("  data_op alloc id=3 op=4 src=P8/4 dst=(nil)/0 bytes=4 code=libk.so+0x1a2b"),
        "  data_op alloc id=3 op=4 src=P8/4 dst=(nil)/0 bytes=4 code=libk.so+0x?"
    );
}
