//! Integration tests: the bundler.
//!
//! Conformance: offkit under the name `clang-offload-bundler` and LLVM 19's tool run with the
//! same arguments over a generated matrix (every type, bundle/unbundle/list, compressed or
//! not, objects and archives built by clang-19 including HIP `-fgpu-rdc` objects, missing
//! bundles, `-hip-openmp-compatible`, target-ID compatibility, malformed inputs, command-line
//! errors); they must agree on success or failure, stdout and output files, and stderr where it
//! is deterministic. Round trips: `offkit unbundle` gives back what either tool bundled.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_format::bundle::{binary, compressed};
use offkit_testutil::bundler::{bytes, differences, run_case, Case, ToolDir};
use offkit_testutil::llvm22_bundler::{Llvm19, Oracle};
use offkit_testutil::{llvm_tool, run, run_ok};

/// The shared inputs and the two tool directories.
struct Fixture {
    inputs: PathBuf,
    llvm: ToolDir,
    ours: ToolDir,
    work: PathBuf,
}

const HOST: &str = "host-x86_64-unknown-linux-gnu";
const PC_HOST: &str = "host-x86_64-pc-linux-gnu";
const G906: &str = "hip-amdgcn-amd-amdhsa-gfx906";
const G90A_XNACK: &str = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+";
const SM70: &str = "openmp-nvptx64-nvidia-cuda-sm_70";

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(build_fixture)
}

fn build_fixture() -> Fixture {
    let root = offkit_testutil::fixtures::shared_dir(env!("CARGO_TARGET_TMPDIR"), "bundler");
    let inputs = root.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let llvm = ToolDir::new(&root.join("llvm"), &llvm_tool("clang-offload-bundler"));
    let ours = ToolDir::new(&root.join("ours"), Path::new(env!("CARGO_BIN_EXE_offkit")));
    make_inputs(
        &inputs,
        &Llvm19 {
            bundler: &llvm.bundler(),
        },
    );
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    Fixture {
        inputs,
        llvm,
        ours,
        work,
    }
}

/// Makes the inputs of every case in `d` with the release's tools (`oracle`): payloads, host
/// and HIP `-fgpu-rdc` objects, archives, bundles made by the release's bundler, and hand-made
/// malformed ones.
pub(crate) fn make_inputs(d: &Path, oracle: &dyn Oracle) {
    // Payloads.
    std::fs::write(d.join("p0"), bytes(1, 3000)).unwrap();
    std::fs::write(d.join("p1"), bytes(2, 777)).unwrap();
    std::fs::write(d.join("p2"), bytes(3, 40_000)).unwrap();
    std::fs::write(d.join("p3"), b"x").unwrap();
    std::fs::write(d.join("empty"), b"").unwrap();
    std::fs::write(d.join("t1.i"), b"int host_side(void);\n").unwrap();
    std::fs::write(d.join("t2.i"), b"int device_side(void); // no newline").unwrap();
    // Objects and archives built by clang-19.
    oracle.compile_c(
        d,
        "h",
        "int host_fn(void) { return 42; }\nint host_data = 7;\n",
    );
    let kern = "__attribute__((device)) int dev_one = 1;\n\
                __attribute__((global)) void kern_one(int *p) { *p = dev_one; }\n";
    oracle.compile_hip_rdc(d, "k", kern, &["gfx90a"]);
    oracle.compile_hip_rdc(
        d,
        "k2",
        "__attribute__((device)) int dev_two = 2;\n\
         __attribute__((global)) void kern_two(int *p) { *p = dev_two; }\n",
        &["gfx90a", "gfx906:xnack+"],
    );
    oracle.compile_hip_rdc(
        d,
        "k3",
        "__attribute__((global)) void kern_three(int *p) { *p = 3; }\n",
        &["gfx906:sramecc+:xnack+", "gfx906:xnack-"],
    );
    oracle.archive(d, "lib.a", &["k.o", "k2.o", "h.o"]);
    oracle.archive(d, "lib3.a", &["k3.o", "k.o"]);
    // Bundles made by the release's bundler (the unbundling and listing inputs).
    let mk = |args: &[&str]| oracle.bundler(d, args);
    let t4 = format!("{HOST},{G906},{G90A_XNACK},{SM70}");
    mk(&[
        "-type=bc",
        &format!("-targets={t4}"),
        "-input=p0",
        "-input=p1",
        "-input=p2",
        "-input=p3",
        "-output=b.bc",
    ]);
    mk(&[
        "-type=bc",
        &format!("-targets={t4}"),
        "-input=p0",
        "-input=p1",
        "-input=p2",
        "-input=p3",
        "-output=b16.bc",
        "-bundle-align=16",
    ]);
    mk(&[
        "-type=bc",
        &format!("-targets={t4}"),
        "-input=p0",
        "-input=p1",
        "-input=p2",
        "-input=p3",
        "-output=c.bc",
        "-compress",
    ]);
    mk(&[
        "-type=i",
        &format!("-targets={HOST},{G906}"),
        "-input=t1.i",
        "-input=t2.i",
        "-output=b.i",
    ]);
    mk(&[
        "-type=i",
        &format!("-targets={HOST},{G906}"),
        "-input=t1.i",
        "-input=t2.i",
        "-output=c.i",
        "-compress",
    ]);
    mk(&[
        "-type=ll",
        &format!("-targets={HOST},{G906}"),
        "-input=t1.i",
        "-input=t2.i",
        "-output=b.ll",
    ]);
    mk(&[
        "-type=o",
        &format!("-targets={HOST},{G906},{G90A_XNACK}"),
        "-input=h.o",
        "-input=p1",
        "-input=p2",
        "-output=fat.o",
    ]);
    mk(&[
        "-type=bc",
        "-targets=hip-amdgcn-amd-amdhsa-gfx906,hip-amdgcn-amd-amdhsa--gfx906",
        "-input=p1",
        "-input=p3",
        "-output=dup.bc",
    ]);
    // A compressed binary bundle of device code, as an archive member.
    mk(&[
        "-type=bc",
        &format!("-targets={G906},hip-amdgcn-amd-amdhsa-gfx90a"),
        "-input=p1",
        "-input=p2",
        "-output=cb.o",
        "-compress",
    ]);
    oracle.archive(d, "libc.a", &["cb.o", "k.o"]);
    // Hand-made inputs: old-style IDs, version 1 and 3 compressed bundles, malformed headers.
    let plain = std::fs::read(d.join("b.bc")).unwrap();
    let old = binary::write(
        &[
            (b"host-x86_64-unknown-linux-gnu", b"old host"),
            (b"hip-amdgcn-amd-amdhsa-gfx906", b"old dev"),
        ],
        1,
    )
    .unwrap();
    std::fs::write(d.join("old.bc"), old).unwrap();
    for (v, name) in [(1u16, "v1.ccob"), (3, "v3.ccob")] {
        let opts = compressed::Options {
            version: v,
            ..compressed::Options::default()
        };
        std::fs::write(
            d.join(name),
            compressed::compress(&plain, &opts).unwrap().bytes,
        )
        .unwrap();
    }
    let zlib = compressed::Options {
        method: compressed::Method::Zlib,
        level: 6,
        ..compressed::Options::default()
    };
    std::fs::write(
        d.join("zlib.ccob"),
        compressed::compress(&plain, &zlib).unwrap().bytes,
    )
    .unwrap();
    let c = std::fs::read(d.join("c.bc")).unwrap();
    let mut two = c.clone();
    two.extend_from_slice(&c);
    std::fs::write(d.join("two.ccob"), &two).unwrap();
    let mut bad_method = c.clone();
    bad_method[6] = 9;
    std::fs::write(d.join("badmethod.ccob"), &bad_method).unwrap();
    std::fs::write(d.join("short.ccob"), &c[..22]).unwrap();
    std::fs::write(d.join("trunc.ccob"), &c[..c.len() - 10]).unwrap();
    let mut small_cap = c.clone();
    small_cap[12..16].copy_from_slice(&10u32.to_le_bytes());
    std::fs::write(d.join("smallcap.ccob"), &small_cap).unwrap();
    let mut bad_hash = c.clone();
    bad_hash[16] ^= 0xff;
    std::fs::write(d.join("badhash.ccob"), &bad_hash).unwrap();
    std::fs::write(d.join("trunc.bc"), &plain[..60]).unwrap();
    std::fs::write(d.join("magic.bc"), &plain[..24]).unwrap();
    let mut crash = plain.clone();
    crash[24] = 5; // claims 5 entries, has 4: LLVM 19 crashes
    std::fs::write(d.join("crash.bc"), &crash).unwrap();
    let mut zero = plain.clone();
    zero[24..32].copy_from_slice(&0u64.to_le_bytes());
    std::fs::write(d.join("zero.bc"), &zero).unwrap();
    let mut first_bad = plain.clone();
    first_bad[32..40].copy_from_slice(&0u64.to_le_bytes());
    std::fs::write(d.join("firstbad.bc"), &first_bad).unwrap();
    let mut overlap = plain.clone();
    overlap[32..40].copy_from_slice(&1u64.to_le_bytes()); // host payload inside the header
    std::fs::write(d.join("overlap.bc"), &overlap).unwrap();
    let mut wrap = plain.clone();
    wrap[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    std::fs::write(d.join("wrap.bc"), &wrap).unwrap();
    std::fs::write(
        d.join("noend.i"),
        format!("\n// __CLANG_OFFLOAD_BUNDLE____START__ {HOST}-\nint x;\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("resp.txt"),
        format!("-type=bc -targets={HOST},{G906}\n-input=p0 '-input=p1'\n"),
    )
    .unwrap();
}

/// Runs every case with both tools and fails with all the differences.
fn check_all(group: &str, cases: &[Case]) {
    let f = fixture();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = format!("{group}-{i}");
        let a = run_case(&f.llvm, &f.inputs, &f.work, &format!("{name}-llvm"), case);
        let b = run_case(&f.ours, &f.inputs, &f.work, &format!("{name}-ours"), case);
        if let Some(d) = differences(case, &a, &b) {
            failures.push(format!("case {name}: {:?}\n{d}", case.args));
        }
    }
    eprintln!(
        "bundler conformance `{group}`: {} of {} cases agree with LLVM 19",
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

fn c(args: &[&str], outputs: &[&str]) -> Case {
    Case::new(args, outputs)
}

#[test]
fn command_line() {
    check_all("cli", &command_line_cases(&fixture().inputs));
}

/// The `cli` cases (`inputs`: where [`make_inputs`] made the inputs).
pub(crate) fn command_line_cases(_inputs: &Path) -> Vec<Case> {
    let t = format!("-targets={HOST},{G906}");
    let cases = vec![
        c(&["--help"], &[]),
        c(&["-help"], &[]),
        c(&["--help-hidden"], &[]),
        c(&["--help-list"], &[]),
        c(&["--help-list-hidden"], &[]),
        c(&["--version"], &[]),
        c(&["-type=bc", "-h"], &[]),
        c(&["-h"], &[]),
        c(&[], &[]),
        c(&["-type=bc"], &[]),
        c(&["-foo", "--help"], &[]),
        c(&["--help=false"], &[]),
        c(&["--help=0", "-type=bc"], &[]),
        c(&["-type=bc", "--help-list=1"], &[]),
        c(&["-type=bc", "-hh"], &[]),
        c(&["-lsit", "-type=bc"], &[]),
        c(&["x", "-type=bc"], &[]),
        c(&["-type=bc", "--list=yes"], &[]),
        c(&["-type=bc", "-targets"], &[]),
        c(&["--bundle-align=-1", "-type=bc"], &[]),
        c(&["-compression-level=abc", "-type=bc"], &[]),
        c(&["-type=bc", "-list", "-unbundle", "-input=b.bc"], &[]),
        c(&["-type=bc", "-list", "-input=b.bc", "-input=b.bc"], &[]),
        c(&["-type=bc", "-list", "-input=b.bc", "-output=x"], &[]),
        c(&["-type=bc", "-list", "-input=b.bc", &t], &[]),
        c(
            &[
                "-type=bc",
                "-check-input-archive",
                &t,
                "-input=p0",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                "-check-input-archive",
                "-unbundle",
                &t,
                "-input=b.bc",
                "-output=o",
                "-output=o2",
            ],
            &[],
        ),
        c(&["-type=bc", &t, "-input=p0", "-input=p1"], &[]),
        c(&["-type=bc", "-input=p0", "-output=o"], &["o"]),
        c(
            &[
                "-type=bc",
                "-unbundle",
                &t,
                "-input=b.bc",
                "-input=b.bc",
                "-output=o",
                "-output=o2",
            ],
            &[],
        ),
        c(
            &["-type=bc", "-unbundle", &t, "-input=b.bc", "-output=o"],
            &[],
        ),
        c(&["-type=a", &t, "-input=p0", "-input=p1", "-output=o"], &[]),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
                "-output=o2",
            ],
            &[],
        ),
        c(&["-type=bc", &t, "-input=p0", "-output=o"], &[]),
        c(&["-type=bc", &t, "-inputs=p0,p1", "-output=o"], &["o"]),
        c(
            &["-type=bc", &t, "-inputs=p0,p1", "-input=p1", "-output=o"],
            &[],
        ),
        c(
            &["-type=bc", "-unbundle", &t, "-input=b.bc", "-outputs=o1,o2"],
            &["o1", "o2"],
        ),
        c(
            &[
                "-type=bc",
                "-unbundle",
                &t,
                "-input=b.bc",
                "-outputs=o1,o2",
                "-output=o3",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                &format!("-targets={HOST},{HOST}"),
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &[],
        ),
        c(
            &["-type=bc", "-targets=host", "-input=p0", "-output=o"],
            &[],
        ),
        c(&["-type=bc", "-targets=", "-input=p0", "-output=o"], &[]),
        c(
            &[
                "-type=bc",
                "-targets=hop-x86_64-unknown-linux-gnu",
                "-input=p0",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                "-targets=host-x86_xx-unknown-linux-gnu",
                "-input=p0",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                &format!("-targets={G906},{G906}:xnack+"),
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                &format!("-targets={HOST},openmp-x86_64-pc-linux-gnu"),
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &["o"],
        ),
        c(
            &[
                "-type=bc",
                &format!("-targets=openmp-x86_64-pc-linux-gnu,{SM70}"),
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                &format!("-targets={HOST},{PC_HOST}"),
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &[],
        ),
        c(
            &[
                "-type=bc",
                "-unbundle",
                &format!("-targets={HOST},{PC_HOST}"),
                "-input=b.bc",
                "-output=o",
                "-output=o2",
            ],
            &[],
        ),
        c(
            &["-type=zz", &t, "-input=p0", "-input=p1", "-output=o"],
            &[],
        ),
        c(
            &["-type=bc", &t, "-input=p0", "-input=nope", "-output=o"],
            &[],
        ),
        c(&["-type=bc", &t, "-input=p0", "-input=", "-output=o"], &[]),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=no/such/dir/o",
            ],
            &[],
        ),
        c(&["@resp.txt", "-output=o"], &["o"]),
        c(
            &[
                "-type=ll",
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
            ],
            &["o"],
        ),
        c(
            &[
                "--type",
                "bc",
                "--targets",
                &format!("{HOST},{G906}"),
                "--input",
                "p0",
                "--input",
                "p1",
                "--output",
                "o",
            ],
            &["o"],
        ),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
                "-bundle-align=0x10",
            ],
            &["o"],
        ),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
                "-bundle-align=010",
            ],
            &["o"],
        ),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
                "-bundle-align=0b111",
            ],
            &["o"],
        ),
        c(
            &[
                "-type=bc",
                &t,
                "-input=p0",
                "-input=p1",
                "-output=o",
                "-list=false",
                "-unbundle=0",
            ],
            &["o"],
        ),
    ];
    cases
}

#[test]
fn bundling() {
    check_all("bundle", &bundling_cases(&fixture().inputs));
}

/// The `bundle` cases (`inputs`: where [`make_inputs`] made the inputs).
pub(crate) fn bundling_cases(_inputs: &Path) -> Vec<Case> {
    let sets = [
        format!("{HOST},{G906}"),
        format!("{HOST},{G906},{G90A_XNACK},{SM70}"),
        format!("{G906},hip-amdgcn-amd-amdhsa-gfx90a"),
        format!("openmp-x86_64-pc-linux-gnu,{PC_HOST}"),
        "hip-amdgcn-amd-amdhsa-gfx906,hip-amdgcn-amd-amdhsa--gfx906".to_string(),
    ];
    let inputs = ["p0", "p1", "p2", "p3"];
    let mut cases = Vec::new();
    for ty in [
        "bc", "gch", "ast", "i", "ii", "cui", "hipi", "d", "s", "ll", "o",
    ] {
        for (si, set) in sets.iter().enumerate() {
            let n = set.split(',').count();
            let mut args = vec![format!("-type={ty}"), format!("-targets={set}")];
            args.extend(inputs[..n].iter().map(|i| format!("-input={i}")));
            args.push("-output=out".into());
            let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            cases.push(c(&refs, &["out"]));
            if si < 2 {
                let mut z = refs.clone();
                z.push("-compress");
                cases.push(c(&z, &["out"]));
            }
        }
    }
    let t = format!("-targets={HOST},{G906},{G90A_XNACK}");
    let three = [
        "-type=bc",
        &t,
        "-input=p0",
        "-input=p1",
        "-input=p2",
        "-output=out",
    ];
    for align in ["1", "3", "16", "4096", "0x1000"] {
        let a = format!("-bundle-align={align}");
        let mut v = three.to_vec();
        v.push(&a);
        cases.push(c(&v, &["out"]));
    }
    for level in ["0", "1", "19", "-5", "25"] {
        let l = format!("-compression-level={level}");
        let mut v = three.to_vec();
        v.extend(["-compress", &l]);
        cases.push(c(&v, &["out"]));
    }
    cases.push(c(&three, &["out"]).env("OFFLOAD_BUNDLER_COMPRESS", "1"));
    cases.push(c(&three, &["out"]).env("OFFLOAD_BUNDLER_COMPRESS", "true"));
    let mut off = three.to_vec();
    off.push("-compress=false");
    cases.push(c(&off, &["out"]).env("OFFLOAD_BUNDLER_COMPRESS", "1"));
    let mut on = three.to_vec();
    on.push("-compress");
    cases.push(c(&on, &["out"]).env("OFFLOAD_BUNDLER_COMPRESSION_LEVEL", "7"));
    cases.push(c(&on, &["out"]).env("OFFLOAD_BUNDLER_COMPRESSION_LEVEL", "0x7"));
    cases.push(
        c(&on, &["out"])
            .env("OFFLOAD_BUNDLER_COMPRESSION_LEVEL", "9")
            .env("OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "1"),
    );
    cases.push(c(&on, &["out"]).env("COMPRESSED_BUNDLE_FORMAT_VERSION", "3"));
    // Empty payloads, stdin and stdout.
    cases.push(c(
        &[
            "-type=bc",
            &format!("-targets={HOST},{G906}"),
            "-input=empty",
            "-input=empty",
            "-output=out",
        ],
        &["out"],
    ));
    cases.push(
        c(
            &[
                "-type=bc",
                &format!("-targets={HOST},{G906}"),
                "-input=-",
                "-input=p1",
                "-output=out",
            ],
            &["out"],
        )
        .stdin(b"from stdin"),
    );
    cases.push(c(
        &[
            "-type=bc",
            &format!("-targets={HOST},{G906}"),
            "-input=p0",
            "-input=p1",
            "-output=-",
        ],
        &[],
    ));
    cases.push(c(
        &[
            "-type=i",
            &format!("-targets={HOST},{G906}"),
            "-input=t1.i",
            "-input=t2.i",
            "-output=-",
            "-compress",
        ],
        &[],
    ));
    // Fat objects: llvm-objcopy adds the sections; -compress has no effect; -### prints.
    let obj = format!("-targets={HOST},{G906},{G90A_XNACK}");
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=h.o",
            "-input=p1",
            "-input=p2",
            "-output=fat",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=h.o",
            "-input=p1",
            "-input=p2",
            "-output=fat",
            "-compress",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=h.o",
            "-input=p1",
            "-input=p2",
            "-output=fat",
            "-###",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=h.o",
            "-input=p1",
            "-input=p2",
            "-output=fat",
            "-###",
            "-compress",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &format!("-targets={G906},{HOST}"),
            "-input=p1",
            "-input=h.o",
            "-output=fat",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=p0",
            "-input=h.o",
            "-input=p2",
            "-output=fat",
        ],
        &["fat"],
    ));
    cases.push(c(
        &[
            "-type=o",
            &obj,
            "-input=k.o",
            "-input=p1",
            "-input=p2",
            "-output=fat",
        ],
        &["fat"],
    ));
    // Where LLVM 19 crashes (HIP-only object bundle, alignment 0), offkit fails cleanly.
    let hip_only = format!("-targets={G906},hip-amdgcn-amd-amdhsa-gfx90a");
    cases.push(
        c(
            &[
                "-type=o",
                &hip_only,
                "-input=h.o",
                "-input=p1",
                "-output=fat",
            ],
            &[],
        )
        .no_stderr(),
    );
    cases.push(
        c(
            &[
                "-type=bc",
                &obj,
                "-input=p0",
                "-input=p1",
                "-input=p2",
                "-output=o",
                "-bundle-align=0",
            ],
            &[],
        )
        .no_stderr(),
    );
    cases
}

#[test]
fn listing() {
    check_all("list", &listing_cases(&fixture().inputs));
}

/// The `list` cases (`inputs`: where [`make_inputs`] made the inputs).
pub(crate) fn listing_cases(inputs: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for (ty, files) in [
        (
            "bc",
            &[
                "b.bc",
                "b16.bc",
                "c.bc",
                "dup.bc",
                "old.bc",
                "v1.ccob",
                "v3.ccob",
                "zlib.ccob",
                "two.ccob",
                "badmethod.ccob",
                "short.ccob",
                "trunc.ccob",
                "smallcap.ccob",
                "badhash.ccob",
                "trunc.bc",
                "magic.bc",
                "crash.bc",
                "zero.bc",
                "firstbad.bc",
                "overlap.bc",
                "wrap.bc",
                "b.i",
                "p0",
                "empty",
                "fat.o",
            ][..],
        ),
        ("i", &["b.i", "c.i", "b.ll", "b.bc", "noend.i", "t1.i"][..]),
        ("ll", &["b.ll", "b.i"][..]),
        (
            "o",
            &[
                "fat.o", "k.o", "k2.o", "k3.o", "h.o", "b.bc", "c.bc", "lib.a",
            ][..],
        ),
        ("a", &["lib.a", "fat.o", "b.bc"][..]),
        ("zz", &["b.bc"][..]),
    ] {
        for f in files {
            cases.push(c(
                &[&format!("-type={ty}"), "-list", &format!("-input={f}")],
                &[],
            ));
        }
    }
    cases.push(
        c(&["-type=bc", "-list", "-input=-"], &[])
            .stdin(&std::fs::read(inputs.join("b.bc")).unwrap()),
    );
    cases.push(c(&["-type=bc", "-list", "-input=nope"], &[]));
    cases.push(c(&["-type=bc", "-list", "-input=c.bc", "-verbose"], &[]).no_stderr());
    cases
}

#[test]
fn unbundling() {
    check_all("unbundle", &unbundling_cases(&fixture().inputs));
}

/// The `unbundle` cases (`inputs`: where [`make_inputs`] made the inputs).
pub(crate) fn unbundling_cases(inputs: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    // (target, output) lists against the four-entry bundles.
    let lists: Vec<Vec<&str>> = vec![
        vec![HOST, G906, G90A_XNACK, SM70],
        vec![G906],
        vec![SM70, HOST],
        vec!["hip-amdgcn-amd-amdhsa-gfx906:xnack+"],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx906:xnack-",
            "hip-amdgcn-amd-amdhsa-gfx90a:xnack+",
        ],
        vec!["hip-amdgcn-amd-amdhsa-gfx90a"],
        vec!["hipv4-amdgcn-amd-amdhsa-gfx906"],
        vec!["openmp-amdgcn-amd-amdhsa-gfx906"],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx908",
            "hip-amdgcn-amd-amdhsa-gfx1030",
            HOST,
        ],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx908",
            "hip-amdgcn-amd-amdhsa-gfx1030",
            "hip-amdgcn-amd-amdhsa-gfx1100",
        ],
        vec![PC_HOST],
        vec!["openmp-nvptx64-nvidia-cuda-sm_80"],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx906",
            "hip-amdgcn-amd-amdhsa--gfx906",
        ],
        vec!["hip-amdgcn-unknown-amdhsa-gfx906"],
        vec!["hip-amdgcn-amd-amdhsa-unknown-gfx906"],
        vec!["hip-amdgcn-amd-amdhsa-gfx906:foo+"],
    ];
    for file in ["b.bc", "b16.bc", "c.bc", "v1.ccob", "badhash.ccob"] {
        for l in &lists {
            let mut args = vec![
                "-type=bc".to_string(),
                "-unbundle".into(),
                format!("-input={file}"),
            ];
            args.push(format!("-targets={}", l.join(",")));
            let outs: Vec<String> = (0..l.len()).map(|i| format!("o{i}")).collect();
            args.extend(outs.iter().map(|o| format!("-output={o}")));
            let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            let o: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
            cases.push(c(&a, &o));
            let mut m = a.clone();
            m.push("-allow-missing-bundles");
            cases.push(c(&m, &o));
            if file == "b.bc" {
                let mut h = a.clone();
                h.push("-hip-openmp-compatible");
                cases.push(c(&h, &o));
            }
        }
    }
    // The "Any" entry and the work list's StringMap order.
    let any = "-targets=hip-amdgcn-amd-amdhsa-gfx906:xnack+,hip-amdgcn-amd-amdhsa-gfx906:xnack-";
    cases.push(c(
        &[
            "-type=bc",
            "-unbundle",
            "-input=dup.bc",
            any,
            "-output=o0",
            "-output=o1",
        ],
        &["o0", "o1"],
    ));
    cases.push(c(
        &[
            "-type=bc",
            "-unbundle",
            "-input=dup.bc",
            any,
            "-output=o0",
            "-output=o1",
            "-allow-missing-bundles",
        ],
        &["o0", "o1"],
    ));
    cases.push(c(
        &[
            "-type=bc",
            "-unbundle",
            "-input=old.bc",
            &format!("-targets={HOST},{G906}"),
            "-output=o0",
            "-output=o1",
        ],
        &["o0", "o1"],
    ));
    cases.push(c(
        &[
            "-type=bc",
            "-unbundle",
            "-input=old.bc",
            &format!("-targets={HOST},{G906}"),
            "-output=o0",
            "-output=o1",
            "-allow-missing-bundles",
        ],
        &["o0", "o1"],
    ));
    // No bundle matches: the host target gets the whole input.
    for f in ["p0", "b.i"] {
        cases.push(c(
            &[
                "-type=bc",
                "-unbundle",
                &format!("-input={f}"),
                &format!("-targets={HOST},{G906}"),
                "-output=o0",
                "-output=o1",
                "-allow-missing-bundles",
            ],
            &["o0", "o1"],
        ));
    }
    // Text bundles.
    for (ty, f) in [
        ("i", "b.i"),
        ("i", "c.i"),
        ("ll", "b.ll"),
        ("ii", "b.i"),
        ("s", "b.i"),
        ("i", "noend.i"),
    ] {
        for l in [
            vec![HOST, G906],
            vec![G906],
            vec!["hip-amdgcn-amd-amdhsa-gfx90a"],
        ] {
            let mut args = vec![
                format!("-type={ty}"),
                "-unbundle".into(),
                format!("-input={f}"),
                format!("-targets={}", l.join(",")),
            ];
            let outs: Vec<String> = (0..l.len()).map(|i| format!("o{i}")).collect();
            args.extend(outs.iter().map(|o| format!("-output={o}")));
            let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            let o: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
            let mut m = a.clone();
            m.push("-allow-missing-bundles");
            // Without an end marker LLVM 19 reads out of bounds: only the failure is compared.
            let garbage = f == "noend.i";
            for case in [c(&a, &o), c(&m, &o)] {
                cases.push(if garbage { case.no_stderr() } else { case });
            }
        }
    }
    // Objects: the host entry is the object without its bundle sections (via llvm-objcopy).
    for (f, l) in [
        ("fat.o", vec![HOST, G906, G90A_XNACK]),
        ("fat.o", vec![G906]),
        ("k.o", vec![PC_HOST, "hip-amdgcn-amd-amdhsa-gfx90a"]),
        (
            "k2.o",
            vec![
                "hip-amdgcn-amd-amdhsa-gfx906:xnack+",
                "hip-amdgcn-amd-amdhsa-gfx90a:xnack-",
            ],
        ),
        (
            "k3.o",
            vec![
                "hip-amdgcn-amd-amdhsa-gfx906:sramecc+:xnack+",
                "hip-amdgcn-amd-amdhsa-gfx906:xnack-",
                PC_HOST,
            ],
        ),
        ("h.o", vec![HOST, G906]),
        ("b.bc", vec![HOST, G906]),
    ] {
        let mut args = vec![
            "-type=o".to_string(),
            "-unbundle".into(),
            format!("-input={f}"),
            format!("-targets={}", l.join(",")),
        ];
        let outs: Vec<String> = (0..l.len()).map(|i| format!("o{i}")).collect();
        args.extend(outs.iter().map(|o| format!("-output={o}")));
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
        cases.push(c(&a, &o));
        let mut m = a.clone();
        m.push("-allow-missing-bundles");
        cases.push(c(&m, &o));
    }
    cases.push(c(
        &[
            "-type=o",
            "-unbundle",
            "-input=k.o",
            &format!("-targets={PC_HOST}"),
            "-output=o0",
            "-###",
        ],
        &["o0"],
    ));
    // Malformed inputs.
    for f in [
        "trunc.bc",
        "magic.bc",
        "crash.bc",
        "zero.bc",
        "firstbad.bc",
        "overlap.bc",
        "wrap.bc",
        "two.ccob",
        "badmethod.ccob",
        "short.ccob",
        "trunc.ccob",
        "smallcap.ccob",
        "v3.ccob",
        "zlib.ccob",
        "empty",
    ] {
        for extra in [&[][..], &["-allow-missing-bundles"][..]] {
            let mut a = vec!["-type=bc", "-unbundle"];
            let i = format!("-input={f}");
            let t = format!("-targets={HOST},{G906}");
            a.extend([i.as_str(), t.as_str(), "-output=o0", "-output=o1"]);
            a.extend(extra);
            // A wrapping size makes LLVM 19 read out of bounds: only the failure is compared.
            let case = c(&a, &["o0", "o1"]);
            cases.push(if f == "wrap.bc" {
                case.no_stderr()
            } else {
                case
            });
        }
    }
    // stdin and stdout.
    let b = std::fs::read(inputs.join("c.bc")).unwrap();
    cases.push(
        c(
            &[
                "-type=bc",
                "-unbundle",
                "-input=-",
                &format!("-targets={G906}"),
                "-output=o0",
            ],
            &["o0"],
        )
        .stdin(&b),
    );
    cases.push(c(
        &[
            "-type=bc",
            "-unbundle",
            "-input=b.bc",
            &format!("-targets={G906}"),
            "-output=-",
        ],
        &[],
    ));
    cases.push(
        c(
            &[
                "-type=bc",
                "-unbundle",
                "-input=c.bc",
                &format!("-targets={G906}"),
                "-output=o0",
                "-verbose",
            ],
            &["o0"],
        )
        .no_stderr(),
    );
    cases
}

#[test]
fn archives() {
    check_all("archive", &archives_cases(&fixture().inputs));
}

/// The `archive` cases (`inputs`: where [`make_inputs`] made the inputs).
pub(crate) fn archives_cases(_inputs: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let lists: Vec<Vec<&str>> = vec![
        vec!["hip-amdgcn-amd-amdhsa-gfx90a"],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx906:xnack+",
            "hip-amdgcn-amd-amdhsa-gfx90a",
        ],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906:xnack-",
        ],
        vec!["hip-amdgcn-amd-amdhsa-gfx906:sramecc+:xnack+"],
        vec![PC_HOST, "hip-amdgcn-amd-amdhsa-gfx90a"],
        vec!["openmp-amdgcn-amd-amdhsa-gfx90a"],
        vec!["hip-amdgcn-amd-amdhsa-gfx1030"],
        vec![
            "hip-amdgcn-amd-amdhsa-gfx90a",
            "hip-amdgcn-amd-amdhsa--gfx90a",
        ],
    ];
    for f in ["lib.a", "lib3.a", "libc.a", "fat.o", "b.bc", "p0"] {
        for l in &lists {
            let mut args = vec![
                "-type=a".to_string(),
                "-unbundle".into(),
                format!("-input={f}"),
                format!("-targets={}", l.join(",")),
            ];
            let outs: Vec<String> = (0..l.len()).map(|i| format!("o{i}.a")).collect();
            args.extend(outs.iter().map(|o| format!("-output={o}")));
            let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            let o: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
            cases.push(c(&a, &o));
            for extra in [
                "-allow-missing-bundles",
                "-check-input-archive",
                "-hip-openmp-compatible",
            ] {
                let mut m = a.clone();
                m.push(extra);
                cases.push(c(&m, &o));
            }
        }
    }
    cases
}

/// `offkit unbundle` gives back, byte for byte, what LLVM 19 and `offkit bundle` bundled.
#[test]
fn offkit_round_trips() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let offkit = env!("CARGO_BIN_EXE_offkit");
    let ids = [
        ("host-x86_64-unknown-linux-gnu-", "p0"),
        ("hip-amdgcn-amd-amdhsa--gfx906", "p1"),
        ("hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "p2"),
        ("openmp-nvptx64-nvidia-cuda--sm_70", "p3"),
    ];
    let check = |bundle: &Path, label: &str| {
        for (id, input) in ids {
            let out = d.join(format!("{label}-{input}"));
            run_ok(
                offkit,
                [
                    "unbundle".as_ref(),
                    bundle.as_os_str(),
                    "--target".as_ref(),
                    format!("{id}={}", out.display()).as_ref(),
                ],
                d,
            );
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(f.inputs.join(input)).unwrap(),
                "{label}: {id}"
            );
        }
    };
    // What LLVM 19 bundled.
    for file in ["b.bc", "b16.bc", "c.bc", "v1.ccob", "v3.ccob", "zlib.ccob"] {
        check(&f.inputs.join(file), file);
    }
    // What offkit bundled, every way.
    let targets: Vec<String> = ids
        .iter()
        .map(|(id, i)| format!("--target={id}={}", f.inputs.join(i).display()))
        .collect();
    let variants: [&[&str]; 7] = [
        &["--type", "bc"],
        &["--type", "bc", "--align", "4096"],
        &["--compress"],
        &["--compress", "--ccob-version", "3"],
        &["--compress", "--method", "zlib", "--level", "9"],
        &["--compress", "--threads", "2", "--level", "-3"],
        &["--type", "ll"],
    ];
    for (i, v) in variants.iter().enumerate() {
        let out = d.join(format!("ours{i}"));
        let mut args: Vec<String> = vec!["bundle".into(), "-o".into(), out.display().to_string()];
        args.extend(v.iter().map(|s| s.to_string()));
        args.extend(targets.iter().cloned());
        run_ok(offkit, &args, d);
        check(&out, &format!("ours{i}"));
    }
    // offkit's uncompressed and compressed (version 2, one thread) bytes are LLVM's.
    let out = d.join("same.bc");
    let mut args: Vec<String> = vec![
        "bundle".into(),
        "--compress".into(),
        "-o".into(),
        out.display().to_string(),
    ];
    args.extend(targets.iter().cloned());
    run_ok(offkit, &args, d);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(f.inputs.join("c.bc")).unwrap()
    );
    // A fat object written in-process: LLVM 19 reads it back.
    let fat = d.join("fat.o");
    run_ok(
        offkit,
        [
            "bundle".to_string(),
            "--type=o".into(),
            "-o".into(),
            fat.display().to_string(),
            format!(
                "--target=host-x86_64-unknown-linux-gnu-={}",
                f.inputs.join("h.o").display()
            ),
            format!(
                "--target=hip-amdgcn-amd-amdhsa--gfx906={}",
                f.inputs.join("p1").display()
            ),
        ],
        d,
    );
    let listed = run_ok(
        llvm_tool("clang-offload-bundler"),
        ["-type=o", "-list", &format!("-input={}", fat.display())],
        d,
    );
    assert_eq!(
        listed.stdout_str(),
        "host-x86_64-unknown-linux-gnu-\nhip-amdgcn-amd-amdhsa--gfx906\n"
    );
    let dev = d.join("fat-dev");
    run_ok(
        llvm_tool("clang-offload-bundler"),
        [
            "-type=o".to_string(),
            "-unbundle".into(),
            format!("-input={}", fat.display()),
            format!("-targets={G906}"),
            format!("-output={}", dev.display()),
        ],
        d,
    );
    assert_eq!(
        std::fs::read(&dev).unwrap(),
        std::fs::read(f.inputs.join("p1")).unwrap()
    );
}

/// Strict errors of the `offkit` forms: file, offset, problem; exit 1; no output.
#[test]
fn offkit_rejects_bad_input() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let offkit = env!("CARGO_BIN_EXE_offkit");
    for (file, needle) in [
        ("trunc.bc", "offset 0x18"),
        ("crash.bc", "above the limit"),
        ("zero.bc", "no entries"),
        ("overlap.bc", "inside the header"),
        ("wrap.bc", "runs past the end"),
        ("badhash.ccob", "hash"),
        ("two.ccob", "host-x86_64-unknown-linux-gnu-"),
        ("badmethod.ccob", "unknown compression method"),
        ("short.ccob", "truncated"),
        ("smallcap.ccob", "header says"),
        ("noend.i", "no end marker"),
        ("dup.bc", "duplicate entry ID"),
        ("p0", "not an offload bundle"),
    ] {
        let out = dir.path().join("out");
        let input = f.inputs.join(file);
        let r = run(
            offkit,
            [
                "unbundle".as_ref(),
                input.as_os_str(),
                "--target".as_ref(),
                format!("{HOST}-={}", out.display()).as_ref(),
            ],
            dir.path(),
        );
        let err = r.stderr_str();
        if file == "two.ccob" {
            // Two identical concatenated bundles: every ID appears twice.
            assert!(err.contains("duplicate"), "{file}: {err}");
        } else {
            assert_eq!(r.code, Some(1), "{file}: {err}");
            assert!(err.contains(needle), "{file}: `{needle}` not in {err}");
        }
        assert!(
            err.contains(file),
            "{file}: the message names the file: {err}"
        );
        assert!(!out.exists(), "{file}: no output on failure");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{file}: no temporary left"
        );
    }
}
