//! A bounded msgpack reader: the format of the AMDGPU code object's metadata note
//! (`NT_AMDGPU_METADATA`, code object v3 and later), which [`crate::code_object`] reads for each
//! kernel's resources.
//!
//! It is a pull reader over borrowed bytes: [`Cursor::token`] reads one value's head (a scalar
//! whole, an array or a map as its element count), and [`Cursor::skip`] passes over one whole
//! value, nested or not, without recursion. Nothing is allocated: strings and binaries borrow
//! the input, and a caller keeps what it wants as it goes (a metadata note of a library with
//! thousands of kernels is read in one pass, holding none of it). Every count is checked against
//! the bytes left (each element takes at least one), so that no input makes the reader loop for
//! longer than its length; every error names the absolute offset of the byte.
//!
//! ```text
//! note desc ─Cursor::token─► Token::Map(n) ─► key Token::Str, value Token::… / Cursor::skip
//! ```
//!
//! ```
//! use offkit_format::msgpack::{Cursor, Token};
//!
//! // {"a": [1, -2], "b": "x"}
//! let bytes = [0x82, 0xa1, b'a', 0x92, 0x01, 0xfe, 0xa1, b'b', 0xa1, b'x'];
//! let mut c = Cursor::new(&bytes, 0x100);
//! assert_eq!(c.token().unwrap(), Token::Map(2));
//! assert_eq!(c.token().unwrap(), Token::Str(b"a"));
//! c.skip().unwrap();
//! assert_eq!(c.token().unwrap(), Token::Str(b"b"));
//! assert_eq!(c.token().unwrap(), Token::Str(b"x"));
//! assert!(c.is_empty());
//! ```

use crate::error::{Error, Result};
use offkit_read::Reader;

/// One msgpack value's head: a scalar, or the element count of an array or map (whose
/// elements follow; a map's as key, value, key, value, …).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'d> {
    /// `nil`.
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A non-negative integer (positive fixint, `uint 8`–`uint 64`, or a signed type holding a
    /// value ≥ 0).
    Uint(u64),
    /// A negative integer.
    Int(i64),
    /// `float 32` or `float 64`.
    Float(f64),
    /// A string's bytes (msgpack does not promise UTF-8).
    Str(&'d [u8]),
    /// A binary's bytes.
    Bin(&'d [u8]),
    /// An array of this many elements.
    Array(u32),
    /// A map of this many key/value pairs.
    Map(u32),
    /// An extension value: its type and data.
    Ext(i8, &'d [u8]),
}

impl<'d> Token<'d> {
    /// The value as an unsigned integer, if it is one (or a non-negative signed one).
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Token::Uint(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a boolean, if it is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Token::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The value as a string's bytes, if it is one.
    pub fn as_str(self) -> Option<&'d [u8]> {
        match self {
            Token::Str(s) => Some(s),
            _ => None,
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind(self) -> &'static str {
        match self {
            Token::Nil => "nil",
            Token::Bool(_) => "a boolean",
            Token::Uint(_) | Token::Int(_) => "an integer",
            Token::Float(_) => "a float",
            Token::Str(_) => "a string",
            Token::Bin(_) => "a binary",
            Token::Array(_) => "an array",
            Token::Map(_) => "a map",
            Token::Ext(..) => "an extension value",
        }
    }
}

/// A cursor over msgpack data whose first byte is at absolute offset `base`.
#[derive(Debug, Clone)]
pub struct Cursor<'d> {
    r: Reader<'d>,
}

const WHAT: &str = "msgpack value";

impl<'d> Cursor<'d> {
    /// A cursor over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'d [u8], base: u64) -> Self {
        Cursor {
            r: Reader::new(data, base),
        }
    }

    /// The absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.r.offset()
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.r.remaining() == 0
    }

    /// Reads the next value's head.
    pub fn token(&mut self) -> Result<Token<'d>> {
        let at = self.r.offset();
        let b = self.r.array::<1>(WHAT)?[0];
        let t = match b {
            0x00..=0x7f => Token::Uint(u64::from(b)),
            0x80..=0x8f => self.count(u64::from(b & 0x0f), true)?,
            0x90..=0x9f => self.count(u64::from(b & 0x0f), false)?,
            0xa0..=0xbf => Token::Str(self.r.take(u64::from(b & 0x1f), "msgpack string")?),
            0xc0 => Token::Nil,
            0xc1 => return Err(invalid(at, "byte 0xc1 is never used".into())),
            0xc2 => Token::Bool(false),
            0xc3 => Token::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(b - 0xc4)?;
                Token::Bin(self.r.take(n, "msgpack binary")?)
            }
            0xc7..=0xc9 => {
                let n = self.len(b - 0xc7)?;
                let ty = self.r.array::<1>(WHAT)?[0] as i8;
                Token::Ext(ty, self.r.take(n, "msgpack extension")?)
            }
            0xca => Token::Float(f64::from(f32::from_be_bytes(self.r.array(WHAT)?))),
            0xcb => Token::Float(f64::from_be_bytes(self.r.array(WHAT)?)),
            0xcc => Token::Uint(u64::from(self.r.array::<1>(WHAT)?[0])),
            0xcd => Token::Uint(u64::from(u16::from_be_bytes(self.r.array(WHAT)?))),
            0xce => Token::Uint(u64::from(u32::from_be_bytes(self.r.array(WHAT)?))),
            0xcf => Token::Uint(u64::from_be_bytes(self.r.array(WHAT)?)),
            0xd0 => signed(i64::from(self.r.array::<1>(WHAT)?[0] as i8)),
            0xd1 => signed(i64::from(i16::from_be_bytes(self.r.array(WHAT)?))),
            0xd2 => signed(i64::from(i32::from_be_bytes(self.r.array(WHAT)?))),
            0xd3 => signed(i64::from_be_bytes(self.r.array(WHAT)?)),
            0xd4..=0xd8 => {
                let ty = self.r.array::<1>(WHAT)?[0] as i8;
                Token::Ext(ty, self.r.take(1 << (b - 0xd4), "msgpack extension")?)
            }
            0xd9..=0xdb => {
                let n = self.len(b - 0xd9)?;
                Token::Str(self.r.take(n, "msgpack string")?)
            }
            0xdc | 0xdd => {
                let n = self.len(b - 0xdc + 1)?;
                self.count(n, false)?
            }
            0xde | 0xdf => {
                let n = self.len(b - 0xde + 1)?;
                self.count(n, true)?
            }
            0xe0..=0xff => Token::Int(i64::from(b as i8)),
        };
        Ok(t)
    }

    /// Skips one whole value (an array or map with all its elements), without recursion: a
    /// count of the values still to skip, which the bytes left bound.
    pub fn skip(&mut self) -> Result<()> {
        let t = self.token()?;
        self.skip_elements(t)
    }

    /// Skips the elements of `token`, the head just read (nothing for a scalar).
    pub fn skip_elements(&mut self, token: Token<'d>) -> Result<()> {
        let mut pending: u64 = match token {
            Token::Array(n) => u64::from(n),
            Token::Map(n) => 2 * u64::from(n),
            _ => 0,
        };
        while pending > 0 {
            pending -= 1;
            match self.token()? {
                Token::Array(n) => pending += u64::from(n),
                Token::Map(n) => pending += 2 * u64::from(n),
                _ => {}
            }
            if pending > self.r.remaining() {
                return Err(self.truncated(pending));
            }
        }
        Ok(())
    }

    /// Reads a value that must be a string.
    pub fn str(&mut self, what: &'static str) -> Result<&'d [u8]> {
        let at = self.offset();
        let t = self.token()?;
        t.as_str()
            .ok_or_else(|| invalid(at, format!("{what} is {}, not a string", t.kind())))
    }

    /// Reads a value that must be a map; its pair count.
    pub fn map(&mut self, what: &'static str) -> Result<u32> {
        let at = self.offset();
        match self.token()? {
            Token::Map(n) => Ok(n),
            t => Err(invalid(at, format!("{what} is {}, not a map", t.kind()))),
        }
    }

    /// Reads a value that must be an array; its element count.
    pub fn array(&mut self, what: &'static str) -> Result<u32> {
        let at = self.offset();
        match self.token()? {
            Token::Array(n) => Ok(n),
            t => Err(invalid(at, format!("{what} is {}, not an array", t.kind()))),
        }
    }

    /// A big-endian length of 1, 2 or 4 bytes (`width_log` 0, 1, 2).
    fn len(&mut self, width_log: u8) -> Result<u64> {
        Ok(match width_log {
            0 => u64::from(self.r.array::<1>(WHAT)?[0]),
            1 => u64::from(u16::from_be_bytes(self.r.array(WHAT)?)),
            _ => u64::from(u32::from_be_bytes(self.r.array(WHAT)?)),
        })
    }

    /// An array or map head of `n` elements (pairs for a map), checked against the bytes left.
    fn count(&self, n: u64, map: bool) -> Result<Token<'d>> {
        let values = if map { n * 2 } else { n };
        if values > self.r.remaining() {
            return Err(self.truncated(values));
        }
        // `n` came from at most 32 bits.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        Ok(if map { Token::Map(n) } else { Token::Array(n) })
    }

    fn truncated(&self, values: u64) -> Error {
        Error::Truncated {
            what: "msgpack array or map",
            offset: self.r.offset(),
            needed: values,
            left: self.r.remaining(),
        }
    }
}

fn signed(v: i64) -> Token<'static> {
    match u64::try_from(v) {
        Ok(u) => Token::Uint(u),
        Err(_) => Token::Int(v),
    }
}

fn invalid(offset: u64, reason: String) -> Error {
    Error::Invalid {
        what: "msgpack data",
        offset,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(bytes: &[u8]) -> Vec<Token<'_>> {
        let mut c = Cursor::new(bytes, 0);
        let mut out = Vec::new();
        while !c.is_empty() {
            out.push(c.token().unwrap());
        }
        out
    }

    #[test]
    fn every_kind_of_head() {
        let bytes = [
            0x05, 0xe0, 0xcc, 0xff, 0xcd, 0x01, 0x00, 0xce, 0, 1, 0, 0, 0xcf, 0, 0, 0, 1, 0, 0, 0,
            0, 0xd0, 0x80, 0xd1, 0x00, 0x10, 0xd2, 0xff, 0xff, 0xff, 0xfe, 0xd3, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc2, 0xc3, 0xca, 0x3f, 0x80, 0, 0, 0xcb, 0x40, 0,
            0, 0, 0, 0, 0, 0, 0xd9, 1, b'x', 0xda, 0, 1, b'y', 0xdb, 0, 0, 0, 1, b'z', 0xc4, 1, 7,
            0xd4, 3, 9, 0xc7, 1, 2, 8, 0xdc, 0, 0, 0xde, 0, 0, 0x90, 0x80,
        ];
        assert_eq!(
            tokens(&bytes),
            vec![
                Token::Uint(5),
                Token::Int(-32),
                Token::Uint(255),
                Token::Uint(256),
                Token::Uint(65536),
                Token::Uint(1 << 32),
                Token::Int(-128),
                Token::Uint(16),
                Token::Int(-2),
                Token::Int(-1),
                Token::Nil,
                Token::Bool(false),
                Token::Bool(true),
                Token::Float(1.0),
                Token::Float(2.0),
                Token::Str(b"x"),
                Token::Str(b"y"),
                Token::Str(b"z"),
                Token::Bin(&[7]),
                Token::Ext(3, &[9]),
                Token::Ext(2, &[8]),
                Token::Array(0),
                Token::Map(0),
                Token::Array(0),
                Token::Map(0),
            ]
        );
    }

    #[test]
    fn skip_nested() {
        // [ {"k": [1, 2, {"z": nil}]}, 3 ] then 4
        let bytes = [
            0x92, 0x81, 0xa1, b'k', 0x93, 1, 2, 0x81, 0xa1, b'z', 0xc0, 3, 4,
        ];
        let mut c = Cursor::new(&bytes, 0);
        c.skip().unwrap();
        assert_eq!(c.token().unwrap(), Token::Uint(4));
    }

    #[test]
    fn errors_name_absolute_offsets() {
        let mut c = Cursor::new(&[0xc1], 0x40);
        let e = c.token().unwrap_err();
        assert_eq!(e.offset(), Some(0x40), "{e}");
        // A string longer than the data.
        let e = Cursor::new(&[0xa5, b'a'], 0x10).token().unwrap_err();
        assert_eq!(e.offset(), Some(0x11), "{e}");
        // An array claiming more elements than bytes left.
        let e = Cursor::new(&[0xdd, 0xff, 0xff, 0xff, 0xff, 1], 0)
            .token()
            .unwrap_err();
        assert!(matches!(e, Error::Truncated { .. }), "{e}");
        // Skipping a map whose values run out.
        let e = Cursor::new(&[0x81, 0xa1, b'k'], 0).skip().unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        // Wrong types.
        let e = Cursor::new(&[0x01], 8).str("`.name`").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid msgpack data at offset 0x8: `.name` is an integer, not a string"
        );
    }
}
