//! Conformance with LLVM 22, byte for byte: programs compiled by clang-22 in the Debian 13 root
//! are linked by LLVM 22's `clang-linker-wrapper --save-temps --print-wrapped-module`; for the
//! images it linked, offkit's registration object (`WrapOptions::llvm = V22`) is the very bytes
//! of `a.out.<kind>.image.wrapper.o`, offkit's IR is the module it printed and, through LLVM
//! 22's `llvm-as`, the bitcode it kept (`a.out.<kind>.image.wrapper.bc`), and clang-22 compiles
//! offkit's IR to the same object again. On x86-64 and AArch64 hosts.

use offkit_llvm::LlvmVersion;
use offkit_testutil::llvm22::Scratch;
use offkit_testutil::llvm22_wrap::{
    self as w22, compile_ir, cuda_options, device_options, inner, linker_wrapper, llvm_as, Wrapped,
};
use offkit_testutil::wrap::{assert_same_bytes, assert_same_text};
use offkit_wrap::{Image, Kind, WrapOptions, Wrapper};

use crate::common::{embedded_images, views, wrap, wrap_ir};

const HOSTS: [&str; 2] = ["x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"];

fn opts22(host: &str, kind: Kind) -> WrapOptions {
    WrapOptions {
        llvm: LlvmVersion::V22,
        ..WrapOptions::new(host, kind)
    }
}

/// `clang-22 --target` for a host triple.
fn clang_target(host: &str) -> String {
    format!("{}-linux-gnu", host.split('-').next().unwrap_or(host))
}

#[track_caller]
fn check(s: &Scratch, images: &[Image<'_>], o: &WrapOptions, llvm: &Wrapped, what: &str) {
    let ours = wrap(images, o);
    assert_same_bytes(&ours, &llvm.object, what);
    let ir = wrap_ir(images, o);
    assert_same_text(&ir, &llvm.ir, &format!("{what}: IR"));
    let name = what.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    // The module's bitcode (`--save-temps`): offkit's IR through LLVM 22's `llvm-as`, its
    // symbol tables put in LLVM's order.
    let mut bc = llvm_as(s, &name, &ir);
    Wrapper::new(images, o)
        .expect("wrap")
        .bitcode_as_llvm_writes(&mut bc)
        .expect("reorder");
    assert!(bc == llvm.bitcode, "{what}: the module's bitcode differs");
    let compiled = compile_ir(s, &name, &ir, &clang_target(&o.host_triple));
    assert_same_bytes(
        &ours,
        &compiled,
        &format!("{what}: offkit's IR compiled by clang-22"),
    );
}

/// The linker wrapper on `input` (an object in `s`) for `host`, in directory `sub`.
#[track_caller]
fn link(s: &Scratch, sub: &str, host: &str, kind: &str, input: &str, extra: &[&str]) -> Wrapped {
    let mut args = device_options();
    if kind == "cuda" {
        args.extend(cuda_options(s));
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    args.push(inner(s, input));
    linker_wrapper(s, sub, host, kind, &args)
}

/// OpenMP offloading to the host and to an AMD GPU: the images are offload binaries in
/// `.llvm.offloading`, the entries `llvm_offload_entries`; also `-r`.
#[test]
fn openmp_byte_identical_to_llvm22() {
    let s = Scratch::new();
    let x86 = w22::openmp_x86_64(&s);
    let gpu = w22::openmp_amdgcn(&s);
    for host in HOSTS {
        for (name, input, extra) in [
            ("x86", &x86, &[][..]),
            ("gfx90a", &gpu, &[][..]),
            ("x86-r", &x86, &["-r"][..]),
        ] {
            let llvm = link(&s, &format!("{name}-{host}"), host, "openmp", input, extra);
            let owned = embedded_images(&llvm.object);
            assert_eq!(owned.len(), 1);
            let o = WrapOptions {
                relocatable: name.ends_with("-r"),
                ..opts22(host, Kind::OpenMp)
            };
            check(&s, &views(&owned), &o, &llvm, &format!("{name} on {host}"));
        }
    }
}

/// HIP on the new driver for two GPUs: the offload bundle of LLVM 22's order and host entry,
/// the entry walk of 22 (kind check, managed variables, the jump table on x86-64).
#[test]
fn hip_byte_identical_to_llvm22() {
    let s = Scratch::new();
    let input = w22::hip(&s, &["gfx90a", "gfx1030"]);
    for host in HOSTS {
        let llvm = link(&s, &format!("hip-{host}"), host, "hip", &input, &[]);
        let a = llvm.kept("a.out.amdgcn.gfx90a.img");
        let b = llvm.kept("a.out.amdgcn.gfx1030.img");
        let images = [
            Image::new(&b, "amdgcn-amd-amdhsa", "gfx1030"),
            Image::new(&a, "amdgcn-amd-amdhsa", "gfx90a"),
        ];
        check(
            &s,
            &images,
            &opts22(host, Kind::Hip),
            &llvm,
            &format!("HIP on {host}"),
        );
        // The bundle LLVM's bundler made, given ready-made, is embedded as it is.
        let bundle = llvm.kept("a.out.hipfb");
        let images = [Image::new(&bundle, "amdgcn-amd-amdhsa", "gfx90a")];
        check(
            &s,
            &images,
            &opts22(host, Kind::Hip),
            &llvm,
            &format!("HIP bundle on {host}"),
        );
    }
}

/// CUDA on the new driver (`sm_70`, device code linked from bitcode by the stand-in NVIDIA
/// tools): the fatbinary and LLVM 22's CUDA entry walk.
#[test]
fn cuda_byte_identical_to_llvm22() {
    let s = Scratch::new();
    let input = w22::cuda(&s);
    for host in HOSTS {
        let llvm = link(&s, &format!("cuda-{host}"), host, "cuda", &input, &[]);
        let fatbin = llvm.kept("a.out.fatbin");
        let images = [Image::new(&fatbin, "nvptx64-nvidia-cuda", "sm_70")];
        check(
            &s,
            &images,
            &opts22(host, Kind::Cuda),
            &llvm,
            &format!("CUDA on {host}"),
        );
    }
}

/// The same images written as LLVM 19's and LLVM 22's objects differ, and LLVM 19's object
/// keeps its own entry tables.
#[test]
fn releases_differ_only_where_they_should() {
    let gpu = b"any bytes".to_vec();
    let images = [Image::new(&gpu, "amdgcn-amd-amdhsa", "gfx90a")];
    for kind in [Kind::OpenMp, Kind::Hip] {
        let unchecked = |o: WrapOptions| WrapOptions {
            check_images: false,
            ..o
        };
        let o19 = wrap(&images, &unchecked(WrapOptions::new(HOSTS[0], kind)));
        let o22 = wrap(&images, &unchecked(opts22(HOSTS[0], kind)));
        assert_ne!(o19, o22);
        let has = |o: &[u8], s: &str| o.windows(s.len()).any(|w| w == s.as_bytes());
        assert!(has(&o22, "llvm_offload_entries") && !has(&o22, "_offloading_entries"));
        assert!(!has(&o19, "llvm_offload_entries"));
    }
}
