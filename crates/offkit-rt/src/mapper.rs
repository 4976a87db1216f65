//! The handle of a `declare mapper` function: LLVM 19's `MapperComponentsTy`, one
//! `llvm::SmallVector<MapComponentInfoTy>` (`offload/include/OpenMP/Mapping.h`), which code
//! built against LLVM's headers passes to `__tgt_push_mapper_component` and
//! `__tgt_mapper_num_components` (LLVM's own test `mapping/declare_mapper_api.cpp` does).
//!
//! The layout is what LLVM 19's `libomptarget.so.19.1` reads and writes (its
//! `__tgt_push_mapper_component` disassembled): the element pointer at offset 0, the size at 8
//! and the capacity at 12 (`uint32_t`), one inline element from offset 16 (56 bytes in all).
//! Growing follows `SmallVectorBase<uint32_t>::grow_pod`: the capacity becomes `2 * capacity +
//! 1` (at least what is needed); the inline storage is left by `malloc` and a copy, a heap
//! buffer grows with `realloc`, so the owner frees it with `free` as LLVM's destructor does.
use std::ffi::c_void;
use std::mem::MaybeUninit;

/// The components a `declare mapper` function pushed (`__tgt_push_mapper_component`, read
/// out of LLVM's handle by `mapper::run`).
#[derive(Debug, Default)]
pub(crate) struct Components {
    pub bases: Vec<*mut c_void>,
    pub begins: Vec<*mut c_void>,
    pub sizes: Vec<i64>,
    pub types: Vec<i64>,
    pub names: Vec<*mut c_void>,
}

/// `MapComponentInfoTy` (40 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Component {
    pub base: *mut c_void,
    pub begin: *mut c_void,
    pub size: i64,
    pub ty: i64,
    pub name: *mut c_void,
}

/// `MapperComponentsTy`: `SmallVector<MapComponentInfoTy, 1>`.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Handle {
    begin: *mut Component,
    size: u32,
    capacity: u32,
    inline: [MaybeUninit<Component>; 1],
}

const _: () = assert!(std::mem::size_of::<Component>() == 40);
const _: () = assert!(std::mem::size_of::<Handle>() == 56);

/// The function clang emits for a `declare mapper`.
pub(crate) type MapperFn =
    unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void, i64, i64, *mut c_void);

/// Where a handle's inline element lies (`getFirstEl`).
fn first_el(h: *mut Handle) -> *mut Component {
    h.cast::<u8>().wrapping_add(16).cast()
}

/// `__tgt_mapper_num_components`: the size field.
///
/// # Safety
/// `h` points to a handle in LLVM's layout.
pub(crate) unsafe fn len(h: *const Handle) -> i64 {
    // SAFETY: the caller's contract.
    i64::from(unsafe { (*h).size })
}

/// `__tgt_push_mapper_component`: `Components.push_back(…)`.
///
/// # Safety
/// `h` points to a handle in LLVM's layout whose element buffer is the inline one or came
/// from `malloc`/`realloc`.
pub(crate) unsafe fn push(h: *mut Handle, c: Component) {
    // SAFETY: the caller's contract for every access below.
    unsafe {
        let size = (*h).size;
        if size >= (*h).capacity {
            grow(h, u64::from(size) + 1);
        }
        (*h).begin.add(size as usize).write(c);
        (*h).size = size + 1;
    }
}

/// `grow_pod(getFirstEl(), MinSize, sizeof(T))`.
///
/// # Safety
/// As [`push`].
unsafe fn grow(h: *mut Handle, min: u64) {
    // SAFETY: the caller's contract.
    let (begin, size, capacity) = unsafe { ((*h).begin, (*h).size, (*h).capacity) };
    if min > u64::from(u32::MAX) || capacity == u32::MAX {
        // LLVM's report_size_overflow / report_at_maximum_capacity.
        std::process::abort();
    }
    let new_cap = (2 * u64::from(capacity) + 1).clamp(min, u64::from(u32::MAX));
    let bytes = new_cap as usize * std::mem::size_of::<Component>();
    // SAFETY: a fresh malloc copied from the inline storage, or a realloc of the handle's own
    // heap buffer; both keep the `size` elements.
    let new = unsafe {
        if begin == first_el(h) {
            let p = libc::malloc(bytes).cast::<Component>();
            if !p.is_null() {
                std::ptr::copy_nonoverlapping(begin, p, size as usize);
            }
            p
        } else {
            libc::realloc(begin.cast(), bytes).cast::<Component>()
        }
    };
    if new.is_null() {
        // LLVM's safe_malloc/safe_realloc: report_bad_alloc_error.
        std::process::abort();
    }
    // SAFETY: the caller's contract.
    unsafe {
        (*h).begin = new;
        (*h).capacity = new_cap as u32;
    }
}

/// Runs a mapper function with a fresh handle (as LLVM's `targetDataMapper`) and returns the
/// components it pushed.
///
/// # Safety
/// `f` is a mapper function clang emitted (or one with its signature and contract).
pub(crate) unsafe fn run(
    f: MapperFn,
    base: *mut c_void,
    begin: *mut c_void,
    size: i64,
    ty: i64,
    name: *mut c_void,
) -> Components {
    let mut h = Handle {
        begin: std::ptr::null_mut(),
        size: 0,
        capacity: 1,
        inline: [MaybeUninit::uninit()],
    };
    // The handle is not moved from here on: its element pointer may point into it.
    let hp: *mut Handle = &raw mut h;
    h.begin = first_el(hp);
    // SAFETY: the caller's contract; the handle is in LLVM's layout.
    unsafe { f(hp.cast(), base, begin, size, ty, name) };
    // SAFETY: the mapper pushed `size` initialised elements at `begin`.
    let pushed = unsafe { std::slice::from_raw_parts(h.begin, h.size as usize) };
    let mut c = Components::default();
    for e in pushed {
        c.bases.push(e.base);
        c.begins.push(e.begin);
        c.sizes.push(e.size);
        c.types.push(e.ty);
        c.names.push(e.name);
    }
    if h.begin != first_el(hp) {
        // SAFETY: a heap buffer grow() made with malloc/realloc, freed once.
        unsafe { libc::free(h.begin.cast()) };
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn pushes_five(
        h: *mut c_void,
        base: *mut c_void,
        begin: *mut c_void,
        size: i64,
        ty: i64,
        name: *mut c_void,
    ) {
        for k in 0..5 {
            // SAFETY: the runtime's handle.
            unsafe {
                push(
                    h.cast(),
                    Component {
                        base,
                        begin: begin.cast::<u8>().wrapping_add(k).cast(),
                        size: size + k as i64,
                        ty,
                        name,
                    },
                );
                assert_eq!(len(h.cast()), k as i64 + 1);
            }
        }
    }

    #[test]
    fn components_grow_out_of_the_inline_element() {
        let mut x = [0u8; 8];
        let p = x.as_mut_ptr().cast();
        // SAFETY: a mapper of the right signature.
        let c = unsafe { run(pushes_five, p, p, 10, 3, std::ptr::null_mut()) };
        assert_eq!(c.sizes, [10, 11, 12, 13, 14]);
        assert_eq!(c.types, [3; 5]);
        assert_eq!(c.begins[4], x.as_mut_ptr().wrapping_add(4).cast());
    }

    #[test]
    fn a_std_vector_shaped_handle_is_read_as_llvm_19_reads_it() {
        // LLVM's declare_mapper_api.cpp passes a std::vector (three null pointers): 19 sees
        // size 0 and capacity 0 and reallocates from NULL.
        let mut v = [0usize; 3];
        let h = v.as_mut_ptr().cast::<Handle>();
        let c = Component {
            base: std::ptr::null_mut(),
            begin: std::ptr::null_mut(),
            size: 1,
            ty: 2,
            name: std::ptr::null_mut(),
        };
        // SAFETY: 24 bytes are enough for the fields push touches (begin, size, capacity).
        unsafe {
            push(h, c);
            push(h, c);
            assert_eq!(len(h), 2);
            libc::free(v[0] as *mut c_void);
        }
    }
}
