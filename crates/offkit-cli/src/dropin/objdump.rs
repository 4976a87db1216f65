//! The drop-in `llvm-objdump --offloading`, as LLVM 19.1.7's or 22.1.8's (the face's version),
//! and nothing else of `llvm-objdump`.
//!
//! For each input, in order (`a.out` when none is named), as `llvm-objdump` does it:
//!
//! * an archive: each member that is an object, under `\n<archive>(<member>):\tfile format
//!   <format>`; members `createBinary` refuses are skipped, and one that is an offload binary
//!   or another archive stops the run with "The file was not recognized as a valid object
//!   file";
//! * an ELF or COFF object (`\n<file>:\tfile format <format>`): its offload binaries, found as
//!   `extractOffloadBinaries` finds them (the packager face's reading,
//!   [`packager::collect`](offkit_bundle::packager::collect)), each printed as
//!   `OFFLOADING IMAGE [<n>]:` with its image kind, `arch`, `triple` and producer (the offload
//!   kind by the release's numbering: HIP is 3 in LLVM 19, 4 in LLVM 22); then, LLVM 22 only,
//!   its HIP fat-binary bundles written out ([`bundles`]);
//! * a Mach-O file: its `file format` line and LLVM's warning that `--offloading` reads COFF
//!   and ELF only;
//! * a raw offload binary file: its listing, with no `file format` line.
//!
//! Errors are LLVM's (`<argv0>: error: '<file>': while extracting offloading files: …`) and
//! stop the run, with exit status 1. What the releases do differently is one table,
//! [`Release`].
//!
//! Any other `llvm-objdump` option (`-d`, `-h`, `--help`, `--version`…) is refused with a message
//! naming LLVM's tool, and so is a run without `--offloading`: this face exists for
//! `--offloading` only (`offkit shims --with-objdump` links it). Departures beyond that, where
//! offkit cannot be LLVM: formats LLVM reads and `--offloading` has nothing to do with
//! (WebAssembly, XCOFF, GOFF, universal Mach-O, TAPI, minidumps, Windows resources) are
//! refused; a malformed archive, COFF or Mach-O file is described in offkit's words.

mod bundles;
mod format;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use object::read::archive::ArchiveFile;

use offkit_format::container::SHT_LLVM_OFFLOADING;
use offkit_format::kind::OffloadKind;
use offkit_format::scan::{holder, Holder};
use offkit_llvm::LlvmVersion;
use offkit_tools::mmap::MappedFile;
use offkit_tools::Env;

use super::cl::{self, Reporter, Step};
use super::error::{Error, Result};
use super::packager::{create_message, extract_message};
use super::Face;
use format::{Family, Input};
use offkit_bundle::packager as extract;

/// `object_error::unexpected_eof`.
const UNEXPECTED_EOF: &str = "The end of the file was unexpectedly encountered";
/// `object_error::invalid_file_type`.
const NOT_OBJECT: &str = "The file was not recognized as a valid object file";

/// What the releases' `--offloading` does differently.
#[derive(Debug, Clone, Copy)]
pub struct Release {
    /// The release.
    pub llvm: LlvmVersion,
    /// Whether the HIP fat-binary bundles of an object's sections are written out
    /// (`dumpOffloadBundleFatBinary`, LLVM 20 and later).
    pub extracts_bundles: bool,
}

impl Release {
    /// The row of `llvm`.
    pub fn of(llvm: LlvmVersion) -> Release {
        Release {
            llvm,
            extracts_bundles: llvm >= LlvmVersion::V22,
        }
    }
}

/// `getOffloadKindName`: the offload kinds come numbered as the release reads them
/// ([`extract::collect`] makes a number the release does not give a kind `Other`), so the
/// names are one table.
fn producer(kind: OffloadKind) -> &'static str {
    match kind {
        OffloadKind::OpenMp => "openmp",
        OffloadKind::Cuda => "cuda",
        OffloadKind::Hip => "hip",
        OffloadKind::Sycl => "sycl",
        _ => "none",
    }
}

/// What the face was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Args {
    /// The inputs, in order (`a.out` when none was named).
    pub inputs: Vec<String>,
    /// `--arch-name=` (LLVM 22 skips the bundle entries whose ID contains it).
    pub arch_name: String,
}

/// `llvm-objdump`'s `OptTable`, for `--offloading` and `--arch-name=` only.
#[derive(Debug, Clone, Copy)]
struct OptTable {
    version: LlvmVersion,
}

impl OptTable {
    /// The message refusing `what` (an option, or the lack of `--offloading`).
    fn refusal(&self, what: &str) -> String {
        format!(
            "offkit's llvm-objdump does --offloading only ({what}): run LLVM {v}'s llvm-objdump \
             ({}/bin/llvm-objdump) for anything else",
            self.version.debian_prefix(),
            v = self.version
        )
    }
}

impl cl::Parse for OptTable {
    type Args = Args;

    fn parse(&self, _: &str, words: &[String], _: bool, report: &Reporter) -> Step<Args> {
        let mut args = Args::default();
        let mut offloading = false;
        for w in words {
            if w == "--offloading" {
                offloading = true;
            } else if let Some(v) = w.strip_prefix("--arch-name=") {
                v.clone_into(&mut args.arch_name);
            } else if w.starts_with('-') && w != "-" {
                report.error(&self.refusal(&format!("`{w}` is not one of its options")));
                return Step::Fail;
            } else {
                args.inputs.push(w.clone());
            }
        }
        if !offloading {
            report.error(&self.refusal("no --offloading was given"));
            return Step::Fail;
        }
        if args.inputs.is_empty() {
            args.inputs.push("a.out".into());
        }
        Step::Run(args)
    }
}

/// Runs the face with its full argument vector.
pub fn main(face: &Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    let tool = cl::Tool {
        name: "llvm-objdump",
        help: cl::Help {
            help: "",
            hidden: "",
            list: "",
            list_hidden: "",
            usage_as_invoked: false,
        },
        parser: OptTable {
            version: face.version,
        },
    };
    let release = Release::of(face.version);
    tool.main_as(face, args, env, |args, report| {
        let run = Run {
            release,
            args: &args,
            report,
            out: Out,
        };
        args.inputs.iter().try_for_each(|input| run.input(input))
    })
}

/// Standard output, written as LLVM's `outs()` is (a closed pipe is no error).
pub struct Out;

impl Out {
    /// Writes `bytes`.
    pub fn write(&self, bytes: &[u8]) {
        let _ = std::io::stdout().lock().write_all(bytes);
    }

    fn flush(&self) {
        let _ = std::io::stdout().lock().flush();
    }
}

/// One run over the inputs.
struct Run<'a> {
    release: Release,
    args: &'a Args,
    report: &'a Reporter,
    out: Out,
}

impl Run<'_> {
    /// `dumpInput`.
    fn input(&self, path: &str) -> Result {
        let (data, name) = if path == "-" {
            let d = MappedFile::stdin().map_err(|e| Error::file(path, e))?;
            (d, "<stdin>".to_string())
        } else {
            let d = MappedFile::open_llvm(Path::new(path)).map_err(|e| Error::file(path, e))?;
            (d, path.to_string())
        };
        match format::classify(&data, self.release.llvm) {
            Input::Archive => {
                let dir = Path::new(path).parent().map(Path::to_path_buf);
                self.archive(&data, &name, dir.unwrap_or_default())
            }
            Input::Object(o) => {
                self.out
                    .write(format!("\n{name}:\tfile format {}\n", o.format).as_bytes());
                self.object(&data, &name, o.family)
            }
            Input::OffloadBinary => {
                // `createBinary` reads the first binary before anything is listed.
                if let Some(e) = extract::create_error(&data) {
                    let m = create_message(e);
                    return Err(Error::msg(format!("'{name}': {m}")));
                }
                self.listing(&data, &name)
            }
            Input::NotObject | Input::CoffImport => {
                Err(Error::msg(format!("'{path}': {NOT_OBJECT}")))
            }
            Input::Unsupported(what) => Err(unsupported(path, what)),
        }
    }

    /// `dumpArchive`: the members of the archive `data` named `name` (a thin archive's members
    /// are files relative to `dir`).
    fn archive(&self, data: &[u8], name: &str, dir: PathBuf) -> Result {
        let bad = |e: object::Error| Error::msg(format!("'{name}': {e}"));
        let archive = ArchiveFile::parse(data).map_err(bad)?;
        for member in archive.members() {
            let member = member.map_err(bad)?;
            let mname = String::from_utf8_lossy(member.name()).into_owned();
            let mapped;
            let bytes: &[u8] = if member.is_thin() {
                let path = dir.join(&mname);
                mapped = MappedFile::open_llvm(&path).map_err(|e| Error::file(&path, e))?;
                &mapped
            } else {
                member.data(data).map_err(bad)?
            };
            let header = |format: &str| format!("\n{name}({mname}):\tfile format {format}\n");
            match format::classify(bytes, self.release.llvm) {
                Input::NotObject => {}
                Input::Object(o) => {
                    self.out.write(header(&o.format).as_bytes());
                    self.object(bytes, &mname, o.family)?;
                }
                Input::CoffImport => self
                    .out
                    .write(format!("{}\n", header("COFF-import-file")).as_bytes()),
                Input::OffloadBinary => {
                    if let Some(e) = extract::create_error(bytes) {
                        let m = create_message(e);
                        return Err(Error::msg(format!("{name}({mname}): {m}")));
                    }
                    return Err(Error::msg(format!("'{name}': {NOT_OBJECT}")));
                }
                Input::Archive => return Err(Error::msg(format!("'{name}': {NOT_OBJECT}"))),
                Input::Unsupported(what) => {
                    return Err(unsupported(&format!("{name}({mname})"), what))
                }
            }
        }
        Ok(())
    }

    /// `dumpOffloadBinary` for the object `data` named `file` (its `file format` line printed).
    fn object(&self, data: &[u8], file: &str, family: Family) -> Result {
        if family == Family::MachO {
            self.out.flush();
            self.report.warning(&format!(
                "'{file}': --offloading is currently only supported for COFF and ELF targets"
            ));
            return Ok(());
        }
        if matches!(holder(data), Holder::Elf { e_type: 1..=3 }) {
            // `getContents` of an offloading section that lies outside the file fails even
            // when the section is empty (the scanner reads it as empty).
            bundles::elf_sections(data, |t| t == SHT_LLVM_OFFLOADING).map_err(|m| {
                Error::msg(format!("'{file}': while extracting offloading files: {m}"))
            })?;
        }
        self.listing(data, file)?;
        if self.release.extracts_bundles {
            bundles::extract(data, family, file, &self.args.arch_name, &self.out)?;
        }
        Ok(())
    }

    /// The offload binaries of `data` (named `file`), listed (`printBinary`).
    fn listing(&self, data: &[u8], file: &str) -> Result {
        let found = extract::collect(data, file, None, self.release.llvm).map_err(|e| {
            let e = extract_message(e);
            Error::msg(format!("'{file}': while extracting offloading files: {e}"))
        })?;
        for (i, f) in found.iter().enumerate() {
            let e = &f.entry;
            let mut text = format!(
                "\nOFFLOADING IMAGE [{i}]:\n{:<16}{}\n{:<16}",
                "kind",
                e.image_kind.objdump_name(),
                "arch"
            )
            .into_bytes();
            text.extend_from_slice(e.string("arch").unwrap_or_default());
            text.extend_from_slice(format!("\n{:<16}", "triple").as_bytes());
            text.extend_from_slice(e.string("triple").unwrap_or_default());
            text.extend_from_slice(
                format!("\n{:<16}{}\n", "producer", producer(e.offload_kind)).as_bytes(),
            );
            self.out.write(&text);
        }
        Ok(())
    }
}

/// The refusal of a format LLVM reads and this face does not.
fn unsupported(file: &str, what: &str) -> Error {
    Error::msg(format!(
        "'{file}': is {what}: offkit's llvm-objdump --offloading reads ELF, COFF and Mach-O \
         objects, archives of them and offload binaries; run LLVM's llvm-objdump on it"
    ))
}
