//! Integration tests: wrapper — `offkit wrap` and the drop-in `clang-offload-wrapper`, each
//! producing objects (or IR, or bitcode) that link with a clang-19 OpenMP program and run it
//! on the offload device against LLVM 19's libomptarget.

use std::path::{Path, PathBuf};

use offkit_testutil::wrap::{
    assert_same_bytes, build_offload_program, compile_ir, link_and_run, EXPECTED,
};
use offkit_testutil::{clang, run, run_ok};

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");
const HOST: &str = "x86_64-pc-linux-gnu";

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// `offkit wrap` with `args`, in `dir`.
#[track_caller]
fn offkit_wrap(dir: &Path, args: &[String]) -> offkit_testutil::Output {
    let mut all = vec!["wrap".to_string()];
    all.extend(args.iter().cloned());
    run(OFFKIT, &all, dir)
}

/// The drop-in, as a link named `clang-offload-wrapper` in `dir`.
fn dropin(dir: &Path) -> PathBuf {
    let link = dir.join("clang-offload-wrapper");
    if !link.exists() {
        std::os::unix::fs::symlink(OFFKIT, &link).unwrap();
    }
    link
}

#[test]
fn offkit_wrap_objects_and_ir_run_on_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host, dev) = build_offload_program(d);
    let image = format!("file={},triple={HOST}", s(&dev));
    for (name, extra) in [
        ("w19.o", vec![]),
        ("wseed.o", vec!["--image-info".to_string()]),
    ] {
        let out = d.join(name);
        let mut args = vec![
            "--host-triple".into(),
            HOST.into(),
            "--kind".into(),
            "openmp".into(),
            "--image".into(),
            image.clone(),
            "-o".into(),
            s(&out),
        ];
        args.extend(extra.clone());
        let r = offkit_wrap(d, &args);
        assert_eq!(r.code, Some(0), "{}", r.stderr_str());
        assert_eq!(
            link_and_run(d, &host, &out, &format!("p-{name}"), "bfd"),
            EXPECTED
        );

        // --emit=llvm: the same module as text; clang-19 compiles it to the same bytes, and
        // a plain `clang-19 -c` of it links and runs too.
        let ll = d.join(format!("{name}.ll"));
        let mut ir_args: Vec<String> = args
            .iter()
            .map(|a| if *a == s(&out) { s(&ll) } else { a.clone() })
            .collect();
        ir_args.push("--emit=llvm".into());
        let r = offkit_wrap(d, &ir_args);
        assert_eq!(r.code, Some(0), "{}", r.stderr_str());
        let ir = std::fs::read_to_string(&ll).unwrap();
        let compiled = compile_ir(d, &format!("{name}-ir"), &ir, HOST);
        assert_same_bytes(&std::fs::read(&out).unwrap(), &compiled, name);
        let plain = d.join(format!("{name}-clang.o"));
        run_ok(clang(), ["-c", &s(&ll), "-o", &s(&plain)], d);
        assert_eq!(
            link_and_run(d, &host, &plain, &format!("p-{name}-clang"), "lld"),
            EXPECTED
        );
    }
    // The same command twice gives the same bytes.
    let again = d.join("again.o");
    let r = offkit_wrap(
        d,
        &[
            "--host-triple".into(),
            HOST.into(),
            "--kind".into(),
            "openmp".into(),
            "--image".into(),
            image,
            "-o".into(),
            s(&again),
        ],
    );
    assert_eq!(r.code, Some(0));
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(d.join("w19.o")).unwrap()
    );
}

#[test]
fn offkit_wrap_refuses_bad_input_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("text.img"), b"not an object").unwrap();
    let out = d.join("w.o");
    let base = |image: &str, kind: &str| {
        vec![
            "--host-triple".to_string(),
            HOST.to_string(),
            "--kind".to_string(),
            kind.to_string(),
            "--image".to_string(),
            image.to_string(),
            "-o".to_string(),
            s(&out),
        ]
    };
    let cases = [
        (
            base("file=text.img,triple=x86_64-pc-linux-gnu", "openmp"),
            "error: image 0 (`text.img`) is not an x86-64 ELF object or LLVM bitcode: it starts \
             with bytes 6e 6f 74 20",
        ),
        (
            base("file=text.img,triple=wasm32-unknown-unknown", "openmp"),
            "error: image 0 (`text.img`): unknown target triple `wasm32-unknown-unknown`",
        ),
        (
            base(
                "file=text.img,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack",
                "hip",
            ),
            "error: image 0 (`text.img`): invalid target ID `gfx90a:xnack`",
        ),
        (
            base("file=missing.img,triple=x86_64-pc-linux-gnu", "openmp"),
            "error: failed to read `missing.img`",
        ),
        (
            base(
                "file=text.img,triple=x86_64-pc-linux-gnu,kind=hip",
                "openmp",
            ),
            "error: `--image file=text.img,triple=x86_64-pc-linux-gnu,kind=hip` says kind `hip`, \
             but `--kind openmp` was given",
        ),
    ];
    for (args, want) in cases {
        let r = offkit_wrap(d, &args);
        assert_eq!(r.code, Some(1), "{args:?}: {}", r.stderr_str());
        assert!(
            r.stderr_str().starts_with(want),
            "{args:?}:\n{}",
            r.stderr_str()
        );
        assert!(!out.exists(), "no output after an error");
    }
    let r = offkit_wrap(d, &["--kind".into(), "openmp".into()]);
    assert_eq!(r.code, Some(2), "usage errors exit 2");
    assert_eq!(
        std::fs::read_dir(d).unwrap().count(),
        1,
        "no temporary files left behind"
    );
}

#[test]
fn clang_offload_wrapper_dropin_object_and_bitcode_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host, dev) = build_offload_program(d);
    let tool = dropin(d);
    // An object (offkit writes it) and bitcode (offkit's IR through llvm-as), with both
    // spellings of the target ID option.
    let obj = d.join("wrap.o");
    run_ok(
        &tool,
        ["-target", HOST, "-o", &s(&obj), "--offload-arch=", &s(&dev)],
        d,
    );
    assert_eq!(link_and_run(d, &host, &obj, "p-dropin", "bfd"), EXPECTED);
    let bc = d.join("wrap.bc");
    run_ok(
        &tool,
        [
            &format!("--target={HOST}"),
            "--requirements=",
            &s(&dev),
            "-o",
            &s(&bc),
        ],
        d,
    );
    assert!(std::fs::read(&bc).unwrap().starts_with(b"BC\xc0\xde"));
    let bc_o = d.join("wrap-bc.o");
    run_ok(clang(), ["-c", &s(&bc), "-o", &s(&bc_o)], d);
    assert_eq!(
        link_and_run(d, &host, &bc_o, "p-dropin-bc", "lld"),
        EXPECTED
    );

    // The image-info contents: the target-ID string and the image info of each input.
    let obj2 = d.join("two.o");
    run_ok(
        &tool,
        [
            "-target",
            HOST,
            "-o",
            &s(&obj2),
            "--offload-arch=gfx90a:xnack+",
            &s(&dev),
            "--requirements=sm_70",
            &s(&dev),
        ],
        d,
    );
    let bytes = std::fs::read(&obj2).unwrap();
    assert!(bytes.windows(20).any(|w| w == b"gfx90a:xnack+\0sm_70\0"));
}

#[test]
fn clang_offload_wrapper_dropin_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tool = dropin(d);
    std::fs::write(d.join("img"), b"anything").unwrap();
    let r = run(&tool, ["-target", "nonsense-x-y", "-o", "w.o", "img"], d);
    assert_eq!(r.code, Some(1));
    assert_eq!(
        r.stderr_str(),
        format!(
            "{}: error: 'nonsense-x-y': unsupported target triple\n",
            s(&tool)
        )
    );
    let r = run(&tool, ["-target", HOST, "-o", "w.o", "missing"], d);
    assert_eq!(r.code, Some(1));
    assert_eq!(
        r.stderr_str(),
        format!(
            "{}: error: 'missing': No such file or directory\n",
            s(&tool)
        )
    );
    let r = run(&tool, Vec::<String>::new(), d);
    assert_eq!(r.code, Some(1));
    assert!(r
        .stderr_str()
        .contains("for the -o option: must be specified at least once!"));
    // Bitcode needs llvm-as: a clear error, and no output.
    let r = std::process::Command::new(&tool)
        .args(["-target", HOST, "-o", "w.bc", "img"])
        .env("OFFKIT_LLVM_AS", d.join("no-llvm-as"))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("no-llvm-as"), "{err}");
    assert!(!d.join("w.bc").exists());
    assert!(!d.join("w.o").exists());
    // Anything goes in as an image, like the original tool.
    run_ok(&tool, ["-target", HOST, "-o", "w.o", "img"], d);
}
