//! The drop-in `clang-offload-wrapper` (seed 002: AMD's ROCm/AOMP tool of the LLVM 15–16 era,
//! which LLVM 19 no longer ships).
//!
//! The command line is that tool's (`cl` options): `-target <triple>` (also `--target=`),
//! `-o <file>`, the input images as positional arguments, and `--requirements=<target-id>`
//! (older documentation: `--offload-arch=`; both fill one list, matched to the inputs by
//! position). It writes the seed-002 module (raw images, a `__tgt_image_info` and a string in
//! `.offload_arch_list` per image, a constructor that calls `__tgt_register_image_info` when the
//! runtime has it, then `__tgt_register_lib`, unregistration from `.fini_array`):
//!
//! * as a relocatable object written by offkit (any output name but `*.bc`; `-` is standard
//!   output), ready for the host link (the original tool's driver compiled its bitcode to this);
//! * as bitcode when the output name ends in `.bc`, like the original: offkit's IR assembled by
//!   `llvm-as` (found as offkit finds tools; a clear error when it is missing).
//!
//! Like the original, the images are not inspected (any bytes are embedded), inputs are read
//! with `-` meaning standard input, and a triple whose architecture LLVM does not know is
//! refused with `'<triple>': unsupported target triple`; offkit further needs an x86-64 or
//! AArch64 ELF host (the same message otherwise). Departures: more `--requirements` than inputs
//! is an error (the original mismatched them silently), no requirements at all gives every
//! image an empty target ID, and no failure leaves a partial output.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::triple::{Arch, Triple};
use offkit_tools::{Env, MappedFile, ToolFinder, ToolInvocation};
use offkit_wrap::{Image, Kind, Order, WrapOptions, Wrapper};

use super::cl::{self, os_message, Spec};

const SPECS: &[Spec] = &[
    Spec::flag("h").really_hidden(),
    Spec::value("o"),
    Spec::value("target"),
    Spec::value("requirements"),
    Spec::value("offload-arch"),
    Spec::immediate("help"),
    Spec::immediate("help-hidden"),
    Spec::immediate("help-list"),
    Spec::immediate("help-list-hidden"),
    Spec::immediate("version"),
    Spec::flag("print-options"),
    Spec::flag("print-all-options"),
];

const HELP: &str = include_str!("wrapper/help.txt");
const HELP_LIST: &str = include_str!("wrapper/help-list.txt");
const VERSION: &str = "Debian clang-offload-wrapper version 19.1.7 (3~deb12u1)\n";

/// Runs the tool with its full argument vector.
pub fn main(args: Vec<OsString>, env: &Env) -> ExitCode {
    let parsed = cl::parse_config(
        &args,
        &cl::Config {
            specs: SPECS,
            max_positionals: None,
            suggest_order: &[],
        },
    );
    let mut stderr = std::io::stderr().lock();
    if let Some(msg) = &parsed.expansion_error {
        let _ = stderr.write_all(msg.as_bytes());
        return ExitCode::SUCCESS;
    }
    let mut errors = parsed.errors.clone();
    if let Some(which) = parsed.immediate {
        let _ = stderr.write_all(errors.as_bytes());
        let text = match which {
            "version" => VERSION.to_string(),
            "help-list" | "help-list-hidden" => usage(HELP_LIST, &parsed.prog),
            _ => usage(HELP, &parsed.prog),
        };
        return print_stdout(&text);
    }
    if parsed.flag("h") == Some(true) {
        let _ = stderr.write_all(errors.as_bytes());
        return print_stdout(&usage(HELP, &parsed.prog));
    }
    // `cl::Required` options and the `cl::OneOrMore` inputs, as `cl` reports them.
    for (name, dashes) in [("o", "-"), ("target", "--")] {
        if parsed.last(name).is_none() {
            errors.push_str(&format!(
                "{}: for the {dashes}{name} option: must be specified at least once!\n",
                parsed.prog
            ));
        }
    }
    if parsed.positionals.is_empty() {
        errors.push_str(&format!(
            "{}: Not enough positional command line arguments specified!\nMust specify at least 1 \
             positional argument: See: {} --help\n",
            parsed.prog, parsed.argv0
        ));
    }
    if !errors.is_empty() {
        let _ = stderr.write_all(errors.as_bytes());
        return ExitCode::from(1);
    }
    drop(stderr);
    let report = Reporter {
        argv0: parsed.argv0.clone(),
    };
    let target = parsed.last("target").unwrap_or_default().to_string();
    let output = PathBuf::from(parsed.last("o").unwrap_or_default());
    // Both spellings fill one list, in command-line order.
    let mut requirements: Vec<(usize, &str)> = parsed
        .occurrences
        .iter()
        .filter(|o| o.name == "requirements" || o.name == "offload-arch")
        .map(|o| (o.position, o.value.as_deref().unwrap_or_default()))
        .collect();
    requirements.sort_by_key(|r| r.0);
    let requirements: Vec<&str> = requirements.into_iter().map(|r| r.1).collect();
    match run(
        &target,
        &output,
        &parsed.positionals,
        &requirements,
        &parsed.argv0,
        env,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => report.error(&msg),
    }
}

fn run(
    target: &str,
    output: &Path,
    inputs: &[String],
    requirements: &[&str],
    argv0: &str,
    env: &Env,
) -> Result<(), String> {
    let unsupported = || format!("'{target}': unsupported target triple");
    if Triple::parse(target).arch() == Arch::Unknown {
        return Err(unsupported());
    }
    if requirements.len() > inputs.len() {
        return Err(format!(
            "{} requirements given for {} input files",
            requirements.len(),
            inputs.len()
        ));
    }
    let mut maps = Vec::with_capacity(inputs.len());
    for f in inputs {
        let map = if f == "-" {
            MappedFile::stdin()
        } else {
            MappedFile::open_llvm(Path::new(f))
        };
        maps.push(map.map_err(|e| format!("'{f}': {}", os_message(&e)))?);
    }
    let images: Vec<Image> = inputs
        .iter()
        .zip(&maps)
        .enumerate()
        .map(|(i, (f, m))| {
            Image::new(m, target, requirements.get(i).copied().unwrap_or("")).named(f)
        })
        .collect();
    let opts = WrapOptions {
        image_info: true,
        order: Order::AsGiven,
        check_images: false,
        ..WrapOptions::new(target, Kind::OpenMp)
    };
    let wrapper = Wrapper::new(&images, &opts).map_err(|e| match e {
        offkit_wrap::Error::UnsupportedHost { .. } => unsupported(),
        e => e.to_string(),
    })?;
    let is_bc = output.extension().is_some_and(|e| e == "bc");
    if output.as_os_str() == "-" {
        // `ToolOutputFile("-")` is standard output; the object goes there.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
        wrapper.write_object(&mut out).map_err(|e| e.to_string())?;
        return out.flush().map_err(|e| os_message(&e));
    }
    let file_error = |e: std::io::Error| format!("'{}': {}", output.display(), os_message(&e));
    // The one output path: a file is written beside its destination and renamed into place, a
    // device (`/dev/null`) or pipe in place.
    let mut out = offkit_tools::fs::Output::create(output).map_err(file_error)?;
    if is_bc {
        let llvm_as = ToolFinder::new(env, Some(Path::new(argv0)))
            .find("llvm-as", None)
            .map_err(|e| format!("bitcode output needs llvm-as: {e}"))?;
        let scratch = tempfile::tempdir().map_err(|e| os_message(&e))?;
        let ll = scratch.path().join("offload.wrapper.object.ll");
        let mut text = Vec::new();
        wrapper
            .write_llvm_ir(&mut text)
            .map_err(|e| e.to_string())?;
        std::fs::write(&ll, text).map_err(|e| os_message(&e))?;
        ToolInvocation::new(llvm_as)
            .arg("-o")
            .arg(out.tmp_path().unwrap_or(output))
            .arg(&ll)
            .run()
            .map_err(|e| e.to_string())?;
    } else {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut out);
        wrapper.write_object(&mut w).map_err(|e| match e {
            offkit_wrap::Error::Io(io) => file_error(io),
            e => e.to_string(),
        })?;
        w.flush().map_err(file_error)?;
    }
    out.commit().map_err(file_error)
}

fn usage(text: &str, prog: &str) -> String {
    text.replacen(
        "USAGE: clang-offload-wrapper ",
        &format!("USAGE: {prog} "),
        1,
    )
}

fn print_stdout(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// `<argv0>: error: …` as LLVM's `WithColor::error` prints it.
struct Reporter {
    argv0: String,
}

impl Reporter {
    fn error(&self, msg: &str) -> ExitCode {
        let text = if std::io::stderr().is_terminal() {
            format!("{}: \x1b[0;1;31merror: \x1b[0m{msg}\n", self.argv0)
        } else {
            format!("{}: error: {msg}\n", self.argv0)
        };
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        ExitCode::from(1)
    }
}
