//! The divides (`logical_divide` and its zipped, tiled and flat forms), the products
//! (`logical_product`, zipped, tiled, flat, `blocked_product`, `raked_product`) and
//! `tile_to_shape`.

use super::coalesce::{bw_coalesce_into, checked_modes};
use super::complement::complement_to;
use super::composition::composition;
use super::leaves::{Leaves, SMALL};
use super::modes::append_to;
use super::tiler::{TileMode, TileModes, Tiler};
use super::{ModeBuilder, R, is_const, make_layout_of, mode_of, modes_of, mul, rules, scalar};
use crate::dyn_layout::basis::add_values;
use crate::dyn_layout::ops::{self, Division};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

/// What [`by_mode`] applies at the leaves of a tiler (a `const fn` cannot call a function pointer).
#[derive(Clone, Copy)]
enum LeafOp {
    Divide,
    Product,
}

impl LeafOp {
    const fn name(self) -> &'static str {
        match self {
            LeafOp::Divide => "logical_divide",
            LeafOp::Product => "logical_product",
        }
    }

    const fn apply(self, layout: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
        match self {
            LeafOp::Divide => divide_layouts(layout, tiler),
            LeafOp::Product => product_layouts(layout, tiler),
        }
    }
}

/// `op` of `layout` with `tiler`: a layout tiler applies to the whole layout, a by-mode tiler
/// mode by mode (the modes past it are kept).
const fn by_mode(layout: &DynLayout, tiler: &Tiler, op: LeafOp) -> R<DynLayout> {
    match tiler {
        Tiler::Layout(t) => op.apply(layout, t),
        Tiler::Modes(items) => {
            let n = items.len();
            if n > layout.rank() {
                return Err(LayoutError::ModeOutOfRange { op: op.name(), index: n - 1, rank: layout.rank() });
            }
            let mut out = tri!(ModeBuilder::new());
            let mut i = 0;
            while i < layout.rank() {
                let m = tri!(mode_of(layout, i));
                // A layout item applies as it is (no `Tiler` around a copy of it).
                match &items.get(i) {
                    TileMode::Keep => tri!(out.push(&m)),
                    // The one-mode divide goes into the result as its two modes, never a layout.
                    TileMode::Layout(t)
                        if matches!(op, LeafOp::Divide)
                            && let Some((shape, stride)) = divided_leaf(&m, t) =>
                    {
                        // Checked first, as building its layout would check it.
                        tri!(ops::Sizes::of(&shape, &stride));
                        tri!(out.push_leaves(&shape, &stride, false))
                    }
                    TileMode::Layout(t) => tri!(out.push(&tri!(op.apply(&m, t)))),
                    item => match tri!(item.as_tiler()) {
                        Some(t) => tri!(out.push(&tri!(by_mode(&m, &t, op)))),
                        None => tri!(out.push(&m)),
                    },
                }
                i += 1;
            }
            out.finish()
        }
    }
}

const fn divide_layouts(layout: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
    if let Some(r) = divide_leaf(layout, tiler) {
        return r;
    }
    divide_general(layout, tiler)
}

/// The common case of a divide, by the rule the typed tiling applies too
/// ([`rules::divide_mode`]): one integer mode `s:d` by a tile of `t` consecutive elements
/// (`t:_1`) is `(t, ceil(s/t)):(d, t*d)`, which is what the general path's complement and
/// composition come to, static flags included (CuTe's rules for products and quotients).
/// `None` where the general path is needed or gives another form (a tile or a rest of one
/// element, which it coalesces away; a zero or basis stride; an error).
pub(crate) const fn divide_leaf(layout: &DynLayout, tiler: &DynLayout) -> Option<R<DynLayout>> {
    match divided_leaf(layout, tiler) {
        Some((shape, stride)) => Some(DynLayout::flat(&shape, &stride, 2)),
        None => None,
    }
}

/// [`divide_leaf`]'s answer as its two modes (not yet checked as a layout).
const fn divided_leaf(layout: &DynLayout, tiler: &DynLayout) -> Option<([DynInt; 2], [DynInt; 2])> {
    let (Some(s), Some(d), Some(t), Some(one)) =
        (layout.shape().as_int(), layout.stride().as_int(), tiler.shape().as_int(), tiler.stride().as_int())
    else {
        return None;
    };
    if !is_const(one, 1) || one.has_basis() || d.has_basis() || d.value == 0 || t.value < 2 {
        return None;
    }
    let Ok((rest, step)) = rules::divide_mode(s.value, d.value, t.value, 0) else { return None };
    if rest < 2 {
        return None;
    }
    let shape = [t, DynInt::new(rest, s.is_static && t.is_static)];
    let stride = [d, DynInt::new(step, d.is_static && t.is_static)];
    Some((shape, stride))
}

/// [`divide_layouts`] by its definition: `composition(layout, (tiler, complement(tiler,
/// shape(coalesce(layout)))))`.
pub(crate) const fn divide_general(layout: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
    // On small working lists first (see `Leaves`): the same code, so the same answer.
    let target = match coalesced_shape::<SMALL>(layout) {
        Err(LayoutError::TooLarge) => tri!(coalesced_shape::<MAX_NODES>(layout)),
        r => tri!(r),
    };
    let rest = tri!(complement_to(tiler, &target));
    // Assembled in place: an array of the two layouts would copy both.
    let mut both = tri!(ModeBuilder::new());
    tri!(both.push(tiler));
    tri!(both.push(&rest));
    composition(layout, &tri!(both.finish()))
}

const fn product_layouts(block: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
    let reach = tiler.cosize();
    let target = tri!(mul(block.size(), reach));
    let mut rest = tri!(complement_to(block, &DynIntTuple::int(target)));
    if rest.size().value < reach.value {
        rest = tri!(covering_complement(block, target, reach.value));
    }
    make_layout_of(&[*block, tri!(composition(&rest, tiler))])
}

/// The complement of a block with holes that holds every offset the tiler reaches: that of the
/// least cotarget past `target` whose complement has `reach` elements.
///
/// CuTe's cotarget `size(block) * cosize(tiler)` is covered by `reach` elements of the complement
/// only where `(block, complement)` has no holes. Elsewhere CuTe's composition reads the
/// complement past its end, where its last mode goes on, which depends on how the complement is
/// written, not on its function: a rest of one element is coalesced away where it is static
/// (`_1:_0`, whose reading past the end repeats the block in place) and kept where it is not
/// (`1:156`), and the mode that goes on instead of a coalesced rest can land on the block
/// (`logical_product((_2,(_2,_1),_4):(_1,(_8,_144),_24), _5:_1)` reaches 8 twice in CuTe).
/// Within its first `reach` elements the complement's values do not depend on the cotarget (only
/// its rest grows), so the product is `(block, R o tiler)` with `R` read inside its domain: CuTe's
/// answer wherever CuTe's reading past the end is its rest going on, and injective whenever the
/// block and the tiler are. The complement's size grows with the cotarget, and a cotarget of
/// `2 * cosize(block) * reach` is enough (the rest's stride is at most twice the block's cosize),
/// so the least one is found by bisection.
const fn covering_complement(block: &DynLayout, target: DynInt, reach: isize) -> R<DynLayout> {
    let Some(hi) = block.cosize().value.checked_mul(reach) else {
        return Err(LayoutError::CosizeOverflow);
    };
    let Some(mut hi) = hi.checked_mul(2) else {
        return Err(LayoutError::CosizeOverflow);
    };
    let mut lo = target.value; // its complement is short
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let c = tri!(complement_to(block, &DynIntTuple::int(DynInt::new(mid, target.is_static))));
        if c.size().value >= reach {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    complement_to(block, &DynIntTuple::int(DynInt::new(hi, target.is_static)))
}

/// The shape of `coalesce(layout)`, checked as that layout, without building it.
const fn coalesced_shape<const N: usize>(layout: &DynLayout) -> R<DynIntTuple> {
    let mut modes = Leaves::<N>::new();
    let unwrap = tri!(bw_coalesce_into(&tri!(Leaves::<N>::try_of(layout)), false, &mut modes));
    tri!(checked_modes(&modes, unwrap));
    modes.shape_tuple(unwrap)
}

/// CuTe's `logical_divide(layout, tiler)`: `composition(layout, (tiler, complement(tiler,
/// shape(coalesce(layout)))))`, by mode for a by-mode tiler. Mode 0 of each divided mode is the
/// tile, mode 1 the tiles' arrangement. Any tile of non-negative strides has a
/// [complement](super::complement_to); the divide exists where the composition has a layout. A
/// tile whose modes do not nest leaves its holes out: the tiles below cover 0..17 but 8 and 9.
///
/// ```
/// use const_layout::algebra::logical_divide;
/// let a = "(_4,_2,_3):(_2,_1,_8)".parse().unwrap();
/// let t = "_4:_2".parse().unwrap();
/// assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
/// let t = "(_4,_2):(_1,_10)".parse().unwrap();
/// assert_eq!(logical_divide(&"_18:_1".parse().unwrap(), &t).unwrap().to_string(), "((_4,_2),_2):((_1,_10),_4)");
/// ```
pub const fn logical_divide(layout: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    by_mode(layout, tiler, LeafOp::Divide)
}

/// CuTe's `logical_product(block, tiler)`: `(block, composition(complement(block,
/// size(block)*cosize(tiler)), tiler))`, by mode for a by-mode tiler. Any block of non-negative
/// strides has a [complement](super::complement_to), whose modes need not nest. Where the block
/// has holes, `(block, complement)` covers that cotarget with fewer than `cosize(tiler)` elements
/// of the complement, and CuTe's composition reads the complement past its end; here its rest
/// grows until it holds them (the least cotarget that does), so the complement is read inside
/// its domain and the product is injective whenever the block and the tiler are. That is CuTe's
/// answer wherever CuTe's reading past the end is its rest going on; where CuTe's rest of one
/// static element was coalesced away, CuTe's is another function, which can overlap the block or
/// repeat it in place, and here the product is that of the grown complement, or an error where
/// that has no layout (`logical_product((_2,(_2,_1),_4):(_1,(_8,_144),_24), _5:_1)`, whose
/// CuTe answer reaches 8 twice).
///
/// ```
/// use const_layout::algebra::logical_product;
/// let a = "(_2,_2):(_4,_1)".parse().unwrap();
/// let t = "_6:_1".parse().unwrap();
/// assert_eq!(logical_product(&a, &t).unwrap().to_string(), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
/// let a = "((_4,_6)):((_1,_6))".parse().unwrap(); // strides 1 and 6 do not nest
/// let t = "(_3):(_1)".parse().unwrap();
/// assert_eq!(logical_product(&a, &t).unwrap().to_string(), "(((_4,_6)),(_3)):(((_1,_6)),(_36))");
/// ```
pub const fn logical_product(block: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    by_mode(block, tiler, LeafOp::Product)
}

/// CuTe's `tile_unzip` (`zip2_by`): gather the first and second modes of the rank-2 modes at the
/// terminals of the tiler into `((tiles...), (rests..., other modes...))`.
const fn unzip(layout: &DynLayout, guide: Option<&TileModes>) -> R<DynLayout> {
    let Some(items) = guide else {
        if layout.rank() != 2 || layout.shape().is_int() {
            return Err(LayoutError::RankMismatch { what: "divided mode", got: layout.rank(), expected: 2 });
        }
        return Ok(*layout);
    };
    let n = items.len();
    let mut firsts = tri!(ModeBuilder::new());
    let mut seconds = tri!(ModeBuilder::new());
    let mut i = 0;
    while i < layout.rank() {
        let m = tri!(mode_of(layout, i));
        if i < n {
            let sub = match tri!(items.get(i).as_tiler()) {
                Some(Tiler::Modes(inner)) => tri!(unzip(&m, Some(&inner))),
                _ => tri!(unzip(&m, None)),
            };
            tri!(firsts.push(&tri!(mode_of(&sub, 0))));
            tri!(seconds.push(&tri!(mode_of(&sub, 1))));
        } else {
            tri!(seconds.push(&m));
        }
        i += 1;
    }
    make_layout_of(&[tri!(firsts.finish()), tri!(seconds.finish())])
}

/// CuTe's `tile_unzip(layout, tiler)`: a logical divide's or product's result by `tiler`,
/// `((tile, rest), ...)` by mode, as `((tile...), (rest...))`: the zipped form from the logical
/// one. Not part of the API: what the static path derives the zipped forms from, so that the
/// logical result of one pair of operands is computed once.
#[doc(hidden)]
pub const fn zipped(result: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    match tiler {
        Tiler::Layout(_) => unzip(result, None),
        Tiler::Modes(items) => unzip(result, Some(items)),
    }
}

/// Unpack the modes of the rank-2 `layout`'s first and/or second mode (where it has more than
/// one) into the top level: CuTe's `result(_, repeat<R1>(_))` and friends, the tiled and flat
/// forms from the zipped one. Not part of the API (see [`zipped`]).
#[doc(hidden)]
pub const fn unpack(layout: &DynLayout, first: bool, second: bool) -> R<DynLayout> {
    let mut out = tri!(ModeBuilder::new());
    let mut i = 0;
    while i < layout.rank() {
        let m = tri!(mode_of(layout, i));
        let open = (i == 0 && first) || (i == 1 && second);
        if open && !m.shape().is_int() && m.rank() > 1 {
            let mut j = 0;
            while j < m.rank() {
                tri!(out.push(&tri!(mode_of(&m, j))));
                j += 1;
            }
        } else {
            tri!(out.push(&m));
        }
        i += 1;
    }
    out.finish()
}

/// CuTe's `zipped_divide(layout, tiler)`: `((tile...), (rest...))`.
///
/// ```
/// use const_layout::algebra::{Tiler, zipped_divide};
/// let a = "(_8,_6):(_1,_8)".parse().unwrap();
/// let t: Tiler = "<_4:_1, _3:_1>".parse().unwrap();
/// assert_eq!(zipped_divide(&a, &t).unwrap().to_string(), "((_4,_3),(_2,_2)):((_1,_8),(_4,_24))");
/// ```
pub const fn zipped_divide(layout: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    zipped(&tri!(logical_divide(layout, tiler)), tiler)
}

/// CuTe's `tiled_divide(layout, tiler)`: `((tile...), rest0, rest1, ...)`.
///
/// ```
/// use const_layout::algebra::{Tiler, tiled_divide};
/// let a = "(_8,_6):(_1,_8)".parse().unwrap();
/// let t: Tiler = "<_4:_1, _3:_1>".parse().unwrap();
/// assert_eq!(tiled_divide(&a, &t).unwrap().to_string(), "((_4,_3),_2,_2):((_1,_8),_4,_24)");
/// ```
pub const fn tiled_divide(layout: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    unpack(&tri!(zipped_divide(layout, tiler)), false, true)
}

/// CuTe's `flat_divide(layout, tiler)`: `(tile0, tile1, ..., rest0, rest1, ...)`.
///
/// ```
/// use const_layout::algebra::{Tiler, flat_divide};
/// let a = "(_8,_6):(_1,_8)".parse().unwrap();
/// let t: Tiler = "<_4:_1, _3:_1>".parse().unwrap();
/// assert_eq!(flat_divide(&a, &t).unwrap().to_string(), "(_4,_3,_2,_2):(_1,_8,_4,_24)");
/// ```
pub const fn flat_divide(layout: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    unpack(&tri!(zipped_divide(layout, tiler)), true, true)
}

/// CuTe's `zipped_product(block, tiler)`: `((block...), (repeats...))`.
///
/// ```
/// use const_layout::algebra::{Tiler, zipped_product};
/// let a = "(_2,_2):(_1,_2)".parse().unwrap();
/// let t: Tiler = "<_3, _2>".parse().unwrap();
/// assert_eq!(zipped_product(&a, &t).unwrap().to_string(), "((_2,_2),(_3,_2)):((_1,_2),(_2,_1))");
/// ```
pub const fn zipped_product(block: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    zipped(&tri!(logical_product(block, tiler)), tiler)
}

/// CuTe's `tiled_product(block, tiler)`: `((block...), repeat0, repeat1, ...)`.
///
/// ```
/// use const_layout::algebra::{Tiler, tiled_product};
/// let a = "(_2,_2):(_1,_2)".parse().unwrap();
/// let t: Tiler = "<_3, _2>".parse().unwrap();
/// assert_eq!(tiled_product(&a, &t).unwrap().to_string(), "((_2,_2),_3,_2):((_1,_2),_2,_1)");
/// ```
pub const fn tiled_product(block: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    unpack(&tri!(zipped_product(block, tiler)), false, true)
}

/// CuTe's `flat_product(block, tiler)`: `(block0, block1, ..., repeat0, repeat1, ...)`.
///
/// ```
/// use const_layout::algebra::{Tiler, flat_product};
/// let a = "(_2,_2):(_1,_2)".parse().unwrap();
/// let t: Tiler = "<_3, _2>".parse().unwrap();
/// assert_eq!(flat_product(&a, &t).unwrap().to_string(), "(_2,_2,_3,_2):(_1,_2,_2,_1)");
/// ```
pub const fn flat_product(block: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    unpack(&tri!(zipped_product(block, tiler)), true, true)
}

/// CuTe's `zip(a, b)` of the two halves of a rank-`rank` product: `((a0,b0), (a1,b1), ...)`.
/// CuTe pairs a scalar `a` with the whole of `b` (`((a,b))`), and otherwise needs two tuples of
/// equal rank; at rank 1 it does not compile when a one-mode tuple meets a scalar
/// (`blocked_product((_5):(_1), _6:_1)`, "Mismatched Ranks"). There the one mode of the result is
/// still `(a's mode, b's mode)`: a scalar is its own only mode (CuTe's `get<0>` of an integer),
/// and a half of several modes (a composition with a scalar tiler that split) stays whole.
const fn zip(a: &DynLayout, b: &DynLayout, rank: usize) -> R<DynLayout> {
    if a.shape().is_int() {
        return make_layout_of(&[tri!(make_layout_of(&[*a, *b]))]);
    }
    if rank == 1 {
        let pair = [tri!(only_mode(a)), tri!(only_mode(b))];
        return make_layout_of(&[tri!(make_layout_of(&pair))]);
    }
    if b.shape().is_int() || a.rank() != b.rank() {
        return Err(LayoutError::RankMismatch { what: "zipped layout", got: b.rank(), expected: a.rank() });
    }
    let mut out = tri!(ModeBuilder::new());
    let mut i = 0;
    while i < a.rank() {
        tri!(out.push(&tri!(make_layout_of(&[tri!(mode_of(a, i)), tri!(mode_of(b, i))]))));
        i += 1;
    }
    out.finish()
}

/// The single mode of a one-mode tuple; any other layout as it is.
const fn only_mode(l: &DynLayout) -> R<DynLayout> {
    if !l.shape().is_int() && l.rank() == 1 { mode_of(l, 0) } else { Ok(*l) }
}

const fn rank_sensitive(block: &DynLayout, tiler: &DynLayout, raked: bool) -> R<DynLayout> {
    rank_sensitive_zip(&tri!(rank_sensitive_parts(block, tiler)), raked)
}

/// What [`blocked_product`] and [`raked_product`] share: the block and the repeats of the product
/// of the two operands appended to the larger rank, and that rank. Not part of the API: the
/// static path computes it once for both.
#[doc(hidden)]
pub const fn rank_sensitive_parts(block: &DynLayout, tiler: &DynLayout) -> R<(DynLayout, DynLayout, usize)> {
    let r = if block.rank() > tiler.rank() { block.rank() } else { tiler.rank() };
    let result = tri!(product_layouts(&tri!(append_to(block, r)), &tri!(append_to(tiler, r))));
    Ok((tri!(mode_of(&result, 0)), tri!(mode_of(&result, 1)), r))
}

/// [`blocked_product`] (`raked` false) or [`raked_product`] from [`rank_sensitive_parts`].
#[doc(hidden)]
pub const fn rank_sensitive_zip(parts: &(DynLayout, DynLayout, usize), raked: bool) -> R<DynLayout> {
    let (a, c, r) = parts;
    if raked { zip(c, a, *r) } else { zip(a, c, *r) }
}

/// CuTe's `blocked_product(block, tiler)`: the block repeated over the tiler, each mode
/// `(block mode, tiler mode)`; rank `max(rank(block), rank(tiler))`.
///
/// ```
/// use const_layout::algebra::blocked_product;
/// let a = "(_2,_5):(_5,_1)".parse().unwrap();
/// let t = "(_3,_4):(_1,_3)".parse().unwrap();
/// assert_eq!(blocked_product(&a, &t).unwrap().to_string(), "((_2,_3),(_5,_4)):((_5,_10),(_1,_30))");
/// ```
pub const fn blocked_product(block: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
    rank_sensitive(block, tiler, false)
}

/// CuTe's `raked_product(block, tiler)`: like [`blocked_product`] with the block's elements
/// interleaved, each mode `(tiler mode, block mode)`.
///
/// ```
/// use const_layout::algebra::raked_product;
/// let a = "(_2,_5):(_5,_1)".parse().unwrap();
/// let t = "(_3,_4):(_1,_3)".parse().unwrap();
/// assert_eq!(raked_product(&a, &t).unwrap().to_string(), "((_3,_2),(_4,_5)):((_10,_5),(_30,_1))");
/// ```
pub const fn raked_product(block: &DynLayout, tiler: &DynLayout) -> R<DynLayout> {
    rank_sensitive(block, tiler, true)
}

/// CuTe's `tile_to_shape(block, target, order)`: the block repeated (in the mode order `order`,
/// column-major if `None`) until it has the target shape. The block's mode sizes must divide a
/// static target's; a runtime target is rounded up to whole blocks, as in CuTe.
///
/// ```
/// use const_layout::algebra::tile_to_shape;
/// let a = "(_2,_3):(_3,_1)".parse().unwrap();
/// let t = "(_4,_6)".parse().unwrap();
/// assert_eq!(tile_to_shape(&a, &t, None).unwrap().to_string(), "((_2,_2),(_3,_2)):((_3,_6),(_1,_12))");
/// ```
pub const fn tile_to_shape(
    block: &DynLayout,
    target: &DynIntTuple,
    order: Option<&DynIntTuple>,
) -> R<DynLayout> {
    let r = if target.is_int() { 1 } else { target.rank() };
    if block.rank() > r {
        return Err(LayoutError::RankMismatch { what: "block", got: block.rank(), expected: r });
    }
    let padded = tri!(append_to(block, r));
    let block_shape = tri!(ops::product_each(padded.shape()));
    let target_shape = tri!(ops::product_each(target));
    // As in CuTe, a static target must be a multiple of the block; a runtime one is covered by
    // rounding up (the result is then larger than the target).
    if target_shape.is_static() {
        let mut k = 0;
        while k < target_shape.rank() {
            let (Some(t), Some(b)) = (target_shape.leaf_at(&[k]), block_shape.leaf_at(&[k])) else {
                return Err(LayoutError::TooLarge);
            };
            if t.value % b.value != 0 {
                return Err(LayoutError::Inadmissible {
                    op: "tile_to_shape",
                    why: Inadmissible::TileDivisibility { mode: k, target: t.value, block: b.value },
                });
            }
            k += 1;
        }
    }
    let product_shape = tri!(ops::divide(&target_shape, &block_shape, Division::Ceil));
    let arrangement = match order {
        Some(o) => tri!(DynLayout::ordered(product_shape, o)),
        None => tri!(DynLayout::compact(product_shape, true)),
    };
    blocked_product(&padded, &arrangement)
}

/// The result of slicing a layout: the sub-layout of the kept modes, and the offset of the fixed
/// coordinates (what a CuTe tensor keeps as its new pointer).
///
/// ```
/// use const_layout::algebra::slice_and_offset;
/// let p = slice_and_offset(&"(1,_)".parse().unwrap(), &"(_4,_8):(_8,_1)".parse().unwrap()).unwrap();
/// assert_eq!((p.layout.to_string(), p.offset), ("(_8):(_1)".to_string(), 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutPartition {
    /// The sub-layout.
    pub layout: DynLayout,
    /// The offset of its origin (0 for basis strides: see `origin`).
    pub offset: isize,
    /// For a layout with basis strides (an identity layout), the coordinate of the origin
    /// (CuTe's `ArithmeticTuple` offset); `None` for integer strides.
    pub origin: Option<DynIntTuple>,
    /// Whether CuTe would know the offset at compile time (it prints `_28`, not `28`).
    static_offset: bool,
}

impl LayoutPartition {
    /// From the layout and the value at the fixed coordinates (an offset or a coordinate).
    #[doc(hidden)]
    pub fn new(layout: DynLayout, value: DynIntTuple) -> Self {
        match value.as_int() {
            Some(v) if !value.has_basis() && !layout.has_basis() => {
                LayoutPartition { layout, offset: v.value, origin: None, static_offset: v.is_static }
            }
            _ => LayoutPartition { layout, offset: 0, origin: Some(value), static_offset: false },
        }
    }

    /// The origin as CuTe prints it: the offset, or the coordinate for basis strides.
    pub fn origin_value(&self) -> DynIntTuple {
        self.origin.unwrap_or(DynIntTuple::int(DynInt::new(self.offset, self.static_offset)))
    }

    /// The value at index `i` of the sub-layout, origin included: an offset, or a coordinate for
    /// basis strides.
    ///
    /// ```
    /// use const_layout::algebra::{Tiler, local_tile, make_identity_layout};
    /// let id = make_identity_layout(&"(12,16)".parse().unwrap()).unwrap();
    /// let t: Tiler = "<_4:_1, _8:_1>".parse().unwrap();
    /// let p = local_tile(&id, &t, &"(1,1)".parse().unwrap()).unwrap();
    /// assert_eq!(p.at(5).unwrap().to_string(), "(5,9)");
    /// ```
    pub fn at(&self, i: isize) -> R<DynIntTuple> {
        add_values(&self.origin_value(), &self.layout.apply(&DynIntTuple::int(DynInt::new_runtime(i)))?)
    }
}

/// Keep the modes of `m` (one level unpacked if it has more than one), as CuTe's
/// `repeat<R>(_)` slice does.
const fn keep_all(m: &DynLayout, out: &mut ModeBuilder) -> R<()> {
    if !m.shape().is_int() && m.rank() > 1 {
        let mut i = 0;
        while i < m.rank() {
            tri!(out.push(&tri!(mode_of(m, i))));
            i += 1;
        }
        Ok(())
    } else {
        out.push(m)
    }
}

/// `zipped_divide(layout, tiler)` as `local_tile` reads it: the tile (its modes unpacked one
/// level) and the tiles' arrangement, whose value at a tile's coordinate is the tile's offset.
#[doc(hidden)]
pub const fn tile_and_tiles(layout: &DynLayout, tiler: &Tiler) -> R<(DynLayout, DynLayout)> {
    tile_and_tiles_of_zipped(&tri!(zipped_divide(layout, tiler)))
}

/// [`tile_and_tiles`] from the zipped divide `z`.
#[doc(hidden)]
pub const fn tile_and_tiles_of_zipped(z: &DynLayout) -> R<(DynLayout, DynLayout)> {
    let z = *z;
    let mut tile = tri!(ModeBuilder::new());
    tri!(keep_all(&tri!(mode_of(&z, 0)), &mut tile));
    Ok((tri!(tile.finish()), tri!(mode_of(&z, 1))))
}

/// `zipped_divide(layout, product_each(shape(threads)))` as `local_partition` reads it: one tile
/// (the threads' coordinates) and the tiles' arrangement (one thread's elements, its modes
/// unpacked one level).
#[doc(hidden)]
pub const fn tile_and_tiles_of_threads(layout: &DynLayout, threads: &DynLayout) -> R<(DynLayout, DynLayout)> {
    let tiler = tri!(Tiler::from_shape(&tri!(ops::product_each(threads.shape()))));
    let z = tri!(zipped_divide(layout, &tiler));
    let mut rests = tri!(ModeBuilder::new());
    tri!(keep_all(&tri!(mode_of(&z, 1)), &mut rests));
    Ok((tri!(mode_of(&z, 0)), tri!(rests.finish())))
}

/// Fix `coord` in `m` (an integer: a 1-D index into the whole mode; a tuple: one coordinate per
/// leading mode, the modes after it kept) and return the offset.
fn fix(m: &DynLayout, coord: &DynIntTuple, out: &mut ModeBuilder) -> R<DynIntTuple> {
    if coord.is_int() {
        return m.apply(coord);
    }
    let k = coord.rank();
    let r = if m.shape().is_int() { 1 } else { m.rank() };
    if k > r {
        return Err(LayoutError::RankMismatch { what: "coordinate", got: k, expected: r });
    }
    let mut offset = DynIntTuple::int(DynInt::new_static(0));
    for (j, sub) in modes_of(m).enumerate() {
        match coord.mode(j) {
            Some(c) if j < k => offset = add_values(&offset, &sub.apply(&c)?)?,
            _ => out.push(&sub)?,
        }
    }
    Ok(offset)
}

/// CuTe's `local_tile(tensor, tiler, coord)` as a layout function: the tile at `coord` of
/// `zipped_divide(layout, tiler)` (CuTe's `inner_partition`).
///
/// ```
/// use const_layout::algebra::{Tiler, local_tile};
/// let gmem = "(_8,_6):(_1,_8)".parse().unwrap();
/// let t: Tiler = "<_4:_1, _3:_1>".parse().unwrap();
/// let p = local_tile(&gmem, &t, &"(_1,_1)".parse().unwrap()).unwrap();
/// assert_eq!((p.layout.to_string(), p.offset), ("(_4,_3):(_1,_8)".to_string(), 28));
/// ```
pub fn local_tile(layout: &DynLayout, tiler: &Tiler, coord: &DynIntTuple) -> R<LayoutPartition> {
    let z = match zipped_divide(layout, tiler) {
        Ok(z) => z,
        Err(e @ LayoutError::Inadmissible { .. }) => {
            return one_tile(layout, tiler, coord, Side::Tile).map_err(|_| e);
        }
        Err(e) => return Err(e),
    };
    let (m0, m1) = (z.mode(0).ok_or(LayoutError::TooLarge)?, z.mode(1).ok_or(LayoutError::TooLarge)?);
    let mut out = ModeBuilder::new()?;
    keep_all(&m0, &mut out)?;
    let offset = fix(&m1, coord, &mut out)?;
    with_origin(LayoutPartition::new(out.finish()?, offset), layout, tiler, coord, Side::Tile)
}

/// Which half of `zipped_divide(layout, tiler)` a partition keeps: the tile (`local_tile`, the
/// tiles' coordinate fixed) or the rests (`local_partition`, the coordinate in the tile fixed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Tile,
    Rest,
}

/// One tile (or one thread's elements) when the whole `zipped_divide(layout, tiler)` has no
/// layout: CuTe still answers, and is right whenever the part asked for is a layout. Per mode `m`
/// of a by-mode tiler the part is `x -> A_m(X(x) + c)` (`X` the kept half, `c` the fixed half's
/// offset), which is `composition(A_m, (X, 2:c))` at second coordinate 1 when that composition
/// exists; otherwise there is no layout and the caller reports the divide's error.
fn one_tile(layout: &DynLayout, tiler: &Tiler, coord: &DynIntTuple, side: Side) -> R<LayoutPartition> {
    let index = fixed_index(layout, tiler, coord, side)?;
    let mut parts = ModeBuilder::new()?;
    let given = if coord.is_int() { usize::MAX } else { coord.rank() };
    for_each_mode(layout, tiler, |m, a, t| {
        match t {
            // A mode past the tiler belongs to the rests whole, and so is kept by a tile when the
            // coordinate stops before it.
            None if side == Side::Rest || m >= given => parts.push(&a)?,
            Some(_) if side == Side::Tile && m >= given => {
                return Err(LayoutError::RankMismatch { what: "coordinate", got: given, expected: m + 1 });
            }
            None => {}
            Some((t, rest)) => {
                let c = if index.is_int() { index } else { index.mode(m).ok_or(LayoutError::TooLarge)? };
                parts.push(&shifted_part(&a, if side == Side::Tile { &t } else { &rest }, c)?)?;
            }
        }
        Ok(())
    })?;
    let mut out = ModeBuilder::new()?;
    keep_all(&parts.finish()?, &mut out)?;
    Ok(LayoutPartition::new(out.finish()?, layout.apply(&index)?))
}

/// Call `f(m, mode m of layout, Some((tile, complement)) or None past the tiler)` for every mode
/// of `layout` (the whole layout as one mode for a layout tiler).
fn for_each_mode(
    layout: &DynLayout,
    tiler: &Tiler,
    mut f: impl FnMut(usize, DynLayout, Option<(DynLayout, DynLayout)>) -> R<()>,
) -> R<()> {
    let halves = |a: &DynLayout, t: DynLayout| -> R<(DynLayout, DynLayout)> {
        let rest = complement_to(&t, super::coalesce(a)?.shape())?;
        Ok((t, rest))
    };
    match tiler {
        Tiler::Layout(t) => f(0, *layout, Some(halves(layout, *t)?)),
        Tiler::Modes(items) => {
            let r = if layout.shape().is_int() { 1 } else { layout.rank() };
            for m in 0..r {
                let a = layout.mode(m).ok_or(LayoutError::TooLarge)?;
                match items.get(m).as_tiler()? {
                    Some(Tiler::Layout(t)) if m < items.len() => f(m, a, Some(halves(&a, t)?))?,
                    Some(Tiler::Modes(_)) if m < items.len() => {
                        return Err(LayoutError::NotCongruent { what: "nested tiler" });
                    }
                    _ => f(m, a, None)?,
                }
            }
            Ok(())
        }
    }
}

/// The point of `layout`'s domain (one index per mode, or one index for a layout tiler) that a
/// tile (`local_tile`, `coord` the tile's coordinate) or a thread's elements (`local_partition`,
/// `coord` the thread's coordinate in the tile) start at: the fixed half of each mode's
/// `(tile, complement)` at its coordinate, a mode past the tiler at `coord`'s (tile) or at 0. An
/// integer `coord` for several modes is split over them colexicographically (the last takes the
/// rest), as CuTe splits it.
fn fixed_index(layout: &DynLayout, tiler: &Tiler, coord: &DynIntTuple, side: Side) -> R<DynIntTuple> {
    let mut rest = coord.as_int();
    let r = match tiler {
        Tiler::Layout(_) => 1,
        Tiler::Modes(_) if layout.shape().is_int() => 1,
        Tiler::Modes(_) => layout.rank(),
    };
    let mut index = DynIntTuple::builder();
    index.push_node(crate::dyn_layout::int_tuple::Node::Tuple(r as u8))?;
    for_each_mode(layout, tiler, |m, a, halves| {
        let fixed = match (halves, side) {
            (Some((_, rest)), Side::Tile) => Some(rest),
            (Some((t, _)), Side::Rest) => Some(t),
            (None, _) => None,
        };
        let c = match rest {
            // A tuple coordinate may stop early: the modes after it are kept, at 0.
            None if m >= coord.rank() && m > 0 => DynIntTuple::int(DynInt::new_static(0)),
            None => coord.mode(m).ok_or(LayoutError::RankMismatch {
                what: "coordinate",
                got: coord.rank(),
                expected: r,
            })?,
            Some(i) if m + 1 == r => DynIntTuple::int(i),
            Some(i) => {
                let s = fixed.as_ref().map_or(a.size(), DynLayout::size);
                rest = Some(i.div(s));
                DynIntTuple::int(i.rem(s))
            }
        };
        let at = match (fixed, side) {
            (Some(f), _) => DynIntTuple::int(f.crd2idx(&c)?),
            (None, Side::Tile) => c,
            (None, Side::Rest) => DynIntTuple::int(DynInt::new_static(0)),
        };
        index.push_tuple(&at)
    })?;
    if r == 1 && (layout.shape().is_int() || matches!(tiler, Tiler::Layout(_))) {
        return index.mode(0).ok_or(LayoutError::TooLarge);
    }
    Ok(index)
}

/// Mode `a` read through the kept half `X` shifted by the fixed half's index `c`: the layout
/// `x -> a(X(x) + c) - a(c)`, if there is one.
fn shifted_part(a: &DynLayout, kept: &DynLayout, c: DynIntTuple) -> R<DynLayout> {
    let c = c.as_int().ok_or(LayoutError::NotCongruent { what: "coordinate" })?;
    if c.value == 0 {
        return composition(a, kept);
    }
    let both = composition(a, &make_layout_of(&[*kept, scalar(DynInt::new_static(2), c)?])?)?;
    both.mode(0).ok_or(LayoutError::TooLarge)
}

/// For basis strides, the origin as CuTe has it: `layout` at the fixed point of its domain, so it
/// has a component for every basis of the layout, `_0` where the fixed coordinates do not move it.
fn with_origin(
    p: LayoutPartition,
    layout: &DynLayout,
    tiler: &Tiler,
    coord: &DynIntTuple,
    side: Side,
) -> R<LayoutPartition> {
    if !layout.has_basis() {
        return Ok(p);
    }
    Ok(LayoutPartition::new(p.layout, layout.apply(&fixed_index(layout, tiler, coord, side)?)?))
}

/// CuTe's `local_partition(tensor, tile, index)` as a layout function: the elements that thread
/// `index` of the thread layout `tile` owns, one per tile of `zipped_divide(layout,
/// product_each(shape(tile)))` (CuTe's `outer_partition` at `tile.get_flat_coord(index)`).
///
/// ```
/// use const_layout::algebra::local_partition;
/// let smem = "(_8,_6):(_1,_8)".parse().unwrap();
/// let threads = "(_4,_3):(_3,_1)".parse().unwrap();
/// let p = local_partition(&smem, &threads, const_layout::dyn_layout::DynInt::new_runtime(5)).unwrap();
/// assert_eq!((p.layout.to_string(), p.offset), ("(_2,_2):(_4,_24)".to_string(), 17));
/// ```
pub fn local_partition(layout: &DynLayout, tile: &DynLayout, index: DynInt) -> R<LayoutPartition> {
    let tiler = Tiler::from_shape(&ops::product_each(tile.shape())?)?;
    let coord = tile.get_flat_coord(index)?;
    let z = match zipped_divide(layout, &tiler) {
        Ok(z) => z,
        Err(e @ LayoutError::Inadmissible { .. }) => {
            return one_tile(layout, &tiler, &coord, Side::Rest).map_err(|_| e);
        }
        Err(e) => return Err(e),
    };
    let (m0, m1) = (z.mode(0).ok_or(LayoutError::TooLarge)?, z.mode(1).ok_or(LayoutError::TooLarge)?);
    let mut out = ModeBuilder::new()?;
    let offset = fix(&m0, &coord, &mut out)?;
    keep_all(&m1, &mut out)?;
    with_origin(LayoutPartition::new(out.finish()?, offset), layout, &tiler, &coord, Side::Rest)
}

/// CuTe's `make_layout_tv(thr_layout, val_layout)` (CuTe DSL; in C++ the first lines of
/// `make_tiled_copy`): the `(M,N)` tile covered by threads laid out as `thr` each holding values
/// laid out as `val`, and the layout from `(thread, value)` to the tile's coordinates as an index:
/// `layout_mn = raked_product(thr, val)`, `layout_tv = composition(right_inverse(layout_mn),
/// make_layout((size(thr), size(val))))`, `tiler = product_each(shape(layout_mn))`.
///
/// ```
/// use const_layout::algebra::make_layout_tv;
/// let thr = "(_4,_2):(_2,_1)".parse().unwrap();
/// let val = "(_2,_2):(_1,_2)".parse().unwrap();
/// let (tiler, tv) = make_layout_tv(&thr, &val).unwrap();
/// assert_eq!(tiler.to_string(), "(_8,_4)");
/// assert_eq!(tv.to_string(), "((_2,_4),(_2,_2)):((_16,_2),(_1,_8))");
/// ```
pub const fn make_layout_tv(thr: &DynLayout, val: &DynLayout) -> R<(DynIntTuple, DynLayout)> {
    tri!(super::identity::integer_strides("make_layout_tv", &[thr, val]));
    let layout_mn = tri!(raked_product(thr, val));
    let shape = tri!(DynIntTuple::tuple(&[DynIntTuple::int(thr.size()), DynIntTuple::int(val.size())]));
    let tv =
        tri!(composition(&tri!(super::right_inverse(&layout_mn)), &tri!(DynLayout::compact(shape, true))));
    Ok((tri!(ops::product_each(layout_mn.shape())), tv))
}
