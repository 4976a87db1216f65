//! The command line of `clang-nvlink-wrapper`, one `OptTable` per release (`NVLinkOpts.td` of
//! 22.1.8, and 19.1.7's as its `--help-hidden` shows it): 22 adds `-u`/`--undefined`, `-r`/
//! `--relocatable`, `--assume-device-object`, `--lto-newpm-passes=`, `--lto-debug-pass-manager`
//! and the `--plugin-opt=opt-remarks-*` options, and drops 19's `--feature`.

use offkit_llvm::opt_table::{self as optable, Kind, Spec, Table};
use offkit_llvm::LlvmVersion;

/// Every option of either release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Opt {
    /// An input file.
    Input,
    /// An option the wrapper does not know: passed to nvlink.
    Unknown,
    /// `--help`.
    Help,
    /// `--help-hidden`.
    HelpHidden,
    /// `-v`.
    Verbose,
    /// `--version` (printed, then the link goes on; nvlink gets it too).
    Version,
    /// `--cuda-path=`.
    CudaPath,
    /// `--ptxas-path=`.
    PtxasPath,
    /// `-o`.
    Output,
    /// `-L`.
    LibraryPath,
    /// `-l`.
    Library,
    /// `--plugin`.
    Plugin,
    /// `--arch` (and `--plugin-opt=mcpu=`).
    Arch,
    /// `-g` / `--debug`.
    Debug,
    /// `--lto-emit-llvm`.
    LtoEmitLlvm,
    /// `--lto-emit-asm`.
    LtoEmitAsm,
    /// `-u` (22).
    Undefined,
    /// `--plugin-opt=O`.
    OptLevel,
    /// `--plugin-opt=thinlto`.
    ThinLto,
    /// `--plugin-opt=lto-partitions=`.
    LtoPartitions,
    /// `--plugin-opt=jobs=`.
    Jobs,
    /// `--plugin-opt=opt-remarks-filename=` (22).
    RemarksFilename,
    /// `--plugin-opt=opt-remarks-format=` (22).
    RemarksFormat,
    /// `--plugin-opt=opt-remarks-filter=` (22).
    RemarksFilter,
    /// `--plugin-opt=opt-remarks-with-hotness` (22).
    RemarksWithHotness,
    /// `--plugin-opt=`.
    PluginOpt,
    /// `--lto-newpm-passes=` (22).
    LtoNewpmPasses,
    /// `--lto-debug-pass-manager` (22).
    LtoDebugPassManager,
    /// `--save-temps`.
    SaveTemps,
    /// `-r` / `--relocatable` (22).
    Relocatable,
    /// `--whole-archive`.
    WholeArchive,
    /// `--no-whole-archive`.
    NoWholeArchive,
    /// `-mllvm`.
    Mllvm,
    /// `--dry-run`.
    DryRun,
    /// `--assume-device-object` (22).
    AssumeDeviceObject,
    /// `--feature` (19).
    Feature,
}

impl Opt {
    /// `WrapperOnlyOption`: never forwarded to nvlink.
    pub fn wrapper_only(self) -> bool {
        use Opt::*;
        matches!(
            self,
            CudaPath
                | PtxasPath
                | Plugin
                | LtoEmitLlvm
                | LtoEmitAsm
                | OptLevel
                | ThinLto
                | LtoPartitions
                | Jobs
                | RemarksFilename
                | RemarksFormat
                | RemarksFilter
                | RemarksWithHotness
                | PluginOpt
                | LtoNewpmPasses
                | LtoDebugPassManager
                | SaveTemps
                | Relocatable
                | WholeArchive
                | NoWholeArchive
                | Mllvm
                | DryRun
                | AssumeDeviceObject
                | Feature
        )
    }
}

/// One parsed argument.
pub type Arg = optable::Arg<Opt>;

const DD: &[&str] = &["--"];
const D: &[&str] = &["-"];
const D_DD: &[&str] = &["-", "--"];
const DD_D: &[&str] = &["--", "-"];

const fn spec(o: Opt, p: &'static [&'static str], n: &'static str, k: Kind) -> Spec<Opt> {
    Spec::new(o, p, n, k)
}

const fn alias(o: Opt, p: &'static [&'static str], n: &'static str, k: Kind) -> Spec<Opt> {
    Spec::alias(o, p, n, k)
}

/// The rows both releases have.
const COMMON: [Spec<Opt>; 34] = [
    spec(Opt::Help, D_DD, "help", Kind::Flag),
    spec(Opt::HelpHidden, D_DD, "help-hidden", Kind::Flag),
    spec(Opt::Verbose, D, "v", Kind::Flag),
    spec(Opt::Version, DD, "version", Kind::Flag),
    spec(Opt::CudaPath, DD, "cuda-path=", Kind::Joined),
    spec(Opt::PtxasPath, DD, "ptxas-path=", Kind::Joined),
    spec(Opt::Output, D, "o", Kind::JoinedOrSeparate),
    alias(Opt::Output, DD, "output-file", Kind::Separate),
    spec(Opt::LibraryPath, D, "L", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library-path", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library-path=", Kind::Joined),
    spec(Opt::Library, D, "l", Kind::JoinedOrSeparate),
    alias(Opt::LibraryPath, DD_D, "library", Kind::Separate),
    alias(Opt::LibraryPath, DD_D, "library=", Kind::Joined),
    spec(Opt::Plugin, DD_D, "plugin", Kind::JoinedOrSeparate),
    spec(Opt::Arch, DD_D, "arch", Kind::Separate),
    alias(Opt::Arch, DD_D, "plugin-opt=mcpu=", Kind::Joined),
    spec(Opt::Debug, D, "g", Kind::Flag),
    alias(Opt::Debug, DD, "debug", Kind::Flag),
    spec(Opt::LtoEmitLlvm, DD, "lto-emit-llvm", Kind::Flag),
    spec(Opt::LtoEmitAsm, DD, "lto-emit-asm", Kind::Flag),
    spec(Opt::OptLevel, DD_D, "plugin-opt=O", Kind::Joined),
    spec(Opt::ThinLto, DD_D, "plugin-opt=thinlto", Kind::Joined),
    spec(
        Opt::LtoPartitions,
        DD_D,
        "plugin-opt=lto-partitions=",
        Kind::Joined,
    ),
    spec(Opt::Jobs, DD_D, "plugin-opt=jobs=", Kind::Joined),
    alias(Opt::LtoEmitLlvm, DD_D, "plugin-opt=emit-llvm", Kind::Joined),
    alias(Opt::LtoEmitAsm, DD_D, "plugin-opt=emit-asm", Kind::Joined),
    spec(Opt::PluginOpt, DD_D, "plugin-opt=", Kind::Joined),
    spec(Opt::SaveTemps, DD_D, "save-temps", Kind::Flag),
    spec(Opt::WholeArchive, DD_D, "whole-archive", Kind::Flag),
    spec(Opt::NoWholeArchive, DD_D, "no-whole-archive", Kind::Flag),
    spec(Opt::Mllvm, D, "mllvm", Kind::Separate),
    alias(Opt::Mllvm, D, "mllvm=", Kind::Joined),
    spec(Opt::DryRun, DD_D, "dry-run", Kind::Flag),
];

/// LLVM 19's table: the common rows and `--feature`.
pub const SPECS_19: &[Spec<Opt>] = &concat::<35>(
    &COMMON,
    &[spec(Opt::Feature, DD_D, "feature", Kind::Separate)],
);

/// LLVM 22's table: the common rows and 22's new options.
pub const SPECS_22: &[Spec<Opt>] = &concat::<45>(
    &COMMON,
    &[
        spec(Opt::Undefined, D, "u", Kind::JoinedOrSeparate),
        alias(Opt::Undefined, DD, "undefined", Kind::JoinedOrSeparate),
        spec(
            Opt::RemarksFilename,
            DD_D,
            "plugin-opt=opt-remarks-filename=",
            Kind::Joined,
        ),
        spec(
            Opt::RemarksFormat,
            DD_D,
            "plugin-opt=opt-remarks-format=",
            Kind::Joined,
        ),
        spec(
            Opt::RemarksFilter,
            DD_D,
            "plugin-opt=opt-remarks-filter=",
            Kind::Joined,
        ),
        spec(
            Opt::RemarksWithHotness,
            DD_D,
            "plugin-opt=opt-remarks-with-hotness",
            Kind::Flag,
        ),
        spec(Opt::LtoNewpmPasses, DD, "lto-newpm-passes=", Kind::Joined),
        spec(
            Opt::LtoDebugPassManager,
            DD,
            "lto-debug-pass-manager",
            Kind::Flag,
        ),
        spec(Opt::Relocatable, DD_D, "relocatable", Kind::Flag),
        alias(Opt::Relocatable, D, "r", Kind::Flag),
        spec(
            Opt::AssumeDeviceObject,
            DD_D,
            "assume-device-object",
            Kind::Flag,
        ),
    ],
);

/// `a` then `b`, in a constant.
const fn concat<const N: usize>(a: &[Spec<Opt>], b: &[Spec<Opt>]) -> [Spec<Opt>; N] {
    let mut out = [spec(Opt::Help, D_DD, "help", Kind::Flag); N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    let mut j = 0;
    while j < b.len() && i + j < N {
        out[i + j] = b[j];
        j += 1;
    }
    out
}

/// The table of `version`.
pub fn table(version: LlvmVersion) -> Table<Opt> {
    let specs = match version {
        LlvmVersion::V19 => SPECS_19,
        _ => SPECS_22,
    };
    Table::new(specs, Opt::Input, Opt::Unknown)
}

/// The parsed command line.
#[derive(Debug, Clone, Default)]
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
}

/// Parses `args` (without `argv[0]`) with `version`'s table.
pub fn parse(args: &[String], version: LlvmVersion) -> Result<Args, optable::ParseError> {
    Ok(Args {
        args: table(version).parse(args)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        let w = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let a = parse(
            &w("--plugin-opt=mcpu=sm_70 -u f -r --feature +ptx70 -mllvm=-x"),
            LlvmVersion::V22,
        )
        .unwrap();
        let opts: Vec<Opt> = a.args.iter().map(|a| a.opt).collect();
        assert_eq!(
            opts,
            [
                Opt::Arch,
                Opt::Undefined,
                Opt::Relocatable,
                Opt::Unknown,
                Opt::Input,
                Opt::Mllvm
            ]
        );
        assert_eq!(a.args[0].render(), ["--arch", "sm_70"]);
        let a = parse(&w("-u f -r --feature +ptx70"), LlvmVersion::V19).unwrap();
        let opts: Vec<Opt> = a.args.iter().map(|a| a.opt).collect();
        assert_eq!(opts, [Opt::Unknown, Opt::Input, Opt::Unknown, Opt::Feature]);
    }
}
