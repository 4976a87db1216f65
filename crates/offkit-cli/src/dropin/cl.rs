//! The one driver of the drop-in tools, and LLVM's `cl` option parser.
//!
//! Every drop-in is a [`Tool`]: its name, its help texts (captured from the LLVM release the
//! face is) and its parse step ([`Parse`]: [`Cl`] for the `cl` tools, the linker wrapper's
//! `OptTable` from `offkit-link`), plus an action; [`Tool::main_as`] runs it as a face, whose
//! `--version` text is [`version_text`]'s (one `match` on the tool and the release). The driver
//! does the rest the same way for all, as LLVM's tools do:
//!
//! ```text
//! argv ─response::expand─► words ─Parse─► Run(args) ─action─► exit 0, or `<argv0>: error: …` exit 1
//!           │ (error: printed as is;       ├► Show(text): help or version on stdout, exit 0
//!           │  cl parses nothing,          └► Fail: diagnostics printed, exit 1
//!           │  OptTable what was expanded)
//! ```
//!
//! * A response file that cannot be read (`@dir`, `@unreadable`) or includes itself prints
//!   `cannot not open file '<abs path>': <strerror>` / `recursive expansion of: '<path>'` with no
//!   prefix; then a `cl` tool runs as if given no arguments (its required options unchecked),
//!   and the linker wrapper goes on with the words expanded so far. `@missing` stays a word.
//! * Errors go through one [`Reporter`] (`WithColor`: colored on a color terminal).

pub mod report;
pub mod response;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

pub use offkit_llvm::cl::options::{self, Config, Parsed, Spec};
pub use report::Reporter;

use super::error::{Error, Result};
use super::{Face, Tool as ToolName};

pub use offkit_llvm::cl::integer::{parse_i64 as parse_llvm_i64, parse_u64 as parse_llvm_u64};

/// The texts the immediate options print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// `--help`.
    Help,
    /// `--help-hidden`.
    HelpHidden,
    /// `--help-list`, and `-h` (the tools' own flag: `cl::PrintHelpMessage()`).
    HelpList,
    /// `--help-list-hidden`.
    HelpListHidden,
    /// `--version`.
    Version,
}

/// A tool's help texts as LLVM 19 prints them for the tool's own name.
#[derive(Debug, Clone, Copy)]
pub struct Help {
    /// `--help`.
    pub help: &'static str,
    /// `--help-hidden`.
    pub hidden: &'static str,
    /// `--help-list` (and `-h`).
    pub list: &'static str,
    /// `--help-list-hidden`.
    pub list_hidden: &'static str,
    /// `cl` names the program as invoked in its `USAGE:` line; `OptTable` tools print a fixed
    /// line.
    pub usage_as_invoked: bool,
}

/// What a parse step decided.
#[derive(Debug)]
pub enum Step<A> {
    /// Run the action.
    Run(A),
    /// Print a text on standard output and exit 0 (diagnostics may have been printed).
    Show(Text),
    /// The command line is wrong and its diagnostics were printed: exit 1.
    Fail,
}

/// Where `cl` stops a tool before its code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// An immediate option: print its text, exit 0.
    Show(Text),
    /// Diagnostics were printed: exit 1.
    Fail,
}

impl<A> From<Stop> for Step<A> {
    fn from(stop: Stop) -> Step<A> {
        match stop {
            Stop::Show(t) => Step::Show(t),
            Stop::Fail => Step::Fail,
        }
    }
}

/// How a tool parses its words (`argv[1..]`, response files expanded).
pub trait Parse {
    /// What the action gets.
    type Args;
    /// Parses `words`; `expansion_failed` says that response-file expansion stopped at an error
    /// (already printed) and `words` hold what was expanded up to it. Diagnostics are printed
    /// through `report`.
    fn parse(
        &self,
        argv0: &str,
        words: &[String],
        expansion_failed: bool,
        report: &Reporter,
    ) -> Step<Self::Args>;
}

/// A drop-in tool: everything but its parse table and action is the driver's.
#[derive(Debug)]
pub struct Tool<P> {
    /// The tool's name (`clang-offload-bundler`).
    pub name: &'static str,
    /// Its help texts.
    pub help: Help,
    /// Its parse step.
    pub parser: P,
}

impl<P: Parse> Tool<P> {
    /// Runs the tool as LLVM 19 with its full argument vector (`args[0]` is the name it was
    /// invoked as): [`Tool::main_as`] with LLVM 19's `--version` text for [`Tool::name`].
    pub fn main(
        &self,
        args: Vec<OsString>,
        env: &Env,
        action: impl FnOnce(P::Args, &Reporter) -> Result,
    ) -> ExitCode {
        self.run(
            &clang_tool_version(self.name, LlvmVersion::V19),
            args,
            env,
            action,
        )
    }

    /// Runs the tool as `face` (its `--version` text is [`version_text`]'s for the face):
    /// expands response files, parses, prints help or version, or runs `action`; reports an
    /// error as `<argv0>: error: <message>` and gives LLVM's exit status.
    pub fn main_as(
        &self,
        face: &Face,
        args: Vec<OsString>,
        env: &Env,
        action: impl FnOnce(P::Args, &Reporter) -> Result,
    ) -> ExitCode {
        self.run(&version_text(face.tool, face.version), args, env, action)
    }

    fn run(
        &self,
        version: &str,
        args: Vec<OsString>,
        env: &Env,
        action: impl FnOnce(P::Args, &Reporter) -> Result,
    ) -> ExitCode {
        let argv0 = args
            .first()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.name.to_string());
        let report = Reporter::new(&argv0, env);
        let words: Vec<String> = args
            .iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let expanded = response::expand(words);
        if let Some(e) = &expanded.error {
            report.raw(&format!("{e}\n"));
        }
        let step = self
            .parser
            .parse(&argv0, &expanded.words, expanded.error.is_some(), &report);
        match step {
            Step::Show(text) => {
                let text = match text {
                    Text::Version => version.to_string(),
                    t => self.text(t, &argv0),
                };
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                ExitCode::SUCCESS
            }
            Step::Fail => ExitCode::from(1),
            Step::Run(args) => match action(args, &report) {
                Ok(()) => ExitCode::SUCCESS,
                Err(Error::Reported) => ExitCode::from(1),
                Err(e) => {
                    report.error(&e.to_string());
                    ExitCode::from(1)
                }
            },
        }
    }

    /// The text of an immediate option, for the program invoked as `argv0` (`--version`: LLVM
    /// 19's).
    pub fn text(&self, text: Text, argv0: &str) -> String {
        let help = match text {
            Text::Version => return clang_tool_version(self.name, LlvmVersion::V19),
            Text::Help => self.help.help,
            Text::HelpHidden => self.help.hidden,
            Text::HelpList => self.help.list,
            Text::HelpListHidden => self.help.list_hidden,
        };
        if !self.help.usage_as_invoked {
            return help.to_string();
        }
        help.replacen(
            &format!("USAGE: {} ", self.name),
            &format!("USAGE: {} ", options::program_name(argv0)),
            1,
        )
    }
}

/// `clang::getClangToolFullVersion(name)`, as Debian's clang prints it, and a newline.
fn clang_tool_version(name: &str, version: LlvmVersion) -> String {
    format!(
        "Debian {name} version {} ({})\n",
        version.release(),
        version.debian_revision()
    )
}

/// What `--version` prints for a tool of an LLVM release: the tool's own printer
/// (`getClangToolFullVersion`, which names the program LLVM built, not the name it was run
/// as), or `cl`'s default one where the tool sets none.
pub fn version_text(tool: ToolName, version: LlvmVersion) -> String {
    match (tool, version) {
        // LLVM 22's llvm-offload-binary (also as clang-offload-packager) and
        // llvm-offload-wrapper set no printer: `cl`'s default, Debian's vendor line.
        (ToolName::Packager | ToolName::OffloadBinary | ToolName::OffloadWrapper, v)
            if v >= LlvmVersion::V22 =>
        {
            format!("Debian LLVM version {}\n  Optimized build.\n", v.release())
        }
        // amdgpu-arch and nvptx-arch are links to offload-arch in LLVM 22.
        (ToolName::AmdgpuArch | ToolName::NvptxArch, v) if v >= LlvmVersion::V22 => {
            clang_tool_version(ToolName::OffloadArch.name(), v)
        }
        (t, v) => clang_tool_version(t.name(), v),
    }
}

/// The parse step of the tools built on `cl` (`cl::ParseCommandLineOptions`, then the tool's
/// own `-h` flag when its table has one).
#[derive(Debug, Clone, Copy)]
pub struct Cl {
    /// The options and positional rules.
    pub config: Config<'static>,
}

impl Cl {
    /// `cl::ParseCommandLineOptions` alone: `Ok` with what the tool's code then sees, or the
    /// step `cl` decides (an immediate option's text, or failure). After a response-file error
    /// nothing is parsed and the tool runs with every option at its default.
    pub fn parse_words(
        &self,
        argv0: &str,
        words: &[String],
        expansion_failed: bool,
        report: &Reporter,
    ) -> std::result::Result<Parsed, Stop> {
        if expansion_failed {
            // `ParseCommandLineOptions` returns before parsing anything (and does not exit).
            return Ok(Parsed {
                prog: options::program_name(argv0),
                argv0: argv0.to_string(),
                ..Parsed::default()
            });
        }
        let p = options::parse(argv0, words, &self.config);
        report.raw(&p.errors);
        if let Some(name) = p.immediate {
            return Err(Stop::Show(match name {
                "help-hidden" => Text::HelpHidden,
                "help-list" => Text::HelpList,
                "help-list-hidden" => Text::HelpListHidden,
                "version" => Text::Version,
                _ => Text::Help,
            }));
        }
        if p.failed() {
            return Err(Stop::Fail);
        }
        Ok(p)
    }
}

impl Parse for Cl {
    type Args = Parsed;

    fn parse(
        &self,
        argv0: &str,
        words: &[String],
        expansion_failed: bool,
        report: &Reporter,
    ) -> Step<Parsed> {
        let p = match self.parse_words(argv0, words, expansion_failed, report) {
            Ok(p) => p,
            Err(stop) => return stop.into(),
        };
        if !expansion_failed && p.flag("h") == Some(true) {
            return Step::Show(Text::HelpList);
        }
        Step::Run(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[Spec] = &[
        Spec::flag("h").really_hidden(),
        Spec::value("o"),
        Spec::immediate("help"),
        Spec::immediate("help-list"),
        Spec::immediate("version"),
    ];

    const TOOL: Tool<Cl> = Tool {
        name: "clang-offload-packager",
        help: Help {
            help: "OVERVIEW: x\n\nUSAGE: clang-offload-packager [options]\n\nOPTIONS:\n",
            hidden: "hidden\n",
            list: "USAGE: clang-offload-packager [options]\nlist\n",
            list_hidden: "list hidden\n",
            usage_as_invoked: true,
        },
        parser: Cl {
            config: Config {
                required: &["o"],
                ..Config::new(SPECS)
            },
        },
    };

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn step(v: &[&str], expansion_failed: bool) -> Step<Parsed> {
        let report = Reporter::new("/x/tool-19", &Env::default());
        TOOL.parser
            .parse("/x/tool-19", &words(v), expansion_failed, &report)
    }

    #[test]
    fn texts_name_the_program_as_invoked() {
        assert_eq!(
            TOOL.text(Text::Help, "/usr/bin/clang-offload-packager-19"),
            "OVERVIEW: x\n\nUSAGE: clang-offload-packager-19 [options]\n\nOPTIONS:\n"
        );
        assert_eq!(
            TOOL.text(Text::Version, "anything"),
            "Debian clang-offload-packager version 19.1.7 (3~deb12u1)\n"
        );
        let fixed = Tool {
            help: Help {
                usage_as_invoked: false,
                ..TOOL.help
            },
            ..TOOL
        };
        assert_eq!(
            fixed.text(Text::HelpList, "/x/other"),
            "USAGE: clang-offload-packager [options]\nlist\n"
        );
    }

    #[test]
    fn version_texts_per_release() {
        use crate::dropin::Tool as T;
        let v = |t, l| version_text(t, l);
        assert_eq!(
            v(T::Bundler, LlvmVersion::V22),
            "Debian clang-offload-bundler version 22.1.8 (1~deb13u5)\n"
        );
        assert_eq!(
            v(T::Packager, LlvmVersion::V19),
            "Debian clang-offload-packager version 19.1.7 (3~deb12u1)\n"
        );
        for t in [T::Packager, T::OffloadBinary, T::OffloadWrapper] {
            assert_eq!(
                v(t, LlvmVersion::V22),
                "Debian LLVM version 22.1.8\n  Optimized build.\n"
            );
        }
        assert_eq!(
            v(T::NvptxArch, LlvmVersion::V22),
            "Debian offload-arch version 22.1.8 (1~deb13u5)\n"
        );
        assert_eq!(
            v(T::NvptxArch, LlvmVersion::V19),
            "Debian nvptx-arch version 19.1.7 (3~deb12u1)\n"
        );
    }

    #[test]
    fn cl_steps() {
        // Help wins over the errors before it; `-h` is the list, once the line parses.
        assert!(matches!(
            step(&["-bogus", "--help"], false),
            Step::Show(Text::Help)
        ));
        assert!(matches!(
            step(&["-o", "x", "-h"], false),
            Step::Show(Text::HelpList)
        ));
        assert!(matches!(step(&["-h"], false), Step::Fail));
        assert!(matches!(step(&["-bogus"], false), Step::Fail));
        // After a response-file error nothing is parsed and nothing is required.
        match step(&["--help"], true) {
            Step::Run(p) => {
                assert!(p.occurrences.is_empty() && !p.failed());
                assert_eq!(
                    (p.prog.as_str(), p.argv0.as_str()),
                    ("tool-19", "/x/tool-19")
                );
            }
            other => panic!("{other:?}"),
        }
        match step(&["-o", "out"], false) {
            Step::Run(p) => assert_eq!(p.last("o"), Some("out")),
            other => panic!("{other:?}"),
        }
    }
}
