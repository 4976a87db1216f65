//! LLVM's `llvm::opt::OptTable` command-line rules, for any option table (LLVM 19.1.7's
//! `OptTable::internalParseOneArg` and `Arg::render`, checked against the installed tools).
//!
//! This module is self-contained: it knows nothing of the linker wrapper. A tool supplies a
//! table of [`Spec`] rows over its own option type `O` and gets its command line back as
//! [`Arg`]s, in order.
//!
//! - Matching: of the rows whose prefixed name starts the argument, the longest name is tried
//!   first; a [`Kind::Flag`] must be the whole argument, a [`Kind::Separate`] option must be the
//!   whole argument and takes the next one as its value (even an empty or dash-led one), a
//!   [`Kind::Joined`] option takes the rest, a [`Kind::JoinedOrSeparate`] one either.
//! - An argument that is not an option (`-` alone, or not starting with `-` or `/`) is an
//!   *input*; an argument starting with `/` that matches nothing is an input too; anything else
//!   that matches nothing is *unknown*. `--` is not special (no `DashDashParsing`): it and what
//!   follows are matched like any argument.
//! - Empty arguments are skipped (an option may still take one as its value).
//! - Rendering: joined-or-separate and separate options render as two words (`-lomp` →
//!   `-l omp`), joined ones as one, and an alias renders as the canonical row of its option
//!   (`--output=x` → `-o x`).

/// How an option takes its value (`llvm::opt::Option::OptionClass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// No value; the argument must be exactly the option.
    Flag,
    /// The value is the rest of the argument.
    Joined,
    /// The option is the whole argument; the value is the next one.
    Separate,
    /// Joined if anything follows the name, else separate.
    JoinedOrSeparate,
}

/// One row of an option table.
#[derive(Debug, Clone, Copy)]
pub struct Spec<O: 'static> {
    /// The option this row spells.
    pub opt: O,
    /// Its prefixes (`--`, `-`, `/`, …); the first one is used to render it.
    pub prefixes: &'static [&'static str],
    /// Its name after the prefix, with a trailing `=` or `:` for joined options.
    pub name: &'static str,
    /// How it takes its value.
    pub kind: Kind,
    /// Whether this row is an alias; it then renders as the canonical row of `opt`.
    pub alias: bool,
}

impl<O> Spec<O> {
    /// A canonical row.
    pub const fn new(
        opt: O,
        prefixes: &'static [&'static str],
        name: &'static str,
        kind: Kind,
    ) -> Self {
        Spec {
            opt,
            prefixes,
            name,
            kind,
            alias: false,
        }
    }

    /// An alias row.
    pub const fn alias(
        opt: O,
        prefixes: &'static [&'static str],
        name: &'static str,
        kind: Kind,
    ) -> Self {
        Spec {
            opt,
            prefixes,
            name,
            kind,
            alias: true,
        }
    }

    fn spelling(&self) -> String {
        format!(
            "{}{}",
            self.prefixes.first().copied().unwrap_or(""),
            self.name
        )
    }
}

/// One parsed argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg<O> {
    /// The option (aliases folded), or the table's input / unknown class.
    pub opt: O,
    /// The option as spelled (an alias: the spelling of the option it aliases); for inputs and
    /// unknown options, the argument itself.
    pub spelling: String,
    /// The value, for options that take one.
    pub value: Option<String>,
    /// How the option renders.
    kind: Kind,
}

impl<O> Arg<O> {
    /// The value, or `""`.
    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }

    /// The argument as `Arg::render` gives it back: one or two words.
    pub fn render(&self) -> Vec<String> {
        match self.kind {
            Kind::Flag => vec![self.spelling.clone()],
            Kind::Joined => vec![format!("{}{}", self.spelling, self.value())],
            Kind::Separate | Kind::JoinedOrSeparate => {
                vec![self.spelling.clone(), self.value().to_string()]
            }
        }
    }
}

/// A command line that `OptTable::parseArgs` rejects: the crate's one error type
/// ([`crate::Error::MissingArgument`]).
pub use crate::Error as ParseError;

/// An option table: its rows, and the option values that stand for inputs and unknown options.
#[derive(Debug, Clone, Copy)]
pub struct Table<O: 'static> {
    specs: &'static [Spec<O>],
    input: O,
    unknown: O,
}

impl<O: Copy + PartialEq> Table<O> {
    /// A table of `specs`; the first non-alias row of each option is its canonical spelling.
    pub const fn new(specs: &'static [Spec<O>], input: O, unknown: O) -> Self {
        Table {
            specs,
            input,
            unknown,
        }
    }

    fn canonical(&self, opt: O) -> Option<&'static Spec<O>> {
        self.specs.iter().find(|s| s.opt == opt && !s.alias)
    }

    /// `opt` with `value`, spelled canonically, as if it had been on the command line.
    #[cfg(test)]
    pub(crate) fn synthesized(&self, opt: O, value: &str) -> Arg<O> {
        let (spelling, kind) = self
            .canonical(opt)
            .map_or((String::new(), Kind::Joined), |s| (s.spelling(), s.kind));
        Arg {
            opt,
            spelling,
            value: Some(value.to_string()),
            kind,
        }
    }

    fn plain(&self, opt: O, s: &str) -> Arg<O> {
        Arg {
            opt,
            spelling: s.to_string(),
            value: None,
            kind: Kind::Flag,
        }
    }

    /// Parses `args` (without `argv[0]`; response files already expanded), in order.
    pub fn parse(&self, args: &[String]) -> Result<Vec<Arg<O>>, ParseError> {
        let mut out = Vec::with_capacity(args.len());
        let mut i = 0;
        while let Some(s) = args.get(i) {
            if s.is_empty() {
                i += 1;
                continue;
            }
            if s == "-" || !(s.starts_with('-') || s.starts_with('/')) {
                out.push(self.plain(self.input, s));
                i += 1;
                continue;
            }
            match self.match_one(args, i)? {
                Some((arg, used)) => {
                    out.push(arg);
                    i += used;
                }
                None => {
                    let opt = if s.starts_with('/') {
                        self.input
                    } else {
                        self.unknown
                    };
                    out.push(self.plain(opt, s));
                    i += 1;
                }
            }
        }
        Ok(out)
    }

    /// The option `args[i]` is, with how many words it uses; `None` when no row matches.
    fn match_one(&self, args: &[String], i: usize) -> Result<Option<(Arg<O>, usize)>, ParseError> {
        let Some(s) = args.get(i) else {
            return Ok(None);
        };
        // Candidates: every row whose prefixed name starts the argument (with the first prefix
        // that matches), longest name first, as the sorted table is scanned.
        let mut cands: Vec<(&Spec<O>, usize)> = self
            .specs
            .iter()
            .filter_map(|sp| {
                sp.prefixes
                    .iter()
                    .find(|p| {
                        s.strip_prefix(**p)
                            .is_some_and(|rest| rest.starts_with(sp.name))
                    })
                    .map(|p| (sp, p.len() + sp.name.len()))
            })
            .collect();
        cands.sort_by_key(|(sp, _)| std::cmp::Reverse(sp.name.len()));
        for (sp, len) in cands {
            let (Some(head), Some(rest)) = (s.get(..len), s.get(len..)) else {
                continue;
            };
            let (spelling, kind) = match (sp.alias, self.canonical(sp.opt)) {
                (true, Some(c)) => (c.spelling(), c.kind),
                _ => (head.to_string(), sp.kind),
            };
            let next = || {
                args.get(i + 1)
                    .cloned()
                    .ok_or_else(|| ParseError::MissingArgument(s.clone()))
            };
            let (value, used) = match sp.kind {
                Kind::Flag if rest.is_empty() => (None, 1),
                Kind::Flag | Kind::Separate if !rest.is_empty() => continue,
                Kind::Joined => (Some(rest.to_string()), 1),
                Kind::JoinedOrSeparate if !rest.is_empty() => (Some(rest.to_string()), 1),
                _ => (Some(next()?), 2),
            };
            let arg = Arg {
                opt: sp.opt,
                spelling,
                value,
                kind,
            };
            return Ok(Some((arg, used)));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum T {
        Input,
        Unknown,
        Out,
        Flag,
        Long,
    }

    const SPECS: &[Spec<T>] = &[
        Spec::new(T::Out, &["-"], "o", Kind::JoinedOrSeparate),
        Spec::alias(T::Out, &["--"], "out=", Kind::Joined),
        Spec::new(T::Flag, &["--", "-"], "f", Kind::Flag),
        Spec::new(T::Long, &["--"], "ff=", Kind::Joined),
    ];
    const TABLE: Table<T> = Table::new(SPECS, T::Input, T::Unknown);

    fn parse(s: &str) -> Vec<(T, String)> {
        let w: Vec<String> = s.split_whitespace().map(String::from).collect();
        TABLE
            .parse(&w)
            .unwrap()
            .iter()
            .map(|a| (a.opt, a.render().join(" ")))
            .collect()
    }

    #[test]
    fn longest_name_first_aliases_render_canonically() {
        assert_eq!(
            parse("--ff=1 -f --f -fx --out=a -ob -o c x /y /o -"),
            [
                (T::Long, "--ff=1".into()),
                (T::Flag, "-f".into()),
                (T::Flag, "--f".into()),
                (T::Unknown, "-fx".into()),
                (T::Out, "-o a".into()),
                (T::Out, "-o b".into()),
                (T::Out, "-o c".into()),
                (T::Input, "x".into()),
                (T::Input, "/y".into()),
                (T::Input, "/o".into()),
                (T::Input, "-".into()),
            ]
        );
        assert!(matches!(
            TABLE.parse(&["-o".into()]),
            Err(ParseError::MissingArgument(o)) if o == "-o"
        ));
        assert_eq!(TABLE.synthesized(T::Long, "v").render(), ["--ff=v"]);
    }
}
