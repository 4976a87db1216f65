//! Which images a prune keeps: the devices and architectures `--keep` and `--drop` name, and
//! the rules that decide per image (offload bundles, offload binaries) or per CUDA fat binary.

use std::fmt;

use offkit_format::device::{Device, ImageTargetId, Reading, Sm};
use offkit_format::kind::ImageKind;
use offkit_llvm::target_id::bundle::BundleEntryId;
use offkit_llvm::triple::Triple;

/// What `--keep` and `--drop` name: a device, or the PTX of an NVIDIA virtual architecture
/// (`compute_75`), which is no device but names code as `nvprune -arch compute_75` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneTarget {
    /// A device: an AMD GPU target ID, an NVIDIA `sm_XY`, a triple or architecture.
    Device(Device),
    /// The PTX written for exactly this virtual architecture (`compute_75`).
    Ptx(Sm),
}

impl PruneTarget {
    /// Parses `compute_XY` as [`PruneTarget::Ptx`], anything else as [`Device::parse`] does.
    pub fn parse(s: &str) -> offkit_format::Result<PruneTarget> {
        if s.starts_with("compute_") {
            if let Some(sm) = Sm::parse(s) {
                return Ok(PruneTarget::Ptx(sm));
            }
        }
        Device::parse(s).map(PruneTarget::Device)
    }
}

impl From<Device> for PruneTarget {
    fn from(d: Device) -> PruneTarget {
        PruneTarget::Device(d)
    }
}

impl fmt::Display for PruneTarget {
    /// `gfx90a:xnack-`, `sm_75`, `compute_75`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PruneTarget::Device(d) => d.fmt(f),
            PruneTarget::Ptx(sm) => {
                let s = sm.to_string();
                write!(f, "compute_{}", s.strip_prefix("sm_").unwrap_or(&s))
            }
        }
    }
}

/// Which entries of a bundle a prune keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// Keep the host entries and the images one of these would or might load: those
    /// [`Device::fit`] accepts (exact, features any, generic targets), and, of an AMD GPU, every
    /// image of its processor whose features do not contradict those the device names (a
    /// feature the device leaves out is unknown, not off: `gfx90a` keeps `gfx90a:xnack+` and
    /// `gfx90a:xnack-`, where the real device has one of the two; a prune never drops code
    /// that the device may need). In a CUDA fat binary, as `nvprune` keeps what it is named:
    /// `sm_75` keeps the `sm_75` cubins, and only where there is none the images an sm_75
    /// device would load instead (the best [`Device::fit`]: an earlier cubin of its major
    /// version, else the newest PTX the driver compiles for it); `compute_75` keeps the PTX
    /// of `compute_75` ([`Filter::keeps_fatbin`]).
    Keep(Vec<PruneTarget>),
    /// Drop the images made for one of these devices: the same processor with no feature
    /// set otherwise than the device names it (`gfx90a` drops `gfx90a:xnack+` and
    /// `gfx90a:xnack-`; `gfx90a:xnack-` drops only the latter and `gfx90a`), the cubins of
    /// exactly an `sm_XY` and the PTX of exactly a `compute_XY`, or any image [`Device::fit`]
    /// accepts for a device that is neither. Host entries stay.
    Drop(Vec<PruneTarget>),
}

impl Filter {
    /// Whether the entry `id` stays.
    pub fn keeps(&self, id: &[u8]) -> bool {
        let id = BundleEntryId::parse_any(id);
        if id.kind() == b"host" {
            return true;
        }
        // Read as images are (LLVM 19's triple tables), whatever release parsed the ID.
        let triple = Triple::parse(id.triple().as_bytes());
        let tid = ImageTargetId::read(&triple, String::from_utf8_lossy(id.target_id()));
        self.keeps_image(&triple, &tid, ImageKind::Object)
    }

    /// Whether a device image for `triple` and target ID `tid` stays.
    pub fn keeps_image(&self, triple: &Triple, tid: &ImageTargetId, kind: ImageKind) -> bool {
        match self {
            Filter::Keep(targets) => targets.iter().any(|t| match t {
                PruneTarget::Device(d) => {
                    d.fit(triple, tid, kind).is_some() || made_for(d, triple, tid)
                }
                PruneTarget::Ptx(sm) => ptx_of(*sm, triple, tid, kind),
            }),
            Filter::Drop(targets) => !targets.iter().any(|t| match t {
                PruneTarget::Device(d @ Device::Nvidia(sm)) => {
                    cubin_of(*sm, triple, tid, kind)
                        || (!triple.is_nvptx() && made_for(d, triple, tid))
                }
                PruneTarget::Device(d) => made_for(d, triple, tid),
                PruneTarget::Ptx(sm) => ptx_of(*sm, triple, tid, kind),
            }),
        }
    }

    /// Which of the images of one CUDA fat binary (`(triple, target ID, kind)`, in order) stay.
    /// Kept, as `nvprune` keeps them: for `sm_XY` its cubins, and where the fat binary has none,
    /// the images an `sm_XY` device would load instead (those of the best [`Device::fit`]
    /// rank), so that a device the file served is never left without code; for
    /// `compute_XY` its PTX; for other devices what [`Filter::keeps_image`] keeps. Dropped:
    /// what [`Filter::keeps_image`] drops.
    pub fn keeps_fatbin(&self, images: &[(Triple, ImageTargetId, ImageKind)]) -> Vec<bool> {
        let Filter::Keep(targets) = self else {
            return images
                .iter()
                .map(|(t, id, k)| self.keeps_image(t, id, *k))
                .collect();
        };
        let mut keep = vec![false; images.len()];
        for target in targets {
            match target {
                PruneTarget::Device(d @ Device::Nvidia(sm)) => {
                    let exact: Vec<bool> = images
                        .iter()
                        .map(|(t, id, k)| cubin_of(*sm, t, id, *k))
                        .collect();
                    let chosen = if exact.contains(&true) {
                        exact
                    } else {
                        let ranks: Vec<Option<(u32, u32)>> = images
                            .iter()
                            .map(|(t, id, k)| d.fit(t, id, *k).map(|f| f.rank()))
                            .collect();
                        let best = ranks.iter().flatten().max().copied();
                        ranks.iter().map(|r| r.is_some() && *r == best).collect()
                    };
                    for (k, c) in keep.iter_mut().zip(chosen) {
                        *k |= c;
                    }
                }
                t => {
                    let one = Filter::Keep(vec![t.clone()]);
                    for (k, (tr, id, kind)) in keep.iter_mut().zip(images) {
                        *k |= one.keeps_image(tr, id, *kind);
                    }
                }
            }
        }
        keep
    }
}

/// Whether the image is NVIDIA PTX written for exactly `sm` (`compute_XY` or a PTX entry of
/// `sm_XY`).
fn ptx_of(sm: Sm, triple: &Triple, tid: &ImageTargetId, kind: ImageKind) -> bool {
    matches!(tid.reading(), Reading::Nvidia { sm: s, virtual_arch }
        if triple.is_nvptx() && *s == sm && (*virtual_arch || kind == ImageKind::Ptx))
}

/// Whether the image is an NVIDIA cubin for exactly `sm`.
fn cubin_of(sm: Sm, triple: &Triple, tid: &ImageTargetId, kind: ImageKind) -> bool {
    matches!(tid.reading(), Reading::Nvidia { sm: s, virtual_arch }
        if triple.is_nvptx() && *s == sm && !*virtual_arch && kind != ImageKind::Ptx)
}

/// Whether the image (`triple`, `tid`) was made for `device` in the sense of [`Filter::Drop`].
fn made_for(device: &Device, triple: &Triple, tid: &ImageTargetId) -> bool {
    match device {
        Device::Amdgpu {
            processor,
            features,
        } => {
            if !triple.is_amdgcn() {
                return false;
            }
            let Reading::Amdgpu {
                processor: image,
                features: set,
            } = tid.reading()
            else {
                return false;
            };
            image == processor
                && features.iter().all(|(n, on)| {
                    set.iter()
                        .find(|(m, _)| m == n)
                        .is_none_or(|(_, v)| v == on)
                })
        }
        d => d.fit(triple, tid, ImageKind::Object).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The images of a fat binary: `(sm, ptx)`.
    fn images(list: &[(&str, bool)]) -> Vec<(Triple, ImageTargetId, ImageKind)> {
        let nv = Triple::parse("nvptx64-nvidia-cuda");
        list.iter()
            .map(|&(sm, ptx)| {
                let kind = if ptx {
                    ImageKind::Ptx
                } else {
                    ImageKind::Cubin
                };
                (nv.clone(), ImageTargetId::read(&nv, sm), kind)
            })
            .collect()
    }

    fn keep(ids: &[&str], imgs: &[(&str, bool)]) -> Vec<bool> {
        let targets = ids.iter().map(|s| PruneTarget::parse(s).unwrap()).collect();
        Filter::Keep(targets).keeps_fatbin(&images(imgs))
    }

    #[test]
    fn cuda_keep_names_what_stays_as_nvprune_does() {
        let fb = [
            ("sm_75", false),
            ("sm_75", true),
            ("sm_80", false),
            ("sm_80", true),
        ];
        assert_eq!(keep(&["sm_75"], &fb), [true, false, false, false]);
        assert_eq!(keep(&["compute_80"], &fb), [false, false, false, true]);
        assert_eq!(
            keep(&["sm_80", "compute_80"], &fb),
            [false, false, true, true]
        );
        // No cubin of its own: what the device loads instead.
        assert_eq!(keep(&["sm_86"], &fb), [false, false, true, false]);
        assert_eq!(keep(&["sm_90"], &fb), [false, false, false, true]);
        assert_eq!(keep(&["sm_61"], &fb), [false; 4]);
        assert_eq!(
            PruneTarget::parse("compute_75").unwrap().to_string(),
            "compute_75"
        );
        let drop = Filter::Drop(vec![PruneTarget::parse("compute_75").unwrap()]);
        assert_eq!(drop.keeps_fatbin(&images(&fb)), [true, false, true, true]);
        let drop = Filter::Drop(vec![PruneTarget::parse("sm_86").unwrap()]);
        assert_eq!(drop.keeps_fatbin(&images(&fb)), [true; 4]);
    }
}
