//! Surgery on built binaries: the offload bundles of shared libraries, executables, objects
//! and raw bundle files compressed, decompressed, pruned to the devices kept, or one code
//! object replaced — without a rebuild.
//!
//! ```text
//! input ─map─► plan (find the bundle sections, walk each as a sequence of bundles, the
//!              file's holes skipped; cheap edits made on all cores, costly ones — a whole
//!              bundle compressed or inflated — left pending) ─► write (beside the target:
//!              unchanged ranges copied by the kernel, pending bundles made on all cores a
//!              window at a time and each written at its own offset as soon as those before
//!              it are, freed bytes left as holes) ─► validate (re-read: headers unchanged,
//!              every bundle parses, each at its address) ─► rename
//! ```
//!
//! Memory stays bounded however many bundles a file has: at most twice as many bundles as
//! cores are made ahead of the one being written, and the input is read with `pread`, not
//! through the map.
//!
//! [`rewrite_file`] is the whole job on one file (open, plan, write beside it, rename; the
//! in-place check that no process maps it for writing), as `offkit prune` and the others run it.
//! [`estimate_file`] plans it and makes the pending bundles without writing anything, for the
//! bytes freed and the size of the file it would write; [`size`] reports where the device
//! bytes of files go, by target, translation unit and kernel, with those estimates
//! (`offkit size`).
//!
//! Sections never move: every bundle is rewritten at its own offset, so every pointer to it
//! (`__hip_fatbin_wrapper`, the dynamic relocations) stays right, and the bytes it frees are
//! zeroed. A bundle that grows (decompression, a larger replacement) must fit its space up to
//! the next bundle or the section's end; otherwise [`Error::DoesNotFit`] says by how much. A
//! raw bundle file holding one bundle is simply rewritten (it may grow).
//!
//! This crate is separate from `offkit-bundle` (which bundles and unbundles files as LLVM's
//! bundler does, laying out new files) because its concern is different: editing an existing
//! container without moving anything, which the bundler never does.

mod archive;
mod convert;
mod cuda;
mod edit;
mod error;
mod filter;
mod holes;
mod par;
mod perms;
mod plan;
mod rewrite;
pub mod size;
mod table;
mod write;

pub use archive::{plan_archive, write_archive, ArchivePlan};
pub use convert::{convert_file, convert_object, Converted, Target};
pub use cuda::FatbinPrune;
pub use edit::{Content, Edit, Part, Replacement, LEVELS};
pub use error::{Error, Result};
pub use filter::{Filter, PruneTarget};
pub use perms::Perms;
pub use plan::{plan, plan_file, BinarySection, Change, Plan, Region, Warning};
pub use rewrite::{estimate_file, rewrite_file, Dest, Done, Estimate};
pub use table::{ImageTables, Patch};
pub use write::{output_size, rewrite_bytes, settle, validate, write, Written};
