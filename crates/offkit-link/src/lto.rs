//! LLVM 19's in-process LTO of a group's bitcode, run by LLVM 19's `llvm-lto2`.
//!
//! The linker wrapper links a group's bitcode with `lto::LTO` before the device link and hands
//! clang the one object it makes (assembly for NVPTX, and with `--save-temps`),
//! `<exe>.<triple>.<arch>[.<task>].{o,s}`. `llvm-lto2 run` drives the same `lto::LTO` with the
//! same configuration when given the symbol resolutions on its command line, so offkit computes
//! them as the wrapper does (`linkBitcodeFiles`):
//!
//! - prevailing: defined, not a weak symbol that some input defines strongly, and the first
//!   such definition of its name;
//! - visible to regular objects (`x`): named by a non-bitcode device object's symbol table, in
//!   a section whose name is a C identifier (it gets `__start_`/`__stop_`), or prevailing,
//!   not hidden and not omittable from the symbol table;
//! - final definition in the linkage unit (`l`): not default visibility, defined, not common.
//!
//! (`ExportDynamic` has no `llvm-lto2` flag in LLVM 19; it only matters for symbols a shared
//! device library uses, which never happens in a device link.) The result is LLVM 19's object,
//! byte for byte.

use std::collections::HashSet;
use std::path::Path;

use object::{Object, ObjectSymbol};
use offkit_llvm::bitcode::{symbol_table, Visibility};
use offkit_tools::ToolInvocation;

use crate::error::{Error, InputName, Result};

/// One bitcode input: the file it was written to, its bytes, and where they came from.
#[derive(Debug, Clone, Copy)]
pub struct Bitcode<'a> {
    /// The file `llvm-lto2` reads (and names in `-r`).
    pub path: &'a str,
    /// The image.
    pub image: &'a [u8],
    /// Its absolute offset in its container (for messages).
    pub offset: u64,
    /// Its container.
    pub origin: &'a InputName,
    /// Its `feature` string (comma-separated), if any.
    pub features: &'a str,
}

/// What the LTO is for.
#[derive(Debug, Clone)]
pub struct Config<'a> {
    /// The group's triple.
    pub triple: &'a str,
    /// The group's arch (target ID).
    pub arch: &'a str,
    /// `--opt-level` (`O0`..`O3`).
    pub opt_level: &'a str,
    /// Whether every input of the group is bitcode (`--whole-program`).
    pub whole_program: bool,
    /// Emit assembly (NVPTX, or `--save-temps`).
    pub assembly: bool,
    /// Keep the intermediate modules (`llvm-lto2 --save-temps`).
    pub save_modules: bool,
    /// LLVM options for the LTO (`-mllvm`, `--offload-opt=`, remarks), as `llvm-lto2` takes them.
    pub llvm_options: Vec<String>,
}

/// LLVM's `isValidCIdentifier`.
fn c_identifier(s: &[u8]) -> bool {
    match s.split_first() {
        Some((&first, rest)) => {
            (first.is_ascii_alphabetic() || first == b'_')
                && rest.iter().all(|&c| c == b'_' || c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// The names in the symbol tables of the group's non-bitcode device objects (relocatable ELF).
pub fn regular_object_symbols(objects: &[&[u8]]) -> HashSet<Vec<u8>> {
    let mut names = HashSet::new();
    for data in objects {
        let Ok(file) = object::File::parse(*data) else {
            continue;
        };
        if file.kind() != object::ObjectKind::Relocatable {
            continue;
        }
        for s in file.symbols() {
            if let Ok(n) = s.name_bytes() {
                names.insert(n.to_vec());
            }
        }
    }
    names
}

/// The unified target features (LLVM 19's `getTargetFeatures`): every input's features in
/// order, then from the last, each feature name kept once.
fn features(inputs: &[Bitcode<'_>]) -> Vec<String> {
    let all: Vec<&str> = inputs
        .iter()
        .flat_map(|b| b.features.split(','))
        .filter(|f| !f.is_empty())
        .collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for f in all.iter().rev() {
        if seen.insert(f.get(1..).unwrap_or("")) {
            out.push(f.to_string());
        }
    }
    out
}

/// The `llvm-lto2 run` command linking `inputs` to `<out_base>.<task>`.
pub fn command(
    llvm_lto2: &Path,
    c: &Config<'_>,
    inputs: &[Bitcode<'_>],
    regular: &HashSet<Vec<u8>>,
    out_base: &Path,
) -> Result<ToolInvocation> {
    let level = c.opt_level.get(1..2).unwrap_or("2");
    let cpu = if c.triple.starts_with("amdgcn") {
        c.arch.split(':').next().unwrap_or("")
    } else {
        c.arch
    };
    let mut inv = ToolInvocation::new(llvm_lto2)
        .arg("run")
        .arg("-o")
        .arg(out_base)
        .arg(format!("-O{level}"))
        .arg(format!("--cg-opt-level={level}"))
        .arg(format!("--default-triple={}", c.triple))
        .arg("--relocation-model=pic")
        // The wrapper's LTO discards value names (lto::Config's default); llvm-lto2 keeps them.
        .arg("--lto-discard-value-names");
    if !cpu.is_empty() {
        inv = inv.arg(format!("-mcpu={cpu}"));
    }
    let feats = features(inputs);
    if !feats.is_empty() {
        inv = inv.arg(format!("-mattr={}", feats.join(",")));
    }
    if c.whole_program {
        inv = inv.arg("--whole-program-visibility");
    }
    if c.assembly {
        inv = inv.arg("--filetype=asm");
    }
    if c.save_modules {
        inv = inv.arg("--save-temps");
    }
    inv = inv.args(&c.llvm_options);
    let tables = inputs
        .iter()
        .map(|b| {
            symbol_table(b.image, b.offset).map_err(|source| Error::BadInput {
                input: b.origin.clone(),
                source: Box::new(source.into()),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let strong: HashSet<&[u8]> = tables
        .iter()
        .flat_map(|t| t.symbols.iter())
        .filter(|s| !s.is_format_specific() && s.is_global() && !s.is_weak() && !s.is_undefined())
        .map(|s| s.name)
        .collect();
    let mut prevailing: HashSet<&[u8]> = HashSet::new();
    for (b, t) in inputs.iter().zip(&tables) {
        inv = inv.arg(b.path);
        // The symbols `lto::InputFile` has: global and not format-specific.
        for s in t
            .symbols
            .iter()
            .filter(|s| s.is_global() && !s.is_format_specific())
        {
            let name = s.name;
            // Defined, not a weak copy of a strongly defined name, and the first definition.
            let overridden = s.is_weak() && strong.contains(name);
            let p = !s.is_undefined() && !overridden && prevailing.insert(name);
            let x = regular.contains(name)
                || c_identifier(s.section_name)
                || (p && s.visibility() != Visibility::Hidden && !s.can_be_omitted());
            let l = s.visibility() != Visibility::Default && !s.is_undefined() && !s.is_common();
            let mut flags = String::new();
            for (on, f) in [(p, 'p'), (l, 'l'), (x, 'x')] {
                if on {
                    flags.push(f);
                }
            }
            inv = inv.arg("-r").arg(format!(
                "{},{},{flags}",
                b.path,
                String::from_utf8_lossy(name)
            ));
        }
    }
    Ok(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_identifiers() {
        assert!(c_identifier(b"omp_offloading_entries"));
        assert!(c_identifier(b"_x1"));
        assert!(!c_identifier(b""));
        assert!(!c_identifier(b".data"));
        assert!(!c_identifier(b"1x"));
    }

    #[test]
    fn features_as_llvm_19() {
        let origin = InputName::file(Path::new("x"));
        let b = |f| Bitcode {
            path: "",
            image: &[],
            offset: 0,
            origin: &origin,
            features: f,
        };
        assert_eq!(
            features(&[b("+a,-b"), b("+b"), b("")]),
            vec!["+b".to_string(), "+a".to_string()]
        );
    }
}
