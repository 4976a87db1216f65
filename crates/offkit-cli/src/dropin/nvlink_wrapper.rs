//! The drop-in `clang-nvlink-wrapper`, as LLVM 19.1.7's or 22.1.8's (the face's version): its
//! `OptTable` command line, help texts, `--version` (printed, then the link goes on, as LLVM
//! does), errors as `<argv0>: error: <message>`, and the link by `offkit_link::nvlink` (archive
//! members by symbols, the LTO by `llvm-lto2`, then NVIDIA's `ptxas` and `nvlink`, which must
//! be installed: `--cuda-path=`, or on `PATH`).

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use offkit_link::nvlink::{self, opts::Opt};
use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

use super::cl::{self, Reporter, Step, Text};
use super::error::Error;
use super::Face;

const NAME: &str = "clang-nvlink-wrapper";

fn tool(version: LlvmVersion) -> cl::Tool<OptTable> {
    let (help, hidden) = match version {
        LlvmVersion::V19 => (
            include_str!("nvlink_wrapper/help-19.txt"),
            include_str!("nvlink_wrapper/help-hidden-19.txt"),
        ),
        _ => (
            include_str!("nvlink_wrapper/help-22.txt"),
            include_str!("nvlink_wrapper/help-hidden-22.txt"),
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

/// The parse step: `OptTable::parseArgs`, its first error fatal, then `--help`/`--help-hidden`.
#[derive(Debug, Clone, Copy)]
pub struct OptTable {
    /// Whose table.
    pub version: LlvmVersion,
}

impl cl::Parse for OptTable {
    type Args = nvlink::opts::Args;

    fn parse(&self, _: &str, words: &[String], _: bool, report: &Reporter) -> Step<Self::Args> {
        let parsed = match nvlink::opts::parse(words, self.version) {
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
        } else {
            Step::Run(parsed)
        }
    }
}

/// Runs the tool with its full argument vector.
pub fn main(face: &Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| NAME.into());
    tool(face.version).main(args, env, |parsed, report| {
        if parsed.has(Opt::Version) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "Debian {NAME} version {} ({})",
                face.version.release(),
                face.version.debian_revision()
            );
            let _ = out.flush();
        }
        let warn = |m: &str| report.warning(m);
        let link = nvlink::Nvlink::new(parsed, face.version, env, Path::new(&argv0), &warn);
        match link.run() {
            Ok(()) => Ok(()),
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
            Err(offkit_link::Error::Read { path, source }) => Err(Error::file(path, source)),
            Err(e) => Err(Error::msg(e.to_string())),
        }
    })
}
