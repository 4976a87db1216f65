//! Relocatable (`-r`) links of CUDA and HIP objects as LLVM 19 performs them: the device link,
//! the fatbinary or offload bundle, the registration object, `ld --relocatable` and the
//! objcopy step that renames `<kind>_offloading_entries` (and `__start_`/`__stop_`) with the
//! MD5 suffix and drops `.llvm.offloading`. The merged object, linked into a program by a
//! plain host link (no linker wrapper), registers the same images and entries with the runtime
//! as a direct link does — checked with a stand-in runtime that prints what it is handed —
//! and is LLVM 19's merged object, byte for byte.

use std::path::Path;

use offkit_testutil::offload::{compile, Kind};
use offkit_testutil::stub_runtime::{fake_cuda, stub_runtime};
use offkit_testutil::{llvm_tool, run, run_ok, Output};

#[track_caller]
fn ok(o: &Output, what: &str) {
    assert_eq!(o.code, Some(0), "{what}: {}", o.stderr_str());
}

/// Links through clang-19's `--offload-link` (through offkit's shims when `shims` is given).
fn link(dir: &Path, shims: Option<&Path>, cuda: &Path, args: &[&str], out: &str) {
    let mut a: Vec<String> = Vec::new();
    if let Some(s) = shims {
        a.extend(["-B".into(), s.display().to_string()]);
    }
    a.extend([
        "--offload-link".into(),
        "--offload-new-driver".into(),
        "-Wno-unused-command-line-argument".into(),
        format!("-Wl,--cuda-path={}", cuda.display()),
    ]);
    a.extend(args.iter().map(|s| s.to_string()));
    a.extend(["-o".into(), out.into()]);
    ok(&run(llvm_tool("clang"), &a, dir), out);
}

fn program(dir: &Path, exe: &str) -> String {
    let o = run_ok(dir.join(exe), std::iter::empty::<&str>(), dir);
    o.stdout_str()
}

/// The entry sections of a merged object, in order.
fn entry_sections(dir: &Path, file: &str) -> Vec<String> {
    let o = run_ok(llvm_tool("llvm-readelf"), ["-S", "-W", file], dir);
    o.stdout_str()
        .lines()
        .filter(|l| l.contains("offloading_entries"))
        .filter_map(|l| l.split(']').nth(1)?.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn cuda_and_hip_relocatable_links_register_as_direct_links() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let shims = offkit_testutil::link::shims(&super::offkit(), &dir.join("shims"));
    let cuda = fake_cuda(dir);
    let rt = stub_runtime(dir);
    let rt = rt.to_str().unwrap();
    let main =
        offkit_testutil::fixtures::write_source(dir, "main.c", "int main(void) { return 0; }\n");
    let main = main.to_str().unwrap();
    for kind in [Kind::Hip, Kind::Cuda] {
        let k = kind.name();
        let obj = compile(dir, k, kind, "x86_64-pc-linux-gnu", false, &[]);
        let obj = obj.to_str().unwrap();
        let mut outputs = Vec::new();
        for (who, s) in [("llvm", None), ("ours", Some(shims.as_path()))] {
            let direct = format!("{k}-{who}-direct");
            link(dir, s, &cuda, &[main, obj, rt], &direct);
            let merged = format!("{k}-{who}-merged.o");
            link(dir, s, &cuda, &["-r", obj], &merged);
            // A plain host link: no linker wrapper, no offloading.
            let reloc = format!("{k}-{who}-reloc");
            let o = run(
                llvm_tool("clang"),
                [main, merged.as_str(), rt, "-o", reloc.as_str()],
                dir,
            );
            ok(&o, &reloc);
            outputs.push((who, "direct", program(dir, &direct)));
            outputs.push((who, "relocatable", program(dir, &reloc)));
            let sections = entry_sections(dir, &merged);
            assert!(
                sections
                    .iter()
                    .any(|s| s.starts_with(&format!("{k}_offloading_entries_"))),
                "{merged}: {sections:?}"
            );
        }
        // The merged objects are LLVM 19's, byte for byte (HIP's device code is bitcode,
        // linked by LLVM 19's LTO in both; the objcopy step is LLVM's).
        assert_eq!(
            std::fs::read(dir.join(format!("{k}-ours-merged.o"))).unwrap(),
            std::fs::read(dir.join(format!("{k}-llvm-merged.o"))).unwrap(),
            "{k}"
        );
        let reference = &outputs[0].2;
        assert!(
            reference.contains("function _Z4kernPi")
                && reference.contains("variable cv size 4 extern 0 constant 1")
                && reference.contains("unregister ok"),
            "{k}: {reference}"
        );
        for (who, how, out) in &outputs {
            // Each tool's relocatable link registers exactly what its direct link does.
            let direct = &outputs.iter().find(|o| o.0 == *who).unwrap().2;
            assert_eq!(out, direct, "{k}: {who} {how}");
            assert_eq!(out, reference, "{k}: {who} {how}");
        }
    }
}
