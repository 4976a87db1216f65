//! `clang-nvlink-wrapper`, as LLVM 19's or 22's: what clang runs as the NVPTX device linker.
//! NVIDIA's `nvlink` takes neither archives nor bitcode, so the wrapper resolves archive
//! members by symbols, links the bitcode (LTO, by `llvm-lto2` given the symbol resolutions the
//! wrapper computes), assembles the PTX with `ptxas` and hands `nvlink` the cubins:
//!
//! ```text
//! inputs, -l (lib<name>.a) ─symbols─► extracted members ─bitcode─► llvm-lto2 ─► <o>-XXXXXX.s
//!   ─ptxas -m64 -c … -arch sm_NN─► .cubin ─┐
//!   other objects ─copied─► .cubin (.o for host objects, LLVM 22) ─┴─► nvlink [-o a.out] <args> files
//! ```
//!
//! The release differs in its option table ([`opts`]), in host objects (22 hands them on as
//! `.o`, 19 as `.cubin`), in `ptxas -g` (22: `-O0 -g` and a warning, 19: `-O0`), and in
//! requiring `--arch` (22; 19 runs `ptxas -arch ` and nvlink without one): `Release`.

pub mod opts;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use offkit_llvm::bitcode::{symbol_table, Visibility};
use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, ToolInvocation};

use crate::error::{Error, Result};
use crate::invoke::Runner;
use crate::temp::Temps;
use opts::{Args, Opt};

/// What differs between the releases' pipelines (the option tables aside).
#[derive(Debug, Clone, Copy)]
struct Release {
    /// Non-NVPTX relocatable objects are host objects (`hasFatBinary`), passed on as `.o`.
    host_objects: bool,
    /// `ptxas` and `nvlink` need `--arch`.
    arch_required: bool,
    /// `-g` gives `ptxas -O0 -g` (and a warning unless `--plugin-opt=O0`), not only `-O0`.
    ptxas_debug: bool,
}

impl Release {
    fn of(llvm: LlvmVersion) -> Release {
        match llvm {
            LlvmVersion::V19 => Release {
                host_objects: false,
                arch_required: false,
                ptxas_debug: false,
            },
            _ => Release {
                host_objects: true,
                arch_required: true,
                ptxas_debug: true,
            },
        }
    }
}

/// One input: its bytes and the name LLVM gives its buffer (the path, or the member's name).
#[derive(Debug)]
struct Input {
    name: String,
    data: Vec<u8>,
    lazy: bool,
}

/// One entry of the wrapper's symbol table (`Symbol`).
#[derive(Debug, Clone, Copy, Default)]
struct Sym {
    /// The input that defines (or first named) it; `None` for an empty entry.
    file: Option<usize>,
    undefined: bool,
    weak: bool,
    used_in_regular: bool,
}

/// The link, configured.
pub struct Nvlink<'a> {
    args: Args,
    llvm: LlvmVersion,
    release: Release,
    env: &'a Env,
    argv0: &'a Path,
    temps: Temps,
    runner: Runner<'a>,
    warn: &'a (dyn Fn(&str) + Sync),
}

impl std::fmt::Debug for Nvlink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvlink")
            .field("llvm", &self.llvm)
            .finish_non_exhaustive()
    }
}

/// `StringRef::getAsInteger`-style positive integer of `--plugin-opt=jobs=`/`lto-partitions=`.
fn positive(args: &Args, opt: Opt) -> Result<Option<u32>> {
    let Some(a) = args.args.iter().rev().find(|a| a.opt == opt) else {
        return Ok(None);
    };
    match offkit_llvm::cl::integer::parse_u64(a.value())
        .filter(|&n| n > 0)
        .and_then(|n| u32::try_from(n).ok())
    {
        Some(n) => Ok(Some(n)),
        None => Err(Error::Usage(format!(
            "{}{}: expected a positive integer, got '{}'",
            a.spelling,
            a.value(),
            a.value()
        ))),
    }
}

fn stem(name: &str) -> String {
    let file = Path::new(name)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match file.rfind('.') {
        Some(i) if i > 0 => file[..i].to_string(),
        _ => file,
    }
}

/// `Triple::nvptx`/`nvptx64` ELF: `EM_CUDA`.
const EM_CUDA: u16 = 190;

impl<'a> Nvlink<'a> {
    /// A link of `args` (parsed with `llvm`'s table) as `argv0`, in `env`; command lines go
    /// to stderr, warnings through `warn` (as `<argv0>: warning: …`).
    pub fn new(
        args: Args,
        llvm: LlvmVersion,
        env: &'a Env,
        argv0: &'a Path,
        warn: &'a (dyn Fn(&str) + Sync),
    ) -> Self {
        let dry_run = args.has(Opt::DryRun);
        let save = args.has(Opt::SaveTemps);
        Nvlink {
            release: Release::of(llvm),
            temps: Temps::new(crate::link::temp_dir(env), save),
            runner: Runner::new(false, dry_run, None),
            args,
            llvm,
            env,
            argv0,
            warn,
        }
    }

    fn dry_run(&self) -> bool {
        self.runner.dry_run
    }

    fn output(&self) -> &str {
        self.args.last(Opt::Output).unwrap_or("a.out")
    }

    /// The link: the LLVM options checked, the inputs resolved, LTO and ptxas, nvlink.
    pub fn run(&self) -> Result<()> {
        let mut llvm_opts: Vec<String> = Vec::new();
        for a in &self.args.args {
            if matches!(a.opt, Opt::Mllvm | Opt::PluginOpt) {
                llvm_opts.push(a.value().to_string());
            }
        }
        crate::link::check_llvm_options_of(self.env, Some(self.argv0), self.llvm, &llvm_opts)?;
        let files = self.inputs()?;
        self.nvlink(&files)
    }

    /// A program found in `dirs`, then on `PATH` (`findProgram`); under `--dry-run` its name.
    fn find_program(&self, name: &str, dirs: &[PathBuf]) -> Result<PathBuf> {
        if self.dry_run() {
            return Ok(PathBuf::from(name));
        }
        let path = self.env.get_os("PATH").cloned().unwrap_or_default();
        dirs.iter()
            .cloned()
            .chain(std::env::split_paths(&path))
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| Error::Usage(format!("Unable to find '{name}' in path")))
    }

    fn cuda_bin(&self) -> Vec<PathBuf> {
        self.args
            .last(Opt::CudaPath)
            .map(|p| PathBuf::from(format!("{p}/bin")))
            .into_iter()
            .collect()
    }

    /// The files on the command line, archive members expanded (`getInput`'s first half).
    fn read_inputs(&self) -> Result<Vec<Input>> {
        let dirs: Vec<&str> = self.args.values(Opt::LibraryPath);
        let mut whole = false;
        let mut out = Vec::new();
        for a in &self.args.args {
            let name = match a.opt {
                Opt::WholeArchive | Opt::NoWholeArchive => {
                    whole = a.opt == Opt::WholeArchive;
                    continue;
                }
                Opt::Library => {
                    let v = a.value();
                    let found = match v.strip_prefix(':') {
                        Some(file) => dirs
                            .iter()
                            .map(|d| Path::new(d).join(file))
                            .find(|p| p.exists()),
                        None => dirs
                            .iter()
                            .map(|d| Path::new(d).join(format!("lib{v}.a")))
                            .find(|p| p.exists()),
                    };
                    found
                        .ok_or_else(|| Error::LibraryNotFound(v.to_string()))?
                        .to_string_lossy()
                        .into_owned()
                }
                Opt::Input => a.spelling.clone(),
                _ => continue,
            };
            let p = Path::new(&name);
            if !p.exists() || p.is_dir() {
                continue;
            }
            let data = offkit_tools::MappedFile::open_llvm(p).map_err(|source| Error::Read {
                path: p.to_path_buf(),
                source,
            })?;
            match crate::scan::magic(&data) {
                crate::scan::Magic::Bitcode | crate::scan::Magic::ElfRelocatable => {
                    out.push(Input {
                        name,
                        data: data.to_vec(),
                        lazy: false,
                    })
                }
                crate::scan::Magic::Archive => {
                    let archive = object::read::archive::ArchiveFile::parse(&data[..])
                        .map_err(|e| Error::Usage(e.to_string()))?;
                    for m in archive.members() {
                        let m = m.map_err(|e| Error::Usage(e.to_string()))?;
                        let bytes = m.data(&data[..]).map_err(|e| Error::Usage(e.to_string()))?;
                        out.push(Input {
                            name: String::from_utf8_lossy(m.name()).into_owned(),
                            data: bytes.to_vec(),
                            lazy: !whole,
                        });
                    }
                }
                _ => return Err(Error::Usage("Unsupported file type".into())),
            }
        }
        Ok(out)
    }

    /// `hasFatBinary`: a relocatable object for another machine, a host object that nvlink
    /// takes as it is (LLVM 22).
    fn host_object(&self, data: &[u8]) -> bool {
        if !self.release.host_objects
            || (self.dry_run() && self.args.has(Opt::AssumeDeviceObject))
            || crate::scan::magic(data) != crate::scan::Magic::ElfRelocatable
        {
            return false;
        }
        let Ok(file) = object::File::parse(data) else {
            return false;
        };
        let _ = file;
        let machine = data.get(18..20).map(|b| {
            if data.get(5) == Some(&2) {
                u16::from_be_bytes([b[0], b[1]])
            } else {
                u16::from_le_bytes([b[0], b[1]])
            }
        });
        machine != Some(EM_CUDA)
    }

    /// `getSymbols`: whether input `i` is extracted, the table updated as LLVM does.
    fn symbols(&self, i: usize, input: &Input, table: &mut HashMap<Vec<u8>, Sym>) -> Result<bool> {
        let lazy = input.lazy;
        let mut extracted = !lazy;
        let mut pending: HashMap<Vec<u8>, Sym> = HashMap::new();
        match crate::scan::magic(&input.data) {
            crate::scan::Magic::Bitcode => {
                let t = symbol_table(&input.data, 0).map_err(|e| Error::Usage(e.to_string()))?;
                for s in t
                    .symbols
                    .iter()
                    .filter(|s| !s.is_format_specific() && s.is_global())
                {
                    let name = s.name.to_vec();
                    let old = if !table.contains_key(&name) && lazy {
                        pending.entry(name).or_default()
                    } else {
                        table.entry(name).or_default()
                    };
                    let mut sym = Sym {
                        file: Some(i),
                        undefined: s.is_undefined(),
                        weak: s.is_weak(),
                        used_in_regular: false,
                    };
                    if old.file.is_none() {
                        *old = sym;
                    }
                    let resolves = !sym.undefined
                        && (old.undefined || (old.weak && !sym.weak))
                        && !(old.weak && old.undefined && lazy);
                    extracted |= resolves;
                    sym.used_in_regular = old.used_in_regular;
                    if resolves {
                        *old = sym;
                    }
                }
            }
            crate::scan::Magic::ElfRelocatable => {
                use object::{Object, ObjectSymbol};
                let file = object::File::parse(&input.data[..])
                    .map_err(|e| Error::Usage(e.to_string()))?;
                for s in file.symbols() {
                    let name = s
                        .name_bytes()
                        .map_err(|e| Error::Usage(e.to_string()))?
                        .to_vec();
                    let old = if !table.contains_key(&name) && lazy {
                        pending.entry(name).or_default()
                    } else {
                        table.entry(name).or_default()
                    };
                    let sym = Sym {
                        file: Some(i),
                        undefined: s.is_undefined(),
                        weak: s.is_weak(),
                        used_in_regular: false,
                    };
                    if old.file.is_none() {
                        *old = sym;
                    }
                    let resolves = old.undefined && !sym.undefined && (!old.weak || !lazy);
                    extracted |= resolves;
                    if resolves {
                        *old = sym;
                    }
                    old.used_in_regular = true;
                }
            }
            _ => return Err(Error::Usage("Unsupported file type".into())),
        }
        if extracted {
            table.extend(pending);
        }
        Ok(extracted)
    }

    /// `getInput`: the files nvlink gets, in order (cubins from the LTO first, then the other
    /// inputs' copies); none with `--lto-emit-llvm`/`--lto-emit-asm`.
    fn inputs(&self) -> Result<Vec<PathBuf>> {
        let mut inputs: Vec<Option<Input>> = self.read_inputs()?.into_iter().map(Some).collect();
        let mut table: HashMap<Vec<u8>, Sym> = HashMap::new();
        for u in self.args.values(Opt::Undefined) {
            table.insert(
                u.as_bytes().to_vec(),
                Sym {
                    file: None,
                    undefined: true,
                    weak: false,
                    used_in_regular: true,
                },
            );
        }
        let mut linked: Vec<(usize, Input)> = Vec::new();
        let mut extracted = true;
        while extracted {
            extracted = false;
            for (i, slot) in inputs.iter_mut().enumerate() {
                let Some(input) = slot else { continue };
                if !self.host_object(&input.data) {
                    let e = self.symbols(i, input, &mut table)?;
                    extracted |= e;
                    if !e {
                        continue;
                    }
                }
                if let Some(input) = slot.take() {
                    linked.push((i, input));
                }
            }
        }
        let (bitcode, others): (Vec<_>, Vec<_>) = linked
            .into_iter()
            .partition(|(_, f)| crate::scan::magic(&f.data) == crate::scan::Magic::Bitcode);
        let mut files = Vec::new();
        if !bitcode.is_empty() {
            let lto = self.lto(&bitcode, &table)?;
            if self.args.has(Opt::LtoEmitLlvm) || self.args.has(Opt::LtoEmitAsm) {
                return Ok(Vec::new());
            }
            for s in lto {
                files.push(self.ptxas(&s)?);
            }
        }
        for (_, f) in others {
            let ext = if self.host_object(&f.data) {
                "o"
            } else {
                "cubin"
            };
            files.push(self.temps.create_with(&stem(&f.name), ext, &f.data)?);
        }
        Ok(files)
    }

    /// The LTO of the extracted bitcode, by `llvm-lto2` with the wrapper's configuration and
    /// resolutions; the assembly files, one per task.
    fn lto(
        &self,
        bitcode: &[(usize, Input)],
        table: &HashMap<Vec<u8>, Sym>,
    ) -> Result<Vec<PathBuf>> {
        let a = &self.args;
        let level = a.last(Opt::OptLevel).unwrap_or("2");
        let level = level.get(..1).unwrap_or("2");
        let jobs = positive(a, Opt::Jobs)?;
        let partitions = positive(a, Opt::LtoPartitions)?;
        let finder = crate::link::finder(self.env, Some(self.argv0), self.llvm);
        let llvm_lto2 = finder.find("llvm-lto2", None)?;
        // offkit's own files (LLVM links in memory): removed at the end, whatever --save-temps.
        let private = Temps::new(crate::link::temp_dir(self.env), false);
        let work = private
            .private_dir("offkit-nvlink")?
            .unwrap_or_else(|| crate::link::temp_dir(self.env));
        let saving = self.temps.saving();
        // With --save-temps LLVM's hooks write `<o>.<task>.<n>.<stage>.bc` beside the output,
        // as llvm-lto2 --save-temps does for `-o <o>`.
        let base = if saving {
            PathBuf::from(self.output())
        } else {
            work.join("lto")
        };
        let mut inv = ToolInvocation::new(llvm_lto2)
            .arg("run")
            .arg("-o")
            .arg(&base)
            .arg(format!("-O{level}"))
            .arg(format!("--cg-opt-level={level}"))
            .arg("--default-triple=nvptx64-nvidia-cuda")
            .arg("--relocation-model=pic")
            .arg("--lto-discard-value-names")
            .arg("--filetype=asm");
        if let Some(arch) = a.last(Opt::Arch) {
            inv = inv.arg(format!("-mcpu={arch}"));
        }
        if let Some(f) = a.last(Opt::Feature) {
            inv = inv.arg(format!("-mattr={f}"));
        }
        if let Some(p) = partitions {
            inv = inv.arg(format!("--lto-partitions={p}"));
        }
        if let Some(j) = jobs {
            inv = inv.arg(format!("--thinlto-threads={j}"));
        }
        if a.has(Opt::ThinLto) {
            inv = inv.arg("--unified-lto=thin");
        }
        if saving || a.has(Opt::LtoEmitLlvm) {
            inv = inv.arg("--save-temps");
        }
        for (opt, flag) in [
            (Opt::RemarksFilename, "--pass-remarks-output="),
            (Opt::RemarksFilter, "--pass-remarks-filter="),
            (Opt::RemarksFormat, "--pass-remarks-format="),
            (Opt::LtoNewpmPasses, "--opt-pipeline="),
        ] {
            if let Some(v) = a.last(opt) {
                inv = inv.arg(format!("{flag}{v}"));
            }
        }
        if a.has(Opt::RemarksWithHotness) {
            inv = inv.arg("--pass-remarks-with-hotness");
        }
        if a.has(Opt::LtoDebugPassManager) {
            inv = inv.arg("--debug-pass-manager");
        }
        for x in &a.args {
            if matches!(x.opt, Opt::Mllvm | Opt::PluginOpt) {
                inv = inv.arg(x.value());
            }
        }
        let relocatable = a.has(Opt::Relocatable);
        for (i, f) in bitcode {
            // llvm-lto2 reads files: an archive member is written out under its own name.
            let path = if Path::new(&f.name).is_file() && !f.lazy {
                PathBuf::from(&f.name)
            } else {
                let name = Path::new(&f.name)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let (prefix, ext) = match name.rsplit_once('.') {
                    Some((p, e)) => (p.to_string(), e.to_string()),
                    None => (name, String::new()),
                };
                private.create_in(&work, &prefix, &ext, &f.data)?
            };
            inv = inv.arg(&path);
            let t = symbol_table(&f.data, 0).map_err(|e| Error::Usage(e.to_string()))?;
            for s in t
                .symbols
                .iter()
                .filter(|s| s.is_global() && !s.is_format_specific())
            {
                let entry = table.get(s.name).copied().unwrap_or_default();
                let p = !s.is_undefined() && entry.file == Some(*i);
                let x = relocatable
                    || entry.used_in_regular
                    || (p && s.visibility() != Visibility::Hidden && !s.can_be_omitted());
                let mut flags = String::new();
                for (on, c) in [(p, 'p'), (true, 'l'), (x, 'x')] {
                    if on {
                        flags.push(c);
                    }
                }
                inv = inv.arg("-r").arg(format!(
                    "{},{},{flags}",
                    path.display(),
                    String::from_utf8_lossy(s.name)
                ));
            }
        }
        // LLVM's LTO runs in a dry run too.
        let ran = self.runner.run_in_process(&inv);
        let out = ran.and_then(|()| self.lto_outputs(&base));
        let _ = std::fs::remove_dir_all(&work);
        out
    }

    /// Moves what llvm-lto2 wrote for each task beside `base` to where LLVM's wrapper writes it.
    fn lto_outputs(&self, base: &Path) -> Result<Vec<PathBuf>> {
        let a = &self.args;
        let mut out = Vec::new();
        for task in 0.. {
            let produced = PathBuf::from(format!("{}.{task}", base.display()));
            if !produced.exists() {
                break;
            }
            let to = if a.has(Opt::LtoEmitLlvm) {
                let bc = PathBuf::from(format!("{}.{task}.5.precodegen.bc", base.display()));
                let _ = std::fs::remove_file(&produced);
                bc.clone()
                    .exists()
                    .then_some(bc)
                    .ok_or_else(|| Error::Usage("the LTO wrote no bitcode".into()))?
            } else {
                produced
            };
            let dest = if a.has(Opt::LtoEmitLlvm) || a.has(Opt::LtoEmitAsm) {
                PathBuf::from(self.output())
            } else {
                self.temps.create(&stem(self.output()), "s")?
            };
            std::fs::rename(&to, &dest).map_err(|source| Error::Write {
                path: dest.clone(),
                source,
            })?;
            out.push(dest);
        }
        Ok(out)
    }

    /// `runPTXAs`: assembles `file` into a cubin.
    fn ptxas(&self, file: &Path) -> Result<PathBuf> {
        let a = &self.args;
        let mut dirs = self.cuda_bin();
        if let Some(p) = a.last(Opt::PtxasPath) {
            dirs.push(PathBuf::from(p));
        }
        let ptxas = self.find_program("ptxas", &dirs)?;
        if self.release.arch_required && !a.has(Opt::Arch) {
            return Err(Error::Usage(
                "must pass in an explicit nvptx64 gpu architecture to 'ptxas'".into(),
            ));
        }
        let cubin = self.temps.create(&stem(self.output()), "cubin")?;
        let mut inv = ToolInvocation::new(ptxas).arg("-m64").arg("-c").arg(file);
        if a.has(Opt::Verbose) {
            inv = inv.arg("-v");
        }
        let level = a.last(Opt::OptLevel).unwrap_or("3");
        if a.has(Opt::Debug) {
            if self.release.ptxas_debug {
                if level != "0" {
                    (self.warn)("Optimized debugging not supported, overriding to '-O0'");
                }
                inv = inv.arg("-O0").arg("-g");
            } else {
                inv = inv.arg("-O0");
            }
        } else {
            inv = inv.arg(format!("-O{level}"));
        }
        inv = inv
            .arg("-arch")
            .arg(a.last(Opt::Arch).unwrap_or(""))
            .arg("-o")
            .arg(&cubin);
        self.run_printed(&inv, "ptxas")?;
        Ok(cubin)
    }

    /// Runs `inv`, printed under `--dry-run` or `-v`; its failure is `'<tool>' failed`.
    fn run_printed(&self, inv: &ToolInvocation, tool: &str) -> Result<()> {
        let args: Vec<String> = inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        if self.dry_run() || self.args.has(Opt::Verbose) {
            self.runner.say(&crate::invoke::llvm_command_line(
                &inv.program.to_string_lossy(),
                &args,
            ));
        }
        if self.dry_run() {
            return Ok(());
        }
        inv.run_inherit().map_err(|source| Error::ToolFailed {
            tool: Path::new(&inv.program)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| tool.to_string()),
            source,
        })
    }

    /// `runNVLink`.
    fn nvlink(&self, files: &[PathBuf]) -> Result<()> {
        let a = &self.args;
        if a.has(Opt::LtoEmitAsm) || a.has(Opt::LtoEmitLlvm) {
            return Ok(());
        }
        let nvlink = self.find_program("nvlink", &self.cuda_bin())?;
        if self.release.arch_required && !a.has(Opt::Arch) {
            return Err(Error::Usage(
                "must pass in an explicit nvptx64 gpu architecture to 'nvlink'".into(),
            ));
        }
        let mut inv = ToolInvocation::new(nvlink);
        if !a.has(Opt::Output) {
            inv = inv.arg("-o").arg("a.out");
        }
        for x in &a.args {
            if x.opt.wrapper_only() || matches!(x.opt, Opt::Input | Opt::Library) {
                continue;
            }
            inv = inv.args(x.render());
        }
        inv = inv.args(files);
        self.run_printed(&inv, "nvlink")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("/x/a.out"), "a");
        assert_eq!(stem("libnv.a"), "libnv");
        assert_eq!(stem("out"), "out");
    }
}
