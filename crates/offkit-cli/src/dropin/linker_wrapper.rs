//! The drop-in `clang-linker-wrapper`, as LLVM 19.1.7's or 22.1.8's (the face's version): the
//! command line as that release's `OptTable` parses it (response files expanded),
//! `--help`/`--help-hidden`/`--version` output identical to its, errors as
//! `<argv0>: error: <message>` with exit status 1, and the link itself by `offkit_link` (whose
//! `LinkConfig::llvm` is the face's version).
//!
//! An option only the other release's wrapper has (`--device-compiler=` reaching a 19 face,
//! `--opt-level=` a 22 one) is an error that says how to choose the right face, never an
//! argument for the host linker.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use offkit_link::opts::{self, Opt};
use offkit_link::{Link, LinkConfig};
use offkit_llvm::LlvmVersion;
use offkit_tools::{os_message, Env};

use super::cl::{self, Reporter, Step, Text};
use super::error::Error;
use super::Face;

const NAME: &str = "clang-linker-wrapper";

/// The tool of `version`: its help texts as it prints them (`OptTable::printHelp` with a fixed
/// `USAGE:` line) and `offkit-link`'s `OptTable` parser with its table.
fn tool(version: LlvmVersion) -> cl::Tool<OptTable> {
    let (help, hidden) = match version {
        LlvmVersion::V19 => (
            include_str!("linker_wrapper/help-19.txt"),
            include_str!("linker_wrapper/help-hidden-19.txt"),
        ),
        _ => (
            include_str!("linker_wrapper/help-22.txt"),
            include_str!("linker_wrapper/help-hidden-22.txt"),
        ),
    };
    cl::Tool {
        name: NAME,
        help: cl::Help {
            help,
            hidden,
            list: help,
            list_hidden: hidden,
            usage_as_invoked: false,
        },
        parser: OptTable { version },
    }
}

/// The parse step: LLVM's `OptTable::parseArgs` (the words as expanded so far even when a
/// response file failed), its first error fatal, then `--help`/`--help-hidden`/`--version`.
#[derive(Debug, Clone, Copy)]
pub struct OptTable {
    /// Whose table.
    pub version: LlvmVersion,
}

/// What the action is asked for.
#[derive(Debug)]
pub enum Action {
    /// A link of these words (checked: the link reads them again into a [`LinkConfig`]).
    Link(Vec<String>),
    /// `--version`: the release's version line.
    Version,
}

impl cl::Parse for OptTable {
    type Args = Action;

    fn parse(&self, _argv0: &str, words: &[String], _: bool, report: &Reporter) -> Step<Action> {
        let parsed = match opts::parse(words, self.version) {
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
            Step::Run(Action::Version)
        } else {
            Step::Run(Action::Link(words.to_vec()))
        }
    }
}

/// The `--version` line of `version`'s tool.
fn version_line(version: LlvmVersion) -> String {
    format!(
        "Debian {NAME} version {} ({})\n",
        version.release(),
        version.debian_revision()
    )
}

/// Runs the tool with its full argument vector.
pub fn main(face: &Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| NAME.into());
    tool(face.version).main(args, env, |action, report| match action {
        Action::Version => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(version_line(face.version).as_bytes());
            let _ = out.flush();
            Ok(())
        }
        Action::Link(words) => link(face, words, env, &argv0, report),
    })
}

/// The action: the link, by `offkit_link`.
fn link(
    face: &Face,
    words: Vec<String>,
    env: &Env,
    argv0: &str,
    report: &Reporter,
) -> Result<(), Error> {
    let run = |config: &LinkConfig| Link::new(config, env)?.with_argv0(Path::new(argv0)).run();
    link_error(
        face,
        LinkConfig::from_llvm_args(&words, face.version).and_then(|config| run(&config)),
        report,
    )
}

/// LLVM's text for a failed link: `-mllvm` diagnostics as they are, a file that cannot be
/// read as `'<path>': <strerror>`, others with their causes on the same line; an option of the
/// other release with how to choose it.
fn link_error(
    face: &Face,
    r: Result<(), offkit_link::Error>,
    report: &Reporter,
) -> Result<(), Error> {
    match r {
        Ok(()) => Ok(()),
        Err(e @ offkit_link::Error::OtherRelease { release, .. }) => {
            Err(Error::msg(format!("{e}: {}", face.how_to_choose(release))))
        }
        Err(offkit_link::Error::LlvmHelp(text)) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            Ok(())
        }
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
        let face = Face {
            tool: super::super::Tool::LinkerWrapper,
            version: LlvmVersion::V19,
            choice: super::super::Choice::Default,
        };
        let text = |e| link_error(&face, Err(e), &report).unwrap_err().to_string();
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
        assert_eq!(
            text(offkit_link::Error::OtherRelease {
                option: "--emit-fatbin-only".into(),
                release: LlvmVersion::V22,
                chosen: LlvmVersion::V19
            }),
            "`--emit-fatbin-only` is an option of LLVM 22's clang-linker-wrapper, and this one \
             is LLVM 19's: make the shims with `offkit shims --llvm 22 DIR` (or set \
             OFFKIT_LLVM=22)"
        );
        assert_eq!(
            version_line(LlvmVersion::V22),
            "Debian clang-linker-wrapper version 22.1.8 (1~deb13u5)\n"
        );
    }
}
