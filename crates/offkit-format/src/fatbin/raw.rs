//! The on-disk headers of a CUDA fat binary, as stored (little-endian). Field meanings and
//! sources are in `docs/formats.md` ("CUDA fat binaries").

use crate::error::Result;
use offkit_read::Reader;

/// `fatBinaryHeader` (16 bytes): the header of one fat binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// `magic`: [`super::MAGIC`].
    pub magic: u32,
    /// `version`: 1.
    pub version: u16,
    /// `headerSize`: where the first entry starts, from the header's first byte (16).
    pub header_size: u16,
    /// `fatSize`: the bytes of entries after the header.
    pub fat_size: u64,
}

impl Header {
    /// The header's size on disk.
    pub(crate) const SIZE: u64 = 16;

    /// Reads a header at the reader's position.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self> {
        Ok(Header {
            magic: r.u32_le("fat binary magic")?,
            version: r.u16_le("fat binary version")?,
            header_size: r.u16_le("fat binary header size")?,
            fat_size: r.u64_le("fat binary size")?,
        })
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..4].copy_from_slice(&self.magic.to_le_bytes());
        b[4..6].copy_from_slice(&self.version.to_le_bytes());
        b[6..8].copy_from_slice(&self.header_size.to_le_bytes());
        b[8..16].copy_from_slice(&self.fat_size.to_le_bytes());
        b
    }
}

/// The first 64 bytes of an entry header (an entry header may be longer: `header_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EntryHeader {
    /// `0x00` u16: the kind of code (1 PTX, 2 ELF, 4 old cubin, 8 NVVM IR).
    pub kind: u16,
    /// `0x02` u16: the entry header's version (`0x0101`).
    pub version: u16,
    /// `0x04` u32: the size of this header; the payload follows it.
    pub header_size: u32,
    /// `0x08` u64: the payload's size in the file, padded to 8 bytes; the next entry starts
    /// `header_size + payload_size` bytes after this one.
    pub payload_size: u64,
    /// `0x10` u32: the bytes of the payload that are data (the compressed size when the entry
    /// is compressed; may be 0 in an uncompressed entry, meaning all of `payload_size`).
    pub data_size: u32,
    /// `0x14` u32: for PTX, the offset (from the entry header) of a `(offset, size)` pair
    /// locating the ptxas options; 0 if none.
    pub options_offset: u32,
    /// `0x18` u16: the code version's minor number.
    pub minor: u16,
    /// `0x1a` u16: the code version's major number.
    pub major: u16,
    /// `0x1c` u32: the SM architecture (`80` for `sm_80`).
    pub arch: u32,
    /// `0x20` u32: the offset (from the entry header) of the object's name; 0 if none.
    pub name_offset: u32,
    /// `0x24` u32: the length of the object's name.
    pub name_len: u32,
    /// `0x28` u64: the flags ([`super::flags`]).
    pub flags: u64,
    /// `0x30` u64: zero in every sample described.
    pub reserved: u64,
    /// `0x38` u64: the decompressed size of a compressed payload.
    pub uncompressed_size: u64,
}

impl EntryHeader {
    /// The size of the fixed part.
    pub(crate) const SIZE: u64 = 64;

    /// Reads the fixed part at the reader's position.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self> {
        Ok(EntryHeader {
            kind: r.u16_le("fat binary entry kind")?,
            version: r.u16_le("fat binary entry version")?,
            header_size: r.u32_le("fat binary entry header size")?,
            payload_size: r.u64_le("fat binary entry payload size")?,
            data_size: r.u32_le("fat binary entry data size")?,
            options_offset: r.u32_le("fat binary entry options offset")?,
            minor: r.u16_le("fat binary entry code version")?,
            major: r.u16_le("fat binary entry code version")?,
            arch: r.u32_le("fat binary entry architecture")?,
            name_offset: r.u32_le("fat binary entry name offset")?,
            name_len: r.u32_le("fat binary entry name length")?,
            flags: r.u64_le("fat binary entry flags")?,
            reserved: r.u64_le("fat binary entry reserved field")?,
            uncompressed_size: r.u64_le("fat binary entry uncompressed size")?,
        })
    }

    /// The fixed part's bytes.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0x00..0x02].copy_from_slice(&self.kind.to_le_bytes());
        b[0x02..0x04].copy_from_slice(&self.version.to_le_bytes());
        b[0x04..0x08].copy_from_slice(&self.header_size.to_le_bytes());
        b[0x08..0x10].copy_from_slice(&self.payload_size.to_le_bytes());
        b[0x10..0x14].copy_from_slice(&self.data_size.to_le_bytes());
        b[0x14..0x18].copy_from_slice(&self.options_offset.to_le_bytes());
        b[0x18..0x1a].copy_from_slice(&self.minor.to_le_bytes());
        b[0x1a..0x1c].copy_from_slice(&self.major.to_le_bytes());
        b[0x1c..0x20].copy_from_slice(&self.arch.to_le_bytes());
        b[0x20..0x24].copy_from_slice(&self.name_offset.to_le_bytes());
        b[0x24..0x28].copy_from_slice(&self.name_len.to_le_bytes());
        b[0x28..0x30].copy_from_slice(&self.flags.to_le_bytes());
        b[0x30..0x38].copy_from_slice(&self.reserved.to_le_bytes());
        b[0x38..0x40].copy_from_slice(&self.uncompressed_size.to_le_bytes());
        b
    }
}
