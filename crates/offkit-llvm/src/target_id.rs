//! Target IDs (`gfx90a:sramecc+:xnack-`): a processor followed by `:`-separated features, each
//! ending in `+` (on) or `-` (off); a feature left out means "any". Parsing, the canonical form,
//! the processor tables of each LLVM release ([`amdgpu`], [`offload_arch`]: one table per
//! concept, with the releases that know a row as a column), and LLVM's compatibility rules:
//!
//! - [`bundle`]: `clang-offload-bundler`'s bundle entry IDs, standardisation, compatibility of
//!   a code object with a requested target, and the conflict checks;
//! - [`linker`]: `clang-linker-wrapper`'s grouping rule.
//!
//! Matched against `clang/lib/Basic/TargetID.cpp`, `clang/lib/Basic/Cuda.cpp` (19) or
//! `OffloadArch.cpp` (22) and `llvm/lib/TargetParser/TargetParser.cpp` of LLVM 19 and 22, and
//! against the installed tools by the conformance tests (`tests/all/targets.rs`).
//!
//! ```
//! use offkit_llvm::target_id::TargetId;
//! use offkit_llvm::triple::Triple;
//! use offkit_llvm::LlvmVersion::{V19, V22};
//!
//! let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
//! let id = TargetId::parse(V19, &amdgcn, "tahiti").unwrap();
//! assert_eq!(id.canonical(), b"gfx600");
//! let id = TargetId::parse(V19, &amdgcn, b"gfx90a:xnack-:sramecc+").unwrap();
//! assert_eq!(id.canonical(), b"gfx90a:sramecc+:xnack-");
//! assert!(TargetId::parse(V19, &amdgcn, b"gfx1030:xnack+").is_err()); // gfx1030 has no xnack
//! assert!(TargetId::parse(V19, &amdgcn, b"gfx950:xnack+").is_err()); // new in 22
//! assert!(TargetId::parse(V22, &amdgcn, b"gfx950:xnack+").is_ok());
//! ```

pub mod amdgpu;
pub mod bundle;
pub mod linker;
pub mod offload_arch;

use std::collections::BTreeSet;
use std::fmt;

use crate::triple::{split_once, Triple};
use crate::version::LlvmVersion;
use crate::{Error, Result};

/// One feature of a target ID: its name and whether it is on (`+`) or off (`-`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Feature<'a> {
    /// The name (`xnack`), without the sign.
    pub name: &'a [u8],
    /// `true` for `+`, `false` for `-`.
    pub on: bool,
}

/// A target ID split by format only (LLVM's `parseTargetIDWithFormatCheckingOnly`): the
/// processor as written and the features in the order written. Nothing is checked against a
/// processor table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTargetId<'a> {
    /// The text before the first `:` (empty only for an empty target ID).
    pub processor: &'a [u8],
    /// The features, in the order written (no name twice).
    pub features: Vec<Feature<'a>>,
}

/// What [`split_features`] found.
struct Split<'a> {
    processor: &'a [u8],
    features: Vec<Feature<'a>>,
    /// `None` if the whole ID is well formed; else the offset of the bad feature and why.
    error: Option<(usize, &'static str)>,
}

/// Walks a target ID the way LLVM's format check does, keeping the features read before a
/// malformed one (LLVM's conflict check relies on them, see [`find_conflict`]).
fn split_features(tid: &[u8]) -> Split<'_> {
    let (processor, mut rest) = split_once(tid, b':');
    let mut split = Split {
        processor,
        features: Vec::new(),
        error: None,
    };
    if tid.is_empty() {
        return split;
    }
    if processor.is_empty() {
        split.error = Some((0, "the processor is empty"));
        return split;
    }
    // Offset of `rest` in `tid`.
    let mut offset = processor.len() + 1;
    while !rest.is_empty() {
        let (item, next) = split_once(rest, b':');
        // An empty item: LLVM reads the byte before it, always the `:`, which is no sign.
        let (name, sign) = match item.split_last() {
            Some((&sign, name)) if sign == b'+' || sign == b'-' => (name, sign),
            _ => {
                split.error = Some((offset, "a feature must end in `+` or `-`"));
                return split;
            }
        };
        if split.features.iter().any(|f| f.name == name) {
            split.error = Some((offset, "a feature is given twice"));
            return split;
        }
        split.features.push(Feature {
            name,
            on: sign == b'+',
        });
        offset += item.len() + 1;
        rest = next;
    }
    split
}

/// `parseTargetIDWithFormatCheckingOnly` (the same in LLVM 19 and 22): splits `tid` into a processor and features
/// without looking anything up. The empty string parses (as an empty processor); an empty
/// processor otherwise, a feature without a trailing `+`/`-`, or a feature given twice do not.
/// A trailing `:` is accepted (`gfx906:`, `gfx906:xnack+:`).
pub fn parse_format<S: AsRef<[u8]> + ?Sized>(tid: &S) -> Result<RawTargetId<'_>> {
    let split = split_features(tid.as_ref());
    match split.error {
        None => Ok(RawTargetId {
            processor: split.processor,
            features: split.features,
        }),
        Some((offset, reason)) => Err(invalid(offset, reason)),
    }
}

fn invalid(offset: usize, reason: &str) -> Error {
    Error::Invalid {
        what: "target ID",
        offset: offset as u64,
        reason: reason.into(),
    }
}

/// A target ID checked against a triple (`parseTargetID`): for AMDGPU triples the processor
/// is a GPU of the release's table for the triple, stored under its canonical name, and every
/// feature is one that processor allows; for other triples the processor is taken as written
/// and no feature is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetId<'a> {
    processor: &'a [u8],
    features: Vec<Feature<'a>>,
}

/// `getCanonicalProcessorName` of release `llvm`: its table's canonical name on AMDGPU, the
/// name itself elsewhere; `None` when the result would be empty.
pub(crate) fn canonical_processor<'a>(
    llvm: LlvmVersion,
    triple: &Triple,
    processor: &'a [u8],
) -> Option<&'a [u8]> {
    let canonical = if triple.is_amdgpu() {
        amdgpu::canonical_name(llvm, triple, processor)?.as_bytes()
    } else {
        processor
    };
    (!canonical.is_empty()).then_some(canonical)
}

/// `getAllPossibleTargetIDFeatures` of release `llvm`: the features a target ID may set for
/// `processor` on `triple`, alphabetically (`sramecc`, `xnack` on AMDGPU; none elsewhere).
pub fn allowed_features(
    llvm: LlvmVersion,
    triple: &Triple,
    processor: &[u8],
) -> &'static [&'static str] {
    if triple.is_amdgpu() {
        amdgpu::target_id_features(llvm, triple, processor)
    } else {
        &[]
    }
}

/// offkit's own reading: [`allowed_features`] of the newest release that knows `processor`
/// (`gfx940`, which LLVM 22 dropped, has 19's `sramecc` and `xnack`).
pub fn allowed_features_any(triple: &Triple, processor: &[u8]) -> &'static [&'static str] {
    LlvmVersion::ALL
        .iter()
        .rev()
        .find(|&&v| canonical_processor(v, triple, processor).is_some())
        .map_or(&[], |&v| allowed_features(v, triple, processor))
}

impl<'a> TargetId<'a> {
    /// `parseTargetID(triple, tid)` of release `llvm` (`tid` is a `&str` or bytes). The rule
    /// is the same in every release; the processor tables differ.
    pub fn parse<S: AsRef<[u8]> + ?Sized>(
        llvm: LlvmVersion,
        triple: &Triple,
        tid: &'a S,
    ) -> Result<Self> {
        let tid = tid.as_ref();
        let raw = parse_format(tid)?;
        let processor = canonical_processor(llvm, triple, raw.processor).ok_or_else(|| {
            if raw.processor.is_empty() {
                invalid(0, "the target ID is empty")
            } else {
                invalid(
                    0,
                    &format!(
                        "`{}` is not a processor LLVM {llvm} knows for `{triple}`",
                        String::from_utf8_lossy(raw.processor)
                    ),
                )
            }
        })?;
        let allowed = allowed_features(llvm, triple, processor);
        for f in &raw.features {
            if !allowed.iter().any(|a| a.as_bytes() == f.name) {
                let at = feature_offset(tid, f.name);
                return Err(invalid(
                    at,
                    &format!(
                        "`{}` does not support the feature `{}`",
                        String::from_utf8_lossy(processor),
                        String::from_utf8_lossy(f.name)
                    ),
                ));
            }
        }
        Ok(TargetId {
            processor,
            features: raw.features,
        })
    }

    /// offkit's own reading: [`TargetId::parse`] with the newest release that accepts `tid`
    /// (a code object for `gfx940`, which 22 dropped, still reads), or the newest release's
    /// error when none does.
    pub fn parse_any<S: AsRef<[u8]> + ?Sized>(triple: &Triple, tid: &'a S) -> Result<Self> {
        let tid = tid.as_ref();
        TargetId::parse(LlvmVersion::NEWEST, triple, tid).or_else(|newest| {
            LlvmVersion::ALL
                .iter()
                .rev()
                .find_map(|&v| TargetId::parse(v, triple, tid).ok())
                .ok_or(newest)
        })
    }

    /// The processor (canonical on AMDGPU: `tahiti` is `gfx600`).
    pub fn processor(&self) -> &'a [u8] {
        self.processor
    }

    /// The features, in the order written.
    pub fn features(&self) -> &[Feature<'a>] {
        &self.features
    }

    /// The setting of feature `name`: `Some(true)` for `+`, `Some(false)` for `-`, `None` for
    /// "any" (not given).
    pub fn feature(&self, name: &str) -> Option<bool> {
        self.features
            .iter()
            .find(|f| f.name == name.as_bytes())
            .map(|f| f.on)
    }

    /// The canonical form (LLVM's `getCanonicalTargetID`): the canonical processor, then the
    /// features sorted by name, each `:name+` or `:name-`.
    pub fn canonical(&self) -> Vec<u8> {
        canonical_target_id(self.processor, &self.features)
    }
}

impl fmt::Display for TargetId<'_> {
    /// The canonical form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.canonical()))
    }
}

fn feature_offset(tid: &[u8], name: &[u8]) -> usize {
    let (processor, mut rest) = split_once(tid, b':');
    let mut offset = processor.len() + 1;
    while !rest.is_empty() {
        let (item, next) = split_once(rest, b':');
        if item.len() == name.len() + 1 && item.starts_with(name) {
            return offset;
        }
        offset += item.len() + 1;
        rest = next;
    }
    0
}

/// LLVM's `getCanonicalTargetID(processor, features)`: `processor` then `:name±` for each
/// feature in name order.
pub(crate) fn canonical_target_id(processor: &[u8], features: &[Feature<'_>]) -> Vec<u8> {
    let mut sorted: Vec<&Feature<'_>> = features.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(b.name));
    let mut out = processor.to_vec();
    for f in sorted {
        out.push(b':');
        out.extend_from_slice(f.name);
        out.push(if f.on { b'+' } else { b'-' });
    }
    out
}

/// `isCompatibleTargetID(provided, requested)` (the driver's rule, the same in 19 and 22): the processors
/// are equal as written, and every feature `provided` sets is set the same way in `requested`.
/// Malformed IDs are never compatible (LLVM dereferences an empty optional there).
pub fn is_compatible(provided: &[u8], requested: &[u8]) -> bool {
    let (Ok(p), Ok(r)) = (parse_format(provided), parse_format(requested)) else {
        return false;
    };
    p.processor == r.processor
        && p.features
            .iter()
            .all(|f| r.features.iter().any(|g| g.name == f.name && g.on == f.on))
}

/// What `getConflictTargetIDCombination` finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict<'a> {
    /// No conflict.
    None,
    /// The remembered ID and the one that conflicts with it.
    Pair(&'a [u8], &'a [u8]),
    /// LLVM dereferences an empty `std::optional` for this malformed ID and, with nothing
    /// written to the slot it reads yet, crashes (LLVM 22: a segmentation fault).
    Crash(&'a [u8]),
}

/// `getConflictTargetIDCombination` of release `llvm` over a set of target IDs (visited in
/// sorted order, duplicates once): the first processor seen is remembered with its features;
/// a later ID of that processor conflicts if it has a feature the remembered one lacks (signs
/// ignored, and only in that direction, so `{gfx906:xnack+, gfx906:xnack-,
/// gfx906:sramecc+:xnack+}` does not conflict).
///
/// A malformed ID makes LLVM dereference an empty `std::optional`; the binary then reads a
/// stack slot holding the last value written there, and the features read before the
/// malformed one count. offkit reproduces the observed behaviour (checked against the tools by
/// the conformance tests), since it decides which inputs are rejected:
/// - **19**: the slot holds the processor of the last well-formed ID, or the *whole ID* of the
///   last ID inserted as a new processor (the inserted entry overlays the slot); before any
///   such write, nothing matches it;
/// - **22**: the slot holds the processor of the last well-formed ID; before any, LLVM crashes
///   ([`Conflict::Crash`]).
pub(crate) fn find_conflict<'a, I>(llvm: LlvmVersion, ids: I) -> Conflict<'a>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    /// The key an ID is filed under.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Key<'a> {
        /// Nothing written yet.
        Fresh,
        Text(&'a [u8]),
    }
    let sorted: BTreeSet<&'a [u8]> = ids.into_iter().collect();
    let mut seen: Vec<(Key<'a>, &'a [u8], Vec<Feature<'a>>)> = Vec::new();
    let mut slot = Key::Fresh;
    for id in sorted {
        let split = split_features(id);
        if split.error.is_none() {
            slot = Key::Text(split.processor);
        }
        let key = slot;
        let existing = match (key, llvm) {
            (Key::Fresh, LlvmVersion::V19) => None,
            (Key::Fresh, _) => return Conflict::Crash(id),
            (Key::Text(_), _) => seen.iter().find(|(k, _, _)| *k == key),
        };
        match existing {
            None => {
                seen.push((key, id, split.features));
                if llvm == LlvmVersion::V19 {
                    slot = Key::Text(id);
                }
            }
            Some((_, first, features)) => {
                if split
                    .features
                    .iter()
                    .any(|f| !features.iter().any(|g| g.name == f.name))
                {
                    return Conflict::Pair(first, id);
                }
            }
        }
    }
    Conflict::None
}

#[cfg(test)]
mod tests {
    use super::*;
    use LlvmVersion::{V19, V22};

    fn amdgcn() -> Triple {
        Triple::parse("amdgcn-amd-amdhsa")
    }

    #[test]
    fn format_only() {
        let raw = parse_format(b"gfx908:sramecc+:xnack-").unwrap();
        assert_eq!(raw.processor, b"gfx908");
        assert_eq!(raw.features.len(), 2);
        assert_eq!(parse_format(b"").unwrap().processor, b"");
        assert!(parse_format(b"gfx906:").is_ok());
        assert!(parse_format(b"gfx906:xnack+:").is_ok());
        assert!(parse_format(b":xnack+").is_err());
        assert!(parse_format(b"gfx906::").is_err());
        assert!(parse_format(b"gfx906:xnack").is_err());
        assert!(parse_format(b"gfx906:xnack+:xnack-").is_err());
        // A bare sign is a feature with an empty name.
        assert_eq!(parse_format(b"gfx906:+").unwrap().features[0].name, b"");
    }

    #[test]
    fn full_parse_and_canonical_form() {
        let t = amdgcn();
        assert_eq!(
            TargetId::parse(V19, &t, b"kaveri").unwrap().processor(),
            b"gfx700"
        );
        let id = TargetId::parse(V19, &t, b"gfx906:xnack+:sramecc-").unwrap();
        assert_eq!(id.canonical(), b"gfx906:sramecc-:xnack+");
        assert_eq!(id.feature("xnack"), Some(true));
        assert_eq!(id.feature("sramecc"), Some(false));
        assert_eq!(
            TargetId::parse(V19, &t, b"gfx90a")
                .unwrap()
                .feature("xnack"),
            None
        );
        assert!(TargetId::parse(V19, &t, b"").is_err());
        assert!(TargetId::parse(V19, &t, b"gfx950").is_err());
        assert_eq!(
            TargetId::parse(V22, &t, b"gfx950:xnack-")
                .unwrap()
                .canonical(),
            b"gfx950:xnack-"
        );
        assert!(TargetId::parse(V22, &t, b"gfx941").is_err());
        assert_eq!(
            TargetId::parse_any(&t, b"gfx941").unwrap().processor(),
            b"gfx941"
        );
        assert_eq!(
            TargetId::parse_any(&t, b"gfx950").unwrap().processor(),
            b"gfx950"
        );
        let err = TargetId::parse_any(&t, b"gfx999").unwrap_err().to_string();
        assert!(err.contains("LLVM 22"), "{err}");
        assert!(TargetId::parse(V22, &t, b"gfx1250:xnack+").is_err());
        assert!(TargetId::parse(V22, &t, b"gfx9-4-generic:sramecc+").is_ok());
        assert!(TargetId::parse(V19, &t, b"generic").is_err());
        assert!(TargetId::parse(V19, &t, b"sm_70").is_err());
        assert!(TargetId::parse(V19, &t, b"gfx900:sramecc+").is_err());
        assert!(TargetId::parse(V19, &t, b"gfx9-generic:xnack-").is_ok());
        let nv = Triple::parse("nvptx64-nvidia-cuda");
        assert_eq!(
            TargetId::parse(V19, &nv, b"sm_70").unwrap().canonical(),
            b"sm_70"
        );
        assert!(TargetId::parse(V19, &nv, b"sm_70:xnack+").is_err());
        assert_eq!(
            TargetId::parse(V19, &nv, b"anything").unwrap().processor(),
            b"anything"
        );
        let err = TargetId::parse(V19, &t, b"gfx1030:xnack+")
            .unwrap_err()
            .to_string();
        assert!(err.contains("offset 0x8"), "{err}");
    }

    #[test]
    fn driver_compatibility() {
        assert!(is_compatible(b"gfx906", b"gfx906:xnack+"));
        assert!(is_compatible(b"gfx906:xnack+", b"gfx906:xnack+:sramecc-"));
        assert!(!is_compatible(b"gfx906:xnack+", b"gfx906"));
        assert!(!is_compatible(b"gfx906:xnack+", b"gfx906:xnack-"));
        assert!(!is_compatible(b"gfx906", b"gfx908"));
    }

    #[test]
    fn conflicts() {
        let pair_of = |c: Conflict<'_>| match c {
            Conflict::Pair(a, b) => Some((
                String::from_utf8(a.to_vec()).unwrap(),
                String::from_utf8(b.to_vec()).unwrap(),
            )),
            Conflict::None => None,
            Conflict::Crash(id) => panic!("crash on {id:?}"),
        };
        let c =
            |ids: &[&'static str]| pair_of(find_conflict(V19, ids.iter().map(|s| s.as_bytes())));
        let pair = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(
            c(&["gfx906", "gfx906:xnack+"]),
            pair("gfx906", "gfx906:xnack+")
        );
        assert_eq!(
            c(&["gfx906:xnack+", "gfx906:sramecc+"]),
            pair("gfx906:sramecc+", "gfx906:xnack+")
        );
        assert_eq!(
            c(&["gfx906:xnack+", "gfx906:xnack-", "gfx906:sramecc+:xnack+"]),
            None
        );
        assert_eq!(c(&["gfx906", "gfx908:xnack+"]), None);
        // Malformed IDs, as the 19 binary treats them.
        assert_eq!(c(&["gfx906", "gfx906:xnack"]), None);
        assert_eq!(
            c(&["gfx906", "gfx906:sramecc+:zz"]),
            pair("gfx906", "gfx906:sramecc+:zz")
        );
        assert_eq!(c(&["gfx906:xnack+", "gfx906:xnack+:sramecc+:zz"]), None);
        assert_eq!(
            c(&[
                "gfx906:xnack+",
                "gfx906:xnack-",
                "gfx906:xnack-:sramecc+:zz"
            ]),
            pair("gfx906:xnack+", "gfx906:xnack-:sramecc+:zz")
        );
        assert_eq!(
            c(&["", "gfx906:xnack+:xnack-"]),
            pair("", "gfx906:xnack+:xnack-")
        );
        assert_eq!(
            c(&["gfx906:xnack+:xnack-", "gfx906:sramecc+:sramecc-"]),
            None
        );
        // LLVM 22, as its binary behaves (see `tests/all/targets/llvm22.rs`).
        let c22 = |ids: &[&'static str]| find_conflict(V22, ids.iter().map(|s| s.as_bytes()));
        let b = |s: &'static str| s.as_bytes();
        assert_eq!(c22(&["gfx906", "gfx906:xnack"]), Conflict::None);
        assert_eq!(
            c22(&["gfx906:xnack+", "gfx906:xnack+:sramecc+:zz"]),
            Conflict::Pair(b("gfx906:xnack+"), b("gfx906:xnack+:sramecc+:zz"))
        );
        assert_eq!(
            c22(&["gfx906:xnack+:xnack-", "gfx906:sramecc+:sramecc-"]),
            Conflict::Crash(b("gfx906:sramecc+:sramecc-"))
        );
        assert_eq!(
            c22(&["gfx906:xnack", "gfx906:xnack+"]),
            Conflict::Crash(b("gfx906:xnack"))
        );
        assert_eq!(c22(&["gfx906:xnack+", "gfx908:zz"]), Conflict::None);
        assert_eq!(
            c22(&["gfx906:xnack+", "gfx908:sramecc+:zz"]),
            Conflict::Pair(b("gfx906:xnack+"), b("gfx908:sramecc+:zz"))
        );
    }
}
