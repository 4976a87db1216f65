//! A bounded, offset-aware cursor over borrowed bytes: the one reader of offkit's parsers.

use crate::error::{Error, Result};

/// A cursor over `data` that knows the absolute offset of `data[0]` (`base`), so that errors can
/// name the byte in the outermost input. Every read is bounds-checked and returns
/// [`Error::Truncated`] instead of panicking.
#[derive(Debug, Clone)]
pub struct Reader<'d> {
    data: &'d [u8],
    pos: usize,
    base: u64,
}

impl<'d> Reader<'d> {
    /// A reader over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'d [u8], base: u64) -> Self {
        Reader { data, pos: 0, base }
    }

    /// The absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The absolute offset of the first byte of the data.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The position relative to the start of the data.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// All the data, from its start.
    pub fn data(&self) -> &'d [u8] {
        self.data
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> u64 {
        (self.data.len() - self.pos) as u64
    }

    /// The bytes left, without consuming them.
    pub fn rest(&self) -> &'d [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// Moves to `pos` (relative to the start of the data).
    pub fn seek(&mut self, pos: u64, what: &'static str) -> Result<()> {
        let p = usize::try_from(pos)
            .ok()
            .filter(|&p| p <= self.data.len())
            .ok_or(Error::Truncated {
                what,
                offset: self.base,
                needed: pos,
                left: self.data.len() as u64,
            })?;
        self.pos = p;
        Ok(())
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: u64, what: &'static str) -> Result<&'d [u8]> {
        let (start, left) = (self.pos, self.remaining());
        let out = usize::try_from(n)
            .ok()
            .and_then(|n| self.data.get(start..start.checked_add(n)?))
            .ok_or(Error::Truncated {
                what,
                offset: self.offset(),
                needed: n,
                left,
            })?;
        self.pos += out.len();
        Ok(out)
    }

    /// Takes the next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.take(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Reads a little-endian `u16`.
    pub fn u16_le(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    /// Reads a little-endian `u32`.
    pub fn u32_le(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// Reads a little-endian `u64`.
    pub fn u64_le(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A sub-reader over `len` bytes at relative position `pos`, with the right absolute base.
    pub fn sub(&self, pos: u64, len: u64, what: &'static str) -> Result<Reader<'d>> {
        let mut r = self.clone();
        r.seek(pos, what)?;
        let data = r.take(len, what)?;
        Ok(Reader::new(data, self.base + pos))
    }

    /// Reads a NUL-terminated string starting at relative position `pos` (not moving the
    /// cursor). The NUL is not included.
    pub fn cstr_at(&self, pos: u64, what: &'static str) -> Result<&'d [u8]> {
        let start = usize::try_from(pos)
            .ok()
            .filter(|&p| p <= self.data.len())
            .ok_or(Error::Truncated {
                what,
                offset: self.base,
                needed: pos.saturating_add(1),
                left: self.data.len() as u64,
            })?;
        let tail = self.data.get(start..).unwrap_or_default();
        let len = tail
            .iter()
            .position(|&b| b == 0)
            .ok_or(Error::Unterminated {
                what,
                offset: self.base + pos,
            })?;
        Ok(tail.get(..len).unwrap_or_default())
    }
}

/// Rounds `x` up to a multiple of `align` (any `align >= 1`), or `None` on overflow.
pub fn align_up(x: u64, align: u64) -> Option<u64> {
    if align <= 1 {
        return Some(x);
    }
    x.checked_add(align - 1).map(|v| v / align * align)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_reports_absolute_offset() {
        let data = [1u8, 2, 3, 4];
        let mut r = Reader::new(&data, 0x100);
        assert_eq!(r.take(2, "x").unwrap(), &[1, 2]);
        match r.take(3, "hdr") {
            Err(Error::Truncated {
                what,
                offset,
                needed,
                left,
            }) => assert_eq!((what, offset, needed, left), ("hdr", 0x102, 3, 2)),
            other => panic!("{other:?}"),
        }
        assert!(r.take(u64::MAX, "huge").is_err());
    }

    #[test]
    fn cstr_and_sub() {
        let data = b"ab\0cd";
        let r = Reader::new(data, 10);
        assert_eq!(r.cstr_at(0, "s").unwrap(), b"ab");
        assert!(r.cstr_at(3, "s").is_err());
        assert!(r.cstr_at(99, "s").is_err());
        let s = r.sub(3, 2, "sub").unwrap();
        assert_eq!(s.offset(), 13);
        assert!(r.sub(4, 2, "sub").is_err());
    }

    #[test]
    fn align() {
        assert_eq!(align_up(0, 8), Some(0));
        assert_eq!(align_up(9, 8), Some(16));
        assert_eq!(align_up(10, 3), Some(12));
        assert_eq!(align_up(10, 0), Some(10));
        assert_eq!(align_up(u64::MAX, 8), None);
    }
}
