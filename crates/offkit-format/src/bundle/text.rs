//! The text bundle format (`-type=i ii cui hipi d s ll`): payloads between comment markers.
//!
//! ```text
//! \n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <id>\n
//! <payload>
//! \n<comment> __CLANG_OFFLOAD_BUNDLE____END__ <id>\n
//! ```
//!
//! The newline before each marker belongs to the marker, so a payload comes back byte for byte.

use crate::error::{Error, Result};
use offkit_read::limits;

/// The line-comment syntax of a text bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comment {
    /// `//` (`-type=i`, `ii`, `cui`, `hipi`).
    Slash,
    /// `#` (`-type=d`, `s`).
    Hash,
    /// `;` (`-type=ll`).
    Semicolon,
}

impl Comment {
    /// The first comment syntax (`//`, `#`, `;`, in that order) whose bundle start marker
    /// appears anywhere in `data`: the text bundle `data` holds, if any.
    pub fn find_in(data: &[u8]) -> Option<Comment> {
        [Comment::Slash, Comment::Hash, Comment::Semicolon]
            .into_iter()
            .find(|c| find(data, &c.start_marker(), 0).is_some())
    }

    /// The comment for a `-type` value, if it is a text type.
    pub fn for_type(ty: &str) -> Option<Comment> {
        match ty {
            "i" | "ii" | "cui" | "hipi" => Some(Comment::Slash),
            "d" | "s" => Some(Comment::Hash),
            "ll" => Some(Comment::Semicolon),
            _ => None,
        }
    }

    /// The comment text.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Comment::Slash => "//",
            Comment::Hash => "#",
            Comment::Semicolon => ";",
        }
    }

    /// `"\n" + comment + " __CLANG_OFFLOAD_BUNDLE____START__ "`.
    pub fn start_marker(self) -> Vec<u8> {
        format!("\n{} __CLANG_OFFLOAD_BUNDLE____START__ ", self.as_str()).into_bytes()
    }

    /// `"\n" + comment + " __CLANG_OFFLOAD_BUNDLE____END__ "`.
    pub(crate) fn end_marker(self) -> Vec<u8> {
        format!("\n{} __CLANG_OFFLOAD_BUNDLE____END__ ", self.as_str()).into_bytes()
    }

    /// What LLVM 19 writes before a payload: the start marker, the ID and a newline.
    pub fn entry_prefix(self, id: &[u8]) -> Vec<u8> {
        let mut v = self.start_marker();
        v.extend_from_slice(id);
        v.push(b'\n');
        v
    }

    /// What LLVM 19 writes after a payload: the end marker, the ID and a newline.
    pub fn entry_suffix(self, id: &[u8]) -> Vec<u8> {
        let mut v = self.end_marker();
        v.extend_from_slice(id);
        v.push(b'\n');
        v
    }
}

/// Writes a text bundle: for each entry, its prefix, the payload verbatim, its suffix.
pub fn write(comment: Comment, entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, payload) in entries {
        out.extend(comment.entry_prefix(id));
        out.extend_from_slice(payload);
        out.extend(comment.entry_suffix(id));
    }
    out
}

/// `StringRef::find(needle, from)`: `None` for "npos" (also when `from` is past the end).
pub(crate) fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let tail = hay.get(from..)?;
    if needle.is_empty() {
        return Some(from);
    }
    memfind(tail, needle).map(|i| i + from)
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let p = hay.get(i..)?.iter().position(|&b| b == first)?;
        i += p;
        if i + needle.len() > hay.len() {
            return None;
        }
        if hay.get(i + 1..i + needle.len()) == Some(rest) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// One entry of a text bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    /// The ID after the start marker.
    pub id: &'d [u8],
    /// The absolute offset of the start marker (its leading newline).
    pub marker_offset: u64,
    /// The absolute offset of the payload.
    pub payload_offset: u64,
    /// The payload.
    pub payload: &'d [u8],
}

/// Reads a text bundle with offkit's strict rules: every start marker has an end marker with
/// the same ID, IDs are non-empty and unique, and there is at least one entry.
pub fn parse(data: &[u8], comment: Comment, base: u64) -> Result<Vec<Entry<'_>>> {
    let start = comment.start_marker();
    let end = comment.end_marker();
    let mut out: Vec<Entry<'_>> = Vec::new();
    let mut cur = 0usize;
    while let Some(m) = find(data, &start, cur) {
        let id_at = m + start.len();
        let nl = find(data, b"\n", id_at).ok_or_else(|| Error::Truncated {
            what: "text bundle start marker",
            offset: base + m as u64,
            needed: (data.len() - m + 1) as u64,
            left: (data.len() - m) as u64,
        })?;
        let id = data.get(id_at..nl).unwrap_or_default();
        if id.is_empty() {
            return Err(Error::Invalid {
                what: "text bundle start marker",
                offset: base + m as u64,
                reason: "the entry ID is empty".into(),
            });
        }
        if let Some(first) = out.iter().find(|e| e.id == id) {
            return Err(Error::Invalid {
                what: "text bundle start marker",
                offset: base + m as u64,
                reason: format!(
                    "duplicate entry ID `{}` (first at offset {:#x})",
                    String::from_utf8_lossy(id),
                    first.marker_offset
                ),
            });
        }
        if out.len() >= limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "text bundle entry count",
                base + m as u64,
                out.len() as u64 + 1,
            ));
        }
        let payload_at = nl + 1;
        let e = find(data, &end, payload_at).ok_or_else(|| Error::Invalid {
            what: "text bundle entry",
            offset: base + m as u64,
            reason: format!(
                "the entry `{}` has no end marker",
                String::from_utf8_lossy(id)
            ),
        })?;
        let end_id_at = e + end.len();
        let end_nl = find(data, b"\n", end_id_at).unwrap_or(data.len());
        let end_id = data.get(end_id_at..end_nl).unwrap_or_default();
        if end_id != id {
            return Err(Error::Invalid {
                what: "text bundle end marker",
                offset: base + e as u64,
                reason: format!(
                    "the end marker names `{}`, the entry started as `{}`",
                    String::from_utf8_lossy(end_id),
                    String::from_utf8_lossy(id)
                ),
            });
        }
        out.push(Entry {
            id,
            marker_offset: base + m as u64,
            payload_offset: base + payload_at as u64,
            payload: data.get(payload_at..e).unwrap_or_default(),
        });
        cur = end_nl + 1;
    }
    if out.is_empty() {
        return Err(Error::Invalid {
            what: "text bundle",
            offset: base,
            reason: format!(
                "no `{}` start marker found",
                String::from_utf8_lossy(&start[1..start.len() - 1])
            ),
        });
    }
    Ok(out)
}

/// LLVM 19's `TextFileHandler`, step by step: a cursor that the drop-in drives exactly as
/// LLVM's unbundling and listing loops do, so that it finds the same bundles in the same order.
#[derive(Debug, Clone)]
pub struct Llvm19Reader<'d> {
    data: &'d [u8],
    start: Vec<u8>,
    end: Vec<u8>,
    /// `ReadChars`; `None` is `npos`.
    read_chars: Option<usize>,
}

/// Where LLVM 19 goes wrong on a text bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Llvm19Failure {
    /// A bundle has no end marker: LLVM 19 reads out of bounds (unbundling).
    NoEndMarker {
        /// The offset of the bundle's payload.
        offset: u64,
    },
    /// Listing would never end (LLVM 19 loops forever).
    Loops,
}

impl<'d> Llvm19Reader<'d> {
    /// A reader at the start of `data`.
    pub fn new(data: &'d [u8], comment: Comment) -> Self {
        Llvm19Reader {
            data,
            start: comment.start_marker(),
            end: comment.end_marker(),
            read_chars: Some(0),
        }
    }

    /// `ReadBundleStart`: the next ID, or `None` when there are no more bundles.
    pub fn read_bundle_start(&mut self) -> Option<&'d [u8]> {
        let m = find(self.data, &self.start, self.read_chars?);
        let Some(m) = m else {
            self.read_chars = None;
            return None;
        };
        let id_at = m + self.start.len();
        let Some(nl) = find(self.data, b"\n", id_at) else {
            self.read_chars = None;
            return None;
        };
        self.read_chars = Some(nl + 1);
        self.data.get(id_at..nl)
    }

    /// `ReadBundle`: the payload from the cursor to the next end marker.
    pub fn read_bundle(&mut self) -> Result<&'d [u8], Llvm19Failure> {
        let from = self.read_chars.unwrap_or(self.data.len());
        match find(self.data, &self.end, from) {
            Some(e) => {
                self.read_chars = Some(e);
                Ok(self.data.get(from..e).unwrap_or_default())
            }
            None => Err(Llvm19Failure::NoEndMarker {
                offset: from as u64,
            }),
        }
    }

    /// `ReadBundleEnd`: skips to just past the newline after the end marker's leading newline.
    /// From `npos` the position wraps around to 0, as `npos + 1` does in LLVM.
    pub fn read_bundle_end(&mut self) {
        let from = match self.read_chars {
            Some(p) => p + 1,
            None => 0,
        };
        self.read_chars = find(self.data, b"\n", from).map(|p| p + 1);
    }

    /// `listBundleIDs`: the IDs `-list` prints, or [`Llvm19Failure::Loops`] where LLVM 19
    /// never finishes.
    pub fn list(data: &'d [u8], comment: Comment) -> Result<Vec<&'d [u8]>, Llvm19Failure> {
        let mut r = Llvm19Reader::new(data, comment);
        let mut out = Vec::new();
        let mut wrapped = false;
        while let Some(id) = r.read_bundle_start() {
            out.push(id);
            // `listBundleIDsCallback`: find the end marker, then `ReadBundleEnd`.
            let from = r.read_chars.unwrap_or(data.len());
            r.read_chars = find(data, &r.end, from);
            if r.read_chars.is_none() {
                // The search restarts after the file's first newline; a second time would
                // repeat the same steps forever.
                if wrapped {
                    return Err(Llvm19Failure::Loops);
                }
                wrapped = true;
            }
            r.read_bundle_end();
            if out.len() > limits::MAX_ROWS {
                return Err(Llvm19Failure::Loops);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_and_parse_round_trip() {
        let out = write(
            Comment::Slash,
            &[
                (b"host-x86_64-unknown-linux-gnu-", b"int x;\n"),
                (b"hip-amdgcn-amd-amdhsa--gfx906", b""),
            ],
        );
        assert!(out.starts_with(b"\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nint x;\n\n// __CLANG_OFFLOAD_BUNDLE____END__ host"));
        let e = parse(&out, Comment::Slash, 0).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].payload, b"int x;\n");
        assert_eq!(e[1].payload, b"");
        assert!(parse(&out, Comment::Hash, 0).is_err());
        assert_eq!(
            Llvm19Reader::list(&out, Comment::Slash).unwrap(),
            [
                &b"host-x86_64-unknown-linux-gnu-"[..],
                b"hip-amdgcn-amd-amdhsa--gfx906"
            ]
        );
        let mut r = Llvm19Reader::new(&out, Comment::Slash);
        r.read_bundle_start().unwrap();
        assert_eq!(r.read_bundle().unwrap(), b"int x;\n");
        r.read_bundle_end();
        assert_eq!(
            r.read_bundle_start().unwrap(),
            b"hip-amdgcn-amd-amdhsa--gfx906"
        );
        assert_eq!(r.read_bundle().unwrap(), b"");
    }

    #[test]
    fn llvm19_quirks() {
        // A marker at offset 0 (no leading newline) is invisible.
        let no_nl = b"// __CLANG_OFFLOAD_BUNDLE____START__ a-b-c-d-\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n";
        assert!(Llvm19Reader::list(no_nl, Comment::Slash)
            .unwrap()
            .is_empty());
        // No end marker: listing prints the ID and ends (one leading newline) ...
        let open = b"\n// __CLANG_OFFLOAD_BUNDLE____START__ id\npayload";
        assert_eq!(Llvm19Reader::list(open, Comment::Slash).unwrap(), [b"id"]);
        let mut r = Llvm19Reader::new(open, Comment::Slash);
        r.read_bundle_start();
        assert!(r.read_bundle().is_err());
        // ... or loops forever (two leading newlines).
        let looping = b"\n\n// __CLANG_OFFLOAD_BUNDLE____START__ id\npayload";
        assert_eq!(
            Llvm19Reader::list(looping, Comment::Slash),
            Err(Llvm19Failure::Loops)
        );
        assert!(find(b"abc", b"c", 5).is_none());
        assert_eq!(find(b"abcabc", b"bc", 2), Some(4));
    }
}
