//! Phase 3, bitcode: LLVM 19's in-process LTO of a group's bitcode, by `llvm-lto2` (see
//! [`crate::lto`]). LLVM 19 does not print it, so neither does offkit; the plan records it.

use super::*;
use crate::lto;

impl Ctx<'_, '_> {
    /// Links the bitcode inputs `(input id, file)` of the group `triple`/`arch`; `regular` are
    /// the group's other (ELF) device objects. Returns the LTO outputs in task order, named as
    /// LLVM 19 names them: `<exe>.<triple>.<arch>[.<task>].{o,s}`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lto(
        &self,
        triple: &str,
        arch: &str,
        fam: Family,
        inputs: &[(usize, String)],
        regular: &[&[u8]],
        whole_program: bool,
    ) -> Result<Vec<String>> {
        let assembly = fam == Family::Nvptx || self.temps.saving();
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
        let mut llvm_options: Vec<String> = self
            .args
            .values(Opt::Mllvm)
            .iter()
            .map(|m| m.to_string())
            .collect();
        llvm_options.extend(
            self.args
                .values(Opt::OffloadOpt)
                .iter()
                .map(|m| format!("-{m}")),
        );
        for (opt, flag) in [
            (Opt::PassRemarks, "-pass-remarks="),
            (Opt::PassRemarksMissed, "-pass-remarks-missed="),
            (Opt::PassRemarksAnalysis, "-pass-remarks-analysis="),
        ] {
            llvm_options.extend(self.args.values(opt).iter().map(|r| format!("{flag}{r}")));
        }
        let config = lto::Config {
            triple,
            arch,
            opt_level: &self.common.opt_level,
            whole_program,
            assembly,
            llvm_options,
        };
        // llvm-lto2 writes `<base>.<task>`; the outputs are then moved to LLVM's names.
        let base = self.temps.create(&format!("{prefix}.lto"), "")?;
        let llvm_lto2 = self.finder.find("llvm-lto2", None)?;
        let regular = lto::regular_object_symbols(regular);
        let inv = lto::command(&llvm_lto2, &config, &bitcode, &regular, &base)?;
        self.runner.run_unannounced(&inv)?;
        let mut outputs = Vec::new();
        if self.runner.dry_run {
            outputs.push(self.temps.create(&prefix, ext)?);
        } else {
            // Task 0 is the regular LTO partition, the others ThinLTO modules.
            for task in 0..=bitcode.len() {
                let from = PathBuf::from(format!("{}.{task}", base.display()));
                if !from.exists() {
                    continue;
                }
                let name = match task {
                    0 => prefix.clone(),
                    t => format!("{prefix}.{t}"),
                };
                let to = self.temps.create(&name, ext)?;
                std::fs::rename(&from, &to).map_err(|source| Error::Write {
                    path: to.clone(),
                    source,
                })?;
                self.runner.record(Step::Rename {
                    from,
                    to: to.clone(),
                });
                outputs.push(to);
            }
        }
        Ok(outputs
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect())
    }
}
