//! The drop-in `llvm-offload-wrapper` (LLVM 22's `llvm/tools/llvm-offload-wrapper`).
//!
//! The tool reads one or more images (`-` is standard input), builds the registration module
//! of `--kind=openmp|cuda|hip` for `--triple` (default: Debian's `x86_64-pc-linux-gnu`) with
//! each image embedded *as given* — an OpenMP image is not put in an offload binary (when it is
//! one, its first entry's image is what the runtime gets), a HIP image is not bundled, nothing
//! is checked or reordered — and writes the module as **bitcode** to `-o` (which `-` does not
//! make standard output: it is a file named `-`).
//!
//! offkit writes the module as LLVM IR text (`offkit_wrap`, with
//! [`WrapOptions::as_given`]; the same text `clang-linker-wrapper --print-wrapped-module`
//! prints) and has LLVM 22's `llvm-as` assemble it with `--preserve-bc-uselistorder=false`,
//! which gives the very bytes of the tool's `WriteBitcodeToFile` (neither writes a symbol
//! table: no target is registered in either). `llvm-as` is found as offkit finds LLVM's tools
//! — `OFFKIT_LLVM_AS`, beside `argv[0]` and the executable, `/usr/lib/llvm-22/bin`, then
//! `llvm-as-22` and `llvm-as` on `PATH` — and must be LLVM 22's (its `--version` is read):
//! another release writes other bytes.
//!
//! The command line is `cl`'s, as in the other faces. Departures, as STYLE.md allows: LLVM's
//! own library options (`--stats`, …) are unknown, an offload binary
//! whose header points past its end is an error (LLVM reads out of bounds), and no failure
//! leaves a partial output.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, MappedFile, ToolInvocation};
use offkit_wrap::{Image, Kind, WrapOptions, Wrapper};

use super::cl::{self, Reporter, Spec, Text};
use super::error::{Error, Result};

/// The tool's options (`cl::HideUnrelatedOptions` leaves only its category and the generic
/// ones visible; its `-h` and libLLVM's `-W` are then really hidden, but accepted).
const SPECS: &[Spec] = &[
    Spec::flag("h").really_hidden(),
    Spec::flag("W").really_hidden(),
    Spec::value("kind"),
    Spec::value("o"),
    Spec::value("triple"),
    Spec::immediate("help"),
    Spec::immediate("help-hidden"),
    Spec::immediate("help-list"),
    Spec::immediate("help-list-hidden"),
    Spec::immediate("version"),
    Spec::flag("print-options"),
    Spec::flag("print-all-options"),
];

/// The order in which LLVM 22's "Did you mean" meets the visible options: the iteration order
/// of the global option `StringMap` (8192 buckets once libLLVM's options are in), confirmed on
/// the real tool (`--keld` gives `--help`, `--pple` gives `--help`).
const SUGGEST_ORDER: &[&str] = &[
    "help-list",
    "o",
    "help",
    "help-list-hidden",
    "help-hidden",
    "triple",
    "print-all-options",
    "version",
    "kind",
    "print-options",
];

/// The tool: `--kind` required (`cl::Required`), one or more inputs (`cl::OneOrMore`).
const TOOL: cl::Tool<cl::Cl> = cl::Tool {
    name: "llvm-offload-wrapper",
    help: cl::Help {
        help: include_str!("offload_wrapper/help.txt"),
        hidden: include_str!("offload_wrapper/help-hidden.txt"),
        list: include_str!("offload_wrapper/help-list.txt"),
        list_hidden: include_str!("offload_wrapper/help-list-hidden.txt"),
        usage_as_invoked: true,
    },
    parser: cl::Cl {
        config: cl::Config {
            max_positionals: None,
            min_positionals: 1,
            required: &["kind"],
            suggest_order: SUGGEST_ORDER,
            ..cl::Config::new(SPECS)
        },
    },
};

/// The `--kind` values (`cl::values`).
const KINDS: [(&str, Kind); 3] = [
    ("openmp", Kind::OpenMp),
    ("cuda", Kind::Cuda),
    ("hip", Kind::Hip),
];

/// `sys::getDefaultTargetTriple()` of Debian's LLVM 22 on this machine's architecture.
const DEFAULT_TRIPLE: &str = if cfg!(target_arch = "aarch64") {
    "aarch64-unknown-linux-gnu"
} else {
    "x86_64-pc-linux-gnu"
};

/// What LLVM 22's `cl` tools print for `--version`.
fn version_text(llvm: LlvmVersion) -> String {
    format!(
        "Debian LLVM version {}\n  Optimized build.\n",
        llvm.release()
    )
}

/// Runs the tool with its full argument vector.
///
/// The driver is `cl::Tool::main`'s, but for the version text, which LLVM 22's tools built on
/// `cl` alone print in LLVM's words (`Debian LLVM version 22.1.8`), and `--kind`'s value list.
pub fn main(face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| TOOL.name.to_string());
    let report = Reporter::new(&argv0, env);
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let expanded = cl::response::expand(words);
    if let Some(e) = &expanded.error {
        report.raw(&format!("{e}\n"));
    }
    let parsed = if expanded.error.is_some() {
        // `ParseCommandLineOptions` returns before parsing anything: every option keeps its
        // default (no kind, no input).
        cl::Parsed {
            prog: cl::options::program_name(&argv0),
            argv0: argv0.clone(),
            ..cl::Parsed::default()
        }
    } else {
        let mut p = cl::options::parse(&argv0, &expanded.words, &TOOL.parser.config);
        check_kinds(&mut p, &expanded.words);
        report.raw(&p.errors);
        let show = match p.immediate {
            Some("help-hidden") => Some(Text::HelpHidden),
            Some("help-list") => Some(Text::HelpList),
            Some("help-list-hidden") => Some(Text::HelpListHidden),
            Some("version") => Some(Text::Version),
            Some(_) => Some(Text::Help),
            None if p.failed() => return ExitCode::from(1),
            // The tool's `-h`: `cl::PrintHelpMessage()`, once the line parses.
            None => (p.flag("h") == Some(true)).then_some(Text::HelpList),
        };
        if let Some(text) = show {
            return print_text(text, face.version, &argv0);
        }
        p
    };
    let Some(kind) = parsed
        .last("kind")
        .and_then(|v| KINDS.iter().find(|(k, _)| *k == v))
        .map(|(_, k)| *k)
    else {
        // After a response-file error `cl` parsed nothing and the tool runs with no kind:
        // `OFK_None` is not a kind it wraps.
        report.error("none wrapping is not supported");
        return ExitCode::from(1);
    };
    let request = Request {
        kind,
        triple: parsed.last("triple").unwrap_or(DEFAULT_TRIPLE),
        output: parsed.last("o").unwrap_or(""),
        inputs: &parsed.positionals,
        argv0: &argv0,
        llvm: face.version,
    };
    match run(&request, env) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Reported) => ExitCode::from(1),
        Err(e) => {
            report.error(&e.to_string());
            ExitCode::from(1)
        }
    }
}

/// Prints an immediate option's text on standard output; exit 0.
fn print_text(text: Text, llvm: LlvmVersion, argv0: &str) -> ExitCode {
    let shown = match text {
        Text::Version => version_text(llvm),
        t => TOOL.text(t, argv0),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(shown.as_bytes());
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// `cl::values` for `--kind`: each value is checked where it occurs, and a wrong one is
/// reported among the other diagnostics in command-line order (it still counts as given, so
/// `--kind` is not reported missing). The offkit parser knows no value lists, so the message
/// is put where the words before the occurrence end their diagnostics.
fn check_kinds(p: &mut cl::Parsed, words: &[String]) {
    let bad: Vec<(usize, String)> = p
        .occurrences
        .iter()
        .filter(|o| o.name == "kind")
        .map(|o| (o.position, o.value.clone().unwrap_or_default()))
        .filter(|(_, v)| !KINDS.iter().any(|(k, _)| k == v))
        .collect();
    // Diagnostics of the words before each occurrence, without the end-of-line checks.
    let prefix_config = cl::Config {
        min_positionals: 0,
        required: &[],
        ..TOOL.parser.config
    };
    for (position, value) in bad.into_iter().rev() {
        let before = words.get(..position.saturating_sub(1)).unwrap_or(words);
        let at = cl::options::parse(&p.argv0, before, &prefix_config)
            .errors
            .len()
            .min(p.errors.len());
        let msg = format!(
            "{}: for the --kind option: Cannot find option named '{value}'!\n",
            p.prog
        );
        p.errors.insert_str(at, &msg);
    }
}

/// One run of the tool.
struct Request<'a> {
    kind: Kind,
    triple: &'a str,
    output: &'a str,
    inputs: &'a [String],
    argv0: &'a str,
    llvm: LlvmVersion,
}

fn run(r: &Request<'_>, env: &Env) -> Result {
    let mut maps = Vec::with_capacity(r.inputs.len());
    for f in r.inputs {
        let map = if f == "-" {
            MappedFile::stdin()
        } else {
            MappedFile::open_llvm(Path::new(f))
        };
        maps.push(map.map_err(|e| Error::file(f, e))?);
    }
    if maps.len() > 1 && r.kind != Kind::OpenMp {
        return Err(Error::msg(
            "CUDA / HIP offloading uses a single fatbinary or offload bundle",
        ));
    }
    // (Images embedded as given carry no triple or arch of their own.)
    let images: Vec<Image> = r
        .inputs
        .iter()
        .zip(&maps)
        .map(|(f, m)| Image::new(m, "", "").named(f))
        .collect();
    let opts = WrapOptions {
        llvm: r.llvm,
        as_given: true,
        ..WrapOptions::new(r.triple, r.kind)
    };
    let wrapper = Wrapper::new(&images, &opts)?;
    // `sys::fs::openFileForWrite(OutputFile)`: no `-` for standard output, and an error that
    // names no file. A file is written beside its destination and renamed into place.
    let os = |e: std::io::Error| Error::Os(e);
    if r.output.is_empty() {
        // ENOENT.
        return Err(os(std::io::Error::from_raw_os_error(2)));
    }
    let dest = if r.output == "-" {
        PathBuf::from("./-")
    } else {
        PathBuf::from(r.output)
    };
    let out = offkit_tools::fs::Output::create(&dest).map_err(os)?;
    let llvm_as = find_llvm_as(r.argv0, env, r.llvm)?;
    let scratch = tempfile::tempdir().map_err(Error::Os)?;
    let ll = scratch.path().join("offload.wrapper.module.ll");
    let mut text =
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&ll).map_err(Error::Os)?);
    wrapper.write_llvm_ir(&mut text)?;
    text.flush().map_err(Error::Os)?;
    drop(text);
    let bc = scratch.path().join("offload.wrapper.module.bc");
    ToolInvocation::new(llvm_as)
        .arg("--preserve-bc-uselistorder=false")
        .arg("-o")
        .arg(&bc)
        .arg(&ll)
        .run()?;
    let mut bytes = std::fs::read(&bc).map_err(Error::Os)?;
    wrapper.bitcode_as_llvm_writes(&mut bytes)?;
    let mut out = out;
    out.write_all(&bytes).map_err(os)?;
    out.commit().map_err(os)
}

/// LLVM `llvm`'s `llvm-as`: `OFFKIT_LLVM_AS`, beside `argv0` and the executable, the release's
/// Debian `bin`, `llvm-as-<major>` and `llvm-as` on `PATH`; the first that is LLVM `llvm`'s
/// (by its `--version`) is taken.
fn find_llvm_as(argv0: &str, env: &Env, llvm: LlvmVersion) -> Result<PathBuf> {
    let major = llvm.major();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = env.get_os("OFFKIT_LLVM_AS").filter(|p| !p.is_empty()) {
        candidates.push(PathBuf::from(p));
    }
    let argv0 = Path::new(argv0);
    if argv0.components().count() > 1 {
        candidates.extend(argv0.parent().map(|d| d.join("llvm-as")));
    }
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(exe.parent().map(|d| d.join("llvm-as")));
    }
    candidates.push(Path::new(llvm.debian_prefix()).join("bin/llvm-as"));
    let path = env.get_os("PATH").cloned().unwrap_or_default();
    for name in [format!("llvm-as-{major}"), "llvm-as".to_string()] {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join(&name)));
    }
    let mut others = Vec::new();
    for c in candidates.iter().filter(|c| c.is_file()) {
        let Ok(out) = ToolInvocation::new(c).arg("--version").run() else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains(&format!("LLVM version {}", llvm.release())) {
            return Ok(c.clone());
        }
        others.push(c.display().to_string());
    }
    let found = if others.is_empty() {
        String::new()
    } else {
        format!(" (found only other releases' at {})", others.join(", "))
    };
    Err(Error::msg(format!(
        "offkit writes the bitcode with LLVM {}'s llvm-as, which is not installed{found}: \
         install it (Debian: llvm-{major}) or set OFFKIT_LLVM_AS",
        llvm.release()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_text_is_llvm22s() {
        assert_eq!(
            version_text(LlvmVersion::V22),
            "Debian LLVM version 22.1.8\n  Optimized build.\n"
        );
    }

    #[test]
    fn kinds_are_cls_values() {
        assert_eq!(KINDS.map(|(k, _)| k), ["openmp", "cuda", "hip"]);
    }
}
