//! The `-type` names of `clang-offload-bundler` and what each means for reading and writing.

use offkit_format::bundle::text::Comment;

/// What a `-type` value selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// A text bundle (`i ii cui hipi d s ll`).
    Text(Comment),
    /// A binary bundle (`bc gch ast`).
    Binary,
    /// An object file (`o`): a fat object when the host input is an object, else binary.
    Object,
    /// An archive of bundles (`a`, unbundling only).
    Archive,
}

impl FileType {
    /// The type named `s`: LLVM's names, plus offkit's `binary`, `object` and `archive`.
    pub fn parse(s: &str) -> Option<FileType> {
        if let Some(c) = Comment::for_type(s) {
            return Some(FileType::Text(c));
        }
        match s {
            "bc" | "gch" | "ast" | "binary" => Some(FileType::Binary),
            "o" | "object" => Some(FileType::Object),
            "a" | "archive" => Some(FileType::Archive),
            _ => None,
        }
    }
}

/// The names accepted by [`FileType::parse`], for help texts.
pub const NAMES: &str =
    "i, ii, cui, hipi, d, s, ll (text); bc, gch, ast, binary; o, object; a, archive";
