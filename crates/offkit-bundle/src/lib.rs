//! # offkit-bundle
//!
//! The offload bundler's file-level work: bundling, unbundling and listing binary and text
//! bundles, compressed bundles, fat objects and archives. Payloads move between files without
//! passing through memory (headers are read from a memory map, payloads are copied by the
//! kernel); outputs appear atomically (temporary file + rename).
//!
//! ```text
//! inputs ─map─► write::{binary, text} ─stream─► Output (tmp ─rename─► file)
//!        └─────► write::compressed (one buffer, or pieces with zstd workers; zstd ∥ MD5)
//! bundle ─map─► read::open (strict; CCOB v1–3 decompressed) ─► Entry ─extract─► Output
//! fat.o  ─────► fatobj::{bundle_sections, add_bundle_sections, strip_bundle_sections}
//! lib.a  ─────► archive::{read_members, write}
//! ```
//!
//! ```no_run
//! use std::path::Path;
//! use offkit_bundle::{io::Output, read};
//!
//! let bundle = read::open(Path::new("k.bc"), None, 16 << 30).unwrap();
//! let entry = bundle.find(b"hip-amdgcn-amd-amdhsa--gfx90a").unwrap();
//! let mut out = Output::create(Path::new("k-gfx90a.bc")).unwrap();
//! bundle.extract(entry, &mut out).unwrap();
//! out.commit().unwrap();
//! ```
#![deny(missing_docs)]

pub mod archive;
pub mod error;
pub mod extract;
pub mod fatobj;
pub mod inspect;
pub mod io;
pub mod read;
pub mod select;
pub mod thin;
pub mod types;
pub mod walk;
pub mod write;

pub use error::{Error, InputName, Origin, Result, Subject};
