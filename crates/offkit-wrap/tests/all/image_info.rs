//! The image-info form has no LLVM 19 reference; its object must be the very bytes clang-19 makes
//! of the IR offkit prints for it, for any number of images (the constructor's branch changes form past
//! ten images on x86-64) and any target-ID lengths (strings over 16 bytes are 16-aligned).

use offkit_testutil::wrap::{assert_same_bytes, compile_ir};
use offkit_wrap::{Image, Kind, Large, WrapOptions};

use crate::common::{wrap, wrap_ir};

#[test]
fn object_is_the_bytes_clang19_makes_of_the_ir() {
    let dir = tempfile::tempdir().unwrap();
    let elf = |machine: u16, n: usize| {
        let mut v = vec![0x5au8; 40 + 13 * n];
        v[..4].copy_from_slice(b"\x7fELF");
        v[4] = 2;
        v[5] = 1;
        v[18..20].copy_from_slice(&machine.to_le_bytes());
        v
    };
    let archs = [
        "gfx90a",
        "",
        "gfx90a:sramecc+:xnack-",
        "gfx1030",
        "gfx942:xnack+",
    ];
    for host in ["x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"] {
        for (n, large) in [
            (1usize, Large::Never),
            (2, Large::Never),
            (10, Large::Never),
            (11, Large::Never),
            (12, Large::Never),
            (3, Large::Always),
        ] {
            let bytes: Vec<Vec<u8>> = (0..n)
                .map(|i| elf(if i % 5 == 1 { 62 } else { 224 }, i))
                .collect();
            let images: Vec<Image> = bytes
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let arch = archs[i % archs.len()];
                    let triple = if arch.is_empty() {
                        "x86_64-pc-linux-gnu"
                    } else {
                        "amdgcn-amd-amdhsa"
                    };
                    Image::new(b, triple, arch)
                })
                .collect();
            let o = WrapOptions {
                image_info: true,
                large,
                ..WrapOptions::new(host, Kind::OpenMp)
            };
            let ours = wrap(&images, &o);
            let target = format!("{}-linux-gnu", host.split('-').next().unwrap());
            let name = format!("{target}-{n}-{large:?}");
            let theirs = compile_ir(dir.path(), &name, &wrap_ir(&images, &o), &target);
            assert_same_bytes(&ours, &theirs, &name);
        }
    }
}
