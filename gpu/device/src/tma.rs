//! Hopper's asynchronous copies: [`Mbarrier`]s in shared memory (PTX's `mbarrier` objects, CUTLASS's
//! `ClusterBarrier` and `ClusterTransactionBarrier` for one block) and [`TmaTensor2d`], a global
//! tensor of 16-bit elements the Tensor Memory Accelerator loads boxes of, through a tensor map the
//! host encoded with the box and swizzle mode that `const_layout::atom::tma::make_tma_box` derives
//! from the destination's layout.
//!
//! On the emulator an mbarrier is a phase counter with pending arrivals and bytes, and a TMA load
//! copies its box at once (zero outside the tensor, swizzled by TMA's rule on byte addresses) and
//! completes its bytes; a wait that never ends fails the launch as a deadlock.
//!
//! ```
//! use const_layout::atom::tma::{TmaBox, TmaSwizzle};
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::tma::{Mbarrier, TmaTensor2d};
//! use const_layout_device::{Dim3, Gmem, SmemRegion, thread_idx};
//! use std::sync::atomic::AtomicU32;
//!
//! // A 16 x 16 tensor of halves (value 100 r + c), a 8 x 8 box at (8, 8), no swizzle.
//! let words: Vec<AtomicU32> = (0..128u32).map(|w| {
//!     let (r, c) = (w / 8, 2 * (w % 8));
//!     AtomicU32::new((100 * r + c) | (100 * r + c + 1) << 16)
//! }).collect();
//! let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 256 };
//! launch(&cfg, || {
//!     let smem = SmemRegion::dynamic();
//!     let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(128).unwrap(), [1]);
//!     let boxd = TmaBox { inner: 8, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
//!     let t = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&words), 16, 16, 16, boxd).unwrap();
//!     let tile = smem.array::<u32, 32>(0).unwrap();
//!     if thread_idx().x == 0 {
//!         bar.arrive_expect_tx(boxd.bytes());
//!         t.load(tile, 8, 8, bar);
//!     }
//!     bar.wait(0);
//!     assert_eq!(tile.load(4 * 3), (100 * 11 + 8) | (100 * 11 + 9) << 16); // row 3 of the box
//! })
//! .unwrap();
//! ```

use crate::backend;
use crate::{Gmem, SmemArray, fault, sync_threads, thread_idx};
use const_layout::atom::tma::TmaBox;

/// An mbarrier in shared memory: 8 bytes the block's threads arrive on and wait for phases of.
/// `Copy`: every thread holds the same handle.
#[derive(Clone, Copy, Debug)]
pub struct Mbarrier {
    addr: u32,
}

impl Mbarrier {
    /// `N` mbarriers in `words` (two words each, 8-byte aligned, used for nothing else), the `i`th
    /// expecting `counts[i]` arrivals a phase: thread 0 initializes them, then the block
    /// synchronizes. Every thread of the block calls it.
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{tma::Mbarrier, Dim3, SmemRegion};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(64), dynamic_smem_bytes: 16 };
    /// launch(&cfg, || {
    ///     let [bar, _] = Mbarrier::init_block(SmemRegion::dynamic().array::<u32, 4>(0).unwrap(), [64, 1]);
    ///     bar.arrive();
    ///     bar.wait(0); // every thread arrived: phase 0 completed
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn init_block<const W: usize, const N: usize>(
        words: SmemArray<u32, W>,
        counts: [u32; N],
    ) -> [Mbarrier; N] {
        let base = words.address(0);
        if W < 2 * N || !base.is_multiple_of(8) {
            fault("Mbarrier::init_block: mbarriers need two words each, 8-byte aligned");
        }
        let bars: [Mbarrier; N] = core::array::from_fn(|i| Mbarrier { addr: base + 8 * i as u32 });
        let t = thread_idx();
        if t.x == 0 && t.y == 0 && t.z == 0 {
            for (b, &count) in bars.iter().zip(counts.iter()) {
                if count == 0 || count >= 1 << 20 {
                    fault("Mbarrier::init_block: an arrival count outside 1 to 2^20 - 1");
                }
                // SAFETY: 8 aligned bytes of the block's shared memory that the caller gives to the
                // mbarriers; no thread uses them before the barrier below.
                unsafe { backend::mbarrier_init(b.addr, count) };
            }
        }
        sync_threads();
        bars
    }

    /// This thread arrives (release: its accesses before happen before the phase completes).
    #[inline(always)]
    pub fn arrive(&self) {
        // SAFETY: initialized by `init_block` before its barrier.
        unsafe { backend::mbarrier_arrive(self.addr) }
    }

    /// This thread arrives, and the phase also waits for `bytes` bytes of TMA loads
    /// ([`TmaTensor2d::load`]) to land.
    #[inline(always)]
    pub fn arrive_expect_tx(&self, bytes: u32) {
        // SAFETY: initialized by `init_block` before its barrier.
        unsafe { backend::mbarrier_arrive_expect_tx(self.addr, bytes) }
    }

    /// Wait until the phase of parity `parity` completed (acquire: its arrivals' accesses and its
    /// TMA loads are visible after). The first phase has parity 0; a wait on parity 1 before any
    /// phase completed returns at once (the phase before the first counts as complete).
    #[inline(always)]
    pub fn wait(&self, parity: u32) {
        // SAFETY: initialized by `init_block` before its barrier.
        unsafe { backend::mbarrier_wait(self.addr, parity) }
    }
}

/// A row-major global tensor of 16-bit elements (`rows x cols`, rows `pitch` elements apart, two
/// elements a word) with the tensor map TMA loads `boxd` boxes of it by.
#[derive(Clone, Copy, Debug)]
pub struct TmaTensor2d<'a> {
    // The tensor map: read by the PTX backend only.
    #[allow(dead_code)]
    pub(crate) map: u64,
    // The emulator's source (the GPU's is in the tensor map): read by the emulator's backend only.
    #[allow(dead_code)]
    pub(crate) src: Gmem<'a, u32>,
    pub(crate) rows: u32,
    pub(crate) cols: u32,
    #[allow(dead_code)]
    pub(crate) pitch: u32,
    pub(crate) boxd: TmaBox,
}

impl<'a> TmaTensor2d<'a> {
    /// The tensor in `src`, if it fits (`rows * pitch` elements, `cols <= pitch`, `pitch` a
    /// multiple of 8: TMA's 16-byte strides) and `boxd` is of 16-bit elements; `None` otherwise.
    ///
    /// # Safety
    /// On the GPU, `map` is the global address of a 64-byte aligned `CUtensorMap`, written before
    /// the launch and alive until it completes, that `cuTensorMapEncodeTiled` encoded for exactly
    /// this tensor: 16-bit elements at `src`, dimensions `{cols, rows}`, row stride `2 * pitch`
    /// bytes, box `{boxd.inner, boxd.outer}`, element strides 1, no interleave, swizzle
    /// `boxd.swizzle`, zero fill. (The emulator reads `src` and ignores `map`.)
    #[inline(always)]
    pub unsafe fn new(
        map: u64,
        src: Gmem<'a, u32>,
        rows: u32,
        cols: u32,
        pitch: u32,
        boxd: TmaBox,
    ) -> Option<Self> {
        let fits = (rows as u64) * (pitch as u64) <= 2 * src.len() as u64;
        (boxd.element_bits == 16
            && pitch.is_multiple_of(8)
            && cols <= pitch
            && fits
            && map.is_multiple_of(64))
        .then_some(TmaTensor2d { map, src, rows, cols, pitch, boxd })
    }

    /// The rows.
    ///
    /// ```
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// # use const_layout_device::{tma::TmaTensor2d, Gmem};
    /// # let w: Vec<std::sync::atomic::AtomicU32> = (0..64).map(|_| 0.into()).collect();
    /// let b = TmaBox { inner: 8, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
    /// let t = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&w), 8, 16, 16, b).unwrap();
    /// assert_eq!((t.rows(), t.cols()), (8, 16));
    /// ```
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The elements a row.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// The box a load writes.
    pub fn box_dims(&self) -> TmaBox {
        self.boxd
    }

    /// TMA loads the box whose first element is `(row0, col0)` into `dst` (zeros outside the
    /// tensor), completing its bytes ([`TmaBox::bytes`]) on `bar`, which must expect them
    /// ([`Mbarrier::arrive_expect_tx`]). `dst` must hold the box and be aligned as its swizzle
    /// needs ([`TmaBox::alignment`]); nothing may read it before `bar`'s phase completes.
    #[inline(always)]
    pub fn load<const W: usize>(&self, dst: SmemArray<u32, W>, row0: u32, col0: u32, bar: Mbarrier) {
        let b = self.boxd;
        if 4 * W < b.bytes() as usize || !dst.address(0).is_multiple_of(b.alignment()) {
            fault("TmaTensor2d::load: the destination is smaller than the box or misaligned for its swizzle");
        }
        if row0 > i32::MAX as u32 || col0 > i32::MAX as u32 {
            fault("TmaTensor2d::load: a coordinate past 2^31");
        }
        // SAFETY: `new`'s contract (the map); `dst` holds the box's bytes inside the block's shared
        // memory, aligned (checked); `bar` is an initialized mbarrier; the coordinates are below
        // 2^31 (checked).
        unsafe { backend::tma_load_2d(self, dst.address(0), row0, col0, bar.addr) }
    }
}

/// The tensor ranks [`TmaTensor`] loads: 2 to 5 (implemented for `()`).
#[diagnostic::on_unimplemented(
    message = "TMA loads tensors of rank 2 to 5, not {RANK}",
    label = "a tensor of rank {RANK}"
)]
pub trait TmaRank<const RANK: usize>: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
}

#[diagnostic::do_not_recommend]
impl TmaRank<2> for () {}
#[diagnostic::do_not_recommend]
impl TmaRank<3> for () {}
#[diagnostic::do_not_recommend]
impl TmaRank<4> for () {}
#[diagnostic::do_not_recommend]
impl TmaRank<5> for () {}

/// A global tensor of 16-bit elements of rank `RANK` (2 to 5) with the tensor map TMA loads
/// `boxd` boxes of it by: dimensions `dims` innermost first (`dims[0]` contiguous), element
/// strides `strides` (`strides[0]` = 1; the others multiples of 8, TMA's 16 bytes, in any order:
/// a PyTorch tensor of shape `(batch, heads, seq, dim)` and strides `q.stride()` is `dims = [dim,
/// seq, heads, batch]`, `strides` = `q.stride()` reversed). A box is `[boxd.inner, boxd.outer, 1,
/// ...]`: `boxd.outer` rows of dimension 1 of `boxd.inner` elements of dimension 0, at one index
/// of each further dimension (attention's `Q`, `K` or `V` tile of one head of one batch).
///
/// ```
/// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::tma::{Mbarrier, TmaTensor};
/// use const_layout_device::{Dim3, Gmem, SmemRegion, thread_idx};
/// use std::sync::atomic::AtomicU32;
///
/// // (batch 2, seq 10, heads 3, dim 16) stored as (b, s, h, d) and read as (b, h, s, d):
/// // element (b, h, s, d) at 480 b + 48 s + 16 h + d, value 1000 b + 100 h + 10 s + d % 10.
/// let value = |b: u32, h: u32, s: u32, d: u32| 1000 * b + 100 * h + 10 * s + d % 10;
/// let words: Vec<AtomicU32> = (0..480u32).map(|w| {
///     let e = |e: u32| value(e / 480, e / 16 % 3, e / 48 % 10, e % 16);
///     AtomicU32::new(e(2 * w) | e(2 * w + 1) << 16)
/// }).collect();
/// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 512 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(256).unwrap(), [1]);
///     let boxd = TmaBox { inner: 16, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
///     let q = TmaTensor::emulated(Gmem::<u32>::from_cells(&words), [16, 10, 3, 2], [1, 48, 16, 480], boxd).unwrap();
///     let tile = smem.array::<u32, 64>(0).unwrap();
///     if thread_idx().x == 0 {
///         bar.arrive_expect_tx(boxd.bytes());
///         q.load(tile, [0, 4, 2, 1], bar); // seq 4..12 of head 2 of batch 1
///     }
///     bar.wait(0);
///     assert_eq!(tile.load(8 * 3), value(1, 2, 7, 0) | value(1, 2, 7, 1) << 16); // row 3: seq 7
///     assert_eq!(tile.load(8 * 6), 0); // seq 10: outside, zeros
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TmaTensor<'a, const RANK: usize> {
    // The tensor map: read by the PTX backend only.
    #[allow(dead_code)]
    pub(crate) map: u64,
    // The emulator's source (the GPU's is in the tensor map): read by the emulator's backend only.
    #[allow(dead_code)]
    pub(crate) src: Gmem<'a, u32>,
    pub(crate) dims: [u32; RANK],
    #[allow(dead_code)]
    pub(crate) strides: [u64; RANK],
    pub(crate) boxd: TmaBox,
}

impl<'a, const RANK: usize> TmaTensor<'a, RANK>
where
    (): TmaRank<RANK>,
{
    /// The tensor in `src` (two elements a word, element 0 the low half of word 0), if it fits
    /// (every element `sum_i x_i strides[i]` inside `src`), its dimensions are positive,
    /// `strides[0]` is 1 and the other strides are multiples of 8 (TMA's 16 bytes) below 2^39,
    /// and `boxd` is of 16-bit elements; `None` otherwise.
    ///
    /// # Safety
    /// On the GPU, `map` is the global address of a 64-byte aligned `CUtensorMap`, written before
    /// the launch and alive until it completes, that `cuTensorMapEncodeTiled` encoded for exactly
    /// this tensor: 16-bit elements at `src`, rank `RANK`, dimensions `dims`, byte strides `2
    /// strides[1..]`, box `{boxd.inner, boxd.outer, 1, ...}`, element strides 1, no interleave,
    /// swizzle `boxd.swizzle`, zero fill (`const_layout_launch::TensorMap::encode_nd` on the host,
    /// or `const_layout_launch.py`'s `tensor_map`). (The emulator reads `src` and ignores `map`.)
    #[inline(always)]
    pub unsafe fn new(
        map: u64,
        src: Gmem<'a, u32>,
        dims: [u32; RANK],
        strides: [u64; RANK],
        boxd: TmaBox,
    ) -> Option<Self> {
        // Every condition at once, with no branch between them: a kernel's first instructions
        // read its parameters from the constant bank, and a branch on each check would wait for
        // each load in turn (on the H200, about 1 us a block for the attention kernel's checks).
        let mut ok = boxd.element_bits == 16 && strides[0] == 1 && map.is_multiple_of(64);
        let mut last: u64 = 0; // the offset of the last element
        for i in 0..RANK {
            ok &= dims[i] != 0 && (i == 0 || (strides[i].is_multiple_of(8) && strides[i] < 1 << 39));
            // dims < 2^32 and strides < 2^39 (else `ok` is false): the product is below 2^71, so
            // overflow is a flag, not a wrap that passes.
            let (step, o1) = (dims[i].wrapping_sub(1) as u64).overflowing_mul(strides[i]);
            let (sum, o2) = last.overflowing_add(step);
            ok &= !o1 && !o2;
            last = sum;
        }
        ok &= last < 2 * src.len() as u64;
        ok.then_some(TmaTensor { map, src, dims, strides, boxd })
    }

    /// The dimensions, innermost first.
    ///
    /// ```
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// # use const_layout_device::{tma::TmaTensor, Gmem};
    /// # let w: Vec<std::sync::atomic::AtomicU32> = (0..1024).map(|_| 0.into()).collect();
    /// let b = TmaBox { inner: 8, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
    /// let t = TmaTensor::emulated(Gmem::<u32>::from_cells(&w), [16, 8, 16], [1, 16, 128], b).unwrap();
    /// assert_eq!(t.dims(), [16, 8, 16]);
    /// assert!(TmaTensor::emulated(Gmem::<u32>::from_cells(&w), [16, 8, 17], [1, 16, 128], b).is_none()); // too long
    /// assert!(TmaTensor::emulated(Gmem::<u32>::from_cells(&w), [16, 8, 16], [1, 12, 128], b).is_none()); // 24 bytes
    /// // (2^26 + 1 - 1) * 2^38 is 2^64: an offset that wraps to 0 is refused, not taken as in range.
    /// assert!(TmaTensor::emulated(Gmem::<u32>::from_cells(&w), [16, (1 << 26) + 1, 1], [1, 1 << 38, 16], b).is_none());
    /// ```
    pub fn dims(&self) -> [u32; RANK] {
        self.dims
    }

    /// The box a load writes.
    pub fn box_dims(&self) -> TmaBox {
        self.boxd
    }

    /// TMA loads the box whose first element is at `coords` (innermost first) into `dst` (zeros
    /// outside the tensor), completing its bytes ([`TmaBox::bytes`]) on `bar`, which must expect
    /// them ([`Mbarrier::arrive_expect_tx`]). `dst` must hold the box and be aligned as its swizzle
    /// needs ([`TmaBox::alignment`]); nothing may read it before `bar`'s phase completes. The box's
    /// row `r`, element `c` is the tensor's element `(coords[0] + c, coords[1] + r, coords[2],
    /// ...)`. (Example: [`TmaTensor`].)
    #[inline(always)]
    pub fn load<const W: usize>(&self, dst: SmemArray<u32, W>, coords: [u32; RANK], bar: Mbarrier) {
        let b = self.boxd;
        if 4 * W < b.bytes() as usize || !dst.address(0).is_multiple_of(b.alignment()) {
            fault("TmaTensor::load: the destination is smaller than the box or misaligned for its swizzle");
        }
        if coords.iter().any(|&c| c > i32::MAX as u32) {
            fault("TmaTensor::load: a coordinate past 2^31");
        }
        // SAFETY: `new`'s contract (the map); `dst` holds the box's bytes inside the block's shared
        // memory, aligned (checked); `bar` is an initialized mbarrier; the coordinates are below
        // 2^31 (checked); `RANK` is 2 to 5 (the bound).
        unsafe { backend::tma_load_nd(self, dst.address(0), coords, bar.addr) }
    }
}
