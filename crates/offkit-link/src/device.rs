//! Phase 3: the device link of one group, as LLVM 19's `generic::clang` builds it.
//!
//! ```text
//! clang --no-default-config -o <exe>.<archname>.<arch|native>.img --target=<triple>
//!     (-mcpu=<arch> for AMDGPU | -march=<arch|native>) -O<n>
//!     [-Wl,--no-undefined unless NVPTX] <LTO outputs…> <objects…>
//!     [CPU targets: -Wl,-Bsymbolic -shared <host libraries>]
//!     [-mllvm <a>]… [-g] [-save-temps] [-v] [--cuda-path=…] [-Xcuda-ptxas <a>]…
//!     [<linker-arg>…] [-Xclang -mlink-builtin-bitcode -Xclang <f>]… [-mllvm -openmp-opt-disable]
//! ```
//!
//! Bitcode inputs never reach this command: they are linked first, as LLVM 19 links them in
//! process (`crate::lto`, by llvm-lto2; with `--clang-backend` clang gets the optimized module).

use std::path::Path;

use offkit_tools::ToolInvocation;

use crate::config::LinkConfig;
use crate::error::{Error, Result};
use crate::opts::{Args, Opt};
use crate::scan::{magic, Magic};

/// The family of a device triple, which decides how it is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// amdgcn (r600 is not supported by the wrapper).
    Amdgpu,
    /// nvptx / nvptx64.
    Nvptx,
    /// A CPU: x86, x86_64, aarch64(_be), ppc64(le), systemz.
    Cpu,
}

/// The architecture component of a triple, as written (`Triple::getArchName`).
pub fn arch_name(triple: &str) -> &str {
    triple.split('-').next().unwrap_or("")
}

/// The family of `triple` (LLVM 19's `linkDevice` switch on `Triple::getArch`), or its
/// "`<arch>` linking is not supported".
pub fn family(triple: &str) -> Result<Family> {
    use offkit_llvm::triple::{Arch, Triple};
    Ok(match Triple::parse(triple).arch() {
        Arch::Amdgcn => Family::Amdgpu,
        Arch::Nvptx | Arch::Nvptx64 => Family::Nvptx,
        Arch::X86
        | Arch::X86_64
        | Arch::Aarch64
        | Arch::Aarch64Be
        | Arch::Ppc64
        | Arch::Ppc64le
        | Arch::Systemz => Family::Cpu,
        _ => return Err(Error::LinkingNotSupported(arch_name(triple).to_string())),
    })
}

/// What one device link needs besides the common options.
#[derive(Debug, Clone)]
pub struct DeviceLink<'a> {
    /// The group's triple (of its first input).
    pub triple: &'a str,
    /// The group's arch / target ID (of its first input).
    pub arch: &'a str,
    /// The output image.
    pub output: &'a Path,
    /// Object inputs (the LTO outputs first).
    pub objects: Vec<String>,
    /// `--linker-arg=` values for this group (from `--device-linker=`).
    pub linker_args: Vec<String>,
}

/// The `--device-linker=` values that apply to `triple`: no `=` → always; `<T>=<v>` → when
/// `T` is the triple (so a triple-less value containing `=` is dropped, as in LLVM 19).
pub fn linker_args_for(host: &Args, config: &LinkConfig, triple: &str) -> Vec<String> {
    let mut out: Vec<String> = host
        .values(Opt::LinkerArg)
        .iter()
        .map(|s| s.to_string())
        .collect();
    for v in &config.device_linker {
        let (t, val) = v.split_once('=').unwrap_or((v, ""));
        if val.is_empty() {
            out.push(t.to_string());
        } else if t == triple {
            out.push(val.to_string());
        }
    }
    out
}

/// The host libraries a CPU device link gets (LLVM 19 copies every `-l`, `-L`, `-rpath`,
/// whole-archive flag and every input that is an archive or shared object).
pub fn host_libraries(args: &Args) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for a in args.filtered(&[
        Opt::Input,
        Opt::Library,
        Opt::LibraryPath,
        Opt::Rpath,
        Opt::WholeArchive,
        Opt::NoWholeArchive,
    ]) {
        match a.opt {
            Opt::Input => {
                let p = Path::new(&a.spelling);
                if !p.exists() || p.is_dir() {
                    continue;
                }
                let head = read_head(p).map_err(|source| Error::Read {
                    path: p.to_path_buf(),
                    source,
                })?;
                if !matches!(magic(&head), Magic::Archive | Magic::ElfShared) {
                    continue;
                }
                out.push(a.spelling.clone());
            }
            Opt::WholeArchive => out.push("-Wl,--whole-archive".into()),
            Opt::NoWholeArchive => out.push("-Wl,--no-whole-archive".into()),
            _ => out.extend(a.render()),
        }
    }
    Ok(out)
}

/// The first bytes of `p`, opened as LLVM 19 opens inputs (a FIFO is refused, not waited on).
fn read_head(p: &Path) -> std::io::Result<Vec<u8>> {
    let data = offkit_tools::MappedFile::open_llvm(p)?;
    Ok(data.get(..20).unwrap_or(&data).to_vec())
}

/// Builds the clang command of one device link.
pub fn command(
    clang: &Path,
    d: &DeviceLink<'_>,
    c: &LinkConfig,
    host_libs: &[String],
) -> Result<ToolInvocation> {
    let fam = family(d.triple)?;
    let arch = if d.arch.is_empty() { "native" } else { d.arch };
    let mut v: Vec<String> = vec![
        "--no-default-config".into(),
        "-o".into(),
        d.output.to_string_lossy().into_owned(),
        format!("--target={}", d.triple),
        if fam == Family::Amdgpu {
            format!("-mcpu={arch}")
        } else {
            format!("-march={arch}")
        },
        format!("-{}", c.opt_level),
    ];
    if fam != Family::Nvptx {
        v.push("-Wl,--no-undefined".into());
    }
    v.extend(d.objects.iter().cloned());
    if fam == Family::Cpu {
        v.push("-Wl,-Bsymbolic".into());
        v.push("-shared".into());
        v.extend(host_libs.iter().cloned());
    }
    for m in &c.mllvm {
        v.push("-mllvm".into());
        v.push(m.clone());
    }
    if c.device_debug {
        v.push("-g".into());
    }
    if c.save_temps {
        v.push("-save-temps".into());
    }
    if c.verbose {
        v.push("-v".into());
    }
    if let Some(p) = c.cuda_path.as_ref().filter(|p| !p.as_os_str().is_empty()) {
        v.push(format!("--cuda-path={}", p.display()));
    }
    for a in &c.ptxas_args {
        v.push("-Xcuda-ptxas".into());
        v.push(a.clone());
    }
    v.extend(d.linker_args.iter().cloned());
    for f in c.builtin_bitcode_for(d.triple) {
        v.extend(["-Xclang", "-mlink-builtin-bitcode", "-Xclang", f].map(String::from));
    }
    if c.clang_backend || !c.builtin_bitcode.is_empty() {
        v.extend(["-mllvm", "-openmp-opt-disable"].map(String::from));
    }
    Ok(ToolInvocation::new(clang).args(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opts::parse;

    fn args(s: &str) -> Args {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn device_linker_values() {
        let a = args("--device-linker=-x --device-linker=amdgcn-amd-amdhsa=-y --device-linker=nvptx64=-z --device-linker=a=b=c");
        let c = LinkConfig::from_parsed(&a).unwrap();
        let host = c.host().unwrap();
        assert_eq!(
            linker_args_for(&host, &c, "amdgcn-amd-amdhsa"),
            ["-x", "-y"]
        );
        assert_eq!(linker_args_for(&host, &c, "a"), ["-x", "b=c"]);
    }

    #[test]
    fn x86_64_command_as_llvm_19() {
        let a = args("-o p -L/usr/lib -lomp --whole-archive --no-whole-archive -mllvm -x");
        let mut c = LinkConfig::from_parsed(&a).unwrap();
        c.verbose = true;
        let host_libs = host_libraries(&c.host().unwrap()).unwrap();
        let d = DeviceLink {
            triple: "x86_64-pc-linux-gnu",
            arch: "",
            output: Path::new("/tmp/p.x86_64.native-051d9b.img"),
            objects: vec!["/tmp/p-x86_64-pc-linux-gnu--b47ab7.o".into()],
            linker_args: vec![],
        };
        let inv = command(Path::new("/usr/lib/llvm-19/bin/clang"), &d, &c, &host_libs).unwrap();
        let line: Vec<String> = inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            line.join(" "),
            "--no-default-config -o /tmp/p.x86_64.native-051d9b.img --target=x86_64-pc-linux-gnu \
             -march=native -O2 -Wl,--no-undefined /tmp/p-x86_64-pc-linux-gnu--b47ab7.o \
             -Wl,-Bsymbolic -shared -L /usr/lib -l omp -Wl,--whole-archive -Wl,--no-whole-archive \
             -mllvm -x -v"
        );
        assert!(
            matches!(family("spirv64-unknown-unknown"), Err(Error::LinkingNotSupported(a)) if a == "spirv64")
        );
    }
}
