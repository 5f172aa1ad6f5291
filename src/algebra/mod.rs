//! CuTe's layout algebra on runtime-structured layouts ([`DynLayout`]): coalesce, composition,
//! complement, inverses, divides, products and the mode operations, with CuTe's names.
//!
//! Every function follows CuTe's algorithm step by step, with CuTe's rules for static-ness, so
//! a layout whose integers are all static gets CuTe's static result structure (the one CuTe prints),
//! and the `layout` tool can print exactly what CuTe prints. Where CuTe's answer would not be the
//! mathematical one (REFERENCE decision 2), these functions either compute the correct layout or
//! return [`LayoutError::Inadmissible`] naming the mode and the failed condition:
//!
//! ```
//! use const_layout::algebra::composition;
//! use const_layout::dynamic::DynLayout;
//! let a: DynLayout = "(_6,_2):(_1,_7)".parse().unwrap();
//! let b: DynLayout = "(_3,_2):(_2,_3)".parse().unwrap();
//! // CuTe returns (_3,_2):(_2,_3), whose value at index 5 is 7; a(b(5)) is 8.
//! let err = composition(&a, &b).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "composition: the right layout's modes overlap in mode 0 of the left layout (extent 6): \
//!      their offsets there reach 4 + 3 = 7"
//! );
//! ```
//!
//! Where CuTe refuses only for implementation reasons (a `complement` of a rank-2 layout with
//! runtime strides, a `left_inverse` with runtime strides), these functions answer by value.
//!
//! Results are plain [`DynLayout`]s: no heap, `no_std`.

mod admissible;
mod coalesce;
mod complement;
mod composition;
mod divide;
mod inverse;
mod leaves;
mod modes;
mod tiler;

pub use admissible::Inadmissible;
pub use coalesce::{
    coalesce, coalesce_profile, coalesce_shape, filter, filter_profile, filter_zeros, filter_zeros_profile,
};
pub use complement::{complement, complement_to};
pub use composition::{composition, composition_tiler};
pub use divide::{
    Partition, blocked_product, flat_divide, flat_product, local_partition, local_tile, logical_divide,
    logical_product, make_layout_tv, raked_product, tile_to_shape, tiled_divide, tiled_product,
    zipped_divide, zipped_product,
};
pub use inverse::{left_inverse, max_common_layout, max_common_vector, nullspace, right_inverse};
pub use modes::{
    append, append_to, downcast, group, make_layout_like, prepend, recast_layout, replace, select, take,
    upcast,
};
pub use tiler::{TileMode, Tiler};

use crate::dynamic::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

/// CuTe's `make_layout(l0, l1, ...)`: the layout whose modes are the given layouts.
///
/// ```
/// use const_layout::algebra::make_layout_of;
/// let a = "_4:_1".parse().unwrap();
/// let b = "(2,3):(4,8)".parse().unwrap();
/// assert_eq!(make_layout_of(&[a, b]).unwrap().to_string(), "(_4,(2,3)):(_1,(4,8))");
/// ```
pub fn make_layout_of(modes: &[DynLayout]) -> R<DynLayout> {
    let mut b = ModeBuilder::new()?;
    for m in modes {
        b.push(m)?;
    }
    b.finish()
}

/// A layout assembled mode by mode (CuTe's `make_layout(l0, l1, ...)` without an array of
/// layouts: each mode's shape and stride are appended in place).
pub(crate) struct ModeBuilder {
    shape: DynIntTuple,
    stride: DynIntTuple,
    n: usize,
}

impl ModeBuilder {
    pub(crate) fn new() -> R<Self> {
        let mut shape = DynIntTuple::builder();
        let mut stride = DynIntTuple::builder();
        shape.push_node(crate::dynamic::int_tuple::Node::Tuple(0))?;
        stride.push_node(crate::dynamic::int_tuple::Node::Tuple(0))?;
        Ok(ModeBuilder { shape, stride, n: 0 })
    }

    pub(crate) fn push(&mut self, mode: &DynLayout) -> R<()> {
        self.shape.push_tuple(mode.shape())?;
        self.stride.push_tuple(mode.stride())?;
        self.n += 1;
        Ok(())
    }

    pub(crate) fn finish(mut self) -> R<DynLayout> {
        let n = u8::try_from(self.n).map_err(|_| LayoutError::TooLarge)?;
        self.shape.set_root_arity(n);
        self.stride.set_root_arity(n);
        DynLayout::new(self.shape, self.stride)
    }
}

/// The layouts of the top-level modes (an integer layout is its own only mode).
pub(crate) fn modes_of(l: &DynLayout) -> impl Iterator<Item = DynLayout> + '_ {
    (0..l.rank()).filter_map(move |i| l.mode(i))
}

/// `a * b` that is an error, not a wrap, on overflow; static per CuTe's rules.
pub(crate) fn mul(a: DynInt, b: DynInt) -> R<DynInt> {
    a.value.checked_mul(b.value).ok_or(LayoutError::SizeOverflow)?;
    Ok(a.mul(b))
}

/// Whether `v` is CuTe's static integer `k` (`is_constant<k>`).
pub(crate) fn is_const(v: DynInt, k: isize) -> bool {
    v.is_static && v.value == k
}

/// CuTe's `min` of two integers: static only if both are.
pub(crate) fn min(a: DynInt, b: DynInt) -> DynInt {
    DynInt { value: a.value.min(b.value), is_static: a.is_static && b.is_static }
}

/// CuTe's `signum`.
pub(crate) fn signum(a: DynInt) -> DynInt {
    DynInt { value: a.value.signum(), is_static: a.is_static }
}

/// The scalar layout `s:d`.
pub(crate) fn scalar(s: DynInt, d: DynInt) -> R<DynLayout> {
    DynLayout::new(DynIntTuple::int(s), DynIntTuple::int(d))
}
