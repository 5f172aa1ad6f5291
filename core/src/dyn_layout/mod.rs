//! Int tuples and layouts whose *structure* is known only at run time: parsed text, the `layout`
//! tool, test vectors.
//!
//! [`DynIntTuple`] holds an int tuple of any shape in 128 bytes, with no heap, so it works in
//! `no_std` code: its nodes (integers and tuples, at most [`MAX_NODES`]) in preorder, in a compact
//! encoding of at most [`MAX_BYTES`] bytes where a tuple or a small integer takes one byte and a
//! larger integer one more per byte of its value. Values are copied by value throughout the
//! algebra, so their size is what its speed mostly depends on (DECISIONS.md 12). Every integer remembers whether
//! it is static, and the arithmetic here follows CuTe's rules for static-ness exactly (for example
//! `x * _0` is `_0` and `x % _1` is `_0`), so results print as CuTe prints them.
//!
//! ```
//! use const_layout::dyn_layout::{DynIntTuple, DynLayout};
//! let t: DynIntTuple = "(_8,(4,_2))".parse().unwrap();
//! assert_eq!((t.rank(), t.depth()), (2, 2));
//! assert_eq!(t.size().unwrap().to_string(), "64");
//! let l: DynLayout = "(8,(4,2)):(1,8)".parse().unwrap();
//! assert_eq!(l.to_string(), "(8,(4,2)):(1,(8,32))");
//! ```

#[doc(hidden)]
pub mod basis;

#[doc(hidden)]
pub mod int_tuple;
mod layout;
#[doc(hidden)]
pub mod ops;

pub use basis::{Basis, MAX_BASIS_DEPTH};

pub use int_tuple::{DynInt, DynIntTuple, MAX_BYTES, MAX_NODES};
pub use layout::{DynLayout, PrintLayout};
#[doc(hidden)]
pub use layout::{num_digits, write_offset_table};
