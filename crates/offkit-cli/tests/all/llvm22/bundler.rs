//! `clang-offload-bundler` as LLVM 22: the LLVM 19 conformance cases (`tests/all/bundler.rs`:
//! every type, bundling, listing, unbundling, archives, compressed bundles, malformed inputs,
//! command-line errors) on inputs made by LLVM 22's clang, llvm-ar and bundler, run by LLVM
//! 22's tool and by offkit's LLVM 22 face inside the Debian 13 root; then cases of what 22
//! changed (bundle-ID shapes, compressed-bundle versions, new processors).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_testutil::bundler::{differences, Case};
use offkit_testutil::llvm22::{self, Side};
use offkit_testutil::llvm22_bundler::{run_case, shared_dir, Llvm22};

use crate::bundler::{
    archives_cases, bundling_cases, command_line_cases, listing_cases, make_inputs,
    unbundling_cases,
};

struct Fixture {
    inputs: PathBuf,
    work: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")));
        let root = shared_dir(env!("CARGO_TARGET_TMPDIR"), "bundler22");
        let inputs = root.join("in");
        std::fs::create_dir_all(&inputs).unwrap();
        make_inputs(&inputs, &Llvm22);
        let work = root.join("work");
        std::fs::create_dir_all(&work).unwrap();
        Fixture { inputs, work }
    })
}

/// Runs every case with both sides and fails with all the differences.
fn check_all(group: &str, cases: &[Case]) {
    let f = fixture();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = format!("{group}-{i}");
        let a = run_case(
            Side::Llvm,
            &f.inputs,
            &f.work,
            &format!("{name}-llvm"),
            case,
        );
        let b = run_case(
            Side::Offkit,
            &f.inputs,
            &f.work,
            &format!("{name}-ours"),
            case,
        );
        if let Some(d) = differences(case, &a, &b) {
            failures.push(format!("case {name}: {:?}\n{d}", case.args));
        }
    }
    eprintln!(
        "bundler conformance `{group}`: {} of {} cases agree with LLVM 22",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn command_line() {
    check_all("cli", &command_line_cases(&fixture().inputs));
}

#[test]
fn bundling() {
    check_all("bundle", &bundling_cases(&fixture().inputs));
}

#[test]
fn listing() {
    check_all("list", &listing_cases(&fixture().inputs));
}

#[test]
fn unbundling() {
    check_all("unbundle", &unbundling_cases(&fixture().inputs));
}

#[test]
fn archives() {
    check_all("archive", &archives_cases(&fixture().inputs));
}

const HOST: &str = "host-x86_64-unknown-linux-gnu";
const G906: &str = "hip-amdgcn-amd-amdhsa--gfx906";
const G950: &str = "hip-amdgcn-amd-amdhsa--gfx950:xnack+";
const G1250: &str = "hip-amdgcn-amd-amdhsa--gfx1250";
const SM100: &str = "openmp-nvptx64-nvidia-cuda--sm_100a";

/// Inputs only the LLVM 22 cases use, made once in the fixture's directory: OpenMP and HIP
/// objects of clang-22 (the new driver's `.llvm.offloading`, HIP with `--offload-compress`),
/// bundles of 22's new processors and of both compressed versions, and bundles whose IDs 22
/// refuses.
fn inputs_22() -> &'static Path {
    static DONE: OnceLock<()> = OnceLock::new();
    let f = fixture();
    let d = &f.inputs;
    DONE.get_or_init(|| {
        let inner = llvm22::inner_path(d);
        let clang = |args: &[&str]| {
            llvm22::clang(args, &inner);
        };
        std::fs::write(
            d.join("omp.c"),
            "int main(void) { int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 42;\n  \
             return x; }\n",
        )
        .unwrap();
        clang(&[
            "-fopenmp",
            "-fopenmp-targets=amdgcn-amd-amdhsa",
            "-Xopenmp-target=amdgcn-amd-amdhsa",
            "-march=gfx90a",
            "-nogpulib",
            "-c",
            "omp.c",
            "-o",
            "omp.o",
        ]);
        let hip = |name: &str, extra: &[&str]| {
            let mut args = vec!["-x", "hip", "-nogpulib", "-nogpuinc"];
            args.extend(extra);
            let out = format!("{name}.o");
            args.extend(["-c", "k.hip", "-o", &out]);
            clang(&args);
        };
        // k.hip is written by the shared inputs (`make_inputs`' HIP sources).
        std::fs::copy(d.join("k2.hip"), d.join("k.hip")).unwrap();
        hip(
            "kz",
            &[
                "--offload-arch=gfx90a",
                "--offload-arch=gfx950",
                "--offload-compress",
            ],
        );
        hip(
            "kzrdc",
            &["--offload-arch=gfx1250", "-fgpu-rdc", "--offload-compress"],
        );
        // The fat binary of the non-rdc object: a compressed bundle.
        llvm22::Run::new(
            Side::Llvm,
            "llvm-objcopy",
            ["--dump-section=.hip_fatbin=kz.fatbin", "kz.o", "kz.tmp"],
            &inner,
        )
        .ok();
        let mk = |args: &[&str]| {
            llvm22::Run::new(Side::Llvm, "clang-offload-bundler", args, &inner).ok();
        };
        let t = format!("-targets={HOST},{G906},{G950},{G1250},{SM100}");
        let five = [
            "-input=p0",
            "-input=p1",
            "-input=p2",
            "-input=p3",
            "-input=p1",
        ];
        let mut args = vec!["-type=bc", &t, "-output=n.bc"];
        args.extend(five);
        mk(&args);
        for (v, name) in [("2", "n2.ccob"), ("3", "n3.ccob")] {
            let out = format!("-output={name}");
            let mut args = vec!["-type=bc", &t, &out, "-compress"];
            args.extend(five);
            llvm22::Run::new(Side::Llvm, "clang-offload-bundler", &args, &inner)
                .env("COMPRESSED_BUNDLE_FORMAT_VERSION", v)
                .ok();
        }
        // IDs of the wrong shape for 22 (as LLVM <= 17 and hand-written tools wrote them).
        let bad = offkit_format::bundle::binary::write(
            &[
                (b"hip-amdgcn-amd-amdhsa".as_slice(), b"short".as_slice()),
                (HOST.as_bytes(), b"host".as_slice()),
            ],
            1,
        )
        .unwrap();
        std::fs::write(d.join("badid.bc"), &bad).unwrap();
        llvm22::Run::new(
            Side::Llvm,
            "llvm-ar",
            ["rcs", "libbad.a", "badid.bc"],
            &inner,
        )
        .ok();
        // A compressed bundle cut inside LLVM 22's header (8 to 31 bytes), and one of an
        // unknown version (LLVM's release build meets `llvm_unreachable` there).
        let n3 = std::fs::read(d.join("n3.ccob")).unwrap();
        std::fs::write(d.join("cut12.ccob"), &n3[..12]).unwrap();
        std::fs::write(d.join("cut30.ccob"), &n3[..30]).unwrap();
        let mut v4 = n3.clone();
        v4[4] = 4;
        std::fs::write(d.join("v4.ccob"), &v4).unwrap();
    });
    d
}

fn c(args: &[&str], outputs: &[&str]) -> Case {
    Case::new(args, outputs)
}

/// What LLVM 22 changed: target shapes and their standardised forms, 22's processors, the
/// compressed-bundle version and its variable, IDs read from files, objects of clang-22.
#[test]
fn llvm22_changes() {
    inputs_22();
    make_archive_22();
    let mut cases = Vec::new();
    // Targets: every shape, bundled and listed back.
    for t in [
        "hip-amdgcn-amd-amdhsa-gfx906",
        "hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+",
        "hip-amdgcn--amdhsa--gfx906",
        "hip-amdgcn-amd-amdhsa-gnu-gfx906",
        "openmp-nvptx64-nvidia-cuda",
        "openmp-nvptx64-nvidia-cuda--sm_70",
        "openmp-nvptx64-nvidia-cuda-sm_70",
        "openmp-x86_64-pc-linux-gnu-foo",
        "openmp-x86_64--linux-gnu",
        "openmp-amd64-pc-linux-gnu",
        "openmp-spirv64-amd-amdhsa--amdgcnspirv",
        "hip-x86_64-pc-linux-gnu--gfx906:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-",
        "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
        "hip-amdgcn-amd-amdhsa--gfx940",
        G950,
        G1250,
        SM100,
        "hip-amdgcn-amd-amdhsa--gfx950:foo+",
        "hip-amdgcn-amd-amdhsa--gfx950:xnack+:xnack-",
        "host",
        "",
    ] {
        let targets = format!("-targets={HOST},{t}");
        cases.push(c(
            &["-type=bc", &targets, "-input=p0", "-input=p1", "-output=o"],
            &["o"],
        ));
        cases.push(c(
            &["-type=o", &targets, "-input=h.o", "-input=p1", "-output=o"],
            &["o"],
        ));
        cases.push(c(
            &[
                "-type=bc",
                "-unbundle",
                "-input=n.bc",
                &targets,
                "-output=o0",
                "-output=o1",
                "-allow-missing-bundles",
            ],
            &["o0", "o1"],
        ));
    }
    let conflict = format!("-targets={G906},{G906}:xnack+");
    cases.push(c(
        &["-type=bc", &conflict, "-input=p0", "-input=p1", "-output=o"],
        &[],
    ));
    // The compressed-bundle version `-compress` writes.
    let t3 = format!("-targets={HOST},{G950},{SM100}");
    let three = [
        "-type=bc",
        t3.as_str(),
        "-input=p0",
        "-input=p1",
        "-input=p2",
        "-output=out",
        "-compress",
    ];
    for v in ["2", "3", "1", "4", "0", "x", "", "99999", " 3", "+3"] {
        cases.push(c(&three, &["out"]).env("COMPRESSED_BUNDLE_FORMAT_VERSION", v));
    }
    cases.push(
        c(&three, &["out"])
            .env("COMPRESSED_BUNDLE_FORMAT_VERSION", "x")
            .env("OFFLOAD_BUNDLER_COMPRESSION_LEVEL", "y"),
    );
    cases.push(
        c(&three, &["out"])
            .env("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")
            .env("OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "1"),
    );
    let mut text = three.to_vec();
    text[0] = "-type=ll";
    cases.push(c(&text, &["out"]).env("COMPRESSED_BUNDLE_FORMAT_VERSION", "2"));
    // Reading them back, and the fat binary of clang-22's --offload-compress.
    for f in [
        "n.bc",
        "n2.ccob",
        "n3.ccob",
        "kz.fatbin",
        "cut12.ccob",
        "cut30.ccob",
        "badid.bc",
        "omp.o",
        "kz.o",
        "kzrdc.o",
    ] {
        for ty in ["bc", "o"] {
            cases.push(c(
                &[&format!("-type={ty}"), "-list", &format!("-input={f}")],
                &[],
            ));
        }
        for targets in [
            format!("{HOST},{G950},{SM100}"),
            G1250.to_string(),
            "hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx950".into(),
            "hipv4-amdgcn-amd-amdhsa--gfx950:xnack+".into(),
            "hip-amdgcn-amd-amdhsa--gfx950:xnack-".into(),
            "hip-amdgcn-amd-amdhsa--gfx950".into(),
            format!("host-x86_64-unknown-linux-gnu,{G906}"),
        ] {
            let n = targets.split(',').count();
            let outs: Vec<String> = (0..n).map(|i| format!("o{i}")).collect();
            for ty in ["bc", "o"] {
                let mut args = vec![
                    format!("-type={ty}"),
                    "-unbundle".into(),
                    format!("-input={f}"),
                    format!("-targets={targets}"),
                ];
                args.extend(outs.iter().map(|o| format!("-output={o}")));
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                let o: Vec<&str> = outs.iter().map(String::as_str).collect();
                cases.push(c(&a, &o));
                let mut m = a.clone();
                m.push("-allow-missing-bundles");
                cases.push(c(&m, &o));
            }
        }
    }
    // An unknown compressed-bundle version: LLVM's release build runs into undefined
    // behaviour; both fail, and only that is compared.
    cases.push(
        c(
            &[
                "-type=bc",
                "-unbundle",
                "-input=v4.ccob",
                &format!("-targets={G950}"),
                "-output=o0",
            ],
            &[],
        )
        .no_stderr(),
    );
    // Archives: clang-22's objects and a member whose bundle ID 22 refuses.
    for f in ["libbad.a", "libk22.a"] {
        for t in [
            G950,
            "hip-amdgcn-amd-amdhsa--gfx1250",
            "hip-amdgcn-amd-amdhsa--gfx90a",
        ] {
            for extra in [
                &[][..],
                &["-allow-missing-bundles"],
                &["-check-input-archive"],
            ] {
                let mut a = vec![
                    "-type=a".to_string(),
                    "-unbundle".into(),
                    format!("-input={f}"),
                    format!("-targets={t}"),
                    "-output=o.a".into(),
                ];
                a.extend(extra.iter().map(|s| s.to_string()));
                let a: Vec<&str> = a.iter().map(String::as_str).collect();
                cases.push(c(&a, &["o.a"]));
            }
        }
    }
    check_all("llvm22", &cases);
}

/// `libk22.a`: clang-22's compressed HIP objects and its OpenMP object.
fn make_archive_22() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let inner = llvm22::inner_path(inputs_22());
        llvm22::Run::new(
            Side::Llvm,
            "llvm-ar",
            ["rcs", "libk22.a", "kzrdc.o", "kz.o", "omp.o", "n3.ccob"],
            &inner,
        )
        .ok();
    });
}
