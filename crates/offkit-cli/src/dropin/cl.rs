//! LLVM's `cl` command-line parser, as the LLVM 19 tools built on it parse (`CommandLine.cpp`).
//!
//! The rules reproduced here: `@file` response files (GNU tokenization; a missing file leaves the
//! argument as is); one or two leading dashes; `-name=value`, or `-name value` for options that
//! require a value; boolean flags take only `=value` (`true/TRUE/True/1/false/FALSE/False/0`);
//! `--` ends the options; `-` alone is positional; unknown options and stray positionals print
//! `<prog>: Unknown command line argument '<arg>'.  Try: '<argv0> --help'` and possibly
//! `<prog>: Did you mean '--<name>'?`; every problem is reported and parsing goes on, then the
//! tool exits 1. Options that act at once (`--help`, `--version`) stop parsing where they occur.
//!
//! Each tool supplies its option table and its own help text (captured from LLVM 19).

use std::ffi::OsString;
use std::path::Path;

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A boolean (`cl::opt<bool>`): `-x` or `-x=<bool>`; a separate word is never its value.
    Flag,
    /// An option that requires a value: `-x=v` or `-x v`.
    Value,
    /// A flag that acts as soon as it is parsed (`--help`, `--version`): parsing stops there.
    Immediate,
}

/// One option of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The name without dashes (`type`, `o`, `help-hidden`).
    pub name: &'static str,
    /// How it takes a value.
    pub kind: Kind,
    /// `cl::CommaSeparated`: every value is split on `,` into several occurrences.
    pub comma_separated: bool,
    /// `cl::ReallyHidden`: never suggested by "Did you mean".
    pub really_hidden: bool,
}

impl Spec {
    /// A boolean flag.
    pub const fn flag(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Flag,
            comma_separated: false,
            really_hidden: false,
        }
    }

    /// An option that requires a value.
    pub const fn value(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Value,
            comma_separated: false,
            really_hidden: false,
        }
    }

    /// A comma-separated list option.
    pub const fn list(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Value,
            comma_separated: true,
            really_hidden: false,
        }
    }

    /// An option that acts at once.
    pub const fn immediate(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Immediate,
            comma_separated: false,
            really_hidden: false,
        }
    }

    /// The same option, never suggested.
    pub const fn really_hidden(mut self) -> Spec {
        self.really_hidden = true;
        self
    }
}

/// One occurrence of an option on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The option's name.
    pub name: &'static str,
    /// Its value: for flags, the text after `=` if any; for value options, the value.
    pub value: Option<String>,
    /// The index of the argument it came from (after response-file expansion).
    pub position: usize,
}

/// The result of parsing.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// The program name as `cl` prints it: the file name of `argv[0]`.
    pub prog: String,
    /// `argv[0]` as given.
    pub argv0: String,
    /// Every option occurrence, in order.
    pub occurrences: Vec<Occurrence>,
    /// The positional arguments, in order.
    pub positionals: Vec<String>,
    /// The immediate option that stopped parsing, if any.
    pub immediate: Option<&'static str>,
    /// The messages printed so far (each ends in `\n`); the tool writes them to stderr.
    pub errors: String,
}

impl Parsed {
    /// Whether parsing found a problem (the tool then prints `errors` and exits 1).
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All values of option `name`, in order.
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.occurrences
            .iter()
            .filter(|o| o.name == name)
            .map(|o| o.value.as_deref().unwrap_or(""))
            .collect()
    }

    /// The last value of `name` (scalar options: the last occurrence wins).
    pub fn last(&self, name: &str) -> Option<&str> {
        self.occurrences
            .iter()
            .rev()
            .find(|o| o.name == name)
            .map(|o| o.value.as_deref().unwrap_or(""))
    }

    /// How often `name` occurred.
    pub fn count(&self, name: &str) -> usize {
        self.occurrences.iter().filter(|o| o.name == name).count()
    }

    /// The value of boolean flag `name`: its last occurrence, `None` if absent. An invalid
    /// boolean was already reported as an error during parsing.
    pub fn flag(&self, name: &str) -> Option<bool> {
        self.last(name).map(|v| parse_bool(v).unwrap_or(true))
    }

    /// Records an error in `cl`'s `Option::error` form: `<prog>: for the --<name> option: <msg>`.
    pub fn option_error(&mut self, name: &str, msg: &str) {
        let dashes = if name.len() == 1 { "-" } else { "--" };
        self.errors.push_str(&format!(
            "{}: for the {dashes}{name} option: {msg}\n",
            self.prog
        ));
    }
}

/// `cl`'s boolean values.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "" | "true" | "TRUE" | "True" | "1" => Some(true),
        "false" | "FALSE" | "False" | "0" => Some(false),
        _ => None,
    }
}

/// `StringRef::getAsInteger(0, …)` for an unsigned value: `0x`/`0X` hex, `0b`/`0B` binary,
/// `0o` or a leading `0` octal, else decimal; the whole string must be digits of that radix.
pub fn parse_llvm_u64(s: &str) -> Option<u64> {
    let (radix, digits) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, r)
    } else if let Some(r) = s.strip_prefix("0o") {
        (8, r)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// `StringRef::getAsInteger(0, …)` for a signed value (an optional leading `-`).
pub fn parse_llvm_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => {
            let v = parse_llvm_u64(rest)?;
            if v <= i64::MAX as u64 + 1 {
                Some((v as i64).wrapping_neg())
            } else {
                None
            }
        }
        None => parse_llvm_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Parses `args` (with `args[0]` the program) against `specs`. `positional` says whether the
/// tool has positional arguments (otherwise a stray word is an unknown argument).
pub fn parse(args: &[OsString], specs: &[Spec], positional: bool) -> Parsed {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prog = Path::new(&argv0)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut p = Parsed {
        prog,
        argv0,
        ..Parsed::default()
    };
    let raw: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let argv = match expand_response_files(raw) {
        Ok(v) => v,
        Err(msg) => {
            p.errors.push_str(&msg);
            p.errors.push('\n');
            return p;
        }
    };
    let mut dash_dash = false;
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        let position = i + 1;
        if !arg.starts_with('-') || arg == "-" || dash_dash {
            if positional {
                p.positionals.push(arg.clone());
            } else {
                p.errors.push_str(&format!(
                    "{}: Unknown command line argument '{arg}'.  Try: '{} --help'\n",
                    p.prog, p.argv0
                ));
            }
            i += 1;
            continue;
        }
        if arg == "--" {
            dash_dash = true;
            i += 1;
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(spec) = (!name.is_empty())
            .then(|| specs.iter().find(|s| s.name == name))
            .flatten()
        else {
            p.errors.push_str(&format!(
                "{}: Unknown command line argument '{arg}'.  Try: '{} --help'\n",
                p.prog, p.argv0
            ));
            if let Some(near) = nearest(body, specs) {
                p.errors
                    .push_str(&format!("{}: Did you mean '{near}'?\n", p.prog));
            }
            i += 1;
            continue;
        };
        match spec.kind {
            Kind::Flag | Kind::Immediate => {
                if let Some(v) = &value {
                    if parse_bool(v).is_none() {
                        p.option_error(
                            spec.name,
                            &format!("'{v}' is invalid value for boolean argument! Try 0 or 1"),
                        );
                    }
                }
                let on = value.as_deref().is_none_or(|v| parse_bool(v) == Some(true));
                p.occurrences.push(Occurrence {
                    name: spec.name,
                    value,
                    position,
                });
                if spec.kind == Kind::Immediate && on {
                    p.immediate = Some(spec.name);
                    return p;
                }
            }
            Kind::Value => {
                let value = match value {
                    Some(v) => v,
                    None if i + 1 < argv.len() => {
                        i += 1;
                        argv[i].clone()
                    }
                    None => {
                        p.option_error(spec.name, "requires a value!");
                        i += 1;
                        continue;
                    }
                };
                let pieces: Vec<String> = if spec.comma_separated {
                    value.split(',').map(str::to_string).collect()
                } else {
                    vec![value]
                };
                for v in pieces {
                    p.occurrences.push(Occurrence {
                        name: spec.name,
                        value: Some(v),
                        position,
                    });
                }
            }
        }
        i += 1;
    }
    p
}

/// `LookupNearestOption`: the option name closest (Levenshtein) to what was typed, rendered
/// with its dashes (and `=value` when the option takes one). Ties go to the earlier spec.
fn nearest(body: &str, specs: &[Spec]) -> Option<String> {
    let (lhs, rhs) = match body.split_once('=') {
        Some((l, r)) => (l, Some(r)),
        None => (body, None),
    };
    let mut best: Option<(usize, String)> = None;
    for s in specs.iter().filter(|s| !s.really_hidden) {
        let permit_value = s.kind == Kind::Value || s.kind == Kind::Flag;
        let flag = if permit_value { lhs } else { body };
        let d = edit_distance(s.name, flag);
        if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            let dashes = if s.name.len() == 1 { "-" } else { "--" };
            let shown = match rhs {
                Some(r) if permit_value && !r.is_empty() => format!("{dashes}{}={r}", s.name),
                _ => format!("{dashes}{}", s.name),
            };
            best = Some((d, shown));
        }
    }
    best.map(|(_, s)| s)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Expands `@file` arguments (recursively; GNU tokenization). A file that does not exist
/// leaves the argument unexpanded, as LLVM does.
pub fn expand_response_files(mut argv: Vec<String>) -> Result<Vec<String>, String> {
    let mut i = 0;
    let mut expansions = 0usize;
    while i < argv.len() {
        let Some(name) = argv[i].strip_prefix('@') else {
            i += 1;
            continue;
        };
        let path = Path::new(name).to_path_buf();
        let Ok(bytes) = std::fs::read(&path) else {
            i += 1;
            continue;
        };
        expansions += 1;
        if expansions > 1000 {
            return Err(format!("recursive expansion of: '{}'", path.display()));
        }
        let text = String::from_utf8_lossy(&bytes);
        let tokens = tokenize_gnu(&text);
        argv.splice(i..=i, tokens);
    }
    Ok(argv)
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

    const SPECS: &[Spec] = &[
        Spec::value("type"),
        Spec::list("targets"),
        Spec::value("input"),
        Spec::flag("list"),
        Spec::value("o"),
        Spec::immediate("help"),
    ];

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn values_flags_and_lists() {
        let p = parse(
            &args(&[
                "/x/tool",
                "-type",
                "bc",
                "--targets=a,,b",
                "-input=x",
                "-o",
                "out",
                "--list=0",
            ]),
            SPECS,
            false,
        );
        assert!(!p.failed(), "{}", p.errors);
        assert_eq!(p.last("type"), Some("bc"));
        assert_eq!(p.values("targets"), ["a", "", "b"]);
        assert_eq!(p.flag("list"), Some(false));
        assert_eq!(p.last("o"), Some("out"));
        assert_eq!(p.prog, "tool");
    }

    #[test]
    fn errors_as_llvm_prints_them() {
        let p = parse(
            &args(&["tool", "-lst", "word", "--list=yes", "-type"]),
            SPECS,
            false,
        );
        assert_eq!(
            p.errors,
            "tool: Unknown command line argument '-lst'.  Try: 'tool --help'\n\
             tool: Did you mean '--list'?\n\
             tool: Unknown command line argument 'word'.  Try: 'tool --help'\n\
             tool: for the --list option: 'yes' is invalid value for boolean argument! Try 0 or 1\n\
             tool: for the --type option: requires a value!\n"
        );
    }

    #[test]
    fn immediate_stops() {
        let p = parse(&args(&["tool", "--help", "-bogus"]), SPECS, false);
        assert_eq!(p.immediate, Some("help"));
        assert!(!p.failed());
    }

    #[test]
    fn integers_with_radix() {
        assert_eq!(parse_llvm_u64("0x10"), Some(16));
        assert_eq!(parse_llvm_u64("010"), Some(8));
        assert_eq!(parse_llvm_u64("0b11"), Some(3));
        assert_eq!(parse_llvm_u64("0"), Some(0));
        assert_eq!(parse_llvm_u64("-1"), None);
        assert_eq!(parse_llvm_u64("12a"), None);
        assert_eq!(parse_llvm_i64("-0x10"), Some(-16));
    }

    #[test]
    fn gnu_tokens() {
        assert_eq!(
            tokenize_gnu("a 'b c' \"d\\\"e\" f\\ g\n"),
            ["a", "b c", "d\"e", "f g"]
        );
    }
}
