//! The resources of a cubin's functions, as `cuobjdump -res-usage` reports them (checked against
//! CUDA 13.5's `cuobjdump` on cubins of CUDA 13's `ptxas` and `nvlink`, relocatable and linked,
//! and on the jax CUDA 13 plugin's, see `docs/formats.md`):
//!
//! - module-wide ("Common"): `GLOBAL`, the bytes of `.nv.global` and `.nv.global.init`;
//!   `CONSTANT[n]`, the size of each `.nv.constant<n>` section, in section order;
//! - per function — each `STT_FUNC` symbol that owns a `.text.<name>` section, in symbol order
//!   (a kernel's callees that `ptxas` placed in its section are not listed): `REG`, from
//!   `EIATTR_REGCOUNT`; `STACK`, from `EIATTR_MIN_STACK_SIZE` (a linked entry function: its
//!   frame with what it calls; `0xffffffff`, "cannot be determined statically", is
//!   `None`) else `EIATTR_MAX_STACK_SIZE` (a relocatable object's, 0 until linked), else 0;
//!   `SHARED`, the size of `.nv.shared.<name>`; `LOCAL`, of `.nv.local.<name>`; `CONSTANT[n]`,
//!   of `.nv.constant<n>.<name>`. A function's own frame (`EIATTR_FRAME_SIZE`) is kept too.
//!
//! `cuobjdump` also prints counts of bound textures, surfaces and samplers, which the
//! architectures of CUDA 12 and later do not have (sm_75 and later bind them through the
//! constant bank; a cubin with `.texref` is one `cuobjdump` 13.5 itself cannot report); offkit
//! does not count them.

use std::collections::HashMap;

use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym, SymbolTable};
use object::{elf, Endianness, ReadRef};

use super::STO_CUDA_ENTRY;
use crate::error::{Error, Result};
use crate::nvinfo::{self, SHT_CUDA_INFO};
use offkit_read::limits;

/// The size of one constant bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bank {
    /// The bank's number (`n` of `.nv.constant<n>`).
    pub bank: u32,
    /// Its bytes.
    pub size: u64,
}

/// What one function of a cubin uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Whether it is a kernel (`STO_CUDA_ENTRY`).
    pub entry: bool,
    /// Registers (`EIATTR_REGCOUNT`; 0 where the cubin records none).
    pub registers: u32,
    /// Stack bytes (`EIATTR_MIN_STACK_SIZE`, else `EIATTR_MAX_STACK_SIZE`, else 0); `None` where
    /// they cannot be determined statically (recursion, indirect calls).
    pub stack: Option<u32>,
    /// Its own frame's bytes (`EIATTR_FRAME_SIZE`), if recorded.
    pub frame: Option<u32>,
    /// Shared memory bytes (`.nv.shared.<name>`).
    pub shared: u64,
    /// Local memory bytes outside the stack (`.nv.local.<name>`).
    pub local: u64,
    /// Its constant banks (`.nv.constant<n>.<name>`: bank 0 holds its parameters).
    pub constant: Vec<Bank>,
}

/// What a cubin uses, module-wide and per function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    /// Global memory bytes (`.nv.global`, `.nv.global.init`).
    pub global: u64,
    /// The module's constant banks (`.nv.constant<n>`).
    pub constant: Vec<Bank>,
    /// The functions, in symbol order.
    pub functions: Vec<Function>,
}

/// Per-function attributes of `.nv.info` sections, by symbol index.
#[derive(Default)]
struct Attributes {
    registers: HashMap<u32, u32>,
    min_stack: HashMap<u32, u32>,
    max_stack: HashMap<u32, u32>,
    frame: HashMap<u32, u32>,
}

/// The per-function sections, by function name.
#[derive(Default)]
struct PerFunction {
    shared: u64,
    local: u64,
    constant: Vec<Bank>,
}

/// `.nv.constant<n>` and `.nv.constant<n>.<function>`: the bank and the function.
fn constant_section(name: &[u8]) -> Option<(u32, Option<&[u8]>)> {
    let rest = name.strip_prefix(b".nv.constant")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (n, tail) = rest.split_at(digits);
    let bank = std::str::from_utf8(n).ok()?.parse().ok()?;
    match tail {
        [] => Some((bank, None)),
        [b'.', f @ ..] if !f.is_empty() => Some((bank, Some(f))),
        _ => None,
    }
}

/// The resources of the cubin whose sections are `sections` and symbols `symbols` (`base`: the
/// absolute offset of the cubin, for errors).
pub(crate) fn resources<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
    sections: &SectionTable<'d, Elf, R>,
    symbols: &SymbolTable<'d, Elf, R>,
    endian: Endianness,
    data: R,
    base: u64,
) -> Result<Resources> {
    let mut out = Resources::default();
    let mut attrs = Attributes::default();
    let mut per: HashMap<&'d [u8], PerFunction> = HashMap::new();
    let mut text: HashMap<usize, &'d [u8]> = HashMap::new();
    for (index, s) in sections.enumerate() {
        let at = base + s.sh_offset(endian).into();
        let Ok(name) = sections.section_name(endian, s) else {
            continue;
        };
        let size: u64 = s.sh_size(endian).into();
        if s.sh_type(endian).0 == SHT_CUDA_INFO {
            let bytes = s.data(endian, data).map_err(|source| Error::Object {
                what: ".nv.info section",
                offset: at,
                source,
            })?;
            read_attributes(bytes, at, &mut attrs)?;
        } else if name == b".nv.global" || name == b".nv.global.init" {
            out.global = out.global.saturating_add(size);
        } else if let Some((bank, function)) = constant_section(name) {
            let b = Bank { bank, size };
            match function {
                None => out.constant.push(b),
                Some(f) => per.entry(f).or_default().constant.push(b),
            }
        } else if let Some(f) = name.strip_prefix(b".nv.shared.") {
            per.entry(f).or_default().shared += size;
        } else if let Some(f) = name.strip_prefix(b".nv.local.") {
            per.entry(f).or_default().local += size;
        } else if let Some(f) = name.strip_prefix(b".text.") {
            text.insert(index.0, f);
        }
    }
    for (i, sym) in symbols.enumerate() {
        if sym.st_type() != elf::STT_FUNC {
            continue;
        }
        let Some(section) = symbols.symbol_section(endian, sym, i).ok().flatten() else {
            continue;
        };
        let Ok(name) = sym.name(endian, symbols.strings()) else {
            continue;
        };
        if text.get(&section.0) != Some(&name) {
            continue;
        }
        if out.functions.len() >= limits::MAX_KERNELS {
            return Err(Error::limit(
                limits::Limit::Kernels,
                "functions of the cubin",
                base,
                out.functions.len() as u64 + 1,
            ));
        }
        let idx = i.0 as u32;
        let stack = match attrs.min_stack.get(&idx).or(attrs.max_stack.get(&idx)) {
            Some(&u32::MAX) => None,
            Some(&v) => Some(v),
            None => Some(0),
        };
        let f = per.remove(name).unwrap_or_default();
        out.functions.push(Function {
            name: String::from_utf8_lossy(name).into_owned(),
            entry: sym.st_other().0 & STO_CUDA_ENTRY != 0,
            registers: attrs.registers.get(&idx).copied().unwrap_or(0),
            stack,
            frame: attrs.frame.get(&idx).copied(),
            shared: f.shared,
            local: f.local,
            constant: f.constant,
        });
    }
    Ok(out)
}

fn read_attributes(bytes: &[u8], at: u64, attrs: &mut Attributes) -> Result<()> {
    for a in nvinfo::attributes(bytes, at) {
        let a = a?;
        let map = match a.attribute {
            nvinfo::EIATTR_REGCOUNT => &mut attrs.registers,
            nvinfo::EIATTR_MIN_STACK_SIZE => &mut attrs.min_stack,
            nvinfo::EIATTR_MAX_STACK_SIZE => &mut attrs.max_stack,
            nvinfo::EIATTR_FRAME_SIZE => &mut attrs.frame,
            _ => continue,
        };
        let (sym, value) = a.function_value().ok_or_else(|| Error::Invalid {
            what: ".nv.info record",
            offset: a.offset,
            reason: format!(
                "attribute {:#x} does not hold a symbol index and a value",
                a.attribute
            ),
        })?;
        map.insert(sym, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_section_names() {
        assert_eq!(constant_section(b".nv.constant4"), Some((4, None)));
        assert_eq!(
            constant_section(b".nv.constant0._Z1kv"),
            Some((0, Some(&b"_Z1kv"[..])))
        );
        assert_eq!(constant_section(b".nv.constant"), None);
        assert_eq!(constant_section(b".nv.constant3."), None);
        assert_eq!(constant_section(b".nv.constantx"), None);
    }
}
