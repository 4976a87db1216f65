//! Phase 2: which device images are linked, grouped by target, exactly as `getDeviceInput`
//! decides: LLVM 19 by symbols ([`Archives::Symbols`], below), LLVM 22 by targets
//! ([`Archives::Targets`]: an archive member joins every group of its target, or a compatible
//! one, that exists when it is reached, and opens its own when `--should-extract=` names its
//! arch; no symbol is read).
//!
//! LLVM 19:
//!
//! Groups are keyed by `(triple, arch)` in first-seen order. Every regular image joins its own
//! group and every existing *compatible* group. Archive images are then swept, restarting after
//! each extraction, and join a group (that exists) when they define a symbol the group has as
//! undefined and not weak, or a new visible global (for offload kinds other than none).
//!
//! LLVM 19's quirks kept here: the group symbol table only ever gains symbols (an undefined
//! symbol stays undefined after a definition is seen, because `DenseMap::insert` does not
//! overwrite); the "extracted" flag of a sweep is the decision for the *last* compatible group
//! considered; `--bitcode-library=` inputs are appended last and may open a group of their own.

use std::collections::HashMap;

use offkit_format::kind::OffloadKind;

use crate::error::{Error, Result};
use crate::scan::DeviceInput;
use crate::symbols::{self, Symbols};

/// A target: `(triple, arch)`.
pub type TargetId = (String, String);

/// LLVM 19's `object::areTargetsCompatible` (`offkit_llvm::target_id::linker`): identical
/// targets are the same group, not "compatible"; triples must be equal; `generic` matches
/// anything; otherwise only AMDGPU targets with the same processor and no conflicting
/// `xnack`/`sramecc` settings.
pub fn compatible(a: &TargetId, b: &TargetId) -> bool {
    offkit_llvm::target_id::linker::is_compatible(
        (a.0.as_bytes(), a.1.as_bytes()),
        (b.0.as_bytes(), b.1.as_bytes()),
    )
}

const UNDEFINED: u8 = 1 << 1;
const WEAK: u8 = 1 << 2;

/// Why an image joined a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// A regular input (an object, or an archive member under whole-archive).
    Regular,
    /// An archive member that defines a symbol the group needs.
    Resolves(String),
    /// An archive member that defines a new visible global symbol.
    NewGlobal(String),
    /// A `--bitcode-library=`.
    BitcodeLibrary,
    /// An archive member for a target an input linked before has (LLVM 22).
    TargetUsed,
    /// An archive member whose arch `--should-extract=` names (LLVM 22).
    ShouldExtract,
}

/// How archive members are chosen: the one rule that differs between LLVM releases.
#[derive(Debug, Clone, Copy)]
pub enum Archives<'a> {
    /// LLVM 19: by the symbols they define (see the module documentation).
    Symbols,
    /// LLVM 22: by target; the `--should-extract=` arches open a group of their own.
    Targets {
        /// The `--should-extract=` values.
        should_extract: &'a [String],
    },
}

/// One group: the images linked for one target.
#[derive(Debug, Clone)]
pub struct Group {
    /// The target.
    pub target: TargetId,
    /// The images, by [`DeviceInput::id`], in link order, each with why it is here.
    pub inputs: Vec<(usize, Reason)>,
}

/// The outcome of resolution.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The groups, in first-seen order.
    pub groups: Vec<Group>,
}

struct State {
    groups: Vec<Group>,
    syms: HashMap<TargetId, HashMap<String, u8>>,
}

impl State {
    fn index(&self, t: &TargetId) -> Option<usize> {
        self.groups.iter().position(|g| &g.target == t)
    }

    fn push(&mut self, t: &TargetId, id: usize, why: Reason) {
        match self.index(t) {
            Some(i) => self.groups[i].inputs.push((id, why)),
            None => self.groups.push(Group {
                target: t.clone(),
                inputs: vec![(id, why)],
            }),
        }
    }

    fn targets_for(&self, own: &TargetId) -> Vec<TargetId> {
        let mut v = vec![own.clone()];
        v.extend(
            self.groups
                .iter()
                .filter(|g| compatible(own, &g.target))
                .map(|g| g.target.clone()),
        );
        v
    }
}

/// `getSymbols`: whether the image would be extracted, and why; updates `table` if so.
fn get_symbols(
    symbols: &Symbols,
    kind: OffloadKind,
    is_archive: bool,
    table: &mut HashMap<String, u8>,
) -> Option<Reason> {
    let list = match symbols {
        Symbols::Object(list) => list,
        Symbols::Other => return None,
    };
    let mut why = (!is_archive).then_some(Reason::Regular);
    let mut tmp: Vec<(String, u8)> = Vec::new();
    for s in list {
        let old = table.get(&s.name).copied();
        let new = old.is_none();
        let old = old.unwrap_or(0);
        let resolves = old & UNDEFINED != 0 && old & WEAK == 0 && !s.undefined;
        let new_global =
            (new || old & UNDEFINED != 0) && !s.undefined && kind != OffloadKind::None && !s.hidden;
        if why.is_none() {
            if resolves {
                why = Some(Reason::Resolves(s.name.clone()));
            } else if new_global {
                why = Some(Reason::NewGlobal(s.name.clone()));
            }
        }
        let mut set = |v: u8| match tmp.iter_mut().find(|(n, _)| n == &s.name) {
            Some(e) => e.1 = v,
            None => tmp.push((s.name.clone(), v)),
        };
        if old & UNDEFINED != 0 && !s.undefined {
            set(old & !UNDEFINED);
        }
        if s.undefined && new {
            set(old | UNDEFINED);
        }
        if s.weak {
            set(old | WEAK);
        }
    }
    if why.is_some() {
        for (n, v) in tmp {
            table.entry(n).or_insert(v);
        }
    }
    why
}

/// Groups `inputs` (regular ones first, then archive members as `archives` decides), then
/// appends the bitcode libraries (`libraries`, already in `inputs` after everything scanned).
pub fn resolve(
    inputs: &[DeviceInput<'_>],
    libraries: &[usize],
    archives: Archives<'_>,
) -> Result<Resolution> {
    match archives {
        Archives::Symbols => resolve_19(inputs, libraries),
        Archives::Targets { should_extract } => Ok(resolve_22(inputs, should_extract)),
    }
}

/// LLVM 22: regular inputs join their own group and every compatible one; then each archive
/// member, once, joins each of those (its own first) that exists or whose arch is requested.
fn resolve_22(inputs: &[DeviceInput<'_>], should_extract: &[String]) -> Resolution {
    let mut st = State {
        groups: Vec::new(),
        syms: HashMap::new(),
    };
    for d in inputs.iter().filter(|d| !d.lazy) {
        for t in st.targets_for(&d.target()) {
            st.push(&t, d.id, Reason::Regular);
        }
    }
    for d in inputs.iter().filter(|d| d.lazy) {
        for t in st.targets_for(&d.target()) {
            let why = if st.index(&t).is_some() {
                Reason::TargetUsed
            } else if should_extract.contains(&t.1) {
                Reason::ShouldExtract
            } else {
                continue;
            };
            st.push(&t, d.id, why);
        }
    }
    Resolution { groups: st.groups }
}

/// LLVM 19's rule.
fn resolve_19(inputs: &[DeviceInput<'_>], libraries: &[usize]) -> Result<Resolution> {
    let mut symbols: HashMap<usize, Symbols> = HashMap::new();
    let mut syms_of = |d: &DeviceInput<'_>| -> Result<Symbols> {
        if let Some(s) = symbols.get(&d.id) {
            return Ok(s.clone());
        }
        let s = symbols::read(&d.entry.image, d.offset).map_err(|source| Error::BadImage {
            what: Box::new((
                d.origin.clone(),
                format!("{} {}", d.entry.triple(), d.entry.arch()),
            )),
            source: Box::new(source),
        })?;
        symbols.insert(d.id, s.clone());
        Ok(s)
    };
    let mut st = State {
        groups: Vec::new(),
        syms: HashMap::new(),
    };
    for d in inputs
        .iter()
        .filter(|d| !d.lazy && !libraries.contains(&d.id))
    {
        let own = d.target();
        let s = syms_of(d)?;
        for t in st.targets_for(&own) {
            let table = st.syms.entry(t.clone()).or_default();
            get_symbols(&s, d.entry.offload_kind, false, table);
            st.push(&t, d.id, Reason::Regular);
        }
    }
    let lazy: Vec<&DeviceInput<'_>> = inputs.iter().filter(|d| d.lazy).collect();
    let mut moved = vec![false; lazy.len()];
    let mut joined = vec![false; lazy.len()];
    let mut extracted = true;
    while extracted {
        extracted = false;
        for (k, d) in lazy.iter().enumerate() {
            if moved[k] {
                continue;
            }
            let own = d.target();
            let targets = st.targets_for(&own);
            let last = targets.len() - 1;
            for (i, t) in targets.iter().enumerate() {
                if st.index(t).is_none() {
                    continue;
                }
                let s = syms_of(d)?;
                let table = st.syms.entry(t.clone()).or_default();
                let why = get_symbols(&s, d.entry.offload_kind, true, table);
                extracted = why.is_some();
                let Some(why) = why else { continue };
                st.push(t, d.id, why);
                joined[k] = true;
                if i == last {
                    moved[k] = true;
                }
            }
            if extracted {
                break;
            }
        }
    }
    for &id in libraries {
        if let Some(d) = inputs.iter().find(|d| d.id == id) {
            st.push(&d.target(), id, Reason::BitcodeLibrary);
        }
    }
    Ok(Resolution { groups: st.groups })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(a: &str, b: &str) -> TargetId {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn compatibility_as_llvm_19() {
        let amd = "amdgcn-amd-amdhsa";
        assert!(!compatible(&t(amd, "gfx90a"), &t(amd, "gfx90a")));
        assert!(compatible(&t(amd, "gfx90a"), &t(amd, "gfx90a:xnack+")));
        assert!(!compatible(
            &t(amd, "gfx90a:xnack-"),
            &t(amd, "gfx90a:xnack+")
        ));
        assert!(!compatible(
            &t(amd, "gfx90a:sramecc+"),
            &t(amd, "gfx90a:sramecc-")
        ));
        assert!(!compatible(&t(amd, "gfx90a"), &t(amd, "gfx908")));
        assert!(compatible(
            &t("x86_64-pc-linux-gnu", "generic"),
            &t("x86_64-pc-linux-gnu", "")
        ));
        assert!(!compatible(
            &t("x86_64-pc-linux-gnu", "a"),
            &t("x86_64-pc-linux-gnu", "")
        ));
        assert!(!compatible(&t(amd, "generic"), &t("nvptx64", "generic")));
    }

    #[test]
    fn symbol_table_only_grows() {
        let sym = |n: &str, undefined: bool| crate::symbols::Symbol {
            name: n.into(),
            undefined,
            weak: false,
            hidden: false,
            omittable: false,
        };
        let mut table = HashMap::new();
        let regular = Symbols::Object(vec![sym("f", true)]);
        assert_eq!(
            get_symbols(&regular, OffloadKind::OpenMp, false, &mut table),
            Some(Reason::Regular)
        );
        let def = Symbols::Object(vec![sym("f", false)]);
        assert_eq!(
            get_symbols(&def, OffloadKind::OpenMp, true, &mut table),
            Some(Reason::Resolves("f".into()))
        );
        // `f` is still undefined in the table: a second definition is pulled in too.
        assert_eq!(
            get_symbols(&def, OffloadKind::None, true, &mut table),
            Some(Reason::Resolves("f".into()))
        );
        let unrelated = Symbols::Object(vec![sym("g", true)]);
        assert_eq!(
            get_symbols(&unrelated, OffloadKind::OpenMp, true, &mut table),
            None
        );
    }
}
