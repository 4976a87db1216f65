//! The one error type of the tool runner, and the text LLVM gives an OS error.

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

/// An I/O error as LLVM prints `std::error_code::message()`: the C library's text
/// (`No such file or directory`), without Rust's ` (os error 2)` suffix. Errors that carry no
/// OS code (offkit's own, such as a refused FIFO) keep their text.
pub fn os_message(e: &std::io::Error) -> String {
    let text = match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => e.to_string(),
    };
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text.get(..at).unwrap_or(&text).to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    #[test]
    fn os_messages_are_the_c_librarys() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(os_message(&e), "No such file or directory");
        let e = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(os_message(&e), "Is a directory");
        let e = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(os_message(&e), "Permission denied");
        // A wrapped OS error is reduced to its code's text; a custom error keeps its own.
        let e = io::Error::other("a FIFO is not an input");
        assert_eq!(os_message(&e), "a FIFO is not an input");
        let e = std::fs::File::open("/nonexistent/offkit").unwrap_err();
        assert_eq!(os_message(&e), "No such file or directory");
    }
}
