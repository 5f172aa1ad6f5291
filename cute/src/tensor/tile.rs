//! CuTe's tensor functions that narrow a view: `slice`, `local_tile`, `zipped_divide`,
//! `local_partition`, over a tensor of any layout kind. Each layout kind says how it is narrowed
//! through a trait ([`SliceOf`], [`LocalTileOf`], [`ZippedDivideOf`], [`LocalPartitionOf`]): a
//! typed [`Layout`] with the typed layout functions ([`crate::algebra::tiling`], [`SliceCoord`]),
//! a static [`Computed`] one with the generic static path ([`crate::algebra::computed`]: the part
//! is a static layout, the offset folded index math), a swizzled one by narrowing the layout
//! inside the swizzle and keeping the offset there ([`OffsetSwizzled`]). The view is then
//! re-sliced to the elements the part reaches (a swizzled part keeps the tensor's).

use super::{SliceCoord, TensorError, TensorView};
use crate::MAX_RANK;
use crate::algebra::computed::{self, Computed, StaticExpr, StaticLayout, StaticSwizzled, StaticTiler};
use crate::algebra::tiling::{self, ShapeTiler, TileCoord};
use crate::algebra::{Slicer, Tiler};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::{
    AnyLayout, Crd2Idx, DynAnyLayout, Layout, LayoutMode, LayoutShape, OffsetSwizzled, SwizzledLayout,
};
use crate::swizzle::{ComposedLayout, Outer, Swizzle};
use core::marker::PhantomData;

/// A layout kind whose tensors [`slice()`] narrows with the slice coordinate `Crd` (CuTe's
/// coordinate with `_`): the kept modes and the offset of the fixed coordinates.
///
/// ```
/// use const_layout::tensor::{Keep, SliceOf};
/// let (column, offset) = const_layout::layout!((4,3):(3,1)).slice_of((Keep, 2usize)).unwrap();
/// assert_eq!((column.to_string(), offset), ("(_4):(_3)".to_string(), 2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be sliced by `{Crd}`",
    label = "expected `Keep` (CuTe's `_`) and integers, in tuples shaped like the layout",
    note = "typed layouts and swizzled typed layouts are sliced, a `DynLayout` by a `Slicer`; a static `Computed` layout is sliced by `algebra::computed::slice_and_offset`"
)]
pub trait SliceOf<Crd>: AnyLayout {
    /// The kept modes' layout.
    type Slice: AnyLayout;
    /// Whether the part's offsets are the tensor's own (a swizzled part): then the view keeps
    /// the tensor's elements instead of cutting them to the part's range.
    #[doc(hidden)]
    const WITHIN: bool = false;
    /// The kept modes and the offset of the fixed coordinates; an error for a fixed coordinate
    /// outside its mode.
    fn slice_of(&self, crd: Crd) -> Result<(Self::Slice, isize), TensorError>;
}

/// A layout kind whose tensors [`local_tile`] tiles with the tiler `T` at the tile coordinate
/// `X`: the tile's layout and the offset of its first element.
///
/// ```
/// use const_layout::tensor::LocalTileOf;
/// use const_layout::{C, layout_type};
/// let gmem = <layout_type!((8,6):(1,8))>::default();
/// let (tile, offset) = gmem.local_tile_of((C::<4>, C::<3>), (1usize, 1usize)).unwrap();
/// assert_eq!((tile.to_string(), offset), ("(_4,_3):(_1,_8)".to_string(), 28));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be tiled by `{T}` at `{X}`",
    label = "expected a tiler of this layout and a tile coordinate",
    note = "a typed layout takes a shape tiler (`(C<32>, C<32>)`, one extent per mode) and one coordinate per mode; a static layout any static tiler; a `DynLayout` a `Tiler` and a `DynIntTuple`; a swizzled layout what its inner layout takes"
)]
pub trait LocalTileOf<T, X>: AnyLayout {
    /// The tile's layout.
    type Tile: AnyLayout;
    /// See [`SliceOf`].
    #[doc(hidden)]
    const WITHIN: bool = false;
    /// The tile and the offset of its first element; an error for a tile past the shape.
    fn local_tile_of(&self, tiler: T, coord: X) -> Result<(Self::Tile, isize), TensorError>;
}

/// A layout kind whose tensors [`zipped_divide`] divides by the tiler `T`: `((tile), (tiles))`.
///
/// ```
/// use const_layout::tensor::ZippedDivideOf;
/// use const_layout::{C, layout};
/// let (z, _) = layout!((8,4):(1,8)).zipped_divide_of((C::<4>, C::<2>)).unwrap();
/// assert_eq!(z.to_string(), "((_4,_2),(_2,_2)):((_1,_8),(_4,_16))");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be divided by `{T}`",
    label = "expected a tiler of this layout",
    note = "a typed layout takes a shape tiler (one extent per mode); a static layout any static tiler; a `DynLayout` a `Tiler`; a swizzled layout what its inner layout takes"
)]
pub trait ZippedDivideOf<T>: AnyLayout {
    /// The divided layout.
    type Zipped: AnyLayout;
    /// See [`SliceOf`].
    #[doc(hidden)]
    const WITHIN: bool = false;
    /// The divided layout (at offset 0); an error where the tiler does not divide the shape.
    fn zipped_divide_of(&self, tiler: T) -> Result<(Self::Zipped, isize), TensorError>;
}

/// A layout kind whose tensors [`local_partition`] partitions among the threads of `Thr`: one
/// thread's elements and the offset of its first one.
///
/// ```
/// use const_layout::tensor::LocalPartitionOf;
/// use const_layout::layout_type;
/// let smem = <layout_type!((8,6):(1,8))>::default();
/// let threads = <layout_type!((4,3):(3,1))>::default();
/// let (mine, offset) = smem.local_partition_of(&threads, 5).unwrap();
/// assert_eq!((mine.to_string(), offset), ("(_2,_2):(_4,_24)".to_string(), 17));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be partitioned among the threads of `{Thr}`",
    label = "expected a thread layout for this layout",
    note = "a typed layout takes a typed thread layout with one integer per mode; a static layout a static thread layout; a `DynLayout` a `DynLayout`; a swizzled layout what its inner layout takes"
)]
pub trait LocalPartitionOf<Thr>: AnyLayout {
    /// One thread's elements.
    type Part: AnyLayout;
    /// See [`SliceOf`].
    #[doc(hidden)]
    const WITHIN: bool = false;
    /// Thread `index`'s elements and the offset of its first one; an error for an index past
    /// the threads or threads that do not divide the shape.
    fn local_partition_of(&self, threads: &Thr, index: usize) -> Result<(Self::Part, isize), TensorError>;
}

// `local_partition` as a method of each layout kind that has a `LocalPartitionOf`: CuTe's
// function on tensors, here also on the layout alone (the part and its offset), as `local_tile` is.
macro_rules! local_partition_methods {
    ($note:expr, $example:expr; $([$($g:tt)*] $Kind:ty;)+) => {$(
        impl<$($g)*> $Kind {
            /// CuTe's `local_partition(layout, threads, index)`: thread `index`'s elements among
            /// the threads of `threads` (one per element of a tile of `threads`' shape), as the
            /// part's layout and the offset of its first element; what [`local_partition`] does
            /// to a tensor over this layout. An error for an index past the threads or threads
            /// whose shape does not divide the layout's.
            #[doc = $note]
            ///
            /// ```
            #[doc = $example]
            /// ```
            #[inline(always)]
            pub fn local_partition<Thr>(
                &self,
                threads: &Thr,
                index: usize,
            ) -> Result<(<Self as LocalPartitionOf<Thr>>::Part, isize), TensorError>
            where
                Self: LocalPartitionOf<Thr>,
            {
                self.local_partition_of(threads, index)
            }
        }
    )+};
}

local_partition_methods! {
    "",
    "use const_layout::{C, LayoutRight, layout, make_layout, make_static_layout};
let threads = make_static_layout((C::<2>, C::<3>), LayoutRight);
let (mine, offset) = layout!((4,6):(1,4)).local_partition(&threads, 4).unwrap();
assert_eq!((mine.to_string(), offset), (\"(_2,_2):(_2,_12)\".to_string(), 5));
let a = make_layout((4usize, 6usize), (C::<1>, 4isize)).unwrap();
let (mine, offset) = a.local_partition(&threads, 4).unwrap();
assert_eq!((mine.to_string(), offset), (\"(2,2):(_2,12)\".to_string(), 5));
assert!(a.local_partition(&threads, 6).is_err());";
    [S: IntTuple + LayoutShape<D>, D: IntTuple] Layout<S, D>;
}
local_partition_methods! {
    "A static thread layout gives a static part.",
    "use const_layout::algebra::computed::coalesce;
use const_layout::layout_type;
// A static result (coalesce keeps both modes here) is partitioned at compile time, as the typed
// layout it equals is at run time.
let typed = <layout_type!((8,6):(1,16))>::default();
let threads = <layout_type!((4,3):(3,1))>::default();
let (mine, offset) = coalesce(typed).local_partition(&threads, 5).unwrap();
assert_eq!((mine.to_string(), offset), (\"(_2,_2):(_4,_48)\".to_string(), 33));
let (same, at) = typed.local_partition(&threads, 5).unwrap();
assert_eq!((same.to_string(), at), (mine.to_string(), offset));";
    [E: StaticExpr] Computed<E>;
}

// `slice_and_offset` as a method of each layout kind that has a `SliceOf` (a static `Computed`
// layout is sliced by `algebra::computed::slice_and_offset`).
macro_rules! slice_methods {
    ($note:expr, $example:expr; $([$($g:tt)*] $Kind:ty;)+) => {$(
        impl<$($g)*> $Kind {
            /// CuTe's `slice_and_offset(coord, layout)`: the modes where `coord` is
            /// [`Keep`](super::Keep) (CuTe's `_`) and the offset of the fixed coordinates, what
            /// [`slice()`] does to a tensor over this layout. A fixed coordinate outside its mode
            /// is an error.
            #[doc = $note]
            ///
            /// ```
            #[doc = $example]
            /// ```
            #[inline(always)]
            pub fn slice_and_offset<Crd>(&self, crd: Crd) -> Result<(<Self as SliceOf<Crd>>::Slice, isize), TensorError>
            where
                Self: SliceOf<Crd>,
            {
                self.slice_of(crd)
            }
        }
    )+};
}

slice_methods! {
    "",
    "use const_layout::tensor::Keep;
use const_layout::{C, layout, make_layout};
let (col, offset) = layout!((3,4):(4,1)).slice_and_offset((Keep, 2usize)).unwrap();
assert_eq!((col.to_string(), offset), (\"(_3):(_4)\".to_string(), 2));
let a = make_layout((3usize, (2usize, 2usize)), (4isize, (C::<1>, 2isize))).unwrap();
let (row, offset) = a.slice_and_offset((1usize, Keep)).unwrap();
assert_eq!((row.to_string(), offset), (\"((2,2)):((_1,2))\".to_string(), 4));
assert!(a.slice_and_offset((3usize, Keep)).is_err());";
    [S: IntTuple + LayoutShape<D>, D: IntTuple] Layout<S, D>;
}

/// CuTe's `tensor(crd)` with `_` in `crd` (`tensor(_, j)` is `slice(tensor, (Keep, j))`): the
/// tensor of the kept modes, starting at the fixed coordinates' element. A fixed coordinate
/// outside its mode is an error.
///
/// ```
/// use const_layout::tensor::{Keep, make_tensor, slice};
/// use const_layout::{C, LayoutRight, make_layout};
/// let data: Vec<i32> = (0..12).collect();
/// let t = make_tensor(&data, make_layout((3usize, C::<4>), LayoutRight).unwrap()).unwrap();
/// let row = slice(&t, (1usize, Keep)).unwrap(); // CuTe's t(1, _)
/// assert_eq!(row.layout().to_string(), "(_4):(_1)");
/// assert_eq!(row.iter().copied().collect::<Vec<_>>(), [4, 5, 6, 7]);
/// let col = slice(&t, (Keep, 3usize)).unwrap(); // t(_, 3)
/// assert_eq!(col.iter().copied().collect::<Vec<_>>(), [3, 7, 11]);
/// assert!(slice(&t, (3usize, Keep)).is_err());
/// ```
#[inline]
#[allow(clippy::type_complexity)]
pub fn slice<V, Crd>(tensor: V, crd: Crd) -> Result<V::View<<V::Layout as SliceOf<Crd>>::Slice>, TensorError>
where
    V: TensorView,
    V::Layout: SliceOf<Crd>,
{
    let (part, offset) = tensor.layout().slice_of(crd)?;
    tensor.view_at(part, offset, <V::Layout as SliceOf<Crd>>::WITHIN)
}

#[diagnostic::do_not_recommend]
impl<S, D, Crd> SliceOf<Crd> for Layout<S, D>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    Crd: SliceCoord<S, D>,
    Crd::Shape: LayoutShape<Crd::Stride>,
{
    type Slice = Layout<Crd::Shape, Crd::Stride>;
    #[inline(always)]
    fn slice_of(&self, crd: Crd) -> Result<(Self::Slice, isize), TensorError> {
        let (shape, stride, offset) = crd.slice(&self.shape(), &self.stride(), &mut 0)?;
        Ok((Layout::try_new(shape, stride)?, offset))
    }
}

/// The values of a flat int tuple (at most [`MAX_RANK`] integers).
#[inline(always)]
fn values<T: IntTuple>(t: &T) -> [isize; MAX_RANK] {
    let mut out = [0isize; MAX_RANK];
    t.store_values(&mut out, 0);
    out
}

/// Every tile extent divides the tensor's extent in its mode.
#[inline(always)]
pub(super) fn check_divides<S: IntTuple, T: IntTuple>(shape: &S, tiler: &T) -> Result<(), TensorError> {
    let (s, t) = (values(shape), values(tiler));
    for mode in 0..S::LEAVES.min(MAX_RANK) {
        if t[mode] <= 0 || s[mode] % t[mode] != 0 {
            return Err(TensorError::NotDivisible { mode, extent: s[mode], tile: t[mode] });
        }
    }
    Ok(())
}

/// CuTe's `local_tile(tensor, tiler, coord)` for a shape tiler (`(C<32>, C<32>)`): tile `coord`
/// of the tensor, a view of `T` elements per mode with the tensor's strides. A tile that reaches
/// past the tensor's shape (the last tile of a mode the tile does not divide) is an error, so that
/// no coordinate of the tile names an element outside the tensor; see [`TensorError::TilePastShape`].
///
/// The tensor's modes must be integers (see [`crate::algebra::tiling`]).
///
/// ```
/// use const_layout::tensor::{TensorError, local_tile, make_tensor};
/// use const_layout::{C, LayoutLeft, make_layout};
/// let data: Vec<i32> = (0..40).collect();
/// let a = make_tensor(&data, make_layout((8usize, 5usize), LayoutLeft).unwrap()).unwrap();
/// let t = local_tile(&a, (C::<4>, C::<2>), (1usize, 1usize)).unwrap();
/// assert_eq!(t.layout().to_string(), "(_4,_2):(_1,8)");
/// assert_eq!(t[(0usize, 0usize)], 4 + 2 * 8);
/// assert_eq!(
///     local_tile(&a, (C::<4>, C::<2>), (0usize, 2usize)).unwrap_err(),
///     TensorError::TilePastShape { mode: 1, coord: 2, tile: 2, extent: 5 }
/// );
/// ```
///
/// A tensor over a `DynLayout` (runtime structure: text, the tool, host-side set-up) takes the
/// core's [`Tiler`] and a [`DynIntTuple`] coordinate; its tiles must cover it exactly:
///
/// ```
/// use const_layout::algebra::Tiler;
/// use const_layout::dyn_layout::{DynIntTuple, DynLayout};
/// use const_layout::tensor::{local_tile, make_tensor};
/// let data: Vec<i32> = (0..48).collect();
/// let a = make_tensor(&data, "(8,6):(1,8)".parse::<DynLayout>().unwrap()).unwrap();
/// let tiler: Tiler = "<4:1, 3:1>".parse().unwrap();
/// let t = local_tile(&a, tiler, "(1,1)".parse::<DynIntTuple>().unwrap()).unwrap();
/// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [28, 29, 30, 31, 36, 37, 38, 39, 44, 45, 46, 47]);
/// assert!(local_tile(&a, tiler, "(2,0)".parse::<DynIntTuple>().unwrap()).is_err()); // past the tiles
/// ```
#[inline]
#[allow(clippy::type_complexity)]
pub fn local_tile<V, T, X>(
    tensor: V,
    tiler: T,
    coord: X,
) -> Result<V::View<<V::Layout as LocalTileOf<T, X>>::Tile>, TensorError>
where
    V: TensorView,
    V::Layout: LocalTileOf<T, X>,
{
    let (tile, offset) = tensor.layout().local_tile_of(tiler, coord)?;
    tensor.view_at(tile, offset, <V::Layout as LocalTileOf<T, X>>::WITHIN)
}

#[diagnostic::do_not_recommend]
impl<S, D, T, X> LocalTileOf<T, X> for Layout<S, D>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
    X: TileCoord<T, S, D> + IntTuple,
{
    type Tile = Layout<T::Tile, T::TileStride>;
    #[inline(always)]
    fn local_tile_of(&self, tiler: T, coord: X) -> Result<(Self::Tile, isize), TensorError> {
        let (s, t, c) = (values(&self.shape()), values(&tiler), values(&coord));
        for mode in 0..S::LEAVES.min(MAX_RANK) {
            // A negative coordinate is reported by `tiling::local_tile`.
            if c[mode] >= 0 && c[mode].saturating_add(1).saturating_mul(t[mode]) > s[mode] {
                return Err(TensorError::TilePastShape {
                    mode,
                    coord: c[mode],
                    tile: t[mode],
                    extent: s[mode],
                });
            }
        }
        Ok(tiling::local_tile(self, tiler, coord)?)
    }
}

/// CuTe's `zipped_divide(tensor, tiler)` for a shape tiler: the tensor seen as `((tile), (tiles))`,
/// `((T..), (s/T..)):((d..), (T*d..))`. Every tile extent must divide the tensor's extent
/// ([`TensorError::NotDivisible`] otherwise: CuTe's residue tiles would reach past the tensor).
///
/// ```
/// use const_layout::tensor::{Keep, make_tensor, zipped_divide};
/// use const_layout::{C, LayoutLeft, make_layout};
/// let data: Vec<i32> = (0..32).collect();
/// let a = make_tensor(&data, make_layout((8usize, 4usize), LayoutLeft).unwrap()).unwrap();
/// let z = zipped_divide(&a, (C::<4>, C::<2>)).unwrap();
/// assert_eq!(z.layout().to_string(), "((_4,_2),(2,2)):((_1,8),(_4,16))");
/// // Tile (1, 1), as `local_tile` would give it: CuTe's z(_, (1, 1)).
/// let tile = z.slice((Keep, (1usize, 1usize))).unwrap();
/// assert_eq!(tile.iter().copied().collect::<Vec<_>>(), [20, 21, 22, 23, 28, 29, 30, 31]);
/// ```
#[inline]
#[allow(clippy::type_complexity)]
pub fn zipped_divide<V, T>(
    tensor: V,
    tiler: T,
) -> Result<V::View<<V::Layout as ZippedDivideOf<T>>::Zipped>, TensorError>
where
    V: TensorView,
    V::Layout: ZippedDivideOf<T>,
{
    let (z, offset) = tensor.layout().zipped_divide_of(tiler)?;
    tensor.view_at(z, offset, <V::Layout as ZippedDivideOf<T>>::WITHIN)
}

#[diagnostic::do_not_recommend]
impl<S, D, T> ZippedDivideOf<T> for Layout<S, D>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
{
    type Zipped = Layout<T::ZipShape, T::ZipStride>;
    #[inline(always)]
    fn zipped_divide_of(&self, tiler: T) -> Result<(Self::Zipped, isize), TensorError> {
        check_divides(&self.shape(), &tiler)?;
        Ok((tiling::zipped_divide(self, tiler)?, 0))
    }
}

/// A thread layout's shape `Self` (with stride `TD`) that partitions a tensor of shape `S` and
/// stride `D` as CuTe's `local_partition` does: by `zipped_divide(tensor, shape(threads))`, thread
/// `t` taking the elements at its coordinate `threads.get_flat_coord(t)` in every tile.
/// Implemented for flat thread shapes of the tensor's rank (one integer per mode).
///
/// ```
/// use const_layout::tensor::PartitionBy;
/// use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
/// let threads = make_static_layout((C::<2>, C::<2>), LayoutLeft);
/// let a = make_layout((4usize, 6usize), LayoutLeft).unwrap();
/// let (mine, offset) = PartitionBy::partition(&threads, &a, 3).unwrap();
/// assert_eq!((mine.to_string(), offset), ("(2,3):(_2,8)".to_string(), 1 + 4));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a thread shape that partitions the shape `{S}`",
    label = "expected one integer per mode of the tensor",
    note = "`local_partition(tensor, threads, t)` tiles the tensor by `shape(threads)`; the tensor's modes and the thread shape's must be integers, one per mode"
)]
pub trait PartitionBy<S: IntTuple + LayoutShape<D>, D: IntTuple, TD: IntTuple>:
    IntTuple + LayoutShape<TD>
{
    /// One thread's shape: `s / T` per mode.
    type Shape: IntTuple + LayoutShape<Self::Stride>;
    /// One thread's stride: `T * d` per mode.
    type Stride: IntTuple;
    /// The layout of thread `index`'s elements and the offset of its first one, without checking
    /// divisibility (see [`local_partition`], which does).
    #[allow(clippy::type_complexity)]
    fn partition(
        threads: &Layout<Self, TD>,
        layout: &Layout<S, D>,
        index: usize,
    ) -> Result<(Layout<Self::Shape, Self::Stride>, isize), TensorError>;
    /// The offset of thread `index`'s first element.
    fn thread_offset(threads: &Layout<Self, TD>, layout: &Layout<S, D>, index: usize) -> isize;
}

type Zip<T, S, D> = (<T as ShapeTiler<S, D>>::ZipShape, <T as ShapeTiler<S, D>>::ZipStride);
type RestShape<T, S, D> = <Zip<T, S, D> as LayoutMode<1>>::Shape;
type RestStride<T, S, D> = <Zip<T, S, D> as LayoutMode<1>>::Stride;

impl<TS, TD, S, D> PartitionBy<S, D, TD> for TS
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    TD: IntTuple,
    TS: ShapeTiler<S, D> + LayoutShape<TD>,
    Zip<TS, S, D>: LayoutMode<1>,
    RestShape<TS, S, D>: LayoutShape<RestStride<TS, S, D>>,
    TS::FlatCoord: Crd2Idx<TS::Tile, TS::TileStride>,
{
    type Shape = RestShape<TS, S, D>;
    type Stride = RestStride<TS, S, D>;
    #[inline]
    fn partition(
        threads: &Layout<TS, TD>,
        layout: &Layout<S, D>,
        index: usize,
    ) -> Result<(Layout<Self::Shape, Self::Stride>, isize), TensorError> {
        // The second mode of `zipped_divide(layout, shape(threads))`: one element per tile.
        let zip = threads.shape().zipped(&layout.shape(), &layout.stride())?;
        let (shape, stride) = LayoutMode::<1>::mode(&zip);
        Ok((Layout::try_new(shape, stride)?, Self::thread_offset(threads, layout, index)))
    }
    #[inline(always)]
    fn thread_offset(threads: &Layout<TS, TD>, layout: &Layout<S, D>, index: usize) -> isize {
        // The first mode, the tile `(T..):(d..)`, at the thread's coordinate (CuTe's
        // `get_flat_coord`): a multiply-add per mode.
        let (shape, stride) = threads.shape().tile(&layout.stride());
        crate::layout::crd2idx(threads.get_flat_coord(index), &shape, &stride).value()
    }
}

/// CuTe's `local_partition(tensor, threads, index)`: the elements thread `index` of the thread
/// layout owns, one in every tile of `zipped_divide(tensor, shape(threads))`, at the thread's
/// coordinate `threads.get_flat_coord(index)`. The thread shape has one integer per mode of the
/// tensor and must divide it ([`TensorError::NotDivisible`] otherwise: some threads would own
/// coordinates past the tensor); `index` must be below `size(threads)`.
///
/// ```
/// use const_layout::tensor::{local_partition, make_tensor};
/// use const_layout::{C, LayoutLeft, LayoutRight, make_layout, make_static_layout};
/// let data: Vec<i32> = (0..24).collect();
/// let a = make_tensor(&data, make_layout((4usize, 6usize), LayoutLeft).unwrap()).unwrap();
/// // 2x3 threads, row-major: thread 4 has coordinate (1, 1).
/// let threads = make_static_layout((C::<2>, C::<3>), LayoutRight);
/// let mine = local_partition(&a, &threads, 4).unwrap();
/// assert_eq!(mine.layout().to_string(), "(2,2):(_2,12)");
/// assert_eq!(mine.iter().copied().collect::<Vec<_>>(), [5, 7, 17, 19]);
/// assert!(local_partition(&a, &threads, 6).is_err());
/// ```
#[inline]
#[allow(clippy::type_complexity)]
pub fn local_partition<V, Thr>(
    tensor: V,
    threads: &Thr,
    index: usize,
) -> Result<V::View<<V::Layout as LocalPartitionOf<Thr>>::Part>, TensorError>
where
    V: TensorView,
    V::Layout: LocalPartitionOf<Thr>,
{
    let (part, offset) = tensor.layout().local_partition_of(threads, index)?;
    tensor.view_at(part, offset, <V::Layout as LocalPartitionOf<Thr>>::WITHIN)
}

#[diagnostic::do_not_recommend]
impl<S, D, TS, TD> LocalPartitionOf<Layout<TS, TD>> for Layout<S, D>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    TS: PartitionBy<S, D, TD>,
    TD: IntTuple,
{
    type Part = Layout<TS::Shape, TS::Stride>;
    #[inline(always)]
    fn local_partition_of(
        &self,
        threads: &Layout<TS, TD>,
        index: usize,
    ) -> Result<(Self::Part, isize), TensorError> {
        let count = threads.size().value() as usize;
        if index >= count {
            return Err(TensorError::ThreadOutOfRange { index, threads: count });
        }
        check_divides(&self.shape(), &threads.shape())?;
        TS::partition(threads, self, index)
    }
}

// ---------------------------------------------------------------------------------------------
// Static layouts of the generic path: the part is a static layout, the offset folded index math.

/// Whether `part` repeated `count` times covers `whole` exactly, and if not the first mode whose
/// extent the part's does not divide (as [`TensorError::NotDivisible`]).
const fn covers(
    whole: &crate::dyn_layout::DynLayout,
    part: &crate::dyn_layout::DynLayout,
    count: isize,
) -> Option<TensorError> {
    let (w, p) = (whole.size(), part.size());
    if p.value.saturating_mul(count) == w.value {
        return None;
    }
    let mut mode = 0;
    while mode < whole.rank() && mode < part.rank() {
        if let (Some(a), Some(b)) = (whole.shape().mode(mode), part.shape().mode(mode))
            && let (Ok(a), Ok(b)) = (a.size(), b.size())
            && (b.value <= 0 || a.value % b.value != 0)
        {
            return Some(TensorError::NotDivisible { mode, extent: a.value, tile: b.value });
        }
        mode += 1;
    }
    Some(TensorError::NotDivisible { mode: 0, extent: w.value, tile: p.value })
}

/// The tiles of `A` by `T` cover it exactly (else the error, computed once per pair).
struct TilesCover<A, T>(PhantomData<(A, T)>);

impl<A: StaticLayout, T: StaticTiler> TilesCover<A, T> {
    const ERROR: Option<TensorError> = covers(
        &A::LAYOUT,
        &computed::LocalTile::<A, T>::LAYOUT,
        computed::Tiles::<A, T>::LAYOUT.size().value,
    );
}

/// A static layout is tiled by any static tiler that divides it; the tile coordinate is checked
/// against the tiles' arrangement (CuTe's residue tiles, which reach past the shape, are refused).
// A runtime operand gets the kind trait's message, not the static bound's.
#[diagnostic::do_not_recommend]
impl<E: StaticExpr, T: StaticTiler, X: IntTuple> LocalTileOf<T, X> for Computed<E> {
    type Tile = Computed<computed::LocalTile<Computed<E>, T>>;
    #[inline(always)]
    fn local_tile_of(&self, tiler: T, coord: X) -> Result<(Self::Tile, isize), TensorError> {
        if let Some(e) = const { TilesCover::<Computed<E>, T>::ERROR } {
            return Err(e);
        }
        let offset = Computed::<computed::Tiles<Computed<E>, T>>::default().checked_crd2idx(coord)?;
        Ok((computed::local_tile(*self, tiler, coord).0, offset))
    }
}

// A runtime operand gets the kind trait's message, not the static bound's.
#[diagnostic::do_not_recommend]
impl<E: StaticExpr, T: StaticTiler> ZippedDivideOf<T> for Computed<E> {
    type Zipped = Computed<computed::ZippedDivide<Computed<E>, T>>;
    #[inline(always)]
    fn zipped_divide_of(&self, tiler: T) -> Result<(Self::Zipped, isize), TensorError> {
        if let Some(e) = const { TilesCover::<Computed<E>, T>::ERROR } {
            return Err(e);
        }
        Ok((computed::zipped_divide(*self, tiler), 0))
    }
}

/// The threads' parts of `A` cover it exactly (else the error, computed once per pair).
struct PartsCover<A, Thr>(PhantomData<(A, Thr)>);

impl<A: StaticLayout, Thr: StaticLayout> PartsCover<A, Thr> {
    const ERROR: Option<TensorError> =
        covers(&A::LAYOUT, &Thr::LAYOUT, computed::LocalPartition::<A, Thr>::LAYOUT.size().value);
}

/// A static layout is partitioned among the threads of a static thread layout whose shape
/// divides it.
// A runtime operand gets the kind trait's message, not the static bound's.
#[diagnostic::do_not_recommend]
impl<E: StaticExpr, Thr: StaticLayout + AnyLayout> LocalPartitionOf<Thr> for Computed<E> {
    type Part = Computed<computed::LocalPartition<Computed<E>, Thr>>;
    #[inline(always)]
    fn local_partition_of(&self, threads: &Thr, index: usize) -> Result<(Self::Part, isize), TensorError> {
        let count = threads.size();
        if index >= count {
            return Err(TensorError::ThreadOutOfRange { index, threads: count });
        }
        if let Some(e) = const { PartsCover::<Computed<E>, Thr>::ERROR } {
            return Err(e);
        }
        Ok(computed::local_partition(*self, *threads, index))
    }
}

// ---------------------------------------------------------------------------------------------
// Runtime-structured layouts (`DynLayout`, host-side set-up: DECISIONS.md 13): the core's algebra,
// checked as the static path is (tiles that cover the layout exactly, coordinates inside).

/// `coord` (an integer: a 1-D index of the whole mode; a tuple: one coordinate per mode, each of
/// either kind) inside `shape`, else the error naming the first integer outside (`leaf`: its
/// position among the coordinate's integers, counted from `*leaf`).
fn check_coord(coord: &DynIntTuple, shape: &DynIntTuple, leaf: &mut usize) -> Result<(), TensorError> {
    if let Some(c) = coord.as_int() {
        let extent = shape.size()?.value;
        if c.value < 0 || c.value >= extent {
            return Err(LayoutError::CoordinateOutOfRange { leaf: *leaf, value: c.value, extent }.into());
        }
        *leaf += 1;
        return Ok(());
    }
    if shape.is_int() || coord.rank() != shape.rank() {
        let expected = if shape.is_int() { 1 } else { shape.rank() };
        return Err(LayoutError::RankMismatch { what: "coordinate", got: coord.rank(), expected }.into());
    }
    coord.modes().zip(shape.modes()).try_for_each(|(c, s)| check_coord(&c, &s, leaf))
}

/// A `DynLayout` is sliced by a [`Slicer`] (CuTe's coordinate with `_`, `"(_,2)".parse()`); its
/// fixed coordinates must lie inside their modes.
#[diagnostic::do_not_recommend]
impl SliceOf<Slicer> for DynLayout {
    type Slice = DynLayout;
    fn slice_of(&self, crd: Slicer) -> Result<(DynLayout, isize), TensorError> {
        check_coord(crd.coord(), self.shape(), &mut 0)?;
        let p = crate::algebra::slice_and_offset(&crd, self)?;
        Ok((p.layout, p.offset))
    }
}

/// A `DynLayout` is tiled by any [`Tiler`] whose tiles cover it exactly, at a tile coordinate
/// inside the tiles' arrangement (CuTe's residue tiles are refused, as for a static layout).
#[diagnostic::do_not_recommend]
impl LocalTileOf<Tiler, DynIntTuple> for DynLayout {
    type Tile = DynLayout;
    fn local_tile_of(&self, tiler: Tiler, coord: DynIntTuple) -> Result<(DynLayout, isize), TensorError> {
        let (tile, tiles) = crate::algebra::tile_and_tiles(self, &tiler)?;
        if let Some(e) = covers(self, &tile, tiles.size().value) {
            return Err(e);
        }
        check_coord(&coord, tiles.shape(), &mut 0)?;
        Ok((tile, tiles.crd2idx(&coord)?.value))
    }
}

/// A `DynLayout` is divided by any [`Tiler`] whose tiles cover it exactly.
#[diagnostic::do_not_recommend]
impl ZippedDivideOf<Tiler> for DynLayout {
    type Zipped = DynLayout;
    fn zipped_divide_of(&self, tiler: Tiler) -> Result<(DynLayout, isize), TensorError> {
        let (tile, tiles) = crate::algebra::tile_and_tiles(self, &tiler)?;
        if let Some(e) = covers(self, &tile, tiles.size().value) {
            return Err(e);
        }
        Ok((crate::algebra::zipped_divide(self, &tiler)?, 0))
    }
}

/// A `DynLayout` is partitioned among the threads of a `DynLayout` whose shape divides it.
#[diagnostic::do_not_recommend]
impl LocalPartitionOf<DynLayout> for DynLayout {
    type Part = DynLayout;
    fn local_partition_of(
        &self,
        threads: &DynLayout,
        index: usize,
    ) -> Result<(DynLayout, isize), TensorError> {
        let count = threads.size().value as usize;
        if index >= count {
            return Err(TensorError::ThreadOutOfRange { index, threads: count });
        }
        let (_, part) = crate::algebra::tile_and_tiles_of_threads(self, threads)?;
        if let Some(e) = covers(self, threads, part.size().value) {
            return Err(e);
        }
        let p = crate::algebra::local_partition(self, threads, DynInt::new_runtime(index as isize))?;
        Ok((p.layout, p.offset))
    }
}

/// `outer o (offset + part offset) o part`: a runtime composed layout narrowed inside (its outer
/// function does not commute with moving the start, as a swizzle's does not).
fn composed_part(c: &ComposedLayout, part: DynLayout, offset: isize) -> Result<ComposedLayout, TensorError> {
    let at = c.offset_value().value.checked_add(offset).ok_or(LayoutError::CosizeOverflow)?;
    Ok(ComposedLayout::with_offset(*c.outer(), DynInt::new_runtime(at), part))
}

/// A `DynLayout`'s part as a composed one, its offset inside after the identity swizzle
/// (`Sw<0,0,0>`, CuTe's own for unswizzled shared memory), so that both variants of a
/// `DynAnyLayout` give parts whose offsets are the tensor's.
fn plain_part(part: DynLayout, offset: isize) -> DynAnyLayout {
    const IDENTITY: Swizzle = match Swizzle::new(0, 0, 0) {
        Ok(s) => s,
        Err(_) => panic!("Sw<0,0,0> is a swizzle"),
    };
    DynAnyLayout::Composed(ComposedLayout::with_offset(
        Outer::Swizzle(IDENTITY),
        DynInt::new_runtime(offset),
        part,
    ))
}

// The runtime-structured kinds narrowed as their `DynLayout`: a `ComposedLayout` (`Sw<3,3,3> o 0
// o (8,64):(64,1)` with runtime structure) as its inner layout, the offset kept inside; a
// `DynAnyLayout` (either, chosen at run time) as the one it holds, its part composed either way.
macro_rules! runtime_narrowing {
    ($($Trait:ident<$($P:ident),+> $Assoc:ident $method:ident($($arg:ident: $T:ty),+);)+) => {$(
        #[diagnostic::do_not_recommend]
        impl<$($P),+> $Trait<$($P),+> for ComposedLayout
        where
            DynLayout: $Trait<$($P),+, $Assoc = DynLayout>,
        {
            type $Assoc = ComposedLayout;
            const WITHIN: bool = true;
            fn $method(&self, $($arg: $T),+) -> Result<(ComposedLayout, isize), TensorError> {
                let (part, offset) = self.inner().$method($($arg),+)?;
                Ok((composed_part(self, part, offset)?, 0))
            }
        }

        #[diagnostic::do_not_recommend]
        impl<$($P),+> $Trait<$($P),+> for DynAnyLayout
        where
            DynLayout: $Trait<$($P),+, $Assoc = DynLayout>,
        {
            type $Assoc = DynAnyLayout;
            const WITHIN: bool = true;
            fn $method(&self, $($arg: $T),+) -> Result<(DynAnyLayout, isize), TensorError> {
                match self {
                    DynAnyLayout::Layout(l) => {
                        let (part, offset) = l.$method($($arg),+)?;
                        Ok((plain_part(part, offset), 0))
                    }
                    DynAnyLayout::Composed(c) => Ok((DynAnyLayout::Composed(c.$method($($arg),+)?.0), 0)),
                }
            }
        }
    )+};
}

runtime_narrowing! {
    SliceOf<Crd> Slice slice_of(crd: Crd);
    LocalTileOf<T, X> Tile local_tile_of(tiler: T, coord: X);
    ZippedDivideOf<T> Zipped zipped_divide_of(tiler: T);
    LocalPartitionOf<Thr> Part local_partition_of(threads: &Thr, index: usize);
}

// ---------------------------------------------------------------------------------------------
// Swizzled layouts: the layout inside the swizzle is narrowed, and the offset stays inside.

macro_rules! swizzled_narrowing {
    ($([$($g:tt)*] $Kind:ty, $Inner:ty, |$l:ident| ($off:expr, $inner:expr);)+) => {$(
        #[diagnostic::do_not_recommend]
        impl<const B: u32, const M: u32, const S: i32, $($g)*, Crd> SliceOf<Crd> for $Kind
        where
            $Inner: SliceOf<Crd>,
        {
            type Slice = OffsetSwizzled<B, M, S, <$Inner as SliceOf<Crd>>::Slice>;
            const WITHIN: bool = true;
            #[inline(always)]
            fn slice_of(&self, crd: Crd) -> Result<(Self::Slice, isize), TensorError> {
                let $l = self;
                let (part, offset) = $inner.slice_of(crd)?;
                Ok((OffsetSwizzled::new(($off).wrapping_add(offset), part), 0))
            }
        }

        #[diagnostic::do_not_recommend]
        impl<const B: u32, const M: u32, const S: i32, $($g)*, T, X> LocalTileOf<T, X> for $Kind
        where
            $Inner: LocalTileOf<T, X>,
        {
            type Tile = OffsetSwizzled<B, M, S, <$Inner as LocalTileOf<T, X>>::Tile>;
            const WITHIN: bool = true;
            #[inline(always)]
            fn local_tile_of(&self, tiler: T, coord: X) -> Result<(Self::Tile, isize), TensorError> {
                let $l = self;
                let (part, offset) = $inner.local_tile_of(tiler, coord)?;
                Ok((OffsetSwizzled::new(($off).wrapping_add(offset), part), 0))
            }
        }

        #[diagnostic::do_not_recommend]
        impl<const B: u32, const M: u32, const S: i32, $($g)*, T> ZippedDivideOf<T> for $Kind
        where
            $Inner: ZippedDivideOf<T>,
        {
            type Zipped = OffsetSwizzled<B, M, S, <$Inner as ZippedDivideOf<T>>::Zipped>;
            const WITHIN: bool = true;
            #[inline(always)]
            fn zipped_divide_of(&self, tiler: T) -> Result<(Self::Zipped, isize), TensorError> {
                let $l = self;
                let (part, offset) = $inner.zipped_divide_of(tiler)?;
                Ok((OffsetSwizzled::new(($off).wrapping_add(offset), part), 0))
            }
        }

        impl<const B: u32, const M: u32, const S: i32, $($g)*> $Kind {
            /// CuTe's `local_tile(layout, tiler, coord)` on a swizzled layout: the tile of the
            /// layout inside the swizzle, the swizzle kept after it (the tile's offset stays
            /// inside the swizzle, so the offset returned is 0); what [`local_tile`] does to a
            /// tensor over this layout.
            ///
            /// ```
            /// use const_layout::tensor::{local_tile, make_tensor};
            /// use const_layout::{AnyLayout, C, layout};
            /// let smem = layout!(composition(Sw<3,4,3>, (8,64):(64,1)));
            /// let (tile, offset) = smem.local_tile((C::<4>, C::<16>), (1usize, 2usize)).unwrap();
            /// assert_eq!(offset, 0);
            /// // (An `OffsetSwizzled`'s own `offset()` is its offset; the layout's is `AnyLayout`'s.)
            /// assert_eq!(AnyLayout::offset(&tile, 5), smem.crd2idx((5usize, 33usize)));
            /// let data: Vec<usize> = (0..512).collect();
            /// let t = local_tile(make_tensor(&data, smem).unwrap(), (C::<4>, C::<16>), (1usize, 2usize)).unwrap();
            /// assert_eq!(t.iter().count(), 64);
            /// assert!(t.iter().enumerate().all(|(i, &x)| x == AnyLayout::offset(&tile, i) as usize));
            /// ```
            #[inline(always)]
            pub fn local_tile<T, X>(
                &self,
                tiler: T,
                coord: X,
            ) -> Result<(<Self as LocalTileOf<T, X>>::Tile, isize), TensorError>
            where
                Self: LocalTileOf<T, X>,
            {
                self.local_tile_of(tiler, coord)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<const B: u32, const M: u32, const S: i32, $($g)*, Thr> LocalPartitionOf<Thr> for $Kind
        where
            $Inner: LocalPartitionOf<Thr>,
        {
            type Part = OffsetSwizzled<B, M, S, <$Inner as LocalPartitionOf<Thr>>::Part>;
            const WITHIN: bool = true;
            #[inline(always)]
            fn local_partition_of(&self, threads: &Thr, index: usize) -> Result<(Self::Part, isize), TensorError> {
                let $l = self;
                let (part, offset) = $inner.local_partition_of(threads, index)?;
                Ok((OffsetSwizzled::new(($off).wrapping_add(offset), part), 0))
            }
        }
    )+};
}

swizzled_narrowing! {
    [Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize] SwizzledLayout<B, M, S, Sh, St, O>, Layout<Sh, St>,
        |l| (O, l.layout());
    [A: StaticLayout + AnyLayout + Default] StaticSwizzled<B, M, S, A>, A, |l| (0isize, { let _ = l; A::default() });
    [L: AnyLayout] OffsetSwizzled<B, M, S, L>, L, |l| (l.offset(), l.layout());
}

local_partition_methods! {
    "On a swizzled layout: the part of the layout inside the swizzle, the swizzle kept after it (the offset stays inside the swizzle, so the offset returned is 0).",
    "use const_layout::tensor::{local_partition, make_tensor};
use const_layout::{AnyLayout, layout};
let smem = layout!(composition(Sw<3,4,3>, (8,64):(64,1)));
let threads = layout!((2,4):(4,1));
let (part, offset) = smem.local_partition(&threads, 3).unwrap();
let data: Vec<usize> = (0..512).collect();
let t = local_partition(make_tensor(&data, smem).unwrap(), &threads, 3).unwrap();
assert_eq!((offset, AnyLayout::size(&part)), (0, 64));
assert_eq!(t.iter().count(), 64);
assert!(t.iter().enumerate().all(|(i, &x)| x == AnyLayout::offset(&part, i) as usize));
assert!(smem.local_partition(&threads, 8).is_err());";
    [const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize]
        SwizzledLayout<B, M, S, Sh, St, O>;
    [const B: u32, const M: u32, const S: i32, A: StaticLayout + AnyLayout + Default] StaticSwizzled<B, M, S, A>;
    [const B: u32, const M: u32, const S: i32, L: AnyLayout] OffsetSwizzled<B, M, S, L>;
}

slice_methods! {
    "On a swizzled layout: the slice of the layout inside the swizzle, the swizzle kept after it (the offset returned is 0).",
    "use const_layout::tensor::Keep;
use const_layout::{AnyLayout, layout};
let smem = layout!(composition(Sw<3,4,3>, (8,64):(64,1)));
let (row, offset) = smem.slice_and_offset((5usize, Keep)).unwrap();
assert_eq!((offset, AnyLayout::size(&row)), (0, 64));
assert!((0..64usize).all(|c| AnyLayout::offset(&row, c) == smem.crd2idx((5usize, c))));";
    [const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize]
        SwizzledLayout<B, M, S, Sh, St, O>;
    [const B: u32, const M: u32, const S: i32, A: StaticLayout + AnyLayout + Default] StaticSwizzled<B, M, S, A>;
    [const B: u32, const M: u32, const S: i32, L: AnyLayout] OffsetSwizzled<B, M, S, L>;
}
