//! The wrapper module's bitcode as LLVM writes it from the module it builds in memory.
//!
//! `llvm-as --preserve-bc-uselistorder=false` on [`crate::Wrapper::write_llvm_ir`]'s text gives
//! the bytes of LLVM's own `WriteBitcodeToFile` of the same module but for one thing: a
//! function's value symbol table (the names of its blocks and instructions) is written in the
//! iteration order of the function's `ValueSymbolTable`, a `StringMap`, and that order depends
//! on the order the names were created in — the IR parser creates a block when it is first
//! referenced, LLVM's wrapper (`OffloadWrapper.cpp`) creates all blocks first. Colliding names
//! then land in other buckets. The records themselves are the same, and each keeps its length
//! wherever it stands, so putting LLVM's order back is a permutation of the records' bits inside
//! the block.
//!
//! Only `.{cuda,hip}.globals_reg` has more than one name; every other function's table (one
//! block, `entry`) is left as it is.

use offkit_llvm::adt::stringmap::StringMap;
use offkit_llvm::bitcode::bitstream::{Cursor, Entry};

use crate::error::Error;
use crate::release::Walk;

const BLOCKINFO_BLOCK: u32 = 0;
const MODULE_BLOCK: u32 = 8;
const FUNCTION_BLOCK: u32 = 12;
const VALUE_SYMTAB_BLOCK: u32 = 14;
/// `VST_CODE_ENTRY`: `[valueid, namechar…]`.
const VST_ENTRY: u32 = 1;
/// `VST_CODE_BBENTRY`: `[bbid, namechar…]`.
const VST_BBENTRY: u32 = 2;

/// The names of LLVM 22's `.{cuda,hip}.globals_reg` in the order `createRegisterGlobalsFunction`
/// creates them: its eleven blocks, then the named instructions (the `entry` phi becomes
/// `entry1`, the block having the name).
const GLOBALS22: [&str; 23] = [
    "entry",
    "while.entry",
    "if.kind",
    "if.then",
    "if.else",
    "sw.global",
    "sw.managed",
    "sw.surface",
    "sw.texture",
    "if.end",
    "while.end",
    "entry1",
    "addr",
    "aux_addr",
    "kind",
    "name",
    "size",
    "flags",
    "data",
    "type",
    "extern",
    "constant",
    "normalized",
];

/// The names of a function that LLVM creates in another order than the IR parser, in LLVM's
/// order, for the entry walk `walk` (LLVM 19's module is only ever written as an object).
fn creation_order(walk: Walk) -> &'static [&'static str] {
    match walk {
        Walk::Llvm19 => &[],
        Walk::Llvm22 => &GLOBALS22,
    }
}

/// One record of a value symbol table: its bits and its name.
struct Named {
    start: u64,
    end: u64,
    name: Vec<u8>,
}

fn bad(source: offkit_llvm::Error) -> Error {
    Error::Bitcode { source }
}

/// Rewrites `bc` (bitcode of a module with the entry walk `walk`) so that the value symbol
/// tables of its functions are in the order LLVM writes for the module it builds.
pub(crate) fn as_llvm_writes(bc: &mut [u8], walk: Walk) -> Result<(), Error> {
    let order = creation_order(walk);
    if order.is_empty() {
        return Ok(());
    }
    let mut map = StringMap::new();
    for name in order {
        map.insert(name.as_bytes(), ());
    }
    let wanted: Vec<&[u8]> = map.keys().collect();
    for table in tables(bc)? {
        let mut names: Vec<&[u8]> = table.iter().map(|e| e.name.as_slice()).collect();
        names.sort();
        let mut expect = wanted.clone();
        expect.sort();
        if names != expect {
            continue;
        }
        permute(bc, &table, &wanted);
    }
    Ok(())
}

/// The value symbol tables of the module's functions, each as its records.
fn tables(bc: &[u8]) -> Result<Vec<Vec<Named>>, Error> {
    // After the magic (`BC` 0xC0DE), which a Darwin wrapper header (magic 0x0B17C0DE, version,
    // offset, size, CPU type) puts at its offset.
    // The wrapper pads the file after the bitcode.
    let (start, end) = match bc.get(..16) {
        Some([0xde, 0xc0, 0x17, 0x0b, _, _, _, _, o0, o1, o2, o3, s0, s1, s2, s3]) => {
            let o = u32::from_le_bytes([*o0, *o1, *o2, *o3]) as usize;
            let n = u32::from_le_bytes([*s0, *s1, *s2, *s3]) as usize;
            (o, o.saturating_add(n).min(bc.len()))
        }
        _ => (0, bc.len()),
    };
    let data = bc.get(..end).unwrap_or(bc);
    let mut c = Cursor::new(data, 0, (start as u64 + 4) * 8);
    let mut out = Vec::new();
    loop {
        if c.bits().at_end() {
            return Ok(out);
        }
        match c.advance().map_err(bad)? {
            Entry::SubBlock {
                id: MODULE_BLOCK, ..
            } => {
                c.enter_block(MODULE_BLOCK).map_err(bad)?;
                module(&mut c, &mut out)?;
            }
            Entry::SubBlock { .. } => c.skip_block().map_err(bad)?,
            Entry::Record(_) | Entry::EndBlock => {}
        }
    }
}

fn module(c: &mut Cursor<'_>, out: &mut Vec<Vec<Named>>) -> Result<(), Error> {
    loop {
        match c.advance().map_err(bad)? {
            Entry::EndBlock => return Ok(()),
            Entry::SubBlock {
                id: BLOCKINFO_BLOCK,
                ..
            } => c.read_blockinfo().map_err(bad)?,
            Entry::SubBlock {
                id: FUNCTION_BLOCK, ..
            } => {
                c.enter_block(FUNCTION_BLOCK).map_err(bad)?;
                loop {
                    match c.advance().map_err(bad)? {
                        Entry::EndBlock => break,
                        Entry::SubBlock {
                            id: VALUE_SYMTAB_BLOCK,
                            ..
                        } => {
                            c.enter_block(VALUE_SYMTAB_BLOCK).map_err(bad)?;
                            out.push(symtab(c)?);
                        }
                        Entry::SubBlock { .. } => c.skip_block().map_err(bad)?,
                        Entry::Record(_) => {}
                    }
                }
            }
            Entry::SubBlock { .. } => c.skip_block().map_err(bad)?,
            Entry::Record(_) => {}
        }
    }
}

/// The records of the value symbol table just entered, with their bit ranges. A table with
/// anything but name records is returned empty: it is left alone.
fn symtab(c: &mut Cursor<'_>) -> Result<Vec<Named>, Error> {
    let mut entries = Vec::new();
    let mut plain = true;
    loop {
        let start = c.bits().bit();
        match c.advance().map_err(bad)? {
            Entry::EndBlock => break,
            Entry::SubBlock { .. } => {
                c.skip_block().map_err(bad)?;
                plain = false;
            }
            Entry::Record(r) => {
                let end = c.bits().bit();
                let ops: Vec<u64> = r.ops().collect::<Result<_, _>>().map_err(bad)?;
                // (LLVM's writer defines no abbreviation inside the table: its records follow
                // one another, each from its abbreviation ID to its last operand.)
                if !matches!(r.code, VST_ENTRY | VST_BBENTRY) || ops.is_empty() {
                    plain = false;
                    continue;
                }
                let name = ops[1..].iter().map(|&b| b as u8).collect();
                entries.push(Named { start, end, name });
            }
        }
    }
    Ok(if plain { entries } else { Vec::new() })
}

/// Writes the records of `table` back, from where the first one starts, in the order of
/// `names`.
fn permute(bc: &mut [u8], table: &[Named], names: &[&[u8]]) {
    let Some(first) = table.first() else {
        return;
    };
    // The bytes the records span (the image constants elsewhere in the file are not copied).
    let lo = first.start / 8;
    let hi = table.iter().map(|e| e.end.div_ceil(8)).max().unwrap_or(lo);
    let snapshot = bc
        .get(lo as usize..hi as usize)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let mut at = first.start;
    for name in names {
        if let Some(e) = table.iter().find(|e| e.name == *name) {
            for i in 0..e.end - e.start {
                set_bit(bc, at + i, get_bit(&snapshot, e.start + i - lo * 8));
            }
            at += e.end - e.start;
        }
    }
}

fn get_bit(data: &[u8], bit: u64) -> bool {
    data.get((bit / 8) as usize)
        .is_some_and(|b| b >> (bit % 8) & 1 == 1)
}

fn set_bit(data: &mut [u8], bit: u64, v: bool) {
    if let Some(b) = data.get_mut((bit / 8) as usize) {
        let m = 1 << (bit % 8);
        if v {
            *b |= m;
        } else {
            *b &= !m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        let mut d = [0u8; 2];
        set_bit(&mut d, 9, true);
        assert_eq!(d, [0, 2]);
        assert!(get_bit(&d, 9) && !get_bit(&d, 8) && !get_bit(&d, 99));
        set_bit(&mut d, 9, false);
        assert_eq!(d, [0, 0]);
    }

    #[test]
    fn llvm_order_is_a_permutation_of_the_names() {
        let mut map = StringMap::new();
        for name in GLOBALS22 {
            map.insert(name.as_bytes(), ());
        }
        let mut keys: Vec<&[u8]> = map.keys().collect();
        assert_eq!(keys.len(), GLOBALS22.len());
        keys.sort();
        let mut names: Vec<&[u8]> = GLOBALS22.iter().map(|n| n.as_bytes()).collect();
        names.sort();
        assert_eq!(keys, names);
    }
}
