//! The command line of LLVM 19's `clang-linker-wrapper`, parsed as its `llvm::opt::OptTable`
//! parses it (`LinkerWrapperOpts.td` of 19.1.7, checked against the installed tool).
//!
//! The wrapper sees the whole host linker command line. A few linker options it interprets
//! itself (`-o`, `-L`, `-l`, `--sysroot=`, `--whole-archive`, `-r`, …); its own options (the
//! *wrapper-only* ones) are never forwarded; everything else is an *unknown* option passed to
//! the host linker verbatim, and every word that is not an option is an *input* — so the value
//! of an unknown separate option (`-m elf_x86_64`) is an input too.
//!
//! Matching and rendering are `OptTable`'s ([`offkit_llvm::opt_table`]): `-lomp` renders as `-l omp`,
//! an alias as the option it aliases (`--output=x` → `-o x`, `-r` → `--relocatable`,
//! `-rpath=/d` → `--rpath /d`). This module holds only the wrapper's table.

use offkit_llvm::opt_table::{self as optable, Kind, Spec, Table};

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

/// The table. The first non-alias row of each option is its canonical spelling.
const SPECS: &[Spec<Opt>] = &[
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

/// The wrapper's option table.
const TABLE: Table<Opt> = Table::new(SPECS, Opt::Input, Opt::Unknown);

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

    /// Every value of `opt`, in order.
    pub fn values(&self, opt: Opt) -> Vec<&str> {
        self.args
            .iter()
            .filter(|a| a.opt == opt)
            .map(Arg::value)
            .collect()
    }

    /// The arguments whose option is one of `opts`, in order.
    pub fn filtered<'a>(&'a self, opts: &'a [Opt]) -> impl Iterator<Item = &'a Arg> + 'a {
        self.args.iter().filter(move |a| opts.contains(&a.opt))
    }
}

/// Parses `args` (without `argv[0]`; response files already expanded).
pub fn parse(args: &[String]) -> Result<Args, ParseError> {
    Ok(Args {
        args: TABLE.parse(args)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn rendered(s: &str) -> String {
        parse(&words(s))
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
        let a = parse(&words(
            "-m elf_x86_64 /lib/x.so -pie - --wrapper-jobs=2 -mllvm -x",
        ))
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
            parse(&words("x.o -o")),
            Err(ParseError::MissingArgument(o)) if o == "-o"
        ));
        assert_eq!(
            parse(&words("--library")).unwrap_err().to_string(),
            "--library: missing argument"
        );
        // `-verbose` is not the flag `-v`; `--offload-opt=-x` keeps the value after the dash.
        let a = parse(&words("-verbose -v --offload-opt=-foo")).unwrap();
        assert_eq!(a.args[0].opt, Opt::Unknown);
        assert_eq!(a.args[1].opt, Opt::Version);
        assert_eq!(a.args[2].value(), "foo");
    }
}
