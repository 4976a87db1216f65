//! `@file` response files, expanded as LLVM 19's `ExpansionContext::expandResponseFiles` does
//! for both of its option parsers (`cl` and `OptTable`), with GNU tokenization.

use std::path::{Path, PathBuf};

use crate::dropin::error::Error;

/// A command line after expansion.
#[derive(Debug)]
pub struct Expanded {
    /// The words: every response file expanded, or, after an error, those expanded up to the
    /// file that failed (which is still there as `@file`), as LLVM leaves its vector.
    pub words: Vec<String>,
    /// Why expansion stopped, if it did.
    pub error: Option<Error>,
}

/// Expands `@file` arguments: relative names against the working directory (nested ones too:
/// LLVM's tools do not set `RelativeNames`); a file that does not exist leaves the argument as
/// it is; one that exists but cannot be read is an error ("cannot not open file", LLVM's
/// wording); a file within its own expansion is an error.
pub fn expand(mut argv: Vec<String>) -> Expanded {
    match expand_in_place(&mut argv) {
        Ok(()) => Expanded {
            words: argv,
            error: None,
        },
        Err(e) => Expanded {
            words: argv,
            error: Some(e),
        },
    }
}

fn expand_in_place(argv: &mut Vec<String>) -> Result<(), Error> {
    // (absolute path, index one past its last expanded argument)
    let mut stack: Vec<(PathBuf, usize)> = Vec::new();
    let mut i = 0;
    while let Some(arg) = argv.get(i) {
        while stack.last().is_some_and(|(_, end)| *end <= i) {
            stack.pop();
        }
        let Some(name) = arg.strip_prefix('@') else {
            i += 1;
            continue;
        };
        let path = Path::new(name);
        let path = if path.is_relative() {
            std::env::current_dir()
                .map_err(|io| Error::WorkingDirectory {
                    name: name.to_string(),
                    io,
                })?
                .join(path)
        } else {
            path.to_path_buf()
        };
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                i += 1;
                continue;
            }
            Err(io) => return Err(Error::ResponseFile { path, io }),
            Ok(_) => {}
        }
        if let Some((open, _)) = stack.iter().find(|(open, _)| same_file(open, &path)) {
            return Err(Error::RecursiveResponseFile(open.clone()));
        }
        // Through the one input opener: a FIFO (on which LLVM 19 hangs) is refused at once,
        // a device that yields bytes (`/dev/zero`) after one read; `/dev/null` is empty.
        let bytes = match offkit_tools::MappedFile::open_llvm(&path) {
            Ok(b) => b,
            Err(io) => return Err(Error::ResponseFile { path, io }),
        };
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        let tokens = tokenize_gnu(&String::from_utf8_lossy(bytes));
        let added = tokens.len();
        for (_, end) in &mut stack {
            *end = *end + added - 1;
        }
        stack.push((path, i + added));
        argv.splice(i..=i, tokens);
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// `cl::TokenizeGNUCommandLine`.
pub fn tokenize_gnu(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let ws = |ch: char| matches!(ch, ' ' | '\t' | '\r' | '\n');
    let mut out = Vec::new();
    let mut tok = String::new();
    let mut i = 0;
    while i < c.len() {
        if tok.is_empty() {
            while i < c.len() && ws(c[i]) {
                i += 1;
            }
            if i == c.len() {
                break;
            }
        }
        let ch = c[i];
        if ch == '\\' && i + 1 < c.len() {
            tok.push(c[i + 1]);
            i += 2;
            continue;
        }
        if ch == '"' || ch == '\'' {
            i += 1;
            while i < c.len() && c[i] != ch {
                if c[i] == '\\' && i + 1 < c.len() {
                    i += 1;
                }
                tok.push(c[i]);
                i += 1;
            }
            if i == c.len() {
                break;
            }
            i += 1;
            continue;
        }
        if ws(ch) {
            if !tok.is_empty() {
                out.push(std::mem::take(&mut tok));
            }
            i += 1;
            continue;
        }
        tok.push(ch);
        i += 1;
    }
    if !tok.is_empty() {
        out.push(tok);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn response_files() {
        let dir = tempfile::tempdir().unwrap();
        let rsp = dir.path().join("args.rsp");
        std::fs::write(&rsp, "-o 'a b' @missing\n").unwrap();
        let e = expand(words(&[&format!("@{}", rsp.display())]));
        assert!(e.error.is_none());
        assert_eq!(e.words, ["-o", "a b", "@missing"]);
        std::fs::write(&rsp, format!("-x @{}", rsp.display())).unwrap();
        let e = expand(words(&["-v", &format!("@{}", rsp.display())]));
        assert_eq!(
            e.error.unwrap().to_string(),
            format!("recursive expansion of: '{}'", rsp.display())
        );
        // What was expanded so far stays, the failing argument too.
        assert_eq!(e.words, ["-v", "-x", &format!("@{}", rsp.display())]);
        let e = expand(words(&[&format!("@{}", dir.path().display()), "--version"]));
        assert_eq!(
            e.error.unwrap().to_string(),
            format!(
                "cannot not open file '{}': Is a directory",
                dir.path().display()
            )
        );
    }

    #[test]
    fn gnu_tokens() {
        assert_eq!(
            tokenize_gnu("a 'b c' \"d\\\"e\" f\\ g\n"),
            ["a", "b c", "d\"e", "f g"]
        );
    }
}
