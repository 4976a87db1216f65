//! Choosing device images by offload kind, triple, target ID or the device they would load on
//! ([`Selection`], shared by [`crate::inspect`] and [`crate::extract`]), and what to say when a
//! selection matches nothing ([`NoMatch`]).

use std::collections::BTreeSet;
use std::fmt;

use offkit_format::coverage::{is_device_code, is_image};
use offkit_format::device::Device;
use offkit_format::kind::BundleKind;
use offkit_format::scan::ImageInfo;
use offkit_llvm::triple::Triple;

/// Which device images to take; every field left `None` takes them all.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only images of this offload kind (`hip` also takes `hipv4`, the kind of the entries of
    /// HIP fat binaries, and the other way round).
    pub kind: Option<BundleKind>,
    /// Only images for this target triple (the same text).
    pub triple: Option<Triple>,
    /// Only images for this target ID: an exact match, or a processor without features
    /// (`gfx90a`) matching that processor with any features.
    pub arch: Option<String>,
    /// Only images that would load on this device.
    pub device: Option<Device>,
}

impl Selection {
    /// Whether any field narrows the choice.
    pub fn is_active(&self) -> bool {
        self.kind.is_some() || self.triple.is_some() || self.arch.is_some() || self.device.is_some()
    }

    /// Whether image `i` is selected (host placeholders never are).
    pub fn selects(&self, i: &ImageInfo) -> bool {
        if !is_image(i) {
            return false;
        }
        if self
            .triple
            .as_ref()
            .is_some_and(|t| t.as_bytes() != i.triple.as_bytes())
        {
            return false;
        }
        if let Some(a) = &self.arch {
            let id = i.target_id.as_str();
            let processor = id.split(':').next().unwrap_or_default();
            if a != id && (a.contains(':') || a != processor) {
                return false;
            }
        }
        if let Some(k) = &self.kind {
            if !i.offload_kind.matches(&k.to_string()) {
                return false;
            }
        }
        if let Some(d) = &self.device {
            if !is_device_code(i) || d.fit(&i.triple, &i.target_id, i.image_kind).is_none() {
                return false;
            }
        }
        true
    }
}

impl fmt::Display for Selection {
    /// The selection as command-line options (`--kind hip --arch gfx90a`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, v) in [
            ("kind", self.kind.as_ref().map(ToString::to_string)),
            ("triple", self.triple.as_ref().map(ToString::to_string)),
            ("arch", self.arch.clone()),
            ("device", self.device.as_ref().map(Device::to_string)),
        ] {
            if let Some(v) = v {
                write!(f, "{}--{name} {v}", if first { "" } else { " " })?;
                first = false;
            }
        }
        Ok(())
    }
}

/// What a set of inputs holds: the offload kinds, triples and target IDs of their images.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    /// The offload kinds.
    pub kinds: BTreeSet<String>,
    /// The triples.
    pub triples: BTreeSet<String>,
    /// The target IDs.
    pub target_ids: BTreeSet<String>,
}

impl Seen {
    /// Notes image `i` (host placeholders aside).
    pub fn add(&mut self, i: &ImageInfo) {
        if !is_image(i) {
            return;
        }
        for (set, v) in [
            (&mut self.kinds, i.offload_kind.to_string()),
            (&mut self.triples, i.triple.to_string()),
            (&mut self.target_ids, i.target_id.to_string()),
        ] {
            if !v.is_empty() {
                set.insert(v);
            }
        }
    }
}

/// A selection that matched no image of the inputs, and what the inputs hold.
#[derive(Debug, Clone)]
pub struct NoMatch {
    /// The selection.
    pub selection: Selection,
    /// What the inputs hold.
    pub seen: Seen,
}

impl fmt::Display for NoMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.selection.is_active() {
            return f.write_str("the inputs hold no device images");
        }
        write!(
            f,
            "no device image in the inputs matches the selection ({})",
            self.selection
        )?;
        let seen = &self.seen;
        if seen.kinds.is_empty() {
            return f.write_str("; the inputs hold no device images");
        }
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        write!(
            f,
            "; the inputs hold kinds {}; triples {}",
            list(&seen.kinds),
            list(&seen.triples)
        )?;
        if seen.target_ids.is_empty() {
            f.write_str("; no target IDs")
        } else {
            write!(f, "; target IDs {}", list(&seen.target_ids))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::device::ImageTargetId;
    use offkit_format::kind::{ImageKind, Model};
    use offkit_format::scan::{Location, Source};

    fn image(kind: &str, triple: &str, id: &str) -> ImageInfo {
        ImageInfo {
            location: Location::file("f"),
            source: Source::BundleEntry {
                id: format!("{kind}-{triple}--{id}"),
            },
            offload_kind: Model::Bundle(BundleKind::parse(kind)),
            image_kind: ImageKind::Object,
            triple: Triple::parse(triple),
            target_id: ImageTargetId::read(&Triple::parse(triple), id),
            strings: Vec::new(),
            offset: 0,
            size: 1,
            compression: None,
            bundle: None,
            address: None,
            code_object: None,
        }
    }

    #[test]
    fn kinds_and_devices() {
        let amd = "amdgcn-amd-amdhsa";
        let s = Selection {
            kind: Some(BundleKind::Hip),
            ..Selection::default()
        };
        assert!(s.selects(&image("hipv4", amd, "gfx90a")));
        assert!(s.selects(&image("hip", amd, "gfx90a")));
        assert!(!s.selects(&image("openmp", amd, "gfx90a")));
        let s = Selection {
            device: Some(Device::parse("gfx90a:xnack+").unwrap()),
            ..Selection::default()
        };
        assert!(s.selects(&image("hipv4", amd, "gfx90a")));
        assert!(s.selects(&image("hipv4", amd, "gfx90a:xnack+")));
        assert!(!s.selects(&image("hipv4", amd, "gfx90a:xnack-")));
        let mut seen = Seen::default();
        seen.add(&image("hipv4", amd, "gfx90a:xnack-"));
        seen.add(&image("host", "x86_64-unknown-linux-gnu", ""));
        let none = NoMatch { selection: s, seen };
        assert_eq!(
            none.to_string(),
            "no device image in the inputs matches the selection (--device gfx90a:xnack+); \
             the inputs hold kinds hipv4, host; triples amdgcn-amd-amdhsa, \
             x86_64-unknown-linux-gnu; target IDs gfx90a:xnack-"
        );
    }
}
