//! [`AnyLayout`]: CuTe's Layout concept, one trait over every kind of layout the crate has.
//!
//! | kind | what it is | coordinates the trait takes |
//! |---|---|---|
//! | [`Layout<S, D>`](crate::Layout) | typed shape and stride, static or runtime integers | any coordinate [`Layout::crd2idx`](crate::Layout::crd2idx) takes |
//! | [`Computed<E>`](crate::algebra::computed::Computed) | a static result of the generic algebra | any int tuple the shape accepts (a wrong one does not compile) |
//! | [`crate::layout::SwizzledLayout`] | `Sw<B,M,S> o _O o Layout<S, D>` | the inner layout's |
//! | [`crate::algebra::computed::StaticSwizzled`] | `Sw<B,M,S> o _0 o Computed<E>` | the inner layout's |
//! | [`DynLayout`] | runtime structure | integer indices |
//! | [`ComposedLayout`] | runtime structure, swizzle or layout after a layout | integer indices |
//!
//! Generic code (tensors, pictures) takes `L: AnyLayout`, and each kind keeps its own inherent
//! methods: `Layout::crd2idx` still returns a static integer where the offset is static, and the
//! trait's methods, which return plain `isize`/`usize`, inline to the same folded code.
//!
//! # Errors
//!
//! The trait's index math is infallible. Every implementor was checked when it was built (a
//! `Layout` by `make_layout`, a `DynLayout` by `DynLayout::new`, a static one by the compiler),
//! and the trait only takes coordinates whose structure cannot mismatch the layout's: for the typed
//! kinds the compiler checks the coordinate's structure against the shape, and the
//! runtime-structured kinds take integer indices, which fit any shape. A coordinate whose
//! structure is itself data goes through the kind's own `crd2idx(&DynIntTuple)`, which returns a
//! `Result`. What remains fallible is a value outside the shape ([`AnyLayout::checked_crd2idx`])
//! and, for [`AnyLayout::offset_range`], a layout whose values are not offsets (basis strides).
//!
//! ```
//! use const_layout::dyn_layout::DynLayout;
//! use const_layout::algebra::computed::{swizzle, zipped_divide};
//! use const_layout::{AnyLayout, C, layout, layout_type};
//!
//! // One generic function, four kinds of layout.
//! fn last<L: AnyLayout>(l: &L) -> (String, isize) {
//!     (l.to_string(), l.offset(l.size() - 1))
//! }
//! assert_eq!(last(&layout!((8,4):(4,1))), ("(_8,_4):(_4,_1)".to_string(), 31));
//! let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
//! assert_eq!(last(&tiles), ("((_4,_3),(_2,_2)):((_1,_8),(_4,_24))".to_string(), 47));
//! let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
//! assert_eq!(last(&smem), ("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)".to_string(), 511 ^ 0b111_000));
//! let d: DynLayout = "(4,2):(2,1)".parse().unwrap();
//! assert_eq!(last(&d), ("(4,2):(2,1)".to_string(), 7));
//! ```

use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::{
    Crd2Idx, FlatPairs, InShape, Layout, LayoutShape, OffsetOut, OffsetSwizzled, SwizzledLayout,
};
pub use crate::swizzle::DynAnyLayout;
use crate::swizzle::{ComposedLayout, Outer, Swizzle, ToDynAnyLayout};
use core::fmt;

/// CuTe's Layout concept: a function from coordinates (or 1-D indices) to offsets, with a shape
/// that gives its size and rank. Implemented by every layout kind of the crate (see the
/// [module](self)); tensors and pictures take any implementor.
///
/// `Display` prints CuTe's notation: `(_8,_4):(_1,_8)`, and `Sw<3,3,3> o _0 o (_8,_64):(_64,_1)`
/// for a swizzled layout.
///
/// ```
/// use const_layout::{AnyLayout, layout};
/// fn describe<L: AnyLayout>(l: &L) -> String {
///     format!("{l}: rank {}, size {}, cosize {}, L(5) = {}", l.rank(), l.size(), l.cosize(), l.offset(5))
/// }
/// assert_eq!(describe(&layout!((4,2):(2,1))), "(_4,_2):(_2,_1): rank 2, size 8, cosize 8, L(5) = 3");
/// let sw = layout!(composition(Sw<1,0,1>, (2,2):(1,2)));
/// assert_eq!(describe(&sw), "Sw<1,0,1> o _0 o (_2,_2):(_1,_2): rank 2, size 4, cosize 4, L(5) = 5");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout",
    label = "expected a layout here",
    note = "layouts are `Layout<S, D>`, static algebra results (`Computed<E>`), swizzled layouts (`SwizzledLayout`, `StaticSwizzled`, `OffsetSwizzled`), `DynLayout`, `ComposedLayout` and `DynAnyLayout`"
)]
pub trait AnyLayout: Copy + fmt::Display {
    /// Whether every integer is known at compile time: then [`AnyLayout::offset_range`] is a
    /// constant and a tensor's bounds checks fold away.
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout, make_layout, LayoutLeft};
    /// fn is_static<L: AnyLayout>(_: &L) -> bool { L::IS_STATIC }
    /// assert!(is_static(&layout!((8,64):(64,1))));
    /// assert!(!is_static(&make_layout((8usize, 64usize), LayoutLeft).unwrap()));
    /// ```
    const IS_STATIC: bool;

    /// CuTe's `rank`: the number of top-level modes.
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::rank(&layout!((8,(4,2)):(1,8))), 2);
    /// ```
    fn rank(&self) -> usize;

    /// CuTe's `size`: the number of coordinates.
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::size(&layout!((8,(4,2)):(1,8))), 64);
    /// ```
    fn size(&self) -> usize;

    /// CuTe's `cosize`. For a plain layout `sum((s - 1) * |d|) + 1`, the number of elements from
    /// its smallest offset to its largest; for a swizzled or composed layout one past the largest
    /// offset it reaches (computed once, by visiting every index; a constant for a static one).
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::cosize(&layout!((4,2):(0,3))), 4);
    /// // Sw<1,0,1> moves offset 2 to 3: 2:2 reaches 0 and 3.
    /// assert_eq!(AnyLayout::cosize(&layout!(composition(Sw<1,0,1>, 2:2))), 4);
    /// ```
    fn cosize(&self) -> usize;

    /// CuTe's `L(i)`: the offset of 1-D index `index` (colexicographic). Outside `0..size` the
    /// result is CuTe's extension of the function (the last mode goes on).
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::offset(&layout!((4,2):(2,1)), 5), 3);
    /// ```
    fn offset(&self, index: usize) -> isize;

    /// The smallest and the largest offset of an index in `0..size`: the storage a tensor over
    /// this layout needs (`largest - smallest + 1` elements, the smallest at its start). A
    /// constant for a static layout; a plain layout's is a closed form, and a swizzled or
    /// composed layout with runtime integers visits every index (`size` steps, once per tensor).
    /// `Err` for a layout whose values are coordinates rather than offsets (basis strides, as in
    /// an identity layout).
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(layout!((4,2):(-1,4)).offset_range(), Ok((-3, 4)));
    /// ```
    fn offset_range(&self) -> Result<(isize, isize), LayoutError>;

    /// CuTe's `idx2crd(index, shape)`: the natural (colexicographic) coordinate of a 1-D index, as
    /// a runtime-structured int tuple that prints as CuTe prints it (the typed kinds have their
    /// own, typed, `idx2crd`). `Err` only where the coordinate does not fit a
    /// [`DynIntTuple`] (more than [`MAX_NODES`](crate::dyn_layout::MAX_NODES) nodes).
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::idx2crd(&layout!((4,(2,3))), 13).unwrap().to_string(), "(1,(1,1))");
    /// ```
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError>;

    /// The layout with runtime structure ([`DynLayout`], or [`ComposedLayout`] for a swizzled or
    /// composed one), which prints the same: what pictures and the bridges work on. `Err` where a
    /// typed layout does not fit a [`DynIntTuple`].
    ///
    /// ```
    /// use const_layout::layout::DynAnyLayout;
    /// use const_layout::{AnyLayout, layout};
    /// let d = layout!(composition(Sw<1,0,1>, (2,2):(1,2))).to_dyn().unwrap();
    /// assert!(matches!(d, DynAnyLayout::Composed(_)));
    /// assert_eq!(d.to_string(), "Sw<1,0,1> o _0 o (_2,_2):(_1,_2)");
    /// ```
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError>;

    /// CuTe's `crd2idx(coord, layout)` / `L(coord)` for the coordinates this kind takes through
    /// the trait (see [`LayoutCoord`]): the offset as a plain `isize`. Outside the shape the
    /// result is CuTe's extension of the function; see [`AnyLayout::checked_crd2idx`].
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// fn at<L: AnyLayout, Crd: const_layout::layout::LayoutCoord<L>>(l: &L, c: Crd) -> isize {
    ///     l.crd2idx(c)
    /// }
    /// assert_eq!(at(&layout!((4,(2,3)):(3,(1,8))), (1usize, (1usize, 1usize))), 12);
    /// ```
    #[inline(always)]
    fn crd2idx<Crd: LayoutCoord<Self>>(&self, coord: Crd) -> isize {
        coord.offset_in(self)
    }

    /// [`AnyLayout::crd2idx`] for a coordinate inside the shape, else the error naming the
    /// integer that is outside ([`LayoutError::CoordinateOutOfRange`], or
    /// [`LayoutError::IndexOutOfRange`] for a 1-D index).
    ///
    /// ```
    /// use const_layout::{AnyLayout, LayoutError, layout};
    /// let l = layout!((4,2):(2,1));
    /// assert_eq!(AnyLayout::checked_crd2idx(&l, (3usize, 1usize)), Ok(7));
    /// assert_eq!(AnyLayout::checked_crd2idx(&l, 8usize), Err(LayoutError::IndexOutOfRange { index: 8, size: 8 }));
    /// ```
    #[inline(always)]
    fn checked_crd2idx<Crd: LayoutCoord<Self>>(&self, coord: Crd) -> Result<isize, LayoutError> {
        coord.checked_offset_in(self)
    }

    /// The offsets `L(0), ..., L(size - 1)`.
    ///
    /// ```
    /// use const_layout::{AnyLayout, layout};
    /// assert_eq!(AnyLayout::offsets(&layout!((2,3):(3,1))).collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
    /// ```
    #[inline]
    fn offsets(&self) -> AnyOffsets<Self> {
        AnyOffsets { layout: *self, front: 0, back: self.size() }
    }

    /// The shape's structure where the type fixes it (the typed kinds; runtime integers are
    /// zeros), so that two shapes' compatibility is planned at compile time. Not part of the API:
    /// what [`crate::tensor::copy`] reads.
    #[doc(hidden)]
    const FORM: Option<DynIntTuple> = None;

    /// A static plain layout's integers, as a constant. Not part of the API.
    #[doc(hidden)]
    const STATIC_FLAT: Option<Flat> = None;

    /// The layout's integers, flattened (the inner layout's for a swizzled one), or `None` past
    /// [`FLAT_CAP`] integers, for basis strides or a composed layout. Not part of the API.
    #[doc(hidden)]
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        None
    }
}

/// The most integers a [`Flat`] holds.
#[doc(hidden)]
pub const FLAT_CAP: usize = 32;

/// A layout's integers, flattened in colexicographic order: what a copy is planned from. Not
/// part of the API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Flat {
    /// The number of integers.
    pub len: usize,
    /// Whether the offsets are `sum(c_k * stride_k)` (no swizzle after the layout).
    pub plain: bool,
    /// The extents.
    pub extent: [isize; FLAT_CAP],
    /// The strides.
    pub stride: [isize; FLAT_CAP],
}

impl Flat {
    /// No integers yet.
    const fn empty(plain: bool) -> Flat {
        Flat { len: 0, plain, extent: [1; FLAT_CAP], stride: [0; FLAT_CAP] }
    }

    /// The integers of a typed layout's values.
    #[inline(always)]
    fn of_typed<S: IntTuple + LayoutShape<D>, D: IntTuple>(l: &Layout<S, D>, plain: bool) -> Option<Flat> {
        if S::LEAVES > FLAT_CAP {
            return None;
        }
        let mut f = Flat::empty(plain);
        l.shape().store_values(&mut f.extent, 0);
        l.stride().store_values(&mut f.stride, 0);
        f.len = S::LEAVES;
        Some(f)
    }

    /// The integers of a runtime-structured layout (`None` for basis strides or past the
    /// capacity): shape and stride walked in preorder together.
    pub const fn of_dyn(l: &DynLayout, plain: bool) -> Option<Flat> {
        if l.has_basis() {
            return None;
        }
        let mut f = Flat::empty(plain);
        let (mut a, mut b) = (0, 0);
        loop {
            // Scalar strides against tuple modes are expanded when a `DynLayout` is built, so
            // both trees have the same integers in the same order.
            let (x, y) = (l.shape().read(a), l.stride().read(b));
            let ((sx, na), (sy, nb)) = match (x, y) {
                (Some(x), Some(y)) => (x, y),
                _ => break,
            };
            (a, b) = (na, nb);
            match (sx, sy) {
                (Node::Int(e), Node::Int(d)) => {
                    if f.len == FLAT_CAP {
                        return None;
                    }
                    f.extent[f.len] = e.value;
                    f.stride[f.len] = d.value;
                    f.len += 1;
                }
                (Node::Tuple(_), Node::Tuple(_)) => {}
                _ => return None,
            }
        }
        Some(f)
    }

    /// The integers of a static typed layout's flat pairs (`None` if one is runtime).
    const fn of_pairs(p: &FlatPairs) -> Option<Flat> {
        if p.len > FLAT_CAP {
            return None;
        }
        let mut f = Flat::empty(true);
        while f.len < p.len {
            match (p.shape[f.len], p.stride[f.len]) {
                (Some(e), Some(d)) => (f.extent[f.len], f.stride[f.len]) = (e, d),
                _ => return None,
            }
            f.len += 1;
        }
        Some(f)
    }
}

/// A coordinate `Self` that layout kind `L` takes through [`AnyLayout::crd2idx`]: for the typed
/// kinds every coordinate their own `crd2idx` takes (its structure checked by the compiler), for
/// the runtime-structured kinds ([`DynLayout`], [`ComposedLayout`], [`DynAnyLayout`]) integer indices.
///
/// ```
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::layout::LayoutCoord;
/// let l: DynLayout = "(4,2):(2,1)".parse().unwrap();
/// assert_eq!(5usize.offset_in(&l), 3);
/// assert!(8usize.checked_offset_in(&l).is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a coordinate of the layout `{L}`",
    label = "expected a coordinate this layout takes",
    note = "typed layouts take coordinates shaped like their shape (or an integer index); `DynLayout`, `ComposedLayout` and `DynAnyLayout` take integer indices through `AnyLayout` (use their own `crd2idx(&DynIntTuple)` for structured coordinates)"
)]
pub trait LayoutCoord<L: ?Sized> {
    /// The offset of this coordinate (CuTe's extension outside the shape).
    ///
    /// ```
    /// use const_layout::layout::LayoutCoord;
    /// assert_eq!((1usize, 2usize).offset_in(&const_layout::layout!((4,3):(3,1))), 5);
    /// ```
    fn offset_in(&self, layout: &L) -> isize;
    /// The offset of this coordinate if it is inside the shape, else the error naming the
    /// integer outside it.
    ///
    /// ```
    /// use const_layout::layout::LayoutCoord;
    /// let l = const_layout::layout!((4,3):(3,1));
    /// assert_eq!((1usize, 2usize).checked_offset_in(&l), Ok(5));
    /// assert!((1usize, 3usize).checked_offset_in(&l).is_err());
    /// ```
    fn checked_offset_in(&self, layout: &L) -> Result<isize, LayoutError>;
}

/// The offsets of any layout in index order; made by [`AnyLayout::offsets`].
///
/// ```
/// use const_layout::{AnyLayout, layout};
/// let mut it = AnyLayout::offsets(&layout!((2,2):(2,1)));
/// assert_eq!(it.len(), 4);
/// assert_eq!(it.next_back(), Some(3));
/// assert_eq!(it.collect::<Vec<_>>(), [0, 2, 1]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AnyOffsets<L> {
    layout: L,
    front: usize,
    back: usize,
}

impl<L: AnyLayout> Iterator for AnyOffsets<L> {
    type Item = isize;
    #[inline]
    fn next(&mut self) -> Option<isize> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        Some(self.layout.offset(self.front - 1))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<L: AnyLayout> DoubleEndedIterator for AnyOffsets<L> {
    #[inline]
    fn next_back(&mut self) -> Option<isize> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        Some(self.layout.offset(self.back))
    }
}

impl<L: AnyLayout> ExactSizeIterator for AnyOffsets<L> {}
impl<L: AnyLayout> core::iter::FusedIterator for AnyOffsets<L> {}

// ---------------------------------------------------------------------------------------------
// Shared pieces.

/// The offset range of a plain layout from its span and the offset of its last index: the
/// last index has coordinate `s - 1` in every integer, so its offset is `sum((s - 1) * d)`, and
/// the negative strides' part of the span is half the difference.
#[inline(always)]
const fn plain_range(span: isize, last: isize) -> (isize, isize) {
    // `span - last` lies in `0..=2 * span`, which fits `usize` even where it overflows `isize`.
    let neg = ((span as usize).wrapping_sub(last as usize) / 2) as isize;
    (neg.wrapping_neg(), span.wrapping_sub(neg))
}

/// The offset range of a checked [`DynLayout`] (integer strides).
pub(crate) const fn dyn_range(l: &DynLayout) -> Result<(isize, isize), LayoutError> {
    if l.has_basis() {
        return Err(LayoutError::BasisStride { op: "offset" });
    }
    Ok(plain_range(l.cosize().value - 1, l.offset(l.size().value - 1)))
}

/// The smallest and largest value of `sw(offset + L(i))` over the indices of `l`, by an
/// odometer over its flattened integers (adds only). `const` so that a static swizzled layout's
/// range is a constant; its cost is one step per element (a 128x64 tile: 8192 steps).
pub(crate) const fn swizzled_range(
    l: &DynLayout,
    sw: Swizzle,
    offset: isize,
) -> Result<(isize, isize), LayoutError> {
    if l.has_basis() {
        return Err(LayoutError::BasisStride { op: "offset" });
    }
    let (shape, stride) = match (l.shape().flatten(), l.stride().flatten()) {
        (Ok(s), Ok(d)) => (s, d),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let n = shape.rank();
    let mut ext = [1isize; crate::dyn_layout::MAX_NODES];
    let mut step = [0isize; crate::dyn_layout::MAX_NODES];
    let mut k = 0;
    while k < n {
        // A flat tuple's modes are integers (an integer shape is its own mode 0).
        if let (Some(s), Some(d)) = (shape.mode(k), stride.mode(k))
            && let (Some(s), Some(d)) = (s.as_int(), d.as_int())
        {
            ext[k] = s.value;
            step[k] = d.value;
        }
        k += 1;
    }
    let mut count = [0isize; crate::dyn_layout::MAX_NODES];
    let mut x = offset;
    let (mut lo, mut hi) = (isize::MAX, isize::MIN);
    loop {
        let v = sw.apply(x);
        if v < lo {
            lo = v;
        }
        if v > hi {
            hi = v;
        }
        // Next index: the first integer that has not wrapped moves on.
        let mut k = 0;
        loop {
            if k == n {
                return Ok((lo, hi));
            }
            count[k] += 1;
            x = x.wrapping_add(step[k]);
            if count[k] < ext[k] {
                break;
            }
            x = x.wrapping_sub(ext[k].wrapping_mul(step[k]));
            count[k] = 0;
            k += 1;
        }
    }
}

/// `hi + 1` as a count (0 if every offset is negative).
#[inline(always)]
pub(crate) const fn one_past(range: Result<(isize, isize), LayoutError>) -> usize {
    match range {
        Ok((_, hi)) if hi >= 0 => hi as usize + 1,
        _ => 0,
    }
}

/// A 1-D index checked against `0..size`.
#[inline(always)]
fn check_index<I: Int>(i: &I, size: isize) -> Result<isize, LayoutError> {
    let index = i.try_value().ok_or(LayoutError::ValueOutOfRange { part: "coordinate", leaf: 0 })?;
    if index < 0 || index >= size {
        return Err(LayoutError::IndexOutOfRange { index, size });
    }
    Ok(index)
}

/// `idx2crd` of a runtime-structured shape.
pub(crate) fn dyn_idx2crd(l: &DynLayout, index: usize) -> Result<DynIntTuple, LayoutError> {
    let i =
        isize::try_from(index).map_err(|_| LayoutError::ValueOutOfRange { part: "coordinate", leaf: 0 })?;
    l.idx2crd(&DynIntTuple::int(DynInt::new_runtime(i)))
}

// ---------------------------------------------------------------------------------------------
// Layout<S, D>

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> AnyLayout for Layout<S, D> {
    const IS_STATIC: bool = S::IS_STATIC && D::IS_STATIC;
    #[inline(always)]
    fn rank(&self) -> usize {
        S::RANK
    }
    #[inline(always)]
    fn size(&self) -> usize {
        Layout::size(self).value() as usize
    }
    #[inline(always)]
    fn cosize(&self) -> usize {
        Layout::cosize(self).value() as usize
    }
    #[inline(always)]
    fn offset(&self, index: usize) -> isize {
        self.shape().offset_of_index(&self.stride(), index as isize)
    }
    #[inline(always)]
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        let span = self.shape().span(&self.stride());
        let last = self.shape().offset_of_index(&self.stride(), Layout::size(self).value() - 1);
        Ok(plain_range(span, last))
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        dyn_idx2crd(&DynLayout::try_from(self)?, index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(DynAnyLayout::Layout(DynLayout::try_from(self)?))
    }
    const FORM: Option<DynIntTuple> = Some(S::TREE);
    const STATIC_FLAT: Option<Flat> = if Self::IS_STATIC { Flat::of_pairs(&S::FLAT) } else { None };
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        Flat::of_typed(self, true)
    }
}

impl<S, D, Crd> LayoutCoord<Layout<S, D>> for Crd
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    Crd: Crd2Idx<S, D> + InShape<S>,
    OffsetOut<Crd, S, D>: Int,
{
    #[inline(always)]
    fn offset_in(&self, layout: &Layout<S, D>) -> isize {
        layout.crd2idx(*self).value()
    }
    #[inline(always)]
    fn checked_offset_in(&self, layout: &Layout<S, D>) -> Result<isize, LayoutError> {
        layout.checked_crd2idx(*self)
    }
}

// ---------------------------------------------------------------------------------------------
// SwizzledLayout: a static swizzle after a typed layout.

/// The offset range of a static [`SwizzledLayout`] (`None` for one with runtime integers).
struct SwizzledRange<const B: u32, const M: u32, const S: i32, Sh, St, const O: isize>(
    core::marker::PhantomData<(Sh, St)>,
);

impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize>
    SwizzledRange<B, M, S, Sh, St, O>
{
    const RANGE: Option<Result<(isize, isize), LayoutError>> = if Sh::IS_STATIC && St::IS_STATIC {
        match DynLayout::new(Sh::TREE, St::TREE) {
            Ok(l) => Some(swizzled_range(&l, SwizzledLayout::<B, M, S, Sh, St, O>::SWIZZLE, O)),
            Err(e) => Some(Err(e)),
        }
    } else {
        None
    };
}

impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize>
    AnyLayout for SwizzledLayout<B, M, S, Sh, St, O>
{
    const IS_STATIC: bool = Sh::IS_STATIC && St::IS_STATIC;
    #[inline(always)]
    fn rank(&self) -> usize {
        Sh::RANK
    }
    #[inline(always)]
    fn size(&self) -> usize {
        SwizzledLayout::size(self).value() as usize
    }
    #[inline(always)]
    fn cosize(&self) -> usize {
        one_past(self.offset_range())
    }
    #[inline(always)]
    fn offset(&self, index: usize) -> isize {
        Self::SWIZZLE.apply(O.wrapping_add(AnyLayout::offset(self.layout(), index)))
    }
    #[inline(always)]
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        if let Some(range) = const { SwizzledRange::<B, M, S, Sh, St, O>::RANGE } {
            return range;
        }
        let (mut lo, mut hi) = (isize::MAX, isize::MIN);
        for x in self.layout().iter() {
            let v = Self::SWIZZLE.apply(O.wrapping_add(x));
            (lo, hi) = (lo.min(v), hi.max(v));
        }
        Ok((lo, hi))
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        AnyLayout::idx2crd(self.layout(), index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        let inner = DynLayout::try_from(self.layout())?;
        Ok(DynAnyLayout::Composed(ComposedLayout::with_offset(
            Outer::Swizzle(Self::SWIZZLE),
            DynInt::new_static(O),
            inner,
        )))
    }
    const FORM: Option<DynIntTuple> = Some(Sh::TREE);
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        Flat::of_typed(self.layout(), false)
    }
}

impl<const B: u32, const M: u32, const S: i32, Sh, St, const O: isize, Crd>
    LayoutCoord<SwizzledLayout<B, M, S, Sh, St, O>> for Crd
where
    Sh: IntTuple + LayoutShape<St>,
    St: IntTuple,
    Crd: Crd2Idx<Sh, St> + InShape<Sh>,
    OffsetOut<Crd, Sh, St>: Int,
{
    #[inline(always)]
    fn offset_in(&self, layout: &SwizzledLayout<B, M, S, Sh, St, O>) -> isize {
        layout.crd2idx(*self)
    }
    #[inline(always)]
    fn checked_offset_in(&self, layout: &SwizzledLayout<B, M, S, Sh, St, O>) -> Result<isize, LayoutError> {
        let x = layout.layout().checked_crd2idx(*self)?;
        Ok(SwizzledLayout::<B, M, S, Sh, St, O>::SWIZZLE.apply(O.wrapping_add(x)))
    }
}

// ---------------------------------------------------------------------------------------------
// OffsetSwizzled: a swizzle after a runtime offset after a plain layout (tiles of swizzled ones).

impl<const B: u32, const M: u32, const S: i32, L: AnyLayout> AnyLayout for OffsetSwizzled<B, M, S, L> {
    const IS_STATIC: bool = false;
    #[inline(always)]
    fn rank(&self) -> usize {
        self.layout().rank()
    }
    #[inline(always)]
    fn size(&self) -> usize {
        self.layout().size()
    }
    #[inline(always)]
    fn cosize(&self) -> usize {
        one_past(self.offset_range())
    }
    #[inline(always)]
    fn offset(&self, index: usize) -> isize {
        Self::SWIZZLE.apply(self.offset().wrapping_add(self.layout().offset(index)))
    }
    /// Visits every index (`size` steps): a tensor made over this layout pays it once, while the
    /// tensor functions that make one from a swizzled tensor keep that tensor's elements instead.
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        self.layout().offset_range()?;
        let (mut lo, mut hi) = (isize::MAX, isize::MIN);
        for i in 0..self.size() {
            let v = AnyLayout::offset(self, i);
            (lo, hi) = (lo.min(v), hi.max(v));
        }
        Ok((lo, hi))
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        self.layout().idx2crd(index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        let DynAnyLayout::Layout(inner) = self.layout().to_dyn()? else {
            return Err(LayoutError::TooLarge);
        };
        Ok(DynAnyLayout::Composed(ComposedLayout::with_offset(
            Outer::Swizzle(Self::SWIZZLE),
            DynInt::new_runtime(self.offset()),
            inner,
        )))
    }
    const FORM: Option<DynIntTuple> = L::FORM;
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        self.layout().flat().map(|f| Flat { plain: false, ..f })
    }
}

impl<const B: u32, const M: u32, const S: i32, L: AnyLayout, Crd: LayoutCoord<L>>
    LayoutCoord<OffsetSwizzled<B, M, S, L>> for Crd
{
    #[inline(always)]
    fn offset_in(&self, layout: &OffsetSwizzled<B, M, S, L>) -> isize {
        let x = self.offset_in(layout.layout());
        OffsetSwizzled::<B, M, S, L>::SWIZZLE.apply(layout.offset().wrapping_add(x))
    }
    #[inline(always)]
    fn checked_offset_in(&self, layout: &OffsetSwizzled<B, M, S, L>) -> Result<isize, LayoutError> {
        let x = self.checked_offset_in(layout.layout())?;
        Ok(OffsetSwizzled::<B, M, S, L>::SWIZZLE.apply(layout.offset().wrapping_add(x)))
    }
}

// ---------------------------------------------------------------------------------------------
// The runtime-structured kinds: integer indices only (they fit any shape).

impl AnyLayout for DynLayout {
    const IS_STATIC: bool = false;
    #[inline]
    fn rank(&self) -> usize {
        DynLayout::rank(self)
    }
    #[inline]
    fn size(&self) -> usize {
        DynLayout::size(self).value as usize
    }
    #[inline]
    fn cosize(&self) -> usize {
        DynLayout::cosize(self).value as usize
    }
    /// The offset of `index` (0 for basis strides, whose values are coordinates: see
    /// [`DynLayout::apply`]; [`AnyLayout::offset_range`] refuses those).
    #[inline]
    fn offset(&self, index: usize) -> isize {
        DynLayout::offset(self, index as isize)
    }
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        dyn_range(self)
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        dyn_idx2crd(self, index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        self.to_dyn_any()
    }
    #[inline]
    fn flat(&self) -> Option<Flat> {
        Flat::of_dyn(self, true)
    }
}

// A tuple against a runtime-structured layout reports this trait's message, not `Int`'s.
#[diagnostic::do_not_recommend]
impl<I: Int> LayoutCoord<DynLayout> for I {
    #[inline]
    fn offset_in(&self, layout: &DynLayout) -> isize {
        DynLayout::offset(layout, self.value())
    }
    #[inline]
    fn checked_offset_in(&self, layout: &DynLayout) -> Result<isize, LayoutError> {
        Ok(DynLayout::offset(layout, check_index(self, layout.size().value)?))
    }
}

/// Whether a composed layout's values are offsets (no basis strides inside or outside).
fn composed_has_basis(c: &ComposedLayout) -> bool {
    c.inner().has_basis() || matches!(c.outer(), Outer::Layout(o) if o.has_basis())
}

impl AnyLayout for ComposedLayout {
    const IS_STATIC: bool = false;
    #[inline]
    fn rank(&self) -> usize {
        ComposedLayout::rank(self)
    }
    #[inline]
    fn size(&self) -> usize {
        ComposedLayout::size(self).value as usize
    }
    #[inline]
    fn cosize(&self) -> usize {
        one_past(self.offset_range())
    }
    #[inline]
    fn offset(&self, index: usize) -> isize {
        ComposedLayout::offset(self, index as isize)
    }
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        if composed_has_basis(self) {
            return Err(LayoutError::BasisStride { op: "offset" });
        }
        if let Outer::Swizzle(sw) = self.outer() {
            return swizzled_range(self.inner(), *sw, self.offset_value().value);
        }
        let (mut lo, mut hi) = (isize::MAX, isize::MIN);
        for i in 0..self.inner().size().value {
            let v = ComposedLayout::offset(self, i);
            (lo, hi) = (lo.min(v), hi.max(v));
        }
        Ok((lo, hi))
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        dyn_idx2crd(self.inner(), index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        self.to_dyn_any()
    }
}

// A tuple against a runtime-structured layout reports this trait's message, not `Int`'s.
#[diagnostic::do_not_recommend]
impl<I: Int> LayoutCoord<ComposedLayout> for I {
    #[inline]
    fn offset_in(&self, layout: &ComposedLayout) -> isize {
        ComposedLayout::offset(layout, self.value())
    }
    #[inline]
    fn checked_offset_in(&self, layout: &ComposedLayout) -> Result<isize, LayoutError> {
        Ok(ComposedLayout::offset(layout, check_index(self, layout.size().value)?))
    }
}

/// Either kind's answer, from the variant it holds.
macro_rules! either {
    ($self:expr, $l:ident => $e:expr) => {
        match $self {
            DynAnyLayout::Layout($l) => $e,
            DynAnyLayout::Composed($l) => $e,
        }
    };
}

/// What [`AnyLayout::to_dyn`] returns is itself a layout of any kind: each query is the held
/// layout's.
///
/// ```
/// use const_layout::{AnyLayout, layout};
/// let plain = layout!((4,2):(2,1)).to_dyn().unwrap();
/// let swizzled = layout!(composition(Sw<1,0,1>, (2,2):(1,2))).to_dyn().unwrap();
/// assert_eq!((plain.size(), plain.offset(5), plain.crd2idx(5usize)), (8, 3, 3));
/// assert_eq!(swizzled.offsets().collect::<Vec<_>>(), [0, 1, 3, 2]);
/// assert_eq!(swizzled.to_dyn().unwrap(), swizzled);
/// ```
impl AnyLayout for DynAnyLayout {
    const IS_STATIC: bool = false;
    #[inline]
    fn rank(&self) -> usize {
        either!(self, l => AnyLayout::rank(l))
    }
    #[inline]
    fn size(&self) -> usize {
        either!(self, l => AnyLayout::size(l))
    }
    #[inline]
    fn cosize(&self) -> usize {
        either!(self, l => AnyLayout::cosize(l))
    }
    #[inline]
    fn offset(&self, index: usize) -> isize {
        either!(self, l => AnyLayout::offset(l, index))
    }
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        either!(self, l => l.offset_range())
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        either!(self, l => AnyLayout::idx2crd(l, index))
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        self.to_dyn_any()
    }
    #[inline]
    fn flat(&self) -> Option<Flat> {
        match self {
            DynAnyLayout::Layout(l) => Flat::of_dyn(l, true),
            DynAnyLayout::Composed(_) => None,
        }
    }
}

// A tuple against a runtime-structured layout reports this trait's message, not `Int`'s.
#[diagnostic::do_not_recommend]
impl<I: Int> LayoutCoord<DynAnyLayout> for I {
    #[inline]
    fn offset_in(&self, layout: &DynAnyLayout) -> isize {
        either!(layout, l => self.offset_in(l))
    }
    #[inline]
    fn checked_offset_in(&self, layout: &DynAnyLayout) -> Result<isize, LayoutError> {
        either!(layout, l => self.checked_offset_in(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_range_of_mixed_signs() {
        // (4,2):(-1,4): offsets 0,-1,-2,-3,4,3,2,1; span 3 + 4 = 7, last -3 + 4 = 1.
        assert_eq!(plain_range(7, 1), (-3, 4));
        assert_eq!(plain_range(7, 7), (0, 7));
        assert_eq!(plain_range(7, -7), (-7, 0));
    }

    #[test]
    fn swizzled_range_visits_every_offset() {
        let l: DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let brute = (0..512).map(|i| sw.apply(l.offset(i)));
        let (lo, hi) = (brute.clone().min().unwrap(), brute.max().unwrap());
        assert_eq!(swizzled_range(&l, sw, 0), Ok((lo, hi)));
        // An offset past a bit the swizzle reads.
        let brute = (0..512).map(|i| sw.apply(1000 + l.offset(i)));
        let (lo, hi) = (brute.clone().min().unwrap(), brute.max().unwrap());
        assert_eq!(swizzled_range(&l, sw, 1000), Ok((lo, hi)));
    }
}

// The core's seam for crates that take any layout at run time (the rocRoller graph): each of the
// library's layout kinds, as its `AnyLayout::to_dyn` (a blanket impl over `AnyLayout` would be an
// impl of a foreign trait for any type, which Rust refuses).
macro_rules! to_dyn_any_as_any_layout {
    ($([$($g:tt)*] $ty:ty;)*) => {$(
        impl<$($g)*> $crate::swizzle::ToDynAnyLayout for $ty {
            #[inline]
            fn to_dyn_any(&self) -> Result<$crate::layout::DynAnyLayout, $crate::LayoutError> {
                $crate::layout::AnyLayout::to_dyn(self)
            }
        }
    )*};
}
to_dyn_any_as_any_layout! {
    [S: IntTuple + LayoutShape<D>, D: IntTuple] Layout<S, D>;
    [const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize]
        SwizzledLayout<B, M, S, Sh, St, O>;
    [const B: u32, const M: u32, const S: i32, L: AnyLayout] OffsetSwizzled<B, M, S, L>;
}
// The static kinds' (`Computed`, `StaticSwizzled`) are beside their `AnyLayout` impls.
pub(crate) use to_dyn_any_as_any_layout;
