//! Device memory of the host plugin as LLVM's plugins hand it out (19 and 22 alike): the C allocator behind
//! the plugins' memory manager (`MemoryManagerTy`, `plugins-nextgen/common/include/
//! MemoryManager.h`).
//!
//! What a program observes (measured with LLVM 19's runtime, `tests/programs/placement.c`):
//! - a block of at most `LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD` bytes (default 8 KiB) is
//!   `malloc`ed once and, when freed, kept on the device's free list instead of going back to
//!   `malloc`: the next allocation of **exactly the same size** on that device gets it back,
//!   the oldest freed block first; the C allocator never sees it again;
//! - larger blocks, and every block when the variable is `0`, are `malloc`/`free` directly;
//! - `llvm_omp_target_alloc_host`/`_shared` memory is always `malloc`/`free` directly;
//! - when `malloc` fails, every block on the free lists is freed and the allocation retried.
//!
//! The variable is read as LLVM 19's `UInt32Envar` reads it (`std::istringstream >>
//! uint32_t`): leading blanks, an optional sign (`-1` is 4294967295), decimal digits up to the
//! first other character; no digits or a value above `u32::MAX` leaves the default.
use std::collections::{BTreeMap, VecDeque};
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use super::HOST_DEVICES;
use crate::env::Env;

/// LLVM's default `SizeThreshold` (`1U << 13`).
const DEFAULT_THRESHOLD: usize = 1 << 13;

/// One device's memory manager: the blocks it made (address → size) and the freed ones by
/// size, oldest first (LLVM's `std::multiset` ordered by size finds the first of equal sizes).
#[derive(Debug)]
struct Pool {
    nodes: BTreeMap<usize, usize>,
    free: BTreeMap<usize, VecDeque<usize>>,
}

static POOLS: [Mutex<Pool>; HOST_DEVICES] = [const {
    Mutex::new(Pool {
        nodes: BTreeMap::new(),
        free: BTreeMap::new(),
    })
}; HOST_DEVICES];

fn pool(device: i32) -> Option<MutexGuard<'static, Pool>> {
    let p = POOLS.get(usize::try_from(device).ok()?)?;
    Some(p.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The size up to which blocks are managed, `None` when the manager is off.
fn threshold() -> Option<usize> {
    static T: OnceLock<Option<usize>> = OnceLock::new();
    *T.get_or_init(|| match Env::read().mm_threshold {
        Some(0) => None,
        Some(n) => Some(n as usize),
        None => Some(DEFAULT_THRESHOLD),
    })
}

/// `MemoryManagerTy::allocate` (the default and device kinds of LLVM's `dataAlloc`).
pub(crate) fn alloc(device: i32, size: usize) -> Option<usize> {
    if size == 0 {
        return None;
    }
    let managed = threshold().is_some_and(|t| size <= t);
    let Some(mut guard) = pool(device).filter(|_| managed) else {
        return malloc_or_release(device, size);
    };
    if let Some(p) = guard.free.get_mut(&size).and_then(VecDeque::pop_front) {
        return Some(p);
    }
    drop(guard);
    let p = malloc_or_release(device, size)?;
    pool(device)?.nodes.insert(p, size);
    Some(p)
}

/// `MemoryManagerTy::free`: a managed block goes back on its free list, any other is freed.
pub(crate) fn free(device: i32, tgt: usize) {
    if let Some(mut pool) = pool(device) {
        if let Some(&size) = pool.nodes.get(&tgt) {
            pool.free.entry(size).or_default().push_back(tgt);
            return;
        }
    }
    host_free(tgt);
}

/// `malloc`, and when it fails the free lists released and one more try
/// (`allocateOrFreeAndAllocateOnDevice`).
fn malloc_or_release(device: i32, size: usize) -> Option<usize> {
    if let Some(p) = host_alloc(size) {
        return Some(p);
    }
    if let Some(mut pool) = pool(device) {
        let Pool { nodes, free } = &mut *pool;
        for p in std::mem::take(free).into_values().flatten() {
            nodes.remove(&p);
            host_free(p);
        }
    }
    host_alloc(size)
}

/// The host plugin's allocator for every kind (`std::malloc`).
pub(crate) fn host_alloc(size: usize) -> Option<usize> {
    // SAFETY: malloc has no preconditions.
    let p = unsafe { libc::malloc(size) } as usize;
    (p != 0).then_some(p)
}

/// `std::free` of memory from [`host_alloc`].
pub(crate) fn host_free(p: usize) {
    // SAFETY: p came from malloc (host_alloc) and is freed once: managed blocks never reach
    // here while they are on a free list.
    unsafe { libc::free(p as *mut c_void) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_blocks_come_back_for_the_same_size_oldest_first() {
        // Device 3 of this test process; nothing else here allocates on it.
        let blocks: Vec<usize> = (0..4).map(|_| alloc(3, 48).unwrap()).collect();
        for &b in &blocks {
            free(3, b);
        }
        assert_eq!(alloc(3, 48), Some(blocks[0]));
        assert_eq!(alloc(3, 48), Some(blocks[1]));
        let other = alloc(3, 40).unwrap();
        assert!(!blocks.contains(&other));
        free(3, other);
        assert_eq!(alloc(3, 40), Some(other));
        assert_eq!(alloc(3, 0), None);
        // Above the threshold: plain malloc/free, never kept.
        let big = alloc(3, DEFAULT_THRESHOLD + 1).unwrap();
        free(3, big);
        assert!(!pool(3).unwrap().nodes.contains_key(&big));
    }
}
