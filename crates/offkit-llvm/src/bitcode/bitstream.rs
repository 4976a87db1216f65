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

mod bits;
mod record;

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use offkit_read::limits;
use record::{check_plausible, read_scalar, MAX_CHUNK};

pub use bits::Bits;
pub(crate) use record::{Abbrev, AbbrevOp};
pub use record::{Ops, Record};

/// Abbreviation ID 0: the end of the current block.
pub(crate) const END_BLOCK: u32 = 0;
/// Abbreviation ID 1: a sub-block starts.
pub(crate) const ENTER_SUBBLOCK: u32 = 1;
/// Abbreviation ID 2: an abbreviation definition.
pub(crate) const DEFINE_ABBREV: u32 = 2;
/// Abbreviation ID 3: a record with VBR6 code, count and operands.
pub(crate) const UNABBREV_RECORD: u32 = 3;
/// The block ID of `BLOCKINFO`, which holds abbreviations for other blocks.
pub(crate) const BLOCKINFO_BLOCK_ID: u32 = 0;
/// `BLOCKINFO_CODE_SETBID`: the block ID the following abbreviations are for.
const BLOCKINFO_CODE_SETBID: u32 = 1;

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
    pub(crate) fn offset(&self) -> u64 {
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
            let ops = Ops::unabbreviated(self.bits, n);
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
            let ops = Ops::abbreviated(self.bits, abbrev);
            (code, ops)
        };
        self.bits = start.clone().finish()?;
        Ok(Record::new(code, id, at, start))
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
                offset: self.bits.offset(),
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
            return Err(Error::limit(
                limits::Limit::BitcodeBlockDepth,
                "bitcode block nesting",
                at,
                self.scopes.len() as u64,
            ));
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
        self.bits = self.bits.at(end);
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
    Error::limit(
        limits::Limit::BitcodeAbbrevs,
        "bitcode abbreviations",
        offset,
        n as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bits::writer::Writer;

    /// Block 8 (width 4) with two abbreviations ([literal 7, array of fixed 8] and
    /// [literal 9, blob]) and three records: "abc" through the first, code 5 [1, 300]
    /// unabbreviated, "12345" through the second.
    fn sample_block() -> Vec<u8> {
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
        w.out
    }

    #[test]
    fn block_with_abbrev_array_and_blob() {
        let data = sample_block();
        let mut c = Cursor::new(&data, 0x100, 0);
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
        let mut c = Cursor::new(&data, 0, 0);
        c.advance().unwrap();
        c.skip_block().unwrap();
        assert!(c.bits().at_end());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let data = sample_block();
        for cut in 0..data.len() {
            let mut c = Cursor::new(&data[..cut], 0, 0);
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

    /// Starts a block in `w` (current width `outer`); returns where its length word is.
    fn enter(w: &mut Writer, outer: u32, id: u64, width: u64) -> (usize, u64) {
        w.emit(1, outer);
        w.vbr(id, 8);
        w.vbr(width, 4);
        w.align32();
        let at = w.out.len();
        w.emit(0, 32);
        (at, w.bit)
    }

    /// Ends the block started at `(len_at, body)` (its width is `width`).
    fn end(w: &mut Writer, width: u32, (len_at, body): (usize, u64)) {
        w.emit(0, width);
        w.align32();
        let words = ((w.bit - body) / 32) as u32;
        w.out[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
    }

    /// `DEFINE_ABBREV [literal code, fixed(8)]` in a block of width `width`.
    fn define(w: &mut Writer, width: u32, code: u64) {
        w.emit(2, width);
        w.vbr(2, 5);
        w.emit(1, 1);
        w.vbr(code, 8);
        w.emit(0, 1);
        w.emit(1, 3);
        w.vbr(8, 5);
    }

    /// A `BLOCKINFO` block giving block 9 one abbreviation for record `code`.
    fn blockinfo(w: &mut Writer, code: u64) {
        let b = enter(w, 3, 0, 3);
        // SETBID 9
        w.emit(3, 3);
        w.vbr(1, 6);
        w.vbr(1, 6);
        w.vbr(9, 6);
        define(w, 3, code);
        end(w, 3, b);
    }

    fn first_record<'d>(c: &mut Cursor<'d>) -> Record<'d> {
        loop {
            match c.advance().unwrap() {
                Entry::Record(r) => return r,
                Entry::SubBlock { id: 0, .. } => c.read_blockinfo().unwrap(),
                Entry::SubBlock { id, .. } => c.enter_block(id).unwrap(),
                Entry::EndBlock => panic!("no record"),
            }
        }
    }

    #[test]
    fn blockinfo_abbreviations_and_replacement() {
        // module(8) { BLOCKINFO(9: code 20); block 9 { rec }; BLOCKINFO(9: code 30);
        //             block 9 { rec } }
        let mut w = Writer::default();
        let m = enter(&mut w, 2, 8, 3);
        blockinfo(&mut w, 20);
        let b = enter(&mut w, 3, 9, 3);
        w.emit(4, 3);
        w.emit(0x41, 8);
        end(&mut w, 3, b);
        blockinfo(&mut w, 30);
        let b = enter(&mut w, 3, 9, 3);
        w.emit(4, 3);
        w.emit(0x42, 8);
        end(&mut w, 3, b);
        end(&mut w, 3, m);

        let mut c = Cursor::new(&w.out, 0, 0);
        let r = first_record(&mut c);
        assert_eq!((r.code, r.first::<1>().unwrap()), (20, [Some(0x41)]));
        assert!(matches!(c.advance().unwrap(), Entry::EndBlock));
        let r = first_record(&mut c);
        // The second BLOCKINFO replaced the first one.
        assert_eq!((r.code, r.first::<1>().unwrap()), (30, [Some(0x42)]));
        assert!(matches!(c.advance().unwrap(), Entry::EndBlock));
        assert!(matches!(c.advance().unwrap(), Entry::EndBlock));

        // Without the block info, abbreviation 4 is not defined in block 9.
        let mut c = Cursor::new(&w.out, 0, 0);
        c.advance().unwrap();
        c.enter_block(8).unwrap();
        c.advance().unwrap();
        c.skip_block().unwrap();
        c.advance().unwrap();
        c.enter_block(9).unwrap();
        assert!(matches!(c.advance(), Err(Error::Invalid { .. })));
    }

    #[test]
    fn nesting_is_limited() {
        let mut w = Writer::default();
        let mut open = Vec::new();
        for _ in 0..limits::MAX_BITCODE_BLOCK_DEPTH + 2 {
            open.push(enter(&mut w, if open.is_empty() { 2 } else { 3 }, 8, 3));
        }
        while let Some(b) = open.pop() {
            end(&mut w, 3, b);
        }
        let mut c = Cursor::new(&w.out, 0, 0);
        let err = loop {
            match c.advance().unwrap() {
                Entry::SubBlock { id, .. } => {
                    if let Err(e) = c.enter_block(id) {
                        break e;
                    }
                }
                other => panic!("{other:?}"),
            }
        };
        assert!(matches!(
            err,
            Error::LimitExceeded {
                limit: limits::Limit::BitcodeBlockDepth,
                ..
            }
        ));
    }

    #[test]
    fn bad_lengths_and_end_blocks() {
        // END_BLOCK at the top level.
        let mut c = Cursor::new(&[0u8; 8], 0, 0);
        assert!(c.advance().is_err());
        // A block whose length word points past the data.
        let mut w = Writer::default();
        let b = enter(&mut w, 2, 8, 3);
        end(&mut w, 3, b);
        w.out[b.0..b.0 + 4].copy_from_slice(&100u32.to_le_bytes());
        let mut c = Cursor::new(&w.out, 0x10, 0);
        c.advance().unwrap();
        assert!(matches!(
            c.clone().enter_block(8),
            Err(Error::Truncated {
                offset: 0x18,
                needed: 400,
                left: 4,
                ..
            })
        ));
        assert!(c.skip_block().is_err());
    }
}
