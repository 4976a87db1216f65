//! The selection options `--kind`, `--triple`, `--arch` and `--device`, shared by `inspect`
//! and `extract`: parsed here into the library's [`Selection`].

use offkit_bundle::select::Selection;
use offkit_format::device::Device;
use offkit_format::kind::BundleKind;
use offkit_llvm::triple::Triple;

pub use offkit_format::coverage::is_device_code;

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
pub struct SelectArgs {
    /// Only images of this offload kind: `openmp`, `cuda`, `hip` (also matches `hipv4`, the
    /// kind of the entries of HIP fat binaries, and the other way round), or another bundle
    /// kind such as `host`.
    #[arg(long, value_name = "K", value_parser = |s: &str| anyhow::Ok(BundleKind::parse(s)))]
    pub kind: Option<BundleKind>,
    /// Only images for this target triple (exact match, e.g. `amdgcn-amd-amdhsa`).
    #[arg(long, value_name = "T", value_parser = |s: &str| anyhow::Ok(Triple::parse(s)))]
    pub triple: Option<Triple>,
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

impl SelectArgs {
    /// The library's selection.
    pub fn selection(&self) -> Selection {
        Selection {
            kind: self.kind.clone(),
            triple: self.triple.clone(),
            arch: self.arch.clone(),
            device: self.device.clone(),
        }
    }
}
