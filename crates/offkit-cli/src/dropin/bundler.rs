//! The drop-in `clang-offload-bundler` of LLVM 19.1.7 and 22.1.8: the same options, environment
//! variables, output bytes, `-list` order, messages and exit codes.
//!
//! This face is LLVM's command line and LLVM's words over the library bundler,
//! [`offkit_bundle::llvm`]: it parses the options (`cl`), checks them in LLVM's order, builds an
//! [`llvm::Config`] and calls the mode's front door; the library's [`llvm::Event`]s are printed
//! as LLVM prints them ([`report`]) and its typed errors become LLVM's messages
//! ([`llvm_error`]). What differs between the releases is the library's [`llvm::Release`].
//!
//! Departures, all where LLVM crashes, hangs or writes garbage: a clear error instead, and
//! never a partial output (see [`offkit_bundle::llvm`]).
//!
//! ```text
//! argv ─cl─► llvm::Config (env, then options) ─checks─► llvm::{list, bundle, unbundle,
//!            unbundle_archive} ─► Events, IDs ─print─► stdout/stderr; Error ─llvm_error─► message
//! ```

mod report;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_bundle::llvm::{self, Release};
use offkit_llvm::target_id::bundle::{archive_conflict_message, check_targets, CheckedTargets};
use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, ToolFinder};

use super::cl::{self, Spec};
use super::error::{decompress_message, Error};

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

/// LLVM's `createTemporaryFile` directory: `$TMPDIR`, `$TMP`, `$TEMP`, `$TEMPDIR`, `/tmp`.
fn tmpdir(env: &Env) -> PathBuf {
    ["TMPDIR", "TMP", "TEMP", "TEMPDIR"]
        .iter()
        .find_map(|v| env.get_os(v).filter(|p| !p.is_empty()))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

/// Runs the tool with its full argument vector.
pub fn main(face: &super::Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let argv0 = args.first().map(PathBuf::from);
    let release = Release::of(face.version);
    TOOL.main_as(face, args, env, |p, reporter| {
        run(&p, release, argv0.as_deref(), env, reporter)
    })
}

/// Builds the library's configuration: `OffloadBundlerConfig`'s environment variables, then
/// the options (the files and targets are set by the checks).
fn config(p: &cl::Parsed, release: Release, env: &Env) -> llvm::Config {
    let mut cfg = llvm::Config {
        allow_missing: p.flag("allow-missing-bundles") == Some(true),
        check_input_archive: p.flag("check-input-archive") == Some(true),
        hip_openmp: p.flag("hip-openmp-compatible") == Some(true),
        print_commands: p.flag("###") == Some(true),
        tmpdir: tmpdir(env),
        ..llvm::Config::new(release.llvm, p.last("type").unwrap_or_default())
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

/// The bundler's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    List,
    Bundle,
    Unbundle,
    Archive,
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
    let unbundle = p.flag("unbundle") == Some(true);
    // Step 2: llvm-objcopy is looked up in every mode, beside argv[0] first.
    cfg.objcopy = ToolFinder::new(env, argv0)
        .find("llvm-objcopy", None)
        .map_err(|_| error("unable to find 'llvm-objcopy' in path"))?;
    // Step 3: the deprecated comma forms.
    cfg.inputs = files(p, "input", report)?;
    cfg.outputs = files(p, "output", report)?;
    let raw_targets: Vec<String> = p.values("targets").iter().map(|s| s.to_string()).collect();
    // Step 4: listing.
    if p.flag("list") == Some(true) {
        if unbundle {
            return Err(error("-unbundle and -list cannot be used together"));
        }
        if cfg.inputs.len() != 1 {
            return Err(error("only one input file supported for -list"));
        }
        if !cfg.outputs.is_empty() {
            return Err(error("-outputs option is invalid for -list"));
        }
        if !raw_targets.is_empty() {
            return Err(error("-targets option is invalid for -list"));
        }
        return finish(&cfg, Mode::List);
    }
    // Step 5.
    if cfg.check_input_archive {
        if !unbundle {
            return Err(error("-check-input-archive cannot be used while bundling"));
        }
        if cfg.files_type != "a" {
            return Err(error(
                "-check-input-archive can only be used for unbundling archives (-type=a)",
            ));
        }
    }
    // Steps 6–8.
    if cfg.outputs.is_empty() {
        return Err(error("no output file specified!"));
    }
    if p.count("targets") == 0 {
        return Err(error(
            "for the --targets option: must be specified at least once!",
        ));
    }
    if unbundle {
        if cfg.inputs.len() != 1 {
            return Err(error("only one input file supported in unbundling mode"));
        }
        if cfg.outputs.len() != raw_targets.len() {
            return Err(error(
                "number of output files and targets should match in unbundling mode",
            ));
        }
    } else {
        if cfg.files_type == "a" {
            return Err(error("Archive files are only supported for unbundling"));
        }
        if cfg.outputs.len() != 1 {
            return Err(error("only one output file supported in bundling mode"));
        }
        if cfg.inputs.len() != raw_targets.len() {
            return Err(error(
                "number of input files and targets should match in bundling mode",
            ));
        }
    }
    // Steps 9–11: duplicates, validity, target-ID conflicts, host count.
    let CheckedTargets {
        standardised,
        host_index,
        hip_only: _,
    } = check_targets(release.llvm, &raw_targets, unbundle)
        .map_err(|e| error(String::from_utf8_lossy(&e.message()).into_owned()))?;
    cfg.targets = standardised
        .into_iter()
        .map(|t| String::from_utf8_lossy(&t).into_owned())
        .collect();
    cfg.host_index = host_index;
    let mode = if !unbundle {
        Mode::Bundle
    } else if cfg.files_type == "a" {
        Mode::Archive
    } else {
        Mode::Unbundle
    };
    finish(&cfg, mode)
}

/// The files of `-<name>=` (repeatable) or the deprecated `-<name>s=a,b`, not both.
fn files(p: &cl::Parsed, name: &str, report: &cl::Reporter) -> Run<Vec<PathBuf>> {
    let plural = format!("{name}s");
    let (one, many) = (p.values(name), p.values(&plural));
    if !many.is_empty() && !one.is_empty() {
        return Err(error(format!(
            "-{plural} and -{name} cannot be used together, use only -{name} instead"
        )));
    }
    if !many.is_empty() {
        report.warning(&format!("-{plural} is deprecated, use -{name} instead"));
        return Ok(many.iter().map(PathBuf::from).collect());
    }
    Ok(one.iter().map(PathBuf::from).collect())
}

/// Runs `mode` over the library, printing its events as they come and the listing at the end,
/// and LLVM's timer report under `-verbose` whatever the outcome.
fn finish(cfg: &llvm::Config, mode: Mode) -> Run {
    let mut timers = report::Timers::default();
    let mut events = |e: llvm::Event<'_>| report::event(e, &mut timers);
    let result = match mode {
        Mode::List => llvm::list(cfg, &mut events).map(|ids| {
            let mut out = Vec::new();
            for id in ids {
                out.extend_from_slice(&id);
                out.push(b'\n');
            }
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(&out);
            let _ = stdout.flush();
        }),
        Mode::Bundle => llvm::bundle(cfg, &mut events),
        Mode::Unbundle => llvm::unbundle(cfg, &mut events),
        Mode::Archive => llvm::unbundle_archive(cfg, &mut events),
    };
    if cfg.verbose && mode != Mode::List {
        timers.print();
    }
    result.map_err(|e| llvm_error(e, mode, cfg.release.llvm))
}

/// LLVM's message for the library's error `e` in `mode` (offkit's own, naming the file,
/// where LLVM crashes, hangs or reads out of bounds).
fn llvm_error(e: offkit_bundle::Error, mode: Mode, llvm: LlvmVersion) -> Error {
    use offkit_bundle::Error as B;
    let archive = mode == Mode::Archive;
    let msg = match e {
        B::Read { path, source } | B::Write { path, source } => return Error::file(path, source),
        B::Decompress { source, .. } => format!(
            "Failed to decompress {}: {}",
            if archive { "code object" } else { "input" },
            decompress_message(&source)
        ),
        B::InvalidFileType { files_type } => format!("'{files_type}': invalid file type specified"),
        B::MalformedBundleHeader { offset, reason } => {
            format!("malformed bundle header at offset {offset:#x}: {reason} (LLVM crashes here)")
        }
        B::ObjectRead { source, .. } => source.to_string(),
        B::UnterminatedTextBundle { path, id: None } => format!(
            "'{}': a bundle has no end marker and LLVM would list it forever",
            path.display()
        ),
        B::UnterminatedTextBundle { path, id: Some(id) } => format!(
            "'{}': the bundle '{}' has no end marker (LLVM reads past the end of the input)",
            path.display(),
            String::from_utf8_lossy(&id)
        ),
        B::BundleOutside {
            path,
            member: None,
            id,
            offset,
            size,
        } => format!(
            "'{}': the bundle '{}' ({size} bytes at offset {offset:#x}) lies outside the input \
             (LLVM reads out of bounds)",
            path.display(),
            String::from_utf8_lossy(&id)
        ),
        B::BundleOutside {
            path,
            member: Some(member),
            id,
            ..
        } => format!(
            "'{}': the bundle '{}' in member '{member}' lies outside the member (LLVM reads out \
             of bounds)",
            path.display(),
            String::from_utf8_lossy(&id)
        ),
        B::SectionOutside { index } => {
            format!("the contents of section {index} lie outside the object")
        }
        B::InvalidReadBundleId { .. } if archive => {
            "Invalid bundle id read from code object".into()
        }
        B::InvalidReadBundleId { .. } => "invalid bundle id read from the bundle".into(),
        B::MissingBundles { targets } => missing_message(targets),
        B::ArchiveConflict {
            archive,
            member,
            first,
            second,
        } => String::from_utf8_lossy(&archive_conflict_message(
            &first,
            &second,
            &member,
            archive.as_os_str().as_encoded_bytes(),
        ))
        .into_owned(),
        B::ArchiveMalformedId {
            archive,
            member,
            id,
        } => format!(
            "'{}': member '{}' has the malformed bundle ID '{}' (LLVM {llvm}'s conflict check \
             crashes on it)",
            archive.display(),
            String::from_utf8_lossy(&member),
            String::from_utf8_lossy(&id)
        ),
        B::NoCompatibleCodeObject { target, archive } => format!(
            "no compatible code object found for the target '{target}' in heterogeneous archive \
             library: {}",
            archive.display()
        ),
        B::ArchiveWrite { source } => source.to_string(),
        B::ZeroBundleAlignment => {
            "-bundle-align=0: the alignment must be at least 1 (LLVM divides by zero)".into()
        }
        B::ObjectWithoutHost => {
            "cannot bundle an object file without a host target (LLVM crashes here)".into()
        }
        B::Version2Limit { total: false } => "Uncompressed size exceeds version 2 limit".into(),
        B::Version2Limit { total: true } => "Total file size exceeds version 2 limit".into(),
        B::Compress { source } => source.to_string(),
        B::ObjcopyFailed { .. } => "'llvm-objcopy' tool failed".into(),
        B::ObjcopyOutput { .. } => "Failed to read back the modified object file".into(),
        e => e.to_string(),
    };
    error(msg)
}

/// The Oxford-comma list of `Can't find bundles for …`.
fn missing_message(mut names: Vec<String>) -> String {
    names.sort();
    names.dedup();
    let mut m = String::from("Can't find bundles for");
    let last = names.len().saturating_sub(1);
    for (i, n) in names.iter().enumerate() {
        if i != 0 && last > 1 {
            m.push(',');
        }
        m.push(' ');
        if i == last && i != 0 {
            m.push_str("and ");
        }
        m.push_str(n);
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn commas() {
        assert_eq!(super::with_commas(5182), "5,182");
        assert_eq!(super::with_commas(100), "100");
        assert_eq!(super::with_commas(1234567), "1,234,567");
    }

    #[test]
    fn oxford_comma() {
        let m = |v: &[&str]| super::missing_message(v.iter().map(|s| s.to_string()).collect());
        assert_eq!(m(&["a"]), "Can't find bundles for a");
        assert_eq!(m(&["b", "a"]), "Can't find bundles for a and b");
        assert_eq!(m(&["c", "a", "b"]), "Can't find bundles for a, b, and c");
    }
}
