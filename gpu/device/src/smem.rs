//! Shared memory: a block's region (the launch's dynamic shared memory, or a static array declared
//! with [`static_shared!`](crate::static_shared)) carved into typed arrays addressed by 32-bit
//! shared-state-space addresses, the form `ld.shared`, `cp.async` and `ldmatrix` take.
//!
//! Every access is checked against the array's static length; an index known at compile time
//! (an unrolled loop, a static layout's offset) folds the check away, and an index that only
//! depends on the thread is checked once outside the loops that use it. Which thread may touch
//! which word between barriers is the kernel's business, as in CUDA; the emulator reports
//! violations.

use crate::Word;
use crate::backend;
use crate::thread::fault;
use const_layout::algebra::computed::{Computed, StaticExpr, StaticLayout, StaticSwizzled};
use core::marker::PhantomData;

/// A region of the block's shared memory: its 32-bit shared address and its size in bytes.
/// Every thread of a block sees the same region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemRegion {
    addr: u32,
    bytes: u32,
    /// The alignment of `addr` the kernel knows (a constant where the region is made, so that
    /// [`SmemAllocator`]'s offsets fold): 1024 for a static array, 16 for the dynamic memory.
    align: u32,
}

impl SmemRegion {
    /// The launch's dynamic shared memory (CUDA's `extern __shared__`), as many bytes as the
    /// launch asked for (`%dynamic_smem_size`).
    #[inline(always)]
    pub fn dynamic() -> Self {
        let (addr, bytes) = backend::dynamic_smem();
        SmemRegion { addr, bytes, align: 16 }
    }

    /// The region of `bytes` bytes at 1024-byte aligned shared address `addr`, which the backend
    /// reserved for a static array.
    #[inline(always)]
    pub(crate) fn from_static_parts(addr: u32, bytes: u32) -> Self {
        SmemRegion { addr, bytes, align: 1024 }
    }

    /// The size in bytes.
    #[inline(always)]
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// `N` elements of type `T` at `byte_offset` in the region; `None` if they do not fit or the
    /// offset is not a multiple of 16 (so that 128-bit accesses to the array are aligned).
    ///
    /// ```
    /// use const_layout_device::emu::{launch, LaunchConfig};
    /// use const_layout_device::{Dim3, SmemRegion};
    /// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 1024 }, || {
    ///     let smem = SmemRegion::dynamic();
    ///     assert!(smem.array::<f32, 128>(512).is_some());
    ///     assert!(smem.array::<f32, 129>(512).is_none()); // 516 bytes past 512 do not fit
    ///     assert!(smem.array::<f32, 4>(8).is_none()); // not 16-byte aligned
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn array<T: Word, const N: usize>(self, byte_offset: u32) -> Option<SmemArray<T, N>> {
        let end = byte_offset as u64 + 4 * N as u64;
        if !byte_offset.is_multiple_of(16) || end > self.bytes as u64 {
            return None;
        }
        Some(SmemArray { addr: self.addr + byte_offset, elem: PhantomData })
    }
}

/// Declare a static shared array of `$bytes` bytes named `$name` in the kernel's PTX module and
/// return its [`SmemRegion`] (CUDA's `__shared__` array), 1024-byte aligned (what TMA's and
/// `wgmma`'s 128-byte swizzle needs; [`SmemAllocator`] then carves it with constant offsets). The name must be unique in the module;
/// `$bytes` is a constant expression (a literal, or a constant's path). On the emulator the array
/// is reserved in every block after the dynamic shared memory, at most
/// [`emu::STATIC_SHARED_BYTES`](crate::emu::STATIC_SHARED_BYTES) in all.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{static_shared, sync_threads, thread_idx, Dim3, SmemRegion};
/// launch(&LaunchConfig { grid: Dim3::x(2), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
///     let tile: SmemRegion = static_shared!(reverse_tile, 128);
///     let words = tile.array::<u32, 32>(0).unwrap();
///     let t = thread_idx().x as usize;
///     words.store(t, t as u32);
///     sync_threads();
///     assert_eq!(words.load(31 - t), 31 - t as u32);
/// })
/// .unwrap();
/// ```
#[macro_export]
macro_rules! static_shared {
    ($name:ident, $bytes:expr) => {
        $crate::__backend_static_shared!($name, $bytes)
    };
}

/// `N` elements of `T` in shared memory, by 32-bit address. `Copy`: every thread holds the same
/// handle.
#[derive(Debug)]
pub struct SmemArray<T, const N: usize> {
    addr: u32,
    elem: PhantomData<T>,
}

impl<T, const N: usize> Clone for SmemArray<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for SmemArray<T, N> {}

impl<T: Word, const N: usize> SmemArray<T, N> {
    /// The number of elements.
    pub const LEN: usize = N;

    /// The 32-bit shared address of element `i` (for instructions that take addresses, such as
    /// `cp.async` and `ldmatrix`); faults if `i >= N`.
    #[inline(always)]
    pub fn address(&self, i: usize) -> u32 {
        if i >= N {
            fault("shared-memory index out of bounds");
        }
        self.addr + 4 * i as u32
    }

    /// Elements `start..start + M` as an array of their own (one stage of a multi-stage buffer);
    /// faults unless they are inside this array and `start` is a multiple of 4 (so that the part
    /// stays 16-byte aligned). One check where the part is taken; accesses to the part are then
    /// checked against `M`, which folds for offsets the compiler can bound.
    ///
    /// ```
    /// use const_layout_device::emu::{launch, LaunchConfig};
    /// use const_layout_device::{Dim3, SmemRegion};
    /// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 64 }, || {
    ///     let all = SmemRegion::dynamic().array::<u32, 16>(0).unwrap();
    ///     let stage = 2;
    ///     all.part::<4>(4 * stage).store(1, 7);
    ///     assert_eq!(all.load(9), 7);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn part<const M: usize>(&self, start: usize) -> SmemArray<T, M> {
        if !start.is_multiple_of(4) || start > N || N - start < M {
            fault("shared-memory part out of bounds or misaligned");
        }
        SmemArray { addr: self.addr + 4 * start as u32, elem: PhantomData }
    }

    /// Element `i`; faults if `i >= N`.
    #[inline(always)]
    pub fn load(&self, i: usize) -> T {
        let a = self.address(i);
        // SAFETY: `a` is element `i < N` of the array, inside the region (checked when carved),
        // 4-byte aligned.
        T::from_bits(unsafe { backend::ld_shared(a) })
    }

    /// Store `v` at element `i`; faults if `i >= N`.
    #[inline(always)]
    pub fn store(&self, i: usize, v: T) {
        let a = self.address(i);
        // SAFETY: as in `load`; shared memory is writable.
        unsafe { backend::st_shared(a, v.to_bits()) }
    }

    /// The address of a 128-bit access at `i`: faults unless `i` is a multiple of 4 and
    /// `i + 4 <= N`.
    #[inline(always)]
    fn address4(&self, i: usize) -> u32 {
        if !i.is_multiple_of(4) || i + 4 > N {
            fault("shared-memory vector access out of bounds or misaligned");
        }
        self.addr + 4 * i as u32
    }

    /// Elements `i..i + 4` in one 128-bit load (`LDS.128`); `i` a multiple of 4.
    #[inline(always)]
    pub fn load4(&self, i: usize) -> [T; 4] {
        let a = self.address4(i);
        // SAFETY: `i % 4 == 0` and the array starts 16-byte aligned, so `a` is 16-byte aligned,
        // and `i + 4 <= N` keeps the 16 bytes inside the array.
        unsafe { backend::ld_shared4(a) }.map(T::from_bits)
    }

    /// Elements `i..i + 2` in one 64-bit load (`LDS.64`); `i` even and `i + 2 <= N`.
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{Dim3, SmemRegion};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 16 };
    /// launch(&cfg, || {
    ///     let s = SmemRegion::dynamic().array::<u32, 4>(0).unwrap();
    ///     s.store4(0, [1, 2, 3, 4]);
    ///     assert_eq!(s.load2(2), [3, 4]);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn load2(&self, i: usize) -> [T; 2] {
        if !i.is_multiple_of(2) || i + 2 > N {
            fault("shared-memory vector access out of bounds or misaligned");
        }
        let a = self.addr + 4 * i as u32;
        // SAFETY: `i` is even and the array starts 16-byte aligned, so `a` is 8-byte aligned, and
        // `i + 2 <= N` keeps the 8 bytes inside the array.
        unsafe { backend::ld_shared2(a) }.map(T::from_bits)
    }

    /// Store elements `i..i + 4` in one 128-bit store (`STS.128`); `i` a multiple of 4.
    #[inline(always)]
    pub fn store4(&self, i: usize, v: [T; 4]) {
        let a = self.address4(i);
        // SAFETY: as in `load4`.
        unsafe { backend::st_shared4(a, v.map(T::to_bits)) }
    }

    /// CUDA's `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (`trans`: `.trans`): four 8x8 matrices
    /// of 16-bit elements; lane `8 m + r` gives the address of row `r` of matrix `m` as element
    /// `row` of this array (a multiple of 4), and every lane receives, for each matrix, row `lane /
    /// 4`, columns `2 (lane % 4)` and `2 (lane % 4) + 1`, packed low half first.
    ///
    /// All 32 lanes of the warp must execute this call together (PTX's `.sync.aligned`). That is
    /// checked, not assumed, so the function is safe: on the GPU a lane that reaches it while the
    /// warp is diverged traps, ending the kernel with an error as [`fault`](crate::fault) does
    /// (three instructions before the `ldmatrix`); the emulator reports a partial warp, or lanes
    /// calling it from different places.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x4(&self, row: usize, trans: bool) -> [u32; 4] {
        let [r] = self.ldmatrix_x4_batch([row], trans);
        r
    }

    /// `N` [`ldmatrix_x4`](Self::ldmatrix_x4) at once, `rows[i]` this lane's row of the `i`-th:
    /// the warp is checked once for all of them. On the GPU, `N` in 1, 2, 4, 8 is one `asm!`
    /// block (the check, then the `N` instructions); other counts issue them one by one.
    ///
    /// ```
    /// use const_layout_device::emu::{launch, LaunchConfig};
    /// use const_layout_device::{Dim3, SmemRegion, thread_idx};
    /// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 1024 }, || {
    ///     let s = SmemRegion::dynamic().array::<u32, 256>(0).unwrap();
    ///     let lane = thread_idx().x as usize;
    ///     for w in 0..8 {
    ///         s.store(8 * lane + w, (8 * lane + w) as u32);
    ///     }
    ///     const_layout_device::sync_threads();
    ///     // Matrices from rows of 4 words: lane l points at word 4 l, then at word 128 + 4 l.
    ///     let [x, y] = s.ldmatrix_x4_batch([4 * lane, 128 + 4 * (lane % 32)], false);
    ///     assert_eq!(x, s.ldmatrix_x4(4 * lane, false));
    ///     assert_eq!(y[0], (128 + lane / 4 * 4 + lane % 4) as u32);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x4_batch<const M: usize>(&self, rows: [usize; M], trans: bool) -> [[u32; 4]; M] {
        let addr = rows.map(|r| self.address4(r));
        // SAFETY: each address is a 16-byte aligned address of 16 bytes inside the array
        // (`address4`); the instructions check that the warp is converged.
        unsafe { backend::ldmatrix_x4_batch(addr, trans, backend::site()) }
    }
}

/// A static layout shared memory can be allocated by: its cosize (the elements it spans) and the
/// alignment it needs, at compile time. Implemented for static typed layouts (`layout_type!`),
/// the static algebra's results (`Computed`) and swizzled ones (`StaticSwizzled`, aligned to
/// 1024 bytes, the 128-byte swizzle's repeat, which `wgmma` and TMA need).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static layout shared memory can be allocated by",
    note = "use a static layout (`layout_type!`), a `Computed` layout or a `StaticSwizzled` one"
)]
pub trait SmemLayout: Copy {
    /// The elements the layout spans (its offsets are below it).
    const COSIZE: usize;
    /// The alignment in bytes of the allocation's start.
    const ALIGN: u32 = 16;
    /// Whether the swizzle (if any) keeps an offset's remainder by 4 and keeps offsets below the
    /// cosize below it: then a vector access may be checked on the offset before the swizzle.
    #[doc(hidden)]
    const SWIZZLE_KEEPS_VECTORS: bool = true;

    /// The offset of the element whose offset before the layout's swizzle is `base + delta`
    /// (their sum for a layout without one), in 32 bits (an allocated layout's cosize is below
    /// 2^30). A swizzled layout swizzles `base` plus the part of `delta` the swizzle reads and
    /// adds the rest after (CuTe's partition of a swizzled tensor): for a thread's `base` and a
    /// constant `delta`, that rest folds into an access's immediate. [`SmemTensor::from`]'s
    /// accesses.
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// use const_layout_device::SmemLayout;
    /// let tile = swizzle::<3, 2, 6, _>(<layout_type!((64, 64):(64, 1))>::default());
    /// assert_eq!(tile.swizzle_sum(5 * 64 + 8, 2048 + 64), tile.swizzle().apply(2048 + 6 * 64 + 8) as u32);
    /// ```
    #[inline(always)]
    fn swizzle_sum(&self, base: u32, delta: u32) -> u32 {
        base.wrapping_add(delta)
    }
}

/// How a [`SmemLayout`] maps a coordinate of type `C` to an offset.
#[diagnostic::on_unimplemented(
    message = "`{C}` is not a coordinate of the shared layout `{Self}`",
    note = "a coordinate has the layout's rank (or is a 1-D index)"
)]
pub trait SmemIndex<C>: SmemLayout {
    /// The offset of `c`.
    fn offset(&self, c: C) -> isize;

    /// The offset of `c` before the layout's swizzle (the offset itself for a layout without one).
    #[inline(always)]
    fn unswizzled_offset(&self, c: C) -> isize {
        self.offset(c)
    }

    /// The offset of `c` if it is below the cosize, or, when `VECTOR`, if it is a multiple of 4
    /// with the 4 elements from it below the cosize; `None` otherwise. What a [`SmemTensor`]
    /// access checks. The default checks [`offset`](Self::offset) itself, in one unsigned
    /// comparison (a negative offset wraps past the cosize); a swizzled layout checks the offset
    /// before its swizzle, which the swizzle keeps in its block: a shallower expression, whose
    /// bound the optimizer knows where it knows the coordinate's (a thread's).
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// use const_layout_device::SmemIndex;
    /// let tile = swizzle::<3, 2, 6, _>(<layout_type!((64, 64):(64, 1))>::default());
    /// let o = tile.offset((5u32, 8u32));
    /// assert_eq!(o, (5 * 64 + 8) ^ (1 << 2)); // row bits 2..5 move the 16-byte chunk
    /// assert_eq!(tile.checked_offset::<true>((5u32, 8u32)), Some(o as usize));
    /// assert_eq!(tile.checked_offset::<true>((5u32, 9u32)), None); // not a multiple of 4
    /// assert_eq!(tile.checked_offset::<false>((64u32, 0u32)), None); // past the cosize
    /// ```
    #[inline(always)]
    fn checked_offset<const VECTOR: bool>(&self, c: C) -> Option<usize> {
        let o = self.offset(c) as usize;
        let inside = if VECTOR {
            Self::COSIZE >= 4 && o <= Self::COSIZE - 4 && o.is_multiple_of(4)
        } else {
            o < Self::COSIZE
        };
        inside.then_some(o)
    }
}

impl<S, D> SmemLayout for const_layout::Layout<S, D>
where
    S: const_layout::int_tuple::StaticTuple + const_layout::layout::LayoutShape<D>,
    D: const_layout::int_tuple::StaticTuple,
{
    const COSIZE: usize = <Self as StaticLayout>::LAYOUT.cosize().value as usize;
}

impl<S, D, C> SmemIndex<C> for const_layout::Layout<S, D>
where
    S: const_layout::int_tuple::StaticTuple + const_layout::layout::LayoutShape<D>,
    D: const_layout::int_tuple::StaticTuple,
    C: const_layout::layout::Crd2Idx<S, D>,
{
    #[inline(always)]
    fn offset(&self, c: C) -> isize {
        const_layout::int::Int::value(self.crd2idx(c))
    }
}

impl<E: StaticExpr> SmemLayout for Computed<E> {
    const COSIZE: usize = E::LAYOUT.cosize().value as usize;
}

impl<E: StaticExpr, C: const_layout::int_tuple::IntTuple> SmemIndex<C> for Computed<E> {
    #[inline(always)]
    fn offset(&self, c: C) -> isize {
        self.crd2idx(c)
    }
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> SmemLayout for StaticSwizzled<B, M, S, A> {
    // The swizzle moves offsets only within aligned blocks of `reach + 1`: the swizzled offsets
    // stay below the inner cosize rounded up to one.
    const COSIZE: usize = {
        let block = Self::SWIZZLE.reach() as usize + 1;
        (A::LAYOUT.cosize().value as usize).div_ceil(block) * block
    };
    const ALIGN: u32 = 1024;
    // The swizzle changes only bits `M` and up below `reach + 1` (see `checked_offset`).
    const SWIZZLE_KEEPS_VECTORS: bool = M >= 2;

    #[inline(always)]
    fn swizzle_sum(&self, base: u32, delta: u32) -> u32 {
        // Adding a multiple of `reach + 1` (a power of two, at most 2^32 here) commutes with the
        // swizzle, in 32 bits as in any width.
        if const { Self::SWIZZLE.reach() } > u32::MAX as isize {
            return Self::SWIZZLE.apply(base as isize + delta as isize) as u32;
        }
        let reach = const { Self::SWIZZLE.reach() } as u32;
        swizzle32(const { Self::SWIZZLE }, base.wrapping_add(delta & reach)).wrapping_add(delta & !reach)
    }
}

/// `sw` applied in 32 bits (the offsets of an allocated layout fit them).
#[inline(always)]
fn swizzle32(sw: const_layout::swizzle::Swizzle, o: u32) -> u32 {
    let y = o & sw.yyy_mask() as u32;
    o ^ if sw.shift() >= 0 { y >> sw.shift() } else { y << sw.shift().unsigned_abs() }
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout, C: const_layout::int_tuple::IntTuple>
    SmemIndex<C> for StaticSwizzled<B, M, S, A>
{
    #[inline(always)]
    fn offset(&self, c: C) -> isize {
        self.crd2idx(c)
    }

    #[inline(always)]
    fn unswizzled_offset(&self, c: C) -> isize {
        self.unswizzled_crd2idx(c)
    }

    #[inline(always)]
    fn checked_offset<const VECTOR: bool>(&self, c: C) -> Option<usize> {
        // The swizzle changes only bits `M` and up below `reach + 1`, a power of two that divides
        // the cosize (rounded up to it): an offset before the swizzle below the cosize stays below
        // it, and with `M >= 2` keeps its remainder by 4 (then a vector's 4 elements, from a
        // multiple of 4 below the cosize, a multiple of 4 too, are below it).
        if VECTOR && M < 2 {
            let o = self.crd2idx(c) as usize;
            let inside = Self::COSIZE >= 4 && o <= Self::COSIZE - 4 && o.is_multiple_of(4);
            return inside.then_some(o);
        }
        let inner = self.unswizzled_crd2idx(c) as usize;
        if inner >= Self::COSIZE || (VECTOR && !inner.is_multiple_of(4)) {
            return None;
        }
        // Below the cosize, the swizzle in 32 bits (as the address it makes), where the cosize
        // fits them.
        if Self::COSIZE <= u32::MAX as usize {
            return Some(swizzle32(const { Self::SWIZZLE }, inner as u32) as usize);
        }
        Some(Self::SWIZZLE.apply(inner as isize) as usize)
    }
}

/// A tensor in shared memory: elements of `T` laid out by the static layout `L`, allocated by it
/// ([`SmemAllocator::tensor`]) and indexed by its coordinates, so a kernel names no byte offset.
/// An access is checked against the layout's cosize (a check that folds for coordinates the
/// compiler can bound, as a thread's constant offsets). `Copy`: every thread holds the same
/// handle.
///
/// ```
/// use const_layout::algebra::computed::swizzle;
/// use const_layout::layout_type;
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{thread_idx, Dim3, SmemAllocator, SmemRegion, sync_threads};
/// type Tile = layout_type!((32, 32):(32, 1));
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 8192 }, || {
///     let mut smem = SmemAllocator::new(SmemRegion::dynamic());
///     let plain = smem.tensor::<u32, _>(Tile::default());
///     let swizzled = smem.tensor::<u32, _>(swizzle::<5, 0, 5, _>(Tile::default()));
///     let t = thread_idx().x;
///     for j in 0..32 {
///         plain.store((t, j), 100 * t + j);
///         swizzled.store((t, j), 100 * t + j);
///     }
///     sync_threads();
///     assert_eq!(plain.load((3u32, t)), 300 + t);
///     assert_eq!(swizzled.load((3u32, t)), 300 + t); // a column: 32 banks, no conflict
/// })
/// .unwrap();
/// ```
#[derive(Debug)]
pub struct SmemTensor<T, L> {
    addr: u32,
    layout: L,
    elem: PhantomData<T>,
}

impl<T, L: Copy> Clone for SmemTensor<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L: Copy> Copy for SmemTensor<T, L> {}

impl<T: Word, L: SmemLayout> SmemTensor<T, L> {
    /// The layout.
    #[inline(always)]
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The element offset of `c`, checked against the cosize.
    #[inline(always)]
    fn at<C>(&self, c: C) -> usize
    where
        L: SmemIndex<C>,
    {
        match self.layout.checked_offset::<false>(c) {
            Some(o) => o,
            None => fault("shared tensor coordinate outside its layout's cosize"),
        }
    }

    /// The 32-bit shared address of element `c` (for `cp.async`, `ldmatrix`, TMA).
    #[inline(always)]
    pub fn address<C>(&self, c: C) -> u32
    where
        L: SmemIndex<C>,
    {
        self.addr + 4 * self.at(c) as u32
    }

    /// The element at `c`.
    #[inline(always)]
    pub fn load<C>(&self, c: C) -> T
    where
        L: SmemIndex<C>,
    {
        let a = self.address(c);
        // SAFETY: `a` is an element below the cosize, inside the allocation, 4-byte aligned.
        T::from_bits(unsafe { backend::ld_shared(a) })
    }

    /// Store `v` at `c`.
    #[inline(always)]
    pub fn store<C>(&self, c: C, v: T)
    where
        L: SmemIndex<C>,
    {
        let a = self.address(c);
        // SAFETY: as in `load`; shared memory is writable.
        unsafe { backend::st_shared(a, v.to_bits()) }
    }

    /// The address of a 128-bit access at `c`: its offset a multiple of 4 with 4 elements below
    /// the cosize (faults otherwise).
    #[inline(always)]
    fn address4<C>(&self, c: C) -> u32
    where
        L: SmemIndex<C>,
    {
        match self.layout.checked_offset::<true>(c) {
            Some(o) => self.addr + 4 * o as u32,
            None => fault("shared tensor vector access misaligned or outside its layout's cosize"),
        }
    }

    /// The 4 elements from `c` on in memory (offsets `o..o + 4`, `o` a multiple of 4), in one
    /// 128-bit load: a thread's vector, where the layout keeps 4 consecutive offsets together.
    #[inline(always)]
    pub fn load4<C>(&self, c: C) -> [T; 4]
    where
        L: SmemIndex<C>,
    {
        let a = self.address4(c);
        // SAFETY: `a` is 16-byte aligned (the allocation is, and the offset a multiple of 4)
        // with 16 bytes below the cosize.
        unsafe { backend::ld_shared4(a) }.map(T::from_bits)
    }

    /// Store 4 elements from `c` on in memory, in one 128-bit store (as [`load4`](Self::load4)).
    #[inline(always)]
    pub fn store4<C>(&self, c: C, v: [T; 4])
    where
        L: SmemIndex<C>,
    {
        let a = self.address4(c);
        // SAFETY: as in `load4`; shared memory is writable.
        unsafe { backend::st_shared4(a, v.map(T::to_bits)) }
    }

    /// The allocation as an array of `N` elements, for the instructions that take whole stages
    /// (`wgmma`, TMA loads); a compile error if `N` exceeds the cosize.
    #[inline(always)]
    pub fn array<const N: usize>(&self) -> SmemArray<T, N> {
        const { assert!(N <= L::COSIZE, "the array is larger than the shared tensor") };
        SmemArray { addr: self.addr, elem: PhantomData }
    }

    /// The tensor seen from coordinate `from` (a thread's first element, as in CuTe's partition):
    /// an access at `d` reaches the element whose offset before the swizzle is `from`'s plus
    /// `d`'s, the element at `from + d` where the layout is linear over them (a layout without
    /// nested modes, inside its shape). `from`'s offset is computed once; an access at a constant
    /// `d` swizzles it plus the low part of `d`'s offset only ([`SmemLayout::swizzle_sum`]) and
    /// folds the rest into the instruction's immediate, so accesses that differ above the
    /// swizzle's bits (rows of a tile, far apart) share one address register. Each access is
    /// checked against the cosize, on the offset before the swizzle (a check that folds where the
    /// optimizer bounds `from`, as for a thread's coordinates).
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// use const_layout_device::emu::{launch, LaunchConfig};
    /// use const_layout_device::{Dim3, SmemAllocator, SmemRegion};
    /// type Rows = layout_type!((64, 64):(64, 1));
    /// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 2 * 16384 }, || {
    ///     let tile = SmemAllocator::new(SmemRegion::dynamic()).tensor::<u32, _>(swizzle::<3, 2, 6, _>(Rows::default()));
    ///     let mine = tile.from((5u32, 8u32));
    ///     mine.store4((32u32, 4u32), [1, 2, 3, 4]);
    ///     assert_eq!(tile.load((37u32, 14u32)), 3);
    ///     assert_eq!(mine.load((32u32, 6u32)), 3);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn from<C>(&self, from: C) -> SmemFrom<T, L>
    where
        L: SmemIndex<C>,
    {
        SmemFrom { tensor: *self, base: self.layout.unswizzled_offset(from) }
    }
}

/// A [`SmemTensor`] seen from a coordinate: [`SmemTensor::from`]. `Copy`.
#[derive(Debug)]
pub struct SmemFrom<T, L> {
    tensor: SmemTensor<T, L>,
    /// The offset of the coordinate before the swizzle.
    base: isize,
}

impl<T, L: Copy> Clone for SmemFrom<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L: Copy> Copy for SmemFrom<T, L> {}

impl<T: Word, L: SmemLayout> SmemFrom<T, L> {
    /// The element offset of `d` from the view's coordinate, checked against the cosize (with the
    /// 4 elements of a vector, from a multiple of 4, when `VECTOR`).
    #[inline(always)]
    fn at<const VECTOR: bool, C>(&self, d: C) -> usize
    where
        L: SmemIndex<C>,
    {
        let layout = self.tensor.layout;
        let delta = layout.unswizzled_offset(d);
        let sum = self.base.wrapping_add(delta) as usize;
        let inside = if VECTOR && L::SWIZZLE_KEEPS_VECTORS {
            // The swizzle keeps the remainder by 4 and the block below the cosize (a multiple of
            // 4 then): a multiple of 4 below the cosize has its vector below it too.
            sum < L::COSIZE && sum.is_multiple_of(4)
        } else {
            sum < L::COSIZE
        };
        if !inside {
            fault("shared tensor coordinate outside its layout's cosize");
        }
        // Below the cosize (an allocation's is below 2^30): both parts fit 32 bits.
        let o = layout.swizzle_sum(self.base as u32, delta as u32) as usize;
        if VECTOR && !L::SWIZZLE_KEEPS_VECTORS && (L::COSIZE < 4 || o > L::COSIZE - 4 || !o.is_multiple_of(4))
        {
            fault("shared tensor vector access misaligned or outside its layout's cosize");
        }
        o
    }

    /// The 32-bit shared address of the element at `d` from the view's coordinate.
    #[inline(always)]
    pub fn address<C>(&self, d: C) -> u32
    where
        L: SmemIndex<C>,
    {
        self.tensor.addr + 4 * self.at::<false, C>(d) as u32
    }

    /// The element at `d`.
    #[inline(always)]
    pub fn load<C>(&self, d: C) -> T
    where
        L: SmemIndex<C>,
    {
        let a = self.address(d);
        // SAFETY: `a` is an element below the cosize, inside the allocation, 4-byte aligned.
        T::from_bits(unsafe { backend::ld_shared(a) })
    }

    /// Store `v` at `d`.
    #[inline(always)]
    pub fn store<C>(&self, d: C, v: T)
    where
        L: SmemIndex<C>,
    {
        let a = self.address(d);
        // SAFETY: as in `load`; shared memory is writable.
        unsafe { backend::st_shared(a, v.to_bits()) }
    }

    /// The 4 elements from `d` on in memory, in one 128-bit load (as [`SmemTensor::load4`]).
    #[inline(always)]
    pub fn load4<C>(&self, d: C) -> [T; 4]
    where
        L: SmemIndex<C>,
    {
        let a = self.tensor.addr + 4 * self.at::<true, C>(d) as u32;
        // SAFETY: the offset is a multiple of 4 with its 4 elements below the cosize (`at`), so
        // `a` is 16-byte aligned (the allocation is) and the 16 bytes are inside it.
        unsafe { backend::ld_shared4(a) }.map(T::from_bits)
    }

    /// Store 4 elements from `d` on in memory, in one 128-bit store (as [`SmemTensor::store4`]).
    #[inline(always)]
    pub fn store4<C>(&self, d: C, v: [T; 4])
    where
        L: SmemIndex<C>,
    {
        let a = self.tensor.addr + 4 * self.at::<true, C>(d) as u32;
        // SAFETY: as in `load4`; shared memory is writable.
        unsafe { backend::st_shared4(a, v.map(T::to_bits)) }
    }
}

/// The bytes a sequence of shared allocations takes, at compile time: the launch's dynamic shared
/// memory for the [`SmemAllocator`] calls of a kernel, in the same order (each aligned as its
/// layout needs, from a 16-byte aligned start; a 1024-byte aligned layout first adds up to 1008
/// bytes of padding, counted here, since the region's own start is only 16-byte aligned).
///
/// ```
/// use const_layout::layout_type;
/// use const_layout_device::SmemPlan;
/// type Tile = layout_type!((64, 64):(64, 1));
/// const BYTES: u32 = SmemPlan::new().tensor::<f32, Tile>().array::<u32, 32>().bytes();
/// assert_eq!(BYTES, 64 * 64 * 4 + 32 * 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemPlan {
    bytes: u32,
}

impl SmemPlan {
    /// Nothing yet.
    pub const fn new() -> Self {
        SmemPlan { bytes: 0 }
    }

    /// Then a tensor of `T` by `L`.
    pub const fn tensor<T: Word, L: SmemLayout>(self) -> Self {
        let pad = L::ALIGN.saturating_sub(16);
        SmemPlan { bytes: self.bytes.div_ceil(16) * 16 + pad + (4 * L::COSIZE) as u32 }
    }

    /// Then an array of `N` elements.
    pub const fn array<T: Word, const N: usize>(self) -> Self {
        SmemPlan { bytes: self.bytes.div_ceil(16) * 16 + (4 * N) as u32 }
    }

    /// The bytes, rounded up to 16.
    pub const fn bytes(self) -> u32 {
        self.bytes.div_ceil(16) * 16
    }
}

impl Default for SmemPlan {
    fn default() -> Self {
        Self::new()
    }
}

/// Shared memory carved by layouts: each [`tensor`](Self::tensor) takes the next allocation its
/// layout's cosize and alignment need, so kernels name no byte offset. The offsets are constants
/// (static layouts), so the carving folds; each allocation is checked once against the region
/// (faults if the block has too little: size the launch with [`SmemPlan`]).
///
/// ```
/// use const_layout::layout_type;
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, SmemAllocator, SmemPlan, SmemRegion};
/// type Stage = layout_type!((8, 32):(32, 1));
/// const BYTES: u32 = SmemPlan::new().tensor::<f32, Stage>().tensor::<f32, Stage>().bytes();
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: BYTES }, || {
///     let mut smem = SmemAllocator::new(SmemRegion::dynamic());
///     let (a, b) = (smem.tensor::<f32, _>(Stage::default()), smem.tensor::<f32, _>(Stage::default()));
///     assert_eq!(b.address((0u32, 0u32)) - a.address((0u32, 0u32)), 8 * 32 * 4);
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SmemAllocator {
    region: SmemRegion,
    next: u32,
}

impl SmemAllocator {
    /// Allocations from the start of `region`.
    #[inline(always)]
    pub fn new(region: SmemRegion) -> Self {
        SmemAllocator { region, next: 0 }
    }

    /// The next `bytes` bytes aligned to `align` (a power of two, at least 16); faults if they do
    /// not fit.
    #[inline(always)]
    fn take(&mut self, bytes: u64, align: u32) -> u32 {
        let r = self.region;
        // Offsets from the region's start, rounded where its known alignment allows (constants
        // that fold); an alignment past it is rounded on the address at run time.
        let rel = if align <= r.align {
            (self.next as u64).div_ceil(align as u64) * align as u64
        } else {
            (r.addr as u64 + self.next as u64).div_ceil(align as u64) * align as u64 - r.addr as u64
        };
        let end = rel + bytes;
        if end > r.bytes as u64 {
            fault("SmemAllocator: the block has less shared memory than its allocations need (see SmemPlan)");
        }
        self.next = end as u32;
        r.addr + rel as u32
    }

    /// A shared tensor of `T` laid out by `layout`.
    #[inline(always)]
    pub fn tensor<T: Word, L: SmemLayout>(&mut self, layout: L) -> SmemTensor<T, L> {
        let addr = self.take(4 * L::COSIZE as u64, L::ALIGN);
        SmemTensor { addr, layout, elem: PhantomData }
    }

    /// An array of `N` elements of `T`.
    #[inline(always)]
    pub fn array<T: Word, const N: usize>(&mut self) -> SmemArray<T, N> {
        let addr = self.take(4 * N as u64, 16);
        SmemArray { addr, elem: PhantomData }
    }
}
