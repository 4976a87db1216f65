//! Phase 3, bitcode: LLVM 19's in-process LTO of a group's bitcode, by `llvm-lto2` (see
//! [`crate::lto`]). LLVM 19 does not print it, and runs it in a dry run too; so does offkit.
//! The plan records it.
//!
//! `llvm-lto2 --save-temps` writes the modules LLVM 19's hooks write: after internalization
//! (`<base>.<task>.2.internalize.bc`, LLVM's `.postlink.bc` under `--save-temps`), after
//! optimization (`.4.opt.bc`, the bitcode LLVM 19 gives clang with `--clang-backend`) and
//! before code generation (`.5.precodegen.bc`, LLVM's `.postopt.bc`).

use super::*;
use crate::lto;

/// What `llvm-lto2 --save-temps` writes per task, after `<base>.<task>`.
const LTO2_TEMPS: [&str; 7] = [
    "",
    ".0.preopt.bc",
    ".1.promote.bc",
    ".2.internalize.bc",
    ".3.import.bc",
    ".4.opt.bc",
    ".5.precodegen.bc",
];

impl DeviceCtx<'_, '_, '_> {
    /// Links the bitcode inputs `(input id, file)` of the group `triple`/`arch`; `regular` are
    /// the group's other (ELF) device objects. Returns the LTO outputs in task order, named as
    /// LLVM 19 names them: `<exe>.<triple>.<arch>[.<task>].{o,s}`, or with `clang_backend` the
    /// optimized modules `<exe>-jit-<triple>.bc` (LLVM 19 stops there and gives clang those).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lto(
        &self,
        triple: &str,
        arch: &str,
        fam: Family,
        inputs: &[(usize, String)],
        regular: &[&[u8]],
        whole_program: bool,
        clang_backend: bool,
    ) -> Result<Vec<String>> {
        let saving = self.temps.saving();
        // (NVPTX has no object output; a --clang-backend run discards its code.)
        let assembly = fam == Family::Nvptx || saving || clang_backend;
        let ext = if assembly { "s" } else { "o" };
        let prefix = format!("{}.{triple}.{arch}", self.exe_file);
        let bitcode: Vec<lto::Bitcode<'_>> = inputs
            .iter()
            .map(|(id, path)| {
                let d = &self.inputs[*id];
                lto::Bitcode {
                    path,
                    image: &d.entry.image,
                    offset: d.offset,
                    origin: &d.origin,
                    features: d
                        .entry
                        .string("feature")
                        .and_then(|f| std::str::from_utf8(f).ok())
                        .unwrap_or(""),
                }
            })
            .collect();
        let c = self.config;
        let mut llvm_options: Vec<String> = c.mllvm.clone();
        llvm_options.extend(c.offload_opts.iter().cloned());
        for (values, flag) in [
            (&c.pass_remarks, "-pass-remarks="),
            (&c.pass_remarks_missed, "-pass-remarks-missed="),
            (&c.pass_remarks_analysis, "-pass-remarks-analysis="),
        ] {
            llvm_options.extend(values.iter().map(|r| format!("{flag}{r}")));
        }
        let config = lto::Config {
            triple,
            arch,
            opt_level: &c.opt_level,
            whole_program,
            assembly,
            save_modules: saving || clang_backend,
            llvm_options,
        };
        // llvm-lto2 writes `<base>.<task>`; the outputs are then moved to LLVM's names.
        let base = self.temps.create(&format!("{prefix}.lto"), "")?;
        let llvm_lto2 = self.finder.find("llvm-lto2", None)?;
        let regular = lto::regular_object_symbols(regular);
        let inv = lto::command(&llvm_lto2, &config, &bitcode, &regular, &base)?;
        // LLVM 19 runs its LTO in a dry run too (only the device link is just printed).
        self.runner.run_in_process(&inv)?;
        self.lto_outputs(&base, &prefix, ext, triple, bitcode.len(), clang_backend)
    }

    /// Moves what llvm-lto2 wrote for each task beside `base` to LLVM 19's names (`prefix`
    /// and the task; with `clang_backend` the optimized modules `<exe>-jit-<triple>.bc`) and
    /// removes the rest; the outputs in task order.
    fn lto_outputs(
        &self,
        base: &Path,
        prefix: &str,
        ext: &str,
        triple: &str,
        modules: usize,
        clang_backend: bool,
    ) -> Result<Vec<String>> {
        let saving = self.temps.saving();
        let mut outputs = Vec::new();
        let jit = format!("{}-jit-{triple}", self.exe_file);
        let task_name = |task: usize, what: &str| match task {
            0 => format!("{prefix}{what}"),
            t => format!("{prefix}.{t}{what}"),
        };
        // Task 0 is the regular LTO partition, the others ThinLTO modules.
        for task in 0..=modules {
            let produced =
                |suffix: &str| PathBuf::from(format!("{}.{task}{suffix}", base.display()));
            if !produced("").exists() {
                continue;
            }
            if saving {
                self.move_to(
                    &produced(".2.internalize.bc"),
                    &task_name(task, ".postlink"),
                    "bc",
                )?;
                // (LLVM 19 stops before code generation with --clang-backend.)
                if !clang_backend {
                    self.move_to(
                        &produced(".5.precodegen.bc"),
                        &task_name(task, ".postopt"),
                        "bc",
                    )?;
                }
            }
            outputs.push(if clang_backend {
                self.move_to(&produced(".4.opt.bc"), &jit, "bc")?
            } else {
                self.move_to(&produced(""), &task_name(task, ""), ext)?
            });
        }
        if clang_backend || saving {
            // What else llvm-lto2 --save-temps wrote beside `base`: offkit's own temporaries
            // (with --clang-backend the code is not used).
            for task in 0..=modules {
                for suffix in LTO2_TEMPS {
                    let _ = std::fs::remove_file(format!("{}.{task}{suffix}", base.display()));
                }
            }
            for suffix in [".resolution.txt", ".index.bc"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", base.display()));
            }
        }
        Ok(outputs
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect())
    }

    /// Moves `from` (written by a tool) to a new temporary `<prefix>.<ext>`, recording it for
    /// the plan.
    fn move_to(&self, from: &Path, prefix: &str, ext: &str) -> Result<PathBuf> {
        let to = self.temps.create(prefix, ext)?;
        std::fs::rename(from, &to).map_err(|source| Error::Write {
            path: to.clone(),
            source,
        })?;
        self.runner.record(Step::Rename {
            from: from.to_path_buf(),
            to: to.clone(),
        });
        Ok(to)
    }
}
