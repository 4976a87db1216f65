//! This machine's offload devices and their target IDs: what `offkit arch` prints (LLVM's
//! `amdgpu-arch`, `nvptx-arch` and `offload-arch`) and what the runtime matches images against.
//!
//! - **AMD GPUs** come from the KFD topology in sysfs (`/sys/class/kfd/kfd/topology/nodes/N/
//!   properties`, one `name value` line per property, values in decimal). A node whose
//!   `gfx_target_version` is 0 is a CPU; otherwise the version is `major * 10000 + minor * 100
//!   + stepping` and the processor is `gfx` + major and minor in decimal + stepping in hex
//!   (`90010` is `gfx90a`), as LLVM's `AMDGPUArchByKFD.cpp` and ROCT's `libhsakmt.h` read it.
//!   `sramecc` is bit 26 of `capability` (`HSA_CAP_SRAM_EDCSUPPORTED`, `0x04000000`; bit 19 is
//!   the deprecated `HSA_CAP_RESERVED_WAS_SRAM_EDCSUPPORTED` and means nothing), which is what
//!   ROCr's GPU agent uses by default. `xnack` is not a topology property: the KFD sets it per
//!   process, by default from the `amdgpu` module's `noretry` parameter (0: retry on, `xnack+`;
//!   1: `xnack-`; -1 lets the kernel choose, so offkit leaves the feature out, "any"), and ROCr
//!   overrides it with `HSA_XNACK`. Features are given only for processors whose LLVM table
//!   row allows them (`offkit_llvm::target_id::allowed_features_any`).
//! - **NVIDIA GPUs** come from the driver library, `libcuda.so.1`, `dlopen`ed at run time
//!   (`cuInit`, `cuDeviceGetCount`, `cuDeviceGet`, `cuDeviceGetAttribute` for the compute
//!   capability: `sm_MAJORMINOR`); no library or no device is no NVIDIA device.
//! - **The host CPU** (the host plugin's device): `x86_64`, its processor the highest x86-64
//!   micro-architecture level it runs (`x86-64-v3`), and the extensions the runtime checks when it
//!   chooses among x86-64 images: the same detection as the image selection (`cpu.rs`).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use offkit_llvm::target_id::allowed_features_any;
use offkit_llvm::triple::Triple;

use crate::cpu;

pub mod cuda;
pub use cuda::library_error;

/// Where the KFD topology's nodes are, below the sysfs root.
pub const KFD_NODES: &str = "sys/class/kfd/kfd/topology/nodes";
/// The `amdgpu` module parameter that gives the default XNACK mode, below the sysfs root.
pub const AMDGPU_NORETRY: &str = "sys/module/amdgpu/parameters/noretry";
/// `HSA_CAP_SRAM_EDCSUPPORTED` of the node's `capability` (kernel `kfd_topology.h`, ROCT
/// `HSA_CAPABILITY::SRAM_EDCSupport`, bit 26).
pub const CAP_SRAM_EDC: u64 = 0x0400_0000;
/// The most topology nodes read.
pub const MAX_NODES: usize = 4096;
/// The largest `properties` file read (the kernel's is under a page).
pub const MAX_PROPERTIES: u64 = 1 << 16;

/// The runtime's errors (device detection's among them), re-exported here where detection
/// returns them.
pub use crate::Error;

/// The kind of an offload device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An AMD GPU (KFD).
    Amdgpu,
    /// An NVIDIA GPU (CUDA driver).
    Nvptx,
    /// The host CPU.
    Host,
}

impl Kind {
    /// `amdgpu`, `nvptx` or `host`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Amdgpu => "amdgpu",
            Kind::Nvptx => "nvptx",
            Kind::Host => "host",
        }
    }
}

/// One offload device of this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// What kind it is.
    pub kind: Kind,
    /// The offload triple its images are built for.
    pub triple: &'static str,
    /// The processor (`gfx90a`, `sm_80`, `x86-64-v3`).
    pub processor: String,
    /// The target-ID features with their settings, by name (`sramecc`, `xnack`).
    pub features: Vec<(&'static str, bool)>,
    /// The host's instruction-set extensions that the runtime checks (empty for GPUs).
    pub extensions: Vec<&'static str>,
    /// Where it was found: `kfd node 1`, `cuda device 0`, `cpu`.
    pub origin: String,
}

impl Device {
    /// The target ID: the processor, then `:feature±` by feature name (LLVM's canonical form).
    pub fn target_id(&self) -> String {
        let mut s = self.processor.clone();
        for (name, on) in &self.features {
            let _ = write!(s, ":{name}{}", if *on { '+' } else { '-' });
        }
        s
    }
}

/// What to look at.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    /// The sysfs root (`/` when `None`): tests point it at recorded trees.
    pub sysfs_root: Option<PathBuf>,
    /// `HSA_XNACK` (`Some(true)` for `1`): overrides the module default as ROCr does.
    pub hsa_xnack: Option<bool>,
    /// Whether to ask the CUDA driver.
    pub cuda: bool,
}

/// Every offload device: AMD GPUs by node, NVIDIA GPUs by ordinal, then the host CPU.
pub fn detect(probe: &Probe) -> Result<Vec<Device>, Error> {
    let root = probe.sysfs_root.as_deref().unwrap_or(Path::new("/"));
    let mut out = amd_gpus(root, probe.hsa_xnack)?;
    if probe.cuda {
        out.extend(nvidia_gpus()?);
    }
    out.push(host_cpu());
    Ok(out)
}

/// The host CPU as the host plugin's device.
pub fn host_cpu() -> Device {
    let level = cpu::level_with(cpu::has_extension);
    Device {
        kind: Kind::Host,
        triple: "x86_64-pc-linux-gnu",
        processor: if level == 1 {
            "x86-64".to_owned()
        } else {
            format!("x86-64-v{level}")
        },
        features: Vec::new(),
        extensions: cpu::checked().filter(|f| cpu::has_extension(f)).collect(),
        origin: "cpu".to_owned(),
    }
}

/// The properties of one KFD node that offkit uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeProperties {
    /// `gfx_target_version` (0: a CPU node; absent in kernels before 5.15, read as 0).
    pub gfx_target_version: u64,
    /// `capability` (the `HSA_CAP_*` bits).
    pub capability: u64,
}

/// Reads a node's `properties` text (`name value` lines). `path` names the file in errors.
pub fn parse_properties(path: &Path, text: &[u8]) -> Result<NodeProperties, Error> {
    let mut props = NodeProperties::default();
    let mut offset = 0u64;
    for line in text.split(|&b| b == b'\n') {
        let at = offset;
        offset += line.len() as u64 + 1;
        if line.is_empty() {
            continue;
        }
        let bad = |what: String| Error::Format {
            path: path.to_owned(),
            offset: at,
            what,
        };
        let Some(space) = line.iter().position(|&b| b == b' ') else {
            return Err(bad("a property line without a value".to_owned()));
        };
        let (name, value) = (line.get(..space).unwrap_or_default(), line.get(space + 1..));
        let slot = match name {
            b"gfx_target_version" => &mut props.gfx_target_version,
            b"capability" => &mut props.capability,
            _ => continue,
        };
        let value = value
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| {
                bad(format!(
                    "`{}` is not a decimal number",
                    String::from_utf8_lossy(name)
                ))
            })?;
        *slot = value;
    }
    Ok(props)
}

/// The processor name of a `gfx_target_version` (`90010` → `gfx90a`).
pub fn gfx_processor(version: u64) -> String {
    let (major, minor, step) = (version / 10000 % 100, version / 100 % 100, version % 100);
    format!("gfx{major}{minor}{step:x}")
}

/// The AMD GPUs of the KFD topology below `root`, by node number (none without a topology).
pub fn amd_gpus(root: &Path, hsa_xnack: Option<bool>) -> Result<Vec<Device>, Error> {
    let dir = root.join(KFD_NODES);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(Error::Read { path: dir, source }),
    };
    let read_err = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Read { path, source }
    };
    let mut nodes = Vec::new();
    for e in entries {
        let e = e.map_err(read_err(&dir))?;
        let name = e.file_name();
        let Some(n) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            return Err(Error::Format {
                path: e.path(),
                offset: 0,
                what: "a topology node whose name is not a number".to_owned(),
            });
        };
        if nodes.len() == MAX_NODES {
            return Err(Error::TooManyNodes {
                path: dir,
                limit: MAX_NODES,
            });
        }
        nodes.push((n, e.path()));
    }
    nodes.sort();
    let xnack = hsa_xnack.or(xnack_default(root)?);
    let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
    let mut out = Vec::new();
    for (n, node) in nodes {
        let path = node.join("properties");
        let text = read_bounded(&path)?;
        let props = parse_properties(&path, &text)?;
        if props.gfx_target_version == 0 {
            continue;
        }
        let processor = gfx_processor(props.gfx_target_version);
        let mut features = Vec::new();
        for &f in allowed_features_any(&amdgcn, processor.as_bytes()) {
            match f {
                "sramecc" => features.push((f, props.capability & CAP_SRAM_EDC != 0)),
                "xnack" => features.extend(xnack.map(|on| (f, on))),
                _ => {}
            }
        }
        out.push(Device {
            kind: Kind::Amdgpu,
            triple: "amdgcn-amd-amdhsa",
            processor,
            features,
            extensions: Vec::new(),
            origin: format!("kfd node {n}"),
        });
    }
    Ok(out)
}

/// The KFD's default XNACK mode from `amdgpu.noretry`: `Some(true)` for 0, `Some(false)` for
/// 1, `None` for -1 (the kernel decides per chip) or no such parameter.
fn xnack_default(root: &Path) -> Result<Option<bool>, Error> {
    let path = root.join(AMDGPU_NORETRY);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Read { path, source }),
    };
    match text.trim_ascii() {
        b"0" => Ok(Some(true)),
        b"1" => Ok(Some(false)),
        b"-1" => Ok(None),
        _ => Err(Error::Format {
            path,
            offset: 0,
            what: "`noretry` is not -1, 0 or 1".to_owned(),
        }),
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let read = |source| Error::Read {
        path: path.to_owned(),
        source,
    };
    let f = std::fs::File::open(path).map_err(read)?;
    let mut text = Vec::new();
    f.take(MAX_PROPERTIES + 1)
        .read_to_end(&mut text)
        .map_err(read)?;
    if text.len() as u64 > MAX_PROPERTIES {
        return Err(Error::Format {
            path: path.to_owned(),
            offset: MAX_PROPERTIES,
            what: format!("larger than {MAX_PROPERTIES} bytes"),
        });
    }
    Ok(text)
}

/// The NVIDIA GPUs the CUDA driver reports; none when `libcuda.so.1` cannot be loaded (or
/// lacks a function) or the driver has no device.
pub fn nvidia_gpus() -> Result<Vec<Device>, Error> {
    match cuda::probe_with(false) {
        cuda::Probe::NotLoaded | cuda::Probe::MissingSymbol(_) | cuda::Probe::NoDevice => {
            Ok(Vec::new())
        }
        cuda::Probe::Failed { call, code, .. } => Err(Error::Cuda { call, code }),
        cuda::Probe::Devices(caps) => Ok(caps
            .into_iter()
            .enumerate()
            .map(|(ordinal, (major, minor))| Device {
                kind: Kind::Nvptx,
                triple: "nvptx64-nvidia-cuda",
                processor: format!("sm_{major}{minor}"),
                features: Vec::new(),
                extensions: Vec::new(),
                origin: format!("cuda device {ordinal}"),
            })
            .collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_names_follow_amdgpu_arch() {
        assert_eq!(gfx_processor(90010), "gfx90a");
        assert_eq!(gfx_processor(110000), "gfx1100");
        assert_eq!(gfx_processor(100300), "gfx1030");
        assert_eq!(gfx_processor(90402), "gfx942");
        assert_eq!(gfx_processor(90012), "gfx90c");
    }

    #[test]
    fn properties_are_read_strictly_where_used() {
        let p = Path::new("props");
        let ok = parse_properties(
            p,
            b"cpu_cores_count 0\ngfx_target_version 90010\ncapability 67117696\nunique_id 1234\n",
        )
        .unwrap();
        assert_eq!(ok.gfx_target_version, 90010);
        assert_eq!(ok.capability, 67117696);
        let e = parse_properties(p, b"simd_count 4\ngfx_target_version 9a\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`props`: `gfx_target_version` is not a decimal number at offset 0xd"
        );
        let e = parse_properties(p, b"capability\n").unwrap_err();
        assert!(
            e.to_string().contains("without a value at offset 0x0"),
            "{e}"
        );
    }

    #[test]
    fn the_host_is_at_least_baseline_x86_64() {
        let h = host_cpu();
        assert!(h.processor.starts_with("x86-64"));
        assert_eq!(h.target_id(), h.processor);
        // This machine can run the baseline and the runtime's level choice agrees.
        assert!(matches!(cpu::fit(&h.processor), cpu::Fit::Runs(_)));
    }
}
