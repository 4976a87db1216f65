//! A tool invocation as a value: built, printed, and run in one place.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::Error;

/// One run of an external tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInvocation {
    /// The program (a path, as found by [`crate::ToolFinder`]).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment changes: `Some` sets a variable, `None` removes it.
    pub env: Vec<(OsString, Option<OsString>)>,
    /// The working directory (the current one if `None`).
    pub cwd: Option<PathBuf>,
}

/// What a finished tool printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

impl ToolInvocation {
    /// An invocation of `program` with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        ToolInvocation {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        }
    }

    /// Adds one argument.
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.args.push(a.as_ref().to_owned());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Self {
        self.env
            .push((k.as_ref().to_owned(), Some(v.as_ref().to_owned())));
        self
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The command as clang prints it under `-v`: a leading space, the program double-quoted,
    /// then each argument through [`llvm_quote`]. (Tools that print differently, such as the
    /// linker wrapper's unquoted ` "<program>" arg arg`, format `program`/`args` themselves.)
    pub fn render_llvm(&self) -> String {
        let mut s = format!(" \"{}\"", self.program.display());
        for a in &self.args {
            s.push(' ');
            s.push_str(&llvm_quote(&a.to_string_lossy()));
        }
        s
    }

    /// The command as one POSIX shell line (for scripts and messages).
    pub fn render_shell(&self) -> String {
        let mut words = vec![shell_quote(&self.program.to_string_lossy())];
        words.extend(self.args.iter().map(|a| shell_quote(&a.to_string_lossy())));
        words.join(" ")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        if let Some(d) = &self.cwd {
            c.current_dir(d);
        }
        c
    }

    /// Runs the tool, capturing its output; a non-zero exit is [`Error::ToolFailed`].
    pub fn run(&self) -> Result<Output, Error> {
        let out = self
            .command()
            .stdin(Stdio::null())
            .output()
            .map_err(|source| self.spawn_error(source))?;
        if !out.status.success() {
            return Err(Error::ToolFailed {
                cmdline: self.render_shell(),
                status: out.status,
                stderr_tail: tail(&out.stderr, 40),
            });
        }
        Ok(Output {
            stdout: out.stdout,
            stderr: out.stderr,
        })
    }

    /// Runs the tool with stdout and stderr passed through to ours (as LLVM's tools run their
    /// subprocesses); a non-zero exit is [`Error::ToolFailed`] with an empty tail.
    pub fn run_inherit(&self) -> Result<(), Error> {
        let status = self
            .command()
            .stdin(Stdio::null())
            .status()
            .map_err(|source| self.spawn_error(source))?;
        if !status.success() {
            return Err(Error::ToolFailed {
                cmdline: self.render_shell(),
                status,
                stderr_tail: String::new(),
            });
        }
        Ok(())
    }

    fn spawn_error(&self, source: std::io::Error) -> Error {
        Error::Spawn {
            program: self.program.clone(),
            source,
        }
    }
}

/// LLVM's `sys::printArg` quoting (as `-###` and `--wrapper-verbose` print): a word is printed
/// bare unless it contains a space, `"`, `\` or `$`, in which case it is double-quoted with
/// those characters escaped.
pub fn llvm_quote(a: &str) -> String {
    if !a.contains([' ', '"', '\\', '$']) {
        return a.to_string();
    }
    let mut s = String::from("\"");
    for c in a.chars() {
        if matches!(c, '"' | '\\' | '$') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// POSIX shell quoting: bare when safe, else single quotes.
pub fn shell_quote(a: &str) -> String {
    let safe = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if safe {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Whether `p` is an existing file (helper for lookups).
pub(crate) fn is_file(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders() {
        let t = ToolInvocation::new("/usr/bin/ld")
            .arg("-o")
            .arg("a b")
            .arg("x$y");
        assert_eq!(t.render_llvm(), " \"/usr/bin/ld\" -o \"a b\" \"x\\$y\"");
        assert_eq!(t.render_shell(), "/usr/bin/ld -o 'a b' 'x$y'");
    }

    #[test]
    fn runs_and_reports_failure() {
        let ok = ToolInvocation::new("sh")
            .args(["-c", "echo hi"])
            .run()
            .unwrap();
        assert_eq!(ok.stdout, b"hi\n");
        let err = ToolInvocation::new("sh")
            .args(["-c", "echo bad >&2; exit 3"])
            .run()
            .unwrap_err();
        match err {
            Error::ToolFailed { stderr_tail, .. } => assert_eq!(stderr_tail, "bad"),
            e => panic!("{e:?}"),
        }
        assert!(matches!(
            ToolInvocation::new("/nonexistent/tool").run(),
            Err(Error::Spawn { .. })
        ));
    }
}
