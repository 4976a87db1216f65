//! # offkit-rt
//!
//! The offload runtime: a `libomptarget.so.19.1` for x86_64 Linux that programs built by clang-19
//! with `-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu` load in place of LLVM 19's (same SONAME,
//! the `VERS1.0` version node, every entry point clang-19 emits and libomp looks up), and from
//! the same objects a `libomptarget.so.22.1` that clang-22 programs load (LLVM 22's SONAME,
//! exports and entry layout; LLVM 22 has no runtime in Debian 13 to replace). It
//! registers the programs' device images, loads them lazily per device into this process (the
//! host plugin: four devices, images `dlopen`ed from a `memfd`), maps data with LLVM 19's
//! semantics and launches kernels without libffi. What it does, measured against LLVM 19, is
//! in `docs/runtime.md`; what differs between the two releases is one table (`abi.rs`).
//!
//! ```text
//! .init_array ─► __tgt_register_lib(desc) ─► registry (descriptors, images per device)
//! __tgt_target_kernel / __tgt_target_data_*_mapper
//!     ─► policy (OMP_TARGET_OFFLOAD, device number) ─► lazy load (memfd ─► dlopen ─► dlsym)
//!     ─► mapping table (ref counts, shadow pointers) ─► kernel call (SysV trampoline)
//! atexit ─► __tgt_unregister_lib ─► last one: images closed (device destructors)
//! ```
//!
//! This crate is the one place of the workspace with `unsafe` code: the C ABI lives in
//! [`ffi`], and every `unsafe` block says why it is sound.
//!
//! ```no_run
//! // A program finds the runtime through the loader, by its SONAME:
//! //   LD_LIBRARY_PATH=target/release ./a.out
//! // Rust code can ask the same questions as C code:
//! let devices = omptarget::ffi::omp_get_num_devices();
//! println!("{devices} offload devices");
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
pub mod ffi;
mod image;
mod libomp;
mod mapper;
mod mapping;
mod memory;
mod ompt;
mod ops;
mod plugin;
mod policy;
mod registry;
mod tasks;
mod usm;

pub use abi::llvm_version;
pub use error::Error;
