//! [`LinkConfig`]: everything one link needs, as typed values. `offkit link` builds it from its
//! own options; the `clang-linker-wrapper` drop-in from LLVM's command line
//! ([`LinkConfig::from_llvm_args`]).
//!
//! The host link itself stays a command line ([`LinkConfig::host_args`]): it goes to the host
//! linker as given, and the wrapper reads from it what a linker reads (`-o`, the inputs, `-L`,
//! `-l`, `--whole-archive`, `-r`, `--sysroot=`).

use std::path::{Path, PathBuf};

use offkit_llvm::LlvmVersion;

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
/// run it with [`crate::Link`]. [`LinkConfig::llvm`] says which release's wrapper the link is:
/// the fields that only one release has are listed by [`LinkConfig::release_options`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// The LLVM release whose `clang-linker-wrapper` this link is: its device link steps, its
    /// registration objects, its messages.
    pub llvm: LlvmVersion,
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
    /// As many device links at once as make's jobserver grants (LLVM 22's
    /// `--wrapper-jobs=jobserver`; without a jobserver, one).
    pub jobserver: bool,
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
    /// Arguments for the clang of every device link (LLVM 22): `<arg>`, or `<triple>=<arg>`
    /// (`--device-compiler=`).
    pub device_compiler: Vec<String>,
    /// Device architectures whose archive members are linked even when no object needs them
    /// (LLVM 22's `--should-extract=`).
    pub should_extract: Vec<String>,
    /// Write the CUDA fatbinary or HIP offload bundle to the output instead of wrapping it and
    /// linking the host (LLVM 22's `--emit-fatbin-only`).
    pub emit_fatbin_only: bool,
    /// Link device code with debug information (`--device-debug`).
    pub device_debug: bool,
    /// `-mllvm` options for the device links and the LTO.
    pub mllvm: Vec<String>,
    /// LLVM options for the LTO only, with their dash (`--offload-opt=-<opt>`).
    pub offload_opts: Vec<String>,
    /// The `-mllvm` and `--offload-opt=` values in command-line order, which LLVM 22 gives
    /// every device link's clang as `-Xlinker --plugin-opt=<value>`; when empty, `mllvm` then
    /// `offload_opts` ([`LinkConfig::from_llvm_args`] fills it).
    pub plugin_opts: Vec<String>,
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
            llvm: LlvmVersion::DEFAULT,
            host_args,
            linker: linker.into(),
            host_triple: DEFAULT_HOST_TRIPLE.into(),
            offload_targets: None,
            jobs: None,
            jobserver: false,
            explain: false,
            emit_plan: None,
            dry_run: false,
            verbose: false,
            save_temps: false,
            time_trace: None,
            time_trace_granularity: 500,
            opt_level: "O2".into(),
            device_linker: Vec::new(),
            device_compiler: Vec::new(),
            should_extract: Vec::new(),
            emit_fatbin_only: false,
            device_debug: false,
            mllvm: Vec::new(),
            offload_opts: Vec::new(),
            plugin_opts: Vec::new(),
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

    /// The configuration `llvm`'s `clang-linker-wrapper` reads from `args` (without
    /// `argv[0]`, response files expanded): its own options become fields, every other
    /// argument stays in [`LinkConfig::host_args`] as `OptTable` renders it. Errors are LLVM's
    /// (a missing value, a bad `--wrapper-jobs=`), and [`Error::OtherRelease`] for an option
    /// only another release's wrapper has (which `llvm`'s would hand to the host linker).
    pub fn from_llvm_args(args: &[String], llvm: LlvmVersion) -> Result<LinkConfig> {
        Self::from_parsed(&opts::parse(args, llvm)?, llvm)
    }

    /// [`LinkConfig::from_llvm_args`] on a command line already parsed with `llvm`'s table.
    pub(crate) fn from_parsed(a: &Args, llvm: LlvmVersion) -> Result<LinkConfig> {
        if let Some((arg, release)) = opts::foreign(a, llvm) {
            return Err(Error::OtherRelease {
                option: arg.render().join(" "),
                release,
                chosen: llvm,
            });
        }
        let mut c = LinkConfig::new(a.last(Opt::LinkerPath).unwrap_or(""), Vec::new());
        c.llvm = llvm;
        (c.jobs, c.jobserver) = jobs(a, llvm)?;
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
        c.device_compiler = owned(Opt::DeviceCompiler);
        c.should_extract = owned(Opt::ShouldExtract);
        c.emit_fatbin_only = a.has(Opt::EmitFatbinOnly);
        c.device_debug = a.has(Opt::DeviceDebug);
        c.mllvm = owned(Opt::Mllvm);
        // LLVM 19's option is `--offload-opt=-`, the dash outside the value.
        let dash = if llvm == LlvmVersion::V19 { "-" } else { "" };
        c.offload_opts = a
            .values(Opt::OffloadOpt)
            .iter()
            .map(|v| format!("{dash}{v}"))
            .collect();
        c.plugin_opts = a
            .filtered(&[Opt::Mllvm, Opt::OffloadOpt])
            .map(|x| match x.opt {
                Opt::OffloadOpt => format!("{dash}{}", x.value()),
                _ => x.value().to_string(),
            })
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

    /// The first field set that [`LinkConfig::llvm`]'s wrapper does not have, as the option
    /// that sets it, and the release that has it: LLVM 19's LTO and device-library options
    /// are gone in 22 (clang links the device code, given `--device-compiler=` arguments), and
    /// 22's `--device-compiler=`, `--should-extract=`, `--emit-fatbin-only` and
    /// `--wrapper-jobs=jobserver` are new.
    pub fn release_options(&self) -> Option<(String, LlvmVersion)> {
        let v19 = [
            (
                self.opt_level != "O2",
                format!("--opt-level={}", self.opt_level),
            ),
            (
                !self.bitcode_libraries.is_empty(),
                "--bitcode-library=".into(),
            ),
            (
                !self.builtin_bitcode.is_empty(),
                "--builtin-bitcode=".into(),
            ),
            (self.clang_backend, "--clang-backend".into()),
            (self.device_debug, "--device-debug".into()),
            (!self.ptxas_args.is_empty(), "--ptxas-arg=".into()),
            (!self.pass_remarks.is_empty(), "--pass-remarks=".into()),
            (
                !self.pass_remarks_missed.is_empty(),
                "--pass-remarks-missed=".into(),
            ),
            (
                !self.pass_remarks_analysis.is_empty(),
                "--pass-remarks-analysis=".into(),
            ),
        ];
        let v22 = [
            (
                !self.device_compiler.is_empty(),
                "--device-compiler=".into(),
            ),
            (!self.should_extract.is_empty(), "--should-extract=".into()),
            (self.emit_fatbin_only, "--emit-fatbin-only".into()),
            (self.jobserver, "--wrapper-jobs=jobserver".into()),
        ];
        let (other, release) = match self.llvm {
            LlvmVersion::V19 => (&v22[..], LlvmVersion::V22),
            _ => (&v19[..], LlvmVersion::V19),
        };
        other
            .iter()
            .find(|(set, _)| *set)
            .map(|(_, o)| (o.clone(), release))
    }

    /// [`LinkConfig::host_args`] parsed as the wrapper parses them; an option of the wrapper
    /// itself there is refused (it belongs in a field).
    pub(crate) fn host(&self) -> Result<Args> {
        let host = opts::parse(&self.host_args, self.llvm)?;
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

    /// [`LinkConfig::plugin_opts`], or `mllvm` then `offload_opts` when it is empty.
    pub(crate) fn plugin_opts(&self) -> Vec<&str> {
        if !self.plugin_opts.is_empty() {
            return self.plugin_opts.iter().map(String::as_str).collect();
        }
        self.mllvm
            .iter()
            .chain(&self.offload_opts)
            .map(String::as_str)
            .collect()
    }

    /// `--cuda-path=<dir>/bin`, or `bin` when no CUDA path was given (LLVM 19 looks there).
    pub(crate) fn cuda_bin(&self) -> PathBuf {
        self.cuda_path
            .as_deref()
            .unwrap_or(Path::new(""))
            .join("bin")
    }
}

/// `--wrapper-jobs=`, the last one given: a positive integer (LLVM's `getAsInteger` rules),
/// or in LLVM 22 `jobserver` (any case). The jobs, and whether the jobserver decides.
fn jobs(a: &Args, llvm: LlvmVersion) -> Result<(Option<usize>, bool)> {
    let Some(arg) = a.args.iter().rev().find(|x| x.opt == Opt::WrapperJobs) else {
        return Ok((None, false));
    };
    let v = arg.value();
    let jobserver = v.eq_ignore_ascii_case("jobserver");
    let expected = match llvm {
        LlvmVersion::V19 if jobserver => {
            return Err(Error::OtherRelease {
                option: arg.render().join(" "),
                release: LlvmVersion::V22,
                chosen: llvm,
            })
        }
        LlvmVersion::V19 => "a positive integer",
        _ if jobserver => return Ok((None, true)),
        _ => "a positive integer or 'jobserver'",
    };
    match offkit_llvm::cl::integer::parse_u64(v)
        .filter(|&n| n > 0 && n <= u64::from(u32::MAX))
        .and_then(|n| usize::try_from(n).ok())
    {
        Some(n) => Ok((Some(n), false)),
        None => Err(Error::Usage(format!(
            "{}{v}: expected {expected}, got '{v}'",
            arg.spelling
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V19: LlvmVersion = LlvmVersion::V19;
    const V22: LlvmVersion = LlvmVersion::V22;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn llvm_args_become_fields_and_the_rest_the_host_line() {
        let c = LinkConfig::from_llvm_args(&words(
            "--linker-path=/usr/bin/ld --wrapper-jobs=0x2 -lomp --host-triple=aarch64-linux-gnu \
             --offload-opt=-foo -mllvm -x --output=a.out main.o --bitcode-library=openmp-amdgcn-amd-amdhsa-gfx90a=l.bc -r",
        ), V19)
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
        let e = LinkConfig::from_llvm_args(&words("--wrapper-jobs=0"), V19).unwrap_err();
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
            let all = opts::parse(&words, V19).unwrap();
            let want: Vec<Vec<String>> = all
                .args
                .iter()
                .filter(|a| !a.opt.wrapper_only())
                .map(|a| a.render())
                .collect();
            let c = LinkConfig::from_llvm_args(&words, V19).unwrap();
            let got: Vec<Vec<String>> = c.host().unwrap().args.iter().map(|a| a.render()).collect();
            assert_eq!(got, want, "for {line:?}");
        }
    }

    #[test]
    fn llvm_22_options() {
        let c = LinkConfig::from_llvm_args(
            &words(
                "--linker-path=/usr/bin/ld --wrapper-jobs=JobServer --offload-opt=-foo -mllvm -x \
                 --device-compiler=amdgcn-amd-amdhsa=-O3 --should-extract=gfx90a,gfx1030 \
                 --emit-fatbin-only -o a.out -v",
            ),
            V22,
        )
        .unwrap();
        assert_eq!((c.llvm, c.jobs, c.jobserver), (V22, None, true));
        assert_eq!(c.offload_opts, ["-foo"]);
        assert_eq!(c.plugin_opts, ["-foo", "-x"]);
        assert_eq!(c.device_compiler, ["amdgcn-amd-amdhsa=-O3"]);
        assert_eq!(c.should_extract, ["gfx90a", "gfx1030"]);
        assert!(c.emit_fatbin_only);
        // `-v` is the host linker's in LLVM 22.
        assert_eq!(c.host_args, words("-o a.out -v"));
        assert_eq!(c.release_options(), None);
        for (line, v, text) in [
            (
                "--wrapper-jobs=0",
                V22,
                "--wrapper-jobs=0: expected a positive integer or 'jobserver', got '0'",
            ),
            (
                "--wrapper-jobs=jobserver",
                V19,
                "`--wrapper-jobs=jobserver` is an option of LLVM 22's clang-linker-wrapper, and \
                 this one is LLVM 19's",
            ),
            (
                "-o x --device-compiler=-O2",
                V19,
                "`--device-compiler=-O2` is an option of LLVM 22's clang-linker-wrapper, and \
                 this one is LLVM 19's",
            ),
            (
                "-o x --opt-level=O3",
                V22,
                "`--opt-level=O3` is an option of LLVM 19's clang-linker-wrapper, and this one \
                 is LLVM 22's",
            ),
        ] {
            let e = LinkConfig::from_llvm_args(&words(line), v).unwrap_err();
            assert_eq!(e.to_string(), text, "{line}");
        }
        // A configuration built by hand is checked the same way.
        let mut c = LinkConfig::new("ld", words("-o a"));
        c.llvm = V22;
        c.clang_backend = true;
        assert_eq!(
            c.release_options(),
            Some(("--clang-backend".to_string(), V19))
        );
    }
}
