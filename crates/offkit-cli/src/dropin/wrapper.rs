//! The drop-in `clang-offload-wrapper` (AMD's ROCm/AOMP tool of the LLVM 15–16 era,
//! which LLVM 19 no longer ships).
//!
//! The command line is that tool's (`cl` options): `-target <triple>` (also `--target=`),
//! `-o <file>`, the input images as positional arguments, and `--requirements=<target-id>`
//! (older documentation: `--offload-arch=`; both fill one list, matched to the inputs by
//! position). It writes the image-info module (raw images, a `__tgt_image_info` and a string in
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
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::triple::{Arch, Triple};
use offkit_tools::{Env, MappedFile, ToolFinder, ToolInvocation};
use offkit_wrap::{Image, Kind, Order, WrapOptions, Wrapper};

use super::cl::{self, Spec};
use super::error::{Error, Result};

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

/// The tool: `cl` with the table above, `-o` and `--target` required (`cl::Required`), one or
/// more inputs (`cl::OneOrMore`). Its help was captured without the hidden options, so the
/// hidden texts are the plain ones.
const TOOL: cl::Tool<cl::Cl> = cl::Tool {
    name: "clang-offload-wrapper",
    help: cl::Help {
        help: include_str!("wrapper/help.txt"),
        hidden: include_str!("wrapper/help.txt"),
        list: include_str!("wrapper/help-list.txt"),
        list_hidden: include_str!("wrapper/help-list.txt"),
        usage_as_invoked: true,
    },
    parser: cl::Cl {
        config: cl::Config {
            max_positionals: None,
            min_positionals: 1,
            required: &["o", "target"],
            ..cl::Config::new(SPECS)
        },
    },
};

/// Runs the tool with its full argument vector.
pub fn main(_face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    TOOL.main(args, env, |parsed, _| {
        let target = parsed.last("target").unwrap_or_default();
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
        run(
            target,
            &output,
            &parsed.positionals,
            &requirements,
            &parsed.argv0,
            env,
        )
    })
}

fn run(
    target: &str,
    output: &Path,
    inputs: &[String],
    requirements: &[&str],
    argv0: &str,
    env: &Env,
) -> Result {
    let unsupported = || Error::msg(format!("'{target}': unsupported target triple"));
    if Triple::parse(target).arch() == Arch::Unknown {
        return Err(unsupported());
    }
    if requirements.len() > inputs.len() {
        return Err(Error::msg(format!(
            "{} requirements given for {} input files",
            requirements.len(),
            inputs.len()
        )));
    }
    let mut maps = Vec::with_capacity(inputs.len());
    for f in inputs {
        let map = if f == "-" {
            MappedFile::stdin()
        } else {
            MappedFile::open_llvm(Path::new(f))
        };
        maps.push(map.map_err(|e| Error::file(f, e))?);
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
        e => Error::Wrap(e),
    })?;
    let is_bc = output.extension().is_some_and(|e| e == "bc");
    if output.as_os_str() == "-" {
        // `ToolOutputFile("-")` is standard output; the object goes there.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
        wrapper.write_object(&mut out)?;
        return out.flush().map_err(Error::Os);
    }
    let file_error = |e: std::io::Error| Error::file(output, e);
    // The one output path: a file is written beside its destination and renamed into place, a
    // device (`/dev/null`) or pipe in place.
    let mut out = offkit_tools::fs::Output::create(output).map_err(file_error)?;
    if is_bc {
        let llvm_as = ToolFinder::new(env, Some(Path::new(argv0)))
            .find("llvm-as", None)
            .map_err(|e| Error::msg(format!("bitcode output needs llvm-as: {e}")))?;
        let scratch = tempfile::tempdir().map_err(Error::Os)?;
        let ll = scratch.path().join("offload.wrapper.object.ll");
        let mut text = Vec::new();
        wrapper.write_llvm_ir(&mut text)?;
        std::fs::write(&ll, text).map_err(Error::Os)?;
        ToolInvocation::new(llvm_as)
            .arg("-o")
            .arg(out.tmp_path().unwrap_or(output))
            .arg(&ll)
            .run()?;
    } else {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut out);
        wrapper.write_object(&mut w).map_err(|e| match e {
            offkit_wrap::Error::Io(io) => file_error(io),
            e => Error::Wrap(e),
        })?;
        w.flush().map_err(file_error)?;
    }
    out.commit().map_err(file_error)
}
