//! The runtime-structured core of [const-layout](https://docs.rs/const-layout): int tuples and
//! layouts whose structure is data ([`dyn_layout`]), CuTe's notation as text ([`text`]), CuTe's layout
//! algebra on them ([`algebra`]), swizzles and composed layouts ([`swizzle`]), the expression
//! evaluator of the `layout` tool ([`eval`]), the work over F2 ([`f2`]: linear layouts, shared-memory
//! bank conflicts and swizzle synthesis), global-memory coalescing ([`coalescing`]), and their
//! errors ([`error`]).
//!
//! Everything here is `no_std` and uses no heap; all but the simulations over any layout
//! (`bank::simulate`, `coalescing`, generic over a trait) is written as `const fn`, so the same code runs
//! at run time, in constants (the library's generic static path), and inside the `layout!` macro
//! at expansion time. Use it through `const_layout`, which re-exports every module at the same
//! path; the examples below are written that way.
//!
//! The modules are layered, each using only the ones before it:
//! `error` < `dyn_layout` < `text` < `algebra` < `swizzle` < `f2` (`linear` < `bank` < `synthesis`) <
//! `coalescing` < `eval`.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod algebra;
pub mod coalescing;
pub mod dyn_layout;
pub mod error;
pub mod eval;
pub mod f2;
pub mod swizzle;
pub mod text;

// The F2 modules at the top level too, where they were before `f2` held them (hidden from the
// docs, which show each once, under `f2`).
#[doc(hidden)]
pub use f2::{bank, linear, synthesis};

#[cfg(feature = "serde")]
pub mod serde_text;

pub use error::LayoutError;

/// The most nodes (integers plus tuples) one [`DynIntTuple`](dyn_layout::DynIntTuple) holds.
/// `(8,(4,2))` has 5. (At the root, below every module: errors name it too.)
pub const MAX_NODES: usize = 64;

/// The most bytes the nodes of one [`DynIntTuple`](dyn_layout::DynIntTuple) take in its compact
/// encoding: a tuple, or an integer from -4 to 19, takes one byte; a larger integer one more byte
/// per 8 bits (`127` two, `32767` three, `i64::MAX` nine); a basis path (`@0@1`) one more per index
/// plus one. `(8,(4,2))` takes 5 bytes, `((64,32),(4096,1))` 8.
pub const MAX_BYTES: usize = 126;
