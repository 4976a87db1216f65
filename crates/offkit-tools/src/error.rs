//! The one error type of the tool runner.

use std::path::PathBuf;

/// A tool that could not be found or did not succeed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The tool is nowhere offkit looks.
    #[error("cannot find `{tool}`: looked in {searched}; set it with {hint}")]
    ToolNotFound {
        /// The tool's name.
        tool: String,
        /// Where offkit looked, for the message.
        searched: String,
        /// The flag or environment variable that sets its path.
        hint: String,
    },
    /// The tool could not be started.
    #[error("cannot run `{program}`")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The tool ran and failed.
    #[error("`{cmdline}` exited with {status}\n{stderr_tail}")]
    ToolFailed {
        /// The command line, shell-quoted.
        cmdline: String,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// The end of its standard error.
        stderr_tail: String,
    },
}
