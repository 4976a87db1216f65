//! The bundler's checks of its `-targets` (`ClangOffloadBundler.cpp`'s `main`) and of the
//! members of an input archive (`-check-input-archive`), with the messages LLVM prints.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{is_well_formed, BundleEntryId};
use crate::target_id::{find_conflict, Conflict};
use crate::version::LlvmVersion;

/// Why the bundler rejects its `-targets` (the checks of `ClangOffloadBundler.cpp`'s `main`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetsError {
    /// The same string was given twice: `Duplicate targets are not allowed`.
    Duplicate,
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
    /// LLVM 22: a target that is not `<kind>-<arch>-<vendor>-<os>-<env>[-<target ID>]`
    /// ([`is_well_formed`]).
    Format,
    /// LLVM 22 crashes on this malformed target ID in its conflict check
    /// ([`Conflict::Crash`]); offkit's face says so instead.
    Crash {
        /// The target ID.
        target_id: Vec<u8>,
    },
}

impl TargetsError {
    /// The message LLVM prints (after `<argv0>: error: `), as bytes.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        match self {
            TargetsError::Duplicate => m.extend_from_slice(b"Duplicate targets are not allowed"),
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
            TargetsError::Crash { target_id } => {
                m.extend_from_slice(b"malformed target ID '");
                m.extend_from_slice(target_id);
                m.extend_from_slice(
                    b"' (LLVM 22's conflict check crashes on it: every feature needs a \
                      trailing '+' or '-', and none may be given twice)",
                );
            }
            TargetsError::Format => m.extend_from_slice(
                b"Targets need to follow the format '<offload kind>-<target triple>', where \
                  '<target triple>' follows the format \
                  '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.",
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

/// The bundler's checks of `-targets` in release `llvm`, in its order
/// (`ClangOffloadBundler.cpp`'s `main`): per target, a raw duplicate, then (22) the format
/// ([`is_well_formed`]), then an invalid kind or triple; then the target-ID conflict check per
/// `<kind>-<triple4>` group (groups in byte order, see `target_id::find_conflict`); then the host count
/// (bundling: exactly one unless all kinds are HIP; unbundling: at most one).
pub fn check_targets<T: AsRef<[u8]>>(
    llvm: LlvmVersion,
    targets: &[T],
    unbundle: bool,
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
        if !is_well_formed(llvm, target) {
            return Err(TargetsError::Format);
        }
        let info = BundleEntryId::parse(llvm, target);
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
        let join = |id: &[u8]| [group.as_slice(), b"-", id].concat();
        match find_conflict(llvm, ids.iter().copied()) {
            Conflict::None => {}
            Conflict::Pair(a, b) => {
                return Err(TargetsError::Conflict {
                    first: join(a),
                    second: join(b),
                })
            }
            Conflict::Crash(id) => {
                return Err(TargetsError::Crash {
                    target_id: id.to_vec(),
                })
            }
        }
    }
    if (unbundle && hosts > 1) || (!unbundle && hosts != 1 && !out.hip_only) {
        return Err(TargetsError::HostCount(hosts));
    }
    Ok(out)
}

/// `-check-input-archive` (`CheckHeterogeneousArchive`): the conflict check over the *whole* bundle entry
/// IDs of one archive member (processor = the ID up to its first `:`), as release `llvm`
/// does it: the pair LLVM reports, or where it crashes.
pub fn check_archive_member<'a, I>(llvm: LlvmVersion, ids: I) -> Conflict<'a>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    find_conflict(llvm, ids)
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
