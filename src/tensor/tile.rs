//! CuTe's tensor functions that narrow a view: `slice`, `local_tile`, `zipped_divide`,
//! `local_partition`. Each computes the sub-layout with the typed layout functions
//! ([`crate::layout::tiling`], [`SliceCoord`]) and re-slices the view to the elements it reaches.

use super::{SliceCoord, TensorError, TensorView};
use crate::MAX_RANK;
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::tiling::{self, ShapeTiler, TileCoord};
use crate::layout::{Crd2Idx, Layout, LayoutMode, LayoutShape};

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
pub fn slice<V, Crd>(tensor: V, crd: Crd) -> Result<V::View<Crd::Shape, Crd::Stride>, TensorError>
where
    V: TensorView,
    Crd: SliceCoord<V::Shape, V::Stride>,
    Crd::Shape: LayoutShape<Crd::Stride>,
{
    let layout = tensor.layout();
    let (shape, stride, offset) = crd.slice(&layout.shape(), &layout.stride(), &mut 0)?;
    tensor.view_at(Layout::try_new(shape, stride)?, offset)
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
/// The tensor's modes must be integers (see [`crate::layout::tiling`]).
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
#[inline]
#[allow(clippy::type_complexity)]
pub fn local_tile<V, T, X>(
    tensor: V,
    tiler: T,
    coord: X,
) -> Result<V::View<T::Tile, T::TileStride>, TensorError>
where
    V: TensorView,
    T: ShapeTiler<V::Shape, V::Stride>,
    X: TileCoord<T, V::Shape, V::Stride> + IntTuple,
{
    let layout = tensor.layout();
    let (s, t, c) = (values(&layout.shape()), values(&tiler), values(&coord));
    for mode in 0..V::Shape::LEAVES.min(MAX_RANK) {
        // A negative coordinate is reported by `tiling::local_tile`.
        if c[mode] >= 0 && c[mode].saturating_add(1).saturating_mul(t[mode]) > s[mode] {
            return Err(TensorError::TilePastShape { mode, coord: c[mode], tile: t[mode], extent: s[mode] });
        }
    }
    let (tile, offset) = tiling::local_tile(&layout, tiler, coord)?;
    tensor.view_at(tile, offset)
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
pub fn zipped_divide<V, T>(tensor: V, tiler: T) -> Result<V::View<T::ZipShape, T::ZipStride>, TensorError>
where
    V: TensorView,
    T: ShapeTiler<V::Shape, V::Stride>,
{
    let layout = tensor.layout();
    check_divides(&layout.shape(), &tiler)?;
    let z = tiling::zipped_divide(&layout, tiler)?;
    tensor.view_at(z, 0)
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
pub fn local_partition<V, TS, TD>(
    tensor: V,
    threads: &Layout<TS, TD>,
    index: usize,
) -> Result<V::View<TS::Shape, TS::Stride>, TensorError>
where
    V: TensorView,
    TS: PartitionBy<V::Shape, V::Stride, TD>,
    TD: IntTuple,
{
    let layout = tensor.layout();
    let count = threads.size().value() as usize;
    if index >= count {
        return Err(TensorError::ThreadOutOfRange { index, threads: count });
    }
    check_divides(&layout.shape(), &threads.shape())?;
    let (part, offset) = TS::partition(threads, &layout, index)?;
    tensor.view_at(part, offset)
}
