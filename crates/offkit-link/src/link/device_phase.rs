//! Phase 3: the device link of each group, as LLVM 19's wrapper runs it: the group's images
//! written to temporary files, its bitcode linked first (`lto_phase`), then clang.

use super::*;

/// The files of one group's images, as [`DeviceCtx::write_inputs`] wrote them.
#[derive(Default)]
struct GroupFiles {
    /// The offload kinds of the group's inputs, in LLVM 19's order.
    kinds: Vec<OffloadKind>,
    /// The bitcode images: `(input id, file)`.
    bitcode: Vec<(usize, String)>,
    /// The object images' files.
    objects: Vec<String>,
    /// The object images' input ids.
    object_ids: Vec<usize>,
}

/// What the device links of one [`Link::link_devices`] share.
pub(super) struct DeviceCtx<'l, 'a, 'd> {
    link: &'l Link<'a>,
    pub(super) inputs: &'l [DeviceInput<'d>],
    pub(super) host_libs: &'l [String],
    /// As in LLVM 19, each group writes its images to temporary files inside its own
    /// (parallel) job, so the writing overlaps the other groups' links; an image that several
    /// groups use is written once, by the first that needs it.
    written: Vec<Mutex<Option<PathBuf>>>,
}

impl<'a> std::ops::Deref for DeviceCtx<'_, 'a, '_> {
    type Target = Link<'a>;
    fn deref(&self) -> &Link<'a> {
        self.link
    }
}

impl<'l, 'a, 'd> DeviceCtx<'l, 'a, 'd> {
    pub(super) fn new(
        link: &'l Link<'a>,
        inputs: &'l [DeviceInput<'d>],
        host_libs: &'l [String],
    ) -> Self {
        DeviceCtx {
            link,
            inputs,
            host_libs,
            written: inputs.iter().map(|_| Mutex::new(None)).collect(),
        }
    }

    pub(super) fn extract(&self, d: &DeviceInput<'_>, dir: Option<&Path>) -> Result<PathBuf> {
        let ext = match d.entry.image_kind {
            ImageKind::Object | ImageKind::Bitcode => "o",
            k => k.extension(),
        };
        let prefix = format!("{}-{}-{}", d.stem, d.entry.triple(), d.entry.arch());
        let path = match dir {
            Some(dir) => self.temps.create_in(dir, &prefix, ext, &d.entry.image)?,
            None => self.temps.create_with(&prefix, ext, &d.entry.image)?,
        };
        if matches!(d.entry.image, std::borrow::Cow::Borrowed(_)) {
            self.runner.record(Step::Extract {
                input: d.origin.clone(),
                file: d.origin.file.clone(),
                offset: d.offset,
                size: d.entry.image.len() as u64,
                to: path.clone(),
            });
        } else {
            self.runner.record(Step::Note(format!(
                "the {} image of {} is not stored byte for byte in the file (bitcode constant); \
                 extract it with `offkit extract` to {}",
                target_text(&d.target()),
                d.origin,
                path.display()
            )));
        }
        Ok(path)
    }

    /// The temporary file holding input `id`'s image, written on first use (in `lto_dir` when
    /// given).
    fn written(&self, id: usize, lto_dir: Option<&Path>) -> Result<PathBuf> {
        let Some(slot) = self.written.get(id) else {
            return Ok(PathBuf::new());
        };
        // A poisoned slot only means another job panicked; its value is still usable.
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let p = self.extract(&self.inputs[id], lto_dir)?;
        *slot = Some(p.clone());
        Ok(p)
    }

    /// Writes the images of group `g` to temporary files (bitcode into one private directory
    /// for the LTO): its offload kinds, its bitcode `(input id, file)` and its objects.
    fn write_inputs(&self, g: &Group, triple: &str, arch: &str) -> Result<GroupFiles> {
        let mut files = GroupFiles::default();
        let is_bitcode: Vec<bool> = g
            .inputs
            .iter()
            .map(|(id, _)| {
                let d = &self.inputs[*id];
                d.entry.image_kind == ImageKind::Bitcode
                    || offkit_format::container::is_bitcode(&d.entry.image)
            })
            .collect();
        // LLVM 19 links a group's bitcode in memory and writes none of it; offkit hands it to
        // llvm-lto2 as files, written into one private directory (no LLVM name to keep),
        // named after LLVM 19's LTO output, `<exe>.<triple>.<arch>`.
        let lto_dir = if is_bitcode.contains(&true) {
            self.temps
                .private_dir(&format!("{}.{triple}.{arch}.lto", self.exe_file))?
        } else {
            None
        };
        for ((id, _), &bc) in g.inputs.iter().zip(&is_bitcode) {
            let kind = self.inputs[*id].entry.offload_kind;
            if kind != OffloadKind::None && !files.kinds.contains(&kind) {
                files.kinds.push(kind);
            }
            let dir = lto_dir.as_deref().filter(|_| bc);
            let p = self.written(*id, dir)?.to_string_lossy().into_owned();
            if bc {
                files.bitcode.push((*id, p));
            } else {
                files.objects.push(p);
                files.object_ids.push(*id);
            }
        }
        // By value: LLVM orders a set of kinds so; both numberings give the same order.
        files.kinds.sort_by_key(|k| k.to_flags());
        Ok(files)
    }

    /// Links group `g` as the release of the link does it.
    pub(super) fn link_group(&self, g: &Group) -> Result<Vec<DeviceImage>> {
        match self.config.llvm {
            LlvmVersion::V19 => self.link_group_19(g),
            _ => self.link_group_22(g),
        }
    }

    /// LLVM 19: the group's bitcode by the LTO, then everything by clang (with
    /// `--embed-bitcode`, no device link); one image per offload kind of its inputs.
    fn link_group_19(&self, g: &Group) -> Result<Vec<DeviceImage>> {
        let first = &self.inputs[g.inputs[0].0];
        let triple = first.entry.triple().into_owned();
        let arch = first.entry.arch().into_owned();
        let fam = device::family(&triple, self.config.llvm)?;
        let GroupFiles {
            kinds,
            bitcode,
            mut objects,
            object_ids,
        } = self.write_inputs(g, &triple, &arch)?;
        // With --embed-bitcode LLVM 19 skips the device link and embeds the LTO's optimized
        // module (or, without bitcode, the group's first object) as bitcode.
        let embed = self.config.embed_bitcode;
        let clang = if embed {
            PathBuf::new()
        } else {
            self.finder.find("clang", None)?
        };
        if fam == Family::Nvptx && !self.runner.dry_run && !embed {
            self.check_cuda(&triple)?;
        }
        // With --clang-backend or a --builtin-bitcode for this triple, LLVM 19 gives clang the
        // linked and optimized *bitcode* to compile (so that cc1 can link the builtin library
        // into it).
        let clang_backend =
            self.config.clang_backend || self.config.builtin_bitcode_for(&triple).next().is_some();
        if !bitcode.is_empty() {
            // LLVM 19's in-process LTO, by llvm-lto2: its outputs come first.
            let whole_program = objects.is_empty();
            let regular: Vec<&[u8]> = object_ids
                .iter()
                .map(|&id| &self.inputs[id].entry.image[..])
                .collect();
            let outputs = self.lto(
                &triple,
                &arch,
                fam,
                &bitcode,
                &regular,
                whole_program,
                clang_backend || embed,
            )?;
            objects.splice(0..0, outputs);
        }
        let out = if embed {
            PathBuf::from(objects.first().cloned().unwrap_or_default())
        } else {
            self.device_link(&clang, &triple, &arch, objects)?
        };
        let bytes = Arc::new(self.read_back(&out)?);
        Ok(kinds
            .into_iter()
            .map(|kind| DeviceImage {
                kind,
                triple: triple.clone(),
                arch: Some(arch.clone()),
                bytes: bytes.clone(),
                path: out.clone(),
                bitcode: embed,
            })
            .collect())
    }

    /// Runs clang on a group's objects; the image it writes.
    fn device_link(
        &self,
        clang: &Path,
        triple: &str,
        arch: &str,
        objects: Vec<String>,
    ) -> Result<PathBuf> {
        let out = self.temps.create(
            &format!(
                "{}.{}.{}",
                self.exe_file,
                device::arch_name(triple),
                if arch.is_empty() { "native" } else { arch }
            ),
            "img",
        )?;
        let d = DeviceLink {
            triple,
            arch,
            output: &out,
            objects,
            linker_args: device::linker_args_for(&self.host, self.config, triple),
            compiler_args: Vec::new(),
            dumpdir: String::new(),
        };
        let inv = device::command(clang, &d, self.config, self.host_libs)?;
        self.runner.run(&inv)?;
        Ok(out)
    }

    fn check_cuda(&self, triple: &str) -> Result<()> {
        let mut dirs: Vec<PathBuf> = self
            .config
            .cuda_path
            .iter()
            .map(|p| p.join("bin"))
            .collect();
        if let Some(path) = self.env.get_os("PATH") {
            dirs.extend(std::env::split_paths(path));
        }
        if dirs.iter().any(|d| d.join("nvlink").is_file()) {
            return Ok(());
        }
        Err(Error::NoCuda {
            triple: triple.into(),
            why: "no `nvlink` in --cuda-path=<dir>/bin or on PATH".into(),
        })
    }
}
