//! The drop-in `clang-linker-wrapper` (LLVM 19.1.7): the command line as its `OptTable` parses
//! it (response files expanded), `--help`/`--help-hidden`/`--version` output identical to 19's,
//! errors as `<argv0>: error: <message>` with exit status 1, and the link itself by
//! `offkit_link`.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use offkit_link::opts::{self, Opt};
use offkit_link::{Link, LinkConfig};
use offkit_tools::{os_message, Env};

use super::cl::{self, Reporter, Step, Text};
use super::error::Error;

/// The tool: help texts as LLVM 19 prints them (`OptTable::printHelp` with a fixed `USAGE:`
/// line) and `offkit-link`'s `OptTable` parser.
const TOOL: cl::Tool<OptTable> = cl::Tool {
    name: "clang-linker-wrapper",
    help: cl::Help {
        help: include_str!("linker_wrapper/help.txt"),
        hidden: include_str!("linker_wrapper/help-hidden.txt"),
        list: include_str!("linker_wrapper/help.txt"),
        list_hidden: include_str!("linker_wrapper/help-hidden.txt"),
        usage_as_invoked: false,
    },
    parser: OptTable,
};

/// The parse step: LLVM's `OptTable::parseArgs` (the words as expanded so far even when a
/// response file failed), its first error fatal, then `--help`/`--help-hidden`/`--version`.
#[derive(Debug, Clone, Copy)]
pub struct OptTable;

impl cl::Parse for OptTable {
    /// The words, checked: the link reads them again into a [`LinkConfig`].
    type Args = Vec<String>;

    fn parse(
        &self,
        _argv0: &str,
        words: &[String],
        _: bool,
        report: &Reporter,
    ) -> Step<Vec<String>> {
        let parsed = match opts::parse(words) {
            Ok(p) => p,
            Err(e) => {
                report.error(&e.to_string());
                return Step::Fail;
            }
        };
        if parsed.has(Opt::HelpHidden) {
            Step::Show(Text::HelpHidden)
        } else if parsed.has(Opt::Help) {
            Step::Show(Text::Help)
        } else if parsed.has(Opt::Version) {
            Step::Show(Text::Version)
        } else {
            Step::Run(words.to_vec())
        }
    }
}

/// Runs the tool with its full argument vector.
pub fn main(_face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clang-linker-wrapper".into());
    TOOL.main(args, env, |parsed, report| {
        link(parsed, env, &argv0, report)
    })
}

/// The action: the link, by `offkit_link`.
fn link(words: Vec<String>, env: &Env, argv0: &str, report: &Reporter) -> Result<(), Error> {
    let run = |config: &LinkConfig| Link::new(config, env)?.with_argv0(Path::new(argv0)).run();
    link_error(
        LinkConfig::from_llvm_args(&words).and_then(|config| run(&config)),
        report,
    )
}

/// LLVM 19's text for a failed link: `-mllvm` diagnostics as they are, a file that cannot be
/// read as `'<path>': <strerror>`, others with their causes on the same line.
fn link_error(r: Result<(), offkit_link::Error>, report: &Reporter) -> Result<(), Error> {
    match r {
        Ok(()) => Ok(()),
        Err(offkit_link::Error::LlvmOptions(text)) => {
            report.raw(&text);
            Err(Error::Reported)
        }
        Err(e) if e.llvm19_text().is_some() => {
            Err(Error::msg(e.llvm19_text().unwrap_or_default().to_string()))
        }
        Err(offkit_link::Error::Read { path, source }) => Err(Error::file(path, source)),
        Err(e @ offkit_link::Error::ToolFailed { .. }) => Err(Error::msg(e.to_string())),
        Err(e) => {
            // LLVM's messages are one line; offkit adds the cause when there is one (once:
            // some messages already end with it), an OS error in LLVM's words.
            let mut msg = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(c) = src {
                let text = c.to_string();
                let shown = match c.downcast_ref::<std::io::Error>() {
                    Some(io) => os_message(io),
                    None => text.clone(),
                };
                match msg.strip_suffix(&text) {
                    Some(head) => msg = format!("{head}{shown}"),
                    None => msg = format!("{msg}: {shown}"),
                }
                src = c.source();
            }
            Err(Error::msg(msg))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_errors_in_llvms_words() {
        let report = Reporter::new("clang-linker-wrapper", &Env::default());
        let io = || std::io::Error::from_raw_os_error(13);
        let text = |e| link_error(Err(e), &report).unwrap_err().to_string();
        assert_eq!(
            text(offkit_link::Error::Read {
                path: "lib.a".into(),
                source: io()
            }),
            "'lib.a': Permission denied"
        );
        assert_eq!(
            text(offkit_link::Error::Write {
                path: "out".into(),
                source: io()
            }),
            "cannot write 'out': Permission denied"
        );
    }
}
