//! The typed CuTe layer of [const-layout](https://docs.rs/const-layout), which re-exports all of
//! it at its root, the paths the examples use: integers static or runtime ([`int`]), int tuples
//! whose structure is a type ([`int_tuple`]), layouts ([`layout`](mod@layout)), the layout algebra on them
//! ([`algebra`]), tensors ([`tensor`]), MMA and copy atoms ([`atom`]) and pictures ([`picture`]),
//! over the runtime-structured core ([const-layout-core](https://docs.rs/const-layout-core)),
//! whose modules it re-exports at the same paths.
//!
//! ```
//! use const_layout::layout;
//! let l = layout!((8,(4,2)):(1,8));
//! assert_eq!(l.crd2idx((3, (1, 1))), 3isize + 8 + 32);
//! ```
#![no_std]
// docs.rs (`--cfg docsrs`, nightly rustdoc) marks each feature-gated item with its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod algebra;
mod arity;
pub mod atom;
pub mod diagnostics;
pub mod fast_div;
pub mod guide;
pub mod int;
pub mod int_tuple;
pub mod layout;
pub mod picture;
#[cfg(feature = "proptest")]
#[cfg_attr(docsrs, doc(cfg(feature = "proptest")))]
pub mod strategy;
pub mod tensor;

// The runtime-structured core (a crate of its own, so that the `layout!` macro can run the same
// algebra at expansion time), at the same paths as the library's own modules.
/// serde for the runtime values, as CuTe's text (feature `serde`).
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub use const_layout_core::serde_text;
pub use const_layout_core::{coalescing, dyn_layout, error, eval, f2, swizzle, text};
// The F2 modules where they were before `f2` held them (the docs show them under `f2`).
#[doc(hidden)]
pub use const_layout_core::{bank, linear, synthesis};

#[cfg(feature = "alloc")]
extern crate alloc;
extern crate self as const_layout;

pub use error::LayoutError;
pub use fast_div::FastDivmod;
pub use int::C;
pub use int::consts::*;
pub use layout::{
    AnyLayout, Layout, LayoutLeft, LayoutRight, make_layout, make_ordered_layout, make_static_layout,
};
pub use tensor::{Tensor, TensorMut, make_tensor, make_tensor_mut};

/// The largest number of modes a tuple may have at one level.
pub const MAX_RANK: usize = 12;

/// A layout in CuTe notation: `layout!(shape:stride)`, or `layout!(shape)` for the compact
/// column-major layout.
///
/// Integer literals (and CuTe's `_8`) are static integers; an identifier or a `{ expr }` block is a
/// runtime integer. A fully static layout is returned directly (checked by the compiler); one with
/// runtime integers is checked at run time and returned as `Result<Layout, LayoutError>`. The
/// scalar-stride rule applies: `(8,(4,2)):(1,8)` is `(8,(4,2)):(1,(8,32))`. The macro only translates
/// the notation; the layout types compute everything.
///
/// ```
/// use const_layout::layout;
/// let l = layout!((8,(4,2)):(1,8));
/// assert_eq!(l.to_string(), "(_8,(_4,_2)):(_1,(_8,_32))");
/// let m = 6usize;
/// let r = layout!((m, 8):(1, m)).unwrap();
/// assert_eq!(r.to_string(), "(6,_8):(_1,6)");
/// let b = layout!(({m * 2}, 8)).unwrap();
/// assert_eq!(b.to_string(), "(12,_8):(_1,12)");
/// ```
///
/// Mistakes in the notation are errors on the offending tokens: a zero extent, a stride that does
/// not match the shape's nesting, a literal size or cosize beyond `isize`, a leaf that is not an
/// integer. See [`diagnostics`].
pub use const_layout_macros::layout;

/// The *type* of a layout in CuTe notation, for struct fields and generic arguments.
///
/// Literals are static integers; a runtime integer is written as its type (`usize`, `i32`, ...).
///
/// ```
/// use const_layout::{layout, layout_type};
/// struct Tile {
///     smem: layout_type!((8,(4,2)):(1,8)),
///     gmem: layout_type!((usize, 8):(1, usize)),
/// }
/// let t = Tile { smem: layout!((8,(4,2)):(1,8)), gmem: layout!(({100usize}, 8):(1, {100isize as usize})).unwrap() };
/// assert_eq!(t.smem.to_string(), "(_8,(_4,_2)):(_1,(_8,_32))");
/// assert_eq!(core::mem::size_of::<layout_type!((8,4))>(), 0);
/// ```
pub use const_layout_macros::layout_type;

/// A shape in CuTe notation, as a value: `shape!(8, (4, m))` is `(C::<8>, (C::<4>, m))`. Extents
/// written as literals must be positive.
///
/// ```
/// use const_layout::{int_tuple::IntTuple, shape};
/// let m = 3usize;
/// assert_eq!(shape!(8, (4, m)).display().to_string(), "(_8,(_4,3))");
/// assert_eq!(shape!(8).display().to_string(), "_8");
/// ```
pub use const_layout_macros::shape;

/// A stride in CuTe notation, as a value: `stride!(1, (8, -1))`.
///
/// ```
/// use const_layout::{int_tuple::IntTuple, stride};
/// assert_eq!(stride!(1, (8, -1)).display().to_string(), "(_1,(_8,_-1))");
/// ```
pub use const_layout_macros::stride;

/// A coordinate in CuTe notation, as a value: `coord!(1, (i, 2))`. Literals are static, so a static
/// coordinate into a static layout gives a static offset.
///
/// ```
/// use const_layout::{coord, layout, int::Int};
/// let l = layout!((4,(2,3)):(3,(1,8)));
/// let i = 1usize;
/// assert_eq!(l.crd2idx(coord!(1, (i, 2))), 20);
/// let s = l.crd2idx(coord!(1, (1, 2)));
/// assert_eq!((s.value(), core::mem::size_of_val(&s)), (20, 0));
/// ```
pub use const_layout_macros::coord;

/// A by-mode tiler in CuTe's notation, `<3:3, (2,4):(1,8)>`: a tuple of layouts, one per mode. A
/// plain shape `(2,4)` means `<2:1, 4:1>`. With runtime integers the tiler is a `Result`.
///
/// ```
/// use const_layout::tiler;
/// let (a, b) = tiler!(<3:3, (2,4):(1,8)>);
/// assert_eq!((a.to_string(), b.to_string()), ("_3:_3".to_string(), "(_2,_4):(_1,_8)".to_string()));
/// let (x, y) = tiler!((2, 4));
/// assert_eq!((x.to_string(), y.to_string()), ("_2:_1".to_string(), "_4:_1".to_string()));
/// ```
pub use const_layout_macros::tiler;

// Maintainer-side invariants, checked whenever the crate is compiled.
mod invariants {
    use crate::int::{Int, Runtime, Static};
    use crate::int_tuple::IntTuple;
    use crate::{C, Layout};
    use static_assertions::{assert_eq_size, assert_impl_all, assert_not_impl_any, assert_type_eq_all};

    type Card = Layout<(C<8>, (C<4>, C<2>)), (C<1>, (C<8>, C<32>))>;
    // A static layout is zero-sized; a runtime one holds just its runtime integers.
    assert_eq_size!(Card, ());
    assert_eq_size!(Layout<(C<8>, usize), (C<1>, isize)>, (usize, isize));
    // Tuples are never integers (the blanket impls over `Int` rely on it), and static-ness is typed.
    assert_not_impl_any!((usize, usize): Int);
    assert_not_impl_any!((): Int);
    assert_impl_all!(C<8>: Int, IntTuple);
    assert_type_eq_all!(<(C<8>, (C<4>, C<2>)) as IntTuple>::Kind, Static);
    assert_type_eq_all!(<(C<8>, usize) as IntTuple>::Kind, Runtime);
    // The size of a static shape is a static integer.
    assert_type_eq_all!(<<(C<8>, (C<4>, C<2>)) as IntTuple>::Size as Int>::Kind, Static);
}
