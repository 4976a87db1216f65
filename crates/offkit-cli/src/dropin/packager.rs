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
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use offkit_tools::Env;

use super::cl::{self, Spec};

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

const HELP: &str = include_str!("packager/help.txt");
const HELP_HIDDEN: &str = include_str!("packager/help-hidden.txt");
const HELP_LIST: &str = include_str!("packager/help-list.txt");
const HELP_LIST_HIDDEN: &str = include_str!("packager/help-list-hidden.txt");
const VERSION: &str = "Debian clang-offload-packager version 19.1.7 (3~deb12u1)\n";

/// Runs the tool with its full argument vector.
pub fn main(args: Vec<OsString>, env: &Env) -> ExitCode {
    let parsed = cl::parse_config(
        &args,
        &cl::Config {
            specs: SPECS,
            max_positionals: Some(1),
            suggest_order: SUGGEST_ORDER,
        },
    );
    let mut stderr = std::io::stderr().lock();
    if let Some(msg) = &parsed.expansion_error {
        // LLVM prints this and then runs with nothing parsed, which does nothing.
        let _ = stderr.write_all(msg.as_bytes());
        return ExitCode::SUCCESS;
    }
    let _ = stderr.write_all(parsed.errors.as_bytes());
    if let Some(which) = parsed.immediate {
        let text = match which {
            "version" => VERSION.to_string(),
            "help-hidden" => usage(HELP_HIDDEN, &parsed.prog),
            "help-list" => usage(HELP_LIST, &parsed.prog),
            "help-list-hidden" => usage(HELP_LIST_HIDDEN, &parsed.prog),
            _ => usage(HELP, &parsed.prog),
        };
        return print_stdout(&text);
    }
    if parsed.failed() {
        return ExitCode::from(1);
    }
    if parsed.flag("h") == Some(true) {
        // `-h` is the tool's own option, handled after parsing with `cl::PrintHelpMessage()`:
        // the uncategorized list.
        return print_stdout(&usage(HELP_LIST, &parsed.prog));
    }
    let reporter = Reporter::new(&parsed.argv0, env);
    let output = parsed.last("o").unwrap_or("").to_string();
    let input = parsed.positionals.first().cloned().unwrap_or_default();
    let images: Vec<String> = parsed
        .values("image")
        .into_iter()
        .map(str::to_string)
        .collect();
    if !input.is_empty() && !output.is_empty() {
        return reporter.error(
            "Packaging to an output file and extracting from an input file are mutually \
             exclusive.",
        );
    }
    let result = if !output.is_empty() {
        package::run(&output, &images)
    } else if !input.is_empty() {
        extract::run(
            &input,
            &images,
            parsed.flag("archive") == Some(true),
            &reporter,
        )
    } else {
        Ok(())
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => reporter.error(&msg),
    }
}

/// The help text with the program name `cl` prints in its USAGE line.
fn usage(text: &str, prog: &str) -> String {
    text.replacen(
        "USAGE: clang-offload-packager ",
        &format!("USAGE: {prog} "),
        1,
    )
}

fn print_stdout(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// Prints `<argv0>: error: …` and `<argv0>: warning: …` as LLVM's `WithColor` does, with its
/// colors when standard error is a terminal whose `TERM` LLVM 19 knows to take ANSI colors.
pub(crate) struct Reporter {
    argv0: String,
    color: bool,
}

/// LLVM 19's `terminalHasColors`.
fn term_has_colors(term: &str) -> bool {
    matches!(term, "ansi" | "cygwin" | "linux")
        || ["screen", "xterm", "vt100", "rxvt"]
            .iter()
            .any(|p| term.starts_with(p))
        || term.ends_with("color")
}

impl Reporter {
    fn new(argv0: &str, env: &Env) -> Reporter {
        Reporter {
            argv0: argv0.to_string(),
            color: std::io::stderr().is_terminal() && env.get("TERM").is_some_and(term_has_colors),
        }
    }

    /// `raw_ostream::changeColor(…, /*Bold=*/true)` then `resetColor()` around the label.
    fn emit(&self, label: &str, ansi: &str, msg: &str) {
        let text = if self.color {
            format!("{}: \x1b[0;1;{ansi}m{label}: \x1b[0m{msg}\n", self.argv0)
        } else {
            format!("{}: {label}: {msg}\n", self.argv0)
        };
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// Reports an error and gives the exit status 1.
    fn error(&self, msg: &str) -> ExitCode {
        self.emit("error", "31", msg);
        ExitCode::from(1)
    }

    /// Reports a warning.
    pub(crate) fn warning(&self, msg: &str) {
        self.emit("warning", "35", msg);
    }
}
