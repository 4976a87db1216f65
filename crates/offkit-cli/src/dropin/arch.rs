//! The drop-in `amdgpu-arch` and `nvptx-arch` of LLVM 19, and LLVM 22's `offload-arch` (whose
//! links `amdgpu-arch` and `nvptx-arch` restrict it to one vendor): one line per GPU, the same
//! messages and exit status, so that `clang --offload-arch=native` can run them.
//!
//! The devices are offkit's own detection (`offkit arch`, `omptarget::arch`): AMD GPUs from the
//! KFD topology in sysfs, NVIDIA GPUs from the CUDA driver. What each release does around it
//! is its own flow (`detect`); the libraries LLVM's tools `dlopen` are tried for real, so a
//! machine without them gets LLVM's very messages:
//!
//! | | LLVM 19 | LLVM 22 |
//! |---|---|---|
//! | AMD | HSA (`libhsa-runtime64.so`), else HIP (`libamdhip64.so`); 1 without a GPU | the KFD topology (no topology: no GPU, 0), else HIP |
//! | NVIDIA | `libcuda.so.1`; `Failed to 'dlopen' libcuda.so.1` | the same, said only with `--verbose` |
//! | Intel | — | Level Zero (`libze_loader.so`) |
//! | status | 0 if the vendor's GPUs were listed | `offload-arch`: 0 if any vendor's probe succeeded |
//!
//! Departures: where ROCm's HSA or HIP library or Level Zero loads, offkit does not call it:
//! AMD GPUs are the KFD topology's (what HSA and HIP report on Linux), and Intel GPUs are not
//! listed (the probe fails as without a device). `OFFKIT_SYSFS_ROOT` points the KFD reads at a
//! recorded tree (the tests' fixtures).

use std::ffi::{CStr, OsString};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::LlvmVersion;
use offkit_tools::Env;
use omptarget::arch::{cuda, gfx_processor, library_error, KFD_NODES};

use super::cl::{self, Spec};
use super::error::Error;
use super::Tool;

/// The variable that moves the sysfs root of the KFD reads (`/` when unset).
pub const SYSFS_ROOT_VAR: &str = "OFFKIT_SYSFS_ROOT";

/// The generic options every `cl` tool has, and the tools' own hidden `-h` (`-W` is libLLVM's,
/// registered in every tool; one-letter options group, so it changes how `-hW` parses).
const GENERIC: [Spec; 9] = [
    Spec::flag("h").really_hidden(),
    Spec::flag("W").really_hidden(),
    Spec::immediate("help"),
    Spec::immediate("help-hidden"),
    Spec::immediate("help-list"),
    Spec::immediate("help-list-hidden"),
    Spec::immediate("version"),
    Spec::flag("print-options"),
    Spec::flag("print-all-options"),
];

/// LLVM 19's `amdgpu-arch` and `nvptx-arch` have only the generic options.
const SPECS_19: &[Spec] = &GENERIC;

/// `--only`'s values, in `VendorName` order.
const VENDORS: &[&str] = &["all", "amdgpu", "nvptx", "intel"];

/// LLVM 22's `offload-arch`: the generic options, `--only`, `--verbose`, `--hip-api-version`.
const SPECS_22: &[Spec] = &[
    GENERIC[0],
    GENERIC[1],
    GENERIC[2],
    GENERIC[3],
    GENERIC[4],
    GENERIC[5],
    GENERIC[6],
    GENERIC[7],
    GENERIC[8],
    Spec::one_of("only", VENDORS),
    Spec::flag("verbose"),
    Spec::one_of(
        "hip-api-version",
        &["auto", "r0600", "r0000", "unversioned"],
    ),
];

/// "Did you mean"'s order (the global option map's, found by giving the real tools
/// misspellings equally far from two options; `help`/`print-all-options` in 19 and
/// `help-hidden`/`help` in 22 are not told apart by any misspelling found).
const SUGGEST_19: &[&str] = &[
    "help-list",
    "help-hidden",
    "print-all-options",
    "help",
    "version",
    "help-list-hidden",
    "print-options",
];
const SUGGEST_22: &[&str] = &[
    "help-list",
    "help-hidden",
    "help",
    "version",
    "help-list-hidden",
    "hip-api-version",
    "verbose",
    "only",
    "print-options",
    "print-all-options",
];

/// A vendor's GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vendor {
    Amd,
    Nvidia,
    Intel,
}

/// What one tool of one release is.
#[derive(Debug, Clone, Copy)]
struct Release {
    llvm: LlvmVersion,
    /// The program LLVM built (the help's `USAGE:` name).
    name: &'static str,
    help: cl::Help,
    specs: &'static [Spec],
    suggest: &'static [&'static str],
    /// The vendors LLVM 19's tool lists (LLVM 22 chooses by `--only` and the name).
    vendor_19: Vendor,
}

impl Release {
    fn of(tool: Tool, llvm: LlvmVersion) -> Release {
        macro_rules! help {
            ($p:literal) => {
                cl::Help {
                    help: include_str!(concat!("arch/", $p, "-help.txt")),
                    hidden: include_str!(concat!("arch/", $p, "-help-hidden.txt")),
                    list: include_str!(concat!("arch/", $p, "-help-list.txt")),
                    list_hidden: include_str!(concat!("arch/", $p, "-help-list-hidden.txt")),
                    usage_as_invoked: true,
                }
            };
        }
        match (llvm, tool) {
            (LlvmVersion::V19, Tool::NvptxArch) => Release {
                llvm,
                name: "nvptx-arch",
                help: help!("nvptx19"),
                specs: SPECS_19,
                suggest: SUGGEST_19,
                vendor_19: Vendor::Nvidia,
            },
            (LlvmVersion::V19, _) => Release {
                llvm,
                name: "amdgpu-arch",
                help: help!("amdgpu19"),
                specs: SPECS_19,
                suggest: SUGGEST_19,
                vendor_19: Vendor::Amd,
            },
            _ => Release {
                llvm,
                name: "offload-arch",
                help: help!("offload22"),
                specs: SPECS_22,
                suggest: SUGGEST_22,
                vendor_19: Vendor::Amd,
            },
        }
    }
}

/// Runs the tool with its full argument vector.
pub fn main(face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let release = Release::of(face.tool, face.version);
    let tool = cl::Tool {
        name: release.name,
        help: release.help,
        parser: cl::Cl {
            config: cl::Config {
                suggest_order: release.suggest,
                ..cl::Config::new(release.specs)
            },
        },
    };
    let root = env
        .get_os(SYSFS_ROOT_VAR)
        .filter(|r| !r.is_empty())
        .map_or_else(|| PathBuf::from("/"), PathBuf::from);
    tool.main_as(face, args, env, |p, _| {
        let mut out = Out::default();
        let ok = match release.llvm {
            LlvmVersion::V19 => detect_19(release.vendor_19, &root, &mut out),
            _ => {
                let argv0 = p.argv0.as_str();
                let stem = super::packager::stem(argv0);
                let only = if stem.starts_with("amdgpu-arch") {
                    "amdgpu"
                } else if stem.starts_with("nvptx-arch") {
                    "nvptx"
                } else {
                    p.last("only").unwrap_or("all")
                };
                let verbose = p.flag("verbose") == Some(true);
                detect_22(only, verbose, &root, &mut out)
            }
        };
        out.print();
        if ok {
            Ok(())
        } else {
            Err(Error::Reported)
        }
    })
}

/// What a tool printed, by stream: LLVM's `outs()` is a buffer of its own, flushed at exit
/// before C's `stdout` when standard output is not a terminal (and unbuffered on a terminal).
#[derive(Default)]
struct Out {
    lines: Vec<(Stream, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// `printf`/`fprintf(stdout)`.
    Stdio,
    /// `llvm::outs()`.
    Outs,
}

impl Out {
    fn stdio(&mut self, line: String) {
        self.lines.push((Stream::Stdio, line));
    }

    fn outs(&mut self, line: String) {
        self.lines.push((Stream::Outs, line));
    }

    fn print(self) {
        let mut so = std::io::stdout().lock();
        let terminal = so.is_terminal();
        let order: Vec<&String> = if terminal {
            self.lines.iter().map(|(_, l)| l).collect()
        } else {
            let outs = self.lines.iter().filter(|(s, _)| *s == Stream::Outs);
            let stdio = self.lines.iter().filter(|(s, _)| *s == Stream::Stdio);
            outs.chain(stdio).map(|(_, l)| l).collect()
        };
        for l in order {
            let _ = so.write_all(l.as_bytes());
        }
        let _ = so.flush();
    }
}

/// LLVM 19: `amdgpu-arch` (HSA, then HIP) or `nvptx-arch`.
fn detect_19(vendor: Vendor, root: &Path, out: &mut Out) -> bool {
    match vendor {
        Vendor::Nvidia => nvidia(out, true),
        _ => {
            // `printGPUsByHSA`: the agents' names, 1 without any.
            match library_error(c"libhsa-runtime64.so") {
                Some(_) => eprintln!("Failed to 'dlopen' libhsa-runtime64.so"),
                None => {
                    let gpus = kfd_gpus(root).unwrap_or_default();
                    for g in &gpus {
                        out.outs(format!("{g}\n"));
                    }
                    if !gpus.is_empty() {
                        return true;
                    }
                }
            }
            // `printGPUsByHIP`.
            if let Some(e) = library_error(c"libamdhip64.so") {
                eprintln!("Failed to load libamdhip64.so: {e}");
                return false;
            }
            let gpus = kfd_gpus(root).unwrap_or_default();
            if gpus.is_empty() {
                eprintln!("Failed to get device count");
                return false;
            }
            for g in &gpus {
                out.outs(format!("{g}\n"));
            }
            true
        }
    }
}

/// LLVM 22's `offload-arch`: each vendor `only` asks for, in `VendorTable` order; the status
/// is 1 unless one of them succeeded.
fn detect_22(only: &str, verbose: bool, root: &Path, out: &mut Out) -> bool {
    let mut ok = false;
    for (name, vendor) in [
        ("amdgpu", Vendor::Amd),
        ("nvptx", Vendor::Nvidia),
        ("intel", Vendor::Intel),
    ] {
        if only != "all" && only != name {
            continue;
        }
        ok |= match vendor {
            Vendor::Amd => amd_22(verbose, root, out),
            Vendor::Nvidia => nvidia(out, verbose),
            Vendor::Intel => intel_22(verbose),
        };
    }
    ok
}

/// LLVM 22's AMD probe: the KFD topology (`printGPUsByKFD`), and only where reading it fails,
/// HIP.
fn amd_22(verbose: bool, root: &Path, out: &mut Out) -> bool {
    if let Some(gpus) = kfd_gpus(root) {
        for g in gpus {
            out.stdio(format!("{g}\n"));
        }
        return true;
    }
    if verbose {
        out.outs("Using default HIP runtime: libamdhip64.so\n".into());
    }
    if let Some(e) = library_error(c"libamdhip64.so") {
        if verbose {
            eprintln!("Failed to load libamdhip64.so: {e}");
        }
        return false;
    }
    // HIP loads, but the KFD topology, which it reads too, could not be read: no device.
    eprintln!("Failed to get device count (error code: 100)");
    false
}

/// LLVM 22's Intel probe: Level Zero. offkit lists no Intel GPU, so the probe fails (as it
/// does without the library, which is all LLVM says then).
fn intel_22(verbose: bool) -> bool {
    const LIB: &CStr = c"libze_loader.so";
    if let Some(e) = library_error(LIB) {
        if verbose {
            let e = if e.is_empty() {
                "unknown error".into()
            } else {
                e
            };
            eprintln!("Unable to load library 'libze_loader.so': {e}");
        }
    }
    false
}

/// `printGPUsByCUDA` (LLVM 19 says that the library does not load; LLVM 22 only with
/// `--verbose`).
fn nvidia(out: &mut Out, say_load_failure: bool) -> bool {
    match cuda::probe() {
        cuda::Probe::NotLoaded => {
            if say_load_failure {
                eprintln!("Failed to 'dlopen' libcuda.so.1");
            }
            false
        }
        cuda::Probe::MissingSymbol(name) => {
            if say_load_failure {
                eprintln!("Failed to 'dlsym' {name}");
            }
            false
        }
        cuda::Probe::NoDevice => true,
        cuda::Probe::Failed { message, .. } => {
            if let Some(m) = message {
                eprintln!("CUDA error: {m}");
            }
            false
        }
        cuda::Probe::Devices(caps) => {
            for (major, minor) in caps {
                out.stdio(format!("sm_{major}{minor}\n"));
            }
            true
        }
    }
}

/// The GPUs of the KFD topology below `root`, by node number, read as LLVM 22's
/// `printGPUsByKFD` reads them: `None` where it gives up (a node whose name does not start with
/// a number, an unreadable `properties`, a `gfx_target_version` without a number). No topology
/// at all is no GPU. (`/sys/class/kfd/kfd` is a link to the `/sys/devices/virtual/kfd/kfd` that
/// LLVM reads.)
fn kfd_gpus(root: &Path) -> Option<Vec<String>> {
    let dir = root.join(KFD_NODES);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Some(Vec::new());
    };
    let mut nodes = Vec::new();
    for e in entries {
        let e = e.ok()?;
        let name = e.file_name();
        let stem = super::packager::stem(name.to_str()?);
        let node = leading_number(stem)?;
        let text = read_properties(&e.path().join("properties"))?;
        let mut version = 0u64;
        for line in text.split(|&b| b == b'\n') {
            if let Some(rest) = line.strip_prefix(b"gfx_target_version") {
                let rest = rest.trim_ascii_start();
                version = leading_number(std::str::from_utf8(rest).ok()?)?;
                break;
            }
        }
        // A node without a version is a CPU.
        if version != 0 {
            nodes.push((node, version));
        }
        if nodes.len() > omptarget::arch::MAX_NODES {
            return None;
        }
    }
    nodes.sort_by_key(|n| n.0);
    Some(nodes.into_iter().map(|(_, v)| gfx_processor(v)).collect())
}

/// `StringRef::consumeInteger(10, long)`: the leading decimal digits, which must be there and
/// fit a `long`.
fn leading_number(s: &str) -> Option<u64> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    s.get(..digits)?
        .parse::<u64>()
        .ok()
        .filter(|&n| i64::try_from(n).is_ok())
}

/// A node's `properties`, bounded as the runtime bounds it.
fn read_properties(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut text = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(omptarget::arch::MAX_PROPERTIES + 1)
        .read_to_end(&mut text)
        .ok()?;
    (text.len() as u64 <= omptarget::arch::MAX_PROPERTIES).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kfd_fixtures() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../offkit-rt/tests/sysfs");
        assert_eq!(
            kfd_gpus(&fixtures.join("mi210-xnack-on")),
            Some(vec!["gfx90a".to_string()])
        );
        assert_eq!(kfd_gpus(&fixtures.join("cpu-only")), Some(vec![]));
        assert_eq!(kfd_gpus(&fixtures.join("no-such-tree")), Some(vec![]));
        let mixed = kfd_gpus(&fixtures.join("mixed")).unwrap();
        assert!(!mixed.is_empty());
        assert_eq!(leading_number("12x"), Some(12));
        assert_eq!(leading_number("x"), None);
    }
}
