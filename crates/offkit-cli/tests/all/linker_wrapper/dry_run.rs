//! `--dry-run` as LLVM 19's: for objects of every offload kind (OpenMP with x86_64/aarch64 and
//! amdgcn images, HIP, CUDA) built by clang-19 for every host (x86_64 and aarch64 Linux, MSVC
//! and MinGW Windows), in every mode (a plain link,
//! `-r`, an archive, offload LTO, `--clang-backend`, `--embed-bitcode`, offkit's `--emit-plan`), LLVM 19's `clang-linker-wrapper
//! --dry-run --wrapper-verbose --print-wrapped-module` and offkit's drop-in print the same
//! commands and the same wrapper module, line by line, and exit 0. Temporary names are
//! normalised.

use std::path::Path;

use offkit_testutil::link::normalize_temps;
use offkit_testutil::offload::{compile, Kind};

/// The renamed symbols of the second object (the archive member), so that it defines
/// something new and LLVM 19's archive rule extracts it.
const RENAME: &[&str] = &[
    "-Dcounter=counter2",
    "-Drun=run2",
    "-Ddv=dv2",
    "-Dcv=cv2",
    "-Dkern=kern2",
];

#[derive(Debug, Clone, Copy)]
enum Mode {
    Plain,
    Relocatable,
    Archive,
    Lto,
    ClangBackend,
    EmbedBitcode,
    EmitPlan,
}

const MODES: [Mode; 7] = [
    Mode::Plain,
    Mode::Relocatable,
    Mode::Archive,
    Mode::Lto,
    Mode::ClangBackend,
    Mode::EmbedBitcode,
    Mode::EmitPlan,
];

fn archive(dir: &Path, name: &str, member: &Path) {
    let out = dir.join(name);
    offkit_testutil::run_ok(
        offkit_testutil::llvm_tool("llvm-ar"),
        ["rcs".as_ref(), out.as_os_str(), member.as_os_str()],
        dir,
    );
}

/// The host linker as clang-19 runs it for `host`: lld-link for MSVC, the MinGW ld.lld, GNU ld.
fn linker(host: &str) -> String {
    if host.ends_with("msvc") {
        offkit_testutil::llvm_tool("lld-link").display().to_string()
    } else if host.contains("windows") {
        offkit_testutil::llvm_tool("ld.lld").display().to_string()
    } else {
        "/usr/bin/ld".into()
    }
}

/// Compares one case; returns a description of the difference, if any.
fn case(dir: &Path, host: &str, kind: Kind, mode: Mode) -> Option<String> {
    let k = kind.name();
    let mut args: Vec<String> = vec![
        format!("--host-triple={host}"),
        "--dry-run".into(),
        "--wrapper-verbose".into(),
        "--print-wrapped-module".into(),
        format!("--linker-path={}", linker(host)),
    ];
    let mut ours_only: Vec<String> = Vec::new();
    match mode {
        Mode::Plain => args.extend(["-o".into(), "p".into(), format!("{k}.o")]),
        Mode::Relocatable => args.extend([
            "-r".into(),
            "-o".into(),
            "merged.o".into(),
            format!("{k}.o"),
        ]),
        Mode::Archive => args.extend([
            "-o".into(),
            "p".into(),
            format!("{k}.o"),
            "-L.".into(),
            format!("-l{k}2"),
        ]),
        Mode::Lto => args.extend(["-o".into(), "p".into(), format!("{k}-lto.o")]),
        Mode::ClangBackend | Mode::EmbedBitcode => args.extend([
            if matches!(mode, Mode::ClangBackend) {
                "--clang-backend".into()
            } else {
                "--embed-bitcode".into()
            },
            "-o".into(),
            "p".into(),
            format!("{k}-lto.o"),
        ]),
        Mode::EmitPlan => {
            args.extend(["-o".into(), "p".into(), format!("{k}.o")]);
            ours_only.push("--emit-plan=plan.sh".into());
        }
    }
    let mut ours_args = args.clone();
    ours_args.extend(ours_only);
    let theirs = offkit_testutil::packager::run_as(
        &offkit_testutil::link::llvm_wrapper(),
        super::ARGV0,
        &args,
        dir,
        None,
    );
    let ours =
        offkit_testutil::packager::run_as(&super::offkit(), super::ARGV0, &ours_args, dir, None);
    let norm = |o: &offkit_testutil::Output| {
        (
            o.code,
            normalize_temps(&o.stdout_str()),
            normalize_temps(&o.stderr_str()),
        )
    };
    let (t, o) = (norm(&theirs), norm(&ours));
    // LLVM 19 refuses `-r` for COFF hosts; offkit must refuse it the same way.
    let coff_r = host.contains("windows") && matches!(mode, Mode::Relocatable);
    if t.0 != Some(0) && !coff_r {
        return Some(format!("LLVM 19 failed: {}", t.2));
    }
    if t == o {
        return None;
    }
    let diff: Vec<String> =
        t.2.lines()
            .zip(o.2.lines())
            .filter(|(a, b)| a != b)
            .take(3)
            .map(|(a, b)| format!("  llvm:  {a}\n  ours:  {b}"))
            .collect();
    Some(format!(
        "exit {:?} vs {:?}; stdout same: {}; first differing stderr lines:\n{}",
        t.0,
        o.0,
        t.1 == o.1,
        diff.join("\n")
    ))
}

/// The matrix: kinds × hosts × modes.
#[test]
fn dry_runs_as_llvm_19() {
    let mut failures = Vec::new();
    let mut count = 0;
    for host in [
        "x86_64-pc-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-pc-windows-msvc",
        "x86_64-w64-windows-gnu",
        "aarch64-pc-windows-msvc",
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for kind in Kind::ALL {
            let k = kind.name();
            // clang-19 crashes compiling HIP host code for Windows ("Cannot emit physreg copy
            // instruction"); the wrapper reads only the device code of its inputs, so the HIP
            // objects for Windows hosts are the Linux ones.
            let obj_host = if kind == Kind::Hip && host.contains("windows") {
                "x86_64-pc-linux-gnu"
            } else {
                host
            };
            compile(dir, k, kind, obj_host, false, &[]);
            compile(dir, &format!("{k}-lto"), kind, obj_host, true, &[]);
            let member = compile(dir, &format!("{k}2"), kind, obj_host, false, RENAME);
            archive(dir, &format!("lib{k}2.a"), &member);
            for mode in MODES {
                count += 1;
                if let Some(d) = case(dir, host, kind, mode) {
                    failures.push(format!("{host} {k} {mode:?}: {d}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} dry runs differ from LLVM 19's:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
