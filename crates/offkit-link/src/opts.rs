//! The command line of `clang-linker-wrapper`, parsed as its `llvm::opt::OptTable` parses it:
//! one table per LLVM release (`LinkerWrapperOpts.td` of 19.1.7 and of 22.1.8, checked against
//! the installed tools), chosen by the [`LlvmVersion`] handed to [`parse`].
//!
//! The wrapper sees the whole host linker command line. A few linker options it interprets
//! itself (`-o`, `-L`, `-l`, `--sysroot=`, `--whole-archive`, `-r`, …); its own options (the
//! *wrapper-only* ones) are never forwarded; everything else is an *unknown* option passed to
//! the host linker verbatim, and every word that is not an option is an *input* — so the value
//! of an unknown separate option (`-m elf_x86_64`) is an input too.
//!
//! Matching and rendering are `OptTable`'s ([`offkit_llvm::opt_table`]): `-lomp` renders as `-l omp`,
//! an alias as the option it aliases (`--output=x` → `-o x`, `-r` → `--relocatable`,
//! `-rpath=/d` → `--rpath /d`). This module holds only the wrapper's tables.
//!
//! What differs between the releases is all here, in [`SPECS_19`] and [`SPECS_22`]:
//!
//! | | 19 | 22 |
//! |---|---|---|
//! | gone in 22 | `--opt-level=`, `--bitcode-library=`, `--builtin-bitcode=`, `--clang-backend`, `--device-debug`, `--ptxas-arg=`, `--pass-remarks{,-missed,-analysis}=`, `--v`/`-v` | |
//! | new in 22 | | `--device-compiler=`, `--should-extract=` (comma-joined), `--emit-fatbin-only`, `--compiler-arg=` (device-only) |
//! | version | `--v`, `-v`, `--version`, `-version` | `--version`, `-version` (`-v` goes to the host linker) |
//! | `--offload-opt=` | `--offload-opt=-<opt>`, the dash not in the value | `--offload-opt=<opt>`, the value as given |
//!
//! A wrapper-only option of the other release is not the host linker's: [`foreign`] finds it,
//! so that a face of the wrong release can say how to choose the right one.

use offkit_llvm::opt_table::{self as optable, Kind, Spec, Table};
use offkit_llvm::LlvmVersion;

pub use offkit_llvm::opt_table::ParseError;

/// Every option the wrapper knows (aliases are folded into the option they alias), plus the
/// two classes of everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Opt {
    /// A word that is not an option: an input file.
    Input,
    /// An option the wrapper does not know: passed to the host linker as is.
    Unknown,
    /// `--help`.
    Help,
    /// `--help-hidden`.
    HelpHidden,
    /// `--linker-path=`.
    LinkerPath,
    /// `--cuda-path=`.
    CudaPath,
    /// `--host-triple=`.
    HostTriple,
    /// `--opt-level=`.
    OptLevel,
    /// `--bitcode-library=`.
    BitcodeLibrary,
    /// `--builtin-bitcode=`.
    BuiltinBitcode,
    /// `--device-linker=`.
    DeviceLinker,
    /// `--clang-backend`.
    ClangBackend,
    /// `--dry-run`.
    DryRun,
    /// `--wrapper-verbose`.
    Verbose,
    /// `--embed-bitcode`.
    EmbedBitcode,
    /// `--device-debug`.
    DeviceDebug,
    /// `--ptxas-arg=`.
    PtxasArg,
    /// `--pass-remarks=`.
    PassRemarks,
    /// `--pass-remarks-missed=`.
    PassRemarksMissed,
    /// `--pass-remarks-analysis=`.
    PassRemarksAnalysis,
    /// `--print-wrapped-module`.
    PrintWrappedModule,
    /// `--save-temps`.
    SaveTemps,
    /// `--compress`.
    Compress,
    /// `--compression-level=`.
    CompressionLevel,
    /// `--wrapper-time-trace=`.
    WrapperTimeTrace,
    /// `--wrapper-time-trace-granularity=`.
    WrapperTimeTraceGranularity,
    /// `--wrapper-jobs=`.
    WrapperJobs,
    /// `--device-compiler=` (LLVM 22).
    DeviceCompiler,
    /// `--should-extract=` (LLVM 22; comma-joined).
    ShouldExtract,
    /// `--emit-fatbin-only` (LLVM 22).
    EmitFatbinOnly,
    /// `--compiler-arg=` (LLVM 22, device-only).
    CompilerArg,
    /// `--override-image=`.
    OverrideImage,
    /// `--arch=` (device-only).
    Arch,
    /// `--triple=` (device-only).
    Triple,
    /// `--whole-program` (device-only).
    WholeProgram,
    /// `--linker-arg=` (device-only).
    LinkerArg,
    /// `-mllvm <arg>`.
    Mllvm,
    /// `--offload-opt=-<opt>`.
    OffloadOpt,
    /// `--sysroot=`.
    Sysroot,
    /// `-o` (and `--output`, `--output=`).
    Output,
    /// `-L` (and `--library-path`, and — LLVM 19's quirk — `--library`).
    LibraryPath,
    /// `-l`.
    Library,
    /// `-rpath`.
    Rpath,
    /// `--v` / `-v` / `--version`.
    Version,
    /// `--whole-archive`.
    WholeArchive,
    /// `--no-whole-archive`.
    NoWholeArchive,
    /// `--relocatable` / `-r`.
    Relocatable,
    /// link.exe's `/out:`.
    Out,
    /// link.exe's `/libpath:`.
    Libpath,
    /// link.exe's `/wholearchive`.
    WholeArchiveFlag,
    /// offkit: `--offload-targets=<triple>[:<target-id>],...`.
    OffloadTargets,
    /// offkit: `--explain`.
    Explain,
    /// offkit: `--emit-plan=<file>`.
    EmitPlan,
}

impl Opt {
    /// Whether the option is the wrapper's own and never reaches the host linker
    /// (`WrapperOnlyOption` in LLVM's table; offkit's options are too).
    pub fn wrapper_only(self) -> bool {
        use Opt::*;
        matches!(
            self,
            LinkerPath
                | CudaPath
                | HostTriple
                | OptLevel
                | BitcodeLibrary
                | BuiltinBitcode
                | DeviceLinker
                | ClangBackend
                | DryRun
                | Verbose
                | EmbedBitcode
                | DeviceDebug
                | PtxasArg
                | PassRemarks
                | PassRemarksMissed
                | PassRemarksAnalysis
                | PrintWrappedModule
                | SaveTemps
                | Compress
                | CompressionLevel
                | WrapperTimeTrace
                | WrapperTimeTraceGranularity
                | WrapperJobs
                | DeviceCompiler
                | ShouldExtract
                | EmitFatbinOnly
                | OverrideImage
                | Mllvm
                | OffloadOpt
                | OffloadTargets
                | Explain
                | EmitPlan
        )
    }
}

/// One parsed argument of the wrapper's command line.
pub type Arg = optable::Arg<Opt>;

const DD: &[&str] = &["--"];
const D: &[&str] = &["-"];
const DD_D: &[&str] = &["--", "-"];
const LINK_EXE: &[&str] = &["/", "-", "/?", "-?"];

const fn spec(
    opt: Opt,
    prefixes: &'static [&'static str],
    name: &'static str,
    kind: Kind,
) -> Spec<Opt> {
    Spec::new(opt, prefixes, name, kind)
}

const fn alias(
    opt: Opt,
    prefixes: &'static [&'static str],
    name: &'static str,
    kind: Kind,
) -> Spec<Opt> {
    Spec::alias(opt, prefixes, name, kind)
}

/// LLVM 19's table. The first non-alias row of each option is its canonical spelling.
pub const SPECS_19: &[Spec<Opt>] = &[
    spec(Opt::Help, DD, "help", Kind::Flag),
    spec(Opt::HelpHidden, DD, "help-hidden", Kind::Flag),
    spec(Opt::LinkerPath, DD, "linker-path=", Kind::Joined),
    spec(Opt::CudaPath, DD, "cuda-path=", Kind::Joined),
    spec(Opt::HostTriple, DD, "host-triple=", Kind::Joined),
    spec(Opt::OptLevel, DD, "opt-level=", Kind::Joined),
    spec(Opt::BitcodeLibrary, DD, "bitcode-library=", Kind::Joined),
    spec(Opt::BuiltinBitcode, DD, "builtin-bitcode=", Kind::Joined),
    spec(Opt::DeviceLinker, DD, "device-linker=", Kind::Joined),
    spec(Opt::ClangBackend, DD, "clang-backend", Kind::Flag),
    spec(Opt::DryRun, DD, "dry-run", Kind::Flag),
    spec(Opt::Verbose, DD, "wrapper-verbose", Kind::Flag),
    spec(Opt::EmbedBitcode, DD, "embed-bitcode", Kind::Flag),
    spec(Opt::DeviceDebug, DD, "device-debug", Kind::Flag),
    spec(Opt::PtxasArg, DD, "ptxas-arg=", Kind::Joined),
    spec(Opt::PassRemarks, DD, "pass-remarks=", Kind::Joined),
    spec(
        Opt::PassRemarksMissed,
        DD,
        "pass-remarks-missed=",
        Kind::Joined,
    ),
    spec(
        Opt::PassRemarksAnalysis,
        DD,
        "pass-remarks-analysis=",
        Kind::Joined,
    ),
    spec(
        Opt::PrintWrappedModule,
        DD,
        "print-wrapped-module",
        Kind::Flag,
    ),
    spec(Opt::SaveTemps, DD, "save-temps", Kind::Flag),
    spec(Opt::Compress, DD, "compress", Kind::Flag),
    spec(
        Opt::CompressionLevel,
        DD,
        "compression-level=",
        Kind::Joined,
    ),
    spec(
        Opt::WrapperTimeTrace,
        DD,
        "wrapper-time-trace=",
        Kind::Joined,
    ),
    spec(
        Opt::WrapperTimeTraceGranularity,
        DD,
        "wrapper-time-trace-granularity=",
        Kind::Joined,
    ),
    spec(Opt::WrapperJobs, DD, "wrapper-jobs=", Kind::Joined),
    spec(Opt::OverrideImage, DD, "override-image=", Kind::Joined),
    spec(Opt::Arch, DD, "arch=", Kind::Joined),
    spec(Opt::Triple, DD, "triple=", Kind::Joined),
    spec(Opt::WholeProgram, DD, "whole-program", Kind::Flag),
    spec(Opt::LinkerArg, DD, "linker-arg=", Kind::Joined),
    spec(Opt::Mllvm, D, "mllvm", Kind::Separate),
    spec(Opt::OffloadOpt, DD_D, "offload-opt=-", Kind::Joined),
    spec(Opt::Sysroot, DD, "sysroot=", Kind::Joined),
    spec(Opt::Output, D, "o", Kind::JoinedOrSeparate),
    alias(Opt::Output, DD, "output=", Kind::Joined),
    alias(Opt::Output, DD, "output", Kind::Separate),
    spec(Opt::LibraryPath, D, "L", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library-path", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library-path=", Kind::Joined),
    spec(Opt::Library, D, "l", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library=", Kind::Joined),
    spec(Opt::Rpath, DD_D, "rpath", Kind::Separate),
    alias(Opt::Rpath, DD_D, "rpath=", Kind::Joined),
    spec(Opt::Version, DD_D, "v", Kind::Flag),
    alias(Opt::Version, DD_D, "version", Kind::Flag),
    spec(Opt::WholeArchive, DD_D, "whole-archive", Kind::Flag),
    spec(Opt::NoWholeArchive, DD_D, "no-whole-archive", Kind::Flag),
    spec(Opt::Relocatable, DD_D, "relocatable", Kind::Flag),
    alias(Opt::Relocatable, D, "r", Kind::Flag),
    spec(Opt::Out, LINK_EXE, "out:", Kind::Joined),
    spec(Opt::Libpath, LINK_EXE, "libpath:", Kind::Joined),
    spec(
        Opt::WholeArchiveFlag,
        LINK_EXE,
        "wholearchive",
        Kind::Joined,
    ),
    spec(Opt::OffloadTargets, DD, "offload-targets=", Kind::Joined),
    spec(Opt::Explain, DD, "explain", Kind::Flag),
    spec(Opt::EmitPlan, DD, "emit-plan=", Kind::Joined),
];

/// LLVM 22's table (`LinkerWrapperOpts.td` of 22.1.8), offkit's own options last.
pub const SPECS_22: &[Spec<Opt>] = &[
    spec(Opt::Help, DD, "help", Kind::Flag),
    spec(Opt::HelpHidden, DD, "help-hidden", Kind::Flag),
    spec(Opt::LinkerPath, DD, "linker-path=", Kind::Joined),
    spec(Opt::CudaPath, DD, "cuda-path=", Kind::Joined),
    spec(Opt::HostTriple, DD, "host-triple=", Kind::Joined),
    spec(Opt::DeviceLinker, DD, "device-linker=", Kind::Joined),
    spec(Opt::DeviceCompiler, DD, "device-compiler=", Kind::Joined),
    spec(Opt::DryRun, DD, "dry-run", Kind::Flag),
    spec(Opt::Verbose, DD, "wrapper-verbose", Kind::Flag),
    spec(Opt::EmbedBitcode, DD, "embed-bitcode", Kind::Flag),
    spec(
        Opt::PrintWrappedModule,
        DD,
        "print-wrapped-module",
        Kind::Flag,
    ),
    spec(Opt::SaveTemps, DD, "save-temps", Kind::Flag),
    spec(Opt::Compress, DD, "compress", Kind::Flag),
    spec(
        Opt::CompressionLevel,
        DD,
        "compression-level=",
        Kind::Joined,
    ),
    spec(
        Opt::WrapperTimeTrace,
        DD,
        "wrapper-time-trace=",
        Kind::Joined,
    ),
    spec(
        Opt::WrapperTimeTraceGranularity,
        DD,
        "wrapper-time-trace-granularity=",
        Kind::Joined,
    ),
    spec(Opt::WrapperJobs, DD, "wrapper-jobs=", Kind::Joined),
    spec(Opt::OverrideImage, DD, "override-image=", Kind::Joined),
    // CommaJoined in LLVM: the values are the comma-separated pieces ([`Args::values`]).
    spec(Opt::ShouldExtract, DD, "should-extract=", Kind::Joined),
    spec(Opt::EmitFatbinOnly, DD, "emit-fatbin-only", Kind::Flag),
    spec(Opt::Arch, DD, "arch=", Kind::Joined),
    spec(Opt::Triple, DD, "triple=", Kind::Joined),
    spec(Opt::WholeProgram, DD, "whole-program", Kind::Flag),
    spec(Opt::LinkerArg, DD, "linker-arg=", Kind::Joined),
    spec(Opt::CompilerArg, DD, "compiler-arg=", Kind::Joined),
    spec(Opt::Mllvm, D, "mllvm", Kind::Separate),
    spec(Opt::OffloadOpt, DD_D, "offload-opt=", Kind::Joined),
    spec(Opt::Sysroot, DD, "sysroot=", Kind::Joined),
    spec(Opt::Output, D, "o", Kind::JoinedOrSeparate),
    alias(Opt::Output, DD, "output=", Kind::Joined),
    alias(Opt::Output, DD, "output", Kind::Separate),
    spec(Opt::LibraryPath, D, "L", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library-path", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library-path=", Kind::Joined),
    spec(Opt::Library, D, "l", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library=", Kind::Joined),
    spec(Opt::Rpath, DD_D, "rpath", Kind::Separate),
    alias(Opt::Rpath, DD_D, "rpath=", Kind::Joined),
    spec(Opt::Version, DD_D, "version", Kind::Flag),
    spec(Opt::WholeArchive, DD_D, "whole-archive", Kind::Flag),
    spec(Opt::NoWholeArchive, DD_D, "no-whole-archive", Kind::Flag),
    spec(Opt::Relocatable, DD_D, "relocatable", Kind::Flag),
    alias(Opt::Relocatable, D, "r", Kind::Flag),
    spec(Opt::Out, LINK_EXE, "out:", Kind::Joined),
    spec(Opt::Libpath, LINK_EXE, "libpath:", Kind::Joined),
    spec(
        Opt::WholeArchiveFlag,
        LINK_EXE,
        "wholearchive",
        Kind::Joined,
    ),
    spec(Opt::OffloadTargets, DD, "offload-targets=", Kind::Joined),
    spec(Opt::Explain, DD, "explain", Kind::Flag),
    spec(Opt::EmitPlan, DD, "emit-plan=", Kind::Joined),
];

/// The wrapper's option table of `version`.
pub fn table(version: LlvmVersion) -> Table<Opt> {
    let specs = match version {
        LlvmVersion::V19 => SPECS_19,
        _ => SPECS_22,
    };
    Table::new(specs, Opt::Input, Opt::Unknown)
}

/// Whether `version`'s table has `opt`.
pub fn has_option(version: LlvmVersion, opt: Opt) -> bool {
    matches!(opt, Opt::Input | Opt::Unknown)
        || match version {
            LlvmVersion::V19 => SPECS_19,
            _ => SPECS_22,
        }
        .iter()
        .any(|s| s.opt == opt)
}

/// The parsed command line, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// Every argument, in order.
    pub args: Vec<Arg>,
}

impl Args {
    /// Whether `opt` occurs.
    pub fn has(&self, opt: Opt) -> bool {
        self.args.iter().any(|a| a.opt == opt)
    }

    /// The value of the last `opt`.
    pub fn last(&self, opt: Opt) -> Option<&str> {
        self.args
            .iter()
            .rev()
            .find(|a| a.opt == opt)
            .map(Arg::value)
    }

    /// Every value of `opt`, in order (the comma-separated pieces of a comma-joined option,
    /// empty ones dropped, as LLVM splits them).
    pub fn values(&self, opt: Opt) -> Vec<&str> {
        let args = self.args.iter().filter(|a| a.opt == opt);
        if opt == Opt::ShouldExtract {
            return args
                .flat_map(|a| a.value().split(','))
                .filter(|v| !v.is_empty())
                .collect();
        }
        args.map(Arg::value).collect()
    }

    /// The arguments whose option is one of `opts`, in order.
    pub fn filtered<'a>(&'a self, opts: &'a [Opt]) -> impl Iterator<Item = &'a Arg> + 'a {
        self.args.iter().filter(move |a| opts.contains(&a.opt))
    }
}

/// Parses `args` (without `argv[0]`; response files already expanded) with `version`'s table.
pub fn parse(args: &[String], version: LlvmVersion) -> Result<Args, ParseError> {
    Ok(Args {
        args: table(version).parse(args)?,
    })
}

/// The first argument of `args` (parsed with `version`'s table) that is no option of
/// `version` but a wrapper-only option of another release, and that release: a command line
/// that belongs to the other release's wrapper, which `version`'s would hand to the host linker.
pub fn foreign(args: &Args, version: LlvmVersion) -> Option<(&Arg, LlvmVersion)> {
    args.args
        .iter()
        .filter(|a| a.opt == Opt::Unknown)
        .find_map(|a| {
            LlvmVersion::ALL
                .into_iter()
                .filter(|&v| v != version)
                .find(|&v| {
                    // The word alone: a separate option's value is not needed to know it.
                    let word = [a.spelling.clone(), String::new()];
                    table(v)
                        .parse(&word)
                        .ok()
                        .and_then(|p| p.into_iter().next())
                        .is_some_and(|o| o.opt.wrapper_only() && !has_option(version, o.opt))
                })
                .map(|v| (a, v))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn rendered(s: &str) -> String {
        parse(&words(s), LlvmVersion::V19)
            .unwrap()
            .args
            .iter()
            .flat_map(Arg::render)
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn renders_as_llvm_19() {
        assert_eq!(
            rendered("-r --output=x.o --library-path=/a --library=/c -L/d -lm -rpath=/e -rpath /f"),
            "--relocatable -o x.o -L /a -L /c -L /d -l m --rpath /e -rpath /f"
        );
        assert_eq!(
            rendered("-m elf_x86_64 /out:foo -omagic -l:libc.so.6 -- -verbose -pie"),
            "-m elf_x86_64 /out:foo -o magic -l :libc.so.6 -- -verbose -pie"
        );
    }

    #[test]
    fn classes() {
        let a = parse(
            &words("-m elf_x86_64 /lib/x.so -pie - --wrapper-jobs=2 -mllvm -x"),
            LlvmVersion::V19,
        )
        .unwrap();
        let opts: Vec<Opt> = a.args.iter().map(|a| a.opt).collect();
        assert_eq!(
            opts,
            [
                Opt::Unknown,
                Opt::Input,
                Opt::Input,
                Opt::Unknown,
                Opt::Input,
                Opt::WrapperJobs,
                Opt::Mllvm
            ]
        );
        assert_eq!(a.last(Opt::Mllvm), Some("-x"));
        assert!(matches!(
            parse(&words("x.o -o"), LlvmVersion::V22),
            Err(ParseError::MissingArgument(o)) if o == "-o"
        ));
        assert_eq!(
            parse(&words("--library"), LlvmVersion::V19)
                .unwrap_err()
                .to_string(),
            "--library: missing argument"
        );
        // `-verbose` is not the flag `-v`; `--offload-opt=-x` keeps the value after the dash.
        let a = parse(&words("-verbose -v --offload-opt=-foo"), LlvmVersion::V19).unwrap();
        assert_eq!(a.args[0].opt, Opt::Unknown);
        assert_eq!(a.args[1].opt, Opt::Version);
        assert_eq!(a.args[2].value(), "foo");
    }

    #[test]
    fn llvm_22_table() {
        let v = LlvmVersion::V22;
        let a = parse(
            &words(
                "-v --v -version --offload-opt=-foo --should-extract=gfx90a,,sm_70 --opt-level=O2",
            ),
            v,
        )
        .unwrap();
        let opts: Vec<Opt> = a.args.iter().map(|a| a.opt).collect();
        assert_eq!(
            opts,
            [
                Opt::Unknown,
                Opt::Unknown,
                Opt::Version,
                Opt::OffloadOpt,
                Opt::ShouldExtract,
                Opt::Unknown
            ]
        );
        assert_eq!(a.args[3].value(), "-foo");
        assert_eq!(a.values(Opt::ShouldExtract), ["gfx90a", "sm_70"]);
        // Each table has exactly the options its release has.
        for opt in [Opt::DeviceCompiler, Opt::ShouldExtract, Opt::EmitFatbinOnly] {
            assert!(has_option(v, opt) && !has_option(LlvmVersion::V19, opt));
        }
        for opt in [
            Opt::OptLevel,
            Opt::BitcodeLibrary,
            Opt::ClangBackend,
            Opt::PtxasArg,
        ] {
            assert!(!has_option(v, opt) && has_option(LlvmVersion::V19, opt));
        }
    }

    #[test]
    fn options_of_the_other_release() {
        let at = |line: &str, v| {
            let a = parse(&words(line), v).unwrap();
            foreign(&a, v).map(|(a, v)| (a.spelling.clone(), v))
        };
        let v19 = LlvmVersion::V19;
        let v22 = LlvmVersion::V22;
        assert_eq!(
            at("-o a --device-compiler=x86_64-pc-linux-gnu=-O2 a.o", v19),
            Some(("--device-compiler=x86_64-pc-linux-gnu=-O2".into(), v22))
        );
        assert_eq!(
            at("--emit-fatbin-only", v19),
            Some(("--emit-fatbin-only".into(), v22))
        );
        assert_eq!(
            at("--opt-level=O3 -o a", v22),
            Some(("--opt-level=O3".into(), v19))
        );
        assert_eq!(
            at("--device-debug", v22),
            Some(("--device-debug".into(), v19))
        );
        // Options that are the host linker's in both, or known to both, are not foreign.
        assert_eq!(at("-v --v -pie -m elf_x86_64 --compiler-arg=x", v19), None);
        assert_eq!(at("-v --v -pie --linker-path=ld -mllvm -x", v22), None);
    }
}
