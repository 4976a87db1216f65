//! An image over 2 GiB: written from a memory map without a copy, linked with GNU ld and lld,
//! and run; the image arrives intact in the executable. (LLVM 19's own layout does not link
//! with GNU ld at this size — "relocation truncated to fit" — which is why offkit switches to
//! `.lrodata`; `bench/wrap.sh` shows that, it takes too long for every test run.)

use std::io::{BufWriter, Seek, SeekFrom, Write};

use offkit_format::scan::all_binaries;
use offkit_testutil::wrap::amdgpu_elf;
use offkit_tools::MappedFile;
use offkit_wrap::{Image, Kind, Large, WrapOptions, Wrapper};

use offkit_testutil::wrap::{build_offload_program as build, link_and_run, EXPECTED};

/// Just over 2 GiB.
const BIG: u64 = (2 << 30) + (16 << 20);
const MARK: &[u8] = b"offkit big image end";

#[test]
fn image_over_2gib_links_and_runs_with_gnu_ld_and_lld() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host, dev) = build(d);
    // A gfx90a code object header, zeros (a sparse file), and a marker at the very end.
    let big_path = amdgpu_elf(d, "big.img", 0x3f, 64);
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&big_path)
            .unwrap();
        f.set_len(BIG).unwrap();
        f.seek(SeekFrom::Start(BIG - MARK.len() as u64)).unwrap();
        f.write_all(MARK).unwrap();
    }
    let big = MappedFile::open(&big_path).unwrap();
    let device = std::fs::read(&dev).unwrap();
    let images = [
        Image::new(&device, "x86_64-pc-linux-gnu", ""),
        Image::new(&big, "amdgcn-amd-amdhsa", "gfx90a"),
    ];
    let write = |name: &str, large: Large| -> (bool, std::path::PathBuf) {
        let opts = WrapOptions {
            large,
            ..WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp)
        };
        let w = Wrapper::new(&images, &opts).unwrap();
        let path = d.join(name);
        let mut out = BufWriter::new(std::fs::File::create(&path).unwrap());
        w.write_object(&mut out).unwrap();
        out.flush().unwrap();
        (w.is_large(), path)
    };

    let (large, wrapper) = write("wrapper.o", Large::Auto);
    assert!(large, "an image over the threshold takes the large layout");
    for linker in ["bfd", "lld"] {
        let name = format!("big-{linker}");
        assert_eq!(
            link_and_run(d, &host, &wrapper, &name, linker),
            EXPECTED,
            "{linker}"
        );
        let exe = d.join(&name);
        {
            let bytes = MappedFile::open(&exe).unwrap();
            let bins = all_binaries(&bytes, 0).expect("the executable's offload binaries");
            let e = bins
                .iter()
                .map(|b| &b.entries[0])
                .find(|e| e.arch() == "gfx90a")
                .expect("the big image is in the executable");
            assert_eq!(e.image.len() as u64, BIG);
            assert!(e.image.starts_with(b"\x7fELF"));
            assert!(e.image.ends_with(MARK));
        }
        std::fs::remove_file(&exe).unwrap();
    }
    std::fs::remove_file(&wrapper).unwrap();
}
