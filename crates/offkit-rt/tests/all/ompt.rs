//! OMPT: a small tool (`ompt_tool.c`, C compiled by clang-19 into the program) prints every
//! target callback the runtime makes; its output must be the same on LLVM 19's runtime and on
//! offkit's. The tool prints code addresses as object+offset and numbers data pointers in the
//! order they first appear, so the comparison covers which pointers are the same (device
//! blocks reused, the per-thread target data) without depending on where things are loaded.
use crate::harness::{clang, outcome, run, same, work_dir, Runtime};

#[track_caller]
fn has(stdout: &str, line: &str) {
    assert!(stdout.contains(line), "missing `{line}` in:\n{stdout}");
}

/// `P12` → `P`: for runs whose pointer numbering legitimately differs (which hidden helper
/// thread runs a task; a device block landing where the program freed memory).
pub fn unnumbered(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev = ' ';
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == 'P' && !prev.is_ascii_alphanumeric() {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        }
        prev = c;
    }
    out
}

/// Runs on both runtimes and compares with pointer numbers removed.
#[track_caller]
fn same_unnumbered(exe: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let llvm = outcome(&run(Runtime::Llvm, exe, args, env));
    let ours = outcome(&run(Runtime::Offkit, exe, args, env));
    assert_eq!(llvm.status, ours.status, "{env:?}: {llvm:?}\n{ours:?}");
    assert_eq!(llvm.signal, ours.signal);
    let (a, b) = (unnumbered(&llvm.stdout), unnumbered(&ours.stdout));
    assert_eq!(
        a, b,
        "{env:?}: LLVM 19's runtime (left) and offkit's (right) differ"
    );
    b
}

#[test]
fn the_target_callbacks_of_llvm_19() {
    let d = work_dir("ompt");
    let exe = clang(&d, "ompt", &["ompt.c", "ompt_tool.c"], &[]);
    for mode in ["emi", "plain"] {
        // Without hidden helper threads, tasks (nowait, the async copy) run on this thread,
        // so the output is deterministic.
        let env = [
            ("OMPT_TOOL_MODE", mode),
            ("LIBOMP_USE_HIDDEN_HELPER_TASK", "0"),
        ];
        let o = same(&exe, &[], &env);
        assert_eq!(o.status, Some(0), "{o:?}");
        has(
            &o.stdout,
            "device_initialize dev=3 type=generic-64bit device=P4 lookup=libomp.so.5+0x",
        );
        has(
            &o.stdout,
            "device_load dev=0 file=(nil) off=0 vma=(nil) bytes=",
        );
        has(&o.stdout, "device_load dev=1 file=(nil)");
        has(
            &o.stdout,
            "device_finalize dev=0\ndevice_finalize dev=1\ndevice_finalize dev=2\n\
             device_finalize dev=3\ntool finalize\n",
        );
        has(&o.stdout, "b[0]=0 buf[1]=7 vals[2]=6 on_dev 1");
    }
    let o = same(&exe, &[], &[("LIBOMP_USE_HIDDEN_HELPER_TASK", "0")]);
    has(&o.stdout, "target_emi target begin dev=0 task=P5(0) target_task=P6(0) target=P7(8000000000000001) code=ompt+0x");
    has(
        &o.stdout,
        "  submit_emi begin target=P7(8000000000000001) op=P8(8000000000000006) teams=1\n",
    );
    has(&o.stdout, "target_emi enter_data begin dev=0");
    has(&o.stdout, "target_emi update end dev=0");
    has(&o.stdout, "teams=2");
    has(
        &o.stdout,
        "  data_op_emi associate begin target_task=(nil)(0) target=P7(0)",
    );
    let o = same(
        &exe,
        &[],
        &[
            ("OMPT_TOOL_MODE", "plain"),
            ("LIBOMP_USE_HIDDEN_HELPER_TASK", "0"),
        ],
    );
    has(
        &o.stdout,
        "target target begin dev=0 task=P5 id=1 code=ompt+0x",
    );
    has(
        &o.stdout,
        "target enter_data begin dev=0 task=P5 id=0 code=ompt+0x",
    );
    // Hidden helper threads run the nowait region and the async copy: which one does is up
    // to libomp.
    for mode in ["emi", "plain"] {
        let out = same_unnumbered(&exe, &[], &[("OMPT_TOOL_MODE", mode)]);
        has(&out, "code=libomp.so.5+0x");
    }
}

#[test]
fn ompt_with_shared_libraries_device_constructors_errors_and_usm() {
    let d = work_dir("ompt_more");
    clang(&d, "libk.so", &["lib_k.c"], &["-fPIC", "-shared"]);
    let exe = clang(
        &d,
        "main",
        &["lib_main.c", "ompt_tool.c"],
        &["-L.", "-lk", "-Wl,-rpath,$ORIGIN"],
    );
    for mode in ["emi", "plain"] {
        let o = same(&exe, &[], &[("OMPT_TOOL_MODE", mode)]);
        assert_eq!(
            o.stdout.matches("device_load dev=0").count(),
            2,
            "{}",
            o.stdout
        );
    }
    // Device constructors run before device_load, destructors after device_finalize.
    let exe = clang(&d, "lambda", &["lambda.cpp", "ompt_tool.c"], &[]);
    for mode in ["emi", "plain"] {
        let out = same_unnumbered(&exe, &[], &[("OMPT_TOOL_MODE", mode)]);
        let load = out.find("device_load dev=0").unwrap();
        assert!(out[..load].contains("ctor 1 on device"), "{out}");
        let fini = out.find("device_finalize dev=3").unwrap();
        assert!(out[fini..].contains("dtor 1 on device"), "{out}");
    }
    // A failing construct: the region begins, no end before the abort.
    let exe = clang(&d, "errors", &["errors.c", "ompt_tool.c"], &[]);
    for case in ["present", "update", "none"] {
        same(&exe, &[case], &[]);
    }
    let exe = clang(
        &d,
        "usm",
        &["usm_globals.c", "ompt_tool.c"],
        &["-DREQUIRE_USM"],
    );
    let o = same(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
}
