//! Disjoint mutable partitions of a tensor, one per thread (feature `alloc`; `rayon` runs them in
//! parallel).
//!
//! Without `unsafe`, the only way to hold many `&mut T` into one slice at once is to take them
//! from `slice.iter_mut()`, which yields each element once. So partitioning checks that the
//! tensor's layout is injective (no two coordinates share an element) and that the threads'
//! coordinates are distinct, computes which thread and which position in its partition every
//! element of the slice belongs to, and deals out the `&mut T`s of one pass of `iter_mut()`.
//! Elements the layout does not reach (padding) belong to nobody.

use super::tile::LocalPartitionOf;
use super::{Tensor, TensorError, TensorMut};
use crate::algebra::computed::{Computed, ShapeLayout, StaticExpr};
use crate::dyn_layout::DynLayout;
use crate::int::Int;
use crate::int_tuple::{CompactLeft, CuteCompact, IntTuple, Profile};
use crate::layout::{AnyLayout, Layout, LayoutCoord, LayoutShape, OffsetSwizzled};
use crate::{C, LayoutLeft};
use alloc::vec::Vec;
use core::ops::{Index, IndexMut};

/// The compact column-major stride of a partition's shape: how a coordinate becomes a position.
type Compact<S> = <S as CompactLeft<CuteCompact, C<1>>>::Output;

/// The layout a [`Partition`] is indexed by: the compact column-major layout of the shape of one
/// thread's part (CuTe's `make_layout(shape(part))`), whose value at a coordinate is that
/// coordinate's position among the partition's elements. Implemented by every layout kind a
/// part can have: a typed [`Layout`], a static [`Computed`] layout, and a swizzled part (the
/// shape of the layout inside the swizzle), a `DynLayout` and a `ComposedLayout` (its inner
/// layout's shape). Dispatch-only:
/// [`TensorMut::partitions`] names it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a partition over `{Self}` has no index layout",
    note = "partitions are made over typed layouts, static layouts, swizzled layouts and `DynLayout`s"
)]
pub trait PartIndex: AnyLayout {
    /// The compact column-major layout of the part's shape.
    type Index: AnyLayout;
    /// That layout; an error where the shape's size does not fit.
    fn index_layout(&self) -> Result<Self::Index, TensorError>;
}

impl<S, D> PartIndex for Layout<S, D>
where
    S: IntTuple + LayoutShape<D> + CompactLeft<CuteCompact, C<1>> + LayoutShape<Compact<S>>,
    D: IntTuple,
{
    type Index = Layout<S, Compact<S>>;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        Ok(crate::make_layout(self.shape(), LayoutLeft)?)
    }
}

impl<E: StaticExpr> PartIndex for Computed<E> {
    type Index = Computed<ShapeLayout<Computed<E>>>;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        Ok(Computed::default())
    }
}

impl PartIndex for DynLayout {
    type Index = DynLayout;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        Ok(DynLayout::compact(*self.shape(), true)?)
    }
}

impl PartIndex for crate::swizzle::ComposedLayout {
    type Index = DynLayout;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        self.inner().index_layout()
    }
}

impl PartIndex for crate::layout::DynAnyLayout {
    type Index = DynLayout;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        match self {
            crate::layout::DynAnyLayout::Layout(l) => l.index_layout(),
            crate::layout::DynAnyLayout::Composed(c) => c.index_layout(),
        }
    }
}

impl<const B: u32, const M: u32, const S: i32, L: PartIndex> PartIndex for OffsetSwizzled<B, M, S, L> {
    type Index = L::Index;
    fn index_layout(&self) -> Result<Self::Index, TensorError> {
        self.layout().index_layout()
    }
}

/// The index layout of the partitions of a tensor over `L` among the threads of `Thr`.
type PartIndexOf<L, Thr> = <<L as LocalPartitionOf<Thr>>::Part as PartIndex>::Index;

/// The partitions [`TensorMut::partitions`] returns for a tensor over the layout `L` and the
/// thread layout `Thr`.
pub type Partitions<'a, T, L, Thr> = Vec<Partition<'a, T, PartIndexOf<L, Thr>>>;

/// The elements one thread owns (CuTe's `local_partition(tensor, threads, t)`), as mutable
/// references that no other partition shares, so partitions can be used on different threads at
/// once. Made by [`TensorMut::partitions`]; indexed by coordinates of the partition's shape. `L`
/// is the compact layout of that shape (a coordinate's position among the elements).
///
/// ```
/// use const_layout::tensor::make_tensor_mut;
/// use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
/// let mut data = vec![0; 16];
/// let t = make_tensor_mut(&mut data, make_layout((4usize, 4usize), LayoutLeft).unwrap()).unwrap();
/// let threads = make_static_layout((C::<2>, C::<2>), LayoutLeft);
/// for mut part in t.partitions(&threads).unwrap() {
///     let id = part.thread();
///     part[(1usize, 1usize)] = id + 1; // its element in the second row and column of tiles
/// }
/// assert_eq!(data[10..16], [1, 2, 0, 0, 3, 4]);
/// ```
pub struct Partition<'a, T, L> {
    thread: usize,
    elems: Vec<&'a mut T>,
    index: L,
}

impl<'a, T, L: AnyLayout> TensorMut<'a, T, L> {
    /// CuTe's `local_partition(tensor, threads, t)` for every thread `t` at once: one [`Partition`]
    /// per thread, in thread order, each holding its elements mutably, disjoint from every other.
    /// Over any layout kind [`local_partition`](super::local_partition) partitions (typed, static,
    /// swizzled, `DynLayout`), each thread's elements those of its `local_partition`.
    ///
    /// Errors: the thread shape does not divide the tensor's ([`TensorError::NotDivisible`]); the
    /// layout maps two coordinates to one element ([`TensorError::NotInjective`], naming the first
    /// two such indices); two threads have the same coordinate ([`TensorError::ThreadsShare`]).
    /// Needs the `alloc` feature; it allocates a table of one `usize` per element the tensor spans.
    ///
    /// ```
    /// use const_layout::tensor::{TensorError, make_tensor_mut};
    /// use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
    /// let mut data = vec![0; 8];
    /// let threads = make_static_layout((C::<2>, C::<2>), LayoutLeft);
    /// let t = make_tensor_mut(&mut data, make_layout((4usize, 2usize), LayoutLeft).unwrap()).unwrap();
    /// for mut part in t.partitions(&threads).unwrap() {
    ///     let id = part.thread() as i32;
    ///     part.iter_mut().for_each(|x| *x = id);
    /// }
    /// assert_eq!(data, [0, 1, 0, 1, 2, 3, 2, 3]);
    /// // A broadcast layout (stride 0) gives the same element to two coordinates.
    /// let t = make_tensor_mut(&mut data, make_layout((4usize, 2usize), (1isize, 0isize)).unwrap()).unwrap();
    /// assert_eq!(
    ///     t.partitions(&threads).unwrap_err(),
    ///     TensorError::NotInjective { first: 0, second: 4, offset: 0 }
    /// );
    /// ```
    ///
    /// Over a swizzled shared-memory layout, each thread's elements are where the swizzle puts
    /// them:
    ///
    /// ```
    /// use const_layout::tensor::{local_partition, make_tensor, make_tensor_mut};
    /// use const_layout::{AnyLayout, layout};
    /// let smem = layout!(composition(Sw<2,0,2>, (8,8):(8,1)));
    /// let threads = layout!((4,2):(2,1));
    /// let mut data = vec![0usize; 64];
    /// for mut part in make_tensor_mut(&mut data, smem).unwrap().partitions(&threads).unwrap() {
    ///     let id = part.thread();
    ///     part.iter_mut().for_each(|x| *x = id);
    /// }
    /// let offsets: Vec<usize> = (0..64).collect();
    /// let mine = local_partition(make_tensor(&offsets, smem).unwrap(), &threads, 5).unwrap();
    /// assert!(mine.iter().all(|&at| data[at] == 5));
    /// assert_eq!(data.iter().filter(|&&t| t == 5).count(), 8);
    /// ```
    pub fn partitions<Thr>(self, threads: &Thr) -> Result<Partitions<'a, T, L, Thr>, TensorError>
    where
        Thr: AnyLayout,
        L: LocalPartitionOf<Thr>,
        L::Part: PartIndex,
    {
        const NOBODY: usize = usize::MAX;
        let (layout, base, len) = (self.layout, self.base, self.data.len());
        let at = |off: isize| base.checked_add_signed(off).filter(|&p| p < len);
        // Which index owns each element: the layout must be injective.
        let mut slot = alloc::vec![NOBODY; len];
        for (x, off) in layout.offsets().enumerate() {
            let pos = at(off).ok_or(TensorError::SliceTooShort { cosize: 0, len })?;
            match slot[pos] {
                NOBODY => slot[pos] = x,
                first => return Err(TensorError::NotInjective { first, second: x, offset: off }),
            }
        }
        // Element -> (thread, position in its partition), as `thread * per + position`; an
        // element two threads reach is the threads sharing a coordinate (the layout is injective).
        let count = threads.size();
        let mut owner = alloc::vec![NOBODY; len];
        let mut index = None;
        let mut per = 0;
        for t in 0..count {
            let (part, offset) = layout.local_partition_of(threads, t)?;
            let origin = if <L as LocalPartitionOf<Thr>>::WITHIN { 0 } else { offset };
            if index.is_none() {
                index = Some(part.index_layout()?);
                per = part.size();
            }
            for v in 0..per {
                let off = origin.wrapping_add(part.offset(v));
                let pos = at(off).filter(|&p| slot[p] != NOBODY);
                let pos = pos.ok_or(TensorError::SliceTooShort { cosize: 0, len })?;
                match owner[pos] {
                    NOBODY => owner[pos] = t * per + v,
                    o => return Err(TensorError::ThreadsShare { first: o / per, second: t }),
                }
            }
        }
        // Deal out the elements of one pass of `iter_mut`.
        let mut cells: Vec<Option<&'a mut T>> = (0..count * per).map(|_| None).collect();
        for (x, o) in self.data.iter_mut().zip(owner) {
            if o != NOBODY {
                cells[o] = Some(x);
            }
        }
        let mut cells = cells.into_iter();
        let mut out = Vec::with_capacity(count);
        for thread in 0..count {
            // Every cell is filled: each (thread, position) claimed one element above.
            let elems = cells.by_ref().take(per).collect::<Option<Vec<_>>>();
            let elems = elems.ok_or(TensorError::ThreadsShare { first: thread, second: thread })?;
            let index = index.ok_or(TensorError::ThreadOutOfRange { index: 0, threads: 0 })?;
            out.push(Partition { thread, elems, index });
        }
        Ok(out)
    }

    /// [`TensorMut::partitions`], then `f(partition)` for every thread's partition in parallel on
    /// rayon's thread pool (feature `rayon`).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, LayoutLeft, make_layout, make_static_layout};
    /// let mut data = vec![0usize; 64];
    /// let t = make_tensor_mut(&mut data, make_layout((8usize, 8usize), LayoutLeft).unwrap()).unwrap();
    /// let threads = make_static_layout((C::<4>, C::<2>), LayoutLeft);
    /// t.par_partitions(&threads, |mut part| {
    ///     let id = part.thread();
    ///     part.iter_mut().for_each(|x| *x = id);
    /// })
    /// .unwrap();
    /// assert_eq!(data[..8], [0, 1, 2, 3, 0, 1, 2, 3]);
    /// assert_eq!(data[8..16], [4, 5, 6, 7, 4, 5, 6, 7]);
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_partitions<Thr, F>(self, threads: &Thr, f: F) -> Result<(), TensorError>
    where
        T: Send,
        Thr: AnyLayout,
        L: LocalPartitionOf<Thr>,
        L::Part: PartIndex,
        PartIndexOf<L, Thr>: Send,
        F: Fn(Partition<'a, T, PartIndexOf<L, Thr>>) + Sync + Send,
    {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        self.partitions(threads)?.into_par_iter().for_each(f);
        Ok(())
    }
}

impl<'a, T, L: AnyLayout> Partition<'a, T, L> {
    /// The thread this partition belongs to.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// let parts = t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap();
    /// assert_eq!(parts[1].thread(), 1);
    /// ```
    pub fn thread(&self) -> usize {
        self.thread
    }

    /// The layout the partition is indexed by: the compact column-major layout of its shape, whose
    /// value at a coordinate is that element's position in [`iter`](Self::iter).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::layout;
    /// let mut data = [0; 64];
    /// let t = make_tensor_mut(&mut data, layout!(composition(Sw<2,0,2>, (8,8):(8,1)))).unwrap();
    /// let parts = t.partitions(&layout!((4,2):(2,1))).unwrap();
    /// assert_eq!(parts[0].index_layout().to_string(), "(_2,_4):(_1,_2)");
    /// ```
    pub fn index_layout(&self) -> L {
        self.index
    }

    /// The number of elements.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// assert_eq!(t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap()[0].len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// Whether there are no elements (never, for a partition of a layout: sizes are positive).
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// assert!(!t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap()[0].is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }

    /// The element at `crd` of the partition's shape, or `None` outside it.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0, 1, 2, 3];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// let parts = t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap();
    /// assert_eq!((parts[1].get(1usize), parts[1].get(2usize)), (Some(&3), None));
    /// ```
    pub fn get<Crd: LayoutCoord<L>>(&self, crd: Crd) -> Option<&T> {
        let v = AnyLayout::checked_crd2idx(&self.index, crd).ok()?;
        self.elems.get(v as usize).map(|x| &**x)
    }

    /// The element at `crd`, mutably, or `None` outside the shape.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// let mut parts = t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap();
    /// *parts[1].get_mut(1usize).unwrap() = 5;
    /// drop(parts);
    /// assert_eq!(data, [0, 0, 0, 5]);
    /// ```
    pub fn get_mut<Crd: LayoutCoord<L>>(&mut self, crd: Crd) -> Option<&mut T> {
        let v = AnyLayout::checked_crd2idx(&self.index, crd).ok()?;
        self.elems.get_mut(v as usize).map(|x| &mut **x)
    }

    /// The elements in the partition's index order.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0, 1, 2, 3];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// let parts = t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap();
    /// assert_eq!(parts[0].iter().copied().collect::<Vec<_>>(), [0, 2]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &T> {
        self.elems.iter().map(|x| &**x)
    }

    /// The elements in the partition's index order, mutably.
    ///
    /// ```
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, make_static_layout};
    /// let mut data = [0; 4];
    /// let t = make_tensor_mut(&mut data, make_static_layout(C::<4>, C::<1>)).unwrap();
    /// for mut p in t.partitions(&make_static_layout(C::<2>, C::<1>)).unwrap() {
    ///     p.iter_mut().for_each(|x| *x += 1);
    /// }
    /// assert_eq!(data, [1; 4]);
    /// ```
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = &mut T> {
        self.elems.iter_mut().map(|x| &mut **x)
    }
}

impl<'a, T, S: IntTuple + LayoutShape<D>, D: IntTuple> Partition<'a, T, Layout<S, D>> {
    /// The partition's shape (CuTe's `shape(local_partition(...))`).
    ///
    /// ```
    /// use const_layout::int_tuple::IntTuple;
    /// use const_layout::tensor::make_tensor_mut;
    /// use const_layout::{C, LayoutLeft, make_static_layout};
    /// let mut data = [0; 24];
    /// let t = make_tensor_mut(&mut data, make_static_layout((C::<4>, C::<6>), LayoutLeft)).unwrap();
    /// let parts = t.partitions(&make_static_layout((C::<2>, C::<3>), LayoutLeft)).unwrap();
    /// assert_eq!((parts.len(), parts[0].shape().display().to_string()), (6, "(_2,_2)".to_string()));
    /// ```
    pub fn shape(&self) -> S {
        self.index.shape()
    }

    /// CuTe's `copy(src, partition)`: `self(i) = src(i)` for every index; the shapes must match
    /// as for [`copy`](super::copy). Use it with the source's own `local_partition`.
    ///
    /// ```
    /// use const_layout::tensor::{local_partition, make_tensor, make_tensor_mut};
    /// use const_layout::{C, LayoutLeft, LayoutRight, make_static_layout};
    /// let src: Vec<i32> = (0..16).collect();
    /// let mut dst = vec![0; 16];
    /// let a = make_tensor(&src, make_static_layout((C::<4>, C::<4>), LayoutRight)).unwrap();
    /// let b = make_tensor_mut(&mut dst, make_static_layout((C::<4>, C::<4>), LayoutLeft)).unwrap();
    /// let threads = make_static_layout((C::<2>, C::<2>), LayoutLeft);
    /// for mut part in b.partitions(&threads).unwrap() {
    ///     part.copy_from(&local_partition(&a, &threads, part.thread()).unwrap()).unwrap();
    /// }
    /// assert_eq!(dst[..4], [0, 4, 8, 12]); // the transpose
    /// ```
    pub fn copy_from<S2, D2>(&mut self, src: &Tensor<'_, T, Layout<S2, D2>>) -> Result<(), TensorError>
    where
        T: Copy,
        S2: IntTuple + LayoutShape<D2> + Profile<S>,
        D2: IntTuple,
        S: Profile<S2>,
    {
        let (ls, shape) = (src.layout, self.index.shape());
        let n = ls.size().value() as usize;
        if n != self.elems.len() || !(ls.shape().compatible(&shape) || shape.compatible(&ls.shape())) {
            return Err(TensorError::ShapeMismatch { src: n, dst: self.elems.len() });
        }
        for (v, x) in self.elems.iter_mut().enumerate() {
            let off = ls.shape().offset_of_index(&ls.stride(), v as isize);
            // Offsets of the source's layout were checked against its slice when it was made.
            if let Some(y) = src.data.get(src.base.wrapping_add(off as usize)) {
                **x = *y;
            }
        }
        Ok(())
    }
}

impl<T, L: AnyLayout, Crd: LayoutCoord<L>> Index<Crd> for Partition<'_, T, L> {
    type Output = T;
    /// The element at `crd`; panics outside the shape.
    fn index(&self, crd: Crd) -> &T {
        match self.get(crd) {
            Some(x) => x,
            None => panic!("partition coordinate outside the shape {}", self.index),
        }
    }
}

impl<T, L: AnyLayout, Crd: LayoutCoord<L>> IndexMut<Crd> for Partition<'_, T, L> {
    /// The element at `crd`, mutably; panics outside the shape.
    fn index_mut(&mut self, crd: Crd) -> &mut T {
        let index = self.index;
        match self.get_mut(crd) {
            Some(x) => x,
            None => panic!("partition coordinate outside the shape {index}"),
        }
    }
}

impl<T: core::fmt::Debug, L: AnyLayout> core::fmt::Debug for Partition<'_, T, L> {
    /// The thread, the shape and the elements in index order.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Partition(thread {}, {}, ", self.thread, self.index)?;
        f.debug_list().entries(self.iter()).finish()?;
        f.write_str(")")
    }
}
