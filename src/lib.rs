#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod arity;
pub mod diagnostics;
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

// Maintainer-side invariants, checked whenever the crate is compiled.
mod invariants {
    use crate::int::{Dynamic, Int, Static};
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
    assert_type_eq_all!(<(C<8>, usize) as IntTuple>::Kind, Dynamic);
    // The size of a static shape is a static integer.
    assert_type_eq_all!(<<(C<8>, (C<4>, C<2>)) as IntTuple>::Size as Int>::Kind, Static);
}
