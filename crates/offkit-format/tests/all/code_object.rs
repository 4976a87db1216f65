//! Integration tests: what the walk says is inside code objects built by clang-19 — AMD GPU
//! code objects of three offload archs (the target ID decoded from `e_flags` against
//! `llvm-readobj-19 --file-headers` and the `amdhsa.target` of `llvm-readelf-19 --notes`, the
//! kernels against the note's `.name`s), a bundle whose entry ID disagrees with the header,
//! and an OpenMP x86_64 image's offload entries.

use offkit_format::bundle::binary as bundle_binary;
use offkit_format::code_object::{Arch, CodeObject, Setting};
use offkit_format::entry::Role;
use offkit_format::scan::{self, Event, Options};
use offkit_testutil::fixtures::{compile_openmp, OPENMP_SAXPY};
use offkit_testutil::{clang, llvm_tool, run_ok};

const HIP: &str = r#"
__attribute__((global)) void saxpy(float a, float *x) { x[0] *= a; }
__attribute__((global)) void other(int *p) { p[0] = 1; }
extern "C" __attribute__((global)) void plain(int *p) { p[1] = 2; }
__attribute__((device)) int helper(int x) { return x + 1; }
"#;

const ARCHS: &str = "gfx90a:xnack+,gfx1030,gfx942:sramecc-:xnack-";

/// `(bundle entry ID, image bytes, code object)` of every device image in `data`.
fn images(data: &[u8]) -> Vec<(String, Vec<u8>, CodeObject)> {
    let mut out = Vec::new();
    scan::walk(
        data,
        "in",
        &mut Options {
            kernels: true,
            ..Options::default()
        },
        &mut |ev| {
            if let Event::Image(i) = ev {
                if !i.info.offload_kind.is_host() {
                    let co = i.info.code_object.clone().expect("described");
                    out.push((i.info.target_id.to_string(), i.bytes.to_vec(), co));
                }
            }
            Ok::<(), offkit_format::Error>(())
        },
    )
    .unwrap();
    out
}

fn field<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(key))
        .map(|v| v.trim().trim_matches('\''))
        .collect()
}

#[test]
fn amdgpu_code_objects_match_llvm_readobj() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.hip"), HIP).unwrap();
    let arch = format!("--offload-arch={ARCHS}");
    run_ok(
        clang(),
        [
            "-x",
            "hip",
            &arch,
            "-nogpulib",
            "-nogpuinc",
            "--cuda-device-only",
            "-c",
            "k.hip",
            "-o",
            "k.bundle",
        ],
        d,
    );
    let bundle = std::fs::read(d.join("k.bundle")).unwrap();
    let found = images(&bundle);
    let mut ids: Vec<&str> = found.iter().map(|(id, ..)| id.as_str()).collect();
    ids.sort();
    let mut want: Vec<&str> = ARCHS.split(',').collect();
    want.sort();
    assert_eq!(ids, want);
    for (i, (id, bytes, co)) in found.iter().enumerate() {
        let file = d.join(format!("co{i}.o"));
        std::fs::write(&file, bytes).unwrap();
        let f = file.display().to_string();
        let headers =
            run_ok(llvm_tool("llvm-readobj"), ["--file-headers", f.as_str()], d).stdout_str();
        let notes = run_ok(llvm_tool("llvm-readelf"), ["--notes", f.as_str()], d).stdout_str();
        assert_eq!(co.arch, Arch::Amdgpu);
        assert_eq!(
            &co.target_id, id,
            "the header's target ID is the offload arch"
        );
        assert!(co.warnings.is_empty(), "{:?}", co.warnings);
        let target = field(&notes, "amdhsa.target:");
        assert_eq!(target, [format!("amdgcn-amd-amdhsa--{id}").as_str()]);
        let abi: u32 = field(&headers, "ABIVersion:")[0].parse().unwrap();
        assert_eq!(co.code_object_version, Some(abi + 2));
        let flags = format!("EF_AMDGPU_MACH_AMDGCN_{}", co.processor.to_uppercase());
        assert!(headers.contains(&flags), "{flags} in\n{headers}");
        let (xnack, sramecc) = (co.xnack.unwrap(), co.sramecc.unwrap());
        for (name, s) in [("XNACK", xnack), ("SRAMECC", sramecc)] {
            let want = match s {
                Setting::Unsupported => None,
                Setting::Any => Some("ANY"),
                Setting::Off => Some("OFF"),
                Setting::On => Some("ON"),
            };
            if let Some(w) = want {
                let flag = format!("EF_AMDGPU_FEATURE_{name}_{w}_V4");
                assert!(headers.contains(&flag), "{flag} in\n{headers}");
            }
        }
        let mut kernels = co.kernels.clone();
        kernels.sort();
        let mut names: Vec<&str> = field(&notes, ".name:");
        names.sort();
        assert_eq!(kernels, names);
        assert_eq!(kernels, ["_Z5otherPi", "_Z5saxpyfPf", "plain"]);
    }
    // The same gfx90a:xnack+ image under an entry ID that says xnack-.
    let (_, xnack_on, _) = found.iter().find(|(id, ..)| id == "gfx90a:xnack+").unwrap();
    let lying = bundle_binary::write(
        &[
            (b"host-x86_64-unknown-linux-gnu-", b""),
            (b"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", xnack_on),
        ],
        4096,
    )
    .unwrap();
    let found = images(&lying);
    assert_eq!(found.len(), 1);
    let co = &found[0].2;
    assert_eq!(co.target_id, "gfx90a:xnack+");
    assert_eq!(co.warnings.len(), 1, "{:?}", co.warnings);
    assert!(
        co.warnings[0].contains("gfx90a:xnack-"),
        "{:?}",
        co.warnings
    );
}

#[test]
fn openmp_image_entries() {
    let dir = tempfile::tempdir().unwrap();
    let o = compile_openmp(
        dir.path(),
        "saxpy",
        OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu"],
        &[],
    );
    let data = std::fs::read(o).unwrap();
    let found = images(&data);
    assert_eq!(found.len(), 1);
    let co = &found[0].2;
    assert_eq!(co.arch, Arch::Other);
    assert!(co.target_id.is_empty());
    assert_eq!(co.kernels.len(), 1, "{co:?}");
    assert!(co.kernels[0].starts_with("__omp_offloading_"), "{co:?}");
    assert!(co.kernels[0].contains("_saxpy_l"), "{co:?}");
    assert!(co
        .entries
        .iter()
        .any(|e| e.role == Role::Variable && e.name == "scale"));
    assert!(co.warnings.is_empty(), "{:?}", co.warnings);
}
