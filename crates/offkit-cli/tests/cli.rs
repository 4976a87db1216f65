//! Golden tests of the `offkit` command line: each `tests/cli/<name>.test` file is one test.
//!
//! A `.test` file is a script of header lines, run top to bottom in a fresh temporary directory
//! (`%tmp`, also the working directory). Lines that start with `#` and one of these directives
//! are commands; every other line is a comment:
//!
//! ```text
//! # SH: <bash command>          run `bash -c` (fixtures: clang-19, printf, head, dd …); must exit 0.
//!                               PATH starts with LLVM 19's bin/, so `clang` is clang 19.
//! # RUN: <offkit args>          run offkit; must exit 0; output not compared
//! # RUN[label]: <offkit args>   must exit 0; stdout compared with `<name>.test.label.stdout`,
//!                               and stderr, when there is any, with `<name>.test.label.stderr`
//!                               (`link --dry-run`/`--explain` print there, as LLVM does)
//! # FAIL: <offkit args>         must exit 1 or 2
//! # FAIL[label]: <offkit args>  must exit 1 or 2; stderr compared with `<name>.test.label.stderr`,
//!                               and stdout, when there is any, with `<name>.test.label.stdout`
//!                               (commands that go on past a bad input print the good ones)
//! ```
//!
//! offkit arguments are split at whitespace (no quoting). Substitutions, in commands and in
//! arguments: `%tmp` the temporary directory, `%dir` the `tests/cli` directory, `%offkit` the
//! offkit binary, `%llvm` LLVM 19's `bin/` (`$OFFKIT_LLVM_ROOT/bin`,
//! by default `/usr/lib/llvm-19/bin`). In compared output the temporary directory and
//! `tests/cli` directory are written back as `%tmp` and `%dir`. A panic (exit 101) always fails.
//!
//! `BLESS=1 cargo test -p offkit-cli --test cli` rewrites the expected files from the actual
//! output; review the diff before committing. Fixtures come from offkit's own writers, from
//! clang-19 through `SH`, or from earlier lines; checked-in binaries stay under 64 KiB.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};
use offkit_tools::Env;

/// LLVM 19's `bin/` (`$OFFKIT_LLVM_ROOT/bin`, by default `/usr/lib/llvm-19/bin`).
fn llvm_bin() -> String {
    offkit_testutil::llvm_bin().display().to_string()
}

fn cli_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("cli")
}

/// One directive line.
#[derive(Debug)]
enum Directive {
    Sh(String),
    Run { label: Option<String>, args: String },
    Fail { label: Option<String>, args: String },
}

fn parse(text: &str) -> Result<Vec<Directive>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        let Some((head, body)) = rest.split_once(':') else {
            continue;
        };
        let body = body.trim().to_string();
        let (name, label) = match head.split_once('[') {
            Some((name, l)) => match l.strip_suffix(']') {
                Some(l) if !l.is_empty() => (name, Some(l.to_string())),
                _ => return Err(format!("line {}: bad label in `{head}`", n + 1)),
            },
            None => (head, None),
        };
        out.push(match (name, label) {
            ("SH", None) => Directive::Sh(body),
            ("RUN", label) => Directive::Run { label, args: body },
            ("FAIL", label) => Directive::Fail { label, args: body },
            ("SH", Some(_)) => return Err(format!("line {}: SH takes no label", n + 1)),
            _ => continue,
        });
    }
    if out.is_empty() {
        return Err("no RUN, FAIL or SH lines".into());
    }
    Ok(out)
}

struct Ctx {
    tmp: PathBuf,
    bless: bool,
    test: PathBuf,
}

impl Ctx {
    fn subst(&self, s: &str) -> String {
        s.replace("%tmp", &self.tmp.display().to_string())
            .replace("%dir", &cli_dir().display().to_string())
            .replace("%offkit", env!("CARGO_BIN_EXE_offkit"))
            .replace("%llvm", &llvm_bin())
    }

    fn normalize(&self, s: &[u8]) -> String {
        String::from_utf8_lossy(s)
            .replace(&self.tmp.display().to_string(), "%tmp")
            .replace(&cli_dir().display().to_string(), "%dir")
    }

    fn compare(&self, label: &str, stream: &str, actual: &str) -> Result<(), Failed> {
        let name = self.test.file_name().unwrap_or_default().to_string_lossy();
        let expected_path = cli_dir().join(format!("{name}.{label}.{stream}"));
        if self.bless {
            std::fs::write(&expected_path, actual)
                .map_err(|e| format!("cannot write {}: {e}", expected_path.display()))?;
            return Ok(());
        }
        let expected = std::fs::read_to_string(&expected_path).map_err(|e| {
            format!(
                "cannot read {} ({e}); run with BLESS=1 to create it. Actual {stream}:\n{actual}",
                expected_path.display()
            )
        })?;
        if expected != actual {
            return Err(format!(
                "{stream} of [{label}] differs from {}\n--- expected\n{expected}\n--- actual\n{actual}",
                expected_path.display()
            )
            .into());
        }
        Ok(())
    }

    /// [`Ctx::compare`] when there is output, or an expected file to compare it with.
    fn compare_if_any(&self, label: &str, stream: &str, actual: &str) -> Result<(), Failed> {
        let name = self.test.file_name().unwrap_or_default().to_string_lossy();
        let expected = cli_dir().join(format!("{name}.{label}.{stream}"));
        if actual.is_empty() && !expected.exists() {
            return Ok(());
        }
        self.compare(label, stream, actual)
    }

    fn offkit(&self, args: &str) -> Result<std::process::Output, Failed> {
        let args: Vec<String> = args.split_whitespace().map(|a| self.subst(a)).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_offkit"))
            .args(&args)
            .current_dir(&self.tmp)
            .output()
            .map_err(|e| format!("cannot run offkit: {e}"))?;
        if out.status.code() == Some(101)
            || String::from_utf8_lossy(&out.stderr).contains("panicked")
        {
            return Err(format!(
                "offkit {} panicked:\n{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(out)
    }
}

fn run_test(path: &Path, bless: bool) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let directives = parse(&text)?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    // Canonical, so that paths the tools print match the one substituted.
    let tmp_path = tmp.path().canonicalize().map_err(|e| e.to_string())?;
    let ctx = Ctx {
        tmp: tmp_path,
        bless,
        test: path.to_path_buf(),
    };
    let env = Env::capture();
    let llvm_bin = llvm_bin();
    let path_var = match env.get_os("PATH") {
        Some(p) => format!("{llvm_bin}:{}", p.to_string_lossy()),
        None => llvm_bin.clone(),
    };
    for d in &directives {
        match d {
            Directive::Sh(cmd) => {
                let cmd = ctx.subst(cmd);
                let out = Command::new("bash")
                    .arg("-c")
                    .arg(&cmd)
                    .current_dir(&ctx.tmp)
                    .env("PATH", &path_var)
                    .output()
                    .map_err(|e| format!("cannot run bash: {e}"))?;
                if !out.status.success() {
                    return Err(format!(
                        "SH `{cmd}` failed ({}):\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    )
                    .into());
                }
            }
            Directive::Run { label, args } => {
                let out = ctx.offkit(args)?;
                if !out.status.success() {
                    return Err(format!(
                        "RUN `offkit {args}` exited with {}:\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    )
                    .into());
                }
                if let Some(l) = label {
                    ctx.compare(l, "stdout", &ctx.normalize(&out.stdout))?;
                    ctx.compare_if_any(l, "stderr", &ctx.normalize(&out.stderr))?;
                }
            }
            Directive::Fail { label, args } => {
                let out = ctx.offkit(args)?;
                if !matches!(out.status.code(), Some(1 | 2)) {
                    return Err(format!(
                        "FAIL `offkit {args}` exited with {} (expected 1 or 2)\nstdout:\n{}\nstderr:\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    )
                    .into());
                }
                if let Some(l) = label {
                    ctx.compare(l, "stderr", &ctx.normalize(&out.stderr))?;
                    ctx.compare_if_any(l, "stdout", &ctx.normalize(&out.stdout))?;
                }
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let bless = Env::capture().get("BLESS").is_some_and(|v| v == "1");
    let mut files: Vec<PathBuf> = std::fs::read_dir(cli_dir())
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "test"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let trials = files
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Trial::test(name, move || run_test(&p, bless))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
