//! A bounded reader of LLVM's bitstream container (`llvm/docs/BitCodeFormat.rst`).
//!
//! A bitstream is a sequence of bits read least-significant first from little-endian bytes.
//! Inside a block, every item starts with an abbreviation ID of the block's width: 0 ends the
//! block, 1 enters a sub-block, 2 defines an abbreviation, 3 is an unabbreviated record and 4+
//! an abbreviated record. Blocks start with their abbreviation width and a 32-bit length word, so
//! blocks that are not needed are skipped without reading them.
//!
//! Records are not decoded when they are read: [`Record`] remembers where its operands start, and
//! [`Record::ops`] decodes them on demand. That keeps skipping cheap and lets large string
//! constants (an embedded offload object is one) be decoded straight into bytes, or borrowed when
//! they happen to be byte-aligned.
//!
//! Like LLVM 19's `BitstreamCursor`: VBR fields are at most 64 bits (32 for codes, counts and
//! widths), fixed and VBR abbreviation operands at most 32 bits wide, `fixed(0)`/`vbr(0)` are the
//! literal 0, an array is the second-to-last operand, a `BLOCKINFO` block replaces the previous
//! block info, and a block gets the block-info abbreviations that exist when it is entered.
//! Differences: every count is checked against the bits left before anything is allocated, block
//! nesting is limited to [`limits::MAX_BITCODE_BLOCK_DEPTH`], a block's length word must fit in
//! the data when the block is entered, and every error names the absolute byte offset.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::limits;

/// Abbreviation ID 0: the end of the current block.
pub const END_BLOCK: u32 = 0;
/// Abbreviation ID 1: a sub-block starts.
pub const ENTER_SUBBLOCK: u32 = 1;
/// Abbreviation ID 2: an abbreviation definition.
pub const DEFINE_ABBREV: u32 = 2;
/// Abbreviation ID 3: a record with VBR6 code, count and operands.
pub const UNABBREV_RECORD: u32 = 3;
/// The block ID of `BLOCKINFO`, which holds abbreviations for other blocks.
pub const BLOCKINFO_BLOCK_ID: u32 = 0;
/// `BLOCKINFO_CODE_SETBID`: the block ID the following abbreviations are for.
const BLOCKINFO_CODE_SETBID: u32 = 1;
/// The widest fixed or VBR abbreviation operand (LLVM's `MaxChunkSize`).
const MAX_CHUNK: u64 = 32;

/// A position in a bitstream: the data, the absolute offset of its first byte, and a bit index.
#[derive(Debug, Clone, Copy)]
pub struct Bits<'d> {
    data: &'d [u8],
    base: u64,
    pos: u64,
}

impl<'d> Bits<'d> {
    /// A position at bit `pos` of `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'d [u8], base: u64, pos: u64) -> Self {
        Bits { data, base, pos }
    }

    /// The bit index from the start of the data.
    pub fn bit(&self) -> u64 {
        self.pos
    }

    /// The absolute byte offset of the current bit.
    pub fn offset(&self) -> u64 {
        self.base + self.pos / 8
    }

    /// The data's length in bits.
    pub fn len_bits(&self) -> u64 {
        self.data.len() as u64 * 8
    }

    /// How many bits are left.
    pub fn bits_left(&self) -> u64 {
        self.len_bits().saturating_sub(self.pos)
    }

    /// Whether no bits are left.
    pub fn at_end(&self) -> bool {
        self.bits_left() == 0
    }

    fn truncated(&self, what: &'static str, bits: u64) -> Error {
        Error::Truncated {
            what,
            offset: self.offset(),
            needed: bits.div_ceil(8),
            left: self.bits_left() / 8,
        }
    }

    /// Reads a `width`-bit field (`width <= 64`).
    pub fn read(&mut self, width: u32, what: &'static str) -> Result<u64> {
        if width == 0 {
            return Ok(0);
        }
        if width > 64 {
            return Err(Error::Invalid {
                what,
                offset: self.offset(),
                reason: format!("a {width}-bit field is wider than 64 bits"),
            });
        }
        if u64::from(width) > self.bits_left() {
            return Err(self.truncated(what, u64::from(width)));
        }
        // In range: pos + width <= len * 8, so every byte index below is inside the data.
        let start = usize::try_from(self.pos / 8).map_err(|_| self.truncated(what, 64))?;
        let shift = (self.pos % 8) as u32;
        let nbytes = (shift + width).div_ceil(8) as usize;
        let bytes = self
            .data
            .get(start..start + nbytes)
            .ok_or_else(|| self.truncated(what, u64::from(width)))?;
        let mut word = 0u128;
        for (i, &b) in bytes.iter().enumerate() {
            word |= u128::from(b) << (8 * i);
        }
        let value = (word >> shift) as u64;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        self.pos += u64::from(width);
        Ok(value & mask)
    }

    /// Reads a VBR field of `width`-bit chunks whose value must fit in `max_bits` bits (64 for
    /// operands, 32 where LLVM reads an `unsigned`).
    pub fn vbr(&mut self, width: u32, max_bits: u32, what: &'static str) -> Result<u64> {
        let start = self.offset();
        if !(1..=32).contains(&width) {
            return Err(Error::Invalid {
                what,
                offset: start,
                reason: format!("VBR chunk width {width} is outside 1..=32"),
            });
        }
        let payload = width - 1;
        let cont = 1u64 << payload;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let piece = self.read(width, what)?;
            value |= (piece & (cont - 1)).checked_shl(shift).unwrap_or(0);
            if piece & cont == 0 {
                // LLVM accumulates 32-bit VBRs in a `uint32_t`: higher bits are dropped.
                if max_bits < 64 {
                    value &= (1u64 << max_bits) - 1;
                }
                return Ok(value);
            }
            shift += payload;
            if shift >= max_bits {
                return Err(Error::Invalid {
                    what,
                    offset: start,
                    reason: format!("unterminated VBR (more than {max_bits} bits)"),
                });
            }
        }
    }

    /// Moves to the next multiple of 32 bits (may move past the end; later reads then fail).
    pub fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32).saturating_mul(32);
    }

    /// Skips `n` bits, which must all be present.
    pub fn skip(&mut self, n: u64, what: &'static str) -> Result<()> {
        if n > self.bits_left() {
            return Err(self.truncated(what, n));
        }
        self.pos += n;
        Ok(())
    }

    /// The `n` bytes at the current (byte-aligned) position, consumed.
    fn take_bytes(&mut self, n: u64, what: &'static str) -> Result<&'d [u8]> {
        let out = usize::try_from(self.pos / 8)
            .ok()
            .zip(usize::try_from(n).ok())
            .filter(|_| self.pos % 8 == 0 && n.saturating_mul(8) <= self.bits_left())
            .and_then(|(s, n)| self.data.get(s..s.checked_add(n)?))
            .ok_or_else(|| self.truncated(what, n.saturating_mul(8)))?;
        self.pos += n * 8;
        Ok(out)
    }

    /// `n` 8-bit fields from the current (possibly unaligned) position, consumed: borrowed when
    /// the position is byte-aligned, shifted into a new buffer otherwise.
    fn bytes8(&mut self, n: u64, what: &'static str) -> Result<Cow<'d, [u8]>> {
        if self.pos % 8 == 0 {
            return self.take_bytes(n, what).map(Cow::Borrowed);
        }
        if n.saturating_mul(8) > self.bits_left() {
            return Err(self.truncated(what, n.saturating_mul(8)));
        }
        let shift = (self.pos % 8) as u32;
        let start = usize::try_from(self.pos / 8).map_err(|_| self.truncated(what, n))?;
        let count = usize::try_from(n).map_err(|_| self.truncated(what, n))?;
        // n * 8 bits fit, and the position is unaligned, so n + 1 bytes from `start` exist
        // unless the last field ends exactly at the end of the data.
        let src = self.data.get(start..).unwrap_or_default();
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let lo = src.get(i).copied().unwrap_or(0);
            let hi = src.get(i + 1).copied().unwrap_or(0);
            out.push((lo >> shift) | (hi << (8 - shift)));
        }
        self.pos += n * 8;
        Ok(Cow::Owned(out))
    }
}

/// One operand of an abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbbrevOp {
    /// A constant that is not stored.
    Literal(u64),
    /// A fixed-width field.
    Fixed(u8),
    /// A VBR field with chunks of the given width.
    Vbr(u8),
    /// A VBR6 count, then that many elements encoded as the next (last) operand.
    Array,
    /// A 6-bit character (`a-zA-Z0-9._`).
    Char6,
    /// A VBR6 byte count, 32-bit alignment, the bytes, 32-bit alignment.
    Blob,
}

impl AbbrevOp {
    /// The fewest bits one element with this encoding takes (for plausibility checks).
    fn min_bits(self) -> u64 {
        match self {
            AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => u64::from(w),
            AbbrevOp::Char6 => 6,
            AbbrevOp::Literal(_) | AbbrevOp::Array | AbbrevOp::Blob => 0,
        }
    }
}

/// An abbreviation: the encodings of a record's code and operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abbrev {
    /// The operand encodings; the first one encodes the record code.
    pub ops: Vec<AbbrevOp>,
}

fn char6(v: u64) -> u64 {
    let c = match v & 63 {
        n @ 0..=25 => b'a' + n as u8,
        n @ 26..=51 => b'A' + (n as u8 - 26),
        n @ 52..=61 => b'0' + (n as u8 - 52),
        62 => b'.',
        _ => b'_',
    };
    u64::from(c)
}

fn read_scalar(bits: &mut Bits<'_>, op: AbbrevOp, what: &'static str) -> Result<u64> {
    match op {
        AbbrevOp::Literal(v) => Ok(v),
        AbbrevOp::Fixed(w) => bits.read(u32::from(w), what),
        AbbrevOp::Vbr(w) => bits.vbr(u32::from(w), 64, what),
        AbbrevOp::Char6 => Ok(char6(bits.read(6, what)?)),
        AbbrevOp::Array | AbbrevOp::Blob => Err(Error::Invalid {
            what,
            offset: bits.offset(),
            reason: "an array or blob cannot encode a scalar".into(),
        }),
    }
}

/// A record read from a block. Its operands are decoded on demand.
#[derive(Debug, Clone)]
pub struct Record<'d> {
    /// The record code.
    pub code: u32,
    /// The abbreviation ID it was written with (3 for unabbreviated).
    pub abbrev_id: u32,
    /// The absolute byte offset of the record's first bit.
    pub offset: u64,
    start: Ops<'d>,
}

impl<'d> Record<'d> {
    /// The operands, in order: literals, scalar fields and array elements. A blob operand is
    /// not included (see [`Record::blob`]).
    pub fn ops(&self) -> Ops<'d> {
        self.start.clone()
    }

    /// The first `N` operands (missing ones are `None`).
    pub fn first<const N: usize>(&self) -> Result<[Option<u64>; N]> {
        let mut out = [None; N];
        let mut ops = self.ops();
        for slot in out.iter_mut() {
            match ops.next() {
                Some(v) => *slot = Some(v?),
                None => break,
            }
        }
        Ok(out)
    }

    /// The number of operands (decodes them all).
    pub fn count(&self) -> Result<u64> {
        let mut n = 0u64;
        for op in self.ops() {
            op?;
            n += 1;
        }
        Ok(n)
    }

    /// The operands truncated to bytes, as LLVM reads string records (`SmallString(Record)`).
    pub fn bytes(&self) -> Result<Cow<'d, [u8]>> {
        self.bytes_at().map(|(b, _)| b)
    }

    /// [`Record::bytes`], and the absolute offset of the first byte when the bytes are
    /// borrowed. When the operands are one array of 8-bit fixed fields the bytes are taken in
    /// bulk, and borrowed when they are byte-aligned in the data.
    pub fn bytes_at(&self) -> Result<(Cow<'d, [u8]>, Option<u64>)> {
        let mut ops = self.ops();
        if let Some(abbrev) = ops.abbrev.clone() {
            if abbrev.ops.get(ops.idx..) == Some(&[AbbrevOp::Array, AbbrevOp::Fixed(8)]) {
                let n = ops.array_len()?;
                let at = ops.bits.offset();
                let bytes = ops.bits.bytes8(n, "bitcode array")?;
                let at = matches!(bytes, Cow::Borrowed(_)).then_some(at);
                return Ok((bytes, at));
            }
        }
        let mut out = Vec::new();
        for op in ops {
            out.push(op? as u8);
        }
        Ok((Cow::Owned(out), None))
    }

    /// The record's blob operand and its absolute offset, if its abbreviation has one.
    pub fn blob(&self) -> Result<Option<(&'d [u8], u64)>> {
        let mut ops = self.ops();
        let Some(abbrev) = ops.abbrev.clone() else {
            return Ok(None);
        };
        while ops.idx < abbrev.ops.len() {
            if abbrev.ops.get(ops.idx) == Some(&AbbrevOp::Blob) {
                return ops.read_blob().map(Some);
            }
            if ops.next().transpose()?.is_none() {
                break;
            }
        }
        Ok(None)
    }
}

/// The operands of a record, decoded one at a time. Stops for good after the first error.
#[derive(Debug, Clone)]
pub struct Ops<'d> {
    bits: Bits<'d>,
    /// `None` for an unabbreviated record.
    abbrev: Option<Arc<Abbrev>>,
    /// Next abbreviation operand (abbreviated records).
    idx: usize,
    /// Operands left (unabbreviated) or array elements left (abbreviated, inside an array).
    left: u64,
    in_array: bool,
    done: bool,
}

impl<'d> Ops<'d> {
    /// The element encoding of the array at `idx` (a literal 0 if there is none, which
    /// [`Ops::array_len`] refuses).
    fn element(&self) -> AbbrevOp {
        self.abbrev
            .as_ref()
            .and_then(|a| a.ops.get(self.idx + 1).copied())
            .unwrap_or(AbbrevOp::Literal(0))
    }

    /// Reads an array's count at `idx` (which must hold `Array` followed by the element
    /// encoding, as the last two operands) and checks it against the bits left.
    fn array_len(&mut self) -> Result<u64> {
        let at = self.bits.offset();
        let len = self.abbrev.as_ref().map_or(0, |a| a.ops.len());
        if self.idx + 2 != len {
            return Err(Error::Invalid {
                what: "bitcode abbreviation",
                offset: at,
                reason: "array operand is not second to last".into(),
            });
        }
        let elt = self.element();
        if matches!(elt, AbbrevOp::Literal(_) | AbbrevOp::Array | AbbrevOp::Blob) {
            return Err(Error::Invalid {
                what: "bitcode abbreviation",
                offset: at,
                reason: "array element is not a fixed, VBR or char6 encoding".into(),
            });
        }
        let n = self.bits.vbr(6, 32, "bitcode array length")?;
        check_plausible(&self.bits, n, elt.min_bits(), "bitcode array")?;
        Ok(n)
    }

    fn read_blob(&mut self) -> Result<(&'d [u8], u64)> {
        let n = self.bits.vbr(6, 32, "bitcode blob length")?;
        self.bits.align32();
        let at = self.bits.offset();
        let padded = n.div_ceil(4) * 4;
        if padded.saturating_mul(8) > self.bits.bits_left() {
            return Err(self
                .bits
                .truncated("bitcode blob", padded.saturating_mul(8)));
        }
        let bytes = self.bits.take_bytes(n, "bitcode blob")?;
        self.bits.align32();
        self.idx += 1;
        Ok((bytes, at))
    }

    fn step(&mut self) -> Result<Option<u64>> {
        let Some(abbrev) = self.abbrev.clone() else {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            return self.bits.vbr(6, 64, "bitcode record operand").map(Some);
        };
        loop {
            if self.in_array {
                if self.left > 0 {
                    self.left -= 1;
                    let elt = self.element();
                    return read_scalar(&mut self.bits, elt, "bitcode array element").map(Some);
                }
                self.in_array = false;
                self.idx += 2;
                continue;
            }
            let Some(&op) = abbrev.ops.get(self.idx) else {
                return Ok(None);
            };
            match op {
                AbbrevOp::Array => {
                    self.left = self.array_len()?;
                    self.in_array = true;
                }
                AbbrevOp::Blob => {
                    self.read_blob()?;
                }
                scalar => {
                    self.idx += 1;
                    return read_scalar(&mut self.bits, scalar, "bitcode record operand").map(Some);
                }
            }
        }
    }

    /// Skips the remaining operands and returns the position after the record.
    fn finish(mut self) -> Result<Bits<'d>> {
        loop {
            if self.in_array {
                // Fixed-width elements are skipped in one step (the count was checked against
                // the bits left, so the product cannot overflow).
                let width = match self.element() {
                    AbbrevOp::Fixed(w) => Some(u64::from(w)),
                    AbbrevOp::Char6 => Some(6),
                    _ => None,
                };
                if let Some(w) = width {
                    self.bits.skip(self.left * w, "bitcode array")?;
                    self.left = 0;
                }
            }
            if self.step()?.is_none() {
                return Ok(self.bits);
            }
        }
    }
}

impl Iterator for Ops<'_> {
    type Item = Result<u64>;

    fn next(&mut self) -> Option<Result<u64>> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Checks that `n` elements of at least `min_bits` bits each can fit in the bits left.
fn check_plausible(bits: &Bits<'_>, n: u64, min_bits: u64, what: &'static str) -> Result<()> {
    let need = n.saturating_mul(min_bits.max(1));
    if need > bits.bits_left() {
        return Err(Error::Invalid {
            what,
            offset: bits.offset(),
            reason: format!(
                "{n} elements need at least {need} bits, only {} left",
                bits.bits_left()
            ),
        });
    }
    Ok(())
}

/// What [`Cursor::advance`] found.
#[derive(Debug, Clone)]
pub enum Entry<'d> {
    /// The current block ended (the cursor is now in the parent block).
    EndBlock,
    /// A sub-block starts; call [`Cursor::enter_block`], [`Cursor::skip_block`] or
    /// [`Cursor::read_blockinfo`] next.
    SubBlock {
        /// Its block ID.
        id: u32,
        /// The absolute offset of its `ENTER_SUBBLOCK`.
        offset: u64,
    },
    /// A record.
    Record(Record<'d>),
}

#[derive(Debug, Clone)]
struct Scope {
    /// `None` for the top level.
    block_id: Option<u32>,
    width: u32,
    /// The block-info abbreviations that existed when the block was entered.
    info: Arc<Vec<Arc<Abbrev>>>,
    local: Vec<Arc<Abbrev>>,
}

/// A cursor over a bitstream: the current position, the stack of open blocks with their
/// abbreviations, and the block info.
#[derive(Debug, Clone)]
pub struct Cursor<'d> {
    bits: Bits<'d>,
    scopes: Vec<Scope>,
    blockinfo: HashMap<u32, Arc<Vec<Arc<Abbrev>>>>,
}

impl<'d> Cursor<'d> {
    /// A cursor at bit `bit` of `data` (absolute offset `base`), at the top level (abbreviation
    /// width 2), with no block info.
    pub fn new(data: &'d [u8], base: u64, bit: u64) -> Self {
        Cursor {
            bits: Bits::new(data, base, bit),
            scopes: vec![Scope {
                block_id: None,
                width: 2,
                info: Arc::default(),
                local: Vec::new(),
            }],
            blockinfo: HashMap::new(),
        }
    }

    /// The current position.
    pub fn bits(&self) -> Bits<'d> {
        self.bits
    }

    /// The absolute byte offset of the current bit.
    pub fn offset(&self) -> u64 {
        self.bits.offset()
    }

    /// How many blocks are open.
    pub fn depth(&self) -> usize {
        self.scopes.len() - 1
    }

    /// Reads the next entry: a record, a sub-block start or a block end. Abbreviation
    /// definitions are taken in along the way.
    pub fn advance(&mut self) -> Result<Entry<'d>> {
        loop {
            let at = self.bits.offset();
            let scope = self
                .scopes
                .last()
                .ok_or_else(|| self.malformed(at, "no open block"))?;
            let id = self.bits.read(scope.width, "bitcode abbreviation ID")? as u32;
            match id {
                END_BLOCK => {
                    if self.scopes.len() <= 1 {
                        return Err(self.malformed(at, "END_BLOCK at the top level"));
                    }
                    self.bits.align32();
                    self.scopes.pop();
                    return Ok(Entry::EndBlock);
                }
                ENTER_SUBBLOCK => {
                    let id = self.bits.vbr(8, 32, "bitcode block ID")? as u32;
                    return Ok(Entry::SubBlock { id, offset: at });
                }
                DEFINE_ABBREV => {
                    let abbrev = self.read_abbrev()?;
                    let scope = self.scopes.last_mut().ok_or_else(|| Error::Invalid {
                        what: "bitcode",
                        offset: at,
                        reason: "no open block".into(),
                    })?;
                    if scope.local.len() >= limits::MAX_BITCODE_ABBREVS {
                        return Err(abbrev_limit(at, scope.local.len()));
                    }
                    scope.local.push(Arc::new(abbrev));
                }
                _ => return self.read_record(id, at).map(Entry::Record),
            }
        }
    }

    fn malformed(&self, offset: u64, reason: &str) -> Error {
        Error::Invalid {
            what: "bitcode block",
            offset,
            reason: reason.into(),
        }
    }

    fn abbrev(&self, id: u32, at: u64) -> Result<Arc<Abbrev>> {
        let scope = self
            .scopes
            .last()
            .ok_or_else(|| self.malformed(at, "no open block"))?;
        let i = id.saturating_sub(4) as usize;
        let n = scope.info.len();
        let found = if i < n {
            scope.info.get(i)
        } else {
            scope.local.get(i - n)
        };
        found.cloned().ok_or_else(|| Error::Invalid {
            what: "bitcode record",
            offset: at,
            reason: format!(
                "abbreviation ID {id} is not defined ({} defined)",
                n + scope.local.len() + 4
            ),
        })
    }

    fn read_record(&mut self, id: u32, at: u64) -> Result<Record<'d>> {
        let (code, start) = if id == UNABBREV_RECORD {
            let code = self.bits.vbr(6, 32, "bitcode record code")? as u32;
            let n = self.bits.vbr(6, 32, "bitcode record operand count")?;
            check_plausible(&self.bits, n, 6, "bitcode record")?;
            let ops = Ops {
                bits: self.bits,
                abbrev: None,
                idx: 0,
                left: n,
                in_array: false,
                done: false,
            };
            (code, ops)
        } else {
            let abbrev = self.abbrev(id, at)?;
            let first = *abbrev.ops.first().ok_or_else(|| Error::Invalid {
                what: "bitcode abbreviation",
                offset: at,
                reason: "abbreviation has no operands".into(),
            })?;
            if matches!(first, AbbrevOp::Array | AbbrevOp::Blob) {
                return Err(Error::Invalid {
                    what: "bitcode abbreviation",
                    offset: at,
                    reason: "abbreviation starts with an array or a blob".into(),
                });
            }
            let code = read_scalar(&mut self.bits, first, "bitcode record code")? as u32;
            let ops = Ops {
                bits: self.bits,
                abbrev: Some(abbrev),
                idx: 1,
                left: 0,
                in_array: false,
                done: false,
            };
            (code, ops)
        };
        self.bits = start.clone().finish()?;
        Ok(Record {
            code,
            abbrev_id: id,
            offset: at,
            start,
        })
    }

    fn read_abbrev(&mut self) -> Result<Abbrev> {
        let at = self.bits.offset();
        let n = self.bits.vbr(5, 32, "bitcode abbreviation operand count")?;
        // Each operand takes at least 4 bits (a literal flag and a 3-bit encoding).
        check_plausible(&self.bits, n, 4, "bitcode abbreviation")?;
        let mut ops = Vec::new();
        for _ in 0..n {
            let literal = self.bits.read(1, "bitcode abbreviation operand")? == 1;
            if literal {
                ops.push(AbbrevOp::Literal(self.bits.vbr(
                    8,
                    64,
                    "bitcode abbreviation literal",
                )?));
                continue;
            }
            let enc = self.bits.read(3, "bitcode abbreviation encoding")?;
            let op = match enc {
                1 | 2 => {
                    let w = self.bits.vbr(5, 64, "bitcode abbreviation width")?;
                    if w == 0 {
                        AbbrevOp::Literal(0)
                    } else if w > MAX_CHUNK {
                        return Err(Error::Invalid {
                            what: "bitcode abbreviation",
                            offset: at,
                            reason: format!("fixed or VBR operand of {w} bits (at most 32)"),
                        });
                    } else if enc == 1 {
                        AbbrevOp::Fixed(w as u8)
                    } else {
                        AbbrevOp::Vbr(w as u8)
                    }
                }
                3 => AbbrevOp::Array,
                4 => AbbrevOp::Char6,
                5 => AbbrevOp::Blob,
                _ => {
                    return Err(Error::Invalid {
                        what: "bitcode abbreviation",
                        offset: at,
                        reason: format!("unknown operand encoding {enc}"),
                    })
                }
            };
            ops.push(op);
        }
        if ops.is_empty() {
            return Err(Error::Invalid {
                what: "bitcode abbreviation",
                offset: at,
                reason: "abbreviation has no operands".into(),
            });
        }
        Ok(Abbrev { ops })
    }

    /// Reads the header of the sub-block just announced by [`Entry::SubBlock`] (abbreviation
    /// width, alignment, length word). Returns the end of the block as given by its length.
    fn block_header(&mut self, what: &'static str) -> Result<(u32, u64)> {
        let at = self.bits.offset();
        let width = self.bits.vbr(4, 32, "bitcode block abbreviation width")? as u32;
        if u64::from(width) > MAX_CHUNK {
            return Err(Error::Invalid {
                what,
                offset: at,
                reason: format!("abbreviation width {width} is above 32"),
            });
        }
        self.bits.align32();
        let words = self.bits.read(32, "bitcode block length")?;
        if self.bits.at_end() {
            return Err(self.bits.truncated(what, 32));
        }
        let len = words * 32;
        if len > self.bits.bits_left() {
            return Err(Error::Truncated {
                what,
                offset: at,
                needed: words * 4,
                left: self.bits.bits_left() / 8,
            });
        }
        Ok((width, self.bits.bit() + len))
    }

    /// Enters the sub-block `id` just announced by [`Entry::SubBlock`].
    pub fn enter_block(&mut self, id: u32) -> Result<()> {
        let at = self.bits.offset();
        if self.scopes.len() > limits::MAX_BITCODE_BLOCK_DEPTH {
            return Err(Error::LimitExceeded {
                what: "bitcode block nesting",
                offset: at,
                value: self.scopes.len() as u64,
                limit: limits::MAX_BITCODE_BLOCK_DEPTH as u64,
                name: "MAX_BITCODE_BLOCK_DEPTH",
            });
        }
        let (width, _) = self.block_header("bitcode block")?;
        if width == 0 {
            return Err(self.malformed(at, "block has abbreviation width 0"));
        }
        self.scopes.push(Scope {
            block_id: Some(id),
            width,
            info: self.blockinfo.get(&id).cloned().unwrap_or_default(),
            local: Vec::new(),
        });
        Ok(())
    }

    /// Skips the sub-block just announced by [`Entry::SubBlock`], using its length word.
    pub fn skip_block(&mut self) -> Result<()> {
        let (_, end) = self.block_header("bitcode block")?;
        self.bits = Bits::new(self.bits.data, self.bits.base, end);
        Ok(())
    }

    /// Reads the `BLOCKINFO` block just announced by [`Entry::SubBlock`] (ID 0). As in LLVM
    /// 19, its contents replace the cursor's block info.
    pub fn read_blockinfo(&mut self) -> Result<()> {
        let at = self.bits.offset();
        self.enter_block(BLOCKINFO_BLOCK_ID)?;
        let depth = self.scopes.len();
        let mut info: HashMap<u32, Vec<Arc<Abbrev>>> = HashMap::new();
        let mut current: Option<u32> = None;
        loop {
            let here = self.bits.offset();
            let scope = self
                .scopes
                .last()
                .ok_or_else(|| self.malformed(here, "no open block"))?;
            let id = self.bits.read(scope.width, "bitcode abbreviation ID")? as u32;
            match id {
                END_BLOCK => {
                    self.bits.align32();
                    self.scopes.truncate(depth - 1);
                    break;
                }
                ENTER_SUBBLOCK => {
                    self.bits.vbr(8, 32, "bitcode block ID")?;
                    self.skip_block()?;
                }
                DEFINE_ABBREV => {
                    let Some(bid) = current else {
                        return Err(self.malformed(here, "BLOCKINFO abbreviation before SETBID"));
                    };
                    let abbrev = self.read_abbrev()?;
                    let list = info.entry(bid).or_default();
                    if list.len() >= limits::MAX_BITCODE_ABBREVS {
                        return Err(abbrev_limit(here, list.len()));
                    }
                    list.push(Arc::new(abbrev));
                }
                _ => {
                    let rec = self.read_record(id, here)?;
                    if rec.code == BLOCKINFO_CODE_SETBID {
                        let [bid] = rec.first::<1>()?;
                        let bid = bid.ok_or_else(|| self.malformed(here, "empty SETBID record"))?;
                        current = Some(bid as u32);
                    }
                }
            }
        }
        if info.len() > limits::MAX_BITCODE_ABBREVS {
            return Err(abbrev_limit(at, info.len()));
        }
        self.blockinfo = info.into_iter().map(|(k, v)| (k, Arc::new(v))).collect();
        Ok(())
    }

    /// The block ID of the innermost open block (`None` at the top level).
    pub fn block_id(&self) -> Option<u32> {
        self.scopes.last().and_then(|s| s.block_id)
    }
}

fn abbrev_limit(offset: u64, n: usize) -> Error {
    Error::LimitExceeded {
        what: "bitcode abbreviations",
        offset,
        value: n as u64,
        limit: limits::MAX_BITCODE_ABBREVS as u64,
        name: "MAX_BITCODE_ABBREVS",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bit writer for hand-made streams.
    #[derive(Default)]
    pub(crate) struct Writer {
        pub out: Vec<u8>,
        pub bit: u64,
    }

    impl Writer {
        pub fn emit(&mut self, v: u64, width: u32) {
            for i in 0..width {
                if self.bit % 8 == 0 {
                    self.out.push(0);
                }
                if (v >> i) & 1 == 1 {
                    let last = self.out.len() - 1;
                    self.out[last] |= 1 << (self.bit % 8);
                }
                self.bit += 1;
            }
        }
        pub fn vbr(&mut self, mut v: u64, width: u32) {
            let hi = 1u64 << (width - 1);
            loop {
                if v < hi {
                    self.emit(v, width);
                    return;
                }
                self.emit((v & (hi - 1)) | hi, width);
                v >>= width - 1;
            }
        }
        pub fn align32(&mut self) {
            while self.bit % 32 != 0 {
                self.emit(0, 1);
            }
        }
    }

    #[test]
    fn reads_fields_lsb_first() {
        let data = [0b1010_1100u8, 0xFF, 0x01, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut b = Bits::new(&data, 0x40, 0);
        assert_eq!(b.read(2, "x").unwrap(), 0b00);
        assert_eq!(b.read(3, "x").unwrap(), 0b011);
        assert_eq!(b.read(3, "x").unwrap(), 0b101);
        assert_eq!(b.read(9, "x").unwrap(), 0x1FF);
        assert_eq!(b.offset(), 0x42);
        let mut b = Bits::new(&data, 0, 3);
        let mut le = [0u8; 16];
        le[..data.len()].copy_from_slice(&data);
        let expected = (u128::from_le_bytes(le) >> 3) as u64;
        assert_eq!(b.read(64, "x").unwrap(), expected);
        assert!(Bits::new(&data, 0, 80).read(9, "x").is_err());
        assert!(Bits::new(&data, 0, 0).read(65, "x").is_err());
    }

    #[test]
    fn vbr_round_trip_and_limits() {
        let mut w = Writer::default();
        for v in [0u64, 1, 31, 32, 1000, u64::from(u32::MAX), u64::MAX] {
            w.vbr(v, 6);
        }
        w.emit(0, 64);
        let mut b = Bits::new(&w.out, 0, 0);
        for v in [0u64, 1, 31, 32, 1000, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(b.vbr(6, 64, "v").unwrap(), v);
        }
        // An endless VBR is refused.
        let ones = [0xFFu8; 32];
        assert!(Bits::new(&ones, 0, 0).vbr(6, 64, "v").is_err());
        // A 32-bit VBR drops the bits above 32, as LLVM's `ReadVBR` does, and fails after
        // 32 bits of chunks.
        let mut w = Writer::default();
        w.vbr(u64::from(u32::MAX) + 5, 6);
        w.emit(0, 32);
        assert_eq!(Bits::new(&w.out, 0, 0).vbr(6, 32, "v").unwrap(), 4);
        assert!(Bits::new(&ones, 0, 0).vbr(6, 32, "v").is_err());
    }

    #[test]
    fn unaligned_bytes8() {
        let mut w = Writer::default();
        w.emit(1, 3);
        for b in b"hello" {
            w.emit(u64::from(*b), 8);
        }
        let mut b = Bits::new(&w.out, 0, 3);
        assert_eq!(&*b.bytes8(5, "x").unwrap(), b"hello");
        let mut b = Bits::new(&w.out, 0, 3);
        assert!(b.bytes8(6, "x").is_err());
    }

    #[test]
    fn block_with_abbrev_array_and_blob() {
        let mut w = Writer::default();
        // ENTER_SUBBLOCK id 8, width 4.
        w.emit(1, 2);
        w.vbr(8, 8);
        w.vbr(4, 4);
        w.align32();
        let len_at = w.out.len();
        w.emit(0, 32);
        let body = w.bit;
        // DEFINE_ABBREV [literal 7, array, fixed 8]
        w.emit(2, 4);
        w.vbr(3, 5);
        w.emit(1, 1);
        w.vbr(7, 8);
        w.emit(0, 1);
        w.emit(3, 3);
        w.emit(0, 1);
        w.emit(1, 3);
        w.vbr(8, 5);
        // DEFINE_ABBREV [literal 9, blob]
        w.emit(2, 4);
        w.vbr(2, 5);
        w.emit(1, 1);
        w.vbr(9, 8);
        w.emit(0, 1);
        w.emit(5, 3);
        // record via abbrev 4: "abc"
        w.emit(4, 4);
        w.vbr(3, 6);
        for c in b"abc" {
            w.emit(u64::from(*c), 8);
        }
        // unabbreviated record code 5, ops [1, 300]
        w.emit(3, 4);
        w.vbr(5, 6);
        w.vbr(2, 6);
        w.vbr(1, 6);
        w.vbr(300, 6);
        // blob record via abbrev 5
        w.emit(5, 4);
        w.vbr(5, 6);
        w.align32();
        for c in b"12345" {
            w.emit(u64::from(*c), 8);
        }
        w.align32();
        // END_BLOCK
        w.emit(0, 4);
        w.align32();
        let words = ((w.bit - body) / 32) as u32;
        w.out[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());

        let mut c = Cursor::new(&w.out, 0x100, 0);
        let Entry::SubBlock { id: 8, .. } = c.advance().unwrap() else {
            panic!()
        };
        c.enter_block(8).unwrap();
        let Entry::Record(r) = c.advance().unwrap() else {
            panic!()
        };
        assert_eq!(r.code, 7);
        assert_eq!(&*r.bytes().unwrap(), b"abc");
        let Entry::Record(r) = c.advance().unwrap() else {
            panic!()
        };
        assert_eq!(r.code, 5);
        assert_eq!(r.ops().collect::<Result<Vec<_>>>().unwrap(), vec![1, 300]);
        let Entry::Record(r) = c.advance().unwrap() else {
            panic!()
        };
        assert_eq!(r.code, 9);
        let (blob, off) = r.blob().unwrap().unwrap();
        assert_eq!(blob, b"12345");
        assert_eq!(off % 4, 0);
        assert!(matches!(c.advance().unwrap(), Entry::EndBlock));
        assert!(c.bits().at_end());

        // Skipping the block by its length word lands at the same place.
        let mut c = Cursor::new(&w.out, 0, 0);
        c.advance().unwrap();
        c.skip_block().unwrap();
        assert!(c.bits().at_end());

        // Every truncation is an error, never a panic.
        for cut in 0..w.out.len() {
            let mut c = Cursor::new(&w.out[..cut], 0, 0);
            let mut ok = true;
            for _ in 0..10 {
                match c.advance() {
                    Ok(Entry::SubBlock { id, .. }) => {
                        if c.enter_block(id).is_err() {
                            ok = false;
                            break;
                        }
                    }
                    Ok(Entry::Record(r)) => {
                        let _ = r.bytes();
                        let _ = r.blob();
                    }
                    Ok(Entry::EndBlock) => break,
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
            }
            assert!(!ok, "cut at {cut} parsed");
        }
    }
}
