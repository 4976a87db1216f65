//! The drop-in `clang-offload-bundler` of LLVM 19.1.7 and 22.1.8: the same options, environment
//! variables, output bytes, `-list` order, messages and exit codes.
//!
//! The two releases share the options and help texts; what differs is in one table,
//! [`Release`] (the compressed bundles written and read, the checks of bundle IDs read from
//! files), and in the release-aware models it hands the version to (bundle entry IDs in
//! `offkit_llvm::target_id::bundle`, decompression in `offkit_format::bundle::compressed`).
//!
//! Departures, all where LLVM crashes, hangs or writes garbage: a clear error instead, and
//! never a partial output (outputs are written to a temporary file and renamed into place).
//! Binary payloads are copied between files by the kernel instead of through memory.
//!
//! ```text
//! argv ─cl─► Config (env, then options) ─checks─► list | bundle | unbundle | archive
//! ```

mod archive;
mod bundle;
mod objcopy;
mod unbundle;

use offkit_llvm::LlvmVersion;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::target_id::bundle::{check_targets, CheckedTargets};
use offkit_tools::{Env, ToolFinder};

use super::cl::{self, Spec};
use super::error::Error;

/// What differs between the releases' bundlers, beyond the ID rules (`offkit-llvm`), the
/// compressed bundles they write by default (`compressed::Options::written_by`) and their
/// decompression (`compressed::decompress_llvm`), which take the release themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// The release.
    pub llvm: LlvmVersion,
    /// Whether `COMPRESSED_BUNDLE_FORMAT_VERSION` (2 or 3) chooses the version written.
    pub ccob_version_env: bool,
    /// Whether bundle IDs read from a bundle must have five or six `-`-separated pieces when
    /// unbundling (`checkOffloadBundleID`).
    pub checks_read_ids: bool,
    /// The smallest input the decompressor looks at (shorter ones are used as they are,
    /// without even the verbose `Uncompressed bundle.`), as
    /// `compressed::is_compressed_for` has it.
    pub ccob_min_size: u64,
}

impl Release {
    /// The bundler of release `llvm`.
    pub fn of(llvm: LlvmVersion) -> Release {
        match llvm {
            LlvmVersion::V19 => Release {
                llvm,
                ccob_version_env: false,
                checks_read_ids: false,
                ccob_min_size: 20,
            },
            _ => Release {
                llvm,
                ccob_version_env: true,
                checks_read_ids: true,
                ccob_min_size: 8,
            },
        }
    }
}

/// The options of `clang-offload-bundler` (LLVM 19 and 22 alike), in the order its help lists
/// them.
const SPECS: &[Spec] = &[
    Spec::immediate("help"),
    Spec::immediate("help-hidden"),
    Spec::immediate("help-list"),
    Spec::immediate("help-list-hidden"),
    Spec::flag("print-all-options"),
    Spec::flag("print-options"),
    Spec::immediate("version"),
    Spec::flag("###"),
    Spec::flag("allow-missing-bundles"),
    Spec::uint("bundle-align"),
    Spec::flag("check-input-archive"),
    Spec::flag("compress"),
    Spec::int("compression-level"),
    Spec::flag("hip-openmp-compatible"),
    Spec::value("input"),
    Spec::list("inputs"),
    Spec::flag("list"),
    Spec::value("output"),
    Spec::list("outputs"),
    Spec::list("targets"),
    Spec::value("type"),
    Spec::flag("unbundle"),
    Spec::flag("verbose"),
    Spec::flag("h").really_hidden(),
];

/// The tool: `cl` with the table above, `--type` required; no positional arguments.
const TOOL: cl::Tool<cl::Cl> = cl::Tool {
    name: "clang-offload-bundler",
    help: cl::Help {
        help: include_str!("bundler/help.txt"),
        hidden: include_str!("bundler/help-hidden.txt"),
        list: include_str!("bundler/help-list.txt"),
        list_hidden: include_str!("bundler/help-list-hidden.txt"),
        usage_as_invoked: true,
    },
    parser: cl::Cl {
        config: cl::Config {
            required: &["type"],
            ..cl::Config::new(SPECS)
        },
    },
};

type Run<T = ()> = Result<T, Error>;

/// Formats `v` with `,` thousands separators, as LLVM's verbose output does.
fn with_commas(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn error(msg: impl Into<String>) -> Error {
    Error::msg(msg)
}

/// LLVM's `'<path>': <strerror>` for a file error.
fn file_error(path: &Path, e: std::io::Error) -> Error {
    Error::file(path, e)
}

/// The bundler's configuration: environment variables first, then the options.
#[derive(Debug, Clone)]
struct Config {
    files_type: String,
    /// The standardised targets (after the checks).
    targets: Vec<String>,
    inputs: Vec<String>,
    outputs: Vec<String>,
    unbundle: bool,
    allow_missing: bool,
    bundle_align: u32,
    check_input_archive: bool,
    hip_openmp: bool,
    compress: bool,
    compression_level: i32,
    verbose: bool,
    print_commands: bool,
    /// The target the host input belongs to, if any.
    host_index: Option<usize>,
    /// Every target is HIP: bundling needs no host (input 0 is the reference).
    hip_only: bool,
    /// The release's behaviour.
    release: Release,
    /// The compressed-bundle version `-compress` writes.
    ccob_version: u16,
}

/// Everything a run needs.
struct Ctx<'e> {
    cfg: Config,
    env: &'e Env,
    objcopy: PathBuf,
}

impl Ctx<'_> {
    /// The directory LLVM's `createTemporaryFile` uses.
    fn tmpdir(&self) -> PathBuf {
        ["TMPDIR", "TMP", "TEMP", "TEMPDIR"]
            .iter()
            .find_map(|v| self.env.get_os(v).filter(|p| !p.is_empty()))
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp"))
    }
}

/// Runs the tool with its full argument vector.
pub fn main(face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args.first().map(PathBuf::from);
    let release = Release::of(face.version);
    TOOL.main_as(face, args, env, |p, report| {
        run(&p, release, argv0.as_deref(), env, report)
    })
}

/// Builds the configuration: `OffloadBundlerConfig`'s environment variables, then the options.
fn config(p: &cl::Parsed, release: Release, env: &Env) -> Config {
    let mut cfg = Config {
        files_type: p.last("type").unwrap_or_default().to_string(),
        targets: Vec::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        unbundle: p.flag("unbundle") == Some(true),
        allow_missing: p.flag("allow-missing-bundles") == Some(true),
        bundle_align: 1,
        check_input_archive: p.flag("check-input-archive") == Some(true),
        hip_openmp: p.flag("hip-openmp-compatible") == Some(true),
        compress: false,
        compression_level: 3,
        verbose: false,
        print_commands: p.flag("###") == Some(true),
        host_index: None,
        hip_only: false,
        release,
        ccob_version: offkit_format::bundle::compressed::Options::written_by(release.llvm).version,
    };
    if env.get("OFFLOAD_BUNDLER_IGNORE_ENV_VAR") != Some("1") {
        if let Some(v) = env.get_os("OFFLOAD_BUNDLER_VERBOSE") {
            cfg.verbose = v == "1";
        }
        if let Some(v) = env.get_os("OFFLOAD_BUNDLER_COMPRESS") {
            cfg.compress = v == "1";
        }
        if let Some(v) = env.get_os("OFFLOAD_BUNDLER_COMPRESSION_LEVEL") {
            let s = v.to_string_lossy();
            match decimal_i32(&s) {
                Some(l) => cfg.compression_level = l,
                None => eprintln!(
                    "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: {s}. Ignoring it."
                ),
            }
        }
        if let Some(v) = env
            .get_os("COMPRESSED_BUNDLE_FORMAT_VERSION")
            .filter(|_| release.ccob_version_env)
        {
            let s = v.to_string_lossy();
            let default = cfg.ccob_version;
            // `getAsInteger(10, uint16_t)`: decimal digits that fit 16 bits.
            let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            match s.parse::<u16>().ok().filter(|_| digits) {
                Some(n @ 2..=3) => cfg.ccob_version = n,
                Some(_) => eprintln!(
                    "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: {s}. Valid \
                     values are 2 or 3. Using default version {default}."
                ),
                None => eprintln!(
                    "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: {s}. Using \
                     default version {default}."
                ),
            }
        }
    }
    if let Some(v) = p.flag("verbose") {
        cfg.verbose = v;
    }
    if let Some(v) = p.flag("compress") {
        cfg.compress = v;
    }
    if let Some(v) = p.last("compression-level") {
        cfg.compression_level = cl::parse_llvm_i64(v)
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(cfg.compression_level);
    }
    if let Some(v) = p.last("bundle-align") {
        cfg.bundle_align = cl::parse_llvm_u64(v)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1);
    }
    cfg
}

/// `StringRef::getAsInteger(10, int)`: an optional `-` and decimal digits only.
fn decimal_i32(s: &str) -> Option<i32> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The checks of the options, in LLVM's order (`ClangOffloadBundler.cpp`'s `main`: the first
/// failing check wins), then the mode.
fn run(
    p: &cl::Parsed,
    release: Release,
    argv0: Option<&Path>,
    env: &Env,
    report: &cl::Reporter,
) -> Run {
    let mut cfg = config(p, release, env);
    // Step 2: llvm-objcopy is looked up in every mode, beside argv[0] first.
    let objcopy = ToolFinder::new(env, argv0)
        .find("llvm-objcopy", None)
        .map_err(|_| error("unable to find 'llvm-objcopy' in path"))?;
    // Step 3: the deprecated comma forms.
    let (input, inputs) = (p.values("input"), p.values("inputs"));
    if !inputs.is_empty() && !input.is_empty() {
        return Err(error(
            "-inputs and -input cannot be used together, use only -input instead",
        ));
    }
    if !inputs.is_empty() {
        report.warning("-inputs is deprecated, use -input instead");
        cfg.inputs = inputs.iter().map(|s| s.to_string()).collect();
    } else {
        cfg.inputs = input.iter().map(|s| s.to_string()).collect();
    }
    let (output, outputs) = (p.values("output"), p.values("outputs"));
    if !outputs.is_empty() && !output.is_empty() {
        return Err(error(
            "-outputs and -output cannot be used together, use only -output instead",
        ));
    }
    if !outputs.is_empty() {
        report.warning("-outputs is deprecated, use -output instead");
        cfg.outputs = outputs.iter().map(|s| s.to_string()).collect();
    } else {
        cfg.outputs = output.iter().map(|s| s.to_string()).collect();
    }
    let raw_targets: Vec<String> = p.values("targets").iter().map(|s| s.to_string()).collect();
    let mut ctx = Ctx { cfg, env, objcopy };
    // Step 4: listing.
    if p.flag("list") == Some(true) {
        if ctx.cfg.unbundle {
            return Err(error("-unbundle and -list cannot be used together"));
        }
        if ctx.cfg.inputs.len() != 1 {
            return Err(error("only one input file supported for -list"));
        }
        if !ctx.cfg.outputs.is_empty() {
            return Err(error("-outputs option is invalid for -list"));
        }
        if !raw_targets.is_empty() {
            return Err(error("-targets option is invalid for -list"));
        }
        return unbundle::list(&ctx);
    }
    // Step 5.
    if ctx.cfg.check_input_archive {
        if !ctx.cfg.unbundle {
            return Err(error("-check-input-archive cannot be used while bundling"));
        }
        if ctx.cfg.files_type != "a" {
            return Err(error(
                "-check-input-archive can only be used for unbundling archives (-type=a)",
            ));
        }
    }
    // Steps 6–8.
    if ctx.cfg.outputs.is_empty() {
        return Err(error("no output file specified!"));
    }
    if p.count("targets") == 0 {
        return Err(error(
            "for the --targets option: must be specified at least once!",
        ));
    }
    if ctx.cfg.unbundle {
        if ctx.cfg.inputs.len() != 1 {
            return Err(error("only one input file supported in unbundling mode"));
        }
        if ctx.cfg.outputs.len() != raw_targets.len() {
            return Err(error(
                "number of output files and targets should match in unbundling mode",
            ));
        }
    } else {
        if ctx.cfg.files_type == "a" {
            return Err(error("Archive files are only supported for unbundling"));
        }
        if ctx.cfg.outputs.len() != 1 {
            return Err(error("only one output file supported in bundling mode"));
        }
        if ctx.cfg.inputs.len() != raw_targets.len() {
            return Err(error(
                "number of input files and targets should match in bundling mode",
            ));
        }
    }
    // Steps 9–11: duplicates, validity, target-ID conflicts, host count.
    let CheckedTargets {
        standardised,
        host_index,
        hip_only,
    } = check_targets(release.llvm, &raw_targets, ctx.cfg.unbundle)
        .map_err(|e| error(String::from_utf8_lossy(&e.message()).into_owned()))?;
    ctx.cfg.targets = standardised
        .into_iter()
        .map(|t| String::from_utf8_lossy(&t).into_owned())
        .collect();
    ctx.cfg.host_index = host_index;
    ctx.cfg.hip_only = hip_only;
    let result = if !ctx.cfg.unbundle {
        bundle::bundle(&ctx)
    } else if ctx.cfg.files_type == "a" {
        archive::unbundle_archive(&ctx)
    } else {
        unbundle::unbundle(&ctx)
    };
    if ctx.cfg.verbose {
        objcopy::print_timers();
    }
    result
}

/// Reads an input as LLVM's `MemoryBuffer::getFileOrSTDIN` (`-` is stdin).
fn read_input(path: &str) -> Run<offkit_bundle::io::Input> {
    offkit_bundle::io::Input::open_llvm(Path::new(path)).map_err(|e| file_error(Path::new(path), e))
}

/// Writes a whole output file as LLVM's `raw_fd_ostream` would (`-` is stdout), atomically.
fn write_output(path: &str, bytes: &[u8]) -> Run {
    offkit_bundle::io::write_file(Path::new(path), bytes)
        .map_err(|e| file_error(Path::new(path), e))
}

/// Like [`write_output`], but the output joins `outs` and appears only when they are
/// committed together ([`unbundle::commit`]).
fn stage_output(outs: &mut offkit_tools::fs::Outputs, path: &str, bytes: &[u8]) -> Run {
    let p = Path::new(path);
    let mut out = offkit_bundle::io::Output::create(p).map_err(|e| file_error(p, e))?;
    std::io::Write::write_all(&mut out, bytes).map_err(|e| file_error(p, e))?;
    outs.push(out);
    Ok(())
}

/// The handler LLVM picks for a `-type` (text types by comment, binary types, `o`/`a` by
/// content), or its "invalid file type" error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handler {
    Text(offkit_format::bundle::text::Comment),
    Binary,
    Object,
}

fn handler(ty: &str, reference: &[u8]) -> Run<Handler> {
    use offkit_format::bundle::text::Comment;
    if let Some(c) = Comment::for_type(ty) {
        return Ok(Handler::Text(c));
    }
    match ty {
        "bc" | "gch" | "ast" => Ok(Handler::Binary),
        "o" | "a" if offkit_bundle::fatobj::is_object(reference) => Ok(Handler::Object),
        "o" | "a" => Ok(Handler::Binary),
        _ => Err(error(format!("'{ty}': invalid file type specified"))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn commas() {
        assert_eq!(super::with_commas(5182), "5,182");
        assert_eq!(super::with_commas(100), "100");
        assert_eq!(super::with_commas(1234567), "1,234,567");
    }
}
