//! `Layout<Shape, Stride>`: CuTe's layout, a function from coordinates to offsets.
//!
//! A layout pairs a shape with a congruent stride. Both are [int tuples](crate::int_tuple) whose
//! structure is their type, so a fully static layout is a zero-sized type and its index math folds
//! to constants; runtime and mixed layouts hold just their runtime integers.
//!
//! Build one with [`make_layout`] (checked: runtime integers can be wrong, so it returns a
//! `Result`), with [`make_static_layout`] for fully static ones (checked by the compiler), or with
//! the [`layout!`](crate::layout!) macro.
//!
//! ```
//! use const_layout::{layout, make_layout, LayoutLeft, C};
//!
//! // The design card's layout: a scalar stride against a tuple mode is expanded column-major.
//! let l = layout!((8,(4,2)):(1,8));
//! assert_eq!(l.to_string(), "(_8,(_4,_2)):(_1,(_8,_32))");
//! assert_eq!(core::mem::size_of_val(&l), 0);
//! assert_eq!(l.crd2idx((3usize, (1usize, 1usize))), 3 + 8 + 32);
//!
//! // Static tile, runtime problem size.
//! let m = 100usize;
//! let a = make_layout((C::<8>, m), LayoutLeft).unwrap();
//! assert_eq!(a.to_string(), "(_8,100):(_1,_8)");
//! assert_eq!(a.crd2idx((2usize, 3usize)), 26);
//! ```

pub mod any;
mod index;
mod iter;
mod ordered;
pub mod param;
#[cfg(feature = "serde")]
mod serde;
mod shape_stride;
mod swizzled;

pub use any::{AnyLayout, AnyOffsets, DynAnyLayout, LayoutCoord};
#[doc(hidden)]
pub use any::{FLAT_CAP, Flat};
pub use index::{CoordDispatch, Crd2Idx, Idx2Crd, IndexDispatch, OffsetOut, StaticOffset, crd2idx, idx2crd};
pub use iter::Offsets;
pub use ordered::{
    Down, OrderedStride, OrderedStrideOf, Path, Root, StaticOrderedStride, make_ordered_layout,
};
pub use shape_stride::{
    Check, ExpandStride, FlatPairs, LayoutShape, MAX_FLAT, StaticHierCoord, StrideDispatch,
};
pub use swizzled::{OffsetSwizzled, SwizzledLayout};

use crate::C;
use crate::error::LayoutError;
use crate::int::{Int, Kind, Static};
use crate::int_tuple::{
    CompactLeft, CompactRight, CuteCompact, Flatten, Get, GetOrUnit, IntTuple, Profile, StaticTuple,
};
use core::fmt;

/// CuTe's `Layout<Shape, Stride>`: a shape and a congruent stride.
///
/// The fields are private so that every layout has passed its checks: positive extents, and a size
/// and cosize that fit in `isize` (and in the layout's integer types). Index math can then neither
/// overflow nor divide by zero for coordinates inside the shape.
///
/// ```
/// use const_layout::{make_layout, C};
/// let l = make_layout((C::<4>, 3usize), (3isize, C::<1>)).unwrap();
/// assert_eq!(l.size(), 12usize);
/// assert_eq!(l.cosize(), 12usize);
/// assert_eq!(l.iter().collect::<Vec<_>>(), [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]);
/// ```
#[derive(Clone, Copy, Hash)]
pub struct Layout<S, D> {
    shape: S,
    stride: D,
}

/// CuTe's `LayoutLeft` (`GenColMajor`): the compact column-major stride of a shape. Pass it as the
/// stride of [`make_layout`].
///
/// ```
/// use const_layout::{make_layout, LayoutLeft};
/// assert_eq!(make_layout((4usize, 8usize), LayoutLeft).unwrap().to_string(), "(4,8):(_1,4)");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LayoutLeft;

/// CuTe's `LayoutRight` (`GenRowMajor`): the compact row-major stride of a shape. Pass it as the
/// stride of [`make_layout`].
///
/// ```
/// use const_layout::{make_layout, LayoutRight, C};
/// assert_eq!(make_layout((C::<4>, C::<8>), LayoutRight).unwrap().to_string(), "(_4,_8):(_8,_1)");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LayoutRight;

/// What [`make_layout`] accepts as a stride for shape `S`: a stride int tuple (expanded by the
/// scalar-stride rule, see [`ExpandStride`]), [`LayoutLeft`] or [`LayoutRight`].
///
/// ```
/// use const_layout::layout::IntoStride;
/// use const_layout::int_tuple::IntTuple;
/// use const_layout::{LayoutRight, C};
/// let d = LayoutRight.into_stride(&(C::<2>, C::<3>));
/// assert_eq!(d.display().to_string(), "(_3,_1)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a stride for the shape `{S}`",
    label = "expected a stride int tuple congruent with the shape, `LayoutLeft` or `LayoutRight`",
    note = "a scalar stride against a tuple mode is expanded column-major; a tuple stride needs a tuple mode of the same rank"
)]
pub trait IntoStride<S: IntTuple> {
    /// The congruent stride.
    type Stride: IntTuple;
    /// Make the stride (wrapping on overflow; see [`IntoStride::check`]).
    fn into_stride(self, shape: &S) -> Self::Stride;
    /// Check that making the stride does not overflow, given that the shape's size does not.
    fn check(&self, shape: &S) -> Result<(), LayoutError>;
}

impl<S: IntTuple, D: ExpandStride<S>> IntoStride<S> for D {
    type Stride = D::Output;
    #[inline(always)]
    fn into_stride(self, shape: &S) -> D::Output {
        self.expand(shape)
    }
    #[inline]
    fn check(&self, shape: &S) -> Result<(), LayoutError> {
        self.check_expand(shape, &mut 0)
    }
}

impl<S: CompactLeft<CuteCompact, C<1>>> IntoStride<S> for LayoutLeft {
    type Stride = S::Output;
    #[inline(always)]
    fn into_stride(self, shape: &S) -> S::Output {
        shape.compact_left(C).0
    }
    #[inline]
    fn check(&self, _: &S) -> Result<(), LayoutError> {
        Ok(()) // every compact stride is at most the size, which is checked
    }
}

impl<S: CompactRight<CuteCompact, C<1>>> IntoStride<S> for LayoutRight {
    type Stride = S::Output;
    #[inline(always)]
    fn into_stride(self, shape: &S) -> S::Output {
        shape.compact_right(C).0
    }
    #[inline]
    fn check(&self, _: &S) -> Result<(), LayoutError> {
        Ok(())
    }
}

/// CuTe's `make_layout(shape, stride)`, checked.
///
/// `stride` is a stride int tuple, [`LayoutLeft`] (CuTe's one-argument `make_layout(shape)`) or
/// [`LayoutRight`]. A scalar stride against a tuple mode is expanded to that mode's compact
/// column-major strides starting at it, so `(8,(4,2)):(1,8)` is `(8,(4,2)):(1,(8,32))`.
///
/// Runtime integers are checked once, here: every extent positive, and size, cosize and strides
/// representable. Static integers are checked by the compiler (a zero static extent does not
/// compile), so for a fully static layout the `Err` branch is dead code; [`make_static_layout`]
/// returns the layout directly.
///
/// ```
/// use const_layout::{make_layout, LayoutError, LayoutLeft, C};
/// let l = make_layout((8usize, (4usize, 2usize)), (1isize, 8isize)).unwrap();
/// assert_eq!(l.to_string(), "(8,(4,2)):(1,(8,32))");
/// assert_eq!(
///     make_layout((usize::MAX, 2usize), LayoutLeft).unwrap_err(),
///     LayoutError::ValueOutOfRange { part: "shape", leaf: 0 }
/// );
/// ```
#[inline]
pub fn make_layout<S, D>(shape: S, stride: D) -> Result<Layout<S, D::Stride>, LayoutError>
where
    S: IntTuple + LayoutShape<D::Stride>,
    D: IntoStride<S>,
{
    let () = Layout::<S, D::Stride>::STATIC_CHECK;
    // The shape first: the stride checks assume its size fits.
    check_shape(&shape)?;
    stride.check(&shape)?;
    Layout::try_new(shape, stride.into_stride(&shape))
}

/// Every extent positive and the size within `isize`.
#[inline]
pub(crate) fn check_shape<S: IntTuple>(shape: &S) -> Result<(), LayoutError> {
    let mut result = Ok(());
    let (mut leaf, mut size) = (0usize, 1isize);
    shape.for_each_leaf(&mut |l| {
        if result.is_ok() {
            result = match l.value {
                None => Err(LayoutError::ValueOutOfRange { part: "shape", leaf }),
                Some(v) if v <= 0 => Err(LayoutError::NonPositiveExtent { leaf, value: v }),
                Some(v) => size.checked_mul(v).map(|s| size = s).ok_or(LayoutError::SizeOverflow),
            };
            leaf += 1;
        }
    });
    result
}

/// [`make_layout`] for fully static shapes and strides: infallible, because the compiler checks it.
///
/// ```
/// use const_layout::{make_static_layout, C};
/// let l = make_static_layout((C::<8>, (C::<4>, C::<2>)), (C::<1>, C::<8>));
/// assert_eq!(l.to_string(), "(_8,(_4,_2)):(_1,(_8,_32))");
/// ```
///
/// A zero extent is a compile-time error:
///
/// ```compile_fail
/// use const_layout::{make_static_layout, C};
/// let l = make_static_layout((C::<8>, C::<0>), (C::<1>, C::<8>));
/// ```
pub fn make_static_layout<S, D>(shape: S, stride: D) -> Layout<S, D::Stride>
where
    S: IntTuple + LayoutShape<D::Stride>,
    D: IntoStride<S>,
    // Shape and stride together, so that a runtime layout is one error, not two.
    (S, D::Stride): StaticTuple,
{
    let () = Layout::<S, D::Stride>::STATIC_CHECK;
    Layout { shape, stride: stride.into_stride(&shape) }
}

/// The error of a layout whose size (first) or cosize does not fit its integer types.
#[cold]
fn too_small(size_fits: bool, size: isize, cosize: isize) -> LayoutError {
    if size_fits {
        LayoutError::TypeTooSmall { what: "cosize", value: cosize }
    } else {
        LayoutError::TypeTooSmall { what: "size", value: size }
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Layout<S, D> {
    /// Compile-time checks of the static integers: every static extent positive, and for a fully
    /// static layout a size and cosize that fit in `isize`. Referenced by every constructor, so a
    /// bad static layout fails to build (`cargo build`; `cargo check` does not evaluate it).
    pub const STATIC_CHECK: () = {
        assert!(S::STATIC_EXTENTS_POSITIVE, "a static extent of the layout's shape is zero or negative");
        if let Some(size) = S::STATIC_SIZE {
            assert!(size > 0, "the layout's static size is not positive");
        }
        let _ = S::STATIC_SPAN;
    };

    /// Build a layout from a shape and an already congruent stride, checking the runtime integers.
    /// See [`make_layout`], which also accepts scalar strides against tuple modes.
    ///
    /// ```
    /// use const_layout::{Layout, LayoutError};
    /// let l = Layout::try_new((4usize, 2usize), (2isize, 1isize)).unwrap();
    /// assert_eq!(l.to_string(), "(4,2):(2,1)");
    /// assert_eq!(
    ///     Layout::try_new((4usize, 0usize), (2isize, 1isize)).unwrap_err(),
    ///     LayoutError::NonPositiveExtent { leaf: 1, value: 0 }
    /// );
    /// ```
    #[inline]
    pub fn try_new(shape: S, stride: D) -> Result<Self, LayoutError> {
        let () = Self::STATIC_CHECK;
        let mut acc = Check::new();
        shape.check(&stride, &mut acc)?;
        let cosize = acc.span.checked_add(1).ok_or(LayoutError::CosizeOverflow)?;
        // `check` read every stride too (congruent with the shape): each fits `isize`.
        Self::valid_by_construction(shape, stride, acc.size, cosize)
    }

    /// The layout of a shape and stride that the caller's construction has proved valid outright
    /// (the typed complement's common case: extents, strides, size and cosize all fit, by
    /// construction). Nothing is checked.
    #[inline(always)]
    pub(crate) fn valid_unchecked(shape: S, stride: D) -> Self {
        Layout { shape, stride }
    }

    /// The layout of a shape and stride that the caller's construction has already proved valid
    /// up to its integer types: every extent positive, every stride within `isize`, and `size`
    /// and `cosize` its exact size and cosize (computed with checked arithmetic, or equal to
    /// those of a checked layout). Only what the construction cannot know is checked: that both
    /// fit the layout's integer types. The typed runtime algebra builds its results this way
    /// instead of checking every integer again.
    #[inline(always)]
    pub(crate) fn valid_by_construction(
        shape: S,
        stride: D,
        size: isize,
        cosize: isize,
    ) -> Result<Self, LayoutError> {
        let () = Self::STATIC_CHECK;
        // Both tests, then one branch: where both read one runtime value (a compact layout's size
        // and cosize), the optimizer merges them into one comparison.
        let size_fits = <S::Size as Int>::try_from_value(size).is_some();
        let cosize_fits = <CosizeOut<S, D> as Int>::try_from_value(cosize).is_some();
        if !(size_fits & cosize_fits) {
            return Err(too_small(size_fits, size, cosize));
        }
        Ok(Layout { shape, stride })
    }

    /// The shape.
    ///
    /// ```
    /// use const_layout::layout;
    /// assert_eq!(layout!((4,2)).shape(), layout!((4,2)).shape());
    /// ```
    #[inline(always)]
    pub fn shape(&self) -> S {
        self.shape
    }

    /// The stride, congruent with the shape.
    ///
    /// ```
    /// use const_layout::{layout, int_tuple::IntTuple};
    /// assert_eq!(layout!((4,(2,3))).stride().display().to_string(), "(_1,(_4,_8))");
    /// ```
    #[inline(always)]
    pub fn stride(&self) -> D {
        self.stride
    }

    /// CuTe's `size`: the number of coordinates. Static for a static shape.
    ///
    /// ```
    /// use const_layout::{layout, int::Int};
    /// let s = layout!((8,(4,2)):(1,8)).size();
    /// assert_eq!((s.value(), core::mem::size_of_val(&s)), (64, 0));
    /// ```
    #[inline(always)]
    pub fn size(&self) -> S::Size {
        self.shape.size()
    }

    /// CuTe's `cosize`, as the span: `sum((s - 1) * |d|) + 1`, one more than the largest offset for
    /// non-negative strides, the extent the offsets cover with negative ones (where CuTe's
    /// `L(size - 1) + 1` differs: DECISIONS.md, decision 14). Static for a static layout.
    ///
    /// ```
    /// use const_layout::{layout, int::Int};
    /// assert_eq!(layout!((4,2):(2,1)).cosize().value(), 8);
    /// assert_eq!(layout!((4,2):(0,3)).cosize().value(), 4);
    /// // Offsets -3 to 4: a span of 8 (CuTe's `L(size - 1) + 1` would be 2).
    /// assert_eq!(layout!((4,2):(-1,4)).cosize().value(), 8);
    /// ```
    #[inline(always)]
    pub fn cosize(&self) -> CosizeOut<S, D> {
        Int::from_value(self.shape.span(&self.stride).wrapping_add(1))
    }

    /// CuTe's `rank`: the number of top-level modes.
    ///
    /// ```
    /// use const_layout::layout;
    /// assert_eq!(layout!((8,(4,2)):(1,8)).rank(), 2);
    /// ```
    #[inline(always)]
    pub const fn rank(&self) -> usize {
        S::RANK
    }

    /// CuTe's `depth`.
    ///
    /// ```
    /// use const_layout::layout;
    /// assert_eq!(layout!((8,(4,2)):(1,8)).depth(), 2);
    /// ```
    #[inline(always)]
    pub const fn depth(&self) -> usize {
        S::DEPTH
    }

    /// CuTe's `layout(coord)` / `crd2idx(coord, layout)`: the offset of a coordinate.
    ///
    /// The coordinate is an integer index, a flat coordinate (one integer per mode), a hierarchical
    /// coordinate, or a mix. Coordinates inside the shape give exact offsets; outside it the result is
    /// CuTe's linear extension (use [`Layout::checked_crd2idx`] to reject them).
    ///
    /// ```
    /// use const_layout::{layout, C};
    /// let l = layout!((4,(2,3)):(3,(1,8)));
    /// assert_eq!(l.crd2idx(13usize), 3 + 1 + 8);
    /// assert_eq!(l.crd2idx((1usize, 3usize)), 3 + 1 + 8);
    /// assert_eq!(l.crd2idx((1usize, (1usize, 1usize))), 3 + 1 + 8);
    /// assert_eq!(l.crd2idx((C::<1>, (C::<1>, C::<1>))), 12usize as isize);
    /// ```
    #[inline(always)]
    pub fn crd2idx<Crd: Crd2Idx<S, D>>(&self, coord: Crd) -> OffsetOut<Crd, S, D> {
        index::crd2idx(coord, &self.shape, &self.stride)
    }

    /// [`Layout::crd2idx`] that first checks the coordinate is inside the shape.
    ///
    /// ```
    /// use const_layout::{layout, LayoutError};
    /// let l = layout!((4,2):(2,1));
    /// assert_eq!(l.checked_crd2idx((3usize, 1usize)), Ok(7));
    /// assert_eq!(l.checked_crd2idx(8usize), Err(LayoutError::IndexOutOfRange { index: 8, size: 8 }));
    /// assert_eq!(
    ///     l.checked_crd2idx((4usize, 0usize)),
    ///     Err(LayoutError::CoordinateOutOfRange { leaf: 0, value: 4, extent: 4 })
    /// );
    /// ```
    pub fn checked_crd2idx<Crd>(&self, coord: Crd) -> Result<isize, LayoutError>
    where
        Crd: Crd2Idx<S, D> + crate::layout::InShape<S>,
    {
        if Crd::IS_INT && !S::IS_INT {
            // An integer index into the whole layout: it must be below the size.
            let Some(index) = coord.size().try_value() else {
                return Err(LayoutError::ValueOutOfRange { part: "coordinate", leaf: 0 });
            };
            let size = self.shape.size().value();
            if index < 0 || index >= size {
                return Err(LayoutError::IndexOutOfRange { index, size });
            }
        } else {
            coord.in_shape(&self.shape, &mut 0)?;
        }
        Ok(coord.offset(&self.shape, &self.stride))
    }

    /// CuTe's `idx2crd(idx, shape)` on this layout's shape: the coordinate of an index (or of a
    /// partly hierarchical coordinate), colexicographic.
    ///
    /// ```
    /// use const_layout::layout;
    /// let l = layout!((4,(2,3)));
    /// assert_eq!(l.idx2crd(13usize), (1usize, (1usize, 1usize)));
    /// ```
    #[inline(always)]
    pub fn idx2crd<I: IntTuple>(&self, idx: I) -> S::Output
    where
        S: Idx2Crd<I>,
    {
        self.shape.idx2crd(idx)
    }

    /// CuTe's `get_hier_coord(offset)`: for a compact layout, the hierarchical coordinate whose
    /// offset is `offset` (at every integer `(offset / d) % s`; a stride of 0 gives 0).
    ///
    /// ```
    /// use const_layout::layout;
    /// let l = layout!((4,(2,3)):(6,(3,1)));
    /// assert_eq!(l.get_hier_coord(20usize), (3, (0, 2)));
    /// assert_eq!(l.crd2idx((3usize, (0usize, 2usize))), 20);
    /// ```
    #[inline(always)]
    pub fn get_hier_coord<I: Int>(&self, offset: I) -> S::HierCoord<I> {
        self.shape.hier_coord(&self.stride, offset)
    }

    /// CuTe's `get_flat_coord(offset)`: [`Layout::get_hier_coord`] with each top-level mode reduced
    /// to its 1-D coordinate.
    ///
    /// ```
    /// use const_layout::layout;
    /// let l = layout!((4,(2,3)):(6,(3,1)));
    /// assert_eq!(l.get_flat_coord(20usize), (3, 4));
    /// ```
    #[inline(always)]
    pub fn get_flat_coord<I: Int>(&self, offset: I) -> S::FlatCoord {
        self.shape.flat_coord(&self.stride, offset.value())
    }

    /// CuTe's `get_1d_coord(offset)`: the colexicographic index of [`Layout::get_hier_coord`].
    ///
    /// ```
    /// use const_layout::layout;
    /// let l = layout!((4,(2,3)):(6,(3,1)));
    /// assert_eq!(l.get_1d_coord(20usize), 3 + 4 * 4);
    /// ```
    #[inline(always)]
    pub fn get_1d_coord<I: Int>(&self, offset: I) -> isize {
        self.shape.one_d_coord(&self.stride, offset.value(), &mut 1)
    }

    /// The offsets `L(0), L(1), ..., L(size - 1)`.
    ///
    /// ```
    /// use const_layout::layout;
    /// assert_eq!(layout!((2,3):(3,1)).iter().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
    /// ```
    #[inline(always)]
    pub fn iter(&self) -> Offsets<S, D> {
        Offsets::new(*self)
    }

    /// CuTe's `get<I>(layout)` / `layout<I>(layout)`: mode `I` as a layout.
    ///
    /// ```
    /// use const_layout::layout;
    /// let l = layout!((8,(4,2)):(1,8));
    /// assert_eq!(l.mode::<1>().to_string(), "(_4,_2):(_8,_32)");
    /// ```
    #[inline(always)]
    pub fn mode<const I: usize>(&self) -> ModeLayout<S, D, I>
    where
        (S, D): LayoutMode<I>,
    {
        let (shape, stride) = LayoutMode::<I>::mode(&(self.shape, self.stride));
        Layout { shape, stride }
    }

    /// CuTe's `select<I, J>(layout)`: modes `I` and `J` as a rank-2 layout, with no check (a
    /// selection of a checked layout's modes is a checked layout: its extents are positive and its
    /// size and cosize are at most the whole's). What slicing a batch of matrices out of a rank-3
    /// or rank-4 tensor keeps.
    ///
    /// ```
    /// use const_layout::{layout, make_layout, C};
    /// let l = layout!((3,4,5):(20,5,1));
    /// assert_eq!(l.select::<1, 2>().to_string(), "(_4,_5):(_5,_1)");
    /// let b = make_layout((8u32, 100u32, 64u32), (C::<1>, 8u32, 800u32)).unwrap();
    /// assert_eq!(b.select::<0, 1>().to_string(), "(8,100):(_1,8)");
    /// ```
    #[inline(always)]
    pub fn select<const I: usize, const J: usize>(&self) -> SelectLayout<S, D, I, J>
    where
        (S, D): LayoutMode<I> + LayoutMode<J>,
    {
        let (s0, d0) = LayoutMode::<I>::mode(&(self.shape, self.stride));
        let (s1, d1) = LayoutMode::<J>::mode(&(self.shape, self.stride));
        Layout { shape: (s0, s1), stride: (d0, d1) }
    }

    /// CuTe's `flatten(layout)`: the same function with every integer a top-level mode.
    ///
    /// ```
    /// use const_layout::layout;
    /// assert_eq!(layout!((8,(4,2)):(1,8)).flatten().to_string(), "(_8,_4,_2):(_1,_8,_32)");
    /// ```
    #[inline(always)]
    pub fn flatten(&self) -> Layout<S::Output, D::Output>
    where
        S: Flatten,
        D: Flatten,
    {
        Layout { shape: self.shape.flatten(), stride: self.stride.flatten() }
    }

    /// Value equality as functions *and* structure: same shape and stride values (static or not).
    /// `==` does the same.
    ///
    /// ```
    /// use const_layout::{layout, make_layout, C};
    /// let a = layout!((4,2):(1,4));
    /// let b = make_layout((4usize, 2usize), (1isize, 4isize)).unwrap();
    /// assert!(a.same_as(&b));
    /// assert!(a == b);
    /// ```
    pub fn same_as<S2, D2>(&self, other: &Layout<S2, D2>) -> bool
    where
        S: Profile<S2>,
        D: Profile<D2>,
        S2: IntTuple + LayoutShape<D2>,
        D2: IntTuple,
    {
        self.shape.eq(&other.shape) && self.stride.eq(&other.stride)
    }
}

impl<S, D, S2, D2> PartialEq<Layout<S2, D2>> for Layout<S, D>
where
    S: IntTuple + LayoutShape<D> + Profile<S2>,
    D: IntTuple + Profile<D2>,
    S2: IntTuple + LayoutShape<D2>,
    D2: IntTuple,
{
    fn eq(&self, other: &Layout<S2, D2>) -> bool {
        self.same_as(other)
    }
}

impl<S: IntTuple<Kind = Static> + LayoutShape<D> + Default, D: IntTuple<Kind = Static> + Default> Default
    for Layout<S, D>
{
    /// The static layout of this type (CuTe's `Layout<Shape<_8>, Stride<_1>>{}`).
    fn default() -> Self {
        let () = Self::STATIC_CHECK;
        Layout { shape: S::default(), stride: D::default() }
    }
}

/// The type of [`Layout::cosize`]: static for a static layout, else the shape's runtime integer
/// type (or the stride's, if the shape is static).
pub type CosizeOut<S, D> = <<<S as IntTuple>::Kind as Kind>::And<<D as IntTuple>::Kind> as Kind>::Select<
    StaticCosize<S, D>,
    <<S as IntTuple>::Kind as Kind>::Select<<D as IntTuple>::Rt, <S as IntTuple>::Rt>,
>;

crate::int::static_int_type! {
/// The cosize of a static layout, as a zero-sized integer.
///
/// ```
/// use const_layout::layout::StaticCosize;
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(<StaticCosize<(C<4>, C<2>), (C<2>, C<1>)> as Int>::STATIC, Some(8));
/// ```
    pub struct StaticCosize<S, D> where [S: LayoutShape<D>, D: IntTuple] = match S::STATIC_SPAN {
        Some(v) => match v.checked_add(1) {
            Some(c) => c,
            None => panic!("the cosize of a static layout overflows isize"),
        },
        None => panic!("StaticCosize of a layout with runtime integers"),
    };
}

impl<S: IntTuple, D: IntTuple> fmt::Display for Layout<S, D> {
    /// CuTe notation: `(_8,(_4,_2)):(_1,(_8,_32))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shape.fmt_cute(f)?;
        f.write_str(":")?;
        self.stride.fmt_cute(f)
    }
}

impl<S: IntTuple, D: IntTuple> fmt::Debug for Layout<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> IntoIterator for Layout<S, D> {
    type Item = isize;
    type IntoIter = Offsets<S, D>;
    fn into_iter(self) -> Offsets<S, D> {
        Offsets::new(self)
    }
}

/// The layout of mode `I` of `Layout<S, D>`; see [`Layout::mode`].
pub type ModeLayout<S, D, const I: usize> =
    Layout<<(S, D) as LayoutMode<I>>::Shape, <(S, D) as LayoutMode<I>>::Stride>;

/// The layout of modes `I` and `J` of `Layout<S, D>` ([`Layout::select`]).
pub type SelectLayout<S, D, const I: usize, const J: usize> = Layout<
    (<(S, D) as LayoutMode<I>>::Shape, <(S, D) as LayoutMode<J>>::Shape),
    (<(S, D) as LayoutMode<I>>::Stride, <(S, D) as LayoutMode<J>>::Stride),
>;

/// Mode `I` of a shape and its stride together, implemented for the pair `(shape, stride)`: one
/// bound, so that an index out of range is one error rather than one for the shape and one for the
/// stride. See [`Layout::mode`].
///
/// ```
/// use const_layout::layout::LayoutMode;
/// use const_layout::C;
/// let (s, d) = LayoutMode::<1>::mode(&((C::<8>, C::<4>), (C::<1>, C::<8>)));
/// assert_eq!((s, d), (C::<4>, C::<8>));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no mode {I}",
    note = "a layout of rank r has modes 0..r"
)]
pub trait LayoutMode<const I: usize> {
    /// Mode `I` of the shape.
    type Shape: IntTuple;
    /// Mode `I` of the stride.
    type Stride: IntTuple;
    /// Both modes.
    fn mode(&self) -> (Self::Shape, Self::Stride);
}

impl<S: Get<I>, D: GetOrUnit<I>, const I: usize> LayoutMode<I> for (S, D) {
    type Shape = S::Output;
    type Stride = D::Output;
    #[inline(always)]
    fn mode(&self) -> (S::Output, D::Output) {
        (self.0.get(), self.1.get_or_unit())
    }
}

/// A coordinate that can be checked against a shape: every integer inside its extent (an integer
/// against a tuple mode must be below the mode's size). Used by [`Layout::checked_crd2idx`].
///
/// ```
/// use const_layout::layout::InShape;
/// assert!((1usize, 5usize).in_shape(&(2usize, (2usize, 3usize)), &mut 0).is_ok());
/// assert!((1usize, 6usize).in_shape(&(2usize, (2usize, 3usize)), &mut 0).is_err());
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` is not a coordinate into the shape `{S}`")]
pub trait InShape<S: IntTuple>: IntTuple {
    /// `Ok` if inside; `leaf` counts coordinate integers for the error.
    fn in_shape(&self, s: &S, leaf: &mut usize) -> Result<(), LayoutError>;
}

impl<I: Int, S: IntTuple> InShape<S> for I {
    fn in_shape(&self, s: &S, leaf: &mut usize) -> Result<(), LayoutError> {
        let v = self.try_value().ok_or(LayoutError::ValueOutOfRange { part: "coordinate", leaf: *leaf })?;
        let extent = s.size().value();
        if v < 0 || v >= extent {
            return Err(LayoutError::CoordinateOutOfRange { leaf: *leaf, value: v, extent });
        }
        *leaf += 1;
        Ok(())
    }
}

macro_rules! impl_in_shape {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: IntTuple, $C: InShape<$A>),+> InShape<($($A,)+)> for ($($C,)+) {
            fn in_shape(&self, s: &($($A,)+), leaf: &mut usize) -> Result<(), LayoutError> {
                $(self.$i.in_shape(&s.$i, leaf)?;)+
                Ok(())
            }
        }
    };
}
crate::arity::for_tuples!(impl_in_shape);

// The typed-to-runtime bridge lives on the typed side: the runtime-structured core is a crate of
// its own, below the typed layer.
impl<S: crate::int_tuple::IntTuple + LayoutShape<D>, D: crate::int_tuple::IntTuple>
    TryFrom<&crate::Layout<S, D>> for crate::dyn_layout::DynLayout
{
    type Error = crate::error::LayoutError;
    /// The runtime-structured copy of a typed layout.
    fn try_from(l: &crate::Layout<S, D>) -> Result<Self, crate::error::LayoutError> {
        crate::dyn_layout::DynLayout::new(l.shape().to_dyn()?, l.stride().to_dyn()?)
    }
}

impl<S: crate::int_tuple::IntTuple + LayoutShape<D>, D: crate::int_tuple::IntTuple>
    TryFrom<&crate::dyn_layout::DynLayout> for crate::Layout<S, D>
{
    type Error = crate::error::LayoutError;
    /// The typed copy of a runtime-structured layout, checked as [`make_layout`] checks and
    /// against the type ([`crate::int_tuple::IntTuple::try_from_dyn`]):
    /// the same nesting, each static integer of the type's value, each runtime one within its
    /// integer type.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// use const_layout::{C, Layout};
    /// let d: DynLayout = "(_8,(4,2)):(_1,(8,32))".parse().unwrap();
    /// let l = Layout::<(C<8>, (u32, u32)), (C<1>, (u32, u32))>::try_from(&d).unwrap();
    /// assert_eq!(l.to_string(), "(_8,(4,2)):(_1,(8,32))");
    /// let e = Layout::<(C<8>, (u32, u32)), (C<1>, (C<4>, u32))>::try_from(&d).unwrap_err();
    /// assert_eq!(e.to_string(), "stride integer 1 is 8 where the type has the static _4");
    /// ```
    fn try_from(l: &crate::dyn_layout::DynLayout) -> Result<Self, crate::error::LayoutError> {
        let shape = S::try_from_dyn(l.shape(), "shape")?;
        let stride = D::try_from_dyn(l.stride(), "stride")?;
        check_shape(&shape)?;
        Layout::try_new(shape, stride)
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> core::str::FromStr for Layout<S, D> {
    type Err = crate::text::ParseError;
    /// CuTe's notation read into a typed layout: parsed as a
    /// [`DynLayout`](crate::dyn_layout::DynLayout), then checked against the type
    /// (`TryFrom<&DynLayout>`). A layout that does not fit the type is an error at column 1 naming
    /// the integer.
    ///
    /// ```
    /// use const_layout::{C, Layout};
    /// type Tile = Layout<(C<8>, usize), (C<1>, usize)>;
    /// let t: Tile = "(_8,100):(_1,8)".parse().unwrap();
    /// assert_eq!(t.crd2idx((3usize, 2usize)), 19);
    /// assert_eq!("(_8,100):(_1,8)".parse::<Tile>().unwrap().to_string(), t.to_string());
    /// let e = "(_4,100):(_1,8)".parse::<Tile>().unwrap_err();
    /// assert_eq!(e.to_string(), "column 1: shape integer 0 is 4 where the type has the static _8");
    /// assert!("(_8,100):(_1,8".parse::<Tile>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let d: crate::dyn_layout::DynLayout = s.parse()?;
        let column = s.len() - s.trim_start().len() + 1;
        Self::try_from(&d).map_err(|e| crate::text::ParseError {
            column,
            expected: "",
            found: None,
            invalid: Some(e),
        })
    }
}
