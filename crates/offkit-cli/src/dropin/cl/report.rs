//! `<argv0>: error: …` and `<argv0>: warning: …` as LLVM's `WithColor` prints them.

use std::io::{IsTerminal, Write};

use offkit_tools::Env;

/// Prints a tool's diagnostics to standard error, with LLVM 19's colors when standard error is
/// a terminal whose `TERM` LLVM knows to take ANSI colors.
#[derive(Debug, Clone)]
pub struct Reporter {
    argv0: String,
    color: bool,
}

/// LLVM 19's `terminalHasColors` (it no longer asks terminfo: the name decides).
fn term_has_colors(term: &str) -> bool {
    matches!(term, "ansi" | "cygwin" | "linux")
        || ["screen", "xterm", "vt100", "rxvt"]
            .iter()
            .any(|p| term.starts_with(p))
        || term.ends_with("color")
}

impl Reporter {
    /// A reporter for the program invoked as `argv0`.
    pub fn new(argv0: &str, env: &Env) -> Reporter {
        Reporter {
            argv0: argv0.to_string(),
            color: std::io::stderr().is_terminal() && env.get("TERM").is_some_and(term_has_colors),
        }
    }

    /// `raw_ostream::changeColor(…, /*Bold=*/true)` then `resetColor()` around the label;
    /// `WithColor` prints `<prefix>: ` first unless the prefix is empty.
    fn emit_with(&self, prefix: &str, label: &str, ansi: &str, msg: &str) {
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}: ")
        };
        let text = if self.color {
            format!("{prefix}\x1b[0;1;{ansi}m{label}: \x1b[0m{msg}\n")
        } else {
            format!("{prefix}{label}: {msg}\n")
        };
        self.raw(&text);
    }

    fn emit(&self, label: &str, ansi: &str, msg: &str) {
        self.emit_with(&self.argv0, label, ansi, msg);
    }

    /// Reports an error (standard output is flushed first, as LLVM's tools do).
    pub fn error(&self, msg: &str) {
        let _ = std::io::stdout().flush();
        self.emit("error", "31", msg);
    }

    /// Reports a warning.
    pub fn warning(&self, msg: &str) {
        self.emit("warning", "35", msg);
    }

    /// Reports a warning without the program's name (`WithColor::warning(errs(), "")`).
    pub fn warning_unprefixed(&self, msg: &str) {
        self.emit_with("", "warning", "35", msg);
    }

    /// Writes `text` to standard error as it is.
    pub fn raw(&self, text: &str) {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminals_with_colors() {
        for t in [
            "xterm-256color",
            "screen",
            "linux",
            "rxvt-unicode",
            "ansi",
            "foo-color",
        ] {
            assert!(term_has_colors(t), "{t}");
        }
        for t in ["dumb", "", "vt52"] {
            assert!(!term_has_colors(t), "{t}");
        }
    }
}
