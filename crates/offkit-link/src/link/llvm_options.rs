//! The options LLVM 19's wrapper hands to LLVM's own parser (`-mllvm`, `--offload-opt=`),
//! checked the way LLVM checks them.

use super::*;

/// LLVM 19 hands `-mllvm` values and `--offload-opt=` options to LLVM's own option parser,
/// which rejects unknown ones before anything else happens. offkit asks the same parser, in
/// `llc` (same LLVM, same code-generation flags), and reports its verdict as LLVM 19 does.
pub(super) fn check_llvm_options(link: &Link<'_>) -> Result<()> {
    let mut opts: Vec<String> = link.config.mllvm.clone();
    opts.extend(link.config.offload_opts.iter().cloned());
    check_llvm_options_of(link.env, link.argv0, link.config.llvm, &opts)
}

/// The check of [`check_llvm_options`] for any tool `argv0` of release `llvm` that hands `opts`
/// to LLVM's option parser (the linker wrapper, the nvlink wrapper).
pub(crate) fn check_llvm_options_of(
    env: &Env,
    argv0: Option<&Path>,
    llvm: LlvmVersion,
    opts: &[String],
) -> Result<()> {
    if opts.is_empty() {
        return Ok(());
    }
    let Ok(llc) = finder(env, argv0, llvm).find("llc", None) else {
        return Ok(());
    };
    let argv0 = argv0
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clang-linker-wrapper".into());
    // `--help` and its kin make LLVM's parser print the options it knows and exit 0: llc's
    // (the same libraries; the tool's own few options aside), under the tool's name.
    if let Some(i) = opts.iter().position(|o| {
        matches!(
            o.trim_start_matches('-'),
            "help" | "help-hidden" | "help-list" | "help-list-hidden"
        ) && o.starts_with('-')
    }) {
        let out = std::process::Command::new(&llc)
            .args(&opts[..=i])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|source| Error::Read {
                path: llc.clone(),
                source,
            })?;
        let text = String::from_utf8_lossy(&out.stdout)
            .replacen("OVERVIEW: llvm system compiler\n\n", "", 1)
            .replacen(
                "USAGE: llc [options] <input bitcode>",
                &format!("USAGE: {} [options]", program_name(&argv0)),
                1,
            );
        return Err(Error::LlvmHelp(text));
    }
    let prog = program_name(&argv0);
    // A word that is no option is a positional argument, which the wrapper has none of (llc
    // has one, its input): LLVM's parser calls it unknown. Such words are rare, so each word
    // is then checked on its own, in order.
    let positional = |o: &str| !o.starts_with('-') || o == "-";
    let text = if opts.iter().any(|o| positional(o)) {
        opts.iter()
            .map(|o| {
                if positional(o) {
                    format!("{prog}: Unknown command line argument '{o}'.  Try: '{argv0} --help'\n")
                } else {
                    llc_verdict(&llc, std::slice::from_ref(o), &prog, &argv0)
                }
            })
            .collect()
    } else {
        llc_verdict(&llc, opts, &prog, &argv0)
    };
    if text.is_empty() {
        Ok(())
    } else {
        Err(Error::LlvmOptions(text))
    }
}

/// What LLVM's option parser (llc's) says of `opts`, as the wrapper `argv0` would say it.
fn llc_verdict(llc: &Path, opts: &[String], prog: &str, argv0: &str) -> String {
    let Ok(out) = std::process::Command::new(llc)
        .args(opts)
        .args(["-o", "/dev/null", "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
    else {
        return String::new();
    };
    let llc_path = llc.to_string_lossy().into_owned();
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("llc: "))
        .filter(|l| {
            l.starts_with("Unknown command line argument")
                || l.starts_with("Did you mean")
                || l.starts_with("for the ")
                || l.starts_with("Too many positional")
        })
        .map(|l| {
            format!(
                "{prog}: {}\n",
                l.replace(
                    &format!("'{llc_path} --help'"),
                    &format!("'{argv0} --help'")
                )
            )
        })
        .collect()
}

/// The file name of `argv0`.
fn program_name(argv0: &str) -> String {
    Path::new(argv0)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}
