//! The link, phase by phase: [`Link::load`] and [`Link::scan`] (the inputs and the offload
//! binaries in them) → [`Link::group`] (which images are linked, per target) →
//! [`Link::link_devices`] (per group, in parallel) → [`Link::wrap`] (bundles and registration
//! objects) → [`Link::host_link`] (and, for `-r`, renaming the entry sections) →
//! [`Link::finish`] (time trace, `--explain`, `--emit-plan`). [`Link::run`] does them all.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, Jobserver, MappedFile, ToolFinder, ToolInvocation};

use crate::config::{BitcodeLibrary, LinkConfig};
use crate::device::{self, DeviceLink, Family};
use crate::error::{Error, InputName, Result};
use crate::explain::Explain;
use crate::invoke::{parallel, Runner};
use crate::opts::{Args, Opt};
use crate::plan::Step;
use crate::relocate;
use crate::resolve::{self, Archives, Group, TargetId};
use crate::scan::{self, DeviceInput, Located};
use crate::targets;
use crate::temp::{self, Temps};
use crate::trace::Trace;
use crate::wrap::OffkitWrap;

mod device22_phase;
mod device_phase;
mod llvm_options;
mod lto_phase;
mod wrap_phase;

use device_phase::DeviceCtx;
use llvm_options::check_llvm_options;
pub(crate) use llvm_options::check_llvm_options_of;

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
    /// The LLVM release whose registration objects to write.
    pub llvm: LlvmVersion,
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

/// One linked device image, as [`Link::link_devices`] gives it to [`Link::wrap`].
#[derive(Debug, Clone)]
pub struct DeviceImage {
    /// Its offload kind.
    pub kind: OffloadKind,
    /// Its triple.
    pub triple: String,
    /// Its arch (target ID); `None` for an `--override-image` without one.
    pub arch: Option<String>,
    /// The image.
    pub bytes: Arc<Vec<u8>>,
    /// The file holding it.
    pub path: PathBuf,
    /// The image is embedded as bitcode (`--embed-bitcode`).
    pub bitcode: bool,
}

/// The linked images of one offload kind, in the order their groups were linked.
#[derive(Debug, Clone)]
pub struct KindImages {
    /// The offload kind.
    pub kind: OffloadKind,
    /// Its images.
    pub images: Vec<DeviceImage>,
}

fn push_image(out: &mut Vec<KindImages>, image: DeviceImage) {
    match out.iter_mut().find(|k| k.kind == image.kind) {
        Some(k) => k.images.push(image),
        None => out.push(KindImages {
            kind: image.kind,
            images: vec![image],
        }),
    }
}

/// The files of a link, read ([`Link::load`]): the inputs found on the host command line, in
/// order, then the `--bitcode-library=` files.
#[derive(Debug)]
pub struct Inputs {
    located: Vec<Located>,
    files: Vec<MappedFile>,
    libraries: Vec<BitcodeLibrary>,
}

/// The device images of the inputs ([`Link::scan`]), borrowed from the [`Inputs`].
#[derive(Debug)]
pub struct Scanned<'d> {
    inputs: Vec<DeviceInput<'d>>,
    libraries: Vec<usize>,
}

impl<'d> Scanned<'d> {
    /// Every device image, by [`DeviceInput::id`]: the inputs' in command-line order, then the
    /// bitcode libraries'.
    pub fn inputs(&self) -> &[DeviceInput<'d>] {
        &self.inputs
    }
}

/// The groups to link ([`Link::group`]).
#[derive(Debug, Clone)]
pub struct Groups {
    /// One group per target, in the order LLVM 19 links them.
    pub groups: Vec<Group>,
    /// What a CPU group's link gets of the host link (`-L`, `-l`, archives, shared objects).
    host_libs: Vec<String>,
}

/// One link: a [`LinkConfig`], the environment, and the state the phases share (temporary
/// files, the commands run, the trace, the `--explain` report). Temporary files are removed
/// when it is dropped (unless `save_temps`).
pub struct Link<'a> {
    config: &'a LinkConfig,
    env: &'a Env,
    argv0: Option<&'a Path>,
    wrapper: &'a dyn Wrap,
    host: Args,
    exe: String,
    exe_file: String,
    finder: ToolFinder,
    temps: Temps,
    runner: Runner<'a>,
    trace: Trace,
    explain: Mutex<Explain>,
}

impl std::fmt::Debug for Link<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("config", self.config)
            .finish_non_exhaustive()
    }
}

fn is_windows(triple: &str) -> bool {
    triple.split('-').nth(2).is_some_and(|os| {
        os.starts_with("windows") || os.starts_with("win32") || os.starts_with("mingw32")
    })
}

/// The file the host link writes (LLVM 19's `ExecutableName`).
fn executable_name(host: &Args, host_triple: &str) -> String {
    if host.has(Opt::Output) {
        host.last(Opt::Output).unwrap_or("a.out").to_string()
    } else if host.has(Opt::Out) {
        host.last(Opt::Out).unwrap_or("a.exe").to_string()
    } else if is_windows(host_triple) {
        "a.exe".into()
    } else {
        "a.out".into()
    }
}

/// The tools of `llvm`'s release, found as its wrapper finds them (beside `argv0` and the
/// executable first, then where Debian installs the release, then on `PATH`).
pub(crate) fn finder(env: &Env, argv0: Option<&Path>, llvm: LlvmVersion) -> ToolFinder {
    ToolFinder::new(env, argv0).for_llvm(Path::new(llvm.debian_prefix()).join("bin"), llvm.major())
}

pub(crate) fn temp_dir(env: &Env) -> PathBuf {
    ["TMPDIR", "TMP", "TEMP", "TEMPDIR"]
        .iter()
        .find_map(|v| env.get_os(v).filter(|p| !p.is_empty()))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

fn target_text(t: &TargetId) -> String {
    if t.1.is_empty() {
        t.0.clone()
    } else {
        format!("{} {}", t.0, t.1)
    }
}

impl<'a> Link<'a> {
    /// A link of `config` in `env`, wrapped by offkit-wrap, its lines printed to stderr. Fails
    /// when the host command line cannot be parsed or holds an option of the wrapper.
    pub fn new(config: &'a LinkConfig, env: &'a Env) -> Result<Link<'a>> {
        if let Some((option, release)) = config.release_options() {
            return Err(Error::OtherRelease {
                option,
                release,
                chosen: config.llvm,
            });
        }
        let host = config.host()?;
        let exe = executable_name(&host, &config.host_triple);
        let exe_file = Path::new(&exe)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| exe.clone());
        Ok(Link {
            config,
            env,
            argv0: None,
            wrapper: &OffkitWrap,
            host,
            exe,
            exe_file,
            finder: finder(env, None, config.llvm),
            temps: Temps::new(temp_dir(env), config.save_temps),
            runner: Runner::new(config.verbose, config.dry_run, None),
            trace: Trace::new(config.time_trace.is_some(), config.time_trace_granularity),
            explain: Mutex::new(Explain::new(config.explain)),
        })
    }

    /// Looks for tools beside `argv0` first (as LLVM's tools do), and names it in messages.
    pub fn with_argv0(mut self, argv0: &'a Path) -> Self {
        self.argv0 = Some(argv0);
        self.finder = finder(self.env, Some(argv0), self.config.llvm);
        self
    }

    /// Makes the registration objects with `wrapper` instead of offkit-wrap.
    pub fn with_wrapper(mut self, wrapper: &'a dyn Wrap) -> Self {
        self.wrapper = wrapper;
        self
    }

    /// Sends the lines meant for stderr (commands, `--explain`) to `log`.
    pub fn with_log(mut self, log: &'a (dyn Fn(&str) + Sync)) -> Self {
        self.runner = Runner::new(self.config.verbose, self.config.dry_run, Some(log));
        self
    }

    /// The configuration.
    pub fn config(&self) -> &LinkConfig {
        self.config
    }

    /// The file the host link writes (LLVM 19's `ExecutableName`: `-o`, else `a.out`).
    pub fn output(&self) -> &str {
        &self.exe
    }

    /// Every phase in turn, then [`Link::finish`].
    pub fn run(&self) -> Result<()> {
        let inputs = self.load()?;
        let scanned = self.scan(&inputs)?;
        let groups = self.group(&scanned)?;
        let result = self.trace.scope("Execute linker wrapper", "", || {
            let images = self.link_devices(&scanned, &groups)?;
            let wrapped = self.wrap(&images)?;
            self.host_link(&wrapped)
        });
        self.finish(result)
    }

    /// The `--offload-targets=` (or `OFFKIT_OFFLOAD_TARGETS`) requests, if any.
    fn requests(&self) -> Result<Option<Vec<targets::Request>>> {
        Ok(match &self.config.offload_targets {
            Some(list) => {
                let r = targets::parse(list);
                if r.is_empty() {
                    return Err(Error::Usage(format!(
                        "--offload-targets={list} names no target"
                    )));
                }
                Some(r)
            }
            None => self
                .env
                .get("OFFKIT_OFFLOAD_TARGETS")
                .map(targets::parse)
                .filter(|r| !r.is_empty()),
        })
    }

    /// Phase 1a: checks the LLVM options and the target list, finds the inputs (library search
    /// as LLVM 19's wrapper does it) and reads them and the bitcode libraries.
    pub fn load(&self) -> Result<Inputs> {
        check_llvm_options(self)?;
        self.requests()?;
        // With --override-image LLVM 19 reads no input for device code.
        let override_images = !self.config.override_images.is_empty();
        let located = if override_images {
            Vec::new()
        } else {
            scan::locate(&self.host)?
        };
        let mut files: Vec<MappedFile> = located.iter().map(scan::load).collect::<Result<_>>()?;
        let libraries = if override_images {
            Vec::new()
        } else {
            self.config.bitcode_libraries.clone()
        };
        for l in &libraries {
            files.push(
                MappedFile::open_llvm(&l.path).map_err(|source| Error::Read {
                    path: l.path.clone(),
                    source,
                })?,
            );
        }
        Ok(Inputs {
            located,
            files,
            libraries,
        })
    }

    /// Phase 1b: the offload binaries in the inputs (objects, and archive members, lazy unless
    /// whole-archive), then one bitcode image per bitcode library.
    pub fn scan<'d>(&self, inputs: &'d Inputs) -> Result<Scanned<'d>> {
        let (scanned, lib_files) = inputs.files.split_at(inputs.located.len());
        let mut list = self.trace.scope("ExtractDeviceCode", "", || {
            scan::device_inputs(&inputs.located, scanned)
        })?;
        let mut libraries = Vec::new();
        for (lib, data) in inputs.libraries.iter().zip(lib_files) {
            let id = list.len();
            libraries.push(id);
            list.push(DeviceInput {
                id,
                origin: InputName::file(&lib.path),
                stem: lib
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                lazy: false,
                offset: 0,
                entry: offkit_format::binary::Entry {
                    image_kind: ImageKind::Bitcode,
                    offload_kind: OffloadKind::from_name_llvm19(&lib.kind),
                    flags: 0,
                    strings: vec![
                        (
                            "triple".as_bytes().into(),
                            lib.triple.as_bytes().to_vec().into(),
                        ),
                        (
                            "arch".as_bytes().into(),
                            lib.arch.as_bytes().to_vec().into(),
                        ),
                    ],
                    image: std::borrow::Cow::Borrowed(&data[..]),
                    image_offset: 0,
                },
            });
        }
        Ok(Scanned {
            inputs: list,
            libraries,
        })
    }

    /// Phase 2: which images are linked, grouped by target as LLVM 19 decides, and of those
    /// the groups `--offload-targets=` keeps.
    pub fn group(&self, scanned: &Scanned<'_>) -> Result<Groups> {
        let inputs = &scanned.inputs;
        let archives = match self.config.llvm {
            LlvmVersion::V19 => Archives::Symbols,
            _ => Archives::Targets {
                should_extract: &self.config.should_extract,
            },
        };
        let resolution = resolve::resolve(inputs, &scanned.libraries, archives)?;
        let mut exp = self.explain.lock().unwrap_or_else(|e| e.into_inner());
        exp.resolution(inputs, &resolution);
        let mut groups: Vec<Group> = Vec::new();
        if let Some(reqs) = &self.requests()? {
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
                    continue;
                }
                let what = target_text(&g.target);
                if self.config.verbose {
                    self.runner.say(&format!(
                        "offkit: dropping the {what} device images ({} input(s)): not in --offload-targets={list}",
                        g.inputs.len()
                    ));
                }
                exp.dropped(inputs, g, &list);
                self.runner.record(Step::Note(format!(
                    "dropped {what}: not in --offload-targets={list}"
                )));
            }
        } else {
            groups = resolution.groups.clone();
        }
        let host_libs = if groups.iter().any(|g| {
            matches!(
                device::family(&g.target.0, self.config.llvm),
                Ok(Family::Cpu)
            )
        }) {
            device::host_libraries(&self.host)?
        } else {
            Vec::new()
        };
        Ok(Groups { groups, host_libs })
    }

    /// Phase 3: the device links, in parallel (`jobs`, make's jobserver), then the
    /// `--override-image=` images; the images come back by offload kind.
    pub fn link_devices(&self, scanned: &Scanned<'_>, groups: &Groups) -> Result<Vec<KindImages>> {
        let ctx = DeviceCtx::new(self, &scanned.inputs, &groups.host_libs);
        let js = Jobserver::from_env(self.env);
        let jobs = self
            .config
            .jobs
            .unwrap_or(if js.is_some() { groups.groups.len() } else { 1 });
        let results = parallel(&groups.groups, jobs, js.as_ref(), |g| {
            self.trace
                .scope("Link device input", &target_text(&g.target), || {
                    ctx.link_group(g)
                })
        });
        let mut by_kind = self.override_images()?;
        for r in results {
            for image in r? {
                push_image(&mut by_kind, image);
            }
        }
        Ok(by_kind)
    }

    /// Phase 4: bundles (CUDA fatbinary, HIP offload bundle) and wraps the images of each
    /// offload kind; the registration objects, one per kind. With `--emit-fatbin-only` (LLVM
    /// 22) the bundle is written to the output instead, and there is nothing to wrap.
    pub fn wrap(&self, images: &[KindImages]) -> Result<Vec<PathBuf>> {
        let mut wrapped = Vec::new();
        for KindImages { kind, images } in images {
            // LLVM 19's order (offkit-wrap applies it to OpenMP images itself; CUDA and HIP
            // bundle their images in it).
            let keys: Vec<(&str, &str)> = images
                .iter()
                .map(|l| (l.triple.as_str(), l.arch.as_deref().unwrap_or("")))
                .collect();
            let sorted: Vec<&DeviceImage> = offkit_wrap::llvm19_order(&keys)
                .iter()
                .filter_map(|&i| images.get(i))
                .collect();
            let first_seen: Vec<&DeviceImage> = images.iter().collect();
            wrapped.extend(self.trace.scope("Wrap bundled images", kind.name(), || {
                self.wrap_kind(*kind, &first_seen, &sorted)
            })?);
        }
        Ok(wrapped)
    }

    /// Phase 5: the host link with the registration objects after `-o FILE`; for `-r`, the
    /// entry sections of the output renamed then. With `--emit-fatbin-only` there is none.
    pub fn host_link(&self, wrapped: &[PathBuf]) -> Result<()> {
        if self.config.emit_fatbin_only {
            return Ok(());
        }
        self.trace.scope("Execute host linker", "", || {
            // LLVM 22 checks before running it; LLVM 19 runs a program named "".
            if self.config.llvm != LlvmVersion::V19 && self.config.linker.as_os_str().is_empty() {
                return Err(Error::Usage(
                    "linker path missing, must pass 'linker-path'".into(),
                ));
            }
            let mut v: Vec<String> = Vec::new();
            for arg in &self.host.args {
                v.extend(arg.render());
                if matches!(arg.opt, Opt::Output | Opt::Out) {
                    v.extend(wrapped.iter().map(|p| p.to_string_lossy().into_owned()));
                }
            }
            let linker = ToolInvocation::new(&self.config.linker).args(v);
            self.runner.run(&linker)
        })?;
        if self.host.has(Opt::Relocatable) {
            self.relocate(&self.exe)?;
        }
        Ok(())
    }

    /// The end of a link, whatever `result` the phases had: writes the time trace (on
    /// success), prints the `--explain` report, writes the `--emit-plan` script; then
    /// `result`.
    pub fn finish(&self, result: Result<()>) -> Result<()> {
        if let (Ok(()), Some(file)) = (&result, &self.config.time_trace) {
            temp::write(file, self.trace.json("clang-linker-wrapper").as_bytes())?;
        }
        let exp = self.explain.lock().unwrap_or_else(|e| e.into_inner());
        for line in exp.lines() {
            self.runner.say(&format!("offkit: explain: {line}"));
        }
        if let Some(plan) = &self.config.emit_plan {
            let offkit = std::env::current_exe()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "offkit".into());
            let text = crate::plan::script(&self.runner.steps(), &self.temps.paths(), &offkit);
            temp::write(plan, text.as_bytes())?;
        }
        result
    }

    /// The last step of a relocatable link on its own: renames the entry sections of `file`
    /// (with the MD5 suffix of its contents) and empties its `.llvm.offloading`, in place.
    pub fn finish_relocatable(file: &Path, llvm: LlvmVersion) -> Result<()> {
        let contents = std::fs::read(file).map_err(|source| Error::Read {
            path: file.to_path_buf(),
            source,
        })?;
        let suffix = relocate::suffix(&contents);
        let out = relocate::rewrite(file, &contents, &suffix, llvm)?;
        temp::write_atomic(file, &out)
    }

    /// `file` as written by a tool; empty in a dry run when the tool did not run.
    fn read_back(&self, path: &Path) -> Result<Vec<u8>> {
        match std::fs::read(path) {
            Ok(b) => Ok(b),
            Err(_) if self.runner.dry_run => Ok(Vec::new()),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    fn override_images(&self) -> Result<Vec<KindImages>> {
        let mut out = Vec::new();
        for o in &self.config.override_images {
            let bytes = std::fs::read(&o.path).map_err(|source| Error::Read {
                path: o.path.clone(),
                source,
            })?;
            let what = format!("--override-image={}={}", o.kind, o.path.display());
            let (triple, arch) = crate::elf_target::target(&bytes, &what)?;
            let image = DeviceImage {
                kind: OffloadKind::from_name_llvm19(&o.kind),
                triple,
                arch,
                bytes: Arc::new(bytes),
                path: o.path.clone(),
                bitcode: false,
            };
            push_image(&mut out, image);
        }
        Ok(out)
    }

    fn relocate(&self, exe: &str) -> Result<()> {
        if is_windows(&self.config.host_triple) {
            return Err(Error::Usage(
                "Relocatable linking is not supported on COFF targets".into(),
            ));
        }
        let contents = self.read_back(Path::new(exe))?;
        let suffix = relocate::suffix(&contents);
        // LLVM 19's llvm-objcopy step when the tool is there (the output is then LLVM's, byte
        // for byte); otherwise offkit's in-place rewrite (`finish_relocatable`), which links
        // the same way.
        let llvm = self.config.llvm;
        if let Ok(objcopy) = self.finder.find("llvm-objcopy", None) {
            let inv = ToolInvocation::new(objcopy).args(relocate::objcopy_args(exe, &suffix, llvm));
            return self.runner.run(&inv);
        }
        self.runner
            .announce("llvm-objcopy", &relocate::objcopy_args(exe, &suffix, llvm));
        self.runner.record(Step::Relocate {
            file: PathBuf::from(exe),
            llvm,
        });
        if self.runner.dry_run {
            return Ok(());
        }
        let out = relocate::rewrite(Path::new(exe), &contents, &suffix, llvm)?;
        temp::write_atomic(Path::new(exe), &out)
    }
}
