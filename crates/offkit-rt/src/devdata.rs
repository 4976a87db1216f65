//! The data operations of LLVM 19's `DeviceTy` (`allocData`, `deleteData`, `submitData`,
//! `retrieveData`): the device's plugin call between an OMPT tool's `target_data_op` begin
//! and end callbacks. Every allocation, free and transfer the runtime makes for a program goes
//! through here; what the plugin does on its own (writing USM reference pointers at load)
//! does not, as in 19.
use crate::ompt::{self, DataOp, DataOpArgs};
use crate::plugin::{self, AllocKind};

/// `omp_get_initial_device()`: the host's device number in callbacks (these operations run on
/// devices that exist, so the plugins' device count is the runtime's).
fn initial() -> i32 {
    plugin::device_count() as i32
}

/// `allocData(size, hst)`: default-kind device memory (the memory manager's).
pub(crate) fn alloc(dev: i32, size: usize, hst: usize) -> Option<usize> {
    alloc_with(dev, size, hst, || plugin::of(dev).data_alloc(dev, size))
}

/// `allocData` of another kind (`llvm_omp_target_alloc_host/_shared/_device`).
pub(crate) fn alloc_kind(dev: i32, size: usize, kind: AllocKind) -> Option<usize> {
    alloc_with(dev, size, 0, || {
        plugin::of(dev).data_alloc_kind(dev, size, kind)
    })
}

fn alloc_with(
    dev: i32,
    size: usize,
    hst: usize,
    f: impl FnOnce() -> Option<usize>,
) -> Option<usize> {
    let args = DataOpArgs {
        src: hst,
        src_device: initial(),
        dst: 0,
        dst_device: dev,
        bytes: size,
    };
    ompt::data_op(DataOp::Alloc, args, f, |p| p.unwrap_or(0))
}

/// `deleteData(tgt)`.
pub(crate) fn delete(dev: i32, tgt: usize) {
    delete_with(dev, tgt, || plugin::of(dev).data_delete(dev, tgt));
}

/// `deleteData` of another kind.
pub(crate) fn delete_kind(dev: i32, tgt: usize, kind: AllocKind) {
    delete_with(dev, tgt, || {
        plugin::of(dev).data_delete_kind(dev, tgt, kind)
    });
}

fn delete_with(dev: i32, tgt: usize, f: impl FnOnce()) {
    let args = DataOpArgs {
        src: tgt,
        src_device: dev,
        dst: 0,
        dst_device: -1,
        bytes: 0,
    };
    ompt::data_op(DataOp::Delete, args, f, |_| 0);
}

/// `submitData`: host to device.
pub(crate) fn submit(dev: i32, tgt: usize, hst: usize, size: usize) {
    let args = DataOpArgs {
        src: hst,
        src_device: initial(),
        dst: tgt,
        dst_device: dev,
        bytes: size,
    };
    ompt::data_op(
        DataOp::ToDevice,
        args,
        || plugin::of(dev).data_submit(dev, tgt, hst, size),
        |_| 0,
    );
}

/// `retrieveData`: device to host.
pub(crate) fn retrieve(dev: i32, hst: usize, tgt: usize, size: usize) {
    let args = DataOpArgs {
        src: tgt,
        src_device: dev,
        dst: hst,
        dst_device: initial(),
        bytes: size,
    };
    ompt::data_op(
        DataOp::FromDevice,
        args,
        || plugin::of(dev).data_retrieve(dev, hst, tgt, size),
        |_| 0,
    );
}

/// The `associate`/`disassociate` callbacks of `omp_target_(dis)associate_ptr`: 19 makes both
/// before the table changes (its `InterfaceRAII` is a temporary).
pub(crate) fn associate_event(kind: DataOp, dev: i32, hst: usize, tgt: usize, size: usize) {
    let args = DataOpArgs {
        src: hst,
        src_device: initial(),
        dst: tgt,
        dst_device: dev,
        bytes: size,
    };
    ompt::data_op(kind, args, || (), |_| 0);
}
