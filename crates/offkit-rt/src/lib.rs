//! # offkit-rt
//!
//! The offload runtime of OpenMP programs on x86_64 Linux, in Rust: the `libomptarget.so.19.1`
//! that programs built by clang-19 with `-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu` load in
//! place of LLVM 19's, and from the same objects the `libomptarget.so.22.1` that clang-22
//! programs load (Debian 13 ships no LLVM 22 runtime). Each has its release's SONAME, the
//! `VERS1.0` version node and its release's exports; the behaviour that differs between the
//! releases is one table (`abi.rs`), chosen by the SONAME the library was loaded under. It
//! registers the programs' device images, loads them lazily per device into this process (the
//! host plugin: four devices, images `dlopen`ed from a `memfd`), maps data with LLVM's
//! semantics, launches kernels without libffi and reports to an OMPT tool through libomp. What
//! it does, measured against LLVM 19 and read from LLVM 22's sources, is `docs/runtime.md`.
//!
//! ```text
//! .init_array ─► __tgt_register_lib(desc) ─► registry (descriptors, an image per device)
//!                   └─ first one: ompt::connect (libomp) · devices made (device_initialize)
//! __tgt_target_kernel / __tgt_target_data_*_mapper / omp_target_*        (ffi: C in, Rust out)
//!     ─► policy (OMP_TARGET_OFFLOAD, device number) ─► lazy load: memfd ─► dlopen ─► dlsym
//!     ─► ops (constructs) ─► mapping table (counts, shadow pointers, ATTACH)
//!     ─► devdata (alloc / submit / retrieve / delete, OMPT data_op) ─► plugin (host: malloc
//!        behind LLVM's memory manager, memmove) ─► kernel call (SysV trampoline, OMPT submit)
//! atexit ─► __tgt_unregister_lib ─► last one: tables dumped, images closed, device_finalize
//! ```
//!
//! The modules depend on each other in one direction: `abi` (the C types and the release table)
//! and `env` at the bottom, then `log`, the plugins and their memory, the mapping table, the
//! devices and the registry, the policy, the constructs and routines, and `ffi` (the entry
//! points) on top. This crate is the one place of the workspace with `unsafe` code, and every
//! `unsafe` block says why it is sound.
//!
//! Its Rust API is small: [`arch`], the device and target-ID detection behind `offkit arch` (the
//! runtime chooses among x86-64 images with the same CPU tables), and its [`Error`].
//!
//! ```
//! // What the runtime would pick x86-64 images by: the host CPU and its target ID.
//! let cpu = omptarget::arch::host_cpu();
//! assert_eq!(cpu.triple, "x86_64-pc-linux-gnu");
//! assert!(cpu.target_id().starts_with("x86-64"));
//! ```
#![deny(missing_docs)]
#![allow(unsafe_code)] // the runtime is the crate where the workspace allows unsafe (STYLE)

mod abi;
mod api;
pub mod arch;
mod attach;
mod call;
mod cpu;
mod devdata;
mod device;
mod env;
mod error;
mod ffi;
mod image;
mod libomp;
mod log;
mod mapper;
mod mapping;
mod ompt;
mod ops;
mod plugin;
mod policy;
mod registry;
mod tasks;
mod usm;

pub use error::Error;
