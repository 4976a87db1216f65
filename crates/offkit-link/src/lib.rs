//! # offkit-link
//!
//! The linker wrapper pipeline: scan inputs → extract device images → group by target →
//! device link (as tool invocations) → wrap → host link.
//!
//! Not landed yet (issue 5).
#![deny(missing_docs)]
