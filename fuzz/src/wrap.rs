//! Fuzz body: the registration module over arbitrary images (`offkit_wrap::Wrapper`), the
//! reading of an image embedded as given (its offload binary header, as LLVM 22's
//! `llvm-offload-wrapper` reads it), and the reordering of the module's bitcode
//! (`Wrapper::bitcode_as_llvm_writes`).
//!
//! The first byte chooses: bits 0-1 the kind (OpenMP, CUDA, HIP, OpenMP), bit 2 images as given,
//! bits 3-5 the host triple of `TRIPLES`, bit 6 LLVM 19 rather than 22; the rest is the image
//! (and, for OpenMP, its first half a second image), and also the bitcode that is reordered.

use std::io;

use offkit_llvm::LlvmVersion;
use offkit_wrap::{Image, Kind, WrapOptions, Wrapper};

/// Host triples: offkit's object hosts, IR-only hosts, and triples only the as-given module
/// takes.
const TRIPLES: [&str; 8] = [
    "x86_64-pc-linux-gnu",
    "arm64-apple-macosx",
    "aarch64-unknown-linux-gnu",
    "x86_64-pc-windows-msvc",
    "foo",
    "",
    "wasm32",
    "powerpc64le-unknown-linux-gnu",
];

/// Wraps `data` as the first byte says. Nothing may panic; the reordered bitcode keeps its
/// length and its bits (a permutation of records).
pub fn run(data: &[u8]) {
    let Some((&sel, payload)) = data.split_first() else {
        return;
    };
    let kind = match sel & 3 {
        1 => Kind::Cuda,
        2 => Kind::Hip,
        _ => Kind::OpenMp,
    };
    let triple = TRIPLES[usize::from(sel >> 3 & 7)];
    let opts = WrapOptions {
        llvm: if sel & 64 != 0 {
            LlvmVersion::V19
        } else {
            LlvmVersion::V22
        },
        as_given: sel & 4 != 0,
        check_images: false,
        ..WrapOptions::new(triple, kind)
    };
    let mut images = vec![Image::new(payload, "amdgcn-amd-amdhsa", "gfx90a")];
    if kind == Kind::OpenMp {
        images.push(Image::new(&payload[..payload.len() / 2], "x86_64", ""));
    }
    let Ok(w) = Wrapper::new(&images, &opts) else {
        return;
    };
    w.write_llvm_ir(&mut io::sink())
        .expect("IR writes to a sink");
    if !w.is_ir_only() {
        w.write_object(&mut io::sink())
            .expect("an object writes to a sink");
    }
    let mut bc = payload.to_vec();
    if w.bitcode_as_llvm_writes(&mut bc).is_ok() {
        let ones = |b: &[u8]| b.iter().map(|x| x.count_ones()).sum::<u32>();
        assert_eq!(bc.len(), payload.len(), "the bitcode keeps its length");
        assert_eq!(ones(&bc), ones(payload), "the bitcode keeps its bits");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("wrap");
        assert!(seeds.len() >= 5, "fuzz/seeds/wrap holds the seed corpus");
        for input in crate::mutations(&seeds, 300) {
            super::run(&input);
        }
    }

    /// The seed bitcode (`llvm-as` of a CUDA module of LLVM 22) is reordered.
    #[test]
    fn llvm_as_bitcode_is_reordered() {
        use offkit_wrap::{Image, Kind, WrapOptions, Wrapper};
        let seeds = crate::named_seeds("wrap");
        let (_, seed) = seeds
            .iter()
            .find(|(n, _)| n == "cuda-as-given-bitcode")
            .expect("seed");
        let bc = &seed[1..];
        let opts = WrapOptions {
            llvm: offkit_llvm::LlvmVersion::V22,
            as_given: true,
            ..WrapOptions::new("x86_64-pc-linux-gnu", Kind::Cuda)
        };
        let images = [Image::new(bc, "nvptx64-nvidia-cuda", "")];
        let w = Wrapper::new(&images, &opts).expect("wrapper");
        let mut out = bc.to_vec();
        w.bitcode_as_llvm_writes(&mut out).expect("reads");
        assert_ne!(out, bc, "the entry walk's names are put in LLVM's order");
        assert_eq!(out.len(), bc.len());
    }
}
