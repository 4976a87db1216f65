//! LLVM's `cl` command-line parser, as the LLVM 19 tools built on it parse (`CommandLine.cpp`).
//!
//! The rules reproduced here (response files are expanded before, by the tool's driver): one
//! or two leading dashes; `-name=value`, or `-name value` for options that
//! require a value; boolean flags take only `=value` (`true/TRUE/True/1/false/FALSE/False/0`);
//! `--` ends the options; `-` alone is positional; unknown options and stray positionals print
//! `<prog>: Unknown command line argument '<arg>'.  Try: '<argv0> --help'` and possibly
//! `<prog>: Did you mean '--<name>'?`; every problem is reported and parsing goes on, then the
//! tool exits 1. Options that act at once (`--help`, `--version`) stop parsing where they occur.
//! Typed values (`cl::opt<unsigned>`, `cl::opt<int>`) are checked where they occur; after the
//! arguments, too few positionals and then each missing `cl::Required` option are reported.

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

/// The type of an option's value, checked as `cl`'s parsers check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// `cl::opt<std::string>`: any text.
    String,
    /// `cl::opt<unsigned>`: a 32-bit unsigned integer in `getAsInteger`'s notations.
    Uint,
    /// `cl::opt<int>`: a 32-bit signed integer.
    Int,
    /// `cl::opt<Enum>` with `cl::values(...)`: one of these names.
    OneOf(&'static [&'static str]),
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
    /// The type of the value.
    pub ty: Type,
}

impl Spec {
    /// A boolean flag.
    pub const fn flag(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Flag,
            comma_separated: false,
            really_hidden: false,
            ty: Type::String,
        }
    }

    /// An option that requires a value.
    pub const fn value(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Value,
            comma_separated: false,
            really_hidden: false,
            ty: Type::String,
        }
    }

    /// A comma-separated list option.
    pub const fn list(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Value,
            comma_separated: true,
            really_hidden: false,
            ty: Type::String,
        }
    }

    /// An option that acts at once.
    pub const fn immediate(name: &'static str) -> Spec {
        Spec {
            name,
            kind: Kind::Immediate,
            comma_separated: false,
            really_hidden: false,
            ty: Type::String,
        }
    }

    /// An option whose value is a `cl::opt<unsigned>`.
    pub const fn uint(name: &'static str) -> Spec {
        Spec {
            ty: Type::Uint,
            ..Spec::value(name)
        }
    }

    /// An option whose value is a `cl::opt<int>`.
    pub const fn int(name: &'static str) -> Spec {
        Spec {
            ty: Type::Int,
            ..Spec::value(name)
        }
    }

    /// An option whose value is one of `values` (`cl::values`).
    pub const fn one_of(name: &'static str, values: &'static [&'static str]) -> Spec {
        Spec {
            ty: Type::OneOf(values),
            ..Spec::value(name)
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
    pub(crate) fn option_error(&mut self, name: &str, msg: &str) {
        let dashes = if name.len() == 1 { "-" } else { "--" };
        self.errors.push_str(&format!(
            "{}: for the {dashes}{name} option: {msg}\n",
            self.prog
        ));
    }
}

/// `cl`'s boolean values.
pub(crate) fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "" | "true" | "TRUE" | "True" | "1" => Some(true),
        "false" | "FALSE" | "False" | "0" => Some(false),
        _ => None,
    }
}

pub(crate) use crate::cl::integer::{parse_i64 as parse_llvm_i64, parse_u64 as parse_llvm_u64};

/// How a tool's command line is parsed, beyond its option table.
#[derive(Debug, Clone, Copy)]
pub struct Config<'a> {
    /// The options.
    pub specs: &'a [Spec],
    /// How many positional arguments the tool takes: `None` for any number, `Some(0)` when it
    /// has no positional option (a stray word is then an unknown argument), `Some(n)` for `n`
    /// optional positionals (`cl::opt<…> X(cl::Positional)`; more give "Too many positional
    /// arguments specified!").
    pub max_positionals: Option<usize>,
    /// How many positional arguments are required (`cl::OneOrMore`: 1).
    pub min_positionals: usize,
    /// The `cl::Required` options, in the order LLVM reports them missing.
    pub required: &'a [&'a str],
    /// The order in which "Did you mean" considers the options: LLVM walks its global
    /// `StringMap` of options, whose order depends on every option registered in the binary.
    /// Options not listed come after, in table order. Empty: table order.
    pub suggest_order: &'a [&'a str],
}

impl<'a> Config<'a> {
    /// A tool with options `specs` and no positional arguments, nothing required.
    pub const fn new(specs: &'a [Spec]) -> Config<'a> {
        Config {
            specs,
            max_positionals: Some(0),
            min_positionals: 0,
            required: &[],
            suggest_order: &[],
        }
    }
}

/// The file name of `argv[0]`, as `cl` calls the program in its messages.
pub fn program_name(argv0: &str) -> String {
    std::path::Path::new(argv0)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Parses the words of a command line (response files already expanded; `argv0` is the program
/// as invoked) as `cl::ParseCommandLineOptions` does.
pub fn parse(argv0: &str, argv: &[String], config: &Config<'_>) -> Parsed {
    let specs = config.specs;
    let mut p = Parsed {
        prog: program_name(argv0),
        argv0: argv0.to_string(),
        ..Parsed::default()
    };
    let accepts_positionals = config.max_positionals != Some(0);
    let mut dash_dash = false;
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        let position = i + 1;
        if !arg.starts_with('-') || arg == "-" || dash_dash {
            if accepts_positionals {
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
        let mut name = arg.strip_prefix("--").unwrap_or(&arg[1..]).to_string();
        let mut value: Option<String> = None;
        let mut handler = lookup(specs, &mut name, &mut value);
        if handler.is_none() {
            handler = grouped(specs, &mut name, &mut value, &mut p, position);
            if p.immediate.is_some() {
                return p;
            }
        }
        let Some(spec) = handler else {
            p.errors.push_str(&format!(
                "{}: Unknown command line argument '{arg}'.  Try: '{} --help'\n",
                p.prog, p.argv0
            ));
            if let Some(near) = nearest(&name, config) {
                p.errors
                    .push_str(&format!("{}: Did you mean '{near}'?\n", p.prog));
            }
            i += 1;
            continue;
        };
        provide(&mut p, spec, value, argv, &mut i, position);
        if p.immediate.is_some() {
            return p;
        }
        i += 1;
    }
    let needed = config.min_positionals;
    if p.positionals.len() < needed {
        p.errors.push_str(&format!(
            "{}: Not enough positional command line arguments specified!\nMust specify at least \
             {needed} positional argument{}: See: {} --help\n",
            p.prog,
            if needed > 1 { "s" } else { "" },
            p.argv0
        ));
    } else if let Some(max) = config.max_positionals.filter(|&m| m > 0) {
        if p.positionals.len() > max {
            p.errors.push_str(&format!(
                "{}: Too many positional arguments specified!\nCan specify at most {max} \
                 positional arguments: See: {} --help\n",
                p.prog, p.argv0
            ));
        }
    }
    for name in config.required {
        if p.count(name) == 0 {
            p.option_error(name, "must be specified at least once!");
        }
    }
    p
}

/// `LookupOption`: the option named `name`, or, when `name` has an `=`, the option named by
/// what precedes it (then `name` and `value` are split there).
fn lookup(specs: &[Spec], name: &mut String, value: &mut Option<String>) -> Option<Spec> {
    if name.is_empty() {
        return None;
    }
    match name.split_once('=') {
        None => specs.iter().find(|s| s.name == name.as_str()).copied(),
        Some((n, v)) => {
            let s = *specs.iter().find(|s| s.name == n)?;
            *value = Some(v.to_string());
            *name = n.to_string();
            Some(s)
        }
    }
}

/// `cl` gives every one-letter option the `Grouping` flag.
fn is_grouping(s: &Spec) -> bool {
    s.name.len() == 1
}

/// `getOptionPred` with `isGrouping`: the longest prefix of `name` (down to one character) that
/// names a grouping option.
fn grouping_prefix(specs: &[Spec], name: &str) -> Option<(Spec, usize)> {
    (1..=name.len()).rev().find_map(|len| {
        let prefix = name.get(..len)?;
        specs
            .iter()
            .find(|s| s.name == prefix && is_grouping(s))
            .map(|s| (*s, len))
    })
}

/// `HandlePrefixedOrGroupedOption`: `-abc` as `-a -b -c` for one-letter options, the last of
/// which may take a value (`-ho file`, `-o=file`). Options handled inside the group are
/// recorded here; an option that needs a value inside a group is an error.
fn grouped(
    specs: &[Spec],
    name: &mut String,
    value: &mut Option<String>,
    p: &mut Parsed,
    position: usize,
) -> Option<Spec> {
    if name.len() <= 1 {
        return None;
    }
    let (mut spec, mut len) = grouping_prefix(specs, name)?;
    loop {
        let rest = name.get(len..).unwrap_or_default().to_string();
        name.truncate(len);
        if rest.is_empty() {
            return Some(spec);
        }
        if let Some(v) = rest.strip_prefix('=') {
            *value = Some(v.to_string());
            return Some(spec);
        }
        if spec.kind == Kind::Value {
            p.option_error(spec.name, "may not occur within a group!");
            return None;
        }
        let mut dummy = 0;
        provide(p, spec, None, &[], &mut dummy, position);
        if p.immediate.is_some() {
            return None;
        }
        *name = rest;
        (spec, len) = grouping_prefix(specs, name)?;
    }
}

/// `ProvideOption`: checks the value against what the option expects and records it.
fn provide(
    p: &mut Parsed,
    spec: Spec,
    value: Option<String>,
    argv: &[String],
    i: &mut usize,
    position: usize,
) {
    match spec.kind {
        Kind::Value => {
            let value = match value {
                Some(v) => v,
                None if *i + 1 < argv.len() => {
                    *i += 1;
                    argv[*i].clone()
                }
                None => {
                    p.option_error(spec.name, "requires a value!");
                    return;
                }
            };
            if !value_fits(spec.ty, &value) {
                let msg = match spec.ty {
                    Type::OneOf(_) => format!("Cannot find option named '{value}'!"),
                    Type::Uint => format!("'{value}' value invalid for uint argument!"),
                    _ => format!("'{value}' value invalid for integer argument!"),
                };
                p.option_error(spec.name, &msg);
                return;
            }
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
        Kind::Flag => {
            if let Some(v) = &value {
                if parse_bool(v).is_none() {
                    p.option_error(
                        spec.name,
                        &format!("'{v}' is invalid value for boolean argument! Try 0 or 1"),
                    );
                    return;
                }
            }
            p.occurrences.push(Occurrence {
                name: spec.name,
                value,
                position,
            });
        }
        Kind::Immediate => {
            // `--help` and `--version` are `cl::ValueDisallowed`.
            if let Some(v) = &value {
                p.option_error(
                    spec.name,
                    &format!("does not allow a value! '{v}' specified."),
                );
                return;
            }
            p.occurrences.push(Occurrence {
                name: spec.name,
                value: None,
                position,
            });
            p.immediate = Some(spec.name);
        }
    }
}

/// Whether `value` parses as `cl`'s parser for `ty` parses it.
fn value_fits(ty: Type, value: &str) -> bool {
    match ty {
        Type::String => true,
        Type::Uint => parse_llvm_u64(value).is_some_and(|n| u32::try_from(n).is_ok()),
        Type::Int => parse_llvm_i64(value).is_some_and(|n| i32::try_from(n).is_ok()),
        Type::OneOf(names) => names.contains(&value),
    }
}

/// `LookupNearestOption`: the option closest (Levenshtein) to what was typed, rendered with its
/// dashes (and `=value` when the option takes one). Ties go to the option LLVM meets first.
fn nearest(body: &str, config: &Config<'_>) -> Option<String> {
    if body.is_empty() {
        return None;
    }
    let (lhs, rhs) = body.split_once('=').unwrap_or((body, ""));
    let listed = config
        .suggest_order
        .iter()
        .filter_map(|n| config.specs.iter().find(|s| s.name == *n));
    let rest = config
        .specs
        .iter()
        .filter(|s| !config.suggest_order.contains(&s.name));
    let mut best: Option<(usize, String)> = None;
    for s in listed.chain(rest).filter(|s| !s.really_hidden) {
        let permit_value = s.kind != Kind::Immediate;
        let flag = if permit_value { lhs } else { body };
        let d = edit_distance(s.name, flag);
        if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            let shown = if rhs.is_empty() || !permit_value {
                s.name.to_string()
            } else {
                format!("{}={rhs}", s.name)
            };
            best = Some((d, shown));
        }
    }
    // `PrintArg`: one dash for a one-character string, two otherwise (counting any `=value`).
    best.map(|(_, s)| {
        let dashes = if s.len() == 1 { "-" } else { "--" };
        format!("{dashes}{s}")
    })
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

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// `parse` with the program name first, as the tests write command lines.
    fn parse_simple(v: &[&str], specs: &[Spec]) -> Parsed {
        let v = args(v);
        parse(&v[0], &v[1..], &Config::new(specs))
    }

    #[test]
    fn values_flags_and_lists() {
        let p = parse_simple(
            &[
                "/x/tool",
                "-type",
                "bc",
                "--targets=a,,b",
                "-input=x",
                "-o",
                "out",
                "--list=0",
            ],
            SPECS,
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
        let p = parse_simple(&["tool", "-lst", "word", "--list=yes", "-type"], SPECS);
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
        let p = parse_simple(&["tool", "--help", "-bogus"], SPECS);
        assert_eq!(p.immediate, Some("help"));
        assert!(!p.failed());
    }

    const TOOL: &[Spec] = &[
        Spec::flag("h").really_hidden(),
        Spec::value("o"),
        Spec::value("image"),
        Spec::flag("archive"),
        Spec::immediate("help"),
        Spec::immediate("version"),
    ];

    fn tool(v: &[&str]) -> Parsed {
        let v = args(v);
        parse(
            &v[0],
            &v[1..],
            &Config {
                max_positionals: Some(1),
                suggest_order: &["o", "help", "version", "archive", "image"],
                ..Config::new(TOOL)
            },
        )
    }

    #[test]
    fn one_letter_options_group() {
        let p = tool(&["t", "-ho", "out"]);
        assert!(!p.failed(), "{}", p.errors);
        assert_eq!(p.flag("h"), Some(true));
        assert_eq!(p.last("o"), Some("out"));
        let p = tool(&["t", "-oh"]);
        assert_eq!(
            p.errors,
            "t: for the -o option: may not occur within a group!\n\
             t: Unknown command line argument '-oh'.  Try: 't --help'\n\
             t: Did you mean '-o'?\n"
        );
        let p = tool(&["t", "-hx"]);
        assert_eq!(p.flag("h"), Some(true));
        assert!(p.errors.contains("Unknown command line argument '-hx'"));
        assert_eq!(tool(&["t", "-o=x"]).last("o"), Some("x"));
    }

    #[test]
    fn immediates_take_no_value_and_positionals_are_counted() {
        let p = tool(&["t", "--help=0"]);
        assert_eq!(p.immediate, None);
        assert_eq!(
            p.errors,
            "t: for the --help option: does not allow a value! '0' specified.\n"
        );
        let p = tool(&["t", "a", "b"]);
        assert_eq!(
            p.errors,
            "t: Too many positional arguments specified!\nCan specify at most 1 positional \
             arguments: See: t --help\n"
        );
        assert!(!tool(&["t", "a"]).failed());
        // A suggestion keeps the typed value and counts it in the dashes.
        let p = tool(&["t", "--zz=5"]);
        assert!(
            p.errors.ends_with("t: Did you mean '--o=5'?\n"),
            "{}",
            p.errors
        );
    }

    #[test]
    fn typed_values_and_required_options() {
        const TYPED: &[Spec] = &[Spec::uint("align"), Spec::int("level"), Spec::value("type")];
        let v = args(&[
            "t",
            "--align=x",
            "-bogus",
            "--level=0x80000000",
            "--align=0x10",
        ]);
        let p = parse(
            &v[0],
            &v[1..],
            &Config {
                required: &["type"],
                max_positionals: None,
                min_positionals: 1,
                ..Config::new(TYPED)
            },
        );
        assert_eq!(
            p.errors,
            "t: for the --align option: 'x' value invalid for uint argument!\n\
             t: Unknown command line argument '-bogus'.  Try: 't --help'\n\
             t: Did you mean '--align'?\n\
             t: for the --level option: '0x80000000' value invalid for integer argument!\n\
             t: Not enough positional command line arguments specified!\n\
             Must specify at least 1 positional argument: See: t --help\n\
             t: for the --type option: must be specified at least once!\n"
        );
        assert_eq!(p.values("align"), ["0x10"]);
    }
}
