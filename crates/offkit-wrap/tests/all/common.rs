//! Shared helpers.

use offkit_format::scan::all_binaries;
use offkit_wrap::{Image, Kind, WrapOptions, Wrapper};

/// One image read back from an offload binary: `(triple, arch, bytes)`.
pub type Owned = (String, String, Vec<u8>);

/// Whether each offload binary in `obj` has an `arch` string.
pub fn has_arch_keys(obj: &[u8]) -> Vec<bool> {
    all_binaries(obj, 0)
        .expect("offload binaries")
        .iter()
        .map(|b| b.entries[0].string("arch").is_some())
        .collect()
}

/// The images LLVM's wrapper object embeds in `.llvm.offloading`, in its order.
pub fn embedded_images(obj: &[u8]) -> Vec<Owned> {
    all_binaries(obj, 0)
        .expect("LLVM's object has offload binaries")
        .into_iter()
        .map(|b| {
            let e = &b.entries[0];
            (
                e.triple().into_owned(),
                e.arch().into_owned(),
                e.image.to_vec(),
            )
        })
        .collect()
}

/// Borrowed views of owned images.
pub fn views(images: &[Owned]) -> Vec<Image<'_>> {
    images.iter().map(|(t, a, d)| Image::new(d, t, a)).collect()
}

/// offkit's object for `images`.
#[track_caller]
pub fn wrap(images: &[Image<'_>], opts: &WrapOptions) -> Vec<u8> {
    let mut out = Vec::new();
    Wrapper::new(images, opts)
        .expect("wrap")
        .write_object(&mut out)
        .expect("write");
    out
}

/// offkit's IR for `images`.
#[track_caller]
pub fn wrap_ir(images: &[Image<'_>], opts: &WrapOptions) -> String {
    let mut out = Vec::new();
    Wrapper::new(images, opts)
        .expect("wrap")
        .write_llvm_ir(&mut out)
        .expect("write");
    String::from_utf8(out).expect("IR is text")
}

pub fn opts(host: &str, kind: Kind) -> WrapOptions {
    WrapOptions::new(host, kind)
}
