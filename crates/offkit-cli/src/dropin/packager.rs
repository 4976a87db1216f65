//! The drop-in `clang-offload-packager` (LLVM 19), and LLVM 22's `llvm-offload-binary` under
//! its new name and its old one.
//!
//! Under these names offkit is the release's tool: the same options (parsed as LLVM's `cl`
//! does), the same help and version text, messages, exit status and output bytes. What differs
//! between the releases is one table, [`Release`]: LLVM 22 needs no `triple=`, knows
//! `kind=sycl`, numbers kinds as bit flags (HIP is 4), prints its help list when given nothing
//! to do, and warns that `clang-offload-packager` is deprecated.
//!
//! The work is the library's, [`offkit_bundle::packager`] (`package` and `extract` over config
//! values, the release's [`Rules`]); this face parses LLVM's options, prints its warnings and
//! turns the typed errors into LLVM's messages ([`package_message`], [`extract_message`]).
//!
//! ```text
//! argv ─cl─► -o FILE --image=…             ─► PackageConfig ─► packager::package
//!            INPUT --image=… [--archive]   ─► ExtractConfig ─► packager::extract ─► Events
//!                                                   Error ─► LLVM's message
//! ```
//!
//! Departures: where LLVM would read outside its input (it checks few of an offload binary's
//! offsets) offkit reports what is wrong instead, a special file is refused at once, and no
//! failure leaves a partial output file.

pub(crate) use offkit_bundle::packager::stem;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use offkit_bundle::packager::{
    self, CreateError, Event, ExtractConfig, ImageArgs, PackageConfig, Rules,
};
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

/// What differs between the releases' packager faces (their names, help and "Did you mean"
/// orders; the work's differences are the library's [`Rules`]): one row per release.
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
                renamed: true,
            },
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
        if stem(argv0).ends_with("clang-offload-packager") {
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
        let images: Vec<ImageArgs> = parsed
            .values("image")
            .into_iter()
            .map(ImageArgs::parse)
            .collect();
        if !input.is_empty() && !output.is_empty() {
            return Err(Error::msg(
                "Packaging to an output file and extracting from an input file are mutually \
                 exclusive.",
            ));
        }
        let rules = Rules::of(release.llvm);
        if !output.is_empty() {
            let cfg = PackageConfig {
                rules,
                output: PathBuf::from(output),
                images,
            };
            packager::package(&cfg).map_err(package_message)
        } else if !input.is_empty() {
            let cfg = ExtractConfig {
                rules,
                input: PathBuf::from(input),
                images,
                archive: parsed.flag("archive") == Some(true),
            };
            let mut events = |e: Event<'_>| {
                if let Event::MultipleMatches { file } = e {
                    reporter.warning(&format!("Multiple inputs match to a single file, '{file}'"));
                }
            };
            packager::extract(&cfg, &mut events).map_err(extract_error)
        } else {
            Ok(())
        }
    })
}

/// LLVM's message for a packaging error: OS errors alone (LLVM's `createFileError`-less
/// paths), except offkit's refusal of a special file, which names it.
fn package_message(e: offkit_bundle::Error) -> Error {
    use offkit_bundle::Error as B;
    match e {
        B::MissingImageArguments { triple: true } => {
            Error::msg("'file' and 'triple' are required image arguments")
        }
        B::MissingImageArguments { triple: false } => {
            Error::msg("'file' is a required image arguments")
        }
        B::Read { path, source } if source.kind() == std::io::ErrorKind::InvalidInput => {
            Error::file(path, source)
        }
        B::Read { source, .. } | B::Write { source, .. } => Error::Os(source),
        B::Format { source, .. } => Error::Format(source),
        e => Error::msg(e.to_string()),
    }
}

/// An extraction error as LLVM prints it: the input's OS error as `'<input>': <strerror>`,
/// the outputs' alone, the reading's in [`extract_message`]'s words.
fn extract_error(e: offkit_bundle::Error) -> Error {
    use offkit_bundle::Error as B;
    match e {
        B::Read { path, source } => Error::file(path, source),
        B::Write { source, .. } | B::ArchiveWrite { source } => Error::Os(source),
        e => Error::Message(extract_message(e)),
    }
}

/// `OffloadBinary::create`'s message: `object_error::parse_failed` or `unexpected_eof`.
pub(crate) fn create_message(e: CreateError) -> &'static str {
    match e {
        CreateError::ParseFailed => "Invalid data was encountered while parsing the file",
        CreateError::UnexpectedEof => "The end of the file was unexpectedly encountered",
    }
}

/// LLVM's words for an error of reading offload binaries out of a file
/// ([`packager::collect`], also `llvm-objdump --offloading`'s), or offkit's own where LLVM has
/// none.
pub(crate) fn extract_message(e: offkit_bundle::Error) -> String {
    use offkit_bundle::Error as B;
    use offkit_format::Error as F;
    match e {
        B::OffloadBinaryCreate { problem } => create_message(problem).into(),
        B::ImageWithoutFile => "Image must have a 'file' argument.".into(),
        B::BitcodeModule {
            source: e @ F::Unsupported { .. },
        } => e.to_string(),
        B::BitcodeModule { .. } => "Failed to create module".into(),
        B::BitcodeSymbols { member, source } => format!("'{member}': {source}"),
        B::Format { source, .. } => match source {
            F::Object {
                what: "archive" | "archive member",
                source,
                ..
            } => format!("malformed archive: {source}"),
            F::Object {
                what: "COFF file",
                source,
                ..
            } => format!("malformed COFF object: {source}"),
            F::Object {
                what: "COFF section",
                source,
                ..
            } => format!("malformed COFF section: {source}"),
            F::Invalid {
                what: "thin archive member",
                reason,
                ..
            } => reason,
            // The member's file, named as LLVM names a file it cannot open.
            F::ThinMember { source, .. } => source.to_string(),
            e => e.to_string(),
        },
        e => e.to_string(),
    }
}
