//! Conformance, byte for byte: for the same images, offkit's registration object is the very
//! bytes of LLVM 19's (the `a.out.<kind>.image.wrapper.o` that `clang-linker-wrapper
//! --save-temps` keeps), offkit's IR is the text LLVM 19 prints (`--print-wrapped-module`), and
//! clang-19 compiles that text to the same bytes again. A failure shows the first differing
//! byte and, to explain it, the differences by meaning (sections, relocations, symbols).

use offkit_testutil::fixtures::{compile_openmp, OPENMP_SAXPY};
use offkit_testutil::stub_runtime::fake_cuda;
use offkit_testutil::wrap::{
    amdgpu_elf, assert_same_bytes, assert_same_text, compile_ir, cuda_elf, device_elf, llvm_wrap,
};
use offkit_wrap::{compressed, Image, Kind, WrapOptions};

use crate::common::{embedded_images, has_arch_keys, opts, views, wrap, wrap_ir};

#[test]
fn openmp_x86_64_and_aarch64_byte_identical_to_llvm19() {
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
        assert_same_bytes(&ours, &llvm.object, host);
        let ir = wrap_ir(&imgs, &opts(host, Kind::OpenMp));
        assert_same_text(&ir, &llvm.ir, &format!("{host}: IR"));
        let target = host.split('-').next().unwrap().to_string() + "-linux-gnu";
        let compiled = compile_ir(&llvm.dir, "llvm-ir", &llvm.ir, &target);
        assert_same_bytes(
            &ours,
            &compiled,
            &format!("{host}: LLVM's IR compiled by clang-19"),
        );
    }
}

const HOSTS: [&str; 2] = ["x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"];

/// `clang-19 --target` for a host triple (the aarch64 cross target Debian's clang knows).
fn clang_target(host: &str) -> String {
    format!("{}-linux-gnu", host.split('-').next().unwrap())
}

#[track_caller]
fn check_against(ours: &[u8], ir: &str, llvm: &offkit_testutil::wrap::LlvmWrapped, host: &str) {
    assert_same_bytes(ours, &llvm.object, host);
    assert_same_text(ir, &llvm.ir, &format!("{host}: IR"));
    let compiled = compile_ir(&llvm.dir, "ours-ir", ir, &clang_target(host));
    assert_same_bytes(
        ours,
        &compiled,
        &format!("{host}: offkit's IR compiled by clang-19"),
    );
}

#[test]
fn hip_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two GPUs given in the order LLVM 19 reorders (gfx90a sorts after gfx1030's "gfx1").
    let a = amdgpu_elf(d, "a.gfx90a", 0x3f, 300);
    let b = amdgpu_elf(d, "b.gfx1030", 0x36, 5000);
    let bytes = [std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap()];
    let images = [
        Image::new(&bytes[0], "amdgcn-amd-amdhsa", "gfx90a").named("a"),
        Image::new(&bytes[1], "amdgcn-amd-amdhsa", "gfx1030").named("b"),
    ];
    for host in HOSTS {
        let llvm = llvm_wrap(
            &d.join(host),
            host,
            "hip",
            &[
                format!("--override-image=hip={}", a.display()),
                format!("--override-image=hip={}", b.display()),
            ],
        );
        let o = opts(host, Kind::Hip);
        check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, host);
    }
}

#[test]
fn cuda_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cubin = cuda_elf(d, "k.cubin", 70, 64);
    let cuda = fake_cuda(d);
    for host in HOSTS {
        let llvm = llvm_wrap(
            &d.join(host),
            host,
            "cuda",
            &[
                format!("--cuda-path={}", cuda.display()),
                format!("--override-image=cuda={}", cubin.display()),
            ],
        );
        // The fatbinary LLVM embedded is the one its `fatbinary` wrote.
        let fatbin = std::fs::read(llvm.dir.join("a.out.fatbin")).unwrap();
        let images = [Image::new(&fatbin, "nvptx64-nvidia-cuda", "sm_70")];
        let o = opts(host, Kind::Cuda);
        check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, host);
    }
}

#[test]
fn relocatable_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = amdgpu_elf(d, "a.gfx906", 0x2f, 1001);
    let bytes = std::fs::read(&a).unwrap();
    let images = [Image::new(&bytes, "amdgcn-amd-amdhsa", "gfx906")];
    for host in HOSTS {
        // LLVM's `-r` run fails afterwards (there is no linked output to objcopy), but the
        // wrapper object is kept.
        let llvm = llvm_wrap(
            &d.join(host),
            host,
            "openmp",
            &[
                "-r".to_string(),
                format!("--override-image=openmp={}", a.display()),
            ],
        );
        let o = WrapOptions {
            relocatable: true,
            ..opts(host, Kind::OpenMp)
        };
        check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, host);
    }
}

/// More than 16 images: libstdc++'s introsort path of LLVM 19's broken comparator, with
/// repeated architectures, AMD and NVIDIA images mixed.
#[test]
fn many_images_in_llvm19_order_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let amd = [
        0x3f, 0x2c, 0x36, 0x2f, 0x41, 0x30, 0x4c, 0x22, 0x29, 0x3f, 0x33, 0x2a, 0x36,
    ];
    let nv = [70, 35, 90, 50, 80, 70, 60, 86, 75];
    // 22 images in one order, then 46 in a scrambled one.
    for (round, count) in [(0usize, 22usize), (1, 46)] {
        let d = &d.join(format!("round{round}"));
        std::fs::create_dir_all(d).unwrap();
        let mut files = Vec::new();
        for i in 0..count {
            let j = if round == 0 { i } else { (i * 17 + 5) % count };
            if j % 5 < 3 {
                files.push(amdgpu_elf(
                    d,
                    &format!("img{i}"),
                    amd[j % amd.len()],
                    100 + 8 * i,
                ));
            } else {
                files.push(cuda_elf(
                    d,
                    &format!("img{i}"),
                    nv[j % nv.len()],
                    1000 + 8 * i,
                ));
            }
        }
        check_many(d, &files);
    }
}

#[track_caller]
fn check_many(d: &std::path::Path, files: &[std::path::PathBuf]) {
    assert!(files.len() > 16);
    let args: Vec<String> = files
        .iter()
        .map(|f| format!("--override-image=openmp={}", f.display()))
        .collect();
    let llvm = llvm_wrap(&d.join("llvm"), HOSTS[0], "openmp", &args);
    // What LLVM recorded for each file (matched by contents), in the order given.
    let embedded = embedded_images(&llvm.object);
    let bytes: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let keyed: Vec<(String, String)> = bytes
        .iter()
        .map(|b| {
            let e = embedded
                .iter()
                .find(|e| &e.2 == b)
                .expect("every image embedded");
            (e.0.clone(), e.1.clone())
        })
        .collect();
    let images: Vec<Image> = bytes
        .iter()
        .zip(&keyed)
        .map(|(b, (t, a))| Image::new(b, t, a))
        .collect();
    let o = opts(HOSTS[0], Kind::OpenMp);
    check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, HOSTS[0]);
}

/// `clang-linker-wrapper --compress [--compression-level=N]`: a compressed bundle (`CCOB`).
#[test]
fn compressed_hip_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = amdgpu_elf(d, "a.gfx942", 0x4c, 20000);
    let bytes = std::fs::read(&a).unwrap();
    let images = [Image::new(&bytes, "amdgcn-amd-amdhsa", "gfx942")];
    for (name, level) in [("default", None), ("level9", Some(9))] {
        let mut args = vec![
            "--compress".to_string(),
            format!("--override-image=hip={}", a.display()),
        ];
        let mut copts = compressed::Options::default();
        if let Some(l) = level {
            args.push(format!("--compression-level={l}"));
            copts.level = l;
        }
        let llvm = llvm_wrap(&d.join(name), HOSTS[0], "hip", &args);
        let o = WrapOptions {
            hip_compress: Some(copts),
            ..opts(HOSTS[0], Kind::Hip)
        };
        check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, HOSTS[0]);
    }
}

/// `--override-image` of a CPU image: LLVM records no `arch` for it, unless its sort compares
/// the image past the triples (`StringData["arch"]` inserts an empty one).
#[test]
fn images_without_arch_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let x86 = device_elf(d, "x86.so", "EM_X86_64", 0, 0, 200);
    let x86b = device_elf(d, "x86b.so", "EM_X86_64", 0, 0, 300);
    let gpu = amdgpu_elf(d, "gpu", 0x3f, 100);
    let cases: [&[&std::path::Path]; 3] = [&[&x86], &[&x86, &gpu], &[&gpu, &x86, &x86b]];
    for (n, files) in cases.iter().enumerate() {
        let args: Vec<String> = files
            .iter()
            .map(|f| format!("--override-image=openmp={}", f.display()))
            .collect();
        let llvm = llvm_wrap(&d.join(format!("case{n}")), HOSTS[0], "openmp", &args);
        let embedded = embedded_images(&llvm.object);
        let keys = has_arch_keys(&llvm.object);
        let bytes: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let images: Vec<Image> = files
            .iter()
            .zip(&bytes)
            .map(|(f, b)| {
                let e = embedded.iter().find(|e| &e.2 == b).unwrap();
                let img = Image::new(b, &e.0, &e.1);
                // Only the GPU image's ELF names a CPU.
                if *f == gpu.as_path() {
                    img
                } else {
                    img.without_arch()
                }
            })
            .collect();
        if n == 0 {
            assert_eq!(keys, [false], "a lone CPU image has no arch key");
        }
        let o = opts(HOSTS[0], Kind::OpenMp);
        check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, HOSTS[0]);
    }
}

/// A HIP offload bundle made beforehand (as offkit's linker wrapper has the bundler make it)
/// is embedded as given.
#[test]
fn ready_made_hip_bundle_byte_identical_to_llvm19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = amdgpu_elf(d, "a.gfx90a", 0x3f, 777);
    let llvm = llvm_wrap(
        &d.join("llvm"),
        HOSTS[0],
        "hip",
        &[format!("--override-image=hip={}", a.display())],
    );
    let bundle = std::fs::read(llvm.dir.join("a.out.hipfb")).unwrap();
    let images = [Image::new(&bundle, "amdgcn-amd-amdhsa", "gfx90a")];
    let o = opts(HOSTS[0], Kind::Hip);
    check_against(&wrap(&images, &o), &wrap_ir(&images, &o), &llvm, HOSTS[0]);
}
