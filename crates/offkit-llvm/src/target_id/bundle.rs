//! `clang-offload-bundler`'s rules for bundle entry IDs (`<kind>-<triple>[-<target ID>]`) in
//! LLVM 19 and 22: parsing with all its quirks (`OffloadTargetInfo`), the standardised form
//! written to bundles, validation of `-targets`, compatibility of a code object with a requested
//! target (`isCodeObjectCompatible`, including `hip`/`hipv4` and `-hip-openmp-compatible`), and
//! the two conflict checks (`-targets`, and `-check-input-archive`). The messages are the bytes
//! LLVM prints after `<argv0>: error: `.
//!
//! The two releases parse differently (one `match` in [`BundleEntryId::parse`]):
//! - **19** splits at the *last* `-` before the first `:`, takes the rest as a target ID when it
//!   is an offload-arch name 19 knows (the empty name included), and keeps everything before it
//!   as kind and triple;
//! - **22** first requires 5 or 6 `-`-separated components (at most 5 splits:
//!   [`is_well_formed`], else `Targets need to follow the format …`), takes the sixth as the
//!   target ID when its processor is a non-empty offload-arch name 22 knows, and builds the
//!   triple from components 2–5 only; the standardised form then *normalizes* the triple
//!   (three components and a `-` for AMDHSA, four otherwise), where 19 wrote it as parsed.
//!
//! ```
//! use offkit_llvm::target_id::bundle::{is_compatible, BundleEntryId};
//! use offkit_llvm::LlvmVersion::{V19, V22};
//!
//! let user = BundleEntryId::parse(V19, b"hip-amdgcn-amd-amdhsa-gfx906:xnack+");
//! assert_eq!(user.standardised(), b"hip-amdgcn-amd-amdhsa--gfx906:xnack+");
//! // LLVM parses the standardised target again before matching.
//! let requested = user.standardised();
//! let requested = BundleEntryId::parse(V19, &requested);
//! let entry = BundleEntryId::parse(V19, b"hipv4-amdgcn-amd-amdhsa--gfx906");
//! assert!(is_compatible(&entry, &requested, false));
//! // 22 takes the sixth component as the target ID, so `gfx950` is one there.
//! let e22 = BundleEntryId::parse(V22, b"hip-amdgcn-amd-amdhsa--gfx950:xnack+");
//! assert_eq!(e22.target_id(), b"gfx950:xnack+");
//! assert_eq!(BundleEntryId::parse(V19, b"hip-amdgcn-amd-amdhsa--gfx950").target_id(), b"");
//! ```

use super::{offload_arch, TargetId};
use crate::triple::{split_once, Arch, CanonicalForm, Os, Triple};
use crate::version::LlvmVersion;

mod targets;

pub use targets::{
    archive_conflict_message, check_archive_member, check_targets, CheckedTargets, TargetsError,
};

/// The offload kinds a user target may have.
pub(crate) const VALID_KINDS: [&str; 4] = ["host", "openmp", "hip", "hipv4"];

/// A bundle entry ID parsed as a release's `OffloadTargetInfo` does. Parsing never fails;
/// [`is_well_formed`] and [`BundleEntryId::check`] say whether the bundler accepts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntryId<'a> {
    llvm: LlvmVersion,
    raw: &'a [u8],
    kind: &'a [u8],
    triple: Triple,
    target_id: &'a [u8],
}

/// `StringRef::rsplit(char)`: before and after the last `sep` (`(s, "")` without one).
fn rsplit_once(s: &[u8], sep: u8) -> (&[u8], &[u8]) {
    match s.iter().rposition(|&b| b == sep) {
        Some(i) => (
            s.get(..i).unwrap_or_default(),
            s.get(i + 1..).unwrap_or_default(),
        ),
        None => (s, &[]),
    }
}

/// The offset of the first occurrence of `needle` in `hay` (`StringRef::find`; 0 for "").
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `checkOffloadBundleID` of release `llvm`: LLVM 22 requires `<kind>-<arch>-<vendor>-<os>-<env>`
/// and an optional `-<target ID>` (5 or 6 components when split at most 5 times at `-`);
/// LLVM 19 has no such check.
pub fn is_well_formed(llvm: LlvmVersion, id: &[u8]) -> bool {
    match llvm {
        LlvmVersion::V19 => true,
        _ => matches!(split_max(id, 5).len(), 5 | 6),
    }
}

/// `StringRef::split(Out, '-', MaxSplit)`: at most `max` splits.
fn split_max(s: &[u8], max: usize) -> Vec<&[u8]> {
    s.splitn(max + 1, |&b| b == b'-').collect()
}

impl<'a> BundleEntryId<'a> {
    /// Parses a bundle entry ID or a `-targets` value as release `llvm` does.
    ///
    /// LLVM 19:
    /// 1. `base` is the ID up to its first `:`; it splits at its last `-` into `head` and
    ///    `last` (`last` empty without a `-`);
    /// 2. if `last` is an offload-arch name LLVM 19 knows — the empty name included — the
    ///    kind and triple are `head` split at its first `-`, and the target ID runs from the
    ///    first occurrence of `last` anywhere in the ID to its end (for `last` = "" that is
    ///    the whole ID);
    /// 3. otherwise the kind and triple are `base` split at its first `-`, and the target ID
    ///    is empty (a `:…` suffix is dropped);
    /// 4. the triple is rebuilt from four components ([`Triple::four_components`]).
    ///
    /// LLVM 22: the ID splits at most 5 times at `-`; the kind is the first component, the
    /// triple is built from the next four (rebuilt from four components as in 19), and the
    /// sixth is the target ID when the text before its first `:` is a non-empty offload-arch
    /// name 22 knows. An ID with fewer than five components is one LLVM 22 refuses before
    /// parsing ([`is_well_formed`]); here its missing components are empty.
    pub fn parse<S: AsRef<[u8]> + ?Sized>(llvm: LlvmVersion, id: &'a S) -> Self {
        let known = |name: &[u8]| offload_arch::is_known(llvm, name);
        match llvm {
            LlvmVersion::V19 => BundleEntryId::parse_19(llvm, id.as_ref(), known),
            _ => BundleEntryId::parse_22(llvm, id.as_ref(), known),
        }
    }

    /// LLVM 19's rule, with `known` saying which names are offload archs.
    fn parse_19(llvm: LlvmVersion, id: &'a [u8], known: impl Fn(&[u8]) -> bool) -> Self {
        let base = split_once(id, b':').0;
        let (head, last) = rsplit_once(base, b'-');
        let (kind_triple, target_id) = if known(last) {
            let start = find(id, last).unwrap_or(0);
            (head, id.get(start..).unwrap_or_default())
        } else {
            (base, &[][..])
        };
        let (kind, triple) = split_once(kind_triple, b'-');
        BundleEntryId {
            llvm,
            raw: id,
            kind,
            triple: Triple::parse_in(llvm, triple).four_components(),
            target_id,
        }
    }

    /// LLVM 22's rule, with `known` saying which names are offload archs.
    fn parse_22(llvm: LlvmVersion, id: &'a [u8], known: impl Fn(&[u8]) -> bool) -> Self {
        let parts = split_max(id, 5);
        let part = |i: usize| parts.get(i).copied().unwrap_or_default();
        let last = part(5);
        let processor = split_once(last, b':').0;
        let target_id = if !processor.is_empty() && known(processor) {
            last
        } else {
            &[][..]
        };
        let triple = [part(1), part(2), part(3), part(4)].join(&b'-');
        BundleEntryId {
            llvm,
            raw: id,
            kind: part(0),
            triple: Triple::parse_in(llvm, triple).four_components(),
            target_id,
        }
    }

    /// offkit's own reading of an ID, typed by a person or found in a file that any release
    /// may have written, with the offload-arch names of every release: LLVM 22's rule when it
    /// finds a target ID (`hip-amdgcn-amd-amdhsa--gfx950`), else LLVM 19's when that finds a
    /// non-empty one (`hip-amdgcn-amd-amdhsa-gfx906`, as people and LLVM 17 write it, where 22
    /// sees an environment), else 22's when the ID has its form, else 19's. The result follows
    /// the newest release's rules from there on (its standardised form, its processor table).
    pub fn parse_any<S: AsRef<[u8]> + ?Sized>(id: &'a S) -> Self {
        let id = id.as_ref();
        let known = |name: &[u8]| {
            LlvmVersion::ALL
                .iter()
                .any(|&v| offload_arch::is_known(v, name))
        };
        let newest = LlvmVersion::NEWEST;
        let new = BundleEntryId::parse_22(newest, id, known);
        if !new.target_id.is_empty() {
            return new;
        }
        let old = BundleEntryId::parse_19(newest, id, |n: &[u8]| !n.is_empty() && known(n));
        if !old.target_id.is_empty() || !is_well_formed(newest, id) {
            old
        } else {
            new
        }
    }

    /// The release whose rules parsed it.
    pub fn llvm(&self) -> LlvmVersion {
        self.llvm
    }

    /// The ID as given.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The offload kind (`host`, `openmp`, `hip`, `hipv4`, or anything else found).
    pub fn kind(&self) -> &'a [u8] {
        self.kind
    }

    /// The four-component triple (`x86_64-unknown-linux-gnu`, `amdgcn-amd-amdhsa-`).
    pub fn triple(&self) -> &Triple {
        &self.triple
    }

    /// The target ID as the bundler sees it: `gfx906:xnack+`, empty when the last component
    /// is not an offload arch, and the whole ID when the ID ends in `-`.
    pub fn target_id(&self) -> &'a [u8] {
        self.target_id
    }

    /// `OffloadTargetInfo::str()` of the release that parsed it: the form the bundler writes
    /// into bundles and uses everywhere after parsing `-targets` ([`Self::standardised_as`]).
    pub fn standardised(&self) -> Vec<u8> {
        self.standardised_as(self.llvm)
    }

    /// `OffloadTargetInfo::str()` of release `llvm` (`hip-amdgcn-amd-amdhsa-gfx906` →
    /// `hip-amdgcn-amd-amdhsa--gfx906`, `host-x86_64-unknown-linux-gnu` →
    /// `host-x86_64-unknown-linux-gnu-`): `<kind>-<triple>-<target ID>`, the triple as parsed
    /// in 19, and in 22 normalized to three components and a `-` for an AMDHSA triple, four
    /// otherwise (`hip-amdgcn-amd-amdhsa-unknown-gfx906` is `hip-amdgcn-amd-amdhsa--gfx906`,
    /// `openmp-nvptx64-nvidia-cuda--sm_70` is `openmp-nvptx64-nvidia-cuda-unknown-sm_70`).
    pub fn standardised_as(&self, llvm: LlvmVersion) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.raw.len() + 16);
        out.extend_from_slice(self.kind);
        out.push(b'-');
        match llvm {
            LlvmVersion::V19 => out.extend_from_slice(self.triple.as_bytes()),
            llvm => {
                let amdhsa = self.triple.os() == Os::AmdHsa;
                let form = if amdhsa {
                    CanonicalForm::ThreeIdent
                } else {
                    CanonicalForm::FourIdent
                };
                // Only a DXIL triple with an unsupported Shader Model fails (LLVM aborts).
                let normalized = Triple::normalize_form(llvm, self.triple.as_bytes(), form)
                    .unwrap_or_else(|_| self.triple.as_bytes().to_vec());
                out.extend_from_slice(&normalized);
                if amdhsa {
                    out.push(b'-');
                }
            }
        }
        out.push(b'-');
        out.extend_from_slice(self.target_id);
        out
    }

    /// `<kind>-<triple4>`: the key the conflict check groups targets by.
    pub(crate) fn group(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.raw.len() + 8);
        out.extend_from_slice(self.kind);
        out.push(b'-');
        out.extend_from_slice(self.triple.as_bytes());
        out
    }

    /// `isOffloadKindValid`: `host`, `openmp`, `hip` or `hipv4` (case-sensitive).
    pub fn is_kind_valid(&self) -> bool {
        VALID_KINDS.iter().any(|k| k.as_bytes() == self.kind)
    }

    /// `isTripleValid`: the architecture is known.
    pub(crate) fn is_triple_valid(&self) -> bool {
        !self.triple.as_bytes().is_empty() && self.triple.arch() != Arch::Unknown
    }

    /// `hasHostKind`.
    pub fn is_host(&self) -> bool {
        self.kind == b"host"
    }

    /// The bundler's check of one `-targets` value: `Err` carries LLVM's message
    /// (`invalid target '<raw>', unknown offloading kind '<kind>', unknown target triple
    /// '<triple4>'`, with only the clauses that apply).
    pub fn check(&self) -> Result<(), TargetsError> {
        let kind_ok = self.is_kind_valid();
        let triple_ok = self.is_triple_valid();
        if kind_ok && triple_ok {
            return Ok(());
        }
        Err(TargetsError::Invalid {
            target: self.raw.to_vec(),
            kind: (!kind_ok).then(|| self.kind.to_vec()),
            triple: (!triple_ok).then(|| self.triple.as_bytes().to_vec()),
        })
    }
}

/// [`BundleEntryId::parse`] then [`BundleEntryId::standardised`].
pub fn standardise<S: AsRef<[u8]> + ?Sized>(llvm: LlvmVersion, id: &S) -> Vec<u8> {
    BundleEntryId::parse(llvm, id).standardised()
}

/// `isOffloadKindCompatible`: equal kinds, `hip` with `hipv4` either way, and with
/// `-hip-openmp-compatible` a code-object kind starting with `hip` (any case) for an `openmp`
/// target or an `openmp` code object for a target kind starting with `hip` (any case).
pub fn is_kind_compatible(
    code_object: &[u8],
    requested: &[u8],
    hip_openmp_compatible: bool,
) -> bool {
    let hip_like = |k: &[u8]| k.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(b"hip"));
    if code_object == requested
        || (code_object == b"hip" && requested == b"hipv4")
        || (code_object == b"hipv4" && requested == b"hip")
    {
        return true;
    }
    hip_openmp_compatible
        && ((hip_like(code_object) && requested == b"openmp")
            || (code_object == b"openmp" && hip_like(requested)))
}

/// `isCodeObjectCompatible(code_object, requested)` (`OffloadBundler.cpp`, the same rule in
/// 19 and 22; the target IDs parse with the processor table of the release that parsed the
/// code object's ID).
///
/// `requested` must be the parse of the *standardised* target (the bundler parses its targets,
/// standardises them, and parses the standardised strings again before matching).
/// 1. Exact: same kind, compatible triples, same target ID (bytes).
/// 2. Else the kinds must be compatible ([`is_kind_compatible`]) and the triples too; both
///    target IDs must parse for their triples ([`TargetId::parse`]) with the same canonical
///    processor; the code object may not have more features than the target, and each of its
///    features must be in the target with the same sign (a feature it leaves out is "any").
pub fn is_compatible(
    code_object: &BundleEntryId<'_>,
    requested: &BundleEntryId<'_>,
    hip_openmp_compatible: bool,
) -> bool {
    if code_object.kind == requested.kind
        && code_object.triple.is_compatible_with(&requested.triple)
        && code_object.target_id == requested.target_id
    {
        return true;
    }
    if !is_kind_compatible(code_object.kind, requested.kind, hip_openmp_compatible)
        || !code_object.triple.is_compatible_with(&requested.triple)
    {
        return false;
    }
    let (Ok(c), Ok(r)) = (
        TargetId::parse(code_object.llvm, &code_object.triple, code_object.target_id),
        TargetId::parse(code_object.llvm, &requested.triple, requested.target_id),
    ) else {
        return false;
    };
    c.processor() == r.processor()
        && c.features().len() <= r.features().len()
        && c.features().iter().all(|f| {
            r.features()
                .iter()
                .any(|g| g.name == f.name && g.on == f.on)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target_id::Conflict;
    use LlvmVersion::{V19, V22};

    fn std(s: &str) -> String {
        String::from_utf8(standardise(V19, s.as_bytes())).unwrap()
    }

    #[test]
    fn standardisation_table_of_bundler_md() {
        assert_eq!(
            std("host-x86_64-unknown-linux-gnu"),
            "host-x86_64-unknown-linux-gnu-"
        );
        assert_eq!(
            std("hip-amdgcn-amd-amdhsa-gfx906"),
            "hip-amdgcn-amd-amdhsa--gfx906"
        );
        assert_eq!(
            std("hip-amdgcn-amd-amdhsa--gfx906:xnack+"),
            "hip-amdgcn-amd-amdhsa--gfx906:xnack+"
        );
        assert_eq!(
            std("hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-:sramecc+"),
            "hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-:sramecc+"
        );
        assert_eq!(
            std("openmp-nvptx64-nvidia-cuda"),
            "openmp-nvptx64-nvidia-cuda--"
        );
        assert_eq!(
            std("openmp-nvptx64-nvidia-cuda-sm_70"),
            "openmp-nvptx64-nvidia-cuda--sm_70"
        );
        assert_eq!(std("openmp-x86_64"), "openmp-x86_64----");
        assert_eq!(std("openmp-x86_64-pc-linux"), "openmp-x86_64-pc-linux--");
        assert_eq!(
            std("host-x86_64-unknown-linux-gnu-"),
            "host-x86_64-unknown-linux-gnu-host-x86_64-unknown-linux-gnu-"
        );
        assert_eq!(
            std("hip-amdgcn-amd-amdhsa-gfx9-generic"),
            "hip-amdgcn-amd-amdhsa-gfx9-generic"
        );
        assert_eq!(
            std("hip-amdgcn-amd-amdhsa-gfx950:xnack+"),
            "hip-amdgcn-amd-amdhsa-gfx950-"
        );
        let e = BundleEntryId::parse(V19, b"host").check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid target 'host', unknown target triple '---'"
        );
        let e = BundleEntryId::parse(V19, b"").check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid target '', unknown offloading kind '', unknown target triple '---'"
        );
    }

    #[test]
    fn compatibility_examples_of_bundler_md() {
        let ok = |c: &str, t: &str, flag: bool| {
            let t = standardise(V19, t.as_bytes());
            is_compatible(
                &BundleEntryId::parse(V19, c.as_bytes()),
                &BundleEntryId::parse(V19, &t),
                flag,
            )
        };
        let h = "hip-amdgcn-amd-amdhsa-";
        assert!(ok(
            &format!("{h}-gfx906"),
            &format!("{h}-gfx906:xnack+"),
            false
        ));
        assert!(!ok(
            &format!("{h}-gfx906:xnack-"),
            &format!("{h}-gfx906"),
            false
        ));
        assert!(ok(
            "hipv4-amdgcn-amd-amdhsa--gfx908:xnack-",
            &format!("{h}-gfx908:sramecc+:xnack-"),
            false
        ));
        assert!(!ok(
            "openmp-amdgcn-amd-amdhsa--gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            false
        ));
        assert!(ok(
            "openmp-amdgcn-amd-amdhsa--gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            true
        ));
        assert!(ok(
            "hip-amdgcn-amd-amdhsa--gfx906",
            "openmp-amdgcn-amd-amdhsa-gfx906",
            true
        ));
        assert!(!ok(
            "HIP-amdgcn-amd-amdhsa--gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            false
        ));
        assert!(ok(
            "hip-amdgcn-xyz-amdhsa--gfx90a",
            "hip-amdgcn-unknown-amdhsa-gfx90a",
            false
        ));
        assert!(!ok(
            "hip-amdgcn-xyz-amdhsa--gfx90a",
            "hip-amdgcn-amd-amdhsa-gfx90a",
            false
        ));
        assert!(ok(
            "hip-amdgcn-amd-amdhsa-unknown-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            false
        ));
        assert!(!ok(
            "hip-amdgcn-amd-amdhsa-gnu-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            false
        ));
        assert!(!ok(
            &format!("{h}-gfx90a"),
            &format!("{h}-gfx90a:foo+"),
            false
        ));
        assert!(!ok(
            "openmp-nvptx64-nvidia-cuda--sm_70",
            "openmp-nvptx64-nvidia-cuda-sm_80",
            false
        ));
        // Old (LLVM <= 17) non-GPU IDs are never matched; GPU ones still are.
        assert!(!ok(
            "host-x86_64-unknown-linux-gnu",
            "host-x86_64-unknown-linux-gnu",
            false
        ));
        assert!(ok(
            "hip-amdgcn-amd-amdhsa-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx906",
            false
        ));
        assert!(ok(
            "host-x86_64-unknown-linux-gnu-",
            "host-x86_64-unknown-linux-gnu",
            false
        ));
    }

    #[test]
    fn target_checks() {
        let ts =
            |v: &[&str], unbundle: bool| check_targets(V19, v, unbundle).map_err(|e| e.to_string());
        assert_eq!(
            ts(
                &[
                    "hip-amdgcn-amd-amdhsa-gfx906",
                    "hip-amdgcn-amd-amdhsa-gfx906"
                ],
                false
            ),
            Err("Duplicate targets are not allowed".into())
        );
        assert_eq!(
            ts(
                &[
                    "hip-amdgcn-amd-amdhsa--gfx906",
                    "hip-amdgcn-amd-amdhsa--gfx906:xnack+"
                ],
                false
            ),
            Err(
                "Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' \
                 and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'"
                    .into()
            )
        );
        assert_eq!(
            ts(&["openmp-x86_64-pc-linux-gnu"], false),
            Err("expecting exactly one host target but got 0".into())
        );
        let ok = ts(
            &[
                "hip-amdgcn-amd-amdhsa-gfx906",
                "hipv4-amdgcn-amd-amdhsa-gfx908",
            ],
            false,
        )
        .unwrap();
        assert!(ok.hip_only);
        assert_eq!(ok.standardised[0], b"hip-amdgcn-amd-amdhsa--gfx906");
        let ok = ts(
            &["openmp-x86_64-pc-linux-gnu", "host-x86_64-pc-linux-gnu"],
            false,
        )
        .unwrap();
        assert_eq!(ok.host_index, Some(1));
        assert!(ts(&["openmp-x86_64-pc-linux-gnu"], true).is_ok());
        assert_eq!(
            ts(&["host-x86_64-pc-linux-gnu", "host-x86_64-pc-linux"], true),
            Err("expecting exactly one host target but got 2".into())
        );
    }

    #[test]
    fn archive_member_check() {
        let ids: [&[u8]; 2] = [
            b"hip-amdgcn-amd-amdhsa--gfx906:xnack+",
            b"hip-amdgcn-amd-amdhsa--gfx906",
        ];
        let Conflict::Pair(a, b) = check_archive_member(V19, ids) else {
            panic!("no conflict")
        };
        assert_eq!(
            archive_conflict_message(a, b, b"k.o", b"lib.a"),
            b"conflicting TargetIDs [hip-amdgcn-amd-amdhsa--gfx906, \
              hip-amdgcn-amd-amdhsa--gfx906:xnack+] found in k.o of lib.a"
        );
        let ids: [&[u8]; 2] = [
            b"hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
            b"hip-amdgcn-amd-amdhsa--gfx906:xnack+",
        ];
        assert_eq!(check_archive_member(V19, ids), Conflict::None);
    }

    #[test]
    fn llvm22_parse_and_standardisation() {
        let std22 = |s: &str| String::from_utf8(standardise(V22, s.as_bytes())).unwrap();
        assert_eq!(
            std22("host-x86_64-unknown-linux-gnu"),
            "host-x86_64-unknown-linux-gnu-"
        );
        assert_eq!(
            std22("hip-amdgcn-amd-amdhsa--gfx906:xnack+"),
            "hip-amdgcn-amd-amdhsa--gfx906:xnack+"
        );
        assert_eq!(
            std22("hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-:sramecc+"),
            "hip-amdgcn-amd-amdhsa--gfx90a:xnack-:sramecc+"
        );
        assert_eq!(
            std22("hip-amdgcn-amd-amdhsa--gfx950:xnack+"),
            "hip-amdgcn-amd-amdhsa--gfx950:xnack+"
        );
        assert_eq!(
            std22("openmp-nvptx64-nvidia-cuda--sm_100a"),
            "openmp-nvptx64-nvidia-cuda-unknown-sm_100a"
        );
        // A sixth component that is no offload arch is dropped, with its features.
        assert_eq!(
            std22("openmp-x86_64-pc-linux-gnu-foo:bar+"),
            "openmp-x86_64-pc-linux-gnu-"
        );
        // The sixth component holds everything after the fifth `-`.
        let id = BundleEntryId::parse(V22, b"hip-amdgcn-amd-amdhsa--gfx90a-x");
        assert_eq!(id.target_id(), b"");
        assert!(is_well_formed(V22, b"hip-amdgcn-amd-amdhsa-"));
        assert!(!is_well_formed(V22, b"hip-amdgcn-amd-amdhsa"));
        assert!(is_well_formed(V19, b"hip-amdgcn-amd-amdhsa"));
        assert_eq!(
            check_targets(V22, &["hip-amdgcn-amd-gfx906"], false),
            Err(TargetsError::Format)
        );
        // Five components: the fifth is the environment, and there is no target ID.
        assert_eq!(
            std22("hip-amdgcn-amd-amdhsa-gfx906"),
            "hip-amdgcn-amd-amdhsa--"
        );
        let ok = check_targets(
            V22,
            &[
                "hip-amdgcn-amd-amdhsa--gfx950",
                "hip-amdgcn-amd-amdhsa--gfx1250",
            ],
            false,
        )
        .unwrap();
        assert!(ok.hip_only);
        let any = |s: &'static str| BundleEntryId::parse_any(s.as_bytes());
        assert_eq!(any("hip-amdgcn-amd-amdhsa-gfx906").target_id(), b"gfx906");
        assert_eq!(
            any("hip-amdgcn-amd-amdhsa--gfx950:xnack+").target_id(),
            b"gfx950:xnack+"
        );
        assert_eq!(any("host-x86_64-unknown-linux-gnu-").target_id(), b"");
        assert_eq!(
            any("host-x86_64-unknown-linux-gnu-").triple().as_bytes(),
            b"x86_64-unknown-linux-gnu"
        );
        assert_eq!(
            any("hip-amdgcn-amd-amdhsa-gfx950").standardised(),
            b"hip-amdgcn-amd-amdhsa--gfx950"
        );
        assert_eq!(any("hip-amdgcn-amd-amdhsa--gfx940").target_id(), b"gfx940");
        assert_eq!(
            any("openmp-x86_64-pc-linux-gnu").standardised(),
            b"openmp-x86_64-pc-linux-gnu-"
        );
        assert_eq!(
            any("openmp-x86_64").standardised(),
            b"openmp-x86_64-unknown-unknown-unknown-"
        );
        assert_eq!(
            any("openmp-nvptx64-nvidia-cuda--sm_70").standardised_as(V19),
            b"openmp-nvptx64-nvidia-cuda--sm_70"
        );
        let c = BundleEntryId::parse(V22, b"hipv4-amdgcn-amd-amdhsa--gfx950");
        let t = standardise(V22, b"hip-amdgcn-amd-amdhsa--gfx950:xnack-");
        assert!(is_compatible(&c, &BundleEntryId::parse(V22, &t), false));
    }
}
