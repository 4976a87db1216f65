//! [`LinkConfig`]: everything one link needs, as typed values. `offkit link` builds it from its
//! own options; the `clang-linker-wrapper` drop-in from LLVM's command line
//! ([`LinkConfig::from_llvm_args`]).
//!
//! The host link itself stays a command line ([`LinkConfig::host_args`]): it goes to the host
//! linker as given, and the wrapper reads from it what a linker reads (`-o`, the inputs, `-L`,
//! `-l`, `--whole-archive`, `-r`, `--sysroot=`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::opts::{self, Args, Opt};

/// The default host triple of Debian's LLVM 19 (`sys::getDefaultTargetTriple()`).
pub const DEFAULT_HOST_TRIPLE: &str = "x86_64-pc-linux-gnu";

/// A device library linked into every group of its target (`--bitcode-library=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitcodeLibrary {
    /// The offload kind, by LLVM 19's name (`openmp`, `cuda`, `hip`).
    pub kind: String,
    /// The target triple.
    pub triple: String,
    /// The arch (target ID).
    pub arch: String,
    /// The bitcode file.
    pub path: PathBuf,
}

impl BitcodeLibrary {
    /// Reads `<kind>-<triple>-<arch>=<path>` as LLVM 19 splits it (the triple is everything
    /// between the first and the last `-`).
    pub fn parse(value: &str) -> BitcodeLibrary {
        let (device, path) = value.split_once('=').unwrap_or((value, ""));
        let (rest, arch) = device.rsplit_once('-').unwrap_or((device, ""));
        let (kind, triple) = rest.split_once('-').unwrap_or((rest, ""));
        BitcodeLibrary {
            kind: kind.into(),
            triple: triple.into(),
            arch: arch.into(),
            path: PathBuf::from(path),
        }
    }
}

/// An image given instead of the device link of its kind (`--override-image=<kind>=<file>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverrideImage {
    /// The offload kind, by LLVM 19's name.
    pub kind: String,
    /// The linked device image.
    pub path: PathBuf,
}

/// One link, configured. [`LinkConfig::new`] gives LLVM 19's defaults; set the fields, then
/// run it with [`crate::Link`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// The host link command line, in order: `-o FILE`, inputs, `-L`, `-l`, and whatever else
    /// the host linker takes. The registration objects are inserted right after `-o FILE`.
    pub host_args: Vec<String>,
    /// The host linker (`--linker-path=`).
    pub linker: PathBuf,
    /// The host's target triple (`--host-triple=`).
    pub host_triple: String,
    /// Keep only these device targets: `<triple>[:<target-id>],...` (`--offload-targets=`);
    /// `None`: every target found, or those of `OFFKIT_OFFLOAD_TARGETS`.
    pub offload_targets: Option<String>,
    /// At most this many device links at once (`--wrapper-jobs=`); `None`: one, or one per
    /// group inside make's jobserver.
    pub jobs: Option<usize>,
    /// Say, for every device image, whether it was linked and why (`--explain`).
    pub explain: bool,
    /// Write the link as a shell script (`--emit-plan=`).
    pub emit_plan: Option<PathBuf>,
    /// Print the commands without running them (`--dry-run`).
    pub dry_run: bool,
    /// Print every command before running it (`--wrapper-verbose`).
    pub verbose: bool,
    /// Keep the intermediate files, named as LLVM 19 names them (`--save-temps`).
    pub save_temps: bool,
    /// Write a Chrome time trace here (`--wrapper-time-trace=`).
    pub time_trace: Option<PathBuf>,
    /// Its granularity in microseconds (`--wrapper-time-trace-granularity=`, default 500).
    pub time_trace_granularity: u128,
    /// The device links' optimisation level, `O0`..`O3` (`--opt-level=`, default `O2`).
    pub opt_level: String,
    /// Arguments for every device link: `<arg>`, or `<triple>=<arg>` for one triple only
    /// (`--device-linker=`).
    pub device_linker: Vec<String>,
    /// Link device code with debug information (`--device-debug`).
    pub device_debug: bool,
    /// `-mllvm` options for the device links and the LTO.
    pub mllvm: Vec<String>,
    /// LLVM options for the LTO only, with their dash (`--offload-opt=-<opt>`).
    pub offload_opts: Vec<String>,
    /// `--pass-remarks=` patterns.
    pub pass_remarks: Vec<String>,
    /// `--pass-remarks-missed=` patterns.
    pub pass_remarks_missed: Vec<String>,
    /// `--pass-remarks-analysis=` patterns.
    pub pass_remarks_analysis: Vec<String>,
    /// Device libraries in bitcode (`--bitcode-library=`).
    pub bitcode_libraries: Vec<BitcodeLibrary>,
    /// Builtin bitcode linked by clang: `<triple>=<file>` (`--builtin-bitcode=`).
    pub builtin_bitcode: Vec<String>,
    /// Give clang the optimized bitcode rather than an object (`--clang-backend`).
    pub clang_backend: bool,
    /// Embed the optimized device bitcode instead of linking it (`--embed-bitcode`).
    pub embed_bitcode: bool,
    /// Images that replace the device link of their kind (`--override-image=`).
    pub override_images: Vec<OverrideImage>,
    /// The CUDA installation (`--cuda-path=`).
    pub cuda_path: Option<PathBuf>,
    /// `-Xcuda-ptxas` arguments (`--ptxas-arg=`).
    pub ptxas_args: Vec<String>,
    /// Compress HIP offload bundles (`--compress`).
    pub compress: bool,
    /// Their compression level (`--compression-level=`).
    pub compression_level: Option<String>,
    /// Print the registration module as LLVM IR (`--print-wrapped-module`).
    pub print_wrapped_module: bool,
}

impl LinkConfig {
    /// A link of `host_args` by the host linker `linker`, with LLVM 19's defaults for the rest.
    pub fn new(linker: impl Into<PathBuf>, host_args: Vec<String>) -> LinkConfig {
        LinkConfig {
            host_args,
            linker: linker.into(),
            host_triple: DEFAULT_HOST_TRIPLE.into(),
            offload_targets: None,
            jobs: None,
            explain: false,
            emit_plan: None,
            dry_run: false,
            verbose: false,
            save_temps: false,
            time_trace: None,
            time_trace_granularity: 500,
            opt_level: "O2".into(),
            device_linker: Vec::new(),
            device_debug: false,
            mllvm: Vec::new(),
            offload_opts: Vec::new(),
            pass_remarks: Vec::new(),
            pass_remarks_missed: Vec::new(),
            pass_remarks_analysis: Vec::new(),
            bitcode_libraries: Vec::new(),
            builtin_bitcode: Vec::new(),
            clang_backend: false,
            embed_bitcode: false,
            override_images: Vec::new(),
            cuda_path: None,
            ptxas_args: Vec::new(),
            compress: false,
            compression_level: None,
            print_wrapped_module: false,
        }
    }

    /// The configuration LLVM 19's `clang-linker-wrapper` reads from `args` (without
    /// `argv[0]`, response files expanded): its own options become fields, every other
    /// argument stays in [`LinkConfig::host_args`] as `OptTable` renders it. Errors are LLVM
    /// 19's (a missing value, a bad `--wrapper-jobs=`).
    pub fn from_llvm_args(args: &[String]) -> Result<LinkConfig> {
        Self::from_parsed(&opts::parse(args)?)
    }

    /// [`LinkConfig::from_llvm_args`] on a command line already parsed.
    pub(crate) fn from_parsed(a: &Args) -> Result<LinkConfig> {
        let mut c = LinkConfig::new(a.last(Opt::LinkerPath).unwrap_or(""), Vec::new());
        c.jobs = jobs(a)?;
        let owned = |opt| -> Vec<String> { a.values(opt).iter().map(|s| s.to_string()).collect() };
        let path = |opt| a.last(opt).map(PathBuf::from);
        if let Some(t) = a.last(Opt::HostTriple) {
            c.host_triple = t.into();
        }
        if let Some(o) = a.last(Opt::OptLevel) {
            c.opt_level = o.into();
        }
        c.offload_targets = a.last(Opt::OffloadTargets).map(String::from);
        c.explain = a.has(Opt::Explain);
        c.emit_plan = path(Opt::EmitPlan);
        c.dry_run = a.has(Opt::DryRun);
        c.verbose = a.has(Opt::Verbose);
        c.save_temps = a.has(Opt::SaveTemps);
        c.time_trace = path(Opt::WrapperTimeTrace);
        if let Some(g) = a
            .last(Opt::WrapperTimeTraceGranularity)
            .and_then(|g| g.parse().ok())
        {
            c.time_trace_granularity = g;
        }
        c.device_linker = owned(Opt::DeviceLinker);
        c.device_debug = a.has(Opt::DeviceDebug);
        c.mllvm = owned(Opt::Mllvm);
        c.offload_opts = a
            .values(Opt::OffloadOpt)
            .iter()
            .map(|v| format!("-{v}"))
            .collect();
        c.pass_remarks = owned(Opt::PassRemarks);
        c.pass_remarks_missed = owned(Opt::PassRemarksMissed);
        c.pass_remarks_analysis = owned(Opt::PassRemarksAnalysis);
        c.bitcode_libraries = a
            .values(Opt::BitcodeLibrary)
            .iter()
            .map(|v| BitcodeLibrary::parse(v))
            .collect();
        c.builtin_bitcode = owned(Opt::BuiltinBitcode);
        c.clang_backend = a.has(Opt::ClangBackend);
        c.embed_bitcode = a.has(Opt::EmbedBitcode);
        c.override_images = a
            .values(Opt::OverrideImage)
            .iter()
            .map(|v| {
                let (kind, file) = v.split_once('=').unwrap_or((v, ""));
                OverrideImage {
                    kind: kind.into(),
                    path: PathBuf::from(file),
                }
            })
            .collect();
        c.cuda_path = path(Opt::CudaPath);
        c.ptxas_args = owned(Opt::PtxasArg);
        c.compress = a.has(Opt::Compress);
        c.compression_level = a.last(Opt::CompressionLevel).map(String::from);
        c.print_wrapped_module = a.has(Opt::PrintWrappedModule);
        c.host_args = a
            .args
            .iter()
            .filter(|x| !x.opt.wrapper_only())
            .flat_map(|x| x.render())
            .collect();
        Ok(c)
    }

    /// [`LinkConfig::host_args`] parsed as the wrapper parses them; an option of the wrapper
    /// itself there is refused (it belongs in a field).
    pub(crate) fn host(&self) -> Result<Args> {
        let host = opts::parse(&self.host_args)?;
        if let Some(a) = host.args.iter().find(|a| a.opt.wrapper_only()) {
            return Err(Error::WrapperOptionInHostArgs(a.render().join(" ")));
        }
        Ok(host)
    }

    /// The files of the `--builtin-bitcode=<triple>=<file>` values for `triple`.
    pub(crate) fn builtin_bitcode_for<'s>(
        &'s self,
        triple: &'s str,
    ) -> impl Iterator<Item = &'s str> {
        self.builtin_bitcode.iter().filter_map(move |b| {
            let (t, f) = b.split_once('=').unwrap_or((b, ""));
            (t == triple).then_some(f)
        })
    }

    /// `--cuda-path=<dir>/bin`, or `bin` when no CUDA path was given (LLVM 19 looks there).
    pub(crate) fn cuda_bin(&self) -> PathBuf {
        self.cuda_path
            .as_deref()
            .unwrap_or(Path::new(""))
            .join("bin")
    }
}

/// `--wrapper-jobs=`: a positive integer (LLVM's `cl` rules), the last one given.
fn jobs(a: &Args) -> Result<Option<usize>> {
    let Some(arg) = a.args.iter().rev().find(|x| x.opt == Opt::WrapperJobs) else {
        return Ok(None);
    };
    match offkit_llvm::cl::integer::parse_u64(arg.value())
        .filter(|&n| n > 0 && n <= u64::from(u32::MAX))
        .and_then(|n| usize::try_from(n).ok())
    {
        Some(n) => Ok(Some(n)),
        None => Err(Error::Usage(format!(
            "{}{}: expected a positive integer, got '{}'",
            arg.spelling,
            arg.value(),
            arg.value()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn llvm_args_become_fields_and_the_rest_the_host_line() {
        let c = LinkConfig::from_llvm_args(&words(
            "--linker-path=/usr/bin/ld --wrapper-jobs=0x2 -lomp --host-triple=aarch64-linux-gnu \
             --offload-opt=-foo -mllvm -x --output=a.out main.o --bitcode-library=openmp-amdgcn-amd-amdhsa-gfx90a=l.bc -r",
        ))
        .unwrap();
        assert_eq!(c.linker, Path::new("/usr/bin/ld"));
        assert_eq!(c.jobs, Some(2));
        assert_eq!(c.host_triple, "aarch64-linux-gnu");
        assert_eq!(c.offload_opts, ["-foo"]);
        assert_eq!(c.mllvm, ["-x"]);
        assert_eq!(
            c.bitcode_libraries,
            [BitcodeLibrary {
                kind: "openmp".into(),
                triple: "amdgcn-amd-amdhsa".into(),
                arch: "gfx90a".into(),
                path: "l.bc".into()
            }]
        );
        assert_eq!(c.host_args, words("-l omp -o a.out main.o --relocatable"));
        assert_eq!(c.host().unwrap().args.len(), 4);
        let e = LinkConfig::from_llvm_args(&words("--wrapper-jobs=0")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--wrapper-jobs=0: expected a positive integer, got '0'"
        );
        let mut c = LinkConfig::new("ld", words("-o a --dry-run"));
        assert!(matches!(c.host(), Err(Error::WrapperOptionInHostArgs(a)) if a == "--dry-run"));
        c.host_args.pop();
        assert!(c.host().is_ok());
    }

    /// The host line `from_llvm_args` keeps parses back to the same arguments: what the host
    /// linker gets is what LLVM 19's wrapper gives it.
    #[test]
    fn host_args_parse_back_to_the_same_line() {
        let lines: &[&[&str]] = &[
            &[
                "-o",
                "",
                "--output=x",
                "-lfoo",
                "-l",
                "bar",
                "--",
                "-v",
                "-verbose",
            ],
            &[
                "/out:x.exe",
                "/libpath:/l",
                "-rpath=/e",
                "--rpath",
                "/f",
                "-m",
                "elf_x86_64",
            ],
            &[
                "-mllvm",
                "-x",
                "-o",
                "--dry-run",
                "--whole-archive",
                "a.a",
                "-r",
                "-",
                "",
            ],
            &[
                "--library=/c",
                "-L/d",
                "--sysroot=/s",
                "--linker-arg=-y",
                "--triple=t",
                "x.o",
            ],
        ];
        for line in lines {
            let words: Vec<String> = line.iter().map(|w| w.to_string()).collect();
            let all = opts::parse(&words).unwrap();
            let want: Vec<Vec<String>> = all
                .args
                .iter()
                .filter(|a| !a.opt.wrapper_only())
                .map(|a| a.render())
                .collect();
            let c = LinkConfig::from_llvm_args(&words).unwrap();
            let got: Vec<Vec<String>> = c.host().unwrap().args.iter().map(|a| a.render()).collect();
            assert_eq!(got, want, "for {line:?}");
        }
    }
}
