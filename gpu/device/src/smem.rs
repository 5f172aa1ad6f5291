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
use core::marker::PhantomData;

/// A region of the block's shared memory: its 32-bit shared address and its size in bytes.
/// Every thread of a block sees the same region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemRegion {
    addr: u32,
    bytes: u32,
}

impl SmemRegion {
    /// The launch's dynamic shared memory (CUDA's `extern __shared__`), as many bytes as the
    /// launch asked for (`%dynamic_smem_size`).
    #[inline(always)]
    pub fn dynamic() -> Self {
        let (addr, bytes) = backend::dynamic_smem();
        SmemRegion { addr, bytes }
    }

    /// The region of `bytes` bytes at 16-byte aligned shared address `addr`, which the backend
    /// reserved for it (a static array, the dynamic memory).
    #[inline(always)]
    pub(crate) fn from_parts(addr: u32, bytes: u32) -> Self {
        SmemRegion { addr, bytes }
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
/// return its [`SmemRegion`] (CUDA's `__shared__` array). The name must be unique in the module;
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
