//! `clang-offload-bundler`'s rules for bundle entry IDs (`<kind>-<triple>[-<target ID>]`), as
//! LLVM 19 and LLVM 22 have them: parsing with all its quirks (`OffloadTargetInfo`), the
//! standardised form written to bundles, validation of `-targets`, compatibility of a code object
//! with a requested target (`isCodeObjectCompatible`, including `hip`/`hipv4` and
//! `-hip-openmp-compatible`), and the two conflict checks (`-targets`, and
//! `-check-input-archive`). The messages are the bytes LLVM prints after `<argv0>: error: `.
//!
//! The releases differ in how an ID is taken apart ([`BundleEntryId::parse_as`], the one
//! `match` on the release):
//!
//! | | LLVM 19 | LLVM 22 |
//! |---|---|---|
//! | shape | anything | `checkOffloadBundleID`: 5 or 6 `-`-separated pieces (the 6th keeps its `-`s) |
//! | target ID | from the last `-` piece if it is an offload arch (`""` included) | the 6th piece, if its processor is a (non-empty) offload arch |
//! | triple | the rest, padded to four components | pieces 2–5 as written |
//! | standardised | `<kind>-<triple4>-<target ID>` | `<kind>-<normalized triple>-<target ID>`, the triple normalized to four components, or to three and a `-` for `amdhsa` |
//!
//! ```
//! use offkit_llvm::target_id::bundle::{is_compatible, BundleEntryId};
//!
//! let user = BundleEntryId::parse(b"hip-amdgcn-amd-amdhsa-gfx906:xnack+");
//! assert_eq!(user.standardised(), b"hip-amdgcn-amd-amdhsa--gfx906:xnack+");
//! // LLVM parses the standardised target again before matching.
//! let requested = user.standardised();
//! let requested = BundleEntryId::parse(&requested);
//! let entry = BundleEntryId::parse(b"hipv4-amdgcn-amd-amdhsa--gfx906");
//! assert!(is_compatible(&entry, &requested, false));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{find_conflict, offload_arch, TargetId};
use crate::triple::{split_once, Arch, Os, Triple};
use crate::LlvmVersion;

/// The offload kinds a user target may have.
pub const VALID_KINDS: [&str; 4] = ["host", "openmp", "hip", "hipv4"];

/// A bundle entry ID parsed as a release's `OffloadTargetInfo` does. Parsing never fails;
/// [`BundleEntryId::is_well_formed`] and [`BundleEntryId::check`] say whether the bundler
/// accepts it as a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntryId<'a> {
    raw: &'a [u8],
    kind: &'a [u8],
    triple: Triple,
    target_id: &'a [u8],
    llvm: LlvmVersion,
    well_formed: bool,
}

/// `StringRef::split(Parts, '-', MaxSplit = 5)`: at most six pieces, the last keeping its `-`s.
fn split_pieces(id: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(6);
    let mut rest = id;
    while out.len() < 5 {
        match rest.iter().position(|&b| b == b'-') {
            Some(i) => {
                out.push(rest.get(..i).unwrap_or_default());
                rest = rest.get(i + 1..).unwrap_or_default();
            }
            None => break,
        }
    }
    out.push(rest);
    out
}

/// Whether `name` is an offload arch of release `llvm` (`StringToOffloadArch`).
fn is_offload_arch(name: &[u8], llvm: LlvmVersion) -> bool {
    match llvm {
        LlvmVersion::V19 => offload_arch::is_known(name),
        // LLVM 22's table (gfx950, gfx1250, sm_100…) comes with the per-release processor
        // tables; until then LLVM 19's names.
        _ => offload_arch::is_known(name),
    }
}

/// `Triple::normalize(Str, CanonicalForm)`: normalized, then cut or padded with `unknown` to
/// `components` components.
fn normalize_to(triple: &[u8], components: usize) -> Vec<u8> {
    // Only a `dxil` triple of an unsupported shader model fails (LLVM aborts); it is kept as
    // written.
    let n = Triple::normalize_bytes(triple).unwrap_or_else(|_| triple.to_vec());
    let mut parts: Vec<&[u8]> = n.split(|&b| b == b'-').collect();
    parts.resize(components, b"unknown");
    parts.join(&b'-')
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

impl<'a> BundleEntryId<'a> {
    /// Parses a bundle entry ID or a `-targets` value:
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
    /// This is LLVM 19's parse; [`BundleEntryId::parse_as`] takes the release.
    pub fn parse<S: AsRef<[u8]> + ?Sized>(id: &'a S) -> Self {
        Self::parse_as(id, LlvmVersion::V19)
    }

    /// Parses a bundle entry ID or a `-targets` value as release `llvm` does (LLVM 19: see
    /// [`BundleEntryId::parse`]; LLVM 22: the ID splits at its first five `-` into five or six
    /// pieces (else it is not [well formed](BundleEntryId::is_well_formed)): the kind, the
    /// four components of the triple, and a target ID, kept only if the text before its first
    /// `:` is a non-empty offload arch).
    pub fn parse_as<S: AsRef<[u8]> + ?Sized>(id: &'a S, llvm: LlvmVersion) -> Self {
        let id = id.as_ref();
        match llvm {
            LlvmVersion::V19 => Self::parse19(id),
            _ => Self::parse22(id, llvm),
        }
    }

    fn parse22(id: &'a [u8], llvm: LlvmVersion) -> Self {
        let pieces = split_pieces(id);
        let well_formed = pieces.len() == 5 || pieces.len() == 6;
        let kind = pieces.first().copied().unwrap_or_default();
        let triple = pieces
            .get(1..5)
            .unwrap_or_else(|| pieces.get(1..).unwrap_or_default());
        let target_id = match pieces.get(5) {
            Some(&t) => {
                let processor = split_once(t, b':').0;
                if !processor.is_empty() && is_offload_arch(processor, llvm) {
                    t
                } else {
                    &[][..]
                }
            }
            None => &[][..],
        };
        BundleEntryId {
            raw: id,
            kind,
            triple: Triple::parse(triple.join(&b'-')),
            target_id,
            llvm,
            well_formed,
        }
    }

    fn parse19(id: &'a [u8]) -> Self {
        let base = split_once(id, b':').0;
        let (head, last) = rsplit_once(base, b'-');
        let (kind_triple, target_id) = if offload_arch::is_known(last) {
            let start = find(id, last).unwrap_or(0);
            (head, id.get(start..).unwrap_or_default())
        } else {
            (base, &[][..])
        };
        let (kind, triple) = split_once(kind_triple, b'-');
        BundleEntryId {
            raw: id,
            kind,
            triple: Triple::parse(triple).four_components(),
            target_id,
            llvm: LlvmVersion::V19,
            well_formed: true,
        }
    }

    /// The release whose rules parsed it.
    pub fn llvm(&self) -> LlvmVersion {
        self.llvm
    }

    /// LLVM 22's `checkOffloadBundleID`: five or six `-`-separated pieces (always true for
    /// LLVM 19, which has no such check).
    pub fn is_well_formed(&self) -> bool {
        self.well_formed
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

    /// `<kind>-<triple4>-<target ID>`: the form the bundler writes into bundles and uses
    /// everywhere after parsing `-targets` (`hip-amdgcn-amd-amdhsa-gfx906` →
    /// `hip-amdgcn-amd-amdhsa--gfx906`, `host-x86_64-unknown-linux-gnu` →
    /// `host-x86_64-unknown-linux-gnu-`).
    ///
    /// LLVM 22 normalizes the triple (`openmp-x86_64--linux-gnu` →
    /// `openmp-x86_64-unknown-linux-gnu-`), to three components and a `-` for `amdhsa`
    /// (`hip-amdgcn-amd-amdhsa-unknown-gfx906` → `hip-amdgcn-amd-amdhsa--gfx906`).
    pub fn standardised(&self) -> Vec<u8> {
        let mut out = match self.llvm {
            LlvmVersion::V19 => self.group(),
            _ => {
                let mut out = self.kind.to_vec();
                out.push(b'-');
                if self.triple.os() == Os::AmdHsa {
                    out.extend_from_slice(&normalize_to(self.triple.as_bytes(), 3));
                    out.push(b'-');
                } else {
                    out.extend_from_slice(&normalize_to(self.triple.as_bytes(), 4));
                }
                out
            }
        };
        out.push(b'-');
        out.extend_from_slice(self.target_id);
        out
    }

    /// `<kind>-<triple>`: the key the conflict check groups targets by (the triple as parsed,
    /// not normalized).
    pub fn group(&self) -> Vec<u8> {
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
    pub fn is_triple_valid(&self) -> bool {
        !self.triple.as_bytes().is_empty() && self.triple.arch() != Arch::Unknown
    }

    /// `hasHostKind`.
    pub fn is_host(&self) -> bool {
        self.kind == b"host"
    }

    /// The bundler's check of one `-targets` value: `Err` carries LLVM 19's message
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
pub fn standardise<S: AsRef<[u8]> + ?Sized>(id: &S) -> Vec<u8> {
    BundleEntryId::parse(id).standardised()
}

/// `parseTargetID` of the ID's release, on its triple and target ID.
fn parse_target_id<'a>(id: &BundleEntryId<'a>) -> crate::Result<TargetId<'a>> {
    match id.llvm {
        LlvmVersion::V19 => TargetId::parse(&id.triple, id.target_id),
        // LLVM 22's processor table (gfx950's features…) comes with the per-release tables;
        // until then LLVM 19's.
        _ => TargetId::parse(&id.triple, id.target_id),
    }
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

/// `isCodeObjectCompatible(code_object, requested)` (`OffloadBundler.cpp`; the same in LLVM 19
/// and 22, each ID parsed by its release).
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
    let (Ok(c), Ok(r)) = (parse_target_id(code_object), parse_target_id(requested)) else {
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

/// Why the bundler rejects its `-targets` (the checks of `ClangOffloadBundler.cpp`'s `main`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetsError {
    /// The same string was given twice: `Duplicate targets are not allowed`.
    Duplicate,
    /// LLVM 22: a target that is not five or six `-`-separated pieces (`Targets need to follow
    /// the format '<offload kind>-<target triple>', …`).
    Format,
    /// `invalid target '<target>'[, unknown offloading kind '<kind>'][, unknown target triple
    /// '<triple>']`.
    Invalid {
        /// The target as given.
        target: Vec<u8>,
        /// The kind, if it is not valid.
        kind: Option<Vec<u8>>,
        /// The four-component triple, if its architecture is unknown.
        triple: Option<Vec<u8>>,
    },
    /// `Cannot bundle inputs with conflicting targets: '<first>' and '<second>'` (the group
    /// `<kind>-<triple4>` joined to each target ID with `-`).
    Conflict {
        /// The remembered target.
        first: Vec<u8>,
        /// The conflicting one.
        second: Vec<u8>,
    },
    /// `expecting exactly one host target but got <n>`.
    HostCount(usize),
}

impl TargetsError {
    /// The message LLVM 19 prints (after `<argv0>: error: `), as bytes.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        match self {
            TargetsError::Duplicate => m.extend_from_slice(b"Duplicate targets are not allowed"),
            TargetsError::Format => m.extend_from_slice(
                b"Targets need to follow the format '<offload kind>-<target triple>', where \
                  '<target triple>' follows the format \
                  '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.",
            ),
            TargetsError::Invalid {
                target,
                kind,
                triple,
            } => {
                m.extend_from_slice(b"invalid target '");
                m.extend_from_slice(target);
                m.push(b'\'');
                if let Some(k) = kind {
                    m.extend_from_slice(b", unknown offloading kind '");
                    m.extend_from_slice(k);
                    m.push(b'\'');
                }
                if let Some(t) = triple {
                    m.extend_from_slice(b", unknown target triple '");
                    m.extend_from_slice(t);
                    m.push(b'\'');
                }
            }
            TargetsError::Conflict { first, second } => {
                m.extend_from_slice(b"Cannot bundle inputs with conflicting targets: '");
                m.extend_from_slice(first);
                m.extend_from_slice(b"' and '");
                m.extend_from_slice(second);
                m.push(b'\'');
            }
            TargetsError::HostCount(n) => m.extend_from_slice(
                format!("expecting exactly one host target but got {n}").as_bytes(),
            ),
        }
        m
    }
}

impl fmt::Display for TargetsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.message()))
    }
}

/// The bundler's targets after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedTargets {
    /// The standardised targets, in command-line order (they replace the user's everywhere).
    pub standardised: Vec<Vec<u8>>,
    /// The index of the (last) `host` target, if any.
    pub host_index: Option<usize>,
    /// Every kind is `hip` or `hipv4` (bundling then needs no host target).
    pub hip_only: bool,
}

/// LLVM 19's [`check_targets_as`].
pub fn check_targets<T: AsRef<[u8]>>(
    targets: &[T],
    unbundle: bool,
) -> Result<CheckedTargets, TargetsError> {
    check_targets_as(targets, unbundle, LlvmVersion::V19)
}

/// The bundler's checks of `-targets`, in release `llvm`'s order (`ClangOffloadBundler.cpp`'s
/// `main`): per target, a raw duplicate, (LLVM 22) an ID of the wrong shape, then an invalid
/// kind or triple; then the target-ID conflict check per `<kind>-<triple>` group (groups in
/// byte order, see [`find_conflict`]); then the host count (bundling: exactly one unless all
/// kinds are HIP; unbundling: at most one).
pub fn check_targets_as<T: AsRef<[u8]>>(
    targets: &[T],
    unbundle: bool,
    llvm: LlvmVersion,
) -> Result<CheckedTargets, TargetsError> {
    let mut seen: BTreeSet<&[u8]> = BTreeSet::new();
    let mut groups: BTreeMap<Vec<u8>, BTreeSet<&[u8]>> = BTreeMap::new();
    let mut out = CheckedTargets {
        standardised: Vec::with_capacity(targets.len()),
        host_index: None,
        hip_only: true,
    };
    let mut hosts = 0usize;
    for (index, target) in targets.iter().enumerate() {
        let target = target.as_ref();
        if !seen.insert(target) {
            return Err(TargetsError::Duplicate);
        }
        let info = BundleEntryId::parse_as(target, llvm);
        if !info.is_well_formed() {
            return Err(TargetsError::Format);
        }
        out.standardised.push(info.standardised());
        info.check()?;
        groups
            .entry(info.group())
            .or_default()
            .insert(info.target_id);
        if info.is_host() {
            hosts += 1;
            out.host_index = Some(index);
        }
        if info.kind != b"hip" && info.kind != b"hipv4" {
            out.hip_only = false;
        }
    }
    for (group, ids) in &groups {
        if let Some((a, b)) = find_conflict(ids.iter().copied()) {
            let join = |id: &[u8]| [group.as_slice(), b"-", id].concat();
            return Err(TargetsError::Conflict {
                first: join(a),
                second: join(b),
            });
        }
    }
    if (unbundle && hosts > 1) || (!unbundle && hosts != 1 && !out.hip_only) {
        return Err(TargetsError::HostCount(hosts));
    }
    Ok(out)
}

/// `-check-input-archive` (`CheckHeterogeneousArchive`): the conflict check over the *whole* bundle entry
/// IDs of one archive member (processor = the ID up to its first `:`). Returns the pair LLVM
/// reports.
pub fn check_archive_member<'a, I>(ids: I) -> Option<(&'a [u8], &'a [u8])>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    find_conflict(ids)
}

/// `conflicting TargetIDs [<first>, <second>] found in <member> of <archive>`, the message of
/// `-check-input-archive` (`archive` as given on the command line).
pub fn archive_conflict_message(
    first: &[u8],
    second: &[u8],
    member: &[u8],
    archive: &[u8],
) -> Vec<u8> {
    [
        b"conflicting TargetIDs [".as_slice(),
        first,
        b", ",
        second,
        b"] found in ",
        member,
        b" of ",
        archive,
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn std(s: &str) -> String {
        String::from_utf8(standardise(s.as_bytes())).unwrap()
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
        let e = BundleEntryId::parse(b"host").check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid target 'host', unknown target triple '---'"
        );
        let e = BundleEntryId::parse(b"").check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid target '', unknown offloading kind '', unknown target triple '---'"
        );
    }

    #[test]
    fn llvm22_standardisation_as_measured() {
        let std22 = |s: &str| {
            let id = BundleEntryId::parse_as(s, LlvmVersion::V22);
            assert!(id.is_well_formed(), "{s}");
            String::from_utf8(id.standardised()).unwrap()
        };
        // Each pair was printed by LLVM 22.1.8's `clang-offload-bundler -list` of a bundle it
        // made for the target.
        for (given, standard) in [
            (
                "host-x86_64-unknown-linux-gnu",
                "host-x86_64-unknown-linux-gnu-",
            ),
            ("hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"),
            (
                "hip-amdgcn-amd-amdhsa--gfx906",
                "hip-amdgcn-amd-amdhsa--gfx906",
            ),
            (
                "hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+",
                "hip-amdgcn-amd-amdhsa--gfx906:xnack+",
            ),
            (
                "openmp-nvptx64-nvidia-cuda--sm_70",
                "openmp-nvptx64-nvidia-cuda-unknown-sm_70",
            ),
            (
                "openmp-nvptx64-nvidia-cuda-sm_70",
                "openmp-nvptx64-nvidia-cuda-sm_70-",
            ),
            (
                "openmp-x86_64-pc-linux-gnu-foo",
                "openmp-x86_64-pc-linux-gnu-",
            ),
            (
                "openmp-x86_64-pc-linux-gnu-gfx906-x",
                "openmp-x86_64-pc-linux-gnu-",
            ),
            (
                "openmp-x86_64--linux-gnu",
                "openmp-x86_64-unknown-linux-gnu-",
            ),
            ("openmp-amd64-pc-linux-gnu", "openmp-amd64-pc-linux-gnu-"),
            (
                "hip-amdgcn--amdhsa--gfx906",
                "hip-amdgcn-unknown-amdhsa--gfx906",
            ),
            (
                "hip-amdgcn-amd-amdhsa-gnu-gfx906",
                "hip-amdgcn-amd-amdhsa--gfx906",
            ),
            (
                "openmp-spirv64-amd-amdhsa--amdgcnspirv",
                "openmp-spirv64-amd-amdhsa--amdgcnspirv",
            ),
            (
                "hip-x86_64-pc-linux-gnu--gfx906:xnack+",
                "hip-x86_64-pc-linux-gnu-",
            ),
        ] {
            assert_eq!(std22(given), standard, "{given}");
        }
        let ts =
            |v: &[&str]| check_targets_as(v, false, LlvmVersion::V22).map_err(|e| e.to_string());
        assert_eq!(
            ts(&[
                "host-x86_64-unknown-linux-gnu",
                "openmp-nvptx64-nvidia-cuda"
            ]),
            Err(
                "Targets need to follow the format '<offload kind>-<target triple>', where \
                 '<target triple>' follows the format \
                 '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'."
                    .into()
            )
        );
        // Old (LLVM <= 17) host IDs match again: the target ID is empty either way.
        let c = BundleEntryId::parse_as("host-x86_64-unknown-linux-gnu", LlvmVersion::V22);
        let t = BundleEntryId::parse_as("host-x86_64-unknown-linux-gnu-", LlvmVersion::V22);
        assert!(is_compatible(&c, &t, false));
    }

    #[test]
    fn compatibility_examples_of_bundler_md() {
        let ok = |c: &str, t: &str, flag: bool| {
            let t = standardise(t.as_bytes());
            is_compatible(
                &BundleEntryId::parse(c.as_bytes()),
                &BundleEntryId::parse(&t),
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
        let ts = |v: &[&str], unbundle: bool| check_targets(v, unbundle).map_err(|e| e.to_string());
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
        let (a, b) = check_archive_member(ids).unwrap();
        assert_eq!(
            archive_conflict_message(a, b, b"k.o", b"lib.a"),
            b"conflicting TargetIDs [hip-amdgcn-amd-amdhsa--gfx906, \
              hip-amdgcn-amd-amdhsa--gfx906:xnack+] found in k.o of lib.a"
        );
        let ids: [&[u8]; 2] = [
            b"hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
            b"hip-amdgcn-amd-amdhsa--gfx906:xnack+",
        ];
        assert_eq!(check_archive_member(ids), None);
    }
}
