//! Reading bits: fixed-width and VBR fields, least-significant bit first, with every read
//! checked against the bits left.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// A position in a bitstream: the data, the absolute offset of its first byte, and a bit index.
#[derive(Debug, Clone, Copy)]
pub struct Bits<'d> {
    data: &'d [u8],
    base: u64,
    pos: u64,
}

impl<'d> Bits<'d> {
    /// A position at bit `pos` of `data`, whose first byte is at absolute offset `base`.
    pub(crate) fn new(data: &'d [u8], base: u64, pos: u64) -> Self {
        Bits { data, base, pos }
    }

    /// The same data at bit `pos`.
    pub(crate) fn at(&self, pos: u64) -> Self {
        Bits { pos, ..*self }
    }

    /// The bit index from the start of the data.
    pub fn bit(&self) -> u64 {
        self.pos
    }

    /// The absolute byte offset of the current bit.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos / 8
    }

    /// The data's length in bits.
    pub(crate) fn len_bits(&self) -> u64 {
        self.data.len() as u64 * 8
    }

    /// How many bits are left.
    pub(crate) fn bits_left(&self) -> u64 {
        self.len_bits().saturating_sub(self.pos)
    }

    /// Whether no bits are left.
    pub fn at_end(&self) -> bool {
        self.bits_left() == 0
    }

    pub(super) fn truncated(&self, what: &'static str, bits: u64) -> Error {
        Error::Truncated {
            what,
            offset: self.offset(),
            needed: bits.div_ceil(8),
            left: self.bits_left() / 8,
        }
    }

    /// Reads a `width`-bit field (`width <= 64`).
    pub(crate) fn read(&mut self, width: u32, what: &'static str) -> Result<u64> {
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
    pub(crate) fn vbr(&mut self, width: u32, max_bits: u32, what: &'static str) -> Result<u64> {
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
    pub(crate) fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32).saturating_mul(32);
    }

    /// Skips `n` bits, which must all be present.
    pub(crate) fn skip(&mut self, n: u64, what: &'static str) -> Result<()> {
        if n > self.bits_left() {
            return Err(self.truncated(what, n));
        }
        self.pos += n;
        Ok(())
    }

    /// The `n` bytes at the current (byte-aligned) position, consumed.
    pub(super) fn take_bytes(&mut self, n: u64, what: &'static str) -> Result<&'d [u8]> {
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
    pub(super) fn bytes8(&mut self, n: u64, what: &'static str) -> Result<Cow<'d, [u8]>> {
        if self.pos % 8 == 0 {
            return self.take_bytes(n, what).map(Cow::Borrowed);
        }
        if n.saturating_mul(8) > self.bits_left() {
            return Err(self.truncated(what, n.saturating_mul(8)));
        }
        let shift = (self.pos % 8) as u32;
        let start = usize::try_from(self.pos / 8).map_err(|_| self.truncated(what, n))?;
        let count = usize::try_from(n).map_err(|_| self.truncated(what, n))?;
        // n * 8 bits fit and the position is unaligned, so the n + 1 bytes from `start` that
        // hold the fields all exist.
        let src = start
            .checked_add(count + 1)
            .and_then(|end| self.data.get(start..end))
            .ok_or_else(|| self.truncated(what, n.saturating_mul(8)))?;
        let out: Vec<u8> = src
            .windows(2)
            .map(|w| match w {
                [lo, hi] => (lo >> shift) | (hi << (8 - shift)),
                _ => 0,
            })
            .collect();
        self.pos += n * 8;
        Ok(Cow::Owned(out))
    }
}

#[cfg(test)]
pub(super) mod writer {
    /// A bit writer for hand-made streams.
    #[derive(Default)]
    pub(crate) struct Writer {
        pub out: Vec<u8>,
        pub bit: u64,
    }

    impl Writer {
        pub(crate) fn emit(&mut self, v: u64, width: u32) {
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
        pub(crate) fn vbr(&mut self, mut v: u64, width: u32) {
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
        pub(crate) fn align32(&mut self) {
            while self.bit % 32 != 0 {
                self.emit(0, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use writer::Writer;

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
}
