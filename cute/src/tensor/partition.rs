//! Disjoint mutable partitions of a tensor, one per thread (feature `alloc`; `rayon` runs them in
//! parallel).
//!
//! Without `unsafe`, the only way to hold many `&mut T` into one slice at once is to take them
//! from `slice.iter_mut()`, which yields each element once. So partitioning checks that the
//! tensor's layout is injective (no two coordinates share an element) and that the threads'
//! coordinates are distinct, computes which thread and which position in its partition every
//! element of the slice belongs to, and deals out the `&mut T`s of one pass of `iter_mut()`.
//! Elements the layout does not reach (padding) belong to nobody.

use super::tile::check_divides;
use super::{PartitionBy, Tensor, TensorError, TensorMut};
use crate::int::Int;
use crate::int_tuple::{CompactLeft, CuteCompact, IntTuple, Profile};
use crate::layout::{Crd2Idx, InShape, Layout, LayoutShape};
use crate::{C, LayoutLeft};
use alloc::vec::Vec;
use core::ops::{Index, IndexMut};

/// The compact column-major stride of a partition's shape: how a coordinate becomes a position.
type Compact<S> = <S as CompactLeft<CuteCompact, C<1>>>::Output;

/// The partitions [`TensorMut::partitions`] returns for thread shape `TS` over a tensor of shape
/// `S` and stride `D`.
pub type Partitions<'a, T, S, D, TS, TD> = Vec<
    Partition<
        'a,
        T,
        Layout<<TS as PartitionBy<S, D, TD>>::Shape, Compact<<TS as PartitionBy<S, D, TD>>::Shape>>,
    >,
>;

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

impl<'a, T, S: IntTuple + LayoutShape<D>, D: IntTuple> TensorMut<'a, T, Layout<S, D>> {
    /// CuTe's `local_partition(tensor, threads, t)` for every thread `t` at once: one [`Partition`]
    /// per thread, in thread order, each holding its elements mutably, disjoint from every other.
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
    pub fn partitions<TS, TD>(
        self,
        threads: &Layout<TS, TD>,
    ) -> Result<Partitions<'a, T, S, D, TS, TD>, TensorError>
    where
        TS: PartitionBy<S, D, TD>,
        TD: IntTuple,
        TS::Shape: CompactLeft<CuteCompact, C<1>> + LayoutShape<Compact<TS::Shape>>,
    {
        const NOBODY: usize = usize::MAX;
        let layout = self.layout;
        check_divides(&layout.shape(), &threads.shape())?;
        // Which index owns each element: the layout must be injective.
        let mut slot = alloc::vec![NOBODY; self.data.len()];
        for (x, off) in layout.iter().enumerate() {
            let pos = self.base.wrapping_add(off as usize);
            match slot[pos] {
                NOBODY => slot[pos] = x,
                first => return Err(TensorError::NotInjective { first, second: x, offset: off }),
            }
        }
        // The threads' first elements: distinct exactly when their coordinates are, since the
        // layout is injective.
        let count = threads.size().value() as usize;
        let mut origins: Vec<(isize, usize)> =
            (0..count).map(|t| (TS::thread_offset(threads, &layout, t), t)).collect();
        origins.sort_unstable();
        if let Some(w) = origins.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(TensorError::ThreadsShare { first: w[0].1.min(w[1].1), second: w[0].1.max(w[1].1) });
        }
        // Element -> (thread, position in its partition), as `thread * per + position`.
        let (part, _) = TS::partition(threads, &layout, 0)?;
        let per = part.size().value() as usize;
        for &(origin, t) in &origins {
            for v in 0..per {
                let at =
                    LayoutShape::<TS::Stride>::offset_of_index(&part.shape(), &part.stride(), v as isize);
                let off = origin.wrapping_add(at);
                slot[self.base.wrapping_add(off as usize)] = t * per + v;
            }
        }
        // Deal out the elements of one pass of `iter_mut`.
        let mut cells: Vec<Option<&'a mut T>> = (0..count * per).map(|_| None).collect();
        for (x, s) in self.data.iter_mut().zip(slot) {
            if s != NOBODY {
                cells[s] = Some(x);
            }
        }
        let index = crate::make_layout(part.shape(), LayoutLeft)?;
        let mut cells = cells.into_iter();
        let mut out = Vec::with_capacity(count);
        for thread in 0..count {
            // Every cell is filled: the threads' tiles cover the tensor, each element once.
            let elems = cells.by_ref().take(per).collect::<Option<Vec<_>>>();
            let elems = elems.ok_or(TensorError::ThreadsShare { first: thread, second: thread })?;
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
    pub fn par_partitions<TS, TD, F>(self, threads: &Layout<TS, TD>, f: F) -> Result<(), TensorError>
    where
        T: Send,
        TS: PartitionBy<S, D, TD>,
        TD: IntTuple,
        TS::Shape: CompactLeft<CuteCompact, C<1>> + LayoutShape<Compact<TS::Shape>> + Send,
        Compact<TS::Shape>: Send,
        F: Fn(Partition<'a, T, Layout<TS::Shape, Compact<TS::Shape>>>) + Sync + Send,
    {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        self.partitions(threads)?.into_par_iter().for_each(f);
        Ok(())
    }
}

impl<'a, T, S: IntTuple + LayoutShape<D>, D: IntTuple> Partition<'a, T, Layout<S, D>> {
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
    pub fn get<Crd: Crd2Idx<S, D> + InShape<S>>(&self, crd: Crd) -> Option<&T> {
        let v = self.index.checked_crd2idx(crd).ok()?;
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
    pub fn get_mut<Crd: Crd2Idx<S, D> + InShape<S>>(&mut self, crd: Crd) -> Option<&mut T> {
        let v = self.index.checked_crd2idx(crd).ok()?;
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

impl<T, S, D, Crd> Index<Crd> for Partition<'_, T, Layout<S, D>>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    Crd: Crd2Idx<S, D> + InShape<S>,
{
    type Output = T;
    /// The element at `crd`; panics outside the shape.
    fn index(&self, crd: Crd) -> &T {
        match self.get(crd) {
            Some(x) => x,
            None => panic!("partition coordinate outside the shape {}", self.index),
        }
    }
}

impl<T, S, D, Crd> IndexMut<Crd> for Partition<'_, T, Layout<S, D>>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    Crd: Crd2Idx<S, D> + InShape<S>,
{
    /// The element at `crd`, mutably; panics outside the shape.
    fn index_mut(&mut self, crd: Crd) -> &mut T {
        let index = self.index;
        match self.get_mut(crd) {
            Some(x) => x,
            None => panic!("partition coordinate outside the shape {index}"),
        }
    }
}

impl<T: core::fmt::Debug, S: IntTuple + LayoutShape<D>, D: IntTuple> core::fmt::Debug
    for Partition<'_, T, Layout<S, D>>
{
    /// The thread, the shape and the elements in index order.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Partition(thread {}, {}, ", self.thread, self.index)?;
        f.debug_list().entries(self.iter()).finish()?;
        f.write_str(")")
    }
}
