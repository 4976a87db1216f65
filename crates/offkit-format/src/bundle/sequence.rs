//! Bundle-carrying data as a sequence of bundles.
//!
//! A `.hip_fatbin` section of a library linked from many translation units holds one bundle per
//! translation unit — plain or compressed, mixed — each starting at an alignment boundary (ROCm
//! uses 4096) with zero bytes between them. A raw bundle file may be laid out the same way. The
//! sequence is walked by sizes alone: a compressed bundle ends where its total size says (for
//! version 1, which has none, where its stream ends), a plain bundle at the furthest end of its
//! header and payloads; the zero padding after it is skipped, and what follows must be another
//! bundle's magic, at that very offset. Nothing is ever searched for inside payloads.
//!
//! ```text
//! .hip_fatbin: │ bundle 0 │ 0…0 │ CCOB bundle 1 │ 0…0 │ bundle 2 │ 0…0 │
//!              0          end   4096            end   8192       end
//! ```

use super::{binary, compressed, MAGIC};
use crate::error::{Error, Result};
use offkit_read::limits;

/// What one bundle of a sequence is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'d> {
    /// A plain binary bundle, with its parsed header.
    Plain(binary::Header<'d>),
    /// A compressed bundle (`CCOB`).
    Compressed(compressed::Blob<'d>),
}

/// One bundle of a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece<'d> {
    /// Its index in the sequence, from 0.
    pub index: usize,
    /// The absolute offset of its first byte.
    pub offset: u64,
    /// Its bytes: from its magic to its end (padding excluded).
    pub data: &'d [u8],
    /// What it is.
    pub kind: Kind<'d>,
}

/// The bundles of `data` (absolute offset `base`), in order. The iterator stops for good after
/// the first error.
pub fn sequence(data: &[u8], base: u64) -> Sequence<'_> {
    Sequence {
        data,
        base,
        pos: 0,
        index: 0,
        done: false,
    }
}

/// Whether `data` starts with a bundle of either kind (the magics, with LLVM 19's minimum
/// sizes).
pub fn starts_bundle(data: &[u8]) -> bool {
    super::detect(data) != super::Detected::Other
}

/// The iterator of [`sequence`].
#[derive(Debug, Clone)]
pub struct Sequence<'d> {
    data: &'d [u8],
    base: u64,
    pos: usize,
    index: usize,
    done: bool,
}

impl<'d> Sequence<'d> {
    fn next_piece(&mut self) -> Result<Option<Piece<'d>>> {
        // Zero padding: skipped to the first non-zero byte, which must start a bundle.
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let Some(skip) = rest.iter().position(|&b| b != 0) else {
            return Ok(None);
        };
        let start = self.pos + skip;
        let rest = self.data.get(start..).unwrap_or_default();
        let at = self.base + start as u64;
        if self.index >= limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "bundles in a sequence",
                at,
                self.index as u64 + 1,
            ));
        }
        let (len, kind) = if rest.starts_with(&compressed::MAGIC) {
            let header = compressed::parse_header(rest, at)?;
            let len = match header.total_size {
                Some(t) => t,
                None => {
                    let stream = rest.get(header.header_size as usize..).unwrap_or_default();
                    header.header_size + compressed::stream::stream_len(&header, stream)?
                }
            };
            let end = usize::try_from(len)
                .ok()
                .filter(|&l| l <= rest.len())
                .ok_or(Error::Truncated {
                    what: "compressed bundle",
                    offset: at,
                    needed: len,
                    left: rest.len() as u64,
                })?;
            let stream = rest
                .get(header.header_size as usize..end)
                .unwrap_or_default();
            (
                end,
                Kind::Compressed(compressed::Blob {
                    header,
                    data: stream,
                }),
            )
        } else if rest.starts_with(MAGIC) {
            let header = binary::parse(rest, rest.len() as u64, at)?;
            // `parse` checked that every payload lies inside `rest`.
            let end = header
                .entries
                .iter()
                .map(|e| e.offset.saturating_add(e.size))
                .fold(header.header_size, u64::max);
            (end as usize, Kind::Plain(header))
        } else if self.index == 0 && skip == 0 {
            return Err(Error::BadMagic {
                what: "offload bundle",
                offset: at,
            });
        } else {
            return Err(Error::Invalid {
                what: "bundle sequence",
                offset: at,
                reason: format!(
                    "the byte after {} is neither zero padding nor the start of a bundle",
                    if self.index == 0 {
                        "the leading zero padding".to_string()
                    } else {
                        format!("bundle {}", self.index - 1)
                    }
                ),
            });
        };
        let piece = Piece {
            index: self.index,
            offset: at,
            data: rest.get(..len).unwrap_or_default(),
            kind,
        };
        self.index += 1;
        self.pos = start + len.max(1);
        Ok(Some(piece))
    }
}

impl<'d> Iterator for Sequence<'d> {
    type Item = Result<Piece<'d>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_piece() {
            Ok(Some(p)) => Some(Ok(p)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::compressed::{compress, Options};

    fn pad(v: &mut Vec<u8>, align: usize) {
        v.resize(v.len().div_ceil(align) * align, 0);
    }

    #[test]
    fn mixed_plain_and_compressed_with_padding() {
        let plain = binary::write(
            &[
                (b"host-x86_64-unknown-linux-gnu-", b""),
                (b"hipv4-amdgcn-amd-amdhsa--gfx90a", b"\x7fELF one"),
            ],
            4096,
        )
        .unwrap();
        let mut section = Vec::new();
        let mut starts = Vec::new();
        for (i, version) in [0u16, 1, 2, 3, 0].into_iter().enumerate() {
            starts.push(section.len() as u64);
            if version == 0 {
                section.extend_from_slice(&plain);
            } else {
                let opts = Options {
                    version,
                    method: if i % 2 == 0 {
                        compressed::Method::Zlib
                    } else {
                        compressed::Method::Zstd
                    },
                    ..Options::default()
                };
                section.extend_from_slice(&compress(&plain, &opts).unwrap().bytes);
            }
            pad(&mut section, 4096);
        }
        let pieces: Vec<Piece<'_>> = sequence(&section, 0x1000).collect::<Result<_>>().unwrap();
        assert_eq!(pieces.len(), 5);
        for (p, s) in pieces.iter().zip(&starts) {
            assert_eq!(p.offset, 0x1000 + s);
        }
        assert!(matches!(pieces[0].kind, Kind::Plain(_)));
        assert!(matches!(pieces[2].kind, Kind::Compressed(_)));
        // Garbage in the padding is an error at its offset.
        let mut bad = section.clone();
        bad[plain.len() + 10] = 1;
        let e = sequence(&bad, 0).collect::<Result<Vec<_>>>().unwrap_err();
        assert!(
            matches!(e, Error::Invalid { offset, .. } if offset == plain.len() as u64 + 10),
            "{e}"
        );
        // A truncated compressed bundle is an error, never a panic.
        for cut in [
            starts[1] + 3,
            starts[1] + 25,
            starts[2] + 40,
            starts[4] + 30,
        ] {
            let cut = cut as usize;
            let r: Result<Vec<_>> = sequence(&section[..cut], 0).collect();
            assert!(r.is_err(), "cut at {cut}");
        }
    }
}
