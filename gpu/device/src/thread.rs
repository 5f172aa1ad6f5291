//! Thread and block indices, barriers: CUDA's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`,
//! `__syncthreads()`.

use crate::backend;
use crate::types::Dim3;

/// CUDA's `threadIdx`.
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    backend::thread_idx()
}

/// CUDA's `blockIdx`.
#[inline(always)]
pub fn block_idx() -> Dim3 {
    backend::block_idx()
}

/// CUDA's `blockDim`.
#[inline(always)]
pub fn block_dim() -> Dim3 {
    backend::block_dim()
}

/// CUDA's `gridDim`.
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    backend::grid_dim()
}

/// PTX's `%globaltimer`: a clock in nanoseconds that every block of a launch reads alike, for
/// timelines across blocks and multiprocessors (`clock64` counts one multiprocessor's cycles).
/// The GPU updates it in steps (on the order of a microsecond on some GPUs, 32 ns on others);
/// the emulator's counts the nanoseconds since the process first read it.
///
/// ```
/// use const_layout_device::emu::launch;
/// use const_layout_device::{Dim3, LaunchConfig, globaltimer, sync_threads};
/// use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
/// let ordered = AtomicBool::new(true);
/// let cfg = LaunchConfig { grid: Dim3::x(2), block: Dim3::x(32), dynamic_smem_bytes: 0 };
/// launch(&cfg, || {
///     let before = globaltimer();
///     sync_threads();
///     if globaltimer() < before {
///         ordered.store(false, Relaxed);
///     }
/// })
/// .unwrap();
/// assert!(ordered.load(Relaxed));
/// ```
#[inline(always)]
pub fn globaltimer() -> u64 {
    backend::globaltimer()
}

/// PTX's `%smid`: the multiprocessor this thread runs on (a block stays on one), to tell which
/// blocks shared a multiprocessor in a timeline ([`globaltimer`]). The emulator's is 0.
///
/// ```
/// use const_layout_device::emu::launch;
/// use const_layout_device::{Dim3, LaunchConfig, smid};
/// use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
/// let seen = AtomicU32::new(u32::MAX);
/// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 0 };
/// launch(&cfg, || seen.store(smid(), Relaxed)).unwrap();
/// assert_eq!(seen.load(Relaxed), 0);
/// ```
#[inline(always)]
pub fn smid() -> u32 {
    backend::smid()
}

/// CUDA's `__syncthreads()`: wait until every thread of the block has reached it (or exited);
/// shared-memory accesses before it are visible to every thread after it.
#[inline(always)]
pub fn sync_threads() {
    backend::sync_threads()
}

/// Stop the kernel: `trap` on the GPU (the launch fails), a panic in the emulator (the launch
/// returns the message). What every failed check of the device layer calls.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{fault, Dim3};
/// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 0 };
/// let e = launch(&cfg, || fault("out of range")).unwrap_err();
/// assert_eq!(e.to_string(), "block (0,0,0), thread (0,0,0): device fault: out of range");
/// ```
#[cold]
#[inline(always)]
pub fn fault(what: &'static str) -> ! {
    backend::fault(what)
}

/// The index of a thread in a block of exactly `N` threads along `x`: a proof, checked once,
/// that `index < N`, so that the optimizer knows it (partitions of static tiles by a thread
/// layout of size `N` then need no further bound).
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, Thread};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(64), dynamic_smem_bytes: 0 }, || {
///     let t = Thread::<64>::index();
///     assert!(t.get() < 64 && t.lane() < 32 && t.warp() < 2);
/// })
/// .unwrap();
/// // A block of another size faults.
/// let wrong = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 };
/// assert!(launch(&wrong, || { Thread::<64>::index(); }).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thread<const N: usize>(u32);

impl<const N: usize> Thread<N> {
    /// `threadIdx.x`, after checking that the block is `(N, 1, 1)` (the same check in every
    /// thread, so the warp stays converged). The index is below the block's extent, hence below
    /// `N`; the optimizer learns it from one mask (`N` a power of two) or minimum, not a branch.
    #[inline(always)]
    pub fn index() -> Self {
        let (t, d) = (thread_idx(), block_dim());
        if d.x as usize != N || d.y != 1 || d.z != 1 {
            fault("the block does not have the thread count the kernel was written for");
        }
        let n = N as u32;
        Thread(if n.is_power_of_two() { t.x & (n - 1) } else { t.x.min(n.wrapping_sub(1)) })
    }

    /// The index, below `N`.
    #[inline(always)]
    pub fn get(self) -> usize {
        self.0 as usize
    }

    /// The lane within the warp, `index % 32`.
    #[inline(always)]
    pub fn lane(self) -> usize {
        self.get() % 32
    }

    /// The warp, `index / 32`.
    #[inline(always)]
    pub fn warp(self) -> usize {
        self.get() / 32
    }
}

/// A named barrier (PTX's `bar.sync ID, THREADS` and `bar.arrive`; CUTLASS's `NamedBarrier`): a
/// rendezvous of `THREADS` threads (whole warps) of the block at barrier `ID` (1 to 15; 0 is
/// [`sync_threads`]'s). Warp-specialized kernels use them to synchronize some warps without the
/// others: consumers [`sync`](Self::sync), a producer [`arrive`](Self::arrive)s without waiting.
/// `ID` and `THREADS` are checked at compile time.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{thread_idx, Dim3, NamedBarrier, SmemRegion};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16 }, || {
///     let s = SmemRegion::dynamic().array::<u32, 4>(0).unwrap();
///     let ready = NamedBarrier::<1, 128>::new();
///     let t = thread_idx().x;
///     if t < 32 {
///         if t == 0 {
///             s.store(0, 42);
///         }
///         ready.arrive(); // the producer warp signals and goes on
///     } else {
///         ready.sync(); // the consumers wait for all 128 arrivals
///         assert_eq!(s.load(0), 42);
///     }
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NamedBarrier<const ID: u32, const THREADS: u32>;

impl<const ID: u32, const THREADS: u32> NamedBarrier<ID, THREADS> {
    const CHECK: () = assert!(
        ID >= 1 && ID <= 15 && THREADS >= 32 && THREADS <= 1024 && THREADS.is_multiple_of(32),
        "a named barrier's id is 1 to 15 and its thread count a multiple of 32 up to 1024"
    );

    /// The barrier.
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Self::CHECK;
        NamedBarrier
    }

    /// Arrive and wait until `THREADS` threads have arrived (`bar.sync`); shared and global
    /// memory accesses of the arriving threads before it are visible to the waiting ones after.
    #[inline(always)]
    pub fn sync(&self) {
        let () = Self::CHECK;
        backend::named_barrier(ID, THREADS)
    }

    /// Arrive without waiting (`bar.arrive`): this thread's accesses before it are visible to
    /// the threads that [`sync`](Self::sync) on the same phase.
    #[inline(always)]
    pub fn arrive(&self) {
        let () = Self::CHECK;
        backend::named_barrier_arrive(ID, THREADS)
    }
}
