//! Phase 3 as LLVM 22's wrapper does it: each image of a group written to a temporary file of
//! its own (`<stem>-<triple>-<arch>.o`, per group), then one clang command that links them all
//! (see [`crate::device`]). There is no LTO in the wrapper any more: clang hands bitcode to the
//! device linker (ld.lld, or clang-nvlink-wrapper for NVPTX), which does it.

use super::*;

impl DeviceCtx<'_, '_, '_> {
    /// Links group `g` with clang; one image per offload kind of its inputs, in LLVM's order
    /// of kinds, each with the group's triple and arch (`generic` is no arch).
    pub(super) fn link_group_22(&self, g: &Group) -> Result<Vec<DeviceImage>> {
        let first = &self.inputs[g.inputs[0].0];
        let triple = first.entry.triple().into_owned();
        let arch = match first.entry.arch().into_owned() {
            a if a == "generic" => String::new(),
            a => a,
        };
        let mut kinds: Vec<OffloadKind> = Vec::new();
        let mut files = Vec::new();
        for (id, _) in &g.inputs {
            let d = &self.inputs[*id];
            if d.entry.offload_kind != OffloadKind::None && !kinds.contains(&d.entry.offload_kind) {
                kinds.push(d.entry.offload_kind);
            }
            files.push(self.extract(d, None)?.to_string_lossy().into_owned());
        }
        kinds.sort_by_key(|k| k.to_flags());
        if kinds.contains(&OffloadKind::Sycl) && kinds.len() > 1 {
            return Err(Error::Usage(
                "Linking images of SYCL offload kind with images of any other kind is not \
                 supported"
                    .into(),
            ));
        }
        // In a dry run LLVM 22 prints a tool it cannot find by its bare name.
        let clang = match self.finder.find("clang", None) {
            Err(_) if self.runner.dry_run => PathBuf::from("clang"),
            found => found?,
        };
        let base = format!(".{}.{arch}", device::arch_name(&triple));
        let out = self
            .temps
            .create(&format!("{}{base}", self.exe_file), "img")?;
        let d = DeviceLink {
            triple: &triple,
            arch: &arch,
            output: &out,
            objects: files,
            linker_args: device::linker_args_for(&self.host, self.config, &triple),
            compiler_args: device::compiler_args_for(&self.host, self.config, &triple),
            dumpdir: format!("{}{base}.img.", self.exe),
        };
        let inv = device::command(&clang, &d, self.config, self.host_libs)?;
        self.runner.run(&inv)?;
        let bytes = Arc::new(self.read_back(&out)?);
        Ok(kinds
            .into_iter()
            .map(|kind| DeviceImage {
                kind,
                triple: triple.clone(),
                arch: Some(arch.clone()),
                bytes: bytes.clone(),
                path: out.clone(),
                bitcode: self.config.embed_bitcode,
            })
            .collect())
    }
}
