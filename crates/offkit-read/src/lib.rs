//! # offkit-read
//!
//! Bounded, offset-aware reading of untrusted bytes: the base every offkit parser (the models
//! of LLVM in `offkit-llvm`, the offload formats in `offkit-format`) is built on.
//!
//! - [`Reader`]: a cursor over borrowed bytes that knows the absolute offset of its first byte,
//!   so that a nested container (an ELF section → an offload binary → an image) is read with a
//!   sub-reader whose errors still name the byte in the outermost input. Every read is
//!   bounds-checked and returns [`Error::Truncated`] instead of panicking.
//! - [`limits`]: the named limits every count read from an input is checked against (as well
//!   as against the bytes left) before anything is allocated or recursed into; an error names
//!   the limit ([`Limit`]).
//!
//! ```text
//! &[u8] (a Vec or a memory map), base ─► Reader ─take/u32_le/sub─► &[u8] views, absolute offsets
//!                                           └─ count ─check─► limits::Limit ─► Error::LimitExceeded
//! ```
//!
//! ```
//! use offkit_read::{limits::Limit, Error, Reader};
//!
//! // A section at file offset 0x100 holding a count and that many 4-byte words.
//! let section = [2, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd];
//! let mut r = Reader::new(&section, 0x100);
//! let count = r.u32_le("word count").unwrap();
//! assert!(u64::from(count) <= Limit::Strings.value());
//! assert_eq!(r.take(4, "word").unwrap(), [0xaa, 0xbb, 0xcc, 0xdd]);
//! match r.take(4, "word") {
//!     Err(Error::Truncated { offset, needed, left, .. }) => {
//!         assert_eq!((offset, needed, left), (0x108, 4, 0));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
#![deny(missing_docs)]

mod error;
pub mod limits;
mod reader;

pub use error::{Error, Result};
pub use limits::Limit;
pub use reader::{align_up, Reader};
