//! File names for extracted images: descriptive, safe whatever the metadata says (no `/`, no
//! `..`, no NUL or control characters, no leading `.` or `-`, bounded length), and unique.

use std::collections::HashSet;
use std::path::Path;

use offkit_format::kind::ImageKind;
use offkit_format::scan::{ImageInfo, Source, Step};

/// The longest part taken from one piece of metadata, and the longest name before the
/// extension (well under the usual 255-byte limit, with room for `.NNN.ext`).
const MAX_PART: usize = 64;
const MAX_STEM: usize = 200;

/// `s` with every byte but ASCII letters, digits and `._+-` replaced by `_`, cut to
/// `MAX_PART` characters.
pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_PART)
        .collect()
}

fn stem(name: &str) -> &str {
    let base = Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name);
    match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    }
}

fn extension(i: &ImageInfo) -> &'static str {
    match i.source {
        Source::NvFatbin => "fatbin",
        Source::HipFatbin => "hipfb",
        _ => match i.image_kind {
            ImageKind::None | ImageKind::Other(_) => "bin",
            k => k.extension(),
        },
    }
}

/// `(stem, extension)` for an image:
/// `<file>[-<member>…][-b<bundle>]-<kind>-<triple>[-<target id>]`.
pub(crate) fn describe(i: &ImageInfo) -> (String, &'static str) {
    let mut parts: Vec<String> = Vec::new();
    for s in &i.location.steps {
        match s {
            Step::File(f) => parts.push(sanitize(stem(f))),
            Step::Member(m) | Step::ThinMember(m) => parts.push(sanitize(stem(m))),
            _ => {}
        }
    }
    if let Some(b) = &i.bundle {
        parts.push(format!("b{}", b.index));
    }
    for p in [
        i.offload_kind.to_string(),
        i.triple.to_string(),
        i.target_id.to_string(),
    ] {
        if !p.is_empty() {
            parts.push(sanitize(&p));
        }
    }
    parts.retain(|p| !p.is_empty());
    let mut stem: String = parts.join("-");
    if stem.is_empty() {
        stem = "image".into();
    }
    if stem.starts_with('.') || stem.starts_with('-') {
        stem.insert(0, '_');
    }
    let stem: String = stem.chars().take(MAX_STEM).collect();
    (stem, extension(i))
}

/// Hands out names, adding `.1`, `.2`, … before the extension to names already given (compared
/// without regard to case, for case-insensitive file systems).
#[derive(Debug, Default, Clone)]
pub(crate) struct Names {
    used: HashSet<String>,
}

impl Names {
    /// A name for `(stem, ext)` not given before.
    pub(crate) fn unique(&mut self, (stem, ext): (String, &'static str)) -> String {
        let join = |s: &str| {
            if ext.is_empty() {
                s.to_string()
            } else {
                format!("{s}.{ext}")
            }
        };
        let mut name = join(&stem);
        let mut n = 1u64;
        while !self.used.insert(name.to_ascii_lowercase()) {
            name = join(&format!("{stem}.{n}"));
            n += 1;
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::device::ImageTargetId;
    use offkit_format::kind::{BundleKind, Model};
    use offkit_format::scan::Location;
    use offkit_llvm::triple::Triple;

    fn info(loc: Location, kind: &str, triple: &str, arch: &str) -> ImageInfo {
        ImageInfo {
            location: loc,
            source: Source::OffloadBinary {
                version: 1,
                offset: 0,
                flags: 0,
            },
            offload_kind: Model::Bundle(BundleKind::parse(kind)),
            image_kind: ImageKind::Object,
            triple: Triple::parse(triple),
            target_id: ImageTargetId::read(&Triple::parse(triple), arch),
            strings: Vec::new(),
            offset: 0,
            size: 0,
            compression: None,
            bundle: None,
            address: None,
            code_object: None,
        }
    }

    #[test]
    fn names_are_descriptive_and_safe() {
        let l = Location::file("dir/libk.a").with(Step::Member("k.o".into()));
        let (s, e) = describe(&info(l, "hip", "amdgcn-amd-amdhsa", "gfx90a:xnack+"));
        assert_eq!(
            format!("{s}.{e}"),
            "libk-k-hip-amdgcn-amd-amdhsa-gfx90a_xnack+.o"
        );
        let hostile = info(
            Location::file("../x").with(Step::Member("../../etc/passwd".into())),
            "..",
            "a/../../b\0c\n",
            "",
        );
        let (s, _) = describe(&hostile);
        assert!(
            !s.contains('/') && !s.contains('\0') && !s.contains('\n'),
            "{s}"
        );
        assert_eq!(s, "x-passwd-..-a_.._.._b_c_");
        let dot = info(Location::file(".hidden"), "", "", "");
        assert_eq!(describe(&dot).0, "_.hidden");
        let long = info(
            Location::file("f"),
            &"k".repeat(1000),
            &"t".repeat(1000),
            "",
        );
        assert!(describe(&long).0.len() <= MAX_STEM);
    }

    #[test]
    fn duplicates_get_numbers() {
        let mut n = Names::default();
        assert_eq!(n.unique(("a".into(), "o")), "a.o");
        assert_eq!(n.unique(("a".into(), "o")), "a.1.o");
        assert_eq!(n.unique(("A".into(), "o")), "A.2.o");
        assert_eq!(n.unique(("a.1".into(), "o")), "a.1.1.o");
    }
}
