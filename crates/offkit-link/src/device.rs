//! Phase 3: the device link of one group, as `generic::clang` builds it: LLVM 19's command
//! ([`command`]), or LLVM 22's, where clang does the whole device link, LTO included:
//!
//! ```text
//! clang --no-default-config -o <exe>.<archname>.<arch>.img -dumpdir <exe path>.<archname>.<arch>.img.
//!     --target=<triple> [-mcpu=<arch> for AMDGPU | -march=<arch>, when there is an arch]
//!     [-flto for AMDGPU] [-Xlinker --plugin-opt=<-mllvm and --offload-opt= value>]…
//!     [-Wl,--no-undefined unless NVPTX or SPIR-V] <inputs…>
//!     [CPU targets: -Wl,-Bsymbolic -shared <host libraries>] [-Xlinker -mllvm=<a>]…
//!     [-Wl,--save-temps with --save-temps, when the device linker does LTO]
//!     [-Wl,--lto-emit-llvm with --embed-bitcode] [-Xlinker <linker-arg>]… [<compiler-arg>]…
//! ```
//!
//! LLVM 19's:
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

use offkit_llvm::LlvmVersion;
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
    /// A CPU: x86, x86_64, aarch64(_be), ppc64(le), systemz (LLVM 22: and loongarch64).
    Cpu,
    /// spirv64 (LLVM 22).
    Spirv,
}

/// The architecture component of a triple, as written (`Triple::getArchName`).
pub fn arch_name(triple: &str) -> &str {
    triple.split('-').next().unwrap_or("")
}

/// The family of `triple` (`linkDevice`'s switch on `Triple::getArch`: LLVM 22 adds spirv64
/// and loongarch64), or its "`<arch>` linking is not supported".
pub fn family(triple: &str, llvm: LlvmVersion) -> Result<Family> {
    use offkit_llvm::triple::{Arch, Triple};
    Ok(match (Triple::parse(triple).arch(), llvm) {
        (Arch::Amdgcn, _) => Family::Amdgpu,
        (Arch::Nvptx | Arch::Nvptx64, _) => Family::Nvptx,
        (
            Arch::X86
            | Arch::X86_64
            | Arch::Aarch64
            | Arch::Aarch64Be
            | Arch::Ppc64
            | Arch::Ppc64le
            | Arch::Systemz,
            _,
        ) => Family::Cpu,
        (Arch::Loongarch64, LlvmVersion::V22) => Family::Cpu,
        (Arch::Spirv64, LlvmVersion::V22) => Family::Spirv,
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
    /// `--compiler-arg=` values for this group (from `--device-compiler=`; LLVM 22).
    pub compiler_args: Vec<String>,
    /// clang's `-dumpdir` (LLVM 22): the executable's path and the image's name.
    pub dumpdir: String,
}

/// The `--linker-arg=` values of the host line, then the `--device-linker=` values that
/// apply to `triple`. LLVM 19: no `=` → always; `<T>=<v>` → when `T` is the triple (so a
/// triple-less value containing `=` is dropped). LLVM 22: a value whose part before the first
/// `=` is no triple LLVM knows is kept whole; `<T>` or `<T>=` → `T`; `<T>=<v>` → `v` when `T`
/// is the triple.
pub fn linker_args_for(host: &Args, config: &LinkConfig, triple: &str) -> Vec<String> {
    let mut out: Vec<String> = host
        .values(Opt::LinkerArg)
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.extend(for_triple(&config.device_linker, triple, config.llvm));
    out
}

/// The `--compiler-arg=` values of the host line, then the `--device-compiler=` values that
/// apply to `triple` (LLVM 22's rule of [`linker_args_for`]).
pub fn compiler_args_for(host: &Args, config: &LinkConfig, triple: &str) -> Vec<String> {
    let mut out: Vec<String> = host
        .values(Opt::CompilerArg)
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.extend(for_triple(&config.device_compiler, triple, config.llvm));
    out
}

/// The values of `--device-linker=`/`--device-compiler=` that apply to `triple`.
fn for_triple(values: &[String], triple: &str, llvm: LlvmVersion) -> Vec<String> {
    use offkit_llvm::triple::{Arch, Triple};
    let mut out = Vec::new();
    for v in values {
        let (t, val) = v.split_once('=').unwrap_or((v, ""));
        match llvm {
            LlvmVersion::V19 if val.is_empty() => out.push(t.to_string()),
            LlvmVersion::V19 if t == triple => out.push(val.to_string()),
            LlvmVersion::V19 => {}
            _ if Triple::parse(t).arch() == Arch::Unknown => out.push(v.clone()),
            _ if val.is_empty() => out.push(t.to_string()),
            _ if t == triple => out.push(val.to_string()),
            _ => {}
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

/// Builds the clang command of one device link, as `c.llvm` builds it.
pub fn command(
    clang: &Path,
    d: &DeviceLink<'_>,
    c: &LinkConfig,
    host_libs: &[String],
) -> Result<ToolInvocation> {
    match c.llvm {
        LlvmVersion::V19 => command_19(clang, d, c, host_libs),
        _ => command_22(clang, d, c, host_libs),
    }
}

/// Whether the device link's linker does LTO itself (LLVM 22's `linkerSupportsLTO`): NVPTX and
/// AMDGPU, and a CPU when the host linker is an lld.
fn linker_supports_lto(fam: Family, c: &LinkConfig) -> bool {
    match fam {
        Family::Nvptx | Family::Amdgpu => true,
        Family::Spirv => false,
        Family::Cpu => c.linker.to_string_lossy().ends_with("lld"),
    }
}

/// LLVM 22's device link command (see the module documentation).
fn command_22(
    clang: &Path,
    d: &DeviceLink<'_>,
    c: &LinkConfig,
    host_libs: &[String],
) -> Result<ToolInvocation> {
    let fam = family(d.triple, c.llvm)?;
    let mut v: Vec<String> = vec![
        "--no-default-config".into(),
        "-o".into(),
        d.output.to_string_lossy().into_owned(),
        "-dumpdir".into(),
        d.dumpdir.clone(),
        format!("--target={}", d.triple),
    ];
    if !d.arch.is_empty() {
        v.push(match fam {
            Family::Amdgpu => format!("-mcpu={}", d.arch),
            _ => format!("-march={}", d.arch),
        });
    }
    if fam == Family::Amdgpu {
        v.push("-flto".into());
    }
    for o in c.plugin_opts() {
        v.extend(["-Xlinker".into(), format!("--plugin-opt={o}")]);
    }
    if !matches!(fam, Family::Nvptx | Family::Spirv) {
        v.push("-Wl,--no-undefined".into());
    }
    v.extend(d.objects.iter().cloned());
    if fam == Family::Cpu {
        v.push("-Wl,-Bsymbolic".into());
        v.push("-shared".into());
        v.extend(host_libs.iter().cloned());
    }
    for m in &c.mllvm {
        v.extend(["-Xlinker".into(), format!("-mllvm={m}")]);
    }
    if c.save_temps && linker_supports_lto(fam, c) {
        v.push("-Wl,--save-temps".into());
    }
    if c.embed_bitcode {
        v.push("-Wl,--lto-emit-llvm".into());
    }
    for a in &d.linker_args {
        v.extend(["-Xlinker".into(), a.clone()]);
    }
    v.extend(d.compiler_args.iter().cloned());
    Ok(ToolInvocation::new(clang).args(v))
}

/// LLVM 19's device link command (see the module documentation).
fn command_19(
    clang: &Path,
    d: &DeviceLink<'_>,
    c: &LinkConfig,
    host_libs: &[String],
) -> Result<ToolInvocation> {
    let fam = family(d.triple, c.llvm)?;
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
        args_of(s, LlvmVersion::V19)
    }

    fn args_of(s: &str, v: LlvmVersion) -> Args {
        parse(
            &s.split_whitespace().map(String::from).collect::<Vec<_>>(),
            v,
        )
        .unwrap()
    }

    #[test]
    fn device_linker_values() {
        let a = args("--device-linker=-x --device-linker=amdgcn-amd-amdhsa=-y --device-linker=nvptx64=-z --device-linker=a=b=c");
        let c = LinkConfig::from_parsed(&a, LlvmVersion::V19).unwrap();
        let host = c.host().unwrap();
        assert_eq!(
            linker_args_for(&host, &c, "amdgcn-amd-amdhsa"),
            ["-x", "-y"]
        );
        assert_eq!(linker_args_for(&host, &c, "a"), ["-x", "b=c"]);
        // LLVM 22: `a=b=c` names no triple, so it is an argument for every device link.
        let v = LlvmVersion::V22;
        let a = args_of("--device-linker=-x --device-linker=amdgcn-amd-amdhsa=-y --device-linker=nvptx64=-z --device-linker=a=b=c --device-linker=x86_64= --linker-arg=-w", v);
        let c = LinkConfig::from_parsed(&a, v).unwrap();
        let host = c.host().unwrap();
        assert_eq!(
            linker_args_for(&host, &c, "amdgcn-amd-amdhsa"),
            ["-w", "-x", "-y", "a=b=c", "x86_64"]
        );
    }

    #[test]
    fn x86_64_command_as_llvm_19() {
        let a = args("-o p -L/usr/lib -lomp --whole-archive --no-whole-archive -mllvm -x");
        let mut c = LinkConfig::from_parsed(&a, LlvmVersion::V19).unwrap();
        c.verbose = true;
        let host_libs = host_libraries(&c.host().unwrap()).unwrap();
        let d = DeviceLink {
            triple: "x86_64-pc-linux-gnu",
            arch: "",
            output: Path::new("/tmp/p.x86_64.native-051d9b.img"),
            objects: vec!["/tmp/p-x86_64-pc-linux-gnu--b47ab7.o".into()],
            linker_args: vec![],
            compiler_args: vec![],
            dumpdir: String::new(),
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
            matches!(family("spirv64-unknown-unknown", LlvmVersion::V19), Err(Error::LinkingNotSupported(a)) if a == "spirv64")
        );
        assert_eq!(
            family("spirv64-unknown-unknown", LlvmVersion::V22).unwrap(),
            Family::Spirv
        );
    }

    #[test]
    fn amdgcn_command_as_llvm_22() {
        let v = LlvmVersion::V22;
        let a = args_of(
            "-o p -mllvm -a --offload-opt=-b -mllvm -c --device-compiler=amdgcn-amd-amdhsa=-O3 --save-temps --embed-bitcode --device-linker=-lfoo",
            v,
        );
        let c = LinkConfig::from_parsed(&a, v).unwrap();
        let host = c.host().unwrap();
        let t = "amdgcn-amd-amdhsa";
        let d = DeviceLink {
            triple: t,
            arch: "gfx90a",
            output: Path::new("/tmp/p.amdgcn.gfx90a.img"),
            objects: vec!["/tmp/p-amdgcn-amd-amdhsa-gfx90a.o".into()],
            linker_args: linker_args_for(&host, &c, t),
            compiler_args: compiler_args_for(&host, &c, t),
            dumpdir: "p.amdgcn.gfx90a.img.".into(),
        };
        let inv = command(Path::new("clang"), &d, &c, &[]).unwrap();
        let line: Vec<String> = inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            line.join(" "),
            "--no-default-config -o /tmp/p.amdgcn.gfx90a.img -dumpdir p.amdgcn.gfx90a.img. \
             --target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto -Xlinker --plugin-opt=-a \
             -Xlinker --plugin-opt=-b -Xlinker --plugin-opt=-c -Wl,--no-undefined \
             /tmp/p-amdgcn-amd-amdhsa-gfx90a.o -Xlinker -mllvm=-a -Xlinker -mllvm=-c \
             -Wl,--save-temps -Wl,--lto-emit-llvm -Xlinker -lfoo -O3"
        );
    }
}
