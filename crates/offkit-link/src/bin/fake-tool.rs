//! A stand-in for clang, ld, ld.lld, fatbinary and clang-offload-bundler in the linker
//! wrapper's pipeline tests (STYLE.md "Tests"): it logs its arguments to
//! `$FAKE_TOOL_LOG/<n>.args` (the name it was run as on the first line, then one argument a
//! line), writes a stub to its output (`-o <file>`, `-o<file>`, `-output=<file>` or
//! `--create <file>`), and fails with status 1 when an argument contains `$FAKE_TOOL_FAIL`.
//!
//! Run through a link `<dir>/bin/<tool>`, it also takes those two settings from the files
//! `<dir>/log` (a directory) and `<dir>/fail`, so that tests running in parallel in one process
//! need no environment variables.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let name = Path::new(&args[0])
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let vars: Vec<(String, String)> = std::env::vars().collect();
    let var = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let home = Path::new(&args[0]).parent().and_then(Path::parent);
    let log = var("FAKE_TOOL_LOG").or_else(|| {
        let d = home?.join("log");
        d.is_dir().then(|| d.to_string_lossy().into_owned())
    });
    let fail = var("FAKE_TOOL_FAIL")
        .or_else(|| std::fs::read_to_string(home?.join("fail")).ok())
        .map(|s| s.trim().to_string());
    if let Some(dir) = log {
        let mut text = format!("{name}\n");
        for a in &args[1..] {
            text.push_str(a);
            text.push('\n');
        }
        for n in 0.. {
            let p = PathBuf::from(&dir).join(format!("{n:03}.args"));
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&p)
            {
                let _ = f.write_all(text.as_bytes());
                break;
            }
        }
    }
    if let Some(bad) = fail.filter(|b| !b.is_empty()) {
        if args[1..].iter().any(|a| a.contains(&bad)) {
            eprintln!("{name}: failing on purpose (argument matches `{bad}`)");
            return ExitCode::from(1);
        }
    }
    let mut out = None;
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "-o" || a == "--create" {
            out = args.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = a.strip_prefix("-output=") {
            out = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("-o").filter(|v| !v.is_empty()) {
            out = Some(v.to_string());
        }
        i += 1;
    }
    if let Some(out) = out {
        let stub = format!("stub from {name}: {}\n", args[1..].join(" "));
        if std::fs::write(&out, stub).is_err() {
            eprintln!("{name}: cannot write {out}");
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
