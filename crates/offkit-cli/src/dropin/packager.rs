//! The drop-in `clang-offload-packager` (LLVM 19), and LLVM 22's `llvm-offload-binary` under
//! its new name and its old one.
//!
//! Under these names offkit is the release's tool: the same options (parsed as LLVM's `cl`
//! does), the same help and version text, messages, exit status and output bytes. What differs
//! between the releases is one table, [`Release`]: LLVM 22 needs no `triple=`, knows
//! `kind=sycl`, numbers kinds as bit flags (HIP is 4), prints its help list when given nothing
//! to do, and warns that `clang-offload-packager` is deprecated.
//!
//! * **Packaging** (`-o FILE --image=file=…,triple=…[,k=v…]`): one version-1 offload binary per
//!   image file, concatenated. offkit never holds an image: each file's size and first bytes
//!   are read, the binary's head is laid out ([`offkit_format::binary::layout_v1`]), and the
//!   image is copied file to file (`copy_file_range`) into a temporary file that is renamed
//!   into place.
//! * **Extraction** (`clang-offload-packager INPUT --image=k=v… [--archive]`): the images of a
//!   raw offload binary, an ELF or COFF object, an archive (recursively) or an `-flto` bitcode
//!   object, selected by each `--image` filter and written under LLVM's names, into a single
//!   file, or into a GNU archive.
//!
//! Departures, as STYLE.md allows: where LLVM 19 would read outside its input (it checks few of
//! an offload binary's offsets) offkit reports what is wrong instead, and no failure leaves a
//! partial output file.

pub(crate) mod extract;
mod files;

pub(crate) use files::stem;
mod package;

use std::ffi::OsString;
use std::process::ExitCode;

use offkit_format::kind::OffloadKind;
use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

use super::cl::{self, Spec};
use super::error::Error;

/// The options of LLVM 19's tool: its own (`-o`, `--image`, `--archive`, the hidden `-h`),
/// `cl`'s generic ones, and `-W`, the one one-letter option among the 2,488 that libLLVM and
/// libclang-cpp register in every tool (one-letter options group, so it changes how `-hW…` and
/// `-W…` parse). The other library options (`-stats`, `--time-passes`, …) are accepted by
/// LLVM's tool and unknown to offkit's.
const SPECS: &[Spec] = &[
    Spec::flag("h").really_hidden(),
    Spec::flag("W").really_hidden(),
    Spec::value("o"),
    Spec::value("image"),
    Spec::flag("archive"),
    Spec::immediate("help"),
    Spec::immediate("help-hidden"),
    Spec::immediate("help-list"),
    Spec::immediate("help-list-hidden"),
    Spec::immediate("version"),
    Spec::flag("print-options"),
    Spec::flag("print-all-options"),
];

/// The order in which LLVM 19's "Did you mean" meets the visible options: the iteration order of
/// the global option `StringMap` of the real tool (4096 buckets holding the 2488 options of
/// libLLVM, libclang-cpp and the tool), read from a program linked like it.
const SUGGEST_ORDER_19: &[&str] = &[
    "help-list",
    "o",
    "help-hidden",
    "print-all-options",
    "help",
    "version",
    "archive",
    "image",
    "help-list-hidden",
    "print-options",
];

/// The same order in LLVM 22's `llvm-offload-binary` (which links libLLVM only), found by
/// giving the real tool misspellings as far from two options as from each other (where no
/// such misspelling was found, the order of the two is a guess: `help-hidden`/`help-list`,
/// `help-list`/`version`, `help-list-hidden`/`o`).
const SUGGEST_ORDER_22: &[&str] = &[
    "help",
    "archive",
    "help-hidden",
    "help-list",
    "version",
    "help-list-hidden",
    "o",
    "image",
    "print-options",
    "print-all-options",
];

/// What differs between the releases' packagers: one row per release.
#[derive(Debug, Clone, Copy)]
pub struct Release {
    /// The release.
    pub llvm: LlvmVersion,
    /// The name LLVM built the tool under (its help's category and `USAGE:` line).
    pub name: &'static str,
    /// The help texts.
    pub help: cl::Help,
    /// "Did you mean"'s order.
    pub suggest_order: &'static [&'static str],
    /// Whether packaging needs `triple=` besides `file=` (LLVM 19).
    pub requires_triple: bool,
    /// Whether a command line with neither input nor output prints the help list (LLVM 22; LLVM
    /// 19 does nothing), and whether `clang-offload-packager` is the deprecated name.
    pub renamed: bool,
}

impl Release {
    /// The packager of release `llvm`.
    pub fn of(llvm: LlvmVersion) -> Release {
        match llvm {
            LlvmVersion::V19 => Release {
                llvm,
                name: "clang-offload-packager",
                help: cl::Help {
                    help: include_str!("packager/help.txt"),
                    hidden: include_str!("packager/help-hidden.txt"),
                    list: include_str!("packager/help-list.txt"),
                    list_hidden: include_str!("packager/help-list-hidden.txt"),
                    usage_as_invoked: true,
                },
                suggest_order: SUGGEST_ORDER_19,
                requires_triple: true,
                renamed: false,
            },
            _ => Release {
                llvm,
                name: "llvm-offload-binary",
                help: cl::Help {
                    help: include_str!("packager/help22.txt"),
                    hidden: include_str!("packager/help22-hidden.txt"),
                    list: include_str!("packager/help22-list.txt"),
                    list_hidden: include_str!("packager/help22-list-hidden.txt"),
                    usage_as_invoked: true,
                },
                suggest_order: SUGGEST_ORDER_22,
                requires_triple: false,
                renamed: true,
            },
        }
    }

    /// `getOffloadKind`: `openmp`, `cuda`, `hip`, and in LLVM 22 `sycl`; anything else is none.
    pub fn offload_kind(&self, name: &str) -> OffloadKind {
        match (self.llvm, name) {
            (LlvmVersion::V19, _) => OffloadKind::from_name_llvm19(name),
            (_, "sycl") => OffloadKind::Sycl,
            (_, n) => OffloadKind::from_name_llvm19(n),
        }
    }
}

/// The parse step: `cl`, then in LLVM 22 the old name's deprecation warning and the help list
/// for `-h` or a command line with nothing to do (LLVM 19's `-h` is `cl`'s).
#[derive(Debug, Clone, Copy)]
struct Parser {
    cl: cl::Cl,
    release: Release,
}

impl cl::Parse for Parser {
    type Args = cl::Parsed;

    fn parse(
        &self,
        argv0: &str,
        words: &[String],
        expansion_failed: bool,
        report: &cl::Reporter,
    ) -> cl::Step<cl::Parsed> {
        if !self.release.renamed {
            return self.cl.parse(argv0, words, expansion_failed, report);
        }
        let p = match self.cl.parse_words(argv0, words, expansion_failed, report) {
            Ok(p) => p,
            Err(stop) => return stop.into(),
        };
        // `sys::path::stem(argv[0]).ends_with("clang-offload-packager")`; printed through a
        // `WithColor` whose program name is not set yet, so with no prefix.
        if files::stem(argv0).ends_with("clang-offload-packager") {
            report.warning_unprefixed(
                "'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead.",
            );
        }
        if expansion_failed {
            // Nothing was parsed, so there is nothing to do and LLVM 22 prints its help; but
            // `cl` has no program name or overview then, and LLVM crashes printing it.
            report.error(
                "no help to print after the response file could not be read (LLVM 22 crashes \
                 here)",
            );
            return cl::Step::Fail;
        }
        let idle = p.last("o").unwrap_or("").is_empty()
            && p.positionals.first().is_none_or(|i| i.is_empty());
        if p.flag("h") == Some(true) || idle {
            return cl::Step::Show(cl::Text::HelpList);
        }
        cl::Step::Run(p)
    }
}

/// Runs the tool with its full argument vector.
pub fn main(face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let release = Release::of(face.version);
    let tool = cl::Tool {
        name: release.name,
        help: release.help,
        parser: Parser {
            cl: cl::Cl {
                config: cl::Config {
                    max_positionals: Some(1),
                    suggest_order: release.suggest_order,
                    ..cl::Config::new(SPECS)
                },
            },
            release,
        },
    };
    tool.main_as(face, args, env, |parsed, reporter| {
        let output = parsed.last("o").unwrap_or("");
        let input = parsed.positionals.first().map_or("", String::as_str);
        let images: Vec<String> = parsed
            .values("image")
            .into_iter()
            .map(str::to_string)
            .collect();
        if !input.is_empty() && !output.is_empty() {
            return Err(Error::msg(
                "Packaging to an output file and extracting from an input file are mutually \
                 exclusive.",
            ));
        }
        if !output.is_empty() {
            package::run(output, &images, &release)
        } else if !input.is_empty() {
            extract::run(
                input,
                &images,
                parsed.flag("archive") == Some(true),
                &release,
                reporter,
            )
        } else {
            Ok(())
        }
    })
}
