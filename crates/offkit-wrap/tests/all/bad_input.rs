//! Bad input is refused before anything is written, with an error that names the image.

use offkit_wrap::{write_llvm_ir, write_object, Image, Kind, WrapOptions};

fn elf(machine: u16) -> Vec<u8> {
    let mut v = vec![0u8; 64];
    v[..4].copy_from_slice(b"\x7fELF");
    v[4] = 2;
    v[5] = 1;
    v[18..20].copy_from_slice(&machine.to_le_bytes());
    v
}

#[track_caller]
fn refused(images: &[Image<'_>], opts: &WrapOptions) -> String {
    let mut out = Vec::new();
    let err = write_object(images, opts, &mut out)
        .unwrap_err()
        .to_string();
    assert!(out.is_empty(), "nothing may be written: {err}");
    let err_ir = write_llvm_ir(images, opts, &mut out)
        .unwrap_err()
        .to_string();
    assert!(out.is_empty(), "nothing may be written: {err_ir}");
    assert_eq!(err, err_ir);
    err
}

#[test]
fn errors_name_the_image_and_write_nothing() {
    let x86 = elf(62);
    let gpu = elf(224);
    let omp = WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp);
    let hip = WrapOptions::new("x86_64-pc-linux-gnu", Kind::Hip);
    let ok = Image::new(&x86, "x86_64-pc-linux-gnu", "").named("ok.so");

    let e = refused(
        &[
            ok,
            Image::new(&gpu, "x86_64-pc-linux-gnu", "").named("gpu.o"),
        ],
        &omp,
    );
    assert_eq!(
        e,
        "image 1 (`gpu.o`) is not an x86-64 ELF object or LLVM bitcode: it is an ELF file for AMD GPU"
    );
    let e = refused(
        &[Image::new(b"hello", "x86_64-pc-linux-gnu", "").named("t.txt")],
        &omp,
    );
    assert_eq!(
        e,
        "image 0 (`t.txt`) is not an x86-64 ELF object or LLVM bitcode: it starts with bytes 68 65 6c 6c"
    );
    let e = refused(
        &[Image::new(&x86, "sparc-sun-solaris", "").named("s.o")],
        &omp,
    );
    assert_eq!(
        e,
        "image 0 (`s.o`): unknown target triple `sparc-sun-solaris`"
    );
    let e = refused(
        &[Image::new(&gpu, "amdgcn-amd-amdhsa", "gfx90a:xnack").named("g.o")],
        &hip,
    );
    assert_eq!(e, "image 0 (`g.o`): invalid target ID `gfx90a:xnack`");
    let e = refused(
        &[Image::new(&gpu, "amdgcn-amd-amdhsa", "gfx1030:xnack+")],
        &hip,
    );
    assert_eq!(e, "image 0: invalid target ID `gfx1030:xnack+`");
    let e = refused(&[ok], &hip);
    assert_eq!(
        e,
        "image 0 (`ok.so`): target triple `x86_64-pc-linux-gnu` cannot carry HIP code"
    );
    let e = refused(
        &[Image::new(&x86, "nvptx64-nvidia-cuda", "sm_70")],
        &WrapOptions::new("x86_64-pc-linux-gnu", Kind::Cuda),
    );
    assert_eq!(
        e,
        "image 0 is not a CUDA fatbinary: it is an ELF file for x86-64"
    );
    let e = refused(
        &[ok],
        &WrapOptions::new("x86_64-apple-darwin", Kind::OpenMp),
    );
    assert!(
        e.starts_with("unsupported host triple `x86_64-apple-darwin`"),
        "{e}"
    );
    assert_eq!(refused(&[], &omp), "no device images to wrap");
    let e = refused(
        &[Image::new(&gpu, "amdgcn-amd-amdhsa", "gfx90a")],
        &WrapOptions {
            image_info: true,
            ..hip.clone()
        },
    );
    assert!(e.contains("OpenMP images only"), "{e}");
}

#[test]
fn same_images_same_bytes() {
    let x86 = elf(62);
    let gpu = elf(224);
    let images = [
        Image::new(&gpu, "amdgcn-amd-amdhsa", "gfx90a"),
        Image::new(&x86, "x86_64-pc-linux-gnu", ""),
    ];
    for image_info in [false, true] {
        let o = WrapOptions {
            image_info,
            ..WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp)
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_object(&images, &o, &mut a).unwrap();
        write_object(&images, &o, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(!a.is_empty());
    }
}
