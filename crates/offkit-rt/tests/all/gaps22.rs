//! The gaps closed for clang-19 programs (`gaps.rs`), for clang-22 programs: the same programs
//! built by clang-22 in the Debian 13 root run on offkit's `libomptarget.so.22.1` and end as their
//! clang-19 builds on LLVM 19's runtime, but for the lines `harness22::STDOUT_DIFFERENCES`
//! explains. LLVM 22.1.8's sources keep each behaviour: `OpenMP/API.cpp` queues the
//! asynchronous copies as hidden-helper tasks behind their `depobj`s, `MapperComponentsTy` is
//! still one `SmallVector<MapComponentInfoTy>`, `loadImagesOntoDevice` writes the host address
//! into each declare-target reference pointer under unified shared memory (or LLVM 22's
//! `OMPX_REQ_AUTO_ZERO_COPY`, which only a device whose plugin says so sets: the host plugin's
//! `useAutoZeroCopyImpl` is false), and the plugins keep `MemoryManagerTy`.
use std::path::PathBuf;

use crate::harness::Outcome;
use crate::harness22::{build19, run19, same_as_19, Root22};

#[track_caller]
fn has(stdout: &str, line: &str) {
    assert!(stdout.contains(line), "missing `{line}` in:\n{stdout}");
}

/// Builds `sources` with clang-22 (`out` in the root) and with clang-19, runs both with `env`
/// and compares; returns the 22 run and the clang-19 build.
#[track_caller]
fn both_builds(
    r: &Root22,
    out: &str,
    sources: &[&str],
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Outcome, PathBuf) {
    let exe = r.clang(out, sources, extra);
    let ours = r.run(&exe, &[], env);
    let exe19 = build19(out, sources, extra);
    let program = sources[0].split('.').next().unwrap_or(out);
    same_as_19(program, &run19(&exe19, &[], env), &ours);
    (ours, exe19)
}

/// [`both_builds`], the 22 run.
#[track_caller]
fn both(r: &Root22, out: &str, sources: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Outcome {
    both_builds(r, out, sources, extra, env).0
}

#[test]
fn async_copies_wait_for_their_depobj_dependences() {
    let r = Root22::new();
    for env in [&[][..], &[("LIBOMP_USE_HIDDEN_HELPER_TASK", "0")][..]] {
        let o = both(&r, "async", &["async.c"], &[], env);
        assert_eq!(o.status, Some(0), "{o:?}");
        has(&o.stdout, "memcpy_async rc 0 back[0]=100 back[15]=115");
        has(&o.stdout, "rect_async rc 0 block 5 6 9 10, untouched 9");
        has(&o.stdout, "null pointers: -1 -1, rect of nothing: 1");
    }
}

#[test]
fn mapper_handles_are_llvm_s_small_vector() {
    let r = Root22::new();
    let o = both(&r, "mapper_api", &["mapper_api.cpp"], &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(&o.stdout, "std::vector handle: num=2");
    has(
        &o.stdout,
        "mapper: pushed 3, size 3 capacity 3 inline 0 third begins at +32",
    );
}

#[test]
fn unified_shared_memory_reference_pointers_hold_host_addresses() {
    let r = Root22::new();
    for (out, flag) in [
        ("pragma", "-DREQUIRE_USM"),
        ("forced", "-fopenmp-force-usm"),
    ] {
        let o = both(&r, out, &["usm_globals.c"], &[flag], &[]);
        assert_eq!(o.status, Some(0), "{o:?}");
        has(&o.stdout, "device read g=5 arr[2]=3 table[2]=2.50 on_dev 1");
        has(&o.stdout, "device sees host writes: g=11 arr[3]=40");
    }
    let o = both(&r, "copies", &["usm_globals.c"], &[], &[]);
    has(
        &o.stdout,
        "host sees device writes: g=5 arr[1]=20 table[0]=0.50",
    );
}

#[test]
fn device_memory_comes_from_malloc_behind_the_memory_manager() {
    let r = Root22::new();
    let (o, exe19) = both_builds(&r, "placement", &["placement.c"], &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(
        &o.stdout,
        "reused the block freed 2-th\nreused the block freed 1-th\n",
    );
    // LLVM 22 reads LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD as 19 does (`UInt32Envar`).
    for value in ["0", "99", "-1", "12abc", "4294967296"] {
        let env = [("LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", value)];
        same_as_19(
            "placement",
            &run19(&exe19, &[], &env),
            &r.run("./placement", &[], &env),
        );
    }
}

/// Through a mapped pointer whose pointee is not mapped: clang-22's `ATTACH` entries leave the
/// member pointers with their host value (listed differences), the declare-target pointer is
/// NULL on the device as with clang-19.
#[test]
fn zero_length_pointees() {
    let r = Root22::new();
    let o = both(&r, "zero_length", &["zero_length.c"], &[], &[]);
    assert_eq!(o.status, Some(0), "{o:?}");
    has(&o.stdout, "global ptr: 0\nmember ptr: 3\n");
    has(&o.stdout, "host pointer kept: 1");
}
