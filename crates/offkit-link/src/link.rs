//! The whole link: scan → resolve → device link (per group, in parallel) → bundle → wrap →
//! host link → (`-r`) rename the entry sections.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_tools::{Env, Jobserver, MappedFile, ToolFinder, ToolInvocation};

use crate::device::{self, Common, DeviceLink, Family};
use crate::error::{Error, InputName, Result};
use crate::explain::Explain;
use crate::invoke::{parallel, Runner};
use crate::opts::{Args, Opt};
use crate::plan::Step;
use crate::relocate;
use crate::resolve::{self, Group, TargetId};
use crate::scan::{self, DeviceInput};
use crate::targets;
use crate::temp::{self, Temps};
use crate::trace::Trace;

mod llvm_options;
mod lto_phase;
mod wrap_phase;

use llvm_options::check_llvm_options;

/// One image to wrap.
#[derive(Debug, Clone, Copy)]
pub struct WrapImage<'a> {
    /// The linked device image (OpenMP), or the fatbinary / offload bundle (CUDA, HIP).
    pub data: &'a [u8],
    /// Its triple.
    pub triple: &'a str,
    /// Its arch (target ID); `None` when the image has none (an `--override-image` for a CPU).
    pub arch: Option<&'a str>,
    /// Recorded as LLVM bitcode whatever the bytes are (`--embed-bitcode`).
    pub bitcode: bool,
}

/// What the wrap step is asked for: the images of one offload kind and the host they are for.
/// OpenMP images come in the order their groups were linked (the wrap step applies LLVM 19's
/// order); CUDA and HIP get the one fatbinary or offload bundle made from their images.
#[derive(Debug, Clone, Copy)]
pub struct WrapRequest<'a> {
    /// The offload kind.
    pub kind: OffloadKind,
    /// The images.
    pub images: &'a [WrapImage<'a>],
    /// The host triple (`--host-triple`).
    pub host_triple: &'a str,
    /// Whether the link is relocatable (`-r`): images go to `.llvm.offloading.relocatable`.
    pub relocatable: bool,
    /// Whether this is a dry run: the device links were only printed, so the images are empty
    /// (LLVM 19 wraps them all the same).
    pub dry_run: bool,
}

/// Makes registration objects (offkit-wrap's work); a trait so that the pipeline can be tested
/// without it.
pub trait Wrap: Sync {
    /// The relocatable host object that embeds and registers `req.images`.
    fn wrap(&self, req: &WrapRequest<'_>) -> std::result::Result<Vec<u8>, offkit_wrap::Error>;

    /// The same object as LLVM IR text (`--print-wrapped-module`).
    fn llvm_ir(&self, _req: &WrapRequest<'_>) -> std::result::Result<String, offkit_wrap::Error> {
        Err(offkit_wrap::Error::BadOptions(
            "printing the wrapped module is not available".into(),
        ))
    }
}

/// One link to perform.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    /// The parsed command line.
    pub args: &'a Args,
    /// The environment.
    pub env: &'a Env,
    /// `argv[0]`, where tools are looked for first.
    pub argv0: Option<&'a Path>,
    /// The wrap step.
    pub wrap: &'a dyn Wrap,
    /// Where lines for stderr go (commands under `--wrapper-verbose`, `--explain`); `None`
    /// prints them to stderr.
    pub log: Option<&'a (dyn Fn(&str) + Sync)>,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("args", self.args).finish()
    }
}

/// The default host triple of Debian's LLVM 19 (`sys::getDefaultTargetTriple()`).
pub const DEFAULT_HOST_TRIPLE: &str = "x86_64-pc-linux-gnu";

fn is_windows(triple: &str) -> bool {
    triple.split('-').nth(2).is_some_and(|os| {
        os.starts_with("windows") || os.starts_with("win32") || os.starts_with("mingw32")
    })
}

/// The file the host link writes (LLVM 19's `ExecutableName`).
pub fn executable_name(args: &Args, host_triple: &str) -> String {
    if args.has(Opt::Output) {
        args.last(Opt::Output).unwrap_or("a.out").to_string()
    } else if args.has(Opt::Out) {
        args.last(Opt::Out).unwrap_or("a.exe").to_string()
    } else if is_windows(host_triple) {
        "a.exe".into()
    } else {
        "a.out".into()
    }
}

/// One linked device image.
#[derive(Debug, Clone)]
struct Linked {
    kind: OffloadKind,
    triple: String,
    arch: Option<String>,
    bytes: Arc<Vec<u8>>,
    path: PathBuf,
    /// The image is embedded as bitcode (`--embed-bitcode`).
    bitcode: bool,
}

struct Ctx<'a, 'd> {
    s: Session<'a>,
    args: &'a Args,
    finder: ToolFinder,
    temps: Temps,
    runner: Runner<'a>,
    exe_file: String,
    host_triple: String,
    common: Common,
    inputs: Vec<DeviceInput<'d>>,
    trace: Trace,
}

fn temp_dir(env: &Env) -> PathBuf {
    ["TMPDIR", "TMP", "TEMP", "TEMPDIR"]
        .iter()
        .find_map(|v| env.get_os(v).filter(|p| !p.is_empty()))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

/// Performs the link.
pub fn run(s: Session<'_>) -> Result<()> {
    let a = s.args;
    let jobs = match a.args.iter().rev().find(|x| x.opt == Opt::WrapperJobs) {
        Some(arg) => match offkit_llvm::cl::integer::parse_u64(arg.value())
            .filter(|&n| n > 0 && n <= u64::from(u32::MAX))
        {
            Some(n) => Some(n as usize),
            None => {
                return Err(Error::Usage(format!(
                    "{}{}: expected a positive integer, got '{}'",
                    arg.spelling,
                    arg.value(),
                    arg.value()
                )))
            }
        },
        None => None,
    };

    check_llvm_options(&s)?;
    let host_triple = a
        .last(Opt::HostTriple)
        .unwrap_or(DEFAULT_HOST_TRIPLE)
        .to_string();
    let exe = executable_name(a, &host_triple);
    let exe_file = Path::new(&exe)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| exe.clone());
    let verbose = a.has(Opt::Verbose);
    let dry_run = a.has(Opt::DryRun);
    let save = a.has(Opt::SaveTemps);
    let requests = match a.last(Opt::OffloadTargets) {
        Some(list) => {
            let r = targets::parse(list);
            if r.is_empty() {
                return Err(Error::Usage(format!(
                    "--offload-targets={list} names no target"
                )));
            }
            Some(r)
        }
        None => s
            .env
            .get("OFFKIT_OFFLOAD_TARGETS")
            .map(targets::parse)
            .filter(|r| !r.is_empty()),
    };
    let explain = a.has(Opt::Explain);

    let trace = Trace::new(
        a.has(Opt::WrapperTimeTrace),
        a.last(Opt::WrapperTimeTraceGranularity)
            .and_then(|g| g.parse().ok())
            .unwrap_or(500),
    );
    // Phase 1: inputs and the offload binaries in them.
    let override_images = a.has(Opt::OverrideImage);
    let located = if override_images {
        Vec::new()
    } else {
        scan::locate(a)?
    };
    let mut files: Vec<MappedFile> = located.iter().map(scan::load).collect::<Result<_>>()?;
    let libs: Vec<(String, String, String, PathBuf)> = if override_images {
        Vec::new()
    } else {
        a.values(Opt::BitcodeLibrary)
            .iter()
            .map(|v| {
                let (device, path) = v.split_once('=').unwrap_or((v, ""));
                let (rest, arch) = device.rsplit_once('-').unwrap_or((device, ""));
                let (kind, triple) = rest.split_once('-').unwrap_or((rest, ""));
                (kind.into(), triple.into(), arch.into(), PathBuf::from(path))
            })
            .collect()
    };
    for (_, _, _, p) in &libs {
        files.push(MappedFile::open_llvm(p).map_err(|source| Error::Read {
            path: p.clone(),
            source,
        })?);
    }
    let (scanned, lib_files) = files.split_at(located.len());
    let mut inputs = trace.scope("ExtractDeviceCode", "", || {
        scan::device_inputs(&located, scanned)
    })?;
    let mut lib_ids = Vec::new();
    for ((kind, triple, arch, path), data) in libs.iter().zip(lib_files) {
        let id = inputs.len();
        lib_ids.push(id);
        inputs.push(DeviceInput {
            id,
            origin: InputName::file(path),
            stem: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            lazy: false,
            offset: 0,
            entry: offkit_format::binary::Entry {
                image_kind: ImageKind::Bitcode,
                offload_kind: OffloadKind::from_name_llvm19(kind),
                flags: 0,
                strings: vec![
                    (
                        "triple".as_bytes().into(),
                        triple.as_bytes().to_vec().into(),
                    ),
                    ("arch".as_bytes().into(), arch.as_bytes().to_vec().into()),
                ],
                image: std::borrow::Cow::Borrowed(&data[..]),
                image_offset: 0,
            },
        });
    }

    // Phase 2: resolution and groups.
    let resolution = resolve::resolve(&inputs, &lib_ids)?;
    let runner = Runner::new(verbose, dry_run, s.log);
    let mut exp = Explain::new(explain);
    exp.resolution(&inputs, &resolution);
    let mut groups: Vec<Group> = Vec::new();
    if let Some(reqs) = &requests {
        for r in reqs {
            if !resolution.groups.iter().any(|g| r.selects(&g.target)) {
                return Err(Error::TargetNotFound(r.text.clone()));
            }
        }
        let list = reqs
            .iter()
            .map(|r| r.text.as_str())
            .collect::<Vec<_>>()
            .join(",");
        for g in &resolution.groups {
            if reqs.iter().any(|r| r.selects(&g.target)) {
                groups.push(g.clone());
            } else {
                let what = target_text(&g.target);
                if verbose {
                    runner.say(&format!(
                        "offkit: dropping the {what} device images ({} input(s)): not in --offload-targets={list}",
                        g.inputs.len()
                    ));
                }
                exp.dropped(&inputs, g, &list);
                runner.record(Step::Note(format!(
                    "dropped {what}: not in --offload-targets={list}"
                )));
            }
        }
    } else {
        groups = resolution.groups.clone();
    }

    let common = Common {
        opt_level: a.last(Opt::OptLevel).unwrap_or("O2").to_string(),
        verbose,
        save_temps: save,
        host_libs: if groups
            .iter()
            .any(|g| matches!(device::family(&g.target.0), Ok(Family::Cpu)))
        {
            device::host_libraries(a)?
        } else {
            Vec::new()
        },
    };
    let ctx = Ctx {
        s,
        args: a,
        finder: ToolFinder::new(s.env, s.argv0),
        temps: Temps::new(temp_dir(s.env), save),
        runner,
        exe_file,
        host_triple,
        common,
        inputs,
        trace,
    };
    let result = ctx.trace.scope("Execute linker wrapper", "", || {
        ctx.link(&groups, jobs, &exe)
    });
    if let (Ok(()), Some(file)) = (&result, a.last(Opt::WrapperTimeTrace)) {
        temp::write(
            Path::new(file),
            ctx.trace.json("clang-linker-wrapper").as_bytes(),
        )?;
    }
    for line in exp.lines() {
        ctx.runner.say(&format!("offkit: explain: {line}"));
    }
    if let Some(plan) = a.last(Opt::EmitPlan) {
        let offkit = std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "offkit".into());
        let text = crate::plan::script(&ctx.runner.steps(), &ctx.temps.paths(), &offkit);
        temp::write(Path::new(plan), text.as_bytes())?;
    }
    result
}

/// The last step of a relocatable link on its own: renames the entry sections of `file` (with
/// the MD5 suffix of its contents) and empties its `.llvm.offloading`, in place.
pub fn finish_relocatable(file: &Path) -> Result<()> {
    let contents = std::fs::read(file).map_err(|source| Error::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let suffix = relocate::suffix(&contents);
    let out = relocate::rewrite(file, &contents, &suffix)?;
    temp::write_atomic(file, &out)
}

fn target_text(t: &TargetId) -> String {
    if t.1.is_empty() {
        t.0.clone()
    } else {
        format!("{} {}", t.0, t.1)
    }
}

impl Ctx<'_, '_> {
    fn link(&self, groups: &[Group], jobs: Option<usize>, exe: &str) -> Result<()> {
        // Phase 3: device links. As in LLVM 19, each group writes its images to temporary
        // files inside its own (parallel) job, so the writing overlaps the other groups' links;
        // an image that several groups use is written once, by the first that needs it.
        let written: Vec<Mutex<Option<PathBuf>>> =
            self.inputs.iter().map(|_| Mutex::new(None)).collect();
        let js = Jobserver::from_env(self.s.env);
        let jobs = jobs.unwrap_or(if js.is_some() { groups.len() } else { 1 });
        let results = parallel(groups, jobs, js.as_ref(), |g| {
            self.trace
                .scope("Link device input", &target_text(&g.target), || {
                    self.link_group(g, &written)
                })
        });
        let mut by_kind: Vec<(OffloadKind, Vec<Linked>)> = self.override_images()?;
        for r in results {
            for l in r? {
                match by_kind.iter_mut().find(|(k, _)| *k == l.kind) {
                    Some((_, v)) => v.push(l),
                    None => by_kind.push((l.kind, vec![l])),
                }
            }
        }
        // Phase 4: bundle and wrap per offload kind.
        let mut wrapped = Vec::new();
        for (kind, images) in &by_kind {
            // LLVM 19's order (offkit-wrap applies it to OpenMP images itself; CUDA and HIP
            // bundle their images in it).
            let keys: Vec<(&str, &str)> = images
                .iter()
                .map(|l| (l.triple.as_str(), l.arch.as_deref().unwrap_or("")))
                .collect();
            let sorted: Vec<&Linked> = offkit_wrap::llvm19_order(&keys)
                .iter()
                .map(|&i| &images[i])
                .collect();
            let first_seen: Vec<&Linked> = images.iter().collect();
            wrapped.push(self.trace.scope("Wrap bundled images", kind.name(), || {
                self.wrap(*kind, &first_seen, &sorted)
            })?);
        }
        // Phase 5: the host link.
        self.trace
            .scope("Execute host linker", "", || self.host_link(&wrapped))?;
        if self.args.has(Opt::Relocatable) {
            self.relocate(exe)?;
        }
        Ok(())
    }

    fn extract(&self, d: &DeviceInput<'_>, dir: Option<&Path>) -> Result<PathBuf> {
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
    fn written(
        &self,
        id: usize,
        written: &[Mutex<Option<PathBuf>>],
        lto_dir: Option<&Path>,
    ) -> Result<PathBuf> {
        let Some(slot) = written.get(id) else {
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

    fn link_group(&self, g: &Group, written: &[Mutex<Option<PathBuf>>]) -> Result<Vec<Linked>> {
        let first = &self.inputs[g.inputs[0].0];
        let triple = first.entry.triple().into_owned();
        let arch = first.entry.arch().into_owned();
        let fam = device::family(&triple)?;
        let mut kinds: Vec<OffloadKind> = Vec::new();
        let (mut bitcode, mut objects) = (Vec::new(), Vec::new());
        let (mut bitcode_ids, mut object_ids) = (Vec::new(), Vec::new());
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
            let d = &self.inputs[*id];
            if d.entry.offload_kind != OffloadKind::None && !kinds.contains(&d.entry.offload_kind) {
                kinds.push(d.entry.offload_kind);
            }
            let dir = lto_dir.as_deref().filter(|_| bc);
            let p = self
                .written(*id, written, dir)?
                .to_string_lossy()
                .into_owned();
            if bc {
                bitcode.push(p);
                bitcode_ids.push(*id);
            } else {
                objects.push(p);
                object_ids.push(*id);
            }
        }
        kinds.sort_by_key(|k| k.to_raw(1).unwrap_or(u16::MAX));
        // With --embed-bitcode LLVM 19 skips the device link and embeds the LTO's optimized
        // module (or, without bitcode, the group's first object) as bitcode.
        let embed = self.args.has(Opt::EmbedBitcode);
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
        let clang_backend = self.args.has(Opt::ClangBackend)
            || self
                .args
                .values(Opt::BuiltinBitcode)
                .iter()
                .any(|b| b.split_once('=').map_or(*b, |(t, _)| t) == triple);
        if !bitcode.is_empty() {
            // LLVM 19's in-process LTO, by llvm-lto2: its outputs come first.
            let whole_program = objects.is_empty();
            let ids: Vec<(usize, String)> =
                bitcode_ids.iter().copied().zip(bitcode.drain(..)).collect();
            let regular: Vec<&[u8]> = object_ids
                .iter()
                .map(|&id| &self.inputs[id].entry.image[..])
                .collect();
            let outputs = self.lto(
                &triple,
                &arch,
                fam,
                &ids,
                &regular,
                whole_program,
                clang_backend || embed,
            )?;
            for (i, o) in outputs.into_iter().enumerate() {
                objects.insert(i, o);
            }
        }
        let out = if embed {
            PathBuf::from(objects.first().cloned().unwrap_or_default())
        } else {
            let out = self.temps.create(
                &format!(
                    "{}.{}.{}",
                    self.exe_file,
                    device::arch_name(&triple),
                    if arch.is_empty() { "native" } else { &arch }
                ),
                "img",
            )?;
            let d = DeviceLink {
                triple: &triple,
                arch: &arch,
                output: &out,
                objects,
                linker_args: device::linker_args_for(self.args, &triple),
            };
            let inv = device::command(&clang, &d, self.args, &self.common)?;
            self.runner.run(&inv)?;
            out
        };
        let bytes = match std::fs::read(&out) {
            Ok(b) => b,
            Err(_) if self.runner.dry_run => Vec::new(),
            Err(source) => return Err(Error::Read { path: out, source }),
        };
        let bytes = Arc::new(bytes);
        Ok(kinds
            .into_iter()
            .map(|kind| Linked {
                kind,
                triple: triple.clone(),
                arch: Some(arch.clone()),
                bytes: bytes.clone(),
                path: out.clone(),
                bitcode: embed,
            })
            .collect())
    }

    fn check_cuda(&self, triple: &str) -> Result<()> {
        let mut dirs: Vec<PathBuf> = self
            .args
            .last(Opt::CudaPath)
            .map(|p| vec![Path::new(p).join("bin")])
            .unwrap_or_default();
        if let Some(path) = self.s.env.get_os("PATH") {
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

    fn override_images(&self) -> Result<Vec<(OffloadKind, Vec<Linked>)>> {
        let mut out: Vec<(OffloadKind, Vec<Linked>)> = Vec::new();
        for v in self.args.values(Opt::OverrideImage) {
            let (kind, file) = v.split_once('=').unwrap_or((v, ""));
            let kind = OffloadKind::from_name_llvm19(kind);
            let path = PathBuf::from(file);
            let bytes = std::fs::read(&path).map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?;
            let (triple, arch) =
                crate::elf_target::target(&bytes, &format!("--override-image={v}"))?;
            let l = Linked {
                kind,
                triple,
                arch,
                bytes: Arc::new(bytes),
                path,
                bitcode: false,
            };
            match out.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, list)) => list.push(l),
                None => out.push((kind, vec![l])),
            }
        }
        Ok(out)
    }

    fn host_link(&self, wrapped: &[PathBuf]) -> Result<()> {
        let mut v: Vec<String> = Vec::new();
        for arg in &self.args.args {
            if arg.opt.wrapper_only() {
                continue;
            }
            v.extend(arg.render());
            if matches!(arg.opt, Opt::Output | Opt::Out) {
                v.extend(wrapped.iter().map(|p| p.to_string_lossy().into_owned()));
            }
        }
        let linker = self.args.last(Opt::LinkerPath).unwrap_or("");
        self.runner.run(&ToolInvocation::new(linker).args(v))
    }

    fn relocate(&self, exe: &str) -> Result<()> {
        if is_windows(&self.host_triple) {
            return Err(Error::Usage(
                "Relocatable linking is not supported on COFF targets".into(),
            ));
        }
        let contents = self.read_back(Path::new(exe))?;
        let suffix = relocate::suffix(&contents);
        // LLVM 19's llvm-objcopy step when the tool is there (the output is then LLVM's, byte
        // for byte); otherwise offkit's in-place rewrite (`finish_relocatable`), which links
        // the same way.
        if let Ok(objcopy) = self.finder.find("llvm-objcopy", None) {
            let inv = ToolInvocation::new(objcopy).args(relocate::objcopy_args(exe, &suffix));
            return self.runner.run(&inv);
        }
        self.runner
            .announce("llvm-objcopy", &relocate::objcopy_args(exe, &suffix));
        self.runner.record(Step::Relocate {
            file: PathBuf::from(exe),
        });
        if self.runner.dry_run {
            return Ok(());
        }
        let out = relocate::rewrite(Path::new(exe), &contents, &suffix)?;
        temp::write_atomic(Path::new(exe), &out)
    }
}
