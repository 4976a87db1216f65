//! The LZ4 block format, which compressed fat binary entries use (flag `0x2000`): a sequence
//! of (token, literals, match) groups. Bounded: the output never grows past the size the
//! entry header promises, and every read and back-reference is checked.
//!
//! A token's high nibble is the literal count and its low nibble the match length less 4; a
//! nibble of 15 continues in the following bytes, each added until one is not 255. The
//! literals follow, then a 2-byte little-endian offset back into the output (never 0), then
//! the match is copied (it may overlap what it produces). The last group has literals only.

use crate::error::{Error, Result};

/// Decompresses `src` (an LZ4 block whose first byte is at absolute offset `offset`) into
/// exactly `expected` bytes.
pub(crate) fn decompress(src: &[u8], expected: u64, offset: u64) -> Result<Vec<u8>> {
    let fail = |at: usize, reason: String| Error::Decompress {
        what: "lz4-compressed fat binary entry",
        offset: offset.saturating_add(at as u64),
        reason,
    };
    let expected_len = usize::try_from(expected)
        .map_err(|_| fail(0, format!("{expected} bytes do not fit in memory")))?;
    // Reserve only what the input can produce (at most 255 bytes per input byte, plus a
    // group's worth), however large the header says the output is.
    let most = src.len().saturating_mul(255).saturating_add(64);
    let mut out: Vec<u8> = Vec::with_capacity(expected_len.min(most));
    let mut i = 0usize;
    let byte = |i: usize| src.get(i).copied();
    let long = |i: &mut usize, mut n: usize| -> Option<usize> {
        loop {
            let b = byte(*i)?;
            *i += 1;
            n = n.checked_add(usize::from(b))?;
            if b != 255 {
                return Some(n);
            }
        }
    };
    while i < src.len() {
        let token = src.get(i).copied().unwrap_or_default();
        i += 1;
        let mut literals = usize::from(token >> 4);
        if literals == 15 {
            literals =
                long(&mut i, literals).ok_or_else(|| fail(i, "truncated literal length".into()))?;
        }
        let lit = i
            .checked_add(literals)
            .and_then(|end| src.get(i..end))
            .ok_or_else(|| {
                fail(
                    i,
                    format!("{literals} literals run past the end of the data"),
                )
            })?;
        if out.len().saturating_add(lit.len()) > expected_len {
            return Err(fail(
                i,
                format!("the data inflates to more than the {expected} bytes the header says"),
            ));
        }
        out.extend_from_slice(lit);
        i += literals;
        if i == src.len() {
            break; // the last group: literals only
        }
        let back = match (byte(i), byte(i + 1)) {
            (Some(a), Some(b)) => usize::from(u16::from_le_bytes([a, b])),
            _ => return Err(fail(i, "truncated match offset".into())),
        };
        let at = i;
        i += 2;
        let mut len = usize::from(token & 15) + 4;
        if len == 19 {
            len = long(&mut i, len).ok_or_else(|| fail(i, "truncated match length".into()))?;
        }
        if back == 0 || back > out.len() {
            return Err(fail(
                at,
                format!(
                    "match offset {back} points before the start of the output ({} bytes so far)",
                    out.len()
                ),
            ));
        }
        if out.len().saturating_add(len) > expected_len {
            return Err(fail(
                at,
                format!("the data inflates to more than the {expected} bytes the header says"),
            ));
        }
        let start = out.len() - back;
        for k in 0..len {
            // `start + k < out.len()` holds: each pushed byte extends the output by one.
            let b = out.get(start + k).copied().unwrap_or_default();
            out.push(b);
        }
    }
    if out.len() != expected_len {
        return Err(fail(
            src.len(),
            format!(
                "the data inflates to {} bytes, but the header says {expected}",
                out.len()
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_overlapping_match() {
        // "abc" then a 9-byte match at distance 3 (overlapping), then "!" alone.
        let src = [0x35, b'a', b'b', b'c', 3, 0, 0x10, b'!'];
        assert_eq!(decompress(&src, 13, 0).unwrap(), b"abcabcabcabc!");
    }

    #[test]
    fn long_lengths() {
        // 15 + 5 = 20 literals, then a match of 4 + 15 + 255 + 1 = 275 bytes at distance 1.
        let mut src = vec![0xff, 5];
        src.extend_from_slice(&[b'x'; 20]);
        src.extend_from_slice(&[1, 0, 255, 1]);
        let out = decompress(&src, 295, 0).unwrap();
        assert_eq!(out, vec![b'x'; 295]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(decompress(&[0x10, b'a', 0, 0], 5, 0).is_err()); // offset 0
        assert!(decompress(&[0x10, b'a', 2, 0], 5, 0).is_err()); // before the start
        assert!(decompress(&[0x30, b'a'], 3, 0).is_err()); // literals cut
        assert!(decompress(&[0x10, b'a', 1], 5, 0).is_err()); // offset cut
        assert!(decompress(&[0x1f, b'a', 1, 0], 50, 0).is_err()); // length cut
        assert!(decompress(&[0x10, b'a'], 2, 0).is_err()); // too short
        assert!(decompress(&[0x1f, b'a', 1, 0, 200], 10, 0).is_err()); // too long
        assert_eq!(decompress(&[], 0, 0).unwrap(), b"");
    }
}
