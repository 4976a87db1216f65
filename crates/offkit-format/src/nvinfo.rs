//! The attributes of a cubin's `.nv.info` and `.nv.info.<function>` sections (`SHT_CUDA_INFO`,
//! `0x70000000`): what `ptxas` and `nvlink` record about each function — registers, frame and
//! stack sizes, parameters — and what `cuobjdump -res-usage` reports from.
//!
//! The layout is NVIDIA's and undocumented; it is the one `cuobjdump -elf` decodes (checked
//! against it on the cubins of CUDA 13's `ptxas` and of the jax CUDA 13 plugin, see
//! `docs/formats.md`): a sequence of records, each
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 1 | format: `EIFMT_NVAL` 1 (no value), `EIFMT_BVAL` 2 (a byte), `EIFMT_HVAL` 3 (a half word), `EIFMT_SVAL` 4 (sized data) |
//! | 1 | 1 | attribute (`EIATTR_*`) |
//! | 2 | 2 | little-endian: the value (`BVAL`, `HVAL`), the size of the data that follows (`SVAL`), 0 (`NVAL`) |
//! | 4 | size | `SVAL` only: the data (for per-function attributes, the function's symbol index, then the value, both `u32`) |
//!
//! ```text
//! .nv.info bytes ─attributes─► [Attribute { offset, format, attribute, value }]
//! ```
//!
//! ```
//! use offkit_format::nvinfo::{self, Value};
//!
//! // EIATTR_REGCOUNT of symbol 3: 28 registers.
//! let bytes = [0x04, 0x2f, 0x08, 0x00, 3, 0, 0, 0, 28, 0, 0, 0];
//! let a = nvinfo::attributes(&bytes, 0xb6c).next().unwrap().unwrap();
//! assert_eq!((a.offset, a.attribute), (0xb6c, nvinfo::EIATTR_REGCOUNT));
//! assert_eq!(a.function_value(), Some((3, 28)));
//! assert!(matches!(a.value, Value::Data(_)));
//! ```

use crate::error::{Error, Result};
use offkit_read::Reader;

/// `SHT_CUDA_INFO`: the section type of `.nv.info` and `.nv.info.<function>`.
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;

/// `EIATTR_FRAME_SIZE`: a function's own frame (symbol, bytes).
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
/// `EIATTR_MIN_STACK_SIZE`: an entry function's stack with what it calls (symbol, bytes;
/// `0xffffffff` when it cannot be determined statically, as with recursion).
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
/// `EIATTR_MAX_STACK_SIZE`: a function's stack as a relocatable object records it (symbol,
/// bytes; the linker computes the entry functions' final one).
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
/// `EIATTR_REGCOUNT`: a function's registers (symbol, count).
pub const EIATTR_REGCOUNT: u8 = 0x2f;

/// How a record stores its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `EIFMT_NVAL`: no value.
    None,
    /// `EIFMT_BVAL`: a byte.
    Byte,
    /// `EIFMT_HVAL`: a 16-bit value.
    Half,
    /// `EIFMT_SVAL`: sized data.
    Sized,
}

/// A record's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value<'d> {
    /// `EIFMT_NVAL`.
    None,
    /// `EIFMT_BVAL`.
    Byte(u8),
    /// `EIFMT_HVAL`.
    Half(u16),
    /// `EIFMT_SVAL`: the data.
    Data(&'d [u8]),
}

/// One record of a `.nv.info` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attribute<'d> {
    /// The absolute offset of the record.
    pub offset: u64,
    /// Its format.
    pub format: Format,
    /// The attribute (`EIATTR_*`).
    pub attribute: u8,
    /// Its value.
    pub value: Value<'d>,
}

impl Attribute<'_> {
    /// For a per-function attribute (`EIATTR_REGCOUNT`, `EIATTR_FRAME_SIZE`, the stack sizes):
    /// the function's symbol index and the value, the two little-endian words of its data.
    pub fn function_value(&self) -> Option<(u32, u32)> {
        match self.value {
            Value::Data(d) if d.len() == 8 => {
                let word = |i: usize| {
                    let b: [u8; 4] = d.get(i..i + 4)?.try_into().ok()?;
                    Some(u32::from_le_bytes(b))
                };
                Some((word(0)?, word(4)?))
            }
            _ => None,
        }
    }
}

/// The records of the `.nv.info` section `data`, whose first byte is at absolute offset `base`,
/// in order. The iterator stops for good after the first error (a record running past the
/// section, an unknown format).
pub fn attributes(data: &[u8], base: u64) -> Attributes<'_> {
    Attributes {
        r: Reader::new(data, base),
        failed: false,
    }
}

/// The iterator of [`attributes`].
#[derive(Debug, Clone)]
pub struct Attributes<'d> {
    r: Reader<'d>,
    failed: bool,
}

impl<'d> Attributes<'d> {
    fn record(&mut self) -> Result<Attribute<'d>> {
        let offset = self.r.offset();
        let [format, attribute] = self.r.array::<2>(".nv.info record")?;
        let half = self.r.u16_le(".nv.info record")?;
        let (format, value) = match format {
            1 => (Format::None, Value::None),
            2 => (Format::Byte, Value::Byte(half as u8)),
            3 => (Format::Half, Value::Half(half)),
            4 => (
                Format::Sized,
                Value::Data(self.r.take(u64::from(half), ".nv.info record data")?),
            ),
            f => {
                return Err(Error::Invalid {
                    what: ".nv.info record",
                    offset,
                    reason: format!(
                        "format {f:#x} is none of EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL"
                    ),
                })
            }
        };
        Ok(Attribute {
            offset,
            format,
            attribute,
            value,
        })
    }
}

impl<'d> Iterator for Attributes<'d> {
    type Item = Result<Attribute<'d>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.r.remaining() == 0 {
            return None;
        }
        let r = self.record();
        self.failed = r.is_err();
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_each_format() {
        // The per-function records of a real CUDA 13 cubin (`.nv.info._Z…`), abridged.
        let bytes = [
            0x04, 0x36, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, // EIATTR_SW_WAR
            0x03, 0x19, 0x40, 0x00, // EIATTR_CBANK_PARAM_SIZE 0x40
            0x02, 0x16, 0x00, 0x00, // EIATTR_BINDLESS_SURFACE_BANK 0
            0x01, 0x04, 0x00, 0x00, // EIATTR_CTAIDZ_USED
        ];
        let all: Vec<_> = attributes(&bytes, 0x100).map(Result::unwrap).collect();
        assert_eq!(all.len(), 4);
        assert_eq!((all[0].offset, all[0].attribute), (0x100, 0x36));
        assert_eq!(all[0].value, Value::Data(&[1, 0, 0, 0]));
        assert_eq!((all[1].offset, all[1].value), (0x108, Value::Half(0x40)));
        assert_eq!(all[2].value, Value::Byte(0));
        assert_eq!((all[3].format, all[3].value), (Format::None, Value::None));
        assert_eq!(all[0].function_value(), None);
    }

    #[test]
    fn errors_stop_the_iterator() {
        // Data running past the section.
        let bytes = [0x04, 0x2f, 0x08, 0x00, 3, 0, 0, 0];
        let mut it = attributes(&bytes, 0x40);
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.offset(), Some(0x44), "{e}");
        assert!(it.next().is_none());
        // An unknown format.
        let e = attributes(&[0x07, 0x2f, 0, 0], 0x10)
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(e.offset(), Some(0x10), "{e}");
        // A record cut in its head.
        let e = attributes(&[0x04], 0x10).next().unwrap().unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
