//! The wrap step done by offkit-wrap: the registration objects of the link's LLVM release,
//! written without LLVM.

use offkit_format::kind::OffloadKind;

use offkit_wrap::Error;

use crate::link::{Wrap, WrapRequest};

/// [`Wrap`] by offkit-wrap: LLVM 19's forms (OpenMP images in LLVM 19's order; CUDA and HIP
/// from their fatbinary or offload bundle).
#[derive(Debug, Clone, Copy, Default)]
pub struct OffkitWrap;

fn options(req: &WrapRequest<'_>) -> Result<offkit_wrap::WrapOptions, Error> {
    let kind = match req.kind {
        OffloadKind::OpenMp => offkit_wrap::Kind::OpenMp,
        OffloadKind::Cuda => offkit_wrap::Kind::Cuda,
        OffloadKind::Hip => offkit_wrap::Kind::Hip,
        k => {
            return Err(Error::BadOptions(format!(
                "{} wrapping is not supported",
                k.name()
            )))
        }
    };
    let mut o = offkit_wrap::WrapOptions::new(req.host_triple, kind);
    o.llvm = req.llvm;
    o.relocatable = req.relocatable;
    o.allow_empty = req.dry_run;
    Ok(o)
}

fn images<'a>(req: &WrapRequest<'a>) -> Vec<offkit_wrap::Image<'a>> {
    req.images
        .iter()
        .map(|i| {
            let img = offkit_wrap::Image::new(i.data, i.triple, i.arch.unwrap_or(""));
            if i.bitcode {
                img.with_kind(offkit_format::kind::ImageKind::Bitcode)
            } else {
                img
            }
        })
        .collect()
}

impl Wrap for OffkitWrap {
    fn wrap(&self, req: &WrapRequest<'_>) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        offkit_wrap::write_object(&images(req), &options(req)?, &mut out)?;
        Ok(out)
    }

    fn llvm_ir(&self, req: &WrapRequest<'_>) -> Result<String, Error> {
        let mut out = Vec::new();
        offkit_wrap::write_llvm_ir(&images(req), &options(req)?, &mut out)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}
