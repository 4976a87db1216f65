//! The gaps between LLVM 19's runtime and offkit's that LLVM's own runtime tests showed
//! asynchronous copies behind `depobj` dependences, the mapper handle in LLVM's
//! layout, unified shared memory reference pointers, device memory from the C allocator behind
//! 19's memory manager. Each program runs on both runtimes and must agree.
use crate::harness::{clang, same, same_merged, work_dir};

#[track_caller]
fn has(stdout: &str, line: &str) {
    assert!(stdout.contains(line), "missing `{line}` in:\n{stdout}");
}

#[test]
fn async_copies_wait_for_their_depobj_dependences() {
    let d = work_dir("async");
    let exe = clang(&d, "async", &["async.c"], &[]);
    let o = same(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    // Each copy lands after the slow writer it depends on.
    has(&o.stdout, "memcpy_async rc 0 back[0]=100 back[15]=115");
    has(&o.stdout, "rect_async rc 0 block 5 6 9 10, untouched 9");
    has(
        &o.stdout,
        "memset_async returns its pointer 1 back[0]=0 back[7]=0 back[8]=5",
    );
    has(&o.stdout, "no dependences rc 0 back[3]=103");
    has(&o.stdout, "null pointers: -1 -1, rect of nothing: 1");
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    // Without hidden helper threads the tasks run on the team's threads.
    let o = same(&exe, &[], &[("LIBOMP_USE_HIDDEN_HELPER_TASK", "0")]);
    has(&o.stdout, "memcpy_async rc 0 back[0]=100 back[15]=115");
}

#[test]
fn mapper_handles_are_llvm_19s_small_vector() {
    let d = work_dir("mapper_api");
    let exe = clang(&d, "mapper_api", &["mapper_api.cpp"], &[]);
    let o = same(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(&o.stdout, "std::vector handle: num=2");
    has(
        &o.stdout,
        "SmallVector handle: num=10 size 10 capacity 15 sum 90",
    );
    has(&o.stdout, "mapper: handle size 0 capacity 1 inline 1");
    has(
        &o.stdout,
        "mapper: pushed 3, size 3 capacity 3 inline 0 third begins at +32",
    );
    has(
        &o.stdout,
        "mapped: data[0] 1 data[16] 1 data[40] 0 data[8] 0",
    );
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn unified_shared_memory_reference_pointers_hold_host_addresses() {
    let d = work_dir("usm_globals");
    for (out, flag) in [
        ("pragma", "-DREQUIRE_USM"),
        ("forced", "-fopenmp-force-usm"),
    ] {
        let exe = clang(&d, out, &["usm_globals.c"], &[flag]);
        let o = same(&exe, &[], &[]);
        assert_eq!(o.status, Some(0), "{o:?}");
        has(&o.stdout, "device read g=5 arr[2]=3 table[2]=2.50 on_dev 1");
        has(
            &o.stdout,
            "host sees device writes: g=9 arr[1]=20 table[0]=7.25",
        );
        has(&o.stdout, "device sees host writes: g=11 arr[3]=40");
        same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
    }
    // Without unified shared memory the globals are device copies.
    let exe = clang(&d, "copies", &["usm_globals.c"], &[]);
    let o = same(&exe, &[], &[]);
    has(
        &o.stdout,
        "host sees device writes: g=5 arr[1]=20 table[0]=0.50",
    );
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}

#[test]
fn device_memory_comes_from_malloc_behind_19s_memory_manager() {
    let d = work_dir("placement");
    let exe = clang(&d, "placement", &["placement.c"], &[]);
    let o = same(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(
        &o.stdout,
        "100: kept 1, back for the same size 1, for another size 0",
    );
    has(
        &o.stdout,
        "8192: kept 1, back for the same size 1, for another size 0",
    );
    has(
        &o.stdout,
        "8193: kept 0, back for the same size 0, for another size 0",
    );
    has(
        &o.stdout,
        "reused the block freed 2-th\nreused the block freed 1-th\n",
    );
    has(&o.stdout, "a mapping of the same size reuses the block 1");
    has(&o.stdout, "host memory goes back to malloc 1");
    // LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD as 19's UInt32Envar reads it.
    for (value, line) in [
        ("0", "100: kept 0"),
        ("100", "100: kept 1"),
        ("99", "100: kept 0"),
        ("-1", "100000: kept 1"),
        ("12abc", "100: kept 0"),
        ("abc", "8192: kept 1"),
        ("4294967296", "8193: kept 0"),
    ] {
        let o = same(
            &exe,
            &[],
            &[("LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", value)],
        );
        has(&o.stdout, line);
    }
}

/// Found while closing the gaps: a zero-length section through a mapped pointer whose pointee
/// is not mapped gets NULL on the device, as in 19.
#[test]
fn zero_length_pointees_attach_null() {
    let d = work_dir("zero_length");
    let exe = clang(&d, "zero_length", &["zero_length.c"], &[]);
    let o = same(&exe, &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(
        &o.stdout,
        "global ptr: 0\nmember ptr: 0\nmember via ptr: 0\nmember in data: 0\n",
    );
    has(&o.stdout, "host pointer kept: 1");
    same_merged(&exe, &[], &[("LIBOMPTARGET_INFO", "-1")]);
}
