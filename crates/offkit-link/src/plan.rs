//! `--emit-plan=FILE`: the link as a shell script that, run by hand, performs it again.
//!
//! Every step the wrapper takes is recorded: tools it runs (device links, bundlers, the host
//! linker) as they were run; work it does in-process as commands that do the same — a device
//! image is cut out of its container with `tail -c +N | head -c SIZE` (the byte range is where
//! the image lies in the file), registration objects come from `offkit wrap`, and the
//! relocatable-link renaming from llvm-objcopy with LLVM 19's arguments. Temporary files live
//! in a directory the script makes (`$T`), under the names LLVM 19 gives them with
//! `--save-temps`.

use std::path::{Path, PathBuf};

use offkit_llvm::LlvmVersion;
use offkit_tools::invoke::shell_quote;
use offkit_tools::ToolInvocation;

use crate::error::InputName;

/// One step of a link.
#[derive(Debug, Clone)]
pub enum Step {
    /// A tool run.
    Run(ToolInvocation),
    /// A device image copied out of its container.
    Extract {
        /// Where it comes from (for the comment).
        input: InputName,
        /// The file holding it.
        file: PathBuf,
        /// Its absolute offset in `file`.
        offset: u64,
        /// Its size.
        size: u64,
        /// The file it is written to.
        to: PathBuf,
    },
    /// A registration object made from linked images.
    Wrap {
        /// The offload kind (`openmp`, `cuda`, `hip`).
        kind: String,
        /// The images (linked device images, or a fatbinary), with their triple and arch.
        images: Vec<(PathBuf, String, String)>,
        /// The host triple.
        host_triple: String,
        /// Whether for a relocatable link.
        relocatable: bool,
        /// Whether the module is written as LLVM IR (COFF hosts; a later step compiles it).
        llvm_ir: bool,
        /// The LLVM release whose registration object it is.
        llvm: LlvmVersion,
        /// The file written.
        to: PathBuf,
    },
    /// The renaming of a relocatable output's entry sections.
    Relocate {
        /// The relocatable output.
        file: PathBuf,
        /// The LLVM release whose entry sections they are.
        llvm: LlvmVersion,
    },
    /// A file moved into place (an LTO output to LLVM 19's name).
    Rename {
        /// The file written.
        from: PathBuf,
        /// Its name.
        to: PathBuf,
    },
    /// A note (dropped targets and the like).
    Note(String),
}

fn q(p: &Path) -> String {
    shell_quote(&p.to_string_lossy())
}

/// Each temporary path of a link, as a script writes it: `"$T"/<its file name>`.
struct Temps<'t>(&'t [PathBuf]);

impl Temps<'_> {
    /// `s` (already quoted) with every quoted temporary path replaced.
    fn sub(&self, mut s: String) -> String {
        for t in self.0 {
            let from = shell_quote(&t.to_string_lossy());
            if let Some(name) = t.file_name() {
                let to = format!("\"$T\"/{}", shell_quote(&name.to_string_lossy()));
                s = s.replace(&from, &to);
            }
        }
        s
    }

    /// A command word: each temporary path inside it (also inside a composite word such as
    /// llvm-lto2's `-r <file>,<symbol>,<flags>`) becomes `"$T"/<name>`, the rest is quoted on
    /// its own.
    fn word(&self, a: &str) -> String {
        let mut out = String::new();
        let mut rest = a;
        loop {
            let hit = self
                .0
                .iter()
                .filter_map(|t| {
                    let full = t.to_string_lossy();
                    let name = t.file_name()?.to_string_lossy().into_owned();
                    rest.find(full.as_ref()).map(|i| (i, full.len(), name))
                })
                .min_by_key(|(i, len, _)| (*i, usize::MAX - len));
            match hit {
                Some((i, len, name)) => {
                    if i > 0 {
                        out.push_str(&shell_quote(&rest[..i]));
                    }
                    out.push_str(&format!("\"$T\"/{}", shell_quote(&name)));
                    rest = &rest[i + len..];
                }
                None => {
                    if !rest.is_empty() || out.is_empty() {
                        out.push_str(&shell_quote(rest));
                    }
                    return out;
                }
            }
        }
    }

    /// One step as script lines (without the final newline).
    fn step(&self, step: &Step) -> String {
        match step {
            Step::Run(inv) => {
                let words: Vec<String> = std::iter::once(inv.program.as_os_str())
                    .chain(inv.args.iter().map(|a| a.as_os_str()))
                    .map(|a| self.word(&a.to_string_lossy()))
                    .collect();
                words.join(" ")
            }
            Step::Extract {
                input,
                file,
                offset,
                size,
                to,
            } => format!(
                "# device image of {input}\n{}",
                self.sub(format!(
                    "tail -c +{} {} | head -c {} > {}",
                    offset + 1,
                    q(file),
                    size,
                    q(to)
                ))
            ),
            Step::Wrap {
                kind,
                images,
                host_triple,
                relocatable,
                llvm_ir,
                llvm,
                to,
            } => {
                let mut cmd = format!(
                    "\"$OFFKIT\" wrap --kind {kind} --host-triple {} -o {}",
                    shell_quote(host_triple),
                    q(to)
                );
                if *relocatable {
                    cmd.push_str(" --relocatable");
                }
                if *llvm_ir {
                    cmd.push_str(" --emit llvm");
                }
                if *llvm != LlvmVersion::DEFAULT {
                    cmd.push_str(&format!(" --llvm {llvm}"));
                }
                for (p, t, a) in images {
                    cmd.push_str(&format!(
                        " --image {}",
                        shell_quote(&format!("file={},triple={t},arch={a}", p.to_string_lossy()))
                    ));
                }
                self.sub(cmd)
            }
            Step::Relocate { file, llvm } => format!(
                "# LLVM {llvm} renames the entry sections of a relocatable output (llvm-objcopy)\n\
                 \"$OFFKIT\" link --finish-relocatable {}{}",
                q(file),
                if *llvm == LlvmVersion::DEFAULT {
                    String::new()
                } else {
                    format!(" --llvm {llvm}")
                }
            ),
            Step::Rename { from, to } => self.sub(format!("mv -f {} {}", q(from), q(to))),
            Step::Note(n) => format!("# {n}"),
        }
    }
}

/// Renders the steps as a POSIX shell script. `temps` are the temporary paths the link used;
/// in the script each becomes `$T/<its file name>`.
pub fn script(steps: &[Step], temps: &[PathBuf], offkit: &str) -> String {
    let temps = Temps(temps);
    let mut out = String::from(
        "#!/bin/sh\n# The link offkit's clang-linker-wrapper performed, step by step (--emit-plan).\n\
         set -eu\nT=$(mktemp -d)\ntrap 'rm -rf \"$T\"' EXIT\n",
    );
    out.push_str(&format!("OFFKIT=${{OFFKIT:-{}}}\n", shell_quote(offkit)));
    for step in steps {
        out.push('\n');
        out.push_str(&temps.step(step));
        out.push('\n');
    }
    out
}
