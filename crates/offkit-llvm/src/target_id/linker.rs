//! `clang-linker-wrapper` 19's target rule (`object::areTargetsCompatible` of
//! `llvm/lib/Object/OffloadBinary.cpp`, as the wrapper's `getDeviceInput` applies it): device images are grouped by their
//! `(triple, arch)` strings, and an image also joins every existing group it is compatible
//! with.
//!
//! ```
//! use offkit_llvm::target_id::linker::is_compatible;
//!
//! let t = b"amdgcn-amd-amdhsa".as_slice();
//! assert!(is_compatible((t, b"gfx90a:xnack+"), (t, b"gfx90a")));
//! assert!(!is_compatible((t, b"gfx90a:xnack+"), (t, b"gfx90a:xnack-")));
//! assert!(is_compatible((t, b"generic"), (t, b"gfx1030")));
//! assert!(!is_compatible((t, b"gfx90a"), (t, b"gfx90a"))); // the same group, not "compatible"
//! ```

use crate::triple::{split_once, Triple};

/// A `(triple, arch)` pair as an offload binary's string table holds it.
pub(crate) type LinkTarget<'a> = (&'a [u8], &'a [u8]);

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// LLVM 19's `areTargetsCompatible(image, group)`:
/// - identical pairs are *not* compatible (they are the same group);
/// - the triples must be equal strings;
/// - an arch of `generic` on either side is compatible;
/// - otherwise only AMDGPU triples (`amdgcn`, `r600`; the image's triple decides) can be:
///   the base processors (text before the first `:`, as written) must be equal, and neither
///   side may have `xnack+` where the other has `xnack-`, nor `sramecc+` against `sramecc-`
///   (substring tests on the whole arch, as LLVM does; a side without the feature is "any").
pub fn is_compatible(image: LinkTarget<'_>, group: LinkTarget<'_>) -> bool {
    let ((lt, la), (rt, ra)) = (image, group);
    if image == group || lt != rt {
        return false;
    }
    if la == b"generic" || ra == b"generic" {
        return true;
    }
    if !Triple::parse(lt).is_amdgpu() {
        return false;
    }
    if split_once(la, b':').0 != split_once(ra, b':').0 {
        return false;
    }
    let clash = |on: &[u8], off: &[u8]| {
        (contains(la, on) && contains(ra, off)) || (contains(la, off) && contains(ra, on))
    };
    !clash(b"xnack+", b"xnack-") && !clash(b"sramecc+", b"sramecc-")
}

/// The groups LLVM 19's linker wrapper forms from regular (non-archive) inputs, in the order
/// it links them: each image (in input order) joins its own `(triple, arch)` group — created
/// on first sight — and every group already present that it is compatible with (checked in
/// group order, before its own group is created). Returns, per group, the indices of the
/// images it holds, in the order they were added.
///
/// Archive members follow other rules (symbol resolution) that live in the linker wrapper;
/// this is only the grouping part.
pub fn group<'a>(images: &[LinkTarget<'a>]) -> Vec<(LinkTarget<'a>, Vec<usize>)> {
    let mut groups: Vec<(LinkTarget<'a>, Vec<usize>)> = Vec::new();
    for (i, &image) in images.iter().enumerate() {
        let compatible: Vec<usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| is_compatible(image, *id))
            .map(|(g, _)| g)
            .collect();
        match groups.iter().position(|(id, _)| *id == image) {
            Some(own) => groups[own].1.push(i),
            None => groups.push((image, vec![i])),
        }
        for g in compatible {
            groups[g].1.push(i);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    const GCN: &[u8] = b"amdgcn-amd-amdhsa";

    #[test]
    fn rule() {
        assert!(is_compatible((GCN, b"gfx90a"), (GCN, b"gfx90a:sramecc-")));
        assert!(is_compatible(
            (GCN, b"gfx90a:xnack+"),
            (GCN, b"gfx90a:sramecc+")
        ));
        assert!(!is_compatible(
            (GCN, b"gfx90a:sramecc+"),
            (GCN, b"gfx90a:sramecc-")
        ));
        assert!(!is_compatible((GCN, b"gfx90a"), (GCN, b"gfx908")));
        assert!(!is_compatible(
            (GCN, b"gfx90a"),
            (b"amdgcn--amdhsa", b"gfx90a:xnack+")
        ));
        assert!(is_compatible(
            (b"nvptx64-nvidia-cuda", b"generic"),
            (b"nvptx64-nvidia-cuda", b"sm_70")
        ));
        assert!(!is_compatible(
            (b"nvptx64-nvidia-cuda", b"sm_70"),
            (b"nvptx64-nvidia-cuda", b"sm_80")
        ));
        assert!(!is_compatible(
            (b"x86_64-pc-linux-gnu", b""),
            (b"x86_64-pc-linux-gnu", b"x")
        ));
        // Tahiti is not gfx600 here: names are compared as written.
        assert!(!is_compatible((GCN, b"tahiti"), (GCN, b"gfx600")));
    }

    #[test]
    fn grouping_matches_the_observed_trace() {
        // h1 gfx90a:xnack+, h2 gfx90a, h3 gfx90a:xnack-, h4 x86_64 + generic (see the
        // conformance test for the real run).
        let x86 = b"x86_64-pc-linux-gnu".as_slice();
        let images = [
            (GCN, b"gfx90a:xnack+".as_slice()),
            (GCN, b"gfx90a"),
            (GCN, b"gfx90a:xnack-"),
            (x86, b""),
            (GCN, b"generic"),
        ];
        let g = group(&images);
        let got: Vec<_> = g.iter().map(|(id, v)| (id.1, v.clone())).collect();
        assert_eq!(
            got,
            vec![
                (b"gfx90a:xnack+".as_slice(), vec![0, 1, 4]),
                (b"gfx90a", vec![1, 2, 4]),
                (b"gfx90a:xnack-", vec![2, 4]),
                (b"", vec![3]),
                (b"generic", vec![4]),
            ]
        );
    }
}
