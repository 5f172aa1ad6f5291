//! CuTe's `Tensor`: a slice of elements seen through a layout.
//!
//! [`Tensor`] borrows `&[T]` and [`TensorMut`] borrows `&mut [T]`; both pair the borrow with a
//! layout of any kind, most often a typed `Layout<S, D>` (static, runtime or mixed integers: a
//! static tile over a runtime-sized matrix is the common case). [`make_tensor`] checks **once** that every offset the layout
//! produces lies inside the slice; after that, element access cannot leave the slice, so no access
//! can read the wrong memory, and the checks that remain per access are the coordinate's (see
//! the decisions below).
//!
//! The operations keep CuTe's names and meaning: element access by coordinate (an integer index,
//! a flat coordinate, or a hierarchical one: whatever [`Layout::crd2idx`] takes), slicing with `_`
//! ([`Keep`], since `_` is not a Rust value: CuTe's `tensor(_, j)` is `tensor.slice((Keep, j))`),
//! [`local_tile`], [`local_partition`], [`zipped_divide`] and [`copy`] (vectorized into
//! `copy_from_slice` runs where both layouts are contiguous together). With the `alloc` feature a
//! mutable tensor splits into one disjoint mutable partition per thread
//! ([`TensorMut::partitions`]), and with `rayon` those run in parallel
//! ([`TensorMut::par_partitions`]).
//!
//! # Decisions
//!
//! - **Bounds once.** A view stores the slice cut to exactly the `cosize` elements its layout
//!   reaches. For a fully static layout the accessors cut it again to the *constant* cosize, so
//!   after inlining the optimizer sees `offset < COSIZE` for coordinates it knows are in range and
//!   removes the slice's bounds check (one comparison of the length, outside the loop, remains,
//!   as in a hand-written `let a = &a[..COSIZE];`). Measured in release builds: loops over a
//!   static 32x32 tensor (by coordinate, by index, reads and writes) and a static transpose `copy`
//!   compile to the same instructions as the hand-written slice loops. With runtime strides one
//!   comparison remains per access, which the optimizer hoists per contiguous column.
//! - **No wrong answers.** CuTe does not check coordinates; here [`Tensor::get`] returns `None`
//!   for a coordinate outside the shape (`tensor[crd]` panics, as slice indexing does), because
//!   with a padded or tiled layout an out-of-range coordinate would otherwise silently name
//!   another element. For the same reason the tensor versions of [`local_tile`],
//!   [`zipped_divide`] and [`local_partition`] refuse tiles that reach past the tensor's shape
//!   (CuTe's residue tiles): [`TensorError::TilePastShape`], [`TensorError::NotDivisible`].
//! - **Negative strides** are accepted: the layout's offsets `min..=max` are shifted so that the
//!   smallest lands on element 0 of the slice, as CuTe's `make_tensor(ptr - min, layout)` would
//!   place them (`4:-1` over `[a, b, c, d]` reads `d, c, b, a`).
//! - **Any layout, one set of functions.** A tensor's layout is any [`AnyLayout`]: a typed
//!   [`Layout`], a static result of the generic algebra
//!   ([`Computed`](crate::algebra::computed::Computed)), a swizzled layout (`Sw<3,3,3> o
//!   (8,64):(64,1)` for shared memory), a [`DynLayout`](crate::dyn_layout::DynLayout) or a
//!   [`ComposedLayout`](crate::swizzle::ComposedLayout). Element access, iteration, `fill` and
//!   [`copy`] take any; a static one keeps its bounds checks folded (its offset range is a
//!   constant), and [`copy`] between two static ones is planned and shape-checked at compile
//!   time. The narrowing functions ([`slice()`], [`local_tile`], [`zipped_divide`],
//!   [`local_partition`]) take every kind that says how it is narrowed ([`SliceOf`],
//!   [`LocalTileOf`], [`ZippedDivideOf`], [`LocalPartitionOf`]): typed layouts whose modes are
//!   integers (the scope of [`crate::algebra::tiling`], which they reuse), static `Computed`
//!   layouts (any static tiler or thread layout that divides them, the part a static layout),
//!   and swizzled layouts of either, whose parts keep the offset inside the swizzle
//!   ([`OffsetSwizzled`](crate::layout::OffsetSwizzled): a swizzle does not commute with
//!   moving the start), and `DynLayout`s (host-side set-up, DECISIONS.md 13: a
//!   [`Slicer`](crate::algebra::Slicer), the core's [`Tiler`](crate::algebra::Tiler) with a
//!   `DynIntTuple` tile coordinate, a `DynLayout` of threads; tiles must cover the layout, as for a
//!   static one), a [`ComposedLayout`](crate::swizzle::ComposedLayout) as its inner `DynLayout`
//!   (the offset kept inside its outer function) and a `DynAnyLayout` as the one it holds (its
//!   part composed either way: a plain layout's after the identity swizzle `Sw<0,0,0>`).
//!   [`Tensor::view`] is CuTe's `make_tensor(data + offset, layout)` for any part computed by
//!   hand.
//! - **`copy` checks the shapes.** CuTe's `copy` checks only that the sizes are equal; here the
//!   shapes must also be compatible one way or the other (`(32,32)` and `((4,8),32)`, or either
//!   and `1024`), so that a `(4,6)` tensor is not silently copied into a `(6,4)` one in index
//!   order ([`TensorError::ShapeMismatch`]).
//!
//! # A tiled transpose
//!
//! Copy a row-major matrix into a column-major one, 32x32 tile by tile, each tile by 32 "threads"
//! (an 8x4 thread layout), as a CuTe kernel would:
//!
//! ```
//! use const_layout::tensor::{copy, local_partition, local_tile, make_tensor, make_tensor_mut};
//! use const_layout::{C, LayoutLeft, LayoutRight, make_layout, make_static_layout};
//! let (m, n) = (64usize, 96usize);
//! let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
//! let mut dst = vec![0.0f32; m * n];
//! let a = make_tensor(&src, make_layout((m, n), LayoutRight)?)?; // row-major
//! let mut b = make_tensor_mut(&mut dst, make_layout((m, n), LayoutLeft)?)?; // column-major
//! let threads = make_static_layout((C::<8>, C::<4>), LayoutLeft);
//! let tile = (C::<32>, C::<32>);
//! for bj in 0..n / 32 {
//!     for bi in 0..m / 32 {
//!         let ta = local_tile(&a, tile, (bi, bj))?; // (_32,_32):(n,_1)
//!         let mut tb = local_tile(&mut b, tile, (bi, bj))?; // (_32,_32):(_1,m)
//!         for t in 0..32 {
//!             // Thread t's elements: (_4,_8) of them, every 8th row and every 4th column.
//!             let from = local_partition(&ta, &threads, t)?;
//!             let mut to = local_partition(&mut tb, &threads, t)?;
//!             copy(&from, &mut to)?;
//!         }
//!     }
//! }
//! assert!((0..m).all(|i| (0..n).all(|j| dst[i + j * m] == src[i * n + j])));
//! # Ok::<(), const_layout::tensor::TensorError>(())
//! ```
//!
//! # A tiled SGEMM inner loop
//!
//! `C = A * B^T` with `A` `(M,K)`, `B` `(N,K)` and `C` `(M,N)` column-major, CuTe's `sgemm_1`
//! shape: block tiles of `(_16,_16,_4)`, each thread of a `(_4,_4)` thread layout owning a
//! `(_4,_4)` part of the block's `C`, reading the matching rows of `A` and of `B`:
//!
//! ```
//! use const_layout::tensor::{local_partition, local_tile, make_tensor, make_tensor_mut};
//! use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
//! let (m, n, k) = (32usize, 16usize, 8usize);
//! let a_data: Vec<f32> = (0..m * k).map(|x| (x % 7) as f32).collect();
//! let b_data: Vec<f32> = (0..n * k).map(|x| (x % 5) as f32).collect();
//! let mut c_data = vec![0.0f32; m * n];
//! let a = make_tensor(&a_data, make_layout((m, k), LayoutLeft)?)?;
//! let b = make_tensor(&b_data, make_layout((n, k), LayoutLeft)?)?;
//! let mut c = make_tensor_mut(&mut c_data, make_layout((m, n), LayoutLeft)?)?;
//! let (bm, bn, bk) = (C::<16>, C::<16>, C::<4>);
//! let thr_c = make_static_layout((C::<4>, C::<4>), LayoutLeft); // thread t = (t % 4, t / 4)
//! let thr_ab = make_static_layout((C::<4>, C::<1>), LayoutLeft); // one row group per index
//! for bi in 0..m / 16 {
//!     for bj in 0..n / 16 {
//!         let mut g_c = local_tile(&mut c, (bm, bn), (bi, bj))?;
//!         for kb in 0..k / 4 {
//!             let g_a = local_tile(&a, (bm, bk), (bi, kb))?; // (_16,_4)
//!             let g_b = local_tile(&b, (bn, bk), (bj, kb))?; // (_16,_4)
//!             for t in 0..16 {
//!                 let mut t_c = local_partition(&mut g_c, &thr_c, t)?; // (_4,_4)
//!                 let t_a = local_partition(&g_a, &thr_ab, t % 4)?; // (_4,_4): rows t%4 + 4i
//!                 let t_b = local_partition(&g_b, &thr_ab, t / 4)?; // (_4,_4): rows t/4 + 4j
//!                 for kk in 0..4usize {
//!                     for j in 0..4usize {
//!                         for i in 0..4usize {
//!                             t_c[(i, j)] += t_a[(i, kk)] * t_b[(j, kk)];
//!                         }
//!                     }
//!                 }
//!             }
//!         }
//!     }
//! }
//! for i in 0..m {
//!     for j in 0..n {
//!         let want: f32 = (0..k).map(|p| a_data[i + p * m] * b_data[j + p * n]).sum();
//!         assert_eq!(c_data[i + j * m], want);
//!     }
//! }
//! # Ok::<(), const_layout::tensor::TensorError>(())
//! ```

mod copy;
mod error;
#[cfg(feature = "alloc")]
mod partition;
mod slice;
mod tile;

pub use self::copy::{copy, copy_vector};
pub use self::error::TensorError;
#[cfg(feature = "alloc")]
pub use self::partition::{PartIndex, Partition, Partitions};
pub use self::slice::SliceCoord;
pub use self::tile::{
    LocalPartitionOf, LocalTileOf, PartitionBy, SliceOf, ZippedDivideOf, local_partition, local_tile, slice,
    zipped_divide,
};
pub use crate::algebra::computed::Keep;

use crate::int_tuple::IntTuple;
use crate::layout::{AnyLayout, AnyOffsets, Layout, LayoutCoord, LayoutShape};
use core::fmt;
use core::ops::{Index, IndexMut};

/// CuTe's `Tensor` over borrowed, read-only elements: a slice and a layout `L` (any
/// [`AnyLayout`]). Made by [`make_tensor`]; `Copy`, like the borrow it holds.
///
/// Element `crd` is the slice's element at the layout's offset of `crd` (shifted for negative
/// strides, see the [module](self)). Every offset was checked against the slice when the tensor
/// was made.
///
/// ```
/// use const_layout::tensor::make_tensor;
/// use const_layout::{C, make_layout};
/// let data: Vec<u32> = (0..12).collect();
/// let t = make_tensor(&data, make_layout((C::<3>, 4usize), (4isize, C::<1>)).unwrap()).unwrap();
/// assert_eq!(t[(2usize, 1usize)], 9); // row-major: 2 * 4 + 1
/// assert_eq!(t.get((3usize, 0usize)), None); // row 3 is outside the shape
/// ```
pub struct Tensor<'a, T, L> {
    /// Exactly the elements the layout reaches: `cosize` of them.
    data: &'a [T],
    /// Where offset 0 is in `data`: `-min offset` (0 unless a stride is negative).
    base: usize,
    layout: L,
}

/// CuTe's `Tensor` over borrowed, mutable elements. Made by [`make_tensor_mut`]; see [`Tensor`].
///
/// Operations that narrow the view ([`local_tile`], [`slice()`], ...) take it by value and return a
/// view with the same lifetime, or take `&mut tensor` and return a view borrowing it (CuTe code
/// reads the same: `local_tile(&mut c, tile, coord)`).
///
/// ```
/// use const_layout::tensor::make_tensor_mut;
/// use const_layout::{C, LayoutLeft, make_layout};
/// let mut data = vec![0u32; 6];
/// let mut t = make_tensor_mut(&mut data, make_layout((C::<2>, 3usize), LayoutLeft).unwrap()).unwrap();
/// t[(1usize, 2usize)] = 7;
/// *t.get_mut(0usize).unwrap() = 1;
/// assert_eq!(data, [1, 0, 0, 0, 0, 7]);
/// ```
pub struct TensorMut<'a, T, L> {
    data: &'a mut [T],
    base: usize,
    layout: L,
}

impl<T, L: Copy> Clone for Tensor<'_, T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L: Copy> Copy for Tensor<'_, T, L> {}

/// The position in a view's `data` of the offset `off`, and the part of `data` to index it in:
/// for a static layout `data` cut to its constant length, so that the optimizer can prove the
/// position in range from the coordinate's range and drop the bounds check.
#[inline(always)]
fn position<L: AnyLayout>(layout: &L, base: usize, len: usize, off: isize) -> (usize, usize) {
    if L::IS_STATIC
        && let Ok((lo, hi)) = layout.offset_range()
    {
        return ((lo.wrapping_neg() as usize).wrapping_add(off as usize), hi.wrapping_sub(lo) as usize + 1);
    }
    (base.wrapping_add(off as usize), len)
}

/// The shift (`-min offset`) and span (`max - min`) of any layout's offsets: what a view over it
/// holds. `Err` for a layout whose values are not offsets (basis strides).
#[inline(always)]
fn any_extent<L: AnyLayout>(layout: &L) -> Result<(usize, usize), TensorError> {
    let (lo, hi) = layout.offset_range()?;
    // `hi - lo` of a checked layout fits `usize` even where it overflows `isize`.
    Ok((lo.wrapping_neg() as usize, (hi as usize).wrapping_sub(lo as usize)))
}

/// CuTe's `make_tensor(ptr, layout)` for a slice: the read-only tensor, after checking once that
/// the layout's offsets fit in `data` (its `cosize` elements, from the first). Never panics.
/// `layout` is any [`AnyLayout`]; one whose values are not offsets (basis strides) is an error.
///
/// A layout with negative strides is shifted so that its smallest offset is `data[0]` (see the
/// [module](self)). Elements beyond the cosize are not part of the view.
///
/// ```
/// use const_layout::tensor::{TensorError, make_tensor};
/// use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
/// let data = [0, 1, 2, 3, 4, 5, 6, 7];
/// let t = make_tensor(&data, make_static_layout((C::<2>, C::<4>), LayoutLeft)).unwrap();
/// assert_eq!(t[(1usize, 3usize)], 7);
/// let rev = make_tensor(&data, make_static_layout(C::<4>, C::<-1>)).unwrap();
/// assert_eq!(rev.iter().copied().collect::<Vec<_>>(), [3, 2, 1, 0]);
/// let long = make_layout((3usize, 3usize), LayoutLeft).unwrap();
/// assert_eq!(make_tensor(&data, long).unwrap_err(), TensorError::SliceTooShort { cosize: 9, len: 8 });
/// // A swizzled layout: Sw<1,0,1> exchanges offsets 2 and 3.
/// let sw = make_tensor(&data, const_layout::layout!(composition(Sw<1,0,1>, (2,2):(1,2)))).unwrap();
/// assert_eq!(sw.iter().copied().collect::<Vec<_>>(), [0, 1, 3, 2]);
/// ```
#[inline]
pub fn make_tensor<T, L: AnyLayout>(data: &[T], layout: L) -> Result<Tensor<'_, T, L>, TensorError> {
    let (base, span) = any_extent(&layout)?;
    match data.get(..=span) {
        Some(data) => Ok(Tensor { data, base, layout }),
        None => Err(TensorError::SliceTooShort { cosize: span + 1, len: data.len() }),
    }
}

/// CuTe's `make_tensor(ptr, layout)` for a mutable slice: see [`make_tensor`].
///
/// ```
/// use const_layout::tensor::make_tensor_mut;
/// use const_layout::{C, LayoutRight, make_static_layout};
/// let mut data = [0u8; 6];
/// let mut t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<3>), LayoutRight)).unwrap();
/// t.for_each_mut(|i, x| *x = i as u8);
/// assert_eq!(data, [0, 2, 4, 1, 3, 5]);
/// ```
#[inline]
pub fn make_tensor_mut<T, L: AnyLayout>(
    data: &mut [T],
    layout: L,
) -> Result<TensorMut<'_, T, L>, TensorError> {
    let (base, span) = any_extent(&layout)?;
    let len = data.len();
    match data.get_mut(..=span) {
        Some(data) => Ok(TensorMut { data, base, layout }),
        None => Err(TensorError::SliceTooShort { cosize: span + 1, len }),
    }
}

/// The range of `data` (of a view with shift `base`) that a sub-view with layout `layout` at offset
/// `offset` reaches, and the sub-view's shift.
fn sub_range<L: AnyLayout>(
    base: usize,
    len: usize,
    layout: &L,
    offset: isize,
) -> Result<(core::ops::RangeInclusive<usize>, usize), TensorError> {
    let (neg, span) = any_extent(layout)?;
    // Sub-views come from the tensor's own layout, so they are inside; checked all the same, so
    // that no path can index outside the slice.
    let start = (base as isize).checked_add(offset).and_then(|s| s.checked_sub(neg as isize));
    match start {
        Some(start) if start >= 0 && (start as usize).checked_add(span).is_some_and(|end| end < len) => {
            Ok((start as usize..=start as usize + span, neg))
        }
        _ => Err(TensorError::SliceTooShort { cosize: span.saturating_add(1), len }),
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A tensor view the CuTe functions ([`slice()`], [`local_tile`], [`local_partition`],
/// [`zipped_divide`]) narrow: [`Tensor`] or `&Tensor` (giving a `Tensor`), [`TensorMut`] (giving
/// a `TensorMut` of the same lifetime), `&mut TensorMut` (giving a `TensorMut` borrowing it) or
/// `&TensorMut` (giving a `Tensor` borrowing it), over any layout. Sealed.
///
/// ```
/// use const_layout::tensor::{TensorView, make_tensor};
/// use const_layout::{AnyLayout, C, make_static_layout};
/// fn rank<V: TensorView>(v: &V) -> usize { v.layout().rank() }
/// let data = [0u8; 8];
/// let t = make_tensor(&data, make_static_layout((C::<2>, C::<4>), (C::<1>, C::<2>))).unwrap();
/// assert_eq!(rank(&t), 2);
/// ```
pub trait TensorView: sealed::Sealed + Sized {
    /// The element type.
    type Elem;
    /// The layout.
    type Layout: AnyLayout;
    /// The same kind of view with layout `L2`.
    type View<L2>;
    /// The layout.
    fn layout(&self) -> Self::Layout;
    /// The sub-view with layout `layout` whose offset 0 is this view's offset `offset`; an error
    /// (never a panic) if it reaches outside this view's elements. With `within`, the sub-view
    /// keeps this view's elements (a swizzled tile, whose offsets are this view's: its range is
    /// not computed). The building block of the narrowing functions.
    #[doc(hidden)]
    fn view_at<L2: AnyLayout>(
        self,
        layout: L2,
        offset: isize,
        within: bool,
    ) -> Result<Self::View<L2>, TensorError>;
}

macro_rules! shared_view {
    ($([$($lt:lifetime),*] $Self:ty => $out:lifetime;)+) => {$(
        impl<$($lt,)* T, L: AnyLayout> sealed::Sealed for $Self {}
        impl<$($lt,)* T, L: AnyLayout> TensorView for $Self {
            type Elem = T;
            type Layout = L;
            type View<L2> = Tensor<$out, T, L2>;
            #[inline(always)]
            fn layout(&self) -> L {
                self.layout
            }
            #[inline]
            fn view_at<L2: AnyLayout>(
                self,
                layout: L2,
                offset: isize,
                within: bool,
            ) -> Result<Tensor<$out, T, L2>, TensorError> {
                let data: &$out [T] = &*self.data;
                if within {
                    return Ok(Tensor { data, base: self.base, layout });
                }
                let (range, base) = sub_range(self.base, data.len(), &layout, offset)?;
                match data.get(range) {
                    Some(data) => Ok(Tensor { data, base, layout }),
                    None => Err(TensorError::SliceTooShort { cosize: 0, len: data.len() }),
                }
            }
        }
    )+};
}
shared_view! {
    ['a] Tensor<'a, T, L> => 'a;
    ['a, 'b] &'b Tensor<'a, T, L> => 'a;
    ['a, 'b] &'b TensorMut<'a, T, L> => 'b;
}

macro_rules! mut_view {
    ($([$($lt:lifetime),*] $Self:ty => $out:lifetime;)+) => {$(
        impl<$($lt,)* T, L: AnyLayout> sealed::Sealed for $Self {}
        impl<$($lt,)* T, L: AnyLayout> TensorView for $Self {
            type Elem = T;
            type Layout = L;
            type View<L2> = TensorMut<$out, T, L2>;
            #[inline(always)]
            fn layout(&self) -> L {
                self.layout
            }
            #[inline]
            fn view_at<L2: AnyLayout>(
                self,
                layout: L2,
                offset: isize,
                within: bool,
            ) -> Result<TensorMut<$out, T, L2>, TensorError> {
                let data: &$out mut [T] = &mut *self.data;
                if within {
                    return Ok(TensorMut { data, base: self.base, layout });
                }
                let len = data.len();
                let (range, base) = sub_range(self.base, len, &layout, offset)?;
                match data.get_mut(range) {
                    Some(data) => Ok(TensorMut { data, base, layout }),
                    None => Err(TensorError::SliceTooShort { cosize: 0, len }),
                }
            }
        }
    )+};
}
mut_view! {
    ['a] TensorMut<'a, T, L> => 'a;
    ['a, 'b] &'b mut TensorMut<'a, T, L> => 'b;
}

impl<'a, T, L: AnyLayout> Tensor<'a, T, L> {
    /// CuTe's `tensor(_, j)` (any mix of [`Keep`] and coordinates): see [`slice()`].
    ///
    /// ```
    /// use const_layout::tensor::{Keep, make_tensor};
    /// use const_layout::{C, LayoutLeft, make_static_layout};
    /// let data: Vec<i32> = (0..12).collect();
    /// let t = make_tensor(&data, make_static_layout((C::<3>, C::<4>), LayoutLeft)).unwrap();
    /// let column = t.slice((Keep, 2usize)).unwrap();
    /// assert_eq!(column.iter().copied().collect::<Vec<_>>(), [6, 7, 8]);
    /// ```
    #[inline]
    pub fn slice<Crd>(&self, crd: Crd) -> Result<Tensor<'a, T, L::Slice>, TensorError>
    where
        L: SliceOf<Crd>,
    {
        slice(*self, crd)
    }

    /// The layout (CuTe's `tensor.layout()`).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor;
    /// use const_layout::{C, make_static_layout};
    /// let t = make_tensor(&[1, 2, 3, 4], make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.layout().to_string(), "(_2,_2):(_2,_1)");
    /// ```
    #[inline(always)]
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The element at `crd` (an integer index, a flat or a hierarchical coordinate: what the
    /// layout takes, see [`LayoutCoord`]), or `None` if the coordinate is outside the shape.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor;
    /// use const_layout::{C, make_static_layout};
    /// let data: Vec<i32> = (0..8).collect();
    /// let t = make_tensor(&data, make_static_layout((C::<2>, (C::<2>, C::<2>)), (C::<4>, (C::<1>, C::<2>)))).unwrap();
    /// assert_eq!(t.get((1usize, (1usize, 0usize))), Some(&5));
    /// assert_eq!(t.get((1usize, 1usize)), Some(&5)); // an integer against a mode is split in it
    /// assert_eq!(t.get(3usize), Some(&5)); // index 3 is (1, (1, 0))
    /// assert_eq!(t.get(8usize), None);
    /// ```
    #[inline(always)]
    pub fn get<Crd: LayoutCoord<L>>(&self, crd: Crd) -> Option<&'a T> {
        let off = self.layout.checked_crd2idx(crd).ok()?;
        let (pos, len) = position(&self.layout, self.base, self.data.len(), off);
        self.data.get(..len)?.get(pos)
    }

    /// The elements in index order (CuTe's `tensor(0)`, `tensor(1)`, ...).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor;
    /// use const_layout::{C, make_static_layout};
    /// let t = make_tensor(&[1, 2, 3, 4], make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [1, 3, 2, 4]);
    /// ```
    pub fn iter(&self) -> Iter<'a, T, L> {
        Iter { data: self.data, base: self.base, offsets: self.layout.offsets() }
    }

    /// CuTe's `make_tensor(tensor.data() + offset, layout)`: a view of the same elements with
    /// another layout (any [`AnyLayout`]) whose offset 0 is this view's offset `offset`; `Err`
    /// if it reaches an element outside this view's. With the generic path's
    /// [`local_tile`](crate::algebra::computed::local_tile) and
    /// [`local_partition`](crate::algebra::computed::local_partition), which return a static
    /// layout and an offset, this is how a tensor over a static layout is tiled.
    ///
    /// ```
    /// use const_layout::algebra::computed::local_tile;
    /// use const_layout::tensor::make_tensor;
    /// use const_layout::{C, layout_type};
    /// let data: Vec<i32> = (0..48).collect();
    /// let gmem = <layout_type!((8,6):(1,8))>::default();
    /// let t = make_tensor(&data, gmem).unwrap();
    /// let (tile, offset) = local_tile(gmem, (C::<4>, C::<3>), (1usize, 1usize));
    /// let tile = t.view(tile, offset).unwrap();
    /// assert_eq!(tile[(0usize, 0usize)], 28);
    /// assert_eq!(tile[(3usize, 2usize)], 28 + 3 + 16);
    /// assert!(t.view(tile.layout(), 40).is_err()); // reaches past element 47
    /// ```
    #[inline]
    pub fn view<L2: AnyLayout>(&self, layout: L2, offset: isize) -> Result<Tensor<'a, T, L2>, TensorError> {
        let data: &'a [T] = self.data;
        let (range, base) = sub_range(self.base, data.len(), &layout, offset)?;
        match data.get(range) {
            Some(data) => Ok(Tensor { data, base, layout }),
            None => Err(TensorError::SliceTooShort { cosize: 0, len: data.len() }),
        }
    }
}

impl<'a, T, S: IntTuple + LayoutShape<D>, D: IntTuple> Tensor<'a, T, Layout<S, D>> {
    /// CuTe's `size(tensor)`: the number of coordinates (static for a static shape; for the other
    /// layout kinds, `tensor.layout().size()`).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor;
    /// use const_layout::{C, make_static_layout};
    /// let t = make_tensor(&[1, 2, 3, 4], make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.size(), 4usize);
    /// ```
    #[inline(always)]
    pub fn size(&self) -> S::Size {
        self.layout.size()
    }
}

impl<'a, T, L: AnyLayout> TensorMut<'a, T, L> {
    /// CuTe's `tensor(_, j)`, consuming this view: see [`slice()`]. Use [`TensorMut::reborrow`] (or
    /// `slice(&mut t, ..)`) to keep it.
    ///
    /// ```
    /// use const_layout::tensor::{Keep, make_tensor_mut};
    /// use const_layout::{C, LayoutLeft, make_static_layout};
    /// let mut data = [0; 6];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<3>), LayoutLeft)).unwrap();
    /// t.slice((1usize, Keep)).unwrap().fill(1);
    /// assert_eq!(data, [0, 1, 0, 1, 0, 1]);
    /// ```
    #[inline]
    pub fn slice<Crd>(self, crd: Crd) -> Result<TensorMut<'a, T, L::Slice>, TensorError>
    where
        L: SliceOf<Crd>,
    {
        slice(self, crd)
    }
    /// The layout (CuTe's `tensor.layout()`).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.layout().to_string(), "(_2,_2):(_2,_1)");
    /// ```
    #[inline(always)]
    pub fn layout(&self) -> L {
        self.layout
    }

    /// A read-only view of the same elements, borrowing this one.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [1, 2, 3, 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// assert_eq!(t.as_tensor().iter().sum::<i32>(), 10);
    /// ```
    #[inline(always)]
    pub fn as_tensor(&self) -> Tensor<'_, T, L> {
        Tensor { data: self.data, base: self.base, layout: self.layout }
    }

    /// The same view, borrowing this one (to narrow it and keep the original).
    ///
    /// ```
    /// use const_layout::tensor::{Keep, make_tensor_mut};
    /// use const_layout::{C, LayoutLeft, make_static_layout};
    /// let mut data = [0; 4];
    /// let mut t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), LayoutLeft)).unwrap();
    /// t.reborrow().slice((Keep, 1usize)).unwrap().fill(5);
    /// t[0usize] = 1;
    /// assert_eq!(data, [1, 0, 5, 5]);
    /// ```
    #[inline(always)]
    pub fn reborrow(&mut self) -> TensorMut<'_, T, L> {
        TensorMut { data: self.data, base: self.base, layout: self.layout }
    }

    /// [`Tensor::view`], mutably, consuming this view (use [`TensorMut::reborrow`] to keep it).
    ///
    /// ```
    /// use const_layout::algebra::computed::local_partition;
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::layout_type;
    /// let mut data = [0; 48];
    /// let smem = <layout_type!((8,6):(1,8))>::default();
    /// let mut t = make_tensor_mut(&mut data, smem).unwrap();
    /// let threads = <layout_type!((4,3):(3,1))>::default();
    /// let (mine, offset) = local_partition(smem, threads, 5);
    /// t.reborrow().view(mine, offset).unwrap().fill(1);
    /// assert_eq!(data.iter().filter(|&&x| x == 1).count(), 4);
    /// assert_eq!(data[17], 1);
    /// ```
    #[inline]
    pub fn view<L2: AnyLayout>(self, layout: L2, offset: isize) -> Result<TensorMut<'a, T, L2>, TensorError> {
        let data: &'a mut [T] = self.data;
        let len = data.len();
        let (range, base) = sub_range(self.base, len, &layout, offset)?;
        match data.get_mut(range) {
            Some(data) => Ok(TensorMut { data, base, layout }),
            None => Err(TensorError::SliceTooShort { cosize: 0, len }),
        }
    }

    /// The element at `crd`, or `None` outside the shape; see [`Tensor::get`].
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [1, 2, 3, 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.get((0usize, 1usize)), Some(&2));
    /// ```
    #[inline(always)]
    pub fn get<Crd: LayoutCoord<L>>(&self, crd: Crd) -> Option<&T> {
        self.as_tensor().get(crd)
    }

    /// The element at `crd`, mutably, or `None` outside the shape.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [1, 2, 3, 4];
    /// let mut t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// *t.get_mut((1usize, 0usize)).unwrap() = 9;
    /// assert!(t.get_mut((2usize, 0usize)).is_none());
    /// assert_eq!(data, [1, 2, 9, 4]);
    /// ```
    #[inline(always)]
    pub fn get_mut<Crd: LayoutCoord<L>>(&mut self, crd: Crd) -> Option<&mut T> {
        let off = self.layout.checked_crd2idx(crd).ok()?;
        let (pos, len) = position(&self.layout, self.base, self.data.len(), off);
        self.data.get_mut(..len)?.get_mut(pos)
    }

    /// The elements in index order, read-only.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [1, 2, 3, 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [1, 3, 2, 4]);
    /// ```
    pub fn iter(&self) -> Iter<'_, T, L> {
        Iter { data: self.data, base: self.base, offsets: self.layout.offsets() }
    }

    /// Call `f(index, element)` for every index in order (CuTe's loop `for i < size(t): t(i) = ..`).
    /// A layout that maps two indices to one element visits it twice.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let mut t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// t.for_each_mut(|i, x| *x = 10 * i);
    /// assert_eq!(data, [0, 20, 10, 30]);
    /// ```
    #[inline]
    pub fn for_each_mut(&mut self, mut f: impl FnMut(usize, &mut T)) {
        let (base, len) = (self.base, self.data.len());
        for (i, off) in self.layout.offsets().enumerate() {
            let (pos, len) = position(&self.layout, base, len, off);
            // Every offset of the layout was checked against the slice when the view was made.
            if let Some(x) = self.data.get_mut(..len).and_then(|d| d.get_mut(pos)) {
                f(i, x);
            }
        }
    }

    /// CuTe's `fill(tensor, value)`.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 5];
    /// make_tensor_mut(&mut data, make_static_layout(C::<2>, C::<3>)).unwrap().fill(1);
    /// assert_eq!(data, [1, 0, 0, 1, 0]);
    /// ```
    pub fn fill(&mut self, value: T)
    where
        T: Clone,
    {
        self.for_each_mut(|_, x| *x = value.clone());
    }
}

impl<'a, T, S: IntTuple + LayoutShape<D>, D: IntTuple> TensorMut<'a, T, Layout<S, D>> {
    /// CuTe's `size(tensor)` (for the other layout kinds, `tensor.layout().size()`).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<2>, C::<2>), (C::<2>, C::<1>))).unwrap();
    /// assert_eq!(t.size(), 4usize);
    /// ```
    #[inline(always)]
    pub fn size(&self) -> S::Size {
        self.layout.size()
    }
}

/// The elements of a tensor in index order; see [`Tensor::iter`].
///
/// ```
/// use const_layout::tensor::make_tensor;
/// use const_layout::{C, make_static_layout};
/// let mut it = make_tensor(&[1, 2, 3], make_static_layout(C::<3>, C::<1>)).unwrap().iter();
/// assert_eq!(it.len(), 3);
/// assert_eq!(it.next_back(), Some(&3));
/// ```
pub struct Iter<'a, T, L> {
    data: &'a [T],
    base: usize,
    offsets: AnyOffsets<L>,
}

impl<'a, T, L: AnyLayout> Iterator for Iter<'a, T, L> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        // The offsets were checked against the slice when the view was made.
        self.offsets.next().and_then(|off| self.data.get(self.base.wrapping_add(off as usize)))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

impl<'a, T, L: AnyLayout> DoubleEndedIterator for Iter<'a, T, L> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a T> {
        self.offsets.next_back().and_then(|off| self.data.get(self.base.wrapping_add(off as usize)))
    }
}

impl<T, L: AnyLayout> ExactSizeIterator for Iter<'_, T, L> {}

impl<T, L: AnyLayout, Crd: LayoutCoord<L>> Index<Crd> for Tensor<'_, T, L> {
    type Output = T;
    /// CuTe's `tensor(crd)`; panics if `crd` is outside the shape (as slice indexing does). Use
    /// [`Tensor::get`] for an `Option`.
    #[inline(always)]
    fn index(&self, crd: Crd) -> &T {
        match self.get(crd) {
            Some(x) => x,
            None => out_of_shape(&self.layout),
        }
    }
}

impl<T, L: AnyLayout, Crd: LayoutCoord<L>> Index<Crd> for TensorMut<'_, T, L> {
    type Output = T;
    /// CuTe's `tensor(crd)`; panics outside the shape.
    #[inline(always)]
    fn index(&self, crd: Crd) -> &T {
        match self.get(crd) {
            Some(x) => x,
            None => out_of_shape(&self.layout),
        }
    }
}

impl<T, L: AnyLayout, Crd: LayoutCoord<L>> IndexMut<Crd> for TensorMut<'_, T, L> {
    /// CuTe's `tensor(crd) = x`; panics outside the shape.
    #[inline(always)]
    fn index_mut(&mut self, crd: Crd) -> &mut T {
        let layout = self.layout;
        match self.get_mut(crd) {
            Some(x) => x,
            None => out_of_shape(&layout),
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_shape<L: fmt::Display>(layout: &L) -> ! {
    panic!("tensor coordinate outside the shape of the layout {layout}")
}

impl<T: fmt::Debug, L: AnyLayout> fmt::Debug for Tensor<'_, T, L> {
    /// The layout and the elements in index order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({}, ", self.layout)?;
        f.debug_list().entries(self.iter()).finish()?;
        f.write_str(")")
    }
}

impl<T: fmt::Debug, L: AnyLayout> fmt::Debug for TensorMut<'_, T, L> {
    /// The layout and the elements in index order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorMut({}, ", self.layout)?;
        f.debug_list().entries(self.iter()).finish()?;
        f.write_str(")")
    }
}
