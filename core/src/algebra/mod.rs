//! CuTe's layout algebra on runtime-structured layouts ([`DynLayout`]): coalesce, composition,
//! complement, inverses, divides, products and the mode operations, with CuTe's names.
//!
//! Every function follows CuTe's algorithm step by step, with CuTe's rules for static-ness, so
//! a layout whose integers are all static gets CuTe's static result structure (the one CuTe prints),
//! and the `layout` tool can print exactly what CuTe prints. Where CuTe's answer would not be the
//! mathematical one (DECISIONS.md decision 2), these functions either compute the correct layout or
//! return [`LayoutError::Inadmissible`] naming the mode and the failed condition:
//!
//! ```
//! use const_layout::algebra::composition;
//! use const_layout::dyn_layout::DynLayout;
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
//! # Identity layouts
//!
//! [`make_identity_layout`] gives CuTe's basis strides (`(_4,_8):(_1@0,_1@1)`): the layout's
//! value at an index is a coordinate ([`DynLayout::apply`]), which is how CuTe kernels predicate
//! tiles that overhang the problem. Composition with an identity on the left, the divides,
//! [`local_tile`] / [`local_partition`] (whose [`LayoutPartition::origin`] is then a coordinate),
//! slicing, [`coalesce`] (modes merge only within one basis), [`filter`] and the mode operations
//! take them; complement, the inverses, the products, the casts and `make_layout_tv` refuse them
//! with [`LayoutError::BasisStride`], as CuTe does not compile those either. Unlike CuTe,
//! `filter` drops a zero basis stride `_0@1` (it is a zero stride, as a runtime `0` is here).
//!
//! Results are plain [`DynLayout`]s: no heap, `no_std`. Static expressions can also be evaluated
//! at compile time by `const_layout::layout!`, which gives a zero-sized layout.
//!
//! # FLIR
//!
//! AMD's FLIR dialect (FlyDSL, up to 2026-03) names the same operations but lowers several of them
//! differently; its successor `fly` follows CuTe, and so does this crate (DECISIONS.md decision 5).
//! Porting a FLIR expression, expect these differences:
//!
//! | operation | FLIR | here (CuTe, Fly) |
//! |---|---|---|
//! | `idx2crd` | row-major over the flattened shape: `idx2crd(43, (8,16))` is `(2,11)` | colexicographic: `(3,5)` |
//! | `cosize` | `max((s-1)*d) + 1`: `(8,16):(1,8)` gives 121 | `sum((s-1)*|d|) + 1`: 128 |
//! | `coalesce` | never merges: `(2,(1,6)):(1,(7,2))` stays `(2,1,6):(1,7,2)` | `12:1` |
//! | `composition` | folds over every leaf of `A` with `ceil_div`; `4:1 o 8:1` is `(4,2):(1,1)` | `A`'s last mode extends: `8:1` |
//! | `logical_product` | concatenation, tiler strides scaled by `size(block)`, no complement: `4:2 * 2:1` is `(4,2):(2,4)` | `(4,2):(2,1)` |
//! | `blocked_`, `raked_`, `zipped_`, `tiled_`, `flat_product` | all equal to FLIR's `logical_product` | distinct layouts |
//! | `zipped_`, `tiled_`, `flat_divide` | one result, by-mode only when tiler and input are nested | CuTe's nesting for each |
//! | `local_partition`, `local_tile` | `logical_divide`; the index / coordinate is ignored | the thread's or tile's slice |
//! | `rank`, `get` | on the flattened leaves | on the top-level modes |
//! | `complement` | flat result, size-1 modes dropped; same function on injective input | CuTe's coalesced result |
//!
//! FLIR's `swizzle_xor16(row, col, k)` (`col ^ ((row % k) * 16)`) is
//! [`swizzle_xor16`](crate::swizzle::swizzle_xor16); for `k = 2^B` and a row pitch of `16 * k` bytes
//! it is CuTe's `Swizzle<B,4,B>` on the byte offset.

mod coalesce;
mod complement;
mod composition;
mod divide;
#[doc(hidden)]
pub mod fit;
mod identity;
mod inverse;
mod inverse_search;
mod lattice;
#[doc(hidden)]
pub mod leaves;
mod methods;
mod modes;
pub mod rules;
#[cfg(test)]
mod shortcuts;
mod slice;
pub(crate) mod tiler;

pub use crate::error::Inadmissible;
pub use coalesce::{
    coalesce, coalesce_profile, coalesce_shape, filter, filter_profile, filter_zeros, filter_zeros_profile,
};
pub use complement::{complement, complement_to};
pub use composition::{BY_VALUE_LIMIT, composition, composition_tiler};
pub use divide::{
    LayoutPartition, blocked_product, flat_divide, flat_product, local_partition, local_tile, logical_divide,
    logical_product, make_layout_tv, raked_product, tile_to_shape, tiled_divide, tiled_product,
    zipped_divide, zipped_product,
};
#[doc(hidden)]
pub use divide::{
    rank_sensitive_parts, rank_sensitive_zip, tile_and_tiles, tile_and_tiles_of_threads,
    tile_and_tiles_of_zipped, unpack, zipped,
};
pub use identity::make_identity_layout;
pub use inverse::{left_inverse, max_common_layout, max_common_vector, nullspace, right_inverse};
pub use modes::{
    append, append_to, downcast, group, make_layout_like, prepend, recast_layout, replace, select, take,
    upcast,
};
pub use slice::{Slicer, slice, slice_and_offset};
pub use tiler::{TileMode, Tiler};

use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, ops};
use crate::error::{LayoutError, tri};

type R<T> = Result<T, LayoutError>;

/// CuTe's `make_layout(l0, l1, ...)`: the layout whose modes are the given layouts.
///
/// ```
/// use const_layout::algebra::make_layout_of;
/// let a = "_4:_1".parse().unwrap();
/// let b = "(2,3):(4,8)".parse().unwrap();
/// assert_eq!(make_layout_of(&[a, b]).unwrap().to_string(), "(_4,(2,3)):(_1,(4,8))");
/// ```
pub const fn make_layout_of(modes: &[DynLayout]) -> R<DynLayout> {
    let mut b = tri!(ModeBuilder::new());
    let mut k = 0;
    while k < modes.len() {
        tri!(b.push(&modes[k]));
        k += 1;
    }
    b.finish()
}

/// A layout assembled mode by mode (CuTe's `make_layout(l0, l1, ...)` without an array of
/// layouts: each mode's shape and stride are appended in place).
pub(crate) struct ModeBuilder {
    /// The layout being assembled, checked only by `finish` (in place).
    layout: DynLayout,
    n: usize,
    /// Its size and cosize so far, from the modes' own (each pushed layout is checked) and the
    /// leaves of pushed mode lists, by the one rule `ops::Sizes`, with the first error of a leaf
    /// and whether a stride is a basis element (then `finish` checks the whole layout instead).
    sizes: ops::Sizes,
}

impl ModeBuilder {
    pub(crate) const fn new() -> R<Self> {
        Ok(ModeBuilder { layout: DynLayout::assembly(), n: 0, sizes: ops::Sizes::new() })
    }

    pub(crate) const fn push(&mut self, mode: &DynLayout) -> R<()> {
        let (shape, stride) = self.layout.parts_mut();
        tri!(shape.push_tuple(mode.shape()));
        tri!(stride.push_tuple(mode.stride()));
        self.sizes.add_layout(mode.size(), mode.cosize(), mode.has_basis());
        self.n += 1;
        Ok(())
    }

    /// Append a mode given as its flat mode list (a scalar mode if `unwrap` and one mode), as
    /// [`ModeBuilder::push`] appends that list's layout, without building it.
    pub(crate) const fn push_modes<const N: usize>(
        &mut self,
        modes: &leaves::Leaves<N>,
        unwrap: bool,
    ) -> R<()> {
        let (s, d) = modes.values();
        self.push_leaves(s, d, unwrap)
    }

    /// [`ModeBuilder::push_modes`] of the modes `s[k]:d[k]`.
    pub(crate) const fn push_leaves(&mut self, s: &[DynInt], d: &[DynInt], unwrap: bool) -> R<()> {
        use crate::dyn_layout::int_tuple::Node;
        let n = s.len();
        let (shape, stride) = self.layout.parts_mut();
        if !(unwrap && n == 1) {
            tri!(shape.push_node(Node::Tuple(n as u8)));
            tri!(stride.push_node(Node::Tuple(n as u8)));
        }
        let mut k = 0;
        while k < n {
            tri!(shape.push_node(Node::Int(s[k])));
            tri!(stride.push_node(Node::Int(d[k])));
            self.sizes.add_later(s[k], d[k]);
            k += 1;
        }
        self.n += 1;
        Ok(())
    }

    pub(crate) const fn finish(mut self) -> R<DynLayout> {
        if self.n > u8::MAX as usize {
            return Err(LayoutError::TooLarge);
        }
        let (shape, stride) = self.layout.parts_mut();
        shape.set_root_arity(self.n as u8);
        stride.set_root_arity(self.n as u8);
        if self.sizes.has_basis() {
            tri!(self.layout.check_assembled());
        } else {
            let (size, cosize) = tri!(self.sizes.finish());
            self.layout.set_sizes(size, cosize);
        }
        Ok(self.layout)
    }
}

/// Mode `i` of `l` (an integer layout is its own only mode); `Err` if out of range.
pub(crate) const fn mode_of(l: &DynLayout, i: usize) -> R<DynLayout> {
    match l.mode(i) {
        Some(m) => Ok(m),
        None => Err(LayoutError::TooLarge),
    }
}

/// The layouts of the top-level modes (an integer layout is its own only mode).
pub(crate) fn modes_of(l: &DynLayout) -> impl Iterator<Item = DynLayout> + '_ {
    (0..l.rank()).filter_map(move |i| l.mode(i))
}

/// `a * b` that is an error, not a wrap, on overflow (for the other modules of the crate).
pub(crate) const fn mul_checked(a: DynInt, b: DynInt) -> R<DynInt> {
    mul(a, b)
}

/// `a * b` that is an error, not a wrap, on overflow; static per CuTe's rules.
pub(crate) const fn mul(a: DynInt, b: DynInt) -> R<DynInt> {
    if a.value.checked_mul(b.value).is_none() {
        return Err(LayoutError::SizeOverflow);
    }
    Ok(a.mul(b))
}

/// Whether `v` is CuTe's static integer `k` (`is_constant<k>`).
pub(crate) const fn is_const(v: DynInt, k: isize) -> bool {
    v.is_static && v.value == k
}

/// CuTe's `min` of two integers: static only if both are.
pub(crate) const fn min(a: DynInt, b: DynInt) -> DynInt {
    let value = if a.value < b.value { a.value } else { b.value };
    DynInt { value, is_static: a.is_static && b.is_static, basis: a.basis }
}

/// CuTe's `signum`.
pub(crate) const fn signum(a: DynInt) -> DynInt {
    DynInt::new(a.value.signum(), a.is_static)
}

/// The scalar layout `s:d`.
pub(crate) const fn scalar(s: DynInt, d: DynInt) -> R<DynLayout> {
    DynLayout::new(DynIntTuple::int(s), DynIntTuple::int(d))
}
