//! `offkit arch`: this machine's offload devices and their target IDs (LLVM's `amdgpu-arch`,
//! `nvptx-arch` and `offload-arch` in one). The detection is the runtime's own
//! (`omptarget::arch`, in offkit-rt, where the `dlopen` of the CUDA driver lives).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use omptarget::arch::{self, Device, Probe};
use serde::Serialize;

use offkit_tools::Env;

/// List this machine's offload devices with their target IDs.
///
/// AMD GPUs come from the KFD topology in sysfs (`gfx_target_version`, `sramecc` from the
/// node's capability bits, `xnack` from `HSA_XNACK` or the `amdgpu` module's `noretry`), NVIDIA
/// GPUs from the CUDA driver (`libcuda.so.1`, if it loads), then the host CPU (the host plugin's
/// device: its x86-64 level and the extensions the runtime checks when it picks an image).
/// Prints one line per device: target ID, triple, where it was found.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  offkit arch\n  offkit arch --json\n  \
                        offkit arch --sysfs-root recorded/  # a copy of /sys/class/kfd/...")]
pub struct Args {
    /// Print JSON (`schema_version` 1).
    #[arg(long)]
    json: bool,
    /// Read the KFD topology below DIR instead of `/` (`DIR/sys/class/kfd/kfd/topology/nodes`).
    #[arg(long, value_name = "DIR")]
    sysfs_root: Option<PathBuf>,
}

#[derive(Serialize)]
struct Doc<'a> {
    schema_version: u32,
    devices: Vec<JsonDevice<'a>>,
}

#[derive(Serialize)]
struct JsonDevice<'a> {
    kind: &'static str,
    triple: &'static str,
    target_id: String,
    processor: &'a str,
    features: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [&'static str],
    origin: &'a str,
}

fn json_device(d: &Device) -> JsonDevice<'_> {
    JsonDevice {
        kind: d.kind.name(),
        triple: d.triple,
        target_id: d.target_id(),
        processor: &d.processor,
        features: d
            .features
            .iter()
            .map(|(n, on)| ((*n).to_owned(), serde_json::Value::Bool(*on)))
            .collect(),
        extensions: &d.extensions,
        origin: &d.origin,
    }
}

/// Runs `offkit arch`.
pub fn run(args: Args, env: &Env) -> Result<()> {
    let hsa_xnack = match env.get("HSA_XNACK") {
        Some("1") => Some(true),
        Some("0") => Some(false),
        _ => None,
    };
    let probe = Probe {
        sysfs_root: args.sysfs_root,
        hsa_xnack,
        cuda: true,
    };
    let devices = arch::detect(&probe).context("failed to list the offload devices")?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = Doc {
            schema_version: 1,
            devices: devices.iter().map(json_device).collect(),
        };
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for d in &devices {
            let mut line = format!("{:<24} {:<20} {}", d.target_id(), d.triple, d.origin);
            if !d.extensions.is_empty() {
                line.push_str(&format!(" ({})", d.extensions.join(",")));
            }
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    Ok(out.flush()?)
}
