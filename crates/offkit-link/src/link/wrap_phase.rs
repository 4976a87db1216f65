//! Phase 4: bundling (CUDA fatbinary, HIP offload bundle) and wrapping the linked images of
//! each offload kind into registration objects.
//!
//! Between releases only the bundlers' command lines differ ([`fatbinary_image`],
//! [`hip_targets`]), and LLVM 22 can write the bundle as the output, unwrapped
//! (`--emit-fatbin-only`).

use super::*;

/// `fatbinary`'s argument for one image: LLVM 19's `--image=profile=<arch>,file=<f>`, LLVM 22's
/// `--image3=kind=elf,sm=<arch without sm_>,file=<f>`.
fn fatbinary_image(llvm: LlvmVersion, arch: &str, file: &Path) -> String {
    match llvm {
        LlvmVersion::V19 => format!("--image=profile={arch},file={}", file.display()),
        _ => format!(
            "--image3=kind=elf,sm={},file={}",
            arch.get(3..).unwrap_or(""),
            file.display()
        ),
    }
}

/// The bundler's `-targets=` for HIP images of `arches`: LLVM 19's host entry is
/// `host-x86_64-unknown-linux`, LLVM 22's `host-x86_64-unknown-linux-gnu`, and LLVM 22 bundles
/// `amdgcnspirv` for `spirv64-amd-amdhsa`.
fn hip_targets<'a>(llvm: LlvmVersion, arches: impl Iterator<Item = &'a str>) -> String {
    let (host, spirv) = match llvm {
        LlvmVersion::V19 => ("host-x86_64-unknown-linux", false),
        _ => ("host-x86_64-unknown-linux-gnu", true),
    };
    let mut targets = vec![format!("-targets={host}")];
    targets.extend(arches.map(|a| match a {
        "amdgcnspirv" if spirv => format!("hip-spirv64-amd-amdhsa--{a}"),
        _ => format!("hip-amdgcn-amd-amdhsa--{a}"),
    }));
    targets.join(",")
}

/// `Triple::isArch64Bit`: whether `triple`'s architecture has 64-bit pointers.
fn is_arch_64_bit(triple: &str) -> bool {
    use offkit_llvm::triple::{Arch, Triple};
    matches!(
        Triple::parse(triple).arch(),
        Arch::Aarch64
            | Arch::Aarch64Be
            | Arch::Amdgcn
            | Arch::Bpfel
            | Arch::Bpfeb
            | Arch::Loongarch64
            | Arch::Mips64
            | Arch::Mips64el
            | Arch::Nvptx64
            | Arch::Ppc64
            | Arch::Ppc64le
            | Arch::Riscv64
            | Arch::Sparcv9
            | Arch::Systemz
            | Arch::Ve
            | Arch::Wasm64
            | Arch::X86_64
            | Arch::Spirv64
            | Arch::Spir64
            | Arch::Amdil64
            | Arch::Hsail64
            | Arch::Renderscript64
    )
}

impl Link<'_> {
    /// Bundles (CUDA, HIP) and wraps the images of one kind; `first_seen` is the order the
    /// groups were linked in, `sorted` LLVM's order of them. `None` when the bundle was written
    /// as the output (`--emit-fatbin-only`).
    pub(super) fn wrap_kind(
        &self,
        kind: OffloadKind,
        first_seen: &[&DeviceImage],
        sorted: &[&DeviceImage],
    ) -> Result<Option<PathBuf>> {
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
        if self.config.emit_fatbin_only {
            self.write_fatbin(kind, bundle.as_ref().map(|(_, b)| b.as_slice()), sorted)?;
            return Ok(None);
        }
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
            llvm: self.config.llvm,
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
            llvm: self.config.llvm,
            to: module
                .as_ref()
                .map_or_else(|| path.clone(), |(ll, _)| ll.clone()),
        });
        if let Some((_, inv)) = module {
            self.runner.run_unannounced(&inv)?;
        }
        Ok(Some(path))
    }

    /// `--emit-fatbin-only` (LLVM 22): the bundle of one kind written to the output; for OpenMP,
    /// whose images are not bundled, the offload binary of its one image.
    fn write_fatbin(
        &self,
        kind: OffloadKind,
        bundle: Option<&[u8]>,
        sorted: &[&DeviceImage],
    ) -> Result<()> {
        let binary;
        let bytes = match (bundle, sorted) {
            (Some(b), _) => b,
            (None, [one]) => {
                let mut strings: Vec<(&[u8], &[u8])> = vec![(b"triple", one.triple.as_bytes())];
                if let Some(a) = &one.arch {
                    strings.push((b"arch", a.as_bytes()));
                }
                let image_kind = if one.bitcode {
                    ImageKind::Bitcode
                } else {
                    ImageKind::Object
                };
                let spec = offkit_format::binary::ImageSpec {
                    image_kind,
                    offload_kind: kind,
                    flags: 0,
                    strings,
                };
                binary = offkit_format::binary::write_v1(&spec, &one.bytes, self.config.llvm)
                    .map_err(|source| Error::Usage(source.to_string()))?;
                &binary[..]
            }
            (None, _) => {
                return Err(Error::Usage(
                    "Expected a single bundled image for direct fat binary output".into(),
                ))
            }
        };
        if self.runner.dry_run {
            return Ok(());
        }
        temp::write(Path::new(&self.exe), bytes)
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
        let llvm = self.config.llvm;
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
        let bits = if is_arch_64_bit(&self.config.host_triple) {
            "-64"
        } else {
            "-32"
        };
        let mut inv = ToolInvocation::new(program)
            .arg(bits)
            .arg("--create")
            .arg(&out);
        for l in images {
            inv = inv.arg(fatbinary_image(
                llvm,
                l.arch.as_deref().unwrap_or(""),
                &l.path,
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
        let arches = images.iter().map(|l| l.arch.as_deref().unwrap_or(""));
        inv = inv
            .arg(hip_targets(self.config.llvm, arches))
            .arg("-input=/dev/null");
        for l in images {
            inv = inv.arg(format!("-input={}", l.path.display()));
        }
        inv = inv.arg(format!("-output={}", out.display()));
        self.runner.run(&inv)?;
        Ok((out.clone(), self.read_back(&out)?))
    }
}
