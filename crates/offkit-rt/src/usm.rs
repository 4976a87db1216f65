//! Unified shared memory at image load. Under `#pragma omp requires unified_shared_memory`
//! (or `-fopenmp-force-usm`) clang-19 reaches every `declare target` variable on the device
//! through a reference pointer (`<var>_decl_tgt_ref_ptr`), and the offload entry is that
//! pointer: on the host it holds the variable's host address. LLVM 19's plugin copies the
//! entry's bytes from the host to the device symbol when it registers the global
//! (`registerGlobalOffloadEntry`, `writeGlobalToDevice`), so device code uses the host
//! variable itself. That copy is the plugin's own: no `Copying data` INFO line, no OMPT
//! callback.
//!
//! 19 copies `declare target indirect` entries as well, overwriting the device's function
//! pointer with the host function's first bytes (its programs crash); offkit leaves those
//! alone, as LLVM 22 does.
use crate::plugin::Plugin;

/// Writes the host value of every global entry (`(host, size, device symbol, indirect,
/// name)`) into its device symbol on `device` of `plugin` (unified shared memory is required).
pub(crate) fn write_reference_pointers(
    plugin: &dyn Plugin,
    device: i32,
    globals: &[(usize, usize, usize, bool, usize)],
) {
    for &(host, size, sym, indirect, _) in globals {
        if !indirect {
            // host is the program's entry (size bytes), sym the loaded image's global.
            plugin.data_submit(device, sym, host, size);
        }
    }
}
