#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod arity;
pub mod dynamic;
pub mod error;
pub mod int;
pub mod int_tuple;
pub mod layout;
pub mod text;

extern crate self as const_layout;

pub use error::LayoutError;
pub use int::C;
pub use int::consts::*;
pub use layout::{Layout, LayoutLeft, LayoutRight, make_layout, make_ordered_layout, make_static_layout};

/// The largest number of modes a tuple may have at one level.
pub const MAX_RANK: usize = 12;

/// A layout in CuTe notation.
///
/// `layout!(shape:stride)` or `layout!(shape)` (compact column-major). Integer literals are static
/// integers (`_8` is accepted too); an identifier or a `{ expr }` block is a runtime integer. A fully
/// static layout is returned directly; one with runtime integers is checked at run time and returned
/// as `Result<Layout, LayoutError>`. The scalar-stride rule applies: `(8,(4,2)):(1,8)` is
/// `(8,(4,2)):(1,(8,32))`.
///
/// ```
/// use const_layout::layout;
/// let l = layout!((8,(4,2)):(1,8));
/// assert_eq!(l.to_string(), "(_8,(_4,_2)):(_1,(_8,_32))");
/// let m = 6usize;
/// let r = layout!((m, 8):(1, m)).unwrap();
/// assert_eq!(r.to_string(), "(6,_8):(_1,6)");
/// ```
pub use const_layout_macros::layout;
