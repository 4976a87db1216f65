//! Choosing device images: `--kind`, `--triple`, `--arch` and `--device`, shared by `inspect`
//! and `extract`; and what to say when a selection matches nothing.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use offkit_format::device::Device;
use offkit_format::scan::ImageInfo;

/// Parses `--device` (clap value parser; clap prints the message after the value).
pub fn parse_device(s: &str) -> anyhow::Result<Device> {
    Device::parse(s).map_err(|e| match e {
        offkit_format::Error::Invalid {
            what: "device",
            reason,
            ..
        } => anyhow::Error::msg(reason),
        e => e.into(),
    })
}

/// The selection options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Selection {
    /// Only images of this offload kind: `openmp`, `cuda`, `hip` (also matches `hipv4`, the
    /// kind of the entries of HIP fat binaries, and the other way round), or another bundle
    /// kind such as `host`.
    #[arg(long, value_name = "K")]
    pub kind: Option<String>,
    /// Only images for this target triple (exact match, e.g. `amdgcn-amd-amdhsa`).
    #[arg(long, value_name = "T")]
    pub triple: Option<String>,
    /// Only images for this target ID: an exact match, or a processor without features
    /// (`gfx90a`) matching that processor with any features.
    #[arg(long, value_name = "A")]
    pub arch: Option<String>,
    /// Only images that would load on this device: an AMD GPU target ID (`gfx90a:xnack+` takes
    /// `gfx90a` and `gfx90a:xnack+` images, not `gfx90a:xnack-`, and the generic target of its
    /// family, such as `gfx9-generic`), an NVIDIA GPU (`sm_86` takes `sm_80`–`sm_86` cubins and
    /// PTX of `sm_86` or earlier), or an architecture or triple (`x86_64`).
    #[arg(long, value_name = "ID", value_parser = parse_device)]
    pub device: Option<Device>,
}

pub use offkit_format::coverage::{is_device_code, is_image};

impl Selection {
    /// Whether any option narrows the choice.
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
            if !i.offload_kind.matches(k) {
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

    /// The options as given, for messages (`--kind hip --arch gfx90a`).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (name, v) in [
            ("kind", self.kind.clone()),
            ("triple", self.triple.clone()),
            ("arch", self.arch.clone()),
            ("device", self.device.as_ref().map(Device::to_string)),
        ] {
            if let Some(v) = v {
                let _ = write!(s, "{}--{name} {v}", if s.is_empty() { "" } else { " " });
            }
        }
        s
    }

    /// The message for a selection that matched nothing, listing what the inputs hold.
    pub fn no_match(&self, seen: &Seen) -> String {
        if !self.is_active() {
            return "the inputs hold no device images".into();
        }
        let mut msg = format!(
            "no device image in the inputs matches the selection ({})",
            self.describe()
        );
        if seen.kinds.is_empty() {
            msg.push_str("; the inputs hold no device images");
            return msg;
        }
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        let _ = write!(
            msg,
            "; the inputs hold kinds {}; triples {}",
            list(&seen.kinds),
            list(&seen.triples)
        );
        if seen.target_ids.is_empty() {
            msg.push_str("; no target IDs");
        } else {
            let _ = write!(msg, "; target IDs {}", list(&seen.target_ids));
        }
        msg
    }
}

/// What a set of inputs holds, for [`Selection::no_match`].
#[derive(Debug, Default)]
pub struct Seen {
    kinds: BTreeSet<String>,
    triples: BTreeSet<String>,
    target_ids: BTreeSet<String>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::device::ImageTargetId;
    use offkit_format::kind::{BundleKind, ImageKind, Model};
    use offkit_format::scan::{Location, Source};
    use offkit_llvm::triple::Triple;

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
            kind: Some("hip".into()),
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
        assert_eq!(
            s.no_match(&seen),
            "no device image in the inputs matches the selection (--device gfx90a:xnack+); \
             the inputs hold kinds hipv4, host; triples amdgcn-amd-amdhsa, \
             x86_64-unknown-linux-gnu; target IDs gfx90a:xnack-"
        );
    }
}
