//! `clang-offload-packager` of LLVM 19 and `llvm-offload-binary` of LLVM 22 as a library:
//! packaging image files into version-1 offload binaries ([`package`]) and extracting the
//! images of offload binaries, objects, archives and `-flto` bitcode ([`extract`]), byte for
//! byte as the release does, over a config value.
//!
//! What differs between the releases is one table, [`Rules`] (the required image keys, the
//! offload kind names), and the offload kind numbers written (`OffloadKind::to_raw`). Errors are
//! typed ([`Error`](crate::Error)); the drop-in face words them as LLVM does. Where LLVM would
//! read outside its input the calls say what is wrong, and no failure leaves a partial output.
//!
//! ```text
//! PackageConfig ─► open each image (the one opener) ─► layout_v1 ─► head, image (kernel copy),
//!                  padding ─► one output, renamed into place
//! ExtractConfig ─► offload_binaries (raw, ELF, COFF, archives, thin members, bitcode)
//!                  ─► filters ─► files under LLVM's names, or archives
//! ```

mod extract;
mod package;

use std::path::PathBuf;

use offkit_format::kind::OffloadKind;
use offkit_llvm::adt::densemap::StringKeyMap;
use offkit_llvm::LlvmVersion;

pub use extract::{collect, create_error, extract, CreateError, Found};
pub use package::package;

/// What differs between the releases' packagers (beyond the kind numbers, which
/// `OffloadKind::to_raw` takes the release for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The release.
    pub llvm: LlvmVersion,
    /// Whether packaging needs `triple=` besides `file=` (LLVM 19).
    pub requires_triple: bool,
}

impl Rules {
    /// The packager of release `llvm`.
    pub fn of(llvm: LlvmVersion) -> Rules {
        match llvm {
            LlvmVersion::V19 => Rules {
                llvm,
                requires_triple: true,
            },
            _ => Rules {
                llvm,
                requires_triple: false,
            },
        }
    }

    /// `getOffloadKind`: `openmp`, `cuda`, `hip`, and in LLVM 22 `sycl`; anything else is none.
    pub fn offload_kind(&self, name: &str) -> OffloadKind {
        match (self.llvm, name) {
            (LlvmVersion::V19, _) => OffloadKind::from_name_llvm19(name),
            (_, "sycl") => OffloadKind::Sycl,
            (_, n) => OffloadKind::from_name_llvm19(n),
        }
    }
}

/// The key/value arguments of one `--image`, as LLVM's `getImageArguments` builds its
/// `DenseMap<StringRef, StringRef>`: split on `,`, each piece at its first `=`; a repeated
/// key's values are joined with `,`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageArgs {
    /// (key, value) in order of first appearance.
    pub pairs: Vec<(String, String)>,
}

impl ImageArgs {
    /// Parses one `--image` value.
    pub fn parse(arg: &str) -> ImageArgs {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for piece in arg.split(',') {
            let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
            match pairs.iter_mut().find(|(pk, _)| pk == k) {
                Some((_, pv)) => {
                    pv.push(',');
                    pv.push_str(v);
                }
                None => pairs.push((k.to_string(), v.to_string())),
            }
        }
        ImageArgs { pairs }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The pairs in the map's iteration order.
    pub fn in_map_order(&self) -> Vec<(&str, &str)> {
        let mut map = StringKeyMap::new();
        for (i, (k, _)) in self.pairs.iter().enumerate() {
            map.insert(k.as_bytes(), i);
        }
        map.iter()
            .filter_map(|(_, i)| self.pairs.get(i))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }
}

/// Packaging (`-o FILE --image=file=…,triple=…[,key=value…]…`).
#[derive(Debug, Clone)]
pub struct PackageConfig {
    /// The release's rules.
    pub rules: Rules,
    /// The output (`-` is standard output).
    pub output: PathBuf,
    /// The `--image` arguments, in order.
    pub images: Vec<ImageArgs>,
}

/// Extraction (`INPUT --image=key=value,… [--archive]`).
#[derive(Debug, Clone)]
pub struct ExtractConfig {
    /// The release's rules.
    pub rules: Rules,
    /// The input (`-` is standard input).
    pub input: PathBuf,
    /// The filters, in order; each writes what it matches.
    pub images: Vec<ImageArgs>,
    /// `--archive`: each filter's matches into one archive.
    pub archive: bool,
}

/// What happened on the way, for the caller to report as LLVM does.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// Several images matched a filter with one `file=`: the last one is written.
    MultipleMatches {
        /// The output file.
        file: &'a str,
    },
}

/// `sys::path::filename`: the last component; a path ending in `/` names `.`.
pub(crate) fn filename(path: &str) -> &str {
    if path.is_empty() {
        return "";
    }
    if path.ends_with('/') {
        // A root of only slashes is its own name.
        return if path.bytes().all(|b| b == b'/') {
            "/"
        } else {
            "."
        };
    }
    path.rsplit('/').next().unwrap_or(path)
}

/// `sys::path::extension`, without the dot (what the packager gives `getImageKind`).
pub(crate) fn extension(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return "";
    }
    match name.rfind('.') {
        Some(at) => name.get(at + 1..).unwrap_or_default(),
        None => "",
    }
}

/// `sys::path::stem`: the file name without its last extension.
pub fn stem(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return name;
    }
    match name.rfind('.') {
        Some(at) => name.get(..at).unwrap_or_default(),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_arguments() {
        let a = ImageArgs::parse("file=a.o,triple=t,feature=+x,feature=-y,novalue,=v");
        assert_eq!(a.get("feature"), Some("+x,-y"));
        assert_eq!(a.get("novalue"), Some(""));
        assert_eq!(a.get(""), Some("v"));
        let keys: Vec<&str> = a.in_map_order().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys.len(), 5);
        let common = ImageArgs::parse("file=x,triple=t,arch=a,kind=openmp");
        let keys: Vec<&str> = common
            .in_map_order()
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| *k != "file" && *k != "kind")
            .collect();
        assert_eq!(keys, ["arch", "triple"]);
    }

    #[test]
    fn llvm_path_rules() {
        assert_eq!(extension("a/b.o"), "o");
        assert_eq!(extension("a.b/c"), "");
        assert_eq!(extension(".o"), "o");
        assert_eq!(extension("x."), "");
        assert_eq!(extension(".."), "");
        assert_eq!(extension("-"), "");
        assert_eq!(stem("dir/k.tar.gz"), "k.tar");
        assert_eq!(stem(".hidden"), "");
        assert_eq!(stem("-"), "-");
        assert_eq!(stem("a/"), ".");
        assert_eq!(filename("/"), "/");
    }
}
