//! Reading the parts of a module block that embedded offload objects need: global values
//! (value numbering and names), the type table (array element types), module-level constants
//! (`SETTYPE`, `STRING`/`CSTRING`/`DATA`, and a count of every other record so that value IDs
//! stay right) and module-level metadata (strings, values, nodes, named nodes).

use std::borrow::Cow;

use super::bitstream::{Bits, Cursor, Entry, Record};
use super::{block, Embedded, Module, ModuleHeader, OFFLOADING_SECTION};
use crate::error::{Error, Result};
use offkit_read::limits;

const EMBEDDED_OBJECTS: &[u8] = b"llvm.embedded.objects";

/// Module record codes (`MODULE_CODE_*`).
mod code {
    pub(crate) const VERSION: u32 = 1;
    pub(crate) const TRIPLE: u32 = 2;
    pub(crate) const DATALAYOUT: u32 = 3;
    pub(crate) const GLOBALVAR: u32 = 7;
    pub(crate) const FUNCTION: u32 = 8;
    pub(crate) const ALIAS_OLD: u32 = 9;
    pub(crate) const ALIAS: u32 = 14;
    pub(crate) const VSTOFFSET: u32 = 13;
    pub(crate) const SOURCE_FILENAME: u32 = 16;
    pub(crate) const IFUNC: u32 = 18;
}

/// Constants record codes (`CST_CODE_*`).
mod cst {
    pub(crate) const SETTYPE: u32 = 1;
    pub(crate) const STRING: u32 = 8;
    pub(crate) const CSTRING: u32 = 9;
    pub(crate) const DATA: u32 = 22;
}

/// Metadata record codes (`METADATA_*`).
mod md {
    pub(crate) const VALUE: u32 = 2;
    pub(crate) const NODE: u32 = 3;
    pub(crate) const NAME: u32 = 4;
    pub(crate) const DISTINCT_NODE: u32 = 5;
    pub(crate) const NAMED_NODE: u32 = 10;
    pub(crate) const STRINGS: u32 = 35;

    /// Whether a record defines one metadata ID, as in LLVM 19's `parseOneMetadata`. `NAME`,
    /// `KIND`, `NAMED_NODE`, `ATTACHMENT`, `GLOBAL_DECL_ATTACHMENT`, `INDEX_OFFSET`, `INDEX` and
    /// unknown codes define none; `STRINGS` defines one per string.
    pub(crate) fn defines_id(code: u32) -> bool {
        matches!(code, 1..=3 | 5 | 7..=9 | 12..=34 | 37 | 40 | 41 | 44..=47)
    }
}

/// Reads an `IDENTIFICATION` block (the cursor is just after its ID): the producer string.
/// Like LLVM 19, an epoch other than 0 and an unknown record are errors.
pub(super) fn read_identification(c: &mut Cursor<'_>) -> Result<Vec<u8>> {
    c.enter_block(block::IDENTIFICATION)?;
    let mut producer = Vec::new();
    loop {
        match c.advance()? {
            Entry::EndBlock => return Ok(producer),
            Entry::SubBlock { offset, .. } => {
                return Err(Error::Invalid {
                    what: "bitcode IDENTIFICATION block",
                    offset,
                    reason: "unexpected sub-block".into(),
                })
            }
            Entry::Record(r) => match r.code {
                1 => producer = r.bytes()?.into_owned(),
                2 => {
                    let [epoch] = r.first::<1>()?;
                    if epoch != Some(0) {
                        return Err(Error::UnsupportedVersion {
                            what: "bitcode epoch",
                            offset: r.offset,
                            version: epoch.unwrap_or(0),
                            known: "0",
                        });
                    }
                }
                other => {
                    return Err(Error::Invalid {
                        what: "bitcode IDENTIFICATION block",
                        offset: r.offset,
                        reason: format!("unknown record code {other}"),
                    })
                }
            },
        }
    }
}

/// Walks the module block's own records, skipping every sub-block except `BLOCKINFO`.
pub(super) fn read_header(m: &Module<'_>) -> Result<ModuleHeader> {
    let mut c = m.enter()?;
    let mut h = ModuleHeader::default();
    loop {
        match c.advance()? {
            Entry::EndBlock => return Ok(h),
            Entry::SubBlock { id: 0, .. } => c.read_blockinfo()?,
            Entry::SubBlock { .. } => c.skip_block()?,
            Entry::Record(r) => match r.code {
                code::VERSION => h.version = r.first::<1>()?[0].unwrap_or(0),
                code::TRIPLE => h.triple = r.bytes()?.into_owned(),
                code::DATALAYOUT => h.datalayout = r.bytes()?.into_owned(),
                code::SOURCE_FILENAME => h.source_filename = r.bytes()?.into_owned(),
                _ => {}
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GlobalKind {
    Variable,
    Other,
}

#[derive(Debug, Clone)]
struct Global<'d> {
    kind: GlobalKind,
    name: &'d [u8],
    /// The initializer's value ID.
    init: Option<u64>,
}

#[derive(Debug, Clone)]
enum Value<'d> {
    Global(Global<'d>),
    /// A string or data constant, with the type set by the last `SETTYPE`.
    Data(Record<'d>, Option<u64>),
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Int(u64),
    /// An array or vector of the element type ID.
    Sequence(u64),
    /// A floating-point type of this many bytes (`half`, `bfloat`, `float`, `double`).
    Float(u8),
    Other,
}

#[derive(Debug, Clone, Copy)]
enum Md<'d> {
    Str(&'d [u8]),
    Value(u64),
    /// A node: operand count and its first two operands (metadata ID + 1, 0 for null).
    Node(u64, u64, u64),
    Other,
}

#[derive(Debug, Default)]
struct Reader<'d> {
    use_strtab: bool,
    vst_offset: bool,
    strtab: &'d [u8],
    values: Vec<Value<'d>>,
    types: Vec<Type>,
    mds: Vec<Md<'d>>,
    /// Operands (metadata IDs) of `!llvm.embedded.objects`, with the offset of their record.
    embedded: Vec<(u64, u64)>,
}

fn invalid(what: &'static str, offset: u64, reason: impl Into<String>) -> Error {
    Error::Invalid {
        what,
        offset,
        reason: reason.into(),
    }
}

impl<'d> Reader<'d> {
    fn module(&mut self, c: &mut Cursor<'d>) -> Result<()> {
        loop {
            match c.advance()? {
                Entry::EndBlock => return Ok(()),
                Entry::SubBlock { id, .. } => match id {
                    0 => c.read_blockinfo()?,
                    block::TYPE => {
                        c.enter_block(id)?;
                        self.types(c)?;
                    }
                    block::CONSTANTS => {
                        c.enter_block(id)?;
                        self.constants(c)?;
                    }
                    block::METADATA => {
                        c.enter_block(id)?;
                        self.metadata(c)?;
                    }
                    // With a forward-declared value symbol table (every LLVM since 3.8),
                    // LLVM's lazy module loading stops at the first function body: what follows
                    // is not part of the module it extracts from.
                    block::FUNCTION if self.vst_offset => return Ok(()),
                    _ => c.skip_block()?,
                },
                Entry::Record(r) => self.module_record(&r)?,
            }
        }
    }

    fn module_record(&mut self, r: &Record<'d>) -> Result<()> {
        match r.code {
            code::VERSION => {
                let v = r.first::<1>()?[0]
                    .ok_or_else(|| invalid("bitcode VERSION record", r.offset, "empty record"))?;
                if v > 2 {
                    return Err(Error::UnsupportedVersion {
                        what: "bitcode module",
                        offset: r.offset,
                        version: v,
                        known: "0, 1, 2",
                    });
                }
                self.use_strtab = v >= 2;
            }
            code::VSTOFFSET => {
                // LLVM keeps `Record[0] - 1` in an unsigned and tests it for non-zero.
                let v = r.first::<1>()?[0]
                    .ok_or_else(|| invalid("bitcode VSTOFFSET record", r.offset, "empty record"))?;
                self.vst_offset = v != 1;
            }
            code::GLOBALVAR | code::FUNCTION | code::ALIAS | code::ALIAS_OLD | code::IFUNC => {
                let ops = r.first::<8>()?;
                let (name, rest) = if self.use_strtab {
                    (self.strtab_name(r, ops[0], ops[1])?, &ops[2..])
                } else {
                    // Version 0/1 modules name globals in the value symbol table, which is
                    // not read here.
                    (&[][..], &ops[..])
                };
                let kind = if r.code == code::GLOBALVAR {
                    GlobalKind::Variable
                } else {
                    GlobalKind::Other
                };
                let mut init = None;
                if kind == GlobalKind::Variable {
                    // [type, isconst|explicit, initid, linkage, alignment, section, …]
                    if rest.iter().take(6).any(Option::is_none) {
                        return Err(invalid(
                            "bitcode GLOBALVAR record",
                            r.offset,
                            "fewer than 6 operands",
                        ));
                    }
                    init = rest
                        .get(2)
                        .copied()
                        .flatten()
                        .filter(|&id| id != 0)
                        .map(|id| id - 1);
                }
                self.values.push(Value::Global(Global { kind, name, init }));
            }
            _ => {}
        }
        Ok(())
    }

    fn strtab_name(&self, r: &Record<'d>, off: Option<u64>, size: Option<u64>) -> Result<&'d [u8]> {
        let (Some(off), Some(size)) = (off, size) else {
            return Err(invalid("bitcode global value record", r.offset, "no name"));
        };
        off.checked_add(size)
            .and_then(|end| {
                self.strtab
                    .get(usize::try_from(off).ok()?..usize::try_from(end).ok()?)
            })
            .ok_or_else(|| {
                invalid(
                    "bitcode global value record",
                    r.offset,
                    format!(
                        "name at {off:#x}+{size:#x} is outside the {:#x}-byte string table",
                        self.strtab.len()
                    ),
                )
            })
    }

    fn types(&mut self, c: &mut Cursor<'d>) -> Result<()> {
        loop {
            let r = match c.advance()? {
                Entry::EndBlock => return Ok(()),
                Entry::SubBlock { .. } => {
                    c.skip_block()?;
                    continue;
                }
                Entry::Record(r) => r,
            };
            let t = match r.code {
                // NUMENTRY and STRUCT_NAME define no type.
                1 | 19 => continue,
                7 => Type::Int(r.first::<1>()?[0].unwrap_or(0)),
                11 | 12 => Type::Sequence(r.first::<2>()?[1].unwrap_or(u64::MAX)),
                10 | 23 => Type::Float(2),
                3 => Type::Float(4),
                4 => Type::Float(8),
                2 | 5 | 6 | 8 | 9 | 13..=18 | 20..=22 | 24..=26 => Type::Other,
                other => {
                    return Err(invalid(
                        "bitcode type record",
                        r.offset,
                        format!("unknown type code {other}"),
                    ))
                }
            };
            self.types.push(t);
        }
    }

    fn constants(&mut self, c: &mut Cursor<'d>) -> Result<()> {
        let mut ty = None;
        loop {
            let r = match c.advance()? {
                Entry::EndBlock => return Ok(()),
                Entry::SubBlock { .. } => {
                    c.skip_block()?;
                    continue;
                }
                Entry::Record(r) => r,
            };
            match r.code {
                cst::SETTYPE => {
                    let id = r.first::<1>()?[0]
                        .filter(|&t| t < self.types.len() as u64)
                        .ok_or_else(|| invalid("bitcode SETTYPE record", r.offset, "bad type"))?;
                    ty = Some(id);
                }
                cst::STRING | cst::CSTRING | cst::DATA => self.values.push(Value::Data(r, ty)),
                // Every other record defines one constant.
                _ => self.values.push(Value::Other),
            }
        }
    }

    fn metadata(&mut self, c: &mut Cursor<'d>) -> Result<()> {
        loop {
            let r = match c.advance()? {
                Entry::EndBlock => return Ok(()),
                Entry::SubBlock { .. } => {
                    c.skip_block()?;
                    continue;
                }
                Entry::Record(r) => r,
            };
            match r.code {
                md::STRINGS => self.md_strings(&r)?,
                md::VALUE => {
                    let [_, v, extra] = r.first::<3>()?;
                    match (v, extra) {
                        (Some(v), None) => self.mds.push(Md::Value(v)),
                        _ => {
                            return Err(invalid(
                                "bitcode METADATA_VALUE record",
                                r.offset,
                                "not 2 operands",
                            ))
                        }
                    }
                }
                md::NODE | md::DISTINCT_NODE => {
                    let mut ops = r.ops();
                    let op0 = ops.next().transpose()?;
                    let op1 = ops.next().transpose()?;
                    let mut n = u64::from(op0.is_some()) + u64::from(op1.is_some());
                    for op in ops {
                        op?;
                        n += 1;
                    }
                    self.mds
                        .push(Md::Node(n, op0.unwrap_or(0), op1.unwrap_or(0)));
                }
                md::NAME => {
                    let name = r.bytes()?;
                    let next = match c.advance()? {
                        Entry::Record(n) if n.code == md::NAMED_NODE => n,
                        _ => {
                            return Err(invalid(
                                "bitcode METADATA_NAME record",
                                r.offset,
                                "not followed by METADATA_NAMED_NODE",
                            ))
                        }
                    };
                    if *name == *EMBEDDED_OBJECTS {
                        for op in next.ops() {
                            self.embedded.push((op?, next.offset));
                        }
                    } else {
                        // Decode the operands anyway, so that a broken record is an error.
                        next.count()?;
                    }
                }
                code if md::defines_id(code) => self.mds.push(Md::Other),
                _ => {}
            }
        }
    }

    /// `METADATA_STRINGS: [count, offset] blob`: `count` VBR6 lengths in a bitstream, then at
    /// byte `offset` of the blob the characters of every string, back to back.
    fn md_strings(&mut self, r: &Record<'d>) -> Result<()> {
        let bad = |reason: String| invalid("bitcode METADATA_STRINGS record", r.offset, reason);
        let [count, offset] = r.first::<2>()?;
        let (Some(count), Some(offset)) = (count, offset) else {
            return Err(bad("fewer than 2 operands".into()));
        };
        let (blob, at) = r.blob()?.ok_or_else(|| bad("no blob".into()))?;
        if count == 0 {
            return Err(bad("no strings".into()));
        }
        let split = usize::try_from(offset)
            .ok()
            .filter(|&o| o <= blob.len())
            .ok_or_else(|| bad(format!("offset {offset:#x} is past the blob")))?;
        let (lengths, mut chars) = blob.split_at(split);
        let mut bits = Bits::new(lengths, at, 0);
        // Each length takes at least 6 bits.
        if count.saturating_mul(6) > bits.bits_left() {
            return Err(bad(format!("{count} lengths do not fit in {split} bytes")));
        }
        for _ in 0..count {
            let len = bits.vbr(6, 32, "bitcode metadata string length")?;
            let len = usize::try_from(len)
                .ok()
                .filter(|&l| l <= chars.len())
                .ok_or_else(|| bad("string characters are truncated".into()))?;
            let (s, rest) = chars.split_at(len);
            self.mds.push(Md::Str(s));
            chars = rest;
        }
        Ok(())
    }

    fn md(&self, id: u64, offset: u64) -> Result<Md<'d>> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.mds.get(i))
            .copied()
            .ok_or_else(|| {
                invalid(
                    "bitcode metadata reference",
                    offset,
                    format!(
                        "metadata ID {id} is not defined ({} defined)",
                        self.mds.len()
                    ),
                )
            })
    }

    fn value(&self, id: u64, offset: u64) -> Result<&Value<'d>> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.values.get(i))
            .ok_or_else(|| {
                invalid(
                    "bitcode value reference",
                    offset,
                    format!(
                        "value ID {id} is not defined ({} defined)",
                        self.values.len()
                    ),
                )
            })
    }

    /// The operand `op` (metadata ID + 1) of a node, or `None` for null.
    fn operand(&self, op: u64, offset: u64) -> Result<Option<Md<'d>>> {
        match op {
            0 => Ok(None),
            n => self.md(n - 1, offset).map(Some),
        }
    }

    fn embedded(&self) -> Result<Vec<Embedded<'d>>> {
        let mut out = Vec::new();
        for &(id, offset) in &self.embedded {
            let Md::Node(n, op0, op1) = self.md(id, offset)? else {
                return Err(invalid(
                    "bitcode named metadata",
                    offset,
                    format!("operand {id} of !llvm.embedded.objects is not a node"),
                ));
            };
            if n < 2 {
                continue;
            }
            let Some(Md::Str(section)) = self.operand(op1, offset)? else {
                continue;
            };
            if section != OFFLOADING_SECTION {
                continue;
            }
            let Some(Md::Value(v)) = self.operand(op0, offset)? else {
                continue;
            };
            let Value::Global(g) = self.value(v, offset)? else {
                continue;
            };
            let (GlobalKind::Variable, Some(init)) = (g.kind, g.init) else {
                continue;
            };
            let Value::Data(record, ty) = self.value(init, offset)? else {
                continue;
            };
            let (data, at) = self.data(record, *ty)?;
            out.push(Embedded {
                name: g.name,
                section,
                offset: at,
                data,
            });
        }
        Ok(out)
    }

    /// The bytes of a `ConstantDataSequential` (`getAsString`), and where they are.
    fn data(&self, r: &Record<'d>, ty: Option<u64>) -> Result<(Cow<'d, [u8]>, u64)> {
        let empty = || invalid("bitcode constant", r.offset, "empty string or data record");
        if r.code != cst::DATA {
            let (mut bytes, at) = r.bytes_at()?;
            if bytes.is_empty() {
                return Err(empty());
            }
            let offset = at.unwrap_or(r.offset);
            if r.code == cst::CSTRING {
                bytes.to_mut().push(0);
            }
            return Ok((bytes, offset));
        }
        let elt = ty
            .and_then(|t| self.types.get(usize::try_from(t).ok()?))
            .and_then(|t| match t {
                Type::Sequence(e) => self.types.get(usize::try_from(*e).ok()?),
                _ => None,
            });
        let width =
            match elt {
                Some(Type::Int(w @ (8 | 16 | 32 | 64))) => (*w / 8) as usize,
                Some(Type::Float(b)) => usize::from(*b),
                _ => return Err(invalid(
                    "bitcode DATA constant",
                    r.offset,
                    "its type is not an array or vector of i8/i16/i32/i64/half/bfloat/float/double",
                )),
            };
        let mut out = Vec::new();
        for op in r.ops() {
            // Elements can be narrower in the stream than in memory (an i64 from a 1-bit
            // field), so the output is bounded by the limit on decoded sizes.
            if out.len() as u64 >= limits::MAX_INFLATED_SIZE {
                return Err(Error::limit(
                    limits::Limit::InflatedSize,
                    "bitcode DATA constant",
                    r.offset,
                    out.len() as u64,
                ));
            }
            out.extend_from_slice(op?.to_le_bytes().get(..width).unwrap_or_default());
        }
        if out.is_empty() {
            return Err(empty());
        }
        Ok((Cow::Owned(out), r.offset))
    }
}

/// The embedded offload objects of module `m` (see [`super::embedded_objects`]).
pub(super) fn embedded_objects<'d>(m: &Module<'d>) -> Result<Vec<Embedded<'d>>> {
    let mut c = m.enter()?;
    let mut r = Reader {
        strtab: m.strtab.0,
        ..Reader::default()
    };
    r.module(&mut c)?;
    r.embedded()
}

#[cfg(test)]
mod tests {
    use super::md::defines_id;

    #[test]
    fn metadata_codes_that_define_ids() {
        for code in [4, 6, 10, 11, 35, 36, 38, 39, 42, 43, 48, 99] {
            assert!(!defines_id(code), "{code}");
        }
        for code in [1, 2, 3, 5, 7, 8, 9, 12, 20, 34, 37, 40, 41, 44, 47] {
            assert!(defines_id(code), "{code}");
        }
    }
}
