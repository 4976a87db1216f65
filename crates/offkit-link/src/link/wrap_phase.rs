//! Phase 4: bundling (CUDA fatbinary, HIP offload bundle) and wrapping the linked images of
//! each offload kind into registration objects.

use super::*;

impl Link<'_> {
    /// Bundles (CUDA, HIP) and wraps the images of one kind; `first_seen` is the order the
    /// groups were linked in, `sorted` LLVM 19's order of them.
    pub(super) fn wrap_kind(
        &self,
        kind: OffloadKind,
        first_seen: &[&DeviceImage],
        sorted: &[&DeviceImage],
    ) -> Result<PathBuf> {
        let bundle = match kind {
            OffloadKind::OpenMp => None,
            OffloadKind::Cuda => Some(self.fatbinary(sorted)?),
            OffloadKind::Hip => Some(self.hip_bundle(sorted)?),
            k => {
                return Err(Error::Wrap {
                    kind: k.name().into(),
                    source: Box::new(offkit_wrap::Error::BadOptions(format!(
                        "{} wrapping is not supported",
                        k.name()
                    ))),
                })
            }
        };
        let images: Vec<WrapImage<'_>> = match &bundle {
            Some((_, b)) => vec![WrapImage {
                data: b,
                triple: sorted.first().map_or("", |l| l.triple.as_str()),
                arch: None,
                bitcode: false,
            }],
            None => first_seen
                .iter()
                .map(|l| WrapImage {
                    data: &l.bytes,
                    triple: &l.triple,
                    arch: l.arch.as_deref(),
                    bitcode: l.bitcode,
                })
                .collect(),
        };
        let relocatable = self.host.has(Opt::Relocatable);
        let req = WrapRequest {
            kind,
            images: &images,
            host_triple: &self.config.host_triple,
            relocatable,
            dry_run: self.runner.dry_run,
        };
        let wrap_err = |source| Error::Wrap {
            kind: kind.name().into(),
            source: Box::new(source),
        };
        if self.config.print_wrapped_module {
            let ir = self.wrapper.llvm_ir(&req).map_err(wrap_err)?;
            self.runner.say(ir.trim_end_matches('\n'));
        }
        let (path, module) = self.registration_object(&req, wrap_err)?;
        self.runner.record(Step::Wrap {
            kind: kind.name().into(),
            images: match &bundle {
                Some((path, _)) => vec![(
                    path.clone(),
                    sorted.first().map_or(String::new(), |l| l.triple.clone()),
                    String::new(),
                )],
                None => first_seen
                    .iter()
                    .map(|l| {
                        (
                            l.path.clone(),
                            l.triple.clone(),
                            l.arch.clone().unwrap_or_default(),
                        )
                    })
                    .collect(),
            },
            host_triple: self.config.host_triple.clone(),
            relocatable,
            llvm_ir: module.is_some(),
            to: module
                .as_ref()
                .map_or_else(|| path.clone(), |(ll, _)| ll.clone()),
        });
        if let Some((_, inv)) = module {
            self.runner.run_unannounced(&inv)?;
        }
        Ok(path)
    }

    /// The registration object for `req`, and for a host offkit writes as LLVM IR the module
    /// and the `llc` command that compiles it (run after the plan records the step).
    fn registration_object(
        &self,
        req: &WrapRequest<'_>,
        wrap_err: impl Fn(offkit_wrap::Error) -> Error,
    ) -> Result<(PathBuf, Option<(PathBuf, ToolInvocation)>)> {
        let name = format!("{}.{}.image.wrapper", self.exe_file, req.kind.name());
        let ir_only = offkit_wrap::Host::ir_only(&self.config.host_triple);
        Ok(if ir_only {
            // For COFF hosts (and ELF hosts offkit has no code for) offkit writes the module as
            // LLVM IR and has llc compile it: the object is then LLVM 19's, byte for byte (19
            // compiles the same module in process, so the command is not printed; the plan has
            // it).
            let ir = self.wrapper.llvm_ir(req).map_err(wrap_err)?;
            let ll = self.temps.create_with(&name, "ll", ir.as_bytes())?;
            let obj = self.temps.create(&name, "o")?;
            let llc = self.finder.find("llc", None)?;
            let inv = ToolInvocation::new(llc)
                .arg("-O2")
                .arg("-relocation-model=pic")
                .arg("-filetype=obj")
                .arg(&ll)
                .arg("-o")
                .arg(&obj);
            (obj, Some((ll, inv)))
        } else {
            let obj = self.wrapper.wrap(req).map_err(wrap_err)?;
            (self.temps.create_with(&name, "o", &obj)?, None)
        })
    }

    fn fatbinary(&self, images: &[&DeviceImage]) -> Result<(PathBuf, Vec<u8>)> {
        let mut dirs: Vec<PathBuf> = vec![self.config.cuda_bin()];
        if let Some(path) = self.env.get_os("PATH") {
            dirs.extend(std::env::split_paths(path));
        }
        let program = match dirs
            .iter()
            .map(|d| d.join("fatbinary"))
            .find(|p| p.is_file())
        {
            Some(p) => p,
            None if self.runner.dry_run => PathBuf::from("fatbinary"),
            None => {
                return Err(Error::NoCuda {
                    triple: images.first().map(|l| l.triple.clone()).unwrap_or_default(),
                    why: "Unable to find 'fatbinary' in path".into(),
                })
            }
        };
        let out = self.temps.create(&self.exe_file, "fatbin")?;
        let host = &self.config.host_triple;
        let bits = if host.starts_with("x86_64")
            || host.starts_with("aarch64")
            || host.starts_with("ppc64")
        {
            "-64"
        } else {
            "-32"
        };
        let mut inv = ToolInvocation::new(program)
            .arg(bits)
            .arg("--create")
            .arg(&out);
        for l in images {
            inv = inv.arg(format!(
                "--image=profile={},file={}",
                l.arch.as_deref().unwrap_or(""),
                l.path.display()
            ));
        }
        self.runner.run(&inv)?;
        Ok((out.clone(), self.read_back(&out)?))
    }

    fn hip_bundle(&self, images: &[&DeviceImage]) -> Result<(PathBuf, Vec<u8>)> {
        let program = self.finder.find("clang-offload-bundler", None)?;
        let out = self.temps.create(&self.exe_file, "hipfb")?;
        let mut inv = ToolInvocation::new(program)
            .arg("-type=o")
            .arg("-bundle-align=4096");
        if self.config.compress {
            inv = inv.arg("-compress");
        }
        if let Some(l) = &self.config.compression_level {
            inv = inv.arg(format!("-compression-level={l}"));
        }
        let mut targets = vec!["-targets=host-x86_64-unknown-linux".to_string()];
        targets.extend(
            images
                .iter()
                .map(|l| format!("hip-amdgcn-amd-amdhsa--{}", l.arch.as_deref().unwrap_or(""))),
        );
        inv = inv.arg(targets.join(",")).arg("-input=/dev/null");
        for l in images {
            inv = inv.arg(format!("-input={}", l.path.display()));
        }
        inv = inv.arg(format!("-output={}", out.display()));
        self.runner.run(&inv)?;
        Ok((out.clone(), self.read_back(&out)?))
    }
}
