//! Abbreviations and records: operands decoded on demand from where a record starts.

use std::borrow::Cow;
use std::sync::Arc;

use super::bits::Bits;
use crate::error::{Error, Result};

/// The widest fixed or VBR abbreviation operand (LLVM's `MaxChunkSize`).
pub(super) const MAX_CHUNK: u64 = 32;

/// One operand of an abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AbbrevOp {
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
pub(crate) struct Abbrev {
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

pub(super) fn read_scalar(bits: &mut Bits<'_>, op: AbbrevOp, what: &'static str) -> Result<u64> {
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
    pub(super) fn new(code: u32, abbrev_id: u32, offset: u64, start: Ops<'d>) -> Self {
        Record {
            code,
            abbrev_id,
            offset,
            start,
        }
    }

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
    pub(crate) fn count(&self) -> Result<u64> {
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
    pub(crate) fn bytes_at(&self) -> Result<(Cow<'d, [u8]>, Option<u64>)> {
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
    /// The `n` VBR6 operands of an unabbreviated record, starting at `bits`.
    pub(super) fn unabbreviated(bits: Bits<'d>, n: u64) -> Self {
        Ops {
            bits,
            abbrev: None,
            idx: 0,
            left: n,
            in_array: false,
            done: false,
        }
    }

    /// The operands of a record written with `abbrev`, starting at `bits` (after the code).
    pub(super) fn abbreviated(bits: Bits<'d>, abbrev: Arc<Abbrev>) -> Self {
        Ops {
            bits,
            abbrev: Some(abbrev),
            idx: 1,
            left: 0,
            in_array: false,
            done: false,
        }
    }

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
    pub(super) fn finish(mut self) -> Result<Bits<'d>> {
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
pub(super) fn check_plausible(
    bits: &Bits<'_>,
    n: u64,
    min_bits: u64,
    what: &'static str,
) -> Result<()> {
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
