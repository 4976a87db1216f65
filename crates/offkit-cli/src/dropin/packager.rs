//! The drop-in `clang-offload-packager` (LLVM 19).
//!
//! Under this name offkit is LLVM 19's tool: the same options (parsed as LLVM's `cl` does), the
//! same help and version text, messages, exit status and output bytes.
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

mod extract;
mod files;
mod package;

use std::ffi::OsString;
use std::process::ExitCode;

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
const SUGGEST_ORDER: &[&str] = &[
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

/// The tool: `cl` with the table above and at most one positional argument (the input).
const TOOL: cl::Tool<cl::Cl> = cl::Tool {
    name: "clang-offload-packager",
    help: cl::Help {
        help: include_str!("packager/help.txt"),
        hidden: include_str!("packager/help-hidden.txt"),
        list: include_str!("packager/help-list.txt"),
        list_hidden: include_str!("packager/help-list-hidden.txt"),
        usage_as_invoked: true,
    },
    parser: cl::Cl {
        config: cl::Config {
            max_positionals: Some(1),
            suggest_order: SUGGEST_ORDER,
            ..cl::Config::new(SPECS)
        },
    },
};

/// Runs the tool with its full argument vector.
pub fn main(_face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    TOOL.main(args, env, |parsed, reporter| {
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
            package::run(output, &images)
        } else if !input.is_empty() {
            extract::run(
                input,
                &images,
                parsed.flag("archive") == Some(true),
                reporter,
            )
        } else {
            Ok(())
        }
    })
}
