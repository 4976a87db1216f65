//! The drop-in `clang-linker-wrapper` (LLVM 19.1.7): the command line as its `OptTable` parses
//! it (response files expanded), `--help`/`--help-hidden`/`--version` output identical to 19's,
//! errors as `<argv0>: error: <message>` with exit status 1, and the link itself by
//! `offkit_link`.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use offkit_link::opts::{self, Opt};
use offkit_link::{Link, LinkConfig};
use offkit_tools::Env;

/// `--help` of LLVM 19's tool, as it prints it.
const HELP: &str = include_str!("linker_wrapper/help.txt");
/// `--help-hidden`.
const HELP_HIDDEN: &str = include_str!("linker_wrapper/help-hidden.txt");
/// `--version` (`getClangToolFullVersion("clang-linker-wrapper")` of Debian's build).
const VERSION: &str = "Debian clang-linker-wrapper version 19.1.7 (3~deb12u1)\n";

/// Runs the tool with its full argument vector.
pub fn main(args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clang-linker-wrapper".into());
    let fail = |msg: &str| {
        let _ = std::io::stdout().flush();
        eprintln!("{argv0}: error: {msg}");
        ExitCode::from(1)
    };
    let raw: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let words = match super::cl::expand_response_files(raw) {
        Ok(w) => w,
        Err(msg) => return fail(&msg),
    };
    let parsed = match opts::parse(&words) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    if parsed.has(Opt::Help) || parsed.has(Opt::HelpHidden) {
        let text = if parsed.has(Opt::HelpHidden) {
            HELP_HIDDEN
        } else {
            HELP
        };
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    if parsed.has(Opt::Version) {
        print!("{VERSION}");
        return ExitCode::SUCCESS;
    }
    let run = |config: &LinkConfig| Link::new(config, env)?.with_argv0(Path::new(&argv0)).run();
    match LinkConfig::from_llvm_args(&words).and_then(|config| run(&config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(offkit_link::Error::LlvmOptions(text)) => {
            eprint!("{text}");
            ExitCode::from(1)
        }
        Err(e) if e.llvm19_text().is_some() => fail(e.llvm19_text().unwrap_or_default()),
        Err(e) => {
            // LLVM's messages are one line; offkit adds the cause when there is one.
            let mut msg = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(c) = src {
                msg.push_str(": ");
                msg.push_str(&c.to_string());
                src = c.source();
            }
            if matches!(
                e,
                offkit_link::Error::ToolFailed { .. } | offkit_link::Error::Read { .. }
            ) {
                msg = e.to_string();
            }
            fail(&msg)
        }
    }
}
