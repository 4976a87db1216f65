//! Conformance: for the same images, offkit's object is LLVM 19's object (sections, symbols,
//! relocations), and offkit's IR is what LLVM 19 prints.

use offkit_testutil::fixtures::{compile_openmp, OPENMP_SAXPY};
use offkit_testutil::wrap::{assert_same_object, assert_same_text, compile_ir, llvm_wrap};
use offkit_wrap::Kind;

use crate::common::{embedded_images, opts, views, wrap, wrap_ir};

#[test]
fn openmp_x86_64_and_aarch64_match_llvm() {
    let dir = tempfile::tempdir().unwrap();
    let o = compile_openmp(
        dir.path(),
        "saxpy",
        OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu"],
        &[],
    );
    for host in ["x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"] {
        let llvm = llvm_wrap(
            &dir.path().join(host),
            host,
            "openmp",
            &[o.display().to_string()],
        );
        let images = embedded_images(&llvm.object);
        assert_eq!(images.len(), 1);
        let imgs = views(&images);
        let ours = wrap(&imgs, &opts(host, Kind::OpenMp));
        assert_same_object(&ours, &llvm.object, host);
        let ir = wrap_ir(&imgs, &opts(host, Kind::OpenMp));
        assert_same_text(&ir, &llvm.ir, &format!("{host}: IR"));
        let target = host.split('-').next().unwrap().to_string() + "-linux-gnu";
        let compiled = compile_ir(&llvm.dir, "llvm-ir", &llvm.ir, &target);
        assert_same_object(
            &ours,
            &compiled,
            &format!("{host}: LLVM's IR compiled by clang-19"),
        );
    }
}
