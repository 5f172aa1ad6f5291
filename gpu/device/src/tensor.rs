//! Global tensors and their tiles: a view of global memory with a layout of any rank (static or
//! runtime integers), read and written by coordinate and sliced (any rank, nested modes), and at
//! rank 2 cut into static tiles by block coordinate, with CuTe's predication of the residue (a
//! batched tensor is sliced to its matrices first, as CuTe's kernels do: DECISIONS.md 20).
//!
//! A kernel never checks an access against the allocation. The tensor is checked once (its
//! strides are non-negative and its cosize fits the view: [`GlobalTensor::new`] on either side,
//! or [`TensorParam::new`](crate::TensorParam::new) on the host), and a tile access is made only
//! at a coordinate inside the tensor's shape, which is CuTe's predicate (`elem_less(coord,
//! shape)` on the identity tensor) and which bounds the offset by the cosize. A tile that lies
//! wholly inside the shape ([`Full`]) has no predicate at all: its coordinates are bounded by its
//! static extents, which fold at compile time. A kernel written once, generic over the
//! [`Residue`], is compiled for both and picks one per block ([`Tiled`]).
//!
//! ```
//! use const_layout::{make_layout, C};
//! use const_layout_device::{DeviceTensor, GlobalTensor, Gmem, Tiled};
//! use std::sync::atomic::AtomicU32;
//! // A 10x6 column-major matrix in 8x4 tiles: the tile (1, 1) is cut at 2 x 2.
//! let words: Vec<AtomicU32> = (0..60).map(AtomicU32::new).collect();
//! let a = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((10u32, 6u32), (C::<1>, 10u32)).unwrap()).unwrap();
//! assert!(matches!(a.local_tile((C::<8>, C::<4>), (0, 0)), Tiled::Full(_)));
//! let Tiled::Partial(t) = a.local_tile((C::<8>, C::<4>), (1, 1)) else { panic!() };
//! assert_eq!(t.residue(), (2, 2));
//! assert_eq!(t.load((1, 1)), Some(9 + 5 * 10));
//! assert_eq!(t.load((2, 0)), None); // row 10 is past the matrix
//! ```

use crate::gmem::{Memory, MemoryMut};
use crate::smem::SmemArray;
use crate::thread::fault;
use const_layout::atom::{SM80_CP_ASYNC_CACHEALWAYS, SM80_CP_ASYNC_CACHEGLOBAL};
use const_layout::int::Int;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::{Crd2Idx, InShape, LayoutShape};
use const_layout::tensor::SliceCoord;
use const_layout::{AnyLayout, C, Layout};
use core::marker::PhantomData;

/// The largest cosize of a device tensor: offsets inside a tile are computed in 32 bits (as
/// CuTe's `int` strides are), from a 64-bit address of the tile's origin.
pub const MAX_COSIZE: u64 = 1 << 32;

/// Access by single elements (any layout).
#[derive(Clone, Copy, Debug)]
pub struct Scalar;

/// Access by 128-bit vectors of 4 elements along the mode whose stride is a static 1, as well as
/// by single elements: see [`GlobalTensor::vectorized`].
#[derive(Clone, Copy, Debug)]
pub struct Vector4;

/// A tensor in global memory: a view (`M`, [`Gmem`](crate::Gmem) or
/// [`GmemMut`](crate::GmemMut)) and a layout `L` (a [`Layout`] of any rank, static or runtime
/// integers) whose offsets all lie in the view. `V` is [`Scalar`] or [`Vector4`].
///
/// Every rank takes single elements by any coordinate its layout takes and gives its slices
/// ([`load_coord`](Self::load_coord), [`store_coord`](Self::store_coord),
/// [`slice`](Self::slice): CuTe's `tensor(crd)` and `tensor(_, k, _)`). Rank 2 is the tiled form
/// kernels work on ([`DeviceTensor`]: CuTe's `local_tile`, predicated residues, 128-bit vectors).
/// Ranks 2 to 4 (a matrix, a batch of matrices, a batch of heads of matrices) also take 32-bit
/// array coordinates and give their rank-2 slices directly (CuTe's `tensor(_, _, k)`):
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
/// use std::sync::atomic::AtomicU32;
/// // 3 row-major 4 x 5 matrices, 20 elements apart.
/// let words: Vec<AtomicU32> = (0..60).map(AtomicU32::new).collect();
/// let l = make_layout((3u32, 4u32, 5u32), (20u32, 5u32, C::<1>)).unwrap();
/// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), l).unwrap();
/// assert_eq!(t.extents(), (3, 4, 5));
/// assert_eq!(t.load([2, 1, 3]), Some(40 + 5 + 3));
/// assert_eq!(t.load([3, 0, 0]), None); // past the batch
/// // Matrix 2, as a rank-2 tensor: (4,5):(5,_1) from element 40 on.
/// let m = t.slice_first(2).unwrap();
/// assert_eq!(m.extents(), (4, 5));
/// assert_eq!(m.load([1, 3]), Some(48));
/// ```
pub struct GlobalTensor<M, L, V = Scalar> {
    mem: M,
    layout: L,
    access: PhantomData<V>,
}

/// A rank-2 [`GlobalTensor`], `(S0,S1):(D0,D1)`: what [`DeviceTensor`]'s tiles work on and what
/// slices of higher ranks are.
pub type GlobalMatrix<M, S0, S1, D0, D1, V = Scalar> = GlobalTensor<M, Layout<(S0, S1), (D0, D1)>, V>;

/// A rank-3 [`GlobalTensor`], `(S0,S1,S2):(D0,D1,D2)`.
pub type GlobalTensor3<M, S0, S1, S2, D0, D1, D2, V = Scalar> =
    GlobalTensor<M, Layout<(S0, S1, S2), (D0, D1, D2)>, V>;

impl<M: Copy, L: Copy, V> Clone for GlobalTensor<M, L, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Copy, L: Copy, V> Copy for GlobalTensor<M, L, V> {}

impl<M: Memory, L: core::fmt::Display, V> core::fmt::Debug for GlobalTensor<M, L, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "GlobalTensor({} elements, {})", self.mem.len(), self.layout)
    }
}

impl<M: Copy, L: Copy, V> GlobalTensor<M, L, V> {
    /// The layout.
    #[inline(always)]
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The view the layout's offsets index.
    #[inline(always)]
    pub fn memory(&self) -> M {
        self.mem
    }
}

/// Whether every stride of `layout` is non-negative (offsets then grow with each coordinate, so a
/// coordinate inside the shape has an offset below the cosize).
#[inline(always)]
fn strides_non_negative<S: IntTuple + LayoutShape<D>, D: IntTuple>(layout: &Layout<S, D>) -> bool {
    let mut d = [0isize; 16];
    if D::LEAVES <= d.len() {
        let n = layout.stride().store_values(&mut d, 0);
        return d[..n].iter().all(|&x| x >= 0);
    }
    let mut ok = true;
    layout.stride().for_each_leaf(&mut |leaf| ok &= leaf.value.is_some_and(|v| v >= 0));
    ok
}

impl<M: Memory, S: IntTuple + LayoutShape<D>, D: IntTuple> GlobalTensor<M, Layout<S, D>, Scalar> {
    /// A tensor of `mem` laid out as `layout` (any rank); `None` if a stride is negative, an
    /// offset of the layout falls outside the view (`cosize > len`), or the cosize exceeds
    /// [`MAX_COSIZE`].
    #[inline(always)]
    pub fn new(mem: M, layout: Layout<S, D>) -> Option<Self> {
        let cosize = AnyLayout::cosize(&layout) as u64;
        if !strides_non_negative(&layout) || cosize > mem.len() as u64 || cosize > MAX_COSIZE {
            return None;
        }
        Some(GlobalTensor { mem, layout, access: PhantomData })
    }

    /// A tensor whose checks the host made ([`TensorParam`](crate::TensorParam)).
    ///
    /// # Safety
    /// The strides are non-negative and the layout's cosize is at most `mem.len()` and
    /// [`MAX_COSIZE`].
    #[inline(always)]
    pub(crate) unsafe fn new_unchecked(mem: M, layout: Layout<S, D>) -> Self {
        GlobalTensor { mem, layout, access: PhantomData }
    }
}

/// The mode whose stride is a static 1, if any (mode 0 first).
const fn unit_mode<D0: Int, D1: Int>() -> Option<usize> {
    match (D0::STATIC, D1::STATIC) {
        (Some(1), _) => Some(0),
        (_, Some(1)) => Some(1),
        _ => None,
    }
}

/// A tile, wholly inside its tensor or cut by its edge: what [`GlobalTensor::local_tile`] returns.
#[derive(Clone, Copy, Debug)]
pub enum Tiled<Tn: DeviceTensor, const B0: isize, const B1: isize> {
    /// Every coordinate of the tile is inside the tensor: no predicate.
    Full(GlobalTile<Tn, B0, B1, Full>),
    /// The tile reaches past the tensor's shape in some mode: accesses are predicated.
    Partial(GlobalTile<Tn, B0, B1, Partial>),
}

/// What a kernel body generic over its tensors needs of a [`GlobalTensor`]: its view, its
/// extents, the offset of a coordinate inside its shape, its tiles. Implemented by every
/// `GlobalTensor`; sealed.
pub trait DeviceTensor: Copy + sealed::Sealed {
    /// The view: [`Gmem`](crate::Gmem) or [`GmemMut`](crate::GmemMut).
    type Mem: Memory;
    /// [`Scalar`] or [`Vector4`].
    type Access: AccessWidth;
    /// The same tensor with 128-bit access.
    type Vectorized: DeviceTensor<Mem = Self::Mem, Access = Vector4>;
    /// The mode whose stride is a static 1, if any.
    const UNIT_MODE: Option<usize>;
    /// The strides that are static (known at compile time), mode by mode.
    #[doc(hidden)]
    const STATIC_STRIDES: (Option<isize>, Option<isize>);
    /// Whether `other` is this very tensor: the same view and the same layout.
    #[doc(hidden)]
    fn same_tensor(&self, other: &Self) -> bool;
    /// The same layout on the view `n` elements on ([`Memory::advance`]).
    ///
    /// # Safety
    /// `n` plus the layout's cosize is at most the view's length.
    #[doc(hidden)]
    unsafe fn moved(&self, n: usize) -> Self;
    /// The view.
    fn memory(&self) -> Self::Mem;
    /// The shape's two extents.
    fn extents(&self) -> (usize, usize);
    /// The offset of `(i, j)`; meaningful (and below the view's length) only inside the shape.
    fn offset(&self, i: usize, j: usize) -> usize;
    /// The strides as 32-bit integers: exact for every mode of extent 2 or more (a stride there
    /// is below the cosize, at most [`MAX_COSIZE`]); a mode of extent 1 has only the coordinate
    /// 0, which any value multiplies to 0. Tiles compute offsets from them, as CuTe's `int`
    /// strides do.
    fn strides32(&self) -> (u32, u32);
    /// The same tensor with 128-bit access along its unit-stride mode, if that is exact: a mode
    /// has the static stride 1, its extent is a multiple of 4 and the other stride is too, and the
    /// view's base is 16-byte aligned ([`TensorParam`](crate::TensorParam) checks it for a
    /// parameter's allocation; a slice's start is checked here). Then every vector whose first
    /// coordinate is in the shape lies wholly inside it and is aligned.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// let w: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
    /// let g = Gmem::<u32>::from_cells(&w);
    /// let rows = |m: u32, ld: u32| GlobalTensor::new(g, make_layout((m, 4u32), (C::<1>, ld)).unwrap()).unwrap();
    /// assert!(rows(8, 8).vectorized().is_some());
    /// assert!(rows(6, 8).vectorized().is_none()); // the extent 6 is not a multiple of 4
    /// assert!(rows(8, 9).vectorized().is_none()); // the second column would start misaligned
    /// ```
    fn vectorized(self) -> Option<Self::Vectorized>;

    /// CuTe's `local_tile(tensor, tiler, coord)` for a static `B0 x B1` tiler: the tile at block
    /// coordinate `coord` (tile `coord.0` along mode 0, `coord.1` along mode 1), [`Full`] when it
    /// lies wholly inside the shape, else [`Partial`] with its residue. A tile past the end has a
    /// residue of zero: every access is predicated off.
    #[inline(always)]
    fn local_tile<const B0: isize, const B1: isize>(
        &self,
        tiler: (C<B0>, C<B1>),
        coord: (u32, u32),
    ) -> Tiled<Self, B0, B1> {
        match self.local_tile_as::<Full, B0, B1>(tiler, coord) {
            Some(tile) => Tiled::Full(tile),
            None => match self.local_tile_as::<Partial, B0, B1>(tiler, coord) {
                Some(tile) => Tiled::Partial(tile),
                // A Partial tile always exists.
                None => crate::thread::fault("local_tile: no tile"),
            },
        }
    }

    /// CuTe's `local_tile` for a launch whose grid covers the tensor exactly (the host checked
    /// that each extent is a multiple of the tile's): only the whole-tile path is compiled, with
    /// no predicate, and a tile that is not whole faults (one comparison a block). The cheap idiom
    /// when the problem size is fixed or padded; [`local_tile`](Self::local_tile) compiles both
    /// paths and picks one per block.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// let words: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((8u32, 8u32), (C::<1>, 8u32)).unwrap()).unwrap();
    /// let tile = t.local_tile_full((C::<4>, C::<4>), (1, 1));
    /// assert_eq!(tile.origin(), (4, 4));
    /// ```
    #[inline(always)]
    fn local_tile_full<const B0: isize, const B1: isize>(
        &self,
        tiler: (C<B0>, C<B1>),
        coord: (u32, u32),
    ) -> GlobalTile<Self, B0, B1, Full> {
        match self.local_tile_as::<Full, B0, B1>(tiler, coord) {
            Some(tile) => tile,
            None => crate::thread::fault(
                "local_tile_full: the tile is not whole (the grid does not cover the tensor exactly)",
            ),
        }
    }

    /// [`local_tile`](Self::local_tile) with the predicate chosen by the caller: always `Some`
    /// for [`Partial`], `None` for [`Full`] when the tile is cut. For a kernel body generic over
    /// the [`Residue`] that takes several tiles in turn (the k-tiles of a GEMM).
    #[inline(always)]
    fn local_tile_as<P: Residue, const B0: isize, const B1: isize>(
        &self,
        tiler: (C<B0>, C<B1>),
        coord: (u32, u32),
    ) -> Option<GlobalTile<Self, B0, B1, P>> {
        let () = TileExtents::<B0, B1>::CHECK;
        let _ = tiler;
        let origin = (coord.0 as usize * B0 as usize, coord.1 as usize * B1 as usize);
        let (pred, inside) = P::new(self.extents(), coord, B0, B1)?;
        Some(GlobalTile { tensor: *self, base: tile_base(self, origin, inside), origin, pred })
    }

    /// CuTe's `local_tile(tensor, tiler, (row, _))`: the `B0 x B1` tiles of block row `row`, one
    /// for each coordinate along mode 1 (a GEMM's k tiles), taken in turn with
    /// [`TileSeq::tile`]. The row's origin address is computed once; each tile is one step of
    /// `B1` columns from it, and a [`Full`] sequence knows how many of its tiles are whole.
    #[inline(always)]
    fn local_tile_seq<P: Residue, const B0: isize, const B1: isize>(
        &self,
        tiler: (C<B0>, C<B1>),
        row: u32,
    ) -> TileSeq<Self, B0, B1, P> {
        let () = TileExtents::<B0, B1>::CHECK;
        let _ = tiler;
        let (extent0, extent1) = self.extents();
        let origin0 = row as usize * B0 as usize;
        // Whole rows: `row < extent0 / B0` (a division by a constant, and 32-bit arithmetic for
        // 32-bit extents); then the first `extent1 / B1` tiles are whole.
        let whole = if (row as usize) < extent0 / B0 as usize {
            (extent1 / B1 as usize).min(u32::MAX as usize) as u32
        } else {
            0
        };
        // Only used when at least tile 1 is whole, and then below the cosize: 32 bits suffice.
        let step = self.offset(0, B1 as usize).min(u32::MAX as usize) as u32;
        let inside = origin0 < extent0;
        let count = if inside { extent1.div_ceil(B1 as usize).min(u32::MAX as usize) as u32 } else { 0 };
        TileSeq {
            count,
            tensor: *self,
            base: tile_base(self, (origin0, 0), origin0 < extent0 && extent1 > 0),
            origin0,
            whole,
            step,
            pred: core::marker::PhantomData,
        }
    }
}

/// The tiles of one block row of a tensor along its mode 1: see
/// [`DeviceTensor::local_tile_seq`].
#[derive(Clone, Copy, Debug)]
pub struct TileSeq<Tn: DeviceTensor, const B0: isize, const B1: isize, P> {
    tensor: Tn,
    /// The view from the row's origin `(origin0, 0)` on (the whole view if it is outside).
    base: Tn::Mem,
    origin0: usize,
    /// How many tiles from the start are wholly inside the tensor.
    whole: u32,
    /// How many tiles reach into the tensor: `ceil(extent1 / B1)` (0 when the row is outside).
    count: u32,
    /// The offset of `(0, B1)`: one tile along mode 1 (capped: only used for whole tiles).
    step: u32,
    pred: core::marker::PhantomData<P>,
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize, P: Residue> TileSeq<Tn, B0, B1, P> {
    /// Tile `k` of the row: for a [`Full`] sequence, `None` unless it lies wholly inside the
    /// tensor; for a [`Partial`] one, always, predicated.
    #[inline(always)]
    pub fn tile(&self, k: u32) -> Option<GlobalTile<Tn, B0, B1, P>> {
        P::seq_tile(self, k)
    }

    /// How many tiles [`tile`](Self::tile) gives: the whole ones for a [`Full`] sequence, every
    /// one that reaches into the tensor for a [`Partial`] one. A loop bounded by it takes tiles
    /// without a failed check, which the optimizer sees: the check folds away.
    #[inline(always)]
    pub fn count(&self) -> u32 {
        P::seq_count(self.whole, self.count)
    }
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize> TileSeq<Tn, B0, B1, Full> {
    #[inline(always)]
    fn whole_tile(&self, k: u32) -> Option<GlobalTile<Tn, B0, B1, Full>> {
        if k >= self.whole {
            return None;
        }
        // SAFETY: tile k is whole, so its origin (origin0, k B1) is inside the shape and its offset
        // from the row's origin, k * step, stays below the rest of the view (the tensor's
        // invariant, as in `tile_base`).
        let base = unsafe { self.base.advance((k as u64 * self.step as u64) as usize) };
        Some(GlobalTile {
            tensor: self.tensor,
            base,
            origin: (self.origin0, k as usize * B1 as usize),
            pred: Full,
        })
    }
}

/// The view from a tile's origin on, when the origin is inside the tensor (`inside`); the whole
/// view otherwise (no access is made through it then: every coordinate is predicated off).
#[inline(always)]
fn tile_base<T: DeviceTensor>(t: &T, origin: (usize, usize), inside: bool) -> T::Mem {
    if inside {
        // SAFETY: the origin is inside the shape, so its offset is below the cosize, at most the
        // view's length (the tensor's invariant) and 2^32 (exact in 32 bits); the multiple 1 is
        // below 2^30.
        unsafe { t.memory().advance_mul(t.offset(origin.0, origin.1) as u32, 1) }
    } else {
        t.memory()
    }
}

/// A tile's static extents, checked when a tile of them is taken: positive, and at most 2^24 (so
/// that block coordinates times extents, and tile coordinates, stay far inside their types).
struct TileExtents<const B0: isize, const B1: isize>;

impl<const B0: isize, const B1: isize> TileExtents<B0, B1> {
    const CHECK: () =
        assert!(B0 > 0 && B1 > 0 && B0 <= 1 << 24 && B1 <= 1 << 24, "tile extents must be in 1..=2^24");
}

/// The extents left from tile `coord`'s origin to the end of the shape (possibly negative).
#[inline(always)]
fn residue(extents: (usize, usize), (b0, b1): (isize, isize), coord: (u32, u32)) -> (isize, isize) {
    // u32 coordinates times extents up to 2^24 stay far inside isize, and so do checked extents.
    (extents.0 as isize - coord.0 as isize * b0, extents.1 as isize - coord.1 as isize * b1)
}

impl<M, L, V> sealed::Sealed for GlobalTensor<M, L, V> {}

impl<M: Memory, S0: Int, S1: Int, D0: Int, D1: Int, V: AccessWidth> DeviceTensor
    for GlobalTensor<M, Layout<(S0, S1), (D0, D1)>, V>
{
    type Mem = M;
    type Access = V;
    type Vectorized = GlobalTensor<M, Layout<(S0, S1), (D0, D1)>, Vector4>;
    const UNIT_MODE: Option<usize> = unit_mode::<D0, D1>();
    const STATIC_STRIDES: (Option<isize>, Option<isize>) = (D0::STATIC, D1::STATIC);
    #[inline(always)]
    fn same_tensor(&self, other: &Self) -> bool {
        let (s, d, os, od) =
            (self.layout.shape(), self.layout.stride(), other.layout.shape(), other.layout.stride());
        self.mem.same_view(&other.mem)
            && (s.0.value(), s.1.value(), d.0.value(), d.1.value())
                == (os.0.value(), os.1.value(), od.0.value(), od.1.value())
    }
    #[inline(always)]
    unsafe fn moved(&self, n: usize) -> Self {
        // SAFETY: the caller's contract; the layout keeps its cosize within the rest of the view.
        GlobalTensor { mem: unsafe { self.mem.advance(n) }, layout: self.layout, access: PhantomData }
    }
    #[inline(always)]
    fn memory(&self) -> M {
        self.mem
    }
    #[inline(always)]
    fn extents(&self) -> (usize, usize) {
        let s = self.layout.shape();
        (s.0.value() as usize, s.1.value() as usize)
    }
    #[inline(always)]
    fn offset(&self, i: usize, j: usize) -> usize {
        // Inside the shape the offset is below the cosize, at most `MAX_COSIZE` = 2^32: 32-bit
        // arithmetic is exact (and each access then adds it to a 64-bit address once).
        let (d0, d1) = self.strides32();
        (i as u32).wrapping_mul(d0).wrapping_add((j as u32).wrapping_mul(d1)) as usize
    }
    #[inline(always)]
    fn strides32(&self) -> (u32, u32) {
        let d = self.layout.stride();
        (d.0.value() as u32, d.1.value() as u32)
    }
    #[inline(always)]
    fn vectorized(self) -> Option<Self::Vectorized> {
        let (s, d) = (self.layout.shape(), self.layout.stride());
        let (extent, other) = match const { unit_mode::<D0, D1>() } {
            Some(0) => (s.0.value(), d.1.value()),
            Some(_) => (s.1.value(), d.0.value()),
            None => return None,
        };
        if extent % 4 != 0 || other % 4 != 0 || !self.mem.is_aligned16() {
            return None;
        }
        Some(GlobalTensor { mem: self.mem, layout: self.layout, access: PhantomData })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// How a tile bounds its coordinates: [`Full`] (its static extents) or [`Partial`] (the residue
/// too). Sealed.
pub trait Residue: Copy + core::fmt::Debug + sealed::Sealed {
    /// The predicate of the `b0 x b1` tile at block coordinate `coord` of a tensor of `extents`,
    /// and whether the tile's origin is inside the tensor; `None` if this kind cannot represent
    /// the tile.
    fn new(extents: (usize, usize), coord: (u32, u32), b0: isize, b1: isize) -> Option<(Self, bool)>;
    /// Whether `(i, j)`, inside the tile's extents, is inside the shape.
    fn contains(&self, i: u32, j: u32) -> bool;
    /// The extents inside the shape, given the tile's.
    fn extents(&self, b0: usize, b1: usize) -> (usize, usize);
    /// Whether accesses form their addresses mode by mode, a 64-bit product of each runtime
    /// stride and the coordinate added to the origin's address (for constant coordinates: one
    /// `IMAD.WIDE` an access, and the static strides' part in the immediate) rather than from the
    /// offset in 32-bit arithmetic (for coordinates that vary at run time).
    #[doc(hidden)]
    const WIDE: bool = false;
    #[doc(hidden)]
    fn seq_tile<Tn: DeviceTensor, const B0: isize, const B1: isize>(
        seq: &TileSeq<Tn, B0, B1, Self>,
        k: u32,
    ) -> Option<GlobalTile<Tn, B0, B1, Self>>;
    #[doc(hidden)]
    fn seq_count(whole: u32, count: u32) -> u32;
}

/// A tile wholly inside its tensor: only the static extents bound a coordinate.
#[derive(Clone, Copy, Debug)]
pub struct Full;

impl sealed::Sealed for Full {}
impl Residue for Full {
    #[inline(always)]
    fn new(extents: (usize, usize), coord: (u32, u32), b0: isize, b1: isize) -> Option<(Self, bool)> {
        // Whole: `(coord + 1) b <= extent`, i.e. `coord < extent / b` (a shift for a power of two,
        // a multiply-high otherwise; no 64-bit residue).
        let whole =
            (coord.0 as usize) < extents.0 / b0 as usize && (coord.1 as usize) < extents.1 / b1 as usize;
        if whole { Some((Full, true)) } else { None }
    }
    #[inline(always)]
    fn contains(&self, _: u32, _: u32) -> bool {
        true
    }
    #[inline(always)]
    fn extents(&self, b0: usize, b1: usize) -> (usize, usize) {
        (b0, b1)
    }
    #[inline(always)]
    fn seq_tile<Tn: DeviceTensor, const B0: isize, const B1: isize>(
        seq: &TileSeq<Tn, B0, B1, Self>,
        k: u32,
    ) -> Option<GlobalTile<Tn, B0, B1, Self>> {
        seq.whole_tile(k)
    }
    #[inline(always)]
    fn seq_count(whole: u32, _: u32) -> u32 {
        whole
    }
}

/// A tile whose coordinates are bounded by values, `r0 x r1`: [`Partial`] (a tile cut by the
/// tensor's edge) or [`Shifted`] (a tile seen from one of its coordinates). `WIDE` chooses how
/// an access's offset is formed (see [`GlobalTile`]).
#[derive(Clone, Copy, Debug)]
pub struct Bounded<const WIDE: bool> {
    r0: u32,
    r1: u32,
}

/// A tile cut by the tensor's edge: `r0 x r1` of it is inside.
pub type Partial = Bounded<false>;

/// A tile seen from one of its coordinates ([`GlobalTile::from`]): bounded by what is left of the
/// tile and of the tensor. Its accesses are meant at constant offsets (a thread's values), so
/// their addresses are formed from the origin's by one 64-bit multiply-add of the coordinate and
/// the stride for each mode with a runtime stride, the static strides' part in the access's
/// immediate.
pub type Shifted = Bounded<true>;

impl<const WIDE: bool> sealed::Sealed for Bounded<WIDE> {}
impl<const WIDE: bool> Residue for Bounded<WIDE> {
    const WIDE: bool = WIDE;
    #[inline(always)]
    fn new(extents: (usize, usize), coord: (u32, u32), b0: isize, b1: isize) -> Option<(Self, bool)> {
        let (r0, r1) = residue(extents, (b0, b1), coord);
        Some((Bounded { r0: r0.clamp(0, b0) as u32, r1: r1.clamp(0, b1) as u32 }, r0 > 0 && r1 > 0))
    }
    #[inline(always)]
    fn contains(&self, i: u32, j: u32) -> bool {
        i < self.r0 && j < self.r1
    }
    #[inline(always)]
    fn extents(&self, _: usize, _: usize) -> (usize, usize) {
        (self.r0 as usize, self.r1 as usize)
    }
    #[inline(always)]
    fn seq_tile<Tn: DeviceTensor, const B0: isize, const B1: isize>(
        seq: &TileSeq<Tn, B0, B1, Self>,
        k: u32,
    ) -> Option<GlobalTile<Tn, B0, B1, Self>> {
        seq.tensor.local_tile_as::<Self, B0, B1>((C, C), ((seq.origin0 / B0 as usize) as u32, k))
    }
    #[inline(always)]
    fn seq_count(_: u32, count: u32) -> u32 {
        count
    }
}

/// A `B0 x B1` tile of a [`GlobalTensor`] `Tn` at an origin, with its predicate `P`. Coordinates
/// are the tile's own, `(0..B0, 0..B1)`.
#[derive(Clone, Copy, Debug)]
pub struct GlobalTile<Tn: DeviceTensor, const B0: isize, const B1: isize, P> {
    tensor: Tn,
    /// The view from the origin's offset on.
    base: Tn::Mem,
    origin: (usize, usize),
    pred: P,
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize, P: Residue> GlobalTile<Tn, B0, B1, P> {
    /// The tile's first coordinate in the tensor.
    #[inline(always)]
    pub fn origin(&self) -> (usize, usize) {
        self.origin
    }

    /// The extents of the part inside the tensor (`(B0, B1)` for a [`Full`] tile).
    #[inline(always)]
    pub fn residue(&self) -> (usize, usize) {
        self.pred.extents(B0 as usize, B1 as usize)
    }

    /// CuTe's predicate (`elem_less(identity(crd), shape)`): whether tile coordinate `crd` is in
    /// the tile and inside the tensor.
    #[inline(always)]
    pub fn contains(&self, (i, j): (u32, u32)) -> bool {
        i < B0 as u32 && j < B1 as u32 && self.pred.contains(i, j)
    }

    /// The offset of a contained coordinate from the tile's origin: the layout is linear in each
    /// mode, so it is the layout at `(i, j)` itself, `i d0 + j d1`. It is below the cosize (at
    /// most 2^32), and so is each term: 32-bit arithmetic is exact. Only meaningful for a
    /// contained coordinate.
    #[inline(always)]
    fn offset(&self, (i, j): (u32, u32)) -> usize {
        let (d0, d1) = self.tensor.strides32();
        i.wrapping_mul(d0).wrapping_add(j.wrapping_mul(d1)) as usize
    }

    /// The view and the element offset from it of a contained coordinate: the view from the origin
    /// and [`offset`](Self::offset), or, for a [`Shifted`] tile (whose coordinates are meant
    /// constant), the origin's view moved along each runtime stride by one multiply-add of the
    /// stride and the coordinate (`IMAD.WIDE.U32`, held opaque: left to the optimizer, accesses at
    /// multiples of one stride become chains of 64-bit adds), and the static strides' part as the
    /// offset, which folds into the access's immediate.
    ///
    /// # Safety
    /// `crd` is contained ([`contains`](Self::contains)).
    #[inline(always)]
    unsafe fn at(&self, (i, j): (u32, u32)) -> (Tn::Mem, usize) {
        if !P::WIDE {
            return (self.base, self.offset((i, j)));
        }
        let (d0, d1) = self.tensor.strides32();
        let (mut view, mut fixed) = (self.base, 0usize);
        for (c, d, s) in [(i, d0, Tn::STATIC_STRIDES.0), (j, d1, Tn::STATIC_STRIDES.1)] {
            match s {
                Some(s) => fixed += c as usize * s as usize,
                // SAFETY: `crd` is contained, so `c d` plus the other mode's part is below the rest
                // of the view (as in `load`); `c` is below the tile's extent, at most 2^24.
                None if c != 0 => view = unsafe { view.advance_mul(d, c) },
                None => {}
            }
        }
        (view, fixed)
    }

    /// The tile seen from tile coordinate `from` (a thread's first element, as in CuTe's
    /// `local_partition`): coordinates are offsets from `from`, bounded by what is left of the
    /// tile and of the tensor ([`Shifted`]: the bounds are values, which the optimizer folds where
    /// it knows `from`'s range, as for a thread index). Its origin's address is computed once, so
    /// an access at a constant coordinate is one multiply-add from it. On a [`Vector4`] tensor,
    /// `from` is a multiple of 4 along the unit-stride mode (faults otherwise), which keeps the
    /// origin aligned.
    #[inline(always)]
    pub fn from(&self, from: (u32, u32)) -> GlobalTile<Tn, B0, B1, Shifted> {
        if <Tn::Access as AccessWidth>::VECTOR {
            let along = if Tn::UNIT_MODE == Some(1) { from.1 } else { from.0 };
            if !along.is_multiple_of(4) {
                fault("a vector tile seen from a coordinate that is not a multiple of 4");
            }
        }
        let (e0, e1) = self.pred.extents(B0 as usize, B1 as usize);
        let (e0, e1) = (e0 as u32, e1 as u32);
        let base = if from.0 < e0 && from.1 < e1 {
            // SAFETY: `from` is contained (below the tile's extents and its residue), so its
            // offset from the origin is below the rest of the view (the tensor's invariant) and
            // 2^32; the multiple 1 is below 2^30.
            unsafe { self.base.advance_mul(self.offset(from) as u32, 1) }
        } else {
            self.base
        };
        let pred = Bounded { r0: e0.saturating_sub(from.0), r1: e1.saturating_sub(from.1) };
        let origin = (self.origin.0 + from.0 as usize, self.origin.1 + from.1 as usize);
        GlobalTile { tensor: self.tensor, base, origin, pred }
    }

    /// The element at tile coordinate `crd`, or `None` outside the tensor.
    #[inline(always)]
    pub fn load(&self, crd: (u32, u32)) -> Option<<Tn::Mem as Memory>::Elem> {
        if !self.contains(crd) {
            return None;
        }
        // SAFETY: `crd` is inside the tensor's shape, so its offset is below the cosize, which is
        // at most the view's length (the tensor's invariant); strides are non-negative.
        Some(unsafe {
            let (view, k) = self.at(crd);
            view.load_at(k)
        })
    }

    /// [`load`](Self::load), zero outside the tensor (CuTe's zero-filling copy).
    #[inline(always)]
    pub fn load_or_zero(&self, crd: (u32, u32)) -> <Tn::Mem as Memory>::Elem {
        self.load(crd).unwrap_or_default()
    }

    /// Copy the element at `crd` into `dst[di]` asynchronously (`cp.async` of 4 bytes),
    /// zero-filled outside the tensor. Complete it with [`cp_async_commit`] and
    /// [`cp_async_wait`] (and a barrier before other threads read it).
    #[inline(always)]
    pub fn copy_async<const N: usize>(
        &self,
        crd: (u32, u32),
        dst: SmemArray<<Tn::Mem as Memory>::Elem, N>,
        di: usize,
    ) {
        let inside = self.contains(crd);
        let d = dst.address(di);
        // SAFETY: when `inside`, `crd` is contained.
        let ((view, src), bytes) = if inside { (unsafe { self.at(crd) }, 4) } else { ((self.base, 0), 0) };
        // SAFETY: `d` is element `di` of the shared array (checked by `address`); when `inside`,
        // `src` is an element of the view (as in `load`) and 4 bytes are read; otherwise none.
        unsafe { view.copy_async4_at(src, d, bytes) }
    }
}

impl<Tn: DeviceTensor<Mem: MemoryMut>, const B0: isize, const B1: isize, P: Residue>
    GlobalTile<Tn, B0, B1, P>
{
    /// Store `v` at tile coordinate `crd` if it is inside the tensor (CuTe's `copy_if`).
    #[inline(always)]
    pub fn store(&self, crd: (u32, u32), v: <Tn::Mem as Memory>::Elem) {
        if self.contains(crd) {
            // SAFETY: as in `load`; the view is writable.
            unsafe {
                let (view, k) = self.at(crd);
                view.store_at(k, v)
            }
        }
    }
}

impl<Tn: DeviceTensor<Access = Vector4>, const B0: isize, const B1: isize, P: Residue>
    GlobalTile<Tn, B0, B1, P>
{
    /// The unit-stride mode, and a check that the tile extent along it keeps vectors aligned.
    const VMODE: usize = {
        let m = match Tn::UNIT_MODE {
            Some(m) => m,
            None => panic!("a Vector4 tensor has a unit-stride mode"),
        };
        assert!(
            (if m == 0 { B0 } else { B1 }) % 4 == 0,
            "vector access needs a tile extent along the unit-stride mode that is a multiple of 4"
        );
        m
    };

    /// Whether `crd` starts a vector: its coordinate along the unit-stride mode is a multiple of 4
    /// (faults otherwise) and it is inside the tensor.
    #[inline(always)]
    fn vector_inside(&self, crd: (u32, u32)) -> bool {
        let along = if Self::VMODE == 0 { crd.0 } else { crd.1 };
        if along % 4 != 0 {
            fault("a vector access starts at a coordinate that is not a multiple of 4");
        }
        self.contains(crd)
    }

    /// The 4 elements from tile coordinate `crd` along the unit-stride mode, in one 128-bit load,
    /// or `None` outside the tensor. `crd`'s coordinate along that mode is a multiple of 4.
    #[inline(always)]
    pub fn load4(&self, crd: (u32, u32)) -> Option<[<Tn::Mem as Memory>::Elem; 4]> {
        if !self.vector_inside(crd) {
            return None;
        }
        // SAFETY: the vector's first coordinate is inside the shape and a multiple of 4 along the
        // unit-stride mode, whose extent is a multiple of 4, so all four are inside; the offset is
        // a multiple of 4 (the other stride is, and the tile origin is, since the tile extent is),
        // so with the 16-byte aligned base the access is aligned (`vectorized`'s invariant).
        Some(unsafe {
            let (view, k) = self.at(crd);
            view.load4_at(k)
        })
    }

    /// Copy the 4 elements from `crd` into `dst[di..di + 4]` asynchronously (`cp.async.cg` of 16
    /// bytes, CuTe's `SM80_CP_ASYNC_CACHEGLOBAL`), zero-filled outside the tensor; `di` a multiple
    /// of 4.
    #[inline(always)]
    pub fn copy_async4<const N: usize>(
        &self,
        crd: (u32, u32),
        dst: SmemArray<<Tn::Mem as Memory>::Elem, N>,
        di: usize,
    ) {
        self.copy_async4_as(SM80_CP_ASYNC_CACHEGLOBAL::<u128>::default(), crd, dst, di)
    }

    /// [`copy_async4`](Self::copy_async4) by the instruction of a copy atom: `cp.async.ca` for
    /// `SM80_CP_ASYNC_CACHEALWAYS<u128>` (through L1, so blocks on one multiprocessor that read
    /// the same tile share it), `cp.async.cg` for `SM80_CP_ASYNC_CACHEGLOBAL<u128>`.
    ///
    /// ```
    /// use const_layout::atom::SM80_CP_ASYNC_CACHEALWAYS;
    /// use const_layout::{C, make_layout};
    /// use const_layout_device::emu::{launch, LaunchConfig};
    /// use const_layout_device::{DeviceTensor, Dim3, GlobalTensor, Gmem, SmemRegion, cp_async_commit, cp_async_wait};
    /// use std::sync::atomic::AtomicU32;
    /// let cells: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
    /// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 64 }, || {
    ///     let t = GlobalTensor::new(Gmem::<u32>::from_cells(&cells), make_layout((8u32, 8u32), (8u32, C::<1>)).unwrap())
    ///         .unwrap()
    ///         .vectorized()
    ///         .unwrap();
    ///     let s = SmemRegion::dynamic().array::<u32, 16>(0).unwrap();
    ///     let tile = t.local_tile_as::<const_layout_device::Full, 4, 8>((C, C), (1, 0)).unwrap();
    ///     tile.copy_async4_as(SM80_CP_ASYNC_CACHEALWAYS::<u128>::default(), (1, 4), s, 8); // row 5, columns 4..8
    ///     cp_async_commit();
    ///     cp_async_wait::<0>();
    ///     assert_eq!(s.load4(8), [44, 45, 46, 47]);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn copy_async4_as<Op: CpAsync16, const N: usize>(
        &self,
        op: Op,
        crd: (u32, u32),
        dst: SmemArray<<Tn::Mem as Memory>::Elem, N>,
        di: usize,
    ) {
        let _ = op;
        let inside = self.vector_inside(crd);
        if !di.is_multiple_of(4) || di + 4 > N {
            fault("cp.async destination out of bounds or misaligned");
        }
        let d = dst.address(di);
        // SAFETY: when `inside`, `crd` is contained.
        let ((view, src), bytes) = if inside { (unsafe { self.at(crd) }, 16) } else { ((self.base, 0), 0) };
        // SAFETY: `d` is 16-byte aligned (`di % 4 == 0` in a 16-byte aligned array) with 16 bytes
        // inside the array; when `inside`, `src` starts 16 readable, aligned bytes (as in
        // `load4`); otherwise nothing is read.
        unsafe { view.copy_async16_at(src, d, bytes, Op::CACHE_ALWAYS) }
    }
}

impl<Tn: DeviceTensor<Access = Vector4, Mem: MemoryMut>, const B0: isize, const B1: isize, P: Residue>
    GlobalTile<Tn, B0, B1, P>
{
    /// Store 4 elements from tile coordinate `crd` along the unit-stride mode in one 128-bit
    /// store, if inside the tensor.
    #[inline(always)]
    pub fn store4(&self, crd: (u32, u32), v: [<Tn::Mem as Memory>::Elem; 4]) {
        if self.vector_inside(crd) {
            // SAFETY: as in `load4`; the view is writable.
            unsafe {
                let (view, k) = self.at(crd);
                view.store4_at(k, v)
            }
        }
    }
}

/// A 16-byte `cp.async` copy atom of `const_layout::atom`: which instruction
/// [`GlobalTile::copy_async4_as`] issues. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a 16-byte cp.async atom",
    note = "use SM80_CP_ASYNC_CACHEALWAYS<u128> (cp.async.ca) or SM80_CP_ASYNC_CACHEGLOBAL<u128> (cp.async.cg)"
)]
pub trait CpAsync16: sealed::Sealed {
    /// Whether the copy goes through L1 (`.ca`) rather than bypassing it (`.cg`).
    const CACHE_ALWAYS: bool;
}

impl sealed::Sealed for SM80_CP_ASYNC_CACHEALWAYS<u128> {}
impl CpAsync16 for SM80_CP_ASYNC_CACHEALWAYS<u128> {
    const CACHE_ALWAYS: bool = true;
}
impl sealed::Sealed for SM80_CP_ASYNC_CACHEGLOBAL<u128> {}
impl CpAsync16 for SM80_CP_ASYNC_CACHEGLOBAL<u128> {
    const CACHE_ALWAYS: bool = false;
}

/// `cp.async.commit_group`: close the group of this thread's asynchronous copies issued since the
/// last commit (a no-op in the emulator, whose copies complete at once).
#[inline(always)]
pub fn cp_async_commit() {
    crate::backend::cp_async_commit()
}

/// `cp.async.wait_group N`: wait until at most `N` of this thread's committed groups are still in
/// flight. Other threads see the data after a barrier.
#[inline(always)]
pub fn cp_async_wait<const N: u32>() {
    crate::backend::cp_async_wait::<N>()
}

/// How a tile moves 4 consecutive elements along its tensor's unit-stride mode (mode 0 if it has
/// none): [`Vector4`] in one 128-bit instruction, [`Scalar`] in four predicated ones. What
/// [`GlobalTile::load_vec4`] and [`GlobalTile::store_vec4`] dispatch on; sealed.
pub trait AccessWidth: sealed::Sealed {
    /// Whether accesses are 128-bit vectors (so a tile's origin stays a multiple of 4 along the
    /// unit-stride mode).
    const VECTOR: bool;
    #[doc(hidden)]
    fn load_vec4<Tn: DeviceTensor<Access = Self>, const B0: isize, const B1: isize, P: Residue>(
        tile: &GlobalTile<Tn, B0, B1, P>,
        crd: (u32, u32),
    ) -> [<Tn::Mem as Memory>::Elem; 4];
    #[doc(hidden)]
    fn store_vec4<
        Tn: DeviceTensor<Access = Self, Mem: MemoryMut>,
        const B0: isize,
        const B1: isize,
        P: Residue,
    >(
        tile: &GlobalTile<Tn, B0, B1, P>,
        crd: (u32, u32),
        v: [<Tn::Mem as Memory>::Elem; 4],
    );
    #[doc(hidden)]
    fn copy_async_vec4<
        Tn: DeviceTensor<Access = Self>,
        const B0: isize,
        const B1: isize,
        P: Residue,
        const N: usize,
    >(
        tile: &GlobalTile<Tn, B0, B1, P>,
        crd: (u32, u32),
        dst: SmemArray<<Tn::Mem as Memory>::Elem, N>,
        di: usize,
    );
}

/// The coordinate `k` steps from `crd` along the unit-stride mode of `Tn` (mode 0 if none).
#[inline(always)]
fn step<Tn: DeviceTensor>(crd: (u32, u32), k: usize) -> (u32, u32) {
    let k = k as u32;
    if Tn::UNIT_MODE == Some(1) { (crd.0, crd.1 + k) } else { (crd.0 + k, crd.1) }
}

/// `AccessWidth` for one access kind: the three operations' bodies, the signatures written once.
macro_rules! access {
    ($kind:ident, $vector:literal,
     load($lt:ident, $lc:ident) $load:block
     store($st:ident, $sc:ident, $sv:ident) $store:block
     copy($ct:ident, $cc:ident, $cd:ident, $ci:ident) $copy:block) => {
        impl sealed::Sealed for $kind {}
        impl AccessWidth for $kind {
            const VECTOR: bool = $vector;
            #[inline(always)]
            fn load_vec4<Tn: DeviceTensor<Access = Self>, const B0: isize, const B1: isize, P: Residue>(
                $lt: &GlobalTile<Tn, B0, B1, P>,
                $lc: (u32, u32),
            ) -> [<Tn::Mem as Memory>::Elem; 4] $load
            #[inline(always)]
            fn store_vec4<Tn: DeviceTensor<Access = Self, Mem: MemoryMut>, const B0: isize, const B1: isize, P: Residue>(
                $st: &GlobalTile<Tn, B0, B1, P>,
                $sc: (u32, u32),
                $sv: [<Tn::Mem as Memory>::Elem; 4],
            ) $store
            #[inline(always)]
            fn copy_async_vec4<Tn: DeviceTensor<Access = Self>, const B0: isize, const B1: isize, P: Residue, const N: usize>(
                $ct: &GlobalTile<Tn, B0, B1, P>,
                $cc: (u32, u32),
                $cd: SmemArray<<Tn::Mem as Memory>::Elem, N>,
                $ci: usize,
            ) $copy
        }
    };
}

access! {
    Scalar, false,
    load(tile, crd) { core::array::from_fn(|k| tile.load_or_zero(step::<Tn>(crd, k))) }
    store(tile, crd, v) {
        for (k, x) in v.into_iter().enumerate() {
            tile.store(step::<Tn>(crd, k), x);
        }
    }
    copy(tile, crd, dst, di) {
        for k in 0..4 {
            tile.copy_async(step::<Tn>(crd, k), dst, di + k);
        }
    }
}

access! {
    Vector4, true,
    load(tile, crd) { tile.load4(crd).unwrap_or_default() }
    store(tile, crd, v) { tile.store4(crd, v) }
    copy(tile, crd, dst, di) { tile.copy_async4(crd, dst, di) }
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize, P: Residue> GlobalTile<Tn, B0, B1, P> {
    /// The 4 elements from `crd` along the tensor's unit-stride mode (mode 0 if it has none),
    /// zero where outside the tensor: one 128-bit load on a [`Vector4`] tensor (`crd` then a
    /// multiple of 4 along that mode), four predicated loads on a [`Scalar`] one.
    #[inline(always)]
    pub fn load_vec4(&self, crd: (u32, u32)) -> [<Tn::Mem as Memory>::Elem; 4] {
        <Tn::Access as AccessWidth>::load_vec4(self, crd)
    }

    /// Copy the 4 elements from `crd` along the tensor's unit-stride mode into `dst[di..di + 4]`
    /// asynchronously, zero-filled outside the tensor: one `cp.async` of 16 bytes on a
    /// [`Vector4`] tensor (`di` a multiple of 4), four of 4 bytes on a [`Scalar`] one.
    #[inline(always)]
    pub fn copy_async_vec4<const N: usize>(
        &self,
        crd: (u32, u32),
        dst: SmemArray<<Tn::Mem as Memory>::Elem, N>,
        di: usize,
    ) {
        <Tn::Access as AccessWidth>::copy_async_vec4(self, crd, dst, di)
    }
}

impl<Tn: DeviceTensor<Mem: MemoryMut>, const B0: isize, const B1: isize, P: Residue>
    GlobalTile<Tn, B0, B1, P>
{
    /// Store 4 elements from `crd` along the tensor's unit-stride mode where inside the tensor:
    /// one 128-bit store on a [`Vector4`] tensor, four predicated stores on a [`Scalar`] one.
    #[inline(always)]
    pub fn store_vec4(&self, crd: (u32, u32), v: [<Tn::Mem as Memory>::Elem; 4]) {
        <Tn::Access as AccessWidth>::store_vec4(self, crd, v)
    }
}

/// Element access by coordinate and slices for tensors of rank 2 to 4 (the coordinate an array of
/// `u32`, one a mode; rank 2 also has [`DeviceTensor`]'s tiles).
macro_rules! element_access {
    ($rank:literal; $($S:ident $D:ident $i:tt),+) => {
        impl<M: Memory, $($S: Int, $D: Int,)+ V> GlobalTensor<M, Layout<($($S,)+), ($($D,)+)>, V>
        {
            /// Whether `crd` is inside the shape (CuTe's `elem_less(crd, shape)`).
            #[inline(always)]
            pub fn contains(&self, crd: [u32; $rank]) -> bool {
                let s = self.layout.shape();
                true $(&& (crd[$i] as u64) < s.$i.value() as u64)+
            }

            /// The offset of `crd`; meaningful (and below the view's length) inside the shape.
            #[inline(always)]
            fn offset_of(&self, crd: [u32; $rank]) -> usize {
                self.layout.crd2idx(($(crd[$i] as usize,)+)) as usize
            }

            /// The element at `crd`, or `None` outside the shape.
            #[inline(always)]
            pub fn load(&self, crd: [u32; $rank]) -> Option<M::Elem> {
                if !self.contains(crd) {
                    return None;
                }
                // SAFETY: `crd` is inside the shape and the strides are non-negative, so its offset
                // is below the cosize, at most the view's length (the tensor's invariant).
                Some(unsafe { self.mem.load_at(self.offset_of(crd)) })
            }
        }

        impl<M: MemoryMut, $($S: Int, $D: Int,)+ V> GlobalTensor<M, Layout<($($S,)+), ($($D,)+)>, V>
        {
            /// Store `v` at `crd` if it is inside the shape (CuTe's `copy_if`).
            #[inline(always)]
            pub fn store(&self, crd: [u32; $rank], v: M::Elem) {
                if self.contains(crd) {
                    // SAFETY: as in `load`; the view is writable.
                    unsafe { self.mem.store_at(self.offset_of(crd), v) }
                }
            }
        }
    };
}

element_access!(2; S0 D0 0, S1 D1 1);
element_access!(3; S0 D0 0, S1 D1 1, S2 D2 2);
element_access!(4; S0 D0 0, S1 D1 1, S2 D2 2, S3 D3 3);

/// Element access and slices by any coordinate the layout takes: any rank (up to the largest
/// tuple), nested modes, static or runtime integers, as CuTe's `tensor(crd)` and
/// `tensor(_, k, _)`. The arrays of [`load`](GlobalTensor::load) are the 32-bit fast form of
/// ranks 2 to 4; these take what [`Layout::checked_crd2idx`] takes.
///
/// ```
/// use const_layout::tensor::Keep;
/// use const_layout::{make_layout, C};
/// use const_layout_device::{GlobalTensor, GmemMut};
/// use std::sync::atomic::AtomicU32;
/// // A batch of 2 x 3 heads of 4 x 5 row-major matrices: rank 5, two of its modes nested.
/// let words: Vec<AtomicU32> = (0..120).map(|_| AtomicU32::new(0)).collect();
/// let l = make_layout((2u32, 3u32, (2u32, 2u32), 5u32), (60u32, 20u32, (5u32, 10u32), C::<1>)).unwrap();
/// let t = GlobalTensor::new(GmemMut::<u32>::from_cells(&words), l).unwrap();
/// t.store_coord((1u32, 2u32, (1u32, 1u32), 4u32), 7);
/// assert_eq!(t.load_coord((1u32, 2u32, (1u32, 1u32), 4u32)), Some(7));
/// assert_eq!(t.load_coord((1u32, 2u32, 3u32, 4u32)), Some(7)); // row 3 of (2,2) is (1,1)
/// assert_eq!(t.load_coord((2u32, 0u32, 0u32, 0u32)), None); // past the batch
/// // Head (1, 2) as a 4 x 5 tensor: CuTe's t(1, 2, _, _).
/// let m = t.slice((1u32, 2u32, Keep, Keep)).unwrap();
/// assert_eq!(m.load_coord((3u32, 4u32)), Some(7));
/// assert!(t.slice((1u32, 3u32, Keep, Keep)).is_none());
/// ```
impl<M: Memory, S: IntTuple + LayoutShape<D>, D: IntTuple, V> GlobalTensor<M, Layout<S, D>, V> {
    /// The element at `crd` (an index, a flat or a nested coordinate), or `None` outside the
    /// shape.
    #[inline(always)]
    pub fn load_coord<Crd: Crd2Idx<S, D> + InShape<S>>(&self, crd: Crd) -> Option<M::Elem> {
        let off = self.layout.checked_crd2idx(crd).ok()?;
        // SAFETY: `crd` is inside the shape and the strides are non-negative (the tensor's
        // invariant), so its offset lies in `0..cosize`, and the cosize is at most the view's
        // length.
        Some(unsafe { self.mem.load_at(off as usize) })
    }

    /// CuTe's `tensor(crd)` with `_` ([`Keep`](const_layout::tensor::Keep)) in it: the tensor
    /// of the kept modes from the fixed coordinates' element on; `None` if a fixed coordinate is
    /// outside its mode. Single-element access ([`Scalar`]): a slice need not keep a vector
    /// tensor's alignment.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    pub fn slice<Crd>(&self, crd: Crd) -> Option<GlobalTensor<M, Layout<Crd::Shape, Crd::Stride>, Scalar>>
    where
        Crd: SliceCoord<S, D>,
        Crd::Shape: LayoutShape<Crd::Stride>,
    {
        let (shape, stride, at) = crd.slice(&self.layout.shape(), &self.layout.stride(), &mut 0).ok()?;
        let layout = Layout::try_new(shape, stride).ok()?;
        // SAFETY: the fixed coordinates are inside their modes, so `at` is the offset of a
        // coordinate inside the shape (the kept modes at 0): in `0..cosize`, at most the view's
        // length. Every offset of the kept modes plus `at` is an offset of the whole, below its
        // cosize, so the view from `at` on holds the slice's offsets; the strides stay
        // non-negative.
        let mem = unsafe { self.mem.advance(at as usize) };
        Some(GlobalTensor { mem, layout, access: PhantomData })
    }
}

impl<M: MemoryMut, S: IntTuple + LayoutShape<D>, D: IntTuple, V> GlobalTensor<M, Layout<S, D>, V> {
    /// Store `v` at `crd` (any coordinate the layout takes) if it is inside the shape.
    #[inline(always)]
    pub fn store_coord<Crd: Crd2Idx<S, D> + InShape<S>>(&self, crd: Crd, v: M::Elem) {
        if let Ok(off) = self.layout.checked_crd2idx(crd) {
            // SAFETY: as in `load_coord`; the view is writable.
            unsafe { self.mem.store_at(off as usize, v) }
        }
    }
}

/// The rank-2 tensor of modes `I`, `J` of `t`, from the element at offset `at` on (the offset of a
/// coordinate inside the shape, zero in modes `I` and `J`): the slice keeps the invariant, since
/// every offset of the selected modes plus `at` is an offset of the whole (below its cosize) and
/// the strides stay non-negative. The view's address is left to the optimizer (a kernel that takes
/// slices in turn steps from one to the next).
macro_rules! slice_at {
    ($t:expr, $at:expr, $i:literal, $j:literal) => {{
        let at = $at;
        // SAFETY: `at` is the offset of a coordinate inside the shape: below the cosize, at most
        // the view's length.
        let mem = unsafe { $t.mem.advance(at) };
        GlobalTensor { mem, layout: $t.layout.select::<$i, $j>(), access: PhantomData }
    }};
}

impl<M: Memory, S0: Int, S1: Int, S2: Int, D0: Int, D1: Int, D2: Int, V>
    GlobalTensor<M, Layout<(S0, S1, S2), (D0, D1, D2)>, V>
{
    /// The extents (a tuple: comparing two compiles to three comparisons, where arrays would
    /// call `memcmp`).
    #[inline(always)]
    pub fn extents(&self) -> (usize, usize, usize) {
        let s = self.layout.shape();
        (s.0.value() as usize, s.1.value() as usize, s.2.value() as usize)
    }

    /// The same tensor with 128-bit access along its unit-stride mode, if that is exact: a mode
    /// has the static stride 1, its extent is a multiple of 4, every other stride is too, and the
    /// view's start is 16-byte aligned. Its slices keep it (their starts are multiples of the
    /// other strides), so a kernel checks once, not once a slice.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// let w: Vec<AtomicU32> = (0..256).map(AtomicU32::new).collect();
    /// let t = |ld: u32| GlobalTensor::new(Gmem::<u32>::from_cells(&w), make_layout((2u32, 4u32, 8u32), (64u32, ld, C::<1>)).unwrap()).unwrap();
    /// assert!(t(8).vectorized().is_some());
    /// assert!(t(9).vectorized().is_none()); // row 1 would start misaligned
    /// assert!(t(8).vectorized().unwrap().slice_first(1).unwrap().vectorized().is_some());
    /// ```
    #[inline(always)]
    #[allow(clippy::type_complexity)] // seven type parameters: the rank-3 tensor's own
    pub fn vectorized(self) -> Option<GlobalTensor3<M, S0, S1, S2, D0, D1, D2, Vector4>> {
        let (s, d) = (self.layout.shape(), self.layout.stride());
        let (extent, a, b) = match (D0::STATIC, D1::STATIC, D2::STATIC) {
            (Some(1), _, _) => (s.0.value(), d.1.value(), d.2.value()),
            (_, Some(1), _) => (s.1.value(), d.0.value(), d.2.value()),
            (_, _, Some(1)) => (s.2.value(), d.0.value(), d.1.value()),
            _ => return None,
        };
        if extent % 4 != 0 || a % 4 != 0 || b % 4 != 0 || !self.mem.is_aligned16() {
            return None;
        }
        Some(GlobalTensor { mem: self.mem, layout: self.layout, access: PhantomData })
    }

    /// CuTe's `tensor(_, _, k)`: matrix `k` of a batch whose last mode is the batch, as a rank-2
    /// tensor; `None` if `k` is past the batch. A [`Vector4`] tensor's slices are too.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// let words: Vec<AtomicU32> = (0..48).map(AtomicU32::new).collect();
    /// // 2 column-major 4 x 6 matrices, 24 elements apart.
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((4u32, 6u32, 2u32), (C::<1>, 4u32, 24u32)).unwrap()).unwrap();
    /// let m = t.slice_last(1).unwrap();
    /// assert_eq!((m.extents(), m.load([3, 5])), ((4, 6), Some(24 + 3 + 20)));
    /// assert!(t.slice_last(2).is_none());
    /// ```
    #[inline(always)]
    pub fn slice_last(&self, k: u32) -> Option<GlobalMatrix<M, S0, S1, D0, D1, V>> {
        // The other modes' coordinate 0 is inside them: a layout's extents are positive.
        if k as u64 >= self.layout.shape().2.value() as u64 {
            return None;
        }
        // `k` is inside the shape: its offset is below the cosize, 32-bit arithmetic is exact.
        Some(slice_at!(self, k.wrapping_mul(self.layout.stride().2.value() as u32) as usize, 0, 1))
    }

    /// CuTe's `tensor(k, _, _)`: matrix `k` of a batch whose first mode is the batch, as a rank-2
    /// tensor; `None` if `k` is past the batch.
    #[inline(always)]
    pub fn slice_first(&self, k: u32) -> Option<GlobalMatrix<M, S1, S2, D1, D2, V>> {
        if k as u64 >= self.layout.shape().0.value() as u64 {
            return None;
        }
        Some(slice_at!(self, k.wrapping_mul(self.layout.stride().0.value() as u32) as usize, 1, 2))
    }

    /// Matrices `start..start + N` of a batch whose first mode is the batch
    /// ([`slice_first`](Self::slice_first) of each), checked once: `None` unless they are all in
    /// the batch. The same tile of each is then one pointer step from the previous one's
    /// ([`Slices::tiles`]).
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// // 4 row-major 2 x 3 matrices, 6 elements apart.
    /// let words: Vec<AtomicU32> = (0..24).map(AtomicU32::new).collect();
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((4u32, 2u32, 3u32), (6u32, 3u32, C::<1>)).unwrap()).unwrap();
    /// let s = t.slices_first::<2>(2).unwrap(); // matrices 2 and 3
    /// assert_eq!(s.first().load([1, 2]), Some(12 + 5));
    /// assert_eq!(s.get(1).unwrap().load([1, 2]), Some(18 + 5));
    /// assert!(s.get(2).is_none());
    /// assert!(t.slices_first::<2>(3).is_none()); // matrix 4 is past the batch
    /// ```
    #[inline(always)]
    #[allow(clippy::type_complexity)] // the rank-3 tensor's own type parameters
    pub fn slices_first<const N: usize>(
        &self,
        start: u32,
    ) -> Option<Slices<GlobalMatrix<M, S1, S2, D1, D2, V>, N>> {
        let () = Slices::<(), N>::CHECK;
        if start as u64 + N as u64 > self.layout.shape().0.value() as u64 {
            return None;
        }
        // The stride is exact in 32 bits when `N >= 2` (the batch has two matrices, so it is
        // below the cosize); with `N == 1` it is never used.
        Some(Slices { first: self.slice_first(start)?, stride: self.layout.stride().0.value() as u32 })
    }

    /// [`slices_first`](Self::slices_first) for a batch whose last mode is the batch
    /// ([`slice_last`](Self::slice_last) of each).
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// // 3 column-major 2 x 2 matrices, 4 elements apart.
    /// let words: Vec<AtomicU32> = (0..12).map(AtomicU32::new).collect();
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((2u32, 2u32, 3u32), (C::<1>, 2u32, 4u32)).unwrap()).unwrap();
    /// let s = t.slices_last::<3>(0).unwrap();
    /// assert_eq!(s.get(2).unwrap().load([1, 1]), Some(8 + 3));
    /// ```
    #[inline(always)]
    #[allow(clippy::type_complexity)] // the rank-3 tensor's own type parameters
    pub fn slices_last<const N: usize>(
        &self,
        start: u32,
    ) -> Option<Slices<GlobalMatrix<M, S0, S1, D0, D1, V>, N>> {
        let () = Slices::<(), N>::CHECK;
        if start as u64 + N as u64 > self.layout.shape().2.value() as u64 {
            return None;
        }
        // As in `slices_first`.
        Some(Slices { first: self.slice_last(start)?, stride: self.layout.stride().2.value() as u32 })
    }
}

/// `N` consecutive matrices of a batch, from a rank-3 tensor's
/// [`slices_first`](GlobalTensor::slices_first) or [`slices_last`](GlobalTensor::slices_last):
/// checked once to be in the batch, so a kernel that takes the same tile of each (a block's
/// share of a batch) pays for no further check, and steps from one matrix's tile to the next
/// one's by one 32-bit stride ([`tiles`](Self::tiles): a pointer increment, one `IMAD.WIDE.U32`,
/// as CUDA code that bumps its pointers by the batch stride).
#[derive(Clone, Copy, Debug)]
pub struct Slices<Tn, const N: usize> {
    first: Tn,
    /// The batch stride in elements (exact when `N >= 2`).
    stride: u32,
}

impl<Tn, const N: usize> Slices<Tn, N> {
    /// The count is positive and the steps' multiples stay below `2^30` (each a 32-bit factor).
    const CHECK: () = assert!(N >= 1 && N < 1 << 24, "a slice count is in 1..2^24");
}

impl<Tn: DeviceTensor, const N: usize> Slices<Tn, N> {
    /// The first matrix (the slice at `start`).
    #[inline(always)]
    pub fn first(&self) -> Tn {
        self.first
    }

    /// Matrix `q` of the `N` (the slice at `start + q`), or `None` if `q >= N`.
    #[inline(always)]
    pub fn get(&self, q: usize) -> Option<Tn> {
        if q >= N {
            return None;
        }
        // SAFETY: slice `start + q` is in the batch (checked when `self` was made): its offset
        // from the first one, `q` strides, plus its cosize stays within the first one's view;
        // the product is exact in 64 bits.
        Some(unsafe { self.first.moved((q as u64 * self.stride as u64) as usize) })
    }

    /// The same tile of each of the `N` matrices in turn, from `tile`, a tile of the first one
    /// ([`first`](Self::first), through [`local_tile`](DeviceTensor::local_tile) and its kin, or
    /// [`GlobalTile::from`]; faults otherwise, a check that folds away for a tile made from
    /// `first()`). Each step moves the tile's address by the batch stride: one multiply-add, and
    /// the tile's accesses keep their offsets from it.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// // 4 row-major 4 x 4 matrices, 16 elements apart: the tile (1, 1) of 2 x 2 of matrices 1 to 3.
    /// let words: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), make_layout((4u32, 4u32, 4u32), (16u32, 4u32, C::<1>)).unwrap()).unwrap();
    /// let s = t.slices_first::<3>(1).unwrap();
    /// let tiles = s.tiles(s.first().local_tile_full((C::<2>, C::<2>), (1, 1)).from((1, 0)));
    /// let firsts: Vec<_> = tiles.map(|tile| tile.load((0, 1)).unwrap()).collect();
    /// assert_eq!(firsts, [16 + 12 + 3, 32 + 12 + 3, 48 + 12 + 3]);
    /// ```
    #[inline(always)]
    pub fn tiles<const B0: isize, const B1: isize, P: Residue>(
        &self,
        tile: GlobalTile<Tn, B0, B1, P>,
    ) -> SliceTiles<Tn, B0, B1, P, N> {
        if !tile.tensor.same_tensor(&self.first) {
            fault("Slices::tiles: the tile is not a tile of the first slice");
        }
        SliceTiles { tile, stride: self.stride, left: N as u32 }
    }
}

/// The same tile of `N` consecutive matrices of a batch, in turn: an iterator from
/// [`Slices::tiles`]. Each [`next`](Iterator::next) after the first moves the tile by the batch
/// stride (one multiply-add on its address); in a loop unrolled over the `N` (as
/// [`unroll!`](crate::unroll)) its count folds, and no check is left.
#[derive(Clone, Copy, Debug)]
pub struct SliceTiles<Tn: DeviceTensor, const B0: isize, const B1: isize, P, const N: usize> {
    /// The next tile to give.
    tile: GlobalTile<Tn, B0, B1, P>,
    stride: u32,
    /// How many tiles are left to give.
    left: u32,
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize, P: Residue, const N: usize> Iterator
    for SliceTiles<Tn, B0, B1, P, N>
{
    type Item = GlobalTile<Tn, B0, B1, P>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let tile = self.tile;
        self.left -= 1;
        if self.left > 0 {
            let t = &mut self.tile;
            // SAFETY: another matrix follows this tile's (`left` counts the ones in the batch,
            // checked when the `Slices` were made), one stride on: its view from there holds the
            // layout's cosize, and the tile's view, from the origin's offset below the cosize (or
            // the matrix's own view), holds the stride.
            unsafe {
                t.tensor = t.tensor.moved(self.stride as usize);
                // One multiply-add, held opaque (`IMAD.WIDE.U32`): the tile's accesses then add
                // their offsets to it, as from any tile's origin.
                t.base = t.base.advance_mul(self.stride, 1);
            }
        }
        Some(tile)
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl<Tn: DeviceTensor, const B0: isize, const B1: isize, P: Residue, const N: usize> ExactSizeIterator
    for SliceTiles<Tn, B0, B1, P, N>
{
}

impl<M: Memory, S0: Int, S1: Int, S2: Int, S3: Int, D0: Int, D1: Int, D2: Int, D3: Int, V>
    GlobalTensor<M, Layout<(S0, S1, S2, S3), (D0, D1, D2, D3)>, V>
{
    /// The extents (a tuple, as rank 3's).
    #[inline(always)]
    pub fn extents(&self) -> (usize, usize, usize, usize) {
        let s = self.layout.shape();
        (s.0.value() as usize, s.1.value() as usize, s.2.value() as usize, s.3.value() as usize)
    }

    /// CuTe's `tensor(_, _, k, l)`: the matrix of modes 0 and 1 at `(k, l)` of the last two modes
    /// (a batch of heads), as a rank-2 tensor; `None` outside the shape.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{DeviceTensor, GlobalTensor, Gmem};
    /// use std::sync::atomic::AtomicU32;
    /// let words: Vec<AtomicU32> = (0..120).map(AtomicU32::new).collect();
    /// // (seq 5, dim 4, heads 3, batch 2), dim contiguous.
    /// let l = make_layout((5u32, 4u32, 3u32, 2u32), (4u32, C::<1>, 20u32, 60u32)).unwrap();
    /// let t = GlobalTensor::new(Gmem::<u32>::from_cells(&words), l).unwrap();
    /// assert_eq!(t.extents(), (5, 4, 3, 2));
    /// let head = t.slice_last2(2, 1).unwrap();
    /// assert_eq!(head.load([1, 2]), Some(60 + 40 + 4 + 2));
    /// ```
    #[inline(always)]
    pub fn slice_last2(&self, k: u32, l: u32) -> Option<GlobalMatrix<M, S0, S1, D0, D1, V>> {
        let s = self.layout.shape();
        if k as u64 >= s.2.value() as u64 || l as u64 >= s.3.value() as u64 {
            return None;
        }
        Some(slice_at!(self, self.offset_of([0, 0, k, l]), 0, 1))
    }

    /// CuTe's `tensor(k, l, _, _)`: the matrix of modes 2 and 3 at `(k, l)` of the first two modes;
    /// `None` outside the shape.
    #[inline(always)]
    pub fn slice_first2(&self, k: u32, l: u32) -> Option<GlobalMatrix<M, S2, S3, D2, D3, V>> {
        let s = self.layout.shape();
        if k as u64 >= s.0.value() as u64 || l as u64 >= s.1.value() as u64 {
            return None;
        }
        Some(slice_at!(self, self.offset_of([k, l, 0, 0]), 2, 3))
    }
}
