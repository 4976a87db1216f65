//! One device's mapping table with LLVM 19's semantics: host ranges keyed by their begin,
//! dynamic and hold reference counts (either may be infinite), shadow pointers, and the lookup
//! rules (contained, extends before/after, the widened lookup of zero-length sections).
//!
//! Device memory and transfers go through the device's plugin (`plugin.rs`).
use std::collections::BTreeMap;
use std::ops::Bound;

use crate::log::{self, info, name_of, P};

/// An infinite reference count (globals, `omp_target_associate_ptr`).
pub(crate) const INF: u64 = u64::MAX;

/// A device pointer written into device memory for a `PTR_AND_OBJ` pair, and the host value
/// it stands for (restored on the host after `from` copies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shadow {
    pub hst_addr: usize,
    pub hst_val: usize,
    pub tgt_addr: usize,
    pub tgt_val: usize,
}

/// One mapped host range.
#[derive(Debug)]
pub(crate) struct Entry {
    pub base: usize,
    pub begin: usize,
    pub end: usize,
    pub tgt_alloc: usize,
    pub tgt_begin: usize,
    pub dyn_ref: u64,
    pub hold_ref: u64,
    /// A `map_var_info_t` or an entry name (for messages), 0 when unknown.
    pub name: usize,
    pub shadows: Vec<Shadow>,
}

fn count_str(c: u64) -> String {
    if c == INF {
        "INF".to_owned()
    } else {
        c.to_string()
    }
}

impl Entry {
    fn count(&mut self, hold: bool) -> &mut u64 {
        if hold {
            &mut self.hold_ref
        } else {
            &mut self.dyn_ref
        }
    }

    pub(crate) fn total(&self) -> u64 {
        if self.dyn_ref == INF || self.hold_ref == INF {
            INF
        } else {
            self.dyn_ref + self.hold_ref
        }
    }

    fn inc(&mut self, hold: bool) {
        let c = self.count(hold);
        if *c != INF {
            *c += 1;
        }
    }

    fn dec(&mut self, hold: bool) {
        let c = self.count(hold);
        if *c != INF && *c > 0 {
            *c -= 1;
        }
    }

    /// Whether a decrement of this count would remove the entry (`decShouldRemove`).
    fn dec_should_remove(&self, hold: bool, after_reset: bool) -> bool {
        let (this, other) = if hold {
            (self.hold_ref, self.dyn_ref)
        } else {
            (self.dyn_ref, self.hold_ref)
        };
        if other > 0 {
            return false;
        }
        if after_reset {
            this != INF
        } else {
            this == 1
        }
    }

    fn reset(&mut self, hold: bool) {
        let c = self.count(hold);
        if *c != INF {
            *c = 1;
        }
    }

    /// Records a shadow pointer; false when the same one is already recorded.
    pub(crate) fn add_shadow(&mut self, s: Shadow) -> bool {
        match self.shadows.iter_mut().find(|x| x.hst_addr == s.hst_addr) {
            Some(x) if x.tgt_val == s.tgt_val => false,
            Some(x) => {
                *x = s;
                true
            }
            None => {
                self.shadows.push(s);
                true
            }
        }
    }

    /// Writes the host pointer values back over the device ones copied to the host.
    pub(crate) fn restore_shadows(&self) {
        for s in &self.shadows {
            // SAFETY: hst_addr is a pointer slot of mapped host data, still mapped.
            unsafe { *(s.hst_addr as *mut usize) = s.hst_val };
        }
    }
}

/// Where a lookup landed.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Lookup {
    pub key: Option<usize>,
    pub contained: bool,
    pub extends_before: bool,
    pub extends_after: bool,
}

/// The result of `getTargetPointer` / `getTgtPtrBegin`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tpr {
    /// The device address (0 = none).
    pub tgt: usize,
    pub key: Option<usize>,
    pub present: bool,
    pub host: bool,
    pub is_new: bool,
    pub is_last: bool,
}

/// The options of `getTargetPointer`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MapReq {
    pub begin: usize,
    pub base: usize,
    pub padding: usize,
    pub size: i64,
    pub name: usize,
    pub to: bool,
    pub always: bool,
    pub implicit: bool,
    pub update_ref: bool,
    pub close: bool,
    pub present: bool,
    pub hold: bool,
}

/// One device's table.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub map: BTreeMap<usize, Entry>,
    /// The device number, for messages.
    pub dev: i32,
    /// `#pragma omp requires unified_shared_memory` is in effect.
    pub usm: bool,
}

/// `memcpy` between host and device memory with LLVM's `Copying data …` INFO line.
pub(crate) fn copy(dev: i32, to_device: bool, dst: usize, src: usize, size: i64, name: usize) {
    if info_level_has(info::DATA_TRANSFER) {
        let (hst, tgt) = if to_device { (src, dst) } else { (dst, src) };
        let (from, to, a, b, pa, pb) = if to_device {
            ("host", "device", "Hst", "Tgt", hst, tgt)
        } else {
            ("device", "host", "Tgt", "Hst", tgt, hst)
        };
        log::info(
            dev,
            format_args!(
                "Copying data from {from} to {to}, {a}Ptr={}, {b}Ptr={}, Size={size}, Name={}",
                P(pa),
                P(pb),
                name_of(name)
            ),
        );
    }
    let size = usize::try_from(size).unwrap_or(0);
    if to_device {
        crate::devdata::submit(dev, dst, src, size);
    } else {
        crate::devdata::retrieve(dev, dst, src, size);
    }
}

#[inline]
fn info_level_has(bit: u32) -> bool {
    log::info_level() & bit != 0
}

impl Table {
    pub(crate) fn new(dev: i32) -> Table {
        Table {
            map: BTreeMap::new(),
            dev,
            usm: false,
        }
    }

    /// LLVM's `lookupMapping`.
    pub(crate) fn lookup(&self, hp: usize, size: i64) -> Lookup {
        let mut lr = Lookup::default();
        if self.map.is_empty() {
            return lr;
        }
        let left = self.map.range(..=hp).next_back();
        let right = self
            .map
            .range((Bound::Excluded(hp), Bound::Unbounded))
            .next();
        if size == 0 {
            if let Some((&k, e)) = left {
                lr.key = Some(k);
                lr.contained = hp < e.end || hp < e.base;
            }
            if !lr.contained {
                if let Some((&k, e)) = right {
                    lr.key = Some(k);
                    lr.contained = hp >= e.base;
                }
            }
        } else {
            let end = hp.wrapping_add(size as usize);
            if let Some((&k, e)) = left {
                lr.key = Some(k);
                lr.contained = hp >= e.begin && hp < e.end && end <= e.end;
                lr.extends_after = hp < e.end && end > e.end;
            }
            if !(lr.contained || lr.extends_after) {
                if let Some((&k, e)) = right {
                    lr.key = Some(k);
                    lr.extends_before = hp < e.begin && end > e.begin;
                    lr.extends_after = hp < e.end && end > e.end;
                }
            }
        }
        lr
    }

    /// LLVM's `getTargetPointer` (enter side): reuse, refuse an explicit extension, or allocate;
    /// copies host to device when `to` and new or `always`.
    pub(crate) fn get_target_pointer(&mut self, r: &MapReq) -> Tpr {
        let lr = self.lookup(r.begin, r.size);
        let reuse = lr.contained || ((lr.extends_before || lr.extends_after) && r.implicit);
        let extension = (lr.extends_before || lr.extends_after) && !r.implicit;
        let found = lr.key.filter(|k| self.map.contains_key(k));
        let tpr = if let Some(k) = found.filter(|_| reuse) {
            self.reuse(k, r)
        } else if let Some(e) = found.filter(|_| extension).and_then(|k| self.map.get(&k)) {
            log::message(format_args!(
                "explicit extension not allowed: host address specified is {} ({} bytes), but \
                 device allocation maps to host at {} ({} bytes)",
                P(r.begin),
                r.size,
                P(e.begin),
                e.end - e.begin
            ));
            if r.present {
                present_message(r.begin, r.size);
            }
            return Tpr {
                present: true,
                ..Tpr::default()
            };
        } else if self.usm && !r.close {
            if info_level_has(info::MAPPING_CHANGED) {
                log::info(
                    self.dev,
                    format_args!(
                        "Return HstPtrBegin {} Size={} for unified shared memory",
                        P(r.begin),
                        r.size
                    ),
                );
            }
            return Tpr {
                tgt: r.begin,
                host: true,
                ..Tpr::default()
            };
        } else if r.present {
            present_message(r.begin, r.size);
            return Tpr {
                present: true,
                ..Tpr::default()
            };
        } else if r.size > 0 {
            let Some(tpr) = self.allocate(r) else {
                return Tpr {
                    present: true,
                    ..Tpr::default()
                };
            };
            tpr
        } else {
            return Tpr::default();
        };
        if tpr.tgt != 0 && r.to && (tpr.is_new || r.always) && r.size != 0 {
            self.copy_to_device(r, &tpr);
        }
        tpr
    }

    /// `getTargetPointer` on an existing entry `k`: its count goes up (or the update is
    /// suppressed), and the device address of `r.begin` in it.
    fn reuse(&mut self, k: usize, r: &MapReq) -> Tpr {
        let dev = self.dev;
        let mut tpr = Tpr {
            present: true,
            key: Some(k),
            ..Tpr::default()
        };
        let Some(e) = self.map.get_mut(&k) else {
            return Tpr {
                present: true,
                ..Tpr::default()
            };
        };
        let action = if r.update_ref {
            e.inc(r.hold);
            " (incremented)"
        } else {
            tpr.is_new = e.total() == 1;
            " (update suppressed)"
        };
        let ptr = e.tgt_begin.wrapping_add(r.begin.wrapping_sub(e.begin));
        if info_level_has(info::MAPPING_EXISTS) {
            let (da, ha) = if r.hold { ("", action) } else { (action, "") };
            log::info(
                dev,
                format_args!(
                    "Mapping exists{} with HstPtrBegin={}, TgtPtrBegin={}, Size={}, \
                     DynRefCount={}{da}, HoldRefCount={}{ha}, Name={}",
                    if r.implicit { " (implicit)" } else { "" },
                    P(r.begin),
                    P(ptr),
                    r.size,
                    count_str(e.dyn_ref),
                    count_str(e.hold_ref),
                    name_of(r.name)
                ),
            );
        }
        tpr.tgt = ptr;
        tpr
    }

    /// `getTargetPointer` of data not mapped yet: device memory (with the padding that keeps a
    /// struct's alignment) and a new entry; `None` when the allocation fails.
    fn allocate(&mut self, r: &MapReq) -> Option<Tpr> {
        let total = r.padding + r.size as usize;
        let alloc = crate::devdata::alloc(self.dev, total, r.begin)?;
        let tgt = alloc + r.padding;
        let e = Entry {
            base: r.base,
            begin: r.begin,
            end: r.begin + r.size as usize,
            tgt_alloc: alloc,
            tgt_begin: tgt,
            dyn_ref: u64::from(!r.hold),
            hold_ref: u64::from(r.hold),
            name: r.name,
            shadows: Vec::new(),
        };
        if info_level_has(info::MAPPING_CHANGED) {
            log::info(
                self.dev,
                format_args!(
                    "Creating new map entry with HstPtrBase={}, HstPtrBegin={}, \
                     TgtAllocBegin={}, TgtPtrBegin={}, Size={}, DynRefCount={}, \
                     HoldRefCount={}, Name={}",
                    P(r.base),
                    P(r.begin),
                    P(alloc),
                    P(tgt),
                    r.size,
                    count_str(e.dyn_ref),
                    count_str(e.hold_ref),
                    name_of(r.name)
                ),
            );
        }
        self.map.insert(r.begin, e);
        Some(Tpr {
            tgt,
            key: Some(r.begin),
            present: true,
            is_new: true,
            ..Tpr::default()
        })
    }

    /// The `to` copy of a new or `always` mapping; LLVM 22 does not copy over a range holding an
    /// attached pointer again.
    fn copy_to_device(&self, r: &MapReq, tpr: &Tpr) {
        let entry = tpr.key.and_then(|k| self.map.get(&k));
        let end = r.begin.wrapping_add(r.size as usize);
        let spared = crate::abi::abi().to_copy_spares_attached
            && entry.is_some_and(|e| {
                e.shadows
                    .iter()
                    .any(|s| s.hst_addr >= r.begin && s.hst_addr < end)
            });
        if !spared {
            copy(
                self.dev,
                true,
                tpr.tgt,
                r.begin,
                r.size,
                entry.map_or(0, |e| e.name),
            );
        }
    }

    /// LLVM's `getTgtPtrBegin` (exit side and queries): the device address, decrementing the
    /// count when asked; a missing item keeps its host address and is "not present".
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn get_tgt_ptr_begin(
        &mut self,
        begin: usize,
        size: i64,
        update_ref: bool,
        hold: bool,
        must_contain: bool,
        force_delete: bool,
    ) -> Tpr {
        let dev = self.dev;
        let lr = self.lookup(begin, size);
        let mut tpr = Tpr {
            present: true,
            ..Tpr::default()
        };
        let hit = lr.contained || (!must_contain && (lr.extends_before || lr.extends_after));
        match lr
            .key
            .filter(|_| hit)
            .and_then(|k| self.map.get_mut(&k).map(|e| (k, e)))
        {
            Some((k, e)) => {
                tpr.is_last = e.dec_should_remove(hold, force_delete);
                if force_delete {
                    e.reset(hold);
                }
                let action = if !update_ref {
                    " (update suppressed)"
                } else if tpr.is_last {
                    e.dec(hold);
                    if force_delete {
                        " (reset, delayed deletion)"
                    } else {
                        " (decremented, delayed deletion)"
                    }
                } else {
                    e.dec(hold);
                    " (decremented)"
                };
                let tp = e.tgt_begin.wrapping_add(begin.wrapping_sub(e.begin));
                if info_level_has(info::MAPPING_EXISTS) {
                    let (da, ha) = if hold { ("", action) } else { (action, "") };
                    log::info(
                        dev,
                        format_args!(
                            "Mapping exists with HstPtrBegin={}, TgtPtrBegin={}, Size={size}, \
                             DynRefCount={}{da}, HoldRefCount={}{ha}",
                            P(begin),
                            P(tp),
                            count_str(e.dyn_ref),
                            count_str(e.hold_ref)
                        ),
                    );
                }
                tpr.tgt = tp;
                tpr.key = Some(k);
            }
            None if self.usm => {
                tpr.present = false;
                tpr.host = true;
                tpr.tgt = begin;
            }
            None => {
                tpr.present = false;
                tpr.tgt = begin;
            }
        }
        tpr
    }

    /// The name 19's `printCopyInfo` shows for a transfer without an entry: that of the entry
    /// its lookup lands on, contained or not (a neighbour), 0 for an empty table.
    pub(crate) fn name_at(&self, begin: usize, size: i64) -> usize {
        let lr = self.lookup(begin, size);
        lr.key.and_then(|k| self.map.get(&k)).map_or(0, |e| e.name)
    }

    /// The device address of `[begin, begin+size)` if any part of it is mapped (no counting,
    /// no messages).
    pub(crate) fn tgt_ptr_quiet(&self, begin: usize, size: i64) -> Option<usize> {
        let lr = self.lookup(begin, size);
        if !(lr.contained || lr.extends_before || lr.extends_after) {
            return None;
        }
        let e = self.map.get(&lr.key?)?;
        Some(e.tgt_begin.wrapping_add(begin.wrapping_sub(e.begin)))
    }

    /// Removes an entry whose counts reached zero and frees its device memory (LLVM's
    /// `eraseMapEntry` + `deallocTgtPtrAndEntry`); `size` is the size of the item that
    /// removed it, as 19 prints.
    pub(crate) fn remove(&mut self, key: usize, size: i64) {
        let Some(e) = self.map.remove(&key) else {
            return;
        };
        if info_level_has(info::MAPPING_CHANGED) {
            log::info(
                self.dev,
                format_args!(
                    "Removing map entry with HstPtrBegin={}, TgtPtrBegin={}, Size={size}, Name={}",
                    P(e.begin),
                    P(e.tgt_begin),
                    name_of(e.name)
                ),
            );
        }
        // tgt_alloc came from data_alloc in get_target_pointer and is freed once, here.
        crate::devdata::delete(self.dev, e.tgt_alloc);
    }

    /// Inserts an entry with an infinite dynamic count (globals, associations).
    pub(crate) fn insert_inf(&mut self, begin: usize, size: usize, tgt: usize, name: usize) {
        self.map.insert(
            begin,
            Entry {
                base: begin,
                begin,
                end: begin + size,
                tgt_alloc: tgt,
                tgt_begin: tgt,
                dyn_ref: INF,
                hold_ref: 0,
                name,
                shadows: Vec::new(),
            },
        );
    }
}

fn present_message(begin: usize, size: i64) {
    log::message(format_args!(
        "device mapping required by 'present' map type modifier does not exist for host \
         address {} ({size} bytes)",
        P(begin)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(begin: usize, size: i64) -> MapReq {
        MapReq {
            begin,
            base: begin,
            size,
            update_ref: true,
            ..MapReq::default()
        }
    }

    #[test]
    fn counts_and_removal_follow_19() {
        let mut t = Table::new(0);
        let host = [0u8; 64];
        let h = host.as_ptr() as usize;
        let a = t.get_target_pointer(&req(h, 64));
        assert!(a.is_new && a.tgt != 0);
        let b = t.get_target_pointer(&req(h + 8, 8));
        assert!(!b.is_new);
        assert_eq!(b.tgt, a.tgt + 8);
        assert_eq!(t.map[&h].dyn_ref, 2);
        let c = t.get_tgt_ptr_begin(h, 64, true, false, true, false);
        assert!(!c.is_last);
        let d = t.get_tgt_ptr_begin(h, 64, true, false, true, false);
        assert!(d.is_last);
        assert_eq!(t.map[&h].total(), 0);
        t.remove(h, 64);
        assert!(t.map.is_empty());
    }

    #[test]
    fn explicit_extension_is_refused_implicit_is_reused() {
        let mut t = Table::new(0);
        let host = [0u8; 64];
        let h = host.as_ptr() as usize;
        t.get_target_pointer(&req(h, 32));
        let ext = t.get_target_pointer(&req(h + 16, 32));
        assert_eq!(ext.tgt, 0);
        let imp = t.get_target_pointer(&MapReq {
            implicit: true,
            ..req(h + 16, 32)
        });
        assert_ne!(imp.tgt, 0);
        assert!(!t.lookup(h + 100, 0).contained);
        assert!(t.lookup(h + 31, 0).contained);
        t.get_tgt_ptr_begin(h, 32, true, false, true, true);
        t.remove(h, 32);
    }

    #[test]
    fn delete_resets_and_infinite_counts_stay() {
        let mut t = Table::new(0);
        let host = [0u8; 16];
        let h = host.as_ptr() as usize;
        t.get_target_pointer(&req(h, 16));
        t.get_target_pointer(&req(h, 16));
        let d = t.get_tgt_ptr_begin(h, 16, true, false, true, true);
        assert!(d.is_last);
        assert_eq!(t.map[&h].total(), 0);
        t.remove(h, 16);
        t.insert_inf(h, 16, h, 0);
        let g = t.get_tgt_ptr_begin(h, 16, true, false, true, true);
        assert!(!g.is_last);
        assert_eq!(t.map[&h].dyn_ref, INF);
    }
}
