//! The sums of one file's walk: each device image put in its translation unit, an image of a
//! compressed container given its share of the container's bytes, kernels summed by name.

use std::collections::{BTreeMap, HashMap};

use offkit_format::scan::{Compressed, Container, Format, ImageInfo, Location, Source, Step};

use super::{Bytes, FileSize, ImageSize, KernelSize, Target, TargetSize, UnitKind, UnitSize};

/// A translation unit being summed.
struct Unit {
    name: String,
    kind: UnitKind,
    offset: u64,
    /// Its stored bytes, when its container gives them (an image on its own: its images').
    stored: Option<u64>,
    /// Its inflated bytes, when its container gives them (a compressed bundle).
    inflated: Option<u64>,
    images: Vec<ImageSize>,
}

/// The device images of one compressed container, waiting for their shares of its bytes.
struct Group {
    offset: u64,
    compressed: u64,
    /// (unit, target, inflated size)
    images: Vec<(usize, Target, u64)>,
}

/// What one file's walk has summed so far.
#[derive(Default)]
pub(super) struct Accounts {
    /// The CUDA fat binaries met: offset → size.
    fatbins: HashMap<u64, u64>,
    /// The last ELF file met (a fat object's bundle sections are its images): its location
    /// and offset.
    elf: Option<(Location, u64)>,
    units: Vec<Unit>,
    index: HashMap<(String, u64), usize>,
    group: Option<Group>,
    /// The last image counted: an image found inside it is part of its bytes.
    last: Option<Location>,
    kernels: BTreeMap<String, (usize, u64)>,
    kernel_images: u64,
}

/// `loc` without its file (and without the steps that do not show).
fn within_file(steps: &[Step]) -> String {
    Location {
        steps: steps
            .iter()
            .skip(1)
            .filter(|s| !matches!(s, Step::Inflated | Step::Decoded))
            .cloned()
            .collect(),
    }
    .to_string()
}

/// The steps of `loc` less its last shown one (an image's place in its container).
fn parent(loc: &Location) -> &[Step] {
    let shown = loc
        .steps
        .iter()
        .rposition(|s| !matches!(s, Step::Inflated | Step::Decoded))
        .unwrap_or(0);
    loc.steps.get(..shown).unwrap_or_default()
}

impl Accounts {
    /// A container met by the walk.
    pub(super) fn container(&mut self, c: &Container) {
        match c.format {
            Format::CudaFatbin => {
                self.fatbins.insert(c.offset, c.size);
            }
            Format::Elf { .. } => self.elf = Some((c.location.clone(), c.offset)),
            _ => {}
        }
    }

    /// A device image met by the walk.
    pub(super) fn image(&mut self, info: &ImageInfo) {
        if let Some(last) = &self.last {
            if info.location.steps.len() > last.steps.len()
                && info.location.steps.starts_with(&last.steps)
            {
                return;
            }
        }
        self.last = Some(info.location.clone());
        if let Some(co) = &info.code_object {
            if co.kernel_code_sizes.iter().any(Option::is_some) {
                self.kernel_images += info.size;
                for (k, n) in co.kernels.iter().zip(&co.kernel_code_sizes) {
                    if let Some(n) = n {
                        let e = self.kernels.entry(k.clone()).or_default();
                        e.0 += 1;
                        e.1 += n;
                    }
                }
            }
        }
        let unit = self.unit_of(info);
        let target = Target {
            offload_kind: info.offload_kind.clone(),
            triple: info.triple.clone(),
            target_id: info.target_id.clone(),
        };
        match info.compression {
            Some(c) => {
                if self.group.as_ref().is_some_and(|g| g.offset != c.offset) {
                    self.flush();
                }
                let g = self.group.get_or_insert_with(|| Group {
                    offset: c.offset,
                    compressed: c.compressed_size,
                    images: Vec::new(),
                });
                g.images.push((unit, target, info.size));
            }
            None => {
                self.flush();
                self.push(unit, target, info.size, info.size);
            }
        }
    }

    fn push(&mut self, unit: usize, target: Target, stored: u64, inflated: u64) {
        if let Some(u) = self.units.get_mut(unit) {
            u.images.push(ImageSize {
                target,
                bytes: Bytes { stored, inflated },
            });
        }
    }

    /// Gives the images of the pending compressed container their shares of its bytes, in
    /// proportion to their sizes, the remainders to the largest fractions (so that the shares
    /// sum to the container's bytes).
    fn flush(&mut self) {
        let Some(g) = self.group.take() else { return };
        let total: u128 = g.images.iter().map(|(_, _, n)| u128::from(*n)).sum();
        let c = u128::from(g.compressed);
        let mut shares: Vec<(u64, u128)> = g
            .images
            .iter()
            .enumerate()
            .map(|(i, (_, _, n))| match total {
                0 => (if i == 0 { g.compressed } else { 0 }, 0),
                t => {
                    let x = c * u128::from(*n);
                    ((x / t) as u64, x % t)
                }
            })
            .collect();
        let given: u64 = shares.iter().map(|s| s.0).sum();
        let mut order: Vec<usize> = (0..shares.len()).collect();
        order.sort_by(|&a, &b| shares[b].1.cmp(&shares[a].1).then(a.cmp(&b)));
        for &i in order.iter().take((g.compressed - given) as usize) {
            shares[i].0 += 1;
        }
        for ((unit, target, n), (s, _)) in g.images.into_iter().zip(shares) {
            self.push(unit, target, s, n);
        }
    }

    /// The translation unit of `info`, made when first met.
    fn unit_of(&mut self, info: &ImageInfo) -> usize {
        let (name, kind, offset, stored, inflated) = match (&info.bundle, &info.source) {
            (Some(b), _) => {
                let ccob = info.compression.filter(|c| {
                    c.offset == b.offset && matches!(c.format, Compressed::Ccob { .. })
                });
                let kind = match ccob {
                    Some(_) => UnitKind::CompressedBundle,
                    None => UnitKind::Bundle,
                };
                let name = within_file(parent(&info.location));
                let inflated = ccob.map(|c| c.uncompressed_size);
                (name, kind, b.offset, Some(b.size), inflated)
            }
            (None, Source::BundleSection { .. }) => {
                // A fat object is one translation unit: its `__CLANG_OFFLOAD_BUNDLE__*`
                // sections are its images.
                let object = parent(&info.location);
                let offset = match &self.elf {
                    Some((l, o)) if l.steps == object => *o,
                    _ => 0,
                };
                let name = match within_file(object) {
                    n if n.is_empty() => "(file)".to_string(),
                    n => n,
                };
                (name, UnitKind::FatObject, offset, None, None)
            }
            (None, Source::CudaFatbinEntry(e)) => {
                let section = within_file(parent(&info.location));
                let name = format!("{section}#{}", e.fatbin_index);
                let stored = self.fatbins.get(&e.fatbin_offset).copied();
                (name, UnitKind::CudaFatbin, e.fatbin_offset, stored, None)
            }
            _ => {
                let name = within_file(&info.location.steps);
                (name, UnitKind::Image, info.offset, None, None)
            }
        };
        let key = (name, offset);
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.units.len();
        self.units.push(Unit {
            name: key.0.clone(),
            kind,
            offset,
            stored,
            inflated,
            images: Vec::new(),
        });
        self.index.insert(key, i);
        i
    }

    /// The file's sums.
    pub(super) fn finish(mut self, f: &mut FileSize) {
        self.flush();
        let mut targets: Vec<TargetSize> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for u in self.units {
            let mut images = Bytes::default();
            for im in &u.images {
                images.add(im.bytes);
                let key = im.target.name();
                let t = *by_name.entry(key).or_insert_with(|| {
                    targets.push(TargetSize {
                        target: im.target.clone(),
                        images: 0,
                        bytes: Bytes::default(),
                    });
                    targets.len() - 1
                });
                if let Some(t) = targets.get_mut(t) {
                    t.images += 1;
                    t.bytes.add(im.bytes);
                }
            }
            let stored = u.stored.unwrap_or(images.stored).max(images.stored);
            let inflated = u
                .inflated
                .unwrap_or(stored - images.stored + images.inflated)
                .max(images.inflated);
            let bytes = Bytes { stored, inflated };
            f.totals.add(bytes);
            f.units.push(UnitSize {
                name: u.name,
                kind: u.kind,
                offset: u.offset,
                bytes,
                images: u.images,
            });
        }
        targets.sort_by(|a, b| {
            b.bytes
                .stored
                .cmp(&a.bytes.stored)
                .then_with(|| a.target.name().cmp(&b.target.name()))
        });
        f.targets = targets;
        let mut kernels: Vec<KernelSize> = self
            .kernels
            .into_iter()
            .map(|(name, (images, code))| KernelSize { name, images, code })
            .collect();
        kernels.sort_by(|a, b| b.code.cmp(&a.code).then_with(|| a.name.cmp(&b.name)));
        f.kernels = kernels;
        f.kernel_images = self.kernel_images;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::device::ImageTargetId;
    use offkit_format::kind::{BundleKind, Model};
    use offkit_llvm::triple::Triple;

    fn target() -> Target {
        Target {
            offload_kind: Model::Bundle(BundleKind::Hip),
            triple: Triple::parse("amdgcn-amd-amdhsa"),
            target_id: ImageTargetId::read(&Triple::parse("amdgcn-amd-amdhsa"), "gfx90a"),
        }
    }

    #[test]
    fn shares_of_a_compressed_container_sum_to_its_bytes() {
        for (compressed, sizes) in [
            (1000u64, vec![3u64, 3, 3]),
            (7, vec![1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
            (12345, vec![0, 0]),
            (999, vec![5000, 1, 0, 77]),
        ] {
            let mut a = Accounts::default();
            a.units.push(Unit {
                name: "u".into(),
                kind: UnitKind::CompressedBundle,
                offset: 0,
                stored: Some(compressed),
                inflated: None,
                images: Vec::new(),
            });
            a.group = Some(Group {
                offset: 0,
                compressed,
                images: sizes.iter().map(|&n| (0, target(), n)).collect(),
            });
            a.flush();
            let sum: u64 = a.units[0].images.iter().map(|i| i.bytes.stored).sum();
            assert_eq!(sum, compressed, "{sizes:?}");
        }
    }
}
