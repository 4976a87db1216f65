//! LLVM bitcode, read without LLVM: the embedded offload objects of a module and its symbol
//! table, as LLVM 19 reads them.
//!
//! ```text
//! file ─wrapper?─► 'BC' C0DE ─► IDENTIFICATION + MODULE … (per module), SYMTAB, STRTAB
//!   MODULE ─► globals, TYPE, CONSTANTS, METADATA ─► !llvm.embedded.objects ─► [Embedded] bytes
//!   SYMTAB + STRTAB ─► irsymtab ─► [Symbol] ─► archive symbol table names
//! ```
//!
//! * [`embedded_objects`] does what LLVM's `extractOffloadBinaries` does for bitcode (host
//!   objects built with `-flto`): every operand `!{ptr @g, !".llvm.offloading"}` of the named
//!   metadata `!llvm.embedded.objects`, in order, gives the bytes of `@g`'s initializer when it
//!   is a `ConstantDataSequential`. Those bytes are concatenated offload binaries
//!   (`offkit_format::binary::parse_all`).
//! * [`symbol_table`] reads the irsymtab (`SYMTAB_BLOCK` + `STRTAB_BLOCK`) that LLVM 5 and
//!   later write: the module symbol table with its flags, in order. [`archive_symbols`] gives
//!   the names `llvm-ar` puts in an archive symbol table for a bitcode member.
//! * [`parse`] lists the modules of a file (several when made by `llvm-cat -b`) with their
//!   producer, target triple and source file name.
//!
//! offkit does not build modules, so some of LLVM's paths are not taken: a file without an
//! irsymtab (or with one of another layout version, or covering a different number of modules)
//! makes LLVM rebuild the symbol table from the module; offkit reports
//! [`Error::Unsupported`] instead. Only the parts of a module needed for the embedded objects
//! are read (global values, types, module-level constants and metadata); function bodies and
//! the other blocks are skipped by their length words, so a module that LLVM would reject for
//! an error in those parts is not rejected here.
//!
//! ```
//! use offkit_llvm::bitcode;
//! // Not bitcode: an error that names the offset, never a panic.
//! assert!(bitcode::embedded_objects(b"not bitcode", 0).is_err());
//! assert!(!bitcode::is_bitcode(b"\x7fELF"));
//! ```

pub mod bitstream;
mod irsymtab;
mod module;

use std::borrow::Cow;

use crate::error::{Error, Result};
use bitstream::{Cursor, Entry};
use offkit_read::Reader;

pub use irsymtab::{Symbol, Symtab, Visibility};

/// The magic of raw bitcode: `'B' 'C' 0xC0DE`.
pub const MAGIC: [u8; 4] = *b"BC\xC0\xDE";

/// The magic of the bitcode wrapper header (`0x0B17C0DE`, little-endian).
pub const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// The section name that marks an embedded offload object in `!llvm.embedded.objects`.
pub(crate) const OFFLOADING_SECTION: &[u8] = b".llvm.offloading";

/// Block IDs of LLVM 19 (`llvm/Bitcode/LLVMBitCodes.h`).
pub(crate) mod block {
    pub(crate) const MODULE: u32 = 8;
    pub(crate) const CONSTANTS: u32 = 11;
    pub(crate) const FUNCTION: u32 = 12;
    pub(crate) const IDENTIFICATION: u32 = 13;
    pub(crate) const METADATA: u32 = 15;
    pub(crate) const TYPE: u32 = 17;
    pub(crate) const STRTAB: u32 = 23;
    pub(crate) const SYMTAB: u32 = 25;
}

/// Whether `data` starts like bitcode (raw or wrapped), as LLVM's `identify_magic` decides.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(&MAGIC) || data.starts_with(&WRAPPER_MAGIC)
}

/// A bitcode file: its modules, and the symbol table with the string table it uses.
#[derive(Debug, Clone)]
pub struct File<'d> {
    /// The modules, in file order.
    pub modules: Vec<Module<'d>>,
    /// The first `SYMTAB_BLOB`, with its absolute offset (empty if there is none).
    pub symtab: (&'d [u8], u64),
    /// The `STRTAB_BLOB` that follows the symbol table, with its absolute offset.
    pub symtab_strtab: (&'d [u8], u64),
    /// The absolute offset of the bitcode (after a wrapper header, if any).
    pub offset: u64,
}

/// One module of a bitcode file.
#[derive(Debug, Clone)]
pub struct Module<'d> {
    /// The absolute offset of its first block (`IDENTIFICATION`, or `MODULE` when there is none).
    pub offset: u64,
    /// The string table its names refer to (the first `STRTAB` after it), with its offset.
    pub strtab: (&'d [u8], u64),
    stream: &'d [u8],
    stream_base: u64,
    /// Bit index (in `stream`) just after the `IDENTIFICATION_BLOCK` ID, if there is one.
    identification_bit: Option<u64>,
    /// Bit index (in `stream`) just after the `MODULE_BLOCK` ID.
    module_bit: u64,
}

/// The module-level facts of a module: version, target triple, data layout, source file name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleHeader {
    /// `MODULE_CODE_VERSION` (2 when names are in the string table).
    pub version: u64,
    /// The target triple (`MODULE_CODE_TRIPLE`).
    pub triple: Vec<u8>,
    /// The data layout string (`MODULE_CODE_DATALAYOUT`).
    pub datalayout: Vec<u8>,
    /// The source file name (`MODULE_CODE_SOURCE_FILENAME`).
    pub source_filename: Vec<u8>,
}

impl<'d> Module<'d> {
    /// Reads the module's version, triple, data layout and source file name.
    pub fn header(&self) -> Result<ModuleHeader> {
        module::read_header(self)
    }

    /// The producer string of the module's `IDENTIFICATION` block (`LLVM19.1.7`), if it has
    /// one. Like LLVM, [`parse`] skips that block; it is read (and its epoch checked) when the
    /// module is loaded, as [`embedded_objects`] does.
    pub fn producer(&self) -> Result<Option<Vec<u8>>> {
        let Some(bit) = self.identification_bit else {
            return Ok(None);
        };
        let mut c = Cursor::new(self.stream, self.stream_base, bit);
        module::read_identification(&mut c).map(Some)
    }

    /// A cursor inside the module block, with fresh block info (as LLVM reads each module).
    fn enter(&self) -> Result<Cursor<'d>> {
        let mut c = Cursor::new(self.stream, self.stream_base, self.module_bit);
        c.enter_block(block::MODULE)?;
        Ok(c)
    }
}

/// An offload object embedded in a bitcode module: the bytes of one global's initializer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded<'d> {
    /// The global's name (`llvm.embedded.object`, `llvm.embedded.object.1`, …).
    pub name: &'d [u8],
    /// The section name given in `!llvm.embedded.objects` (always `.llvm.offloading`).
    pub section: &'d [u8],
    /// Where the bytes are: their absolute offset when they are stored byte-aligned and
    /// borrowed, otherwise the offset of the constant's record (array data in a bitstream is
    /// bit-packed and had to be decoded).
    pub offset: u64,
    /// The initializer's bytes (element data in little-endian order, as `getAsString` gives).
    pub data: Cow<'d, [u8]>,
}

/// Strips a bitcode wrapper header if there is one and checks the magic, as LLVM's
/// `initStream` does. Returns the bitcode and its absolute offset.
fn stream(data: &[u8], base: u64) -> Result<(&[u8], u64)> {
    if data.len() % 4 != 0 {
        return Err(Error::Invalid {
            what: "bitcode",
            offset: base,
            reason: format!("size {} is not a multiple of 4", data.len()),
        });
    }
    let (inner, inner_base) = if data.starts_with(&WRAPPER_MAGIC) {
        let mut r = Reader::new(data, base);
        r.take(8, "bitcode wrapper header")?;
        let offset = u64::from(r.u32_le("bitcode wrapper header")?);
        let size = u64::from(r.u32_le("bitcode wrapper header")?);
        let inner = Reader::new(data, base)
            .sub(offset, size, "bitcode in its wrapper")
            .map_err(|_| Error::Invalid {
                what: "bitcode wrapper header",
                offset: base,
                reason: format!(
                    "bitcode at {offset:#x} + {size:#x} is outside the {:#x}-byte file",
                    data.len()
                ),
            })?;
        (inner.data(), base + offset)
    } else {
        (data, base)
    };
    if !inner.starts_with(&MAGIC) {
        return Err(Error::BadMagic {
            what: "bitcode",
            offset: inner_base,
        });
    }
    Ok((inner, inner_base))
}

/// Reads the top level of a bitcode file as LLVM's `getBitcodeFileContents` does: the modules,
/// each with its string table, and the first symbol table with the string table after it.
pub fn parse(data: &[u8], base: u64) -> Result<File<'_>> {
    let (bc, bc_base) = stream(data, base)?;
    let mut c = Cursor::new(bc, bc_base, 32);
    let mut file = File {
        modules: Vec::new(),
        symtab: (&[], bc_base),
        symtab_strtab: (&[], bc_base),
        offset: bc_base,
    };
    loop {
        let begin = c.bits().bit() / 8;
        // Like LLVM: trailing bytes too few to hold another module are ignored.
        if begin + 8 >= bc.len() as u64 {
            return Ok(file);
        }
        let (id, at) = match c.advance()? {
            Entry::SubBlock { id, offset } => (id, offset),
            Entry::Record(_) => continue,
            Entry::EndBlock => {
                return Err(Error::Invalid {
                    what: "bitcode",
                    offset: c.offset(),
                    reason: "malformed block".into(),
                })
            }
        };
        match id {
            block::IDENTIFICATION | block::MODULE => {
                let mut identification_bit = None;
                if id == block::IDENTIFICATION {
                    identification_bit = Some(c.bits().bit());
                    c.skip_block()?;
                    match c.advance()? {
                        Entry::SubBlock {
                            id: block::MODULE, ..
                        } => {}
                        _ => {
                            return Err(Error::Invalid {
                                what: "bitcode",
                                offset: at,
                                reason: "IDENTIFICATION block is not followed by a MODULE block"
                                    .into(),
                            })
                        }
                    }
                }
                let module_bit = c.bits().bit();
                c.skip_block()?;
                file.modules.push(Module {
                    offset: bc_base + begin,
                    identification_bit,
                    strtab: (&[], bc_base),
                    stream: bc,
                    stream_base: bc_base,
                    module_bit,
                });
            }
            block::STRTAB => {
                let strtab = read_blob_block(&mut c, block::STRTAB)?;
                // Used by every preceding module that has none yet (several string tables
                // follow binary concatenation, `llvm-cat -b`).
                for m in file.modules.iter_mut().rev() {
                    if !m.strtab.0.is_empty() {
                        break;
                    }
                    m.strtab = strtab;
                }
                if !file.symtab.0.is_empty() && file.symtab_strtab.0.is_empty() {
                    file.symtab_strtab = strtab;
                }
            }
            block::SYMTAB => {
                let symtab = read_blob_block(&mut c, block::SYMTAB)?;
                if file.symtab.0.is_empty() {
                    file.symtab = symtab;
                }
            }
            _ => c.skip_block()?,
        }
    }
}

/// Reads a block whose record code 1 holds a blob (`STRTAB_BLOB`, `SYMTAB_BLOB`); the last such
/// record wins, as in LLVM's `readBlobInRecord`.
fn read_blob_block<'d>(c: &mut Cursor<'d>, id: u32) -> Result<(&'d [u8], u64)> {
    let mut out: (&'d [u8], u64) = (&[], c.offset());
    c.enter_block(id)?;
    loop {
        match c.advance()? {
            Entry::EndBlock => return Ok(out),
            Entry::SubBlock { .. } => c.skip_block()?,
            Entry::Record(r) => {
                if r.code == 1 {
                    // An unabbreviated record has no blob: LLVM then gets an empty one.
                    out = r.blob()?.unwrap_or((&[], r.offset));
                }
            }
        }
    }
}

/// The offload objects embedded in a bitcode file, as LLVM 19's `extractOffloadBinaries`
/// finds them (see the module documentation). The file must hold exactly one module, as
/// LLVM's `getLazyIRModule` requires.
pub fn embedded_objects(data: &[u8], base: u64) -> Result<Vec<Embedded<'_>>> {
    let file = parse(data, base)?;
    match file.modules.as_slice() {
        [m] => {
            m.producer()?;
            module::embedded_objects(m)
        }
        ms => Err(Error::Invalid {
            what: "bitcode",
            offset: file.offset,
            reason: format!(
                "expected a single module, found {} (LLVM 19 cannot load it either)",
                ms.len()
            ),
        }),
    }
}

impl<'d> File<'d> {
    /// The file's irsymtab, as LLVM 19's `irsymtab::readBitcode` reads it. Where LLVM would
    /// rebuild the table from the modules instead (no table, another layout version, or a
    /// different module count) this is [`Error::Unsupported`]. A table written by another
    /// LLVM release with the same layout is read as is (LLVM 19 would rebuild it, normally to
    /// the same symbols); [`Symtab::producer`] tells which release wrote it.
    pub fn symtab(&self) -> Result<Symtab<'d>> {
        if self.modules.is_empty() {
            return Err(Error::Invalid {
                what: "bitcode",
                offset: self.offset,
                reason: "the file does not contain any modules".into(),
            });
        }
        let symtab = irsymtab::read(self.symtab, self.symtab_strtab, self.offset)?;
        if symtab.modules.len() != self.modules.len() {
            return Err(Error::Unsupported {
                what: "bitcode symbol table",
                offset: self.symtab.1,
                reason: format!(
                    "it covers {} modules but the file has {} (LLVM rebuilds the table from \
                     the modules, which offkit does not do)",
                    symtab.modules.len(),
                    self.modules.len()
                ),
            });
        }
        Ok(symtab)
    }
}

/// The irsymtab of a bitcode file (see [`File::symtab`]).
pub fn symbol_table(data: &[u8], base: u64) -> Result<Symtab<'_>> {
    parse(data, base)?.symtab()
}

/// The names `llvm-ar` (LLVM 19) puts in an archive's symbol table for a bitcode member, in
/// order: the module symbols that are global, defined and not format-specific (this drops
/// `llvm.*` globals and private ones), inline-asm symbols included.
pub fn archive_symbols(data: &[u8], base: u64) -> Result<Vec<&[u8]>> {
    Ok(symbol_table(data, base)?
        .symbols
        .into_iter()
        .filter(Symbol::in_archive_symbol_table)
        .map(|s| s.name)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_and_wrapper_checks() {
        assert!(is_bitcode(b"BC\xC0\xDE...."));
        assert!(is_bitcode(&WRAPPER_MAGIC));
        assert!(matches!(parse(b"BC\xC0", 0), Err(Error::Invalid { .. })));
        assert!(matches!(
            parse(b"\x7fELF", 0x10),
            Err(Error::BadMagic { offset: 0x10, .. })
        ));
        // A wrapper pointing outside the file.
        let mut w = Vec::new();
        w.extend_from_slice(&WRAPPER_MAGIC);
        w.extend_from_slice(&0u32.to_le_bytes());
        w.extend_from_slice(&20u32.to_le_bytes());
        w.extend_from_slice(&100u32.to_le_bytes());
        w.extend_from_slice(&0u32.to_le_bytes());
        assert!(matches!(
            parse(&w, 0),
            Err(Error::Invalid {
                what: "bitcode wrapper header",
                ..
            })
        ));
        // A wrapper around nothing but the magic: no modules.
        let mut w = Vec::new();
        w.extend_from_slice(&WRAPPER_MAGIC);
        w.extend_from_slice(&0u32.to_le_bytes());
        w.extend_from_slice(&20u32.to_le_bytes());
        w.extend_from_slice(&4u32.to_le_bytes());
        w.extend_from_slice(&0u32.to_le_bytes());
        w.extend_from_slice(&MAGIC);
        let f = parse(&w, 0x1000).unwrap();
        assert!(f.modules.is_empty());
        assert_eq!(f.offset, 0x1014);
        assert!(embedded_objects(&w, 0).is_err());
        assert!(f.symtab().is_err());
    }
}
