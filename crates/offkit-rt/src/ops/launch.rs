//! The kernel launch of a `target` construct (LLVM's `target()` in `omptarget.cpp`): the
//! construct's enter side, the kernel's arguments (mapped data, literals, (first)privates, LLVM
//! 19's packing of small firstprivates, lambda captures), the launch between OMPT's submit
//! callbacks, and the exit side.
use super::{data_end, enter, MapArgs};
use crate::abi::abi;
use crate::abi::map_type::{
    parent_index, IMPLICIT, LITERAL, MEMBER_OF, PRIVATE, PTR_AND_OBJ, TARGET_PARAM, TO,
};
use crate::device::Device;
use crate::log;
use crate::mapping::{copy, Table};
use crate::{devdata, ompt};

/// The kernel launch arguments fit here without allocating for most regions.
const INLINE_ARGS: usize = 16;

/// LLVM's `target()`: map, build the arguments, launch, unmap. `version` is the caller's
/// `KernelArgsTy` version (3 and later pass the implicit launch-environment pointer first).
pub(crate) fn target(
    dev: &Device,
    host_ptr: usize,
    version: u32,
    grid: (u32, u32),
    a: &mut MapArgs<'_>,
) -> Result<(), ()> {
    let Some(kernel) = dev.kernel(host_ptr) else {
        log::report(format_args!(
            "Host ptr {} does not have a matching target pointer.",
            log::ReportPtr(host_ptr)
        ));
        return Err(());
    };
    let n = a.len();
    let mut inline = [0usize; INLINE_ARGS];
    let mut heap = Vec::new();
    let implicit = usize::from(version >= 3);
    let args: &mut [usize] = if n + implicit <= INLINE_ARGS {
        &mut inline
    } else {
        heap.resize(n + implicit, 0);
        &mut heap
    };
    let mut count = 0;
    if implicit == 1 {
        args[0] = usize::MAX;
        count = 1;
    }
    let mut privates: Vec<usize> = Vec::new();
    if n > 0 {
        count = arguments(dev, a, args, count, &mut privates)?;
    }
    let launched: &[usize] = args.get(..count).unwrap_or_default();
    let submit = ompt::submit(grid.0);
    dev.launch(kernel, launched, grid);
    drop(submit);
    if n > 0 {
        let mut t = dev.table();
        let r = data_end(&mut t, a);
        drop(t);
        free_all(dev.id, &privates);
        if r.is_err() {
            log::report(format_args!("Call to targetDataEnd failed, abort target."));
            log::report(format_args!(
                "Failed to process data after launching the kernel."
            ));
            return Err(());
        }
    }
    Ok(())
}

/// The enter side of the construct and the kernel's arguments after the `count` already in
/// `args`; returns the new count. The device memory of privates goes into `privates`.
fn arguments(
    dev: &Device,
    a: &mut MapArgs<'_>,
    args: &mut [usize],
    mut count: usize,
    privates: &mut Vec<usize>,
) -> Result<usize, ()> {
    let n = a.len();
    let mut t = dev.table();
    if enter(&mut t, a).is_err() {
        log::report(format_args!(
            "Call to targetDataBegin failed, abort target."
        ));
        log::report(format_args!(
            "Failed to process data before launching the kernel."
        ));
        return Err(());
    }
    let mut positions = vec![usize::MAX; n];
    let mut pack = Pack::default();
    for i in 0..n {
        let ty = a.types[i];
        if ty & TARGET_PARAM == 0 {
            if ty & (LITERAL | PTR_AND_OBJ | IMPLICIT) == LITERAL | PTR_AND_OBJ | IMPLICIT {
                lambda_capture(&mut t, a, i, &positions, args);
            }
            continue;
        }
        let Some(value) = argument(&mut t, a, i, count, &mut pack, privates) else {
            free_all(t.dev, privates);
            return Err(());
        };
        positions[i] = count;
        args[count] = value;
        count += 1;
    }
    if !pack.items.is_empty() {
        let Some(p) = pack.transfer(t.dev, args) else {
            free_all(t.dev, privates);
            return Err(());
        };
        privates.push(p);
    }
    Ok(count)
}

/// The kernel argument of entry `i` (at position `pos`): a literal, a (first)private's device
/// copy (small firstprivates go into `pack`, their value set later), or the device address of
/// mapped data. `None` when a private cannot be allocated (reported).
fn argument(
    t: &mut Table,
    a: &MapArgs<'_>,
    i: usize,
    pos: usize,
    pack: &mut Pack,
    privates: &mut Vec<usize>,
) -> Option<usize> {
    let ty = a.types[i];
    let begin = a.begins[i] as usize;
    let mut base = a.bases[i] as usize;
    if ty & LITERAL != 0 {
        return Some(base);
    }
    if ty & PRIVATE != 0 {
        let size = usize::try_from(a.sizes[i]).unwrap_or(0);
        let first = ty & TO != 0;
        let immediately = a.types.get(i + 1).is_some_and(|&t| t & MEMBER_OF != 0);
        if first && !immediately && size <= PACK_THRESHOLD {
            // 19 packs small firstprivates into one allocation copied after the loop.
            pack.add(pos, begin, size, base.wrapping_sub(begin));
            return Some(0);
        }
        // Freed after the launch.
        let Some(p) = devdata::alloc(t.dev, size, begin) else {
            log::report(format_args!(
                "Failed to process {}private argument {}{}",
                if first { "first-" } else { "" },
                log::ReportPtr(begin),
                abi().private_arg_end
            ));
            return None;
        };
        privates.push(p);
        if first {
            copy(t.dev, true, p, begin, size as i64, a.name(i));
        }
        return Some(p.wrapping_add(base.wrapping_sub(begin)));
    }
    if ty & PTR_AND_OBJ != 0 {
        // SAFETY: a PTR_AND_OBJ base is the address of a host pointer.
        base = unsafe { *(base as *const usize) };
    }
    let tpr = t.get_tgt_ptr_begin(begin, a.sizes[i], false, false, false, false);
    Some(tpr.tgt.wrapping_add(base.wrapping_sub(begin)))
}

/// Firstprivates up to this size are packed (LLVM's `FirstPrivateArgSizeThreshold`).
const PACK_THRESHOLD: usize = 1024;

/// LLVM 19's packing of small firstprivate arguments: one allocation, one transfer, each
/// argument aligned as its host copy was (up to 16 bytes).
#[derive(Debug, Default)]
struct Pack {
    /// (argument position, host address, size, offset in the pack, base - begin)
    items: Vec<(usize, usize, usize, usize, usize)>,
    size: usize,
    /// (size, start alignment) of the last item.
    last: Option<(usize, usize)>,
}

impl Pack {
    fn add(&mut self, pos: usize, hst: usize, size: usize, base_off: usize) {
        let mut padding = 0;
        let mut start = 16;
        if let Some((last_size, last_align)) = self.last {
            start = last_align;
            let off = last_size % start;
            if off != 0 {
                start = off;
            }
            let required = (hst & hst.wrapping_neg()).min(16);
            let required = if required == 0 {
                16
            } else {
                1 << required.ilog2()
            };
            if required > start {
                padding = required - start;
                start = required;
            }
        }
        let offset = self.size + padding;
        self.items.push((pos, hst, size, offset, base_off));
        self.size = offset + size;
        self.last = Some((size, start));
    }

    /// Allocates the pack, copies the arguments in (one transfer, as 19 reports it) and points
    /// their kernel arguments into it. Returns the allocation.
    fn transfer(&self, dev: i32, args: &mut [usize]) -> Option<usize> {
        let mut staging = vec![0u8; self.size];
        // Freed after the launch.
        let p = devdata::alloc(dev, self.size, staging.as_ptr() as usize)?;
        for &(pos, hst, size, off, base_off) in &self.items {
            if let Some(dst) = staging.get_mut(off..off + size) {
                // SAFETY: hst is the program's firstprivate variable of `size` bytes.
                dst.copy_from_slice(unsafe { std::slice::from_raw_parts(hst as *const u8, size) });
            }
            if let Some(a) = args.get_mut(pos) {
                *a = p.wrapping_add(off).wrapping_add(base_off);
            }
        }
        copy(dev, true, p, staging.as_ptr() as usize, self.size as i64, 0);
        Some(p)
    }
}

fn free_all(dev: i32, privates: &[usize]) {
    for &p in privates {
        // Each came from devdata::alloc in target() and is freed once.
        devdata::delete(dev, p);
    }
}

/// A lambda capture (`LITERAL|PTR_AND_OBJ|IMPLICIT`, `MEMBER_OF` the lambda object): the device
/// address of the captured variable goes into the device copy of the lambda.
fn lambda_capture(t: &mut Table, a: &MapArgs<'_>, i: usize, positions: &[usize], args: &[usize]) {
    let Some(parent) = parent_index(a.types[i]) else {
        return;
    };
    let Some(&pos) = positions.get(parent) else {
        return;
    };
    let Some(&tgt_base) = args.get(pos) else {
        return;
    };
    let host_val = a.begins[i] as usize;
    let hst_begin = a.bases[i] as usize;
    let hst_base = a.begins.get(parent).map_or(0, |&p| p as usize);
    let tgt_begin = tgt_base.wrapping_add(hst_begin.wrapping_sub(hst_base));
    let tpr = t.get_tgt_ptr_begin(host_val, a.sizes[i], false, false, false, false);
    if !tpr.present || tpr.host {
        return;
    }
    let name = tpr.key.and_then(|k| t.map.get(&k)).map_or(0, |e| e.name);
    // tgt_begin is the capture's slot inside the device copy of the lambda.
    copy(
        t.dev,
        true,
        tgt_begin,
        (&raw const tpr.tgt) as usize,
        8,
        name,
    );
}
