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

/// A [`NamedBarrier`] whose id is known only at run time (CUTLASS's `NamedBarrier::sync(threads,
/// id)`): one barrier of a ring that each warpgroup picks by its index, so that code shared by
/// the warpgroups issues one `bar.sync` on a register instead of branching between copies on
/// constant ids (FlashAttention-3's ping-pong turns: two branches and three predicated `BAR`s a
/// turn otherwise). The id is lane 0's (a broadcast, so one warp never names two), and checked
/// to be 1 to 15 when the barrier is made; `THREADS` is checked at compile time.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{thread_idx, Dim3, DynNamedBarrier, SmemRegion};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16 }, || {
///     let s = SmemRegion::dynamic().array::<u32, 4>(0).unwrap();
///     let t = thread_idx().x;
///     // Two pairs of warps, each at a barrier of its own: 1 for warps 0 and 1, 2 for 2 and 3.
///     let pair = DynNamedBarrier::<64>::new(1 + t / 64).unwrap();
///     if t % 64 == 0 {
///         s.store((t / 64) as usize, 7 + t / 64);
///     }
///     pair.sync();
///     assert_eq!(s.load((t / 64) as usize), 7 + t / 64);
///     assert_eq!(pair.id(), 1 + t / 64);
///     assert!(DynNamedBarrier::<64>::new(16).is_none()); // ids are 1 to 15
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DynNamedBarrier<const THREADS: u32> {
    id: u32,
}

impl<const THREADS: u32> DynNamedBarrier<THREADS> {
    const CHECK: () = assert!(
        THREADS >= 32 && THREADS <= 1024 && THREADS.is_multiple_of(32),
        "a named barrier's thread count is a multiple of 32 up to 1024"
    );

    /// Barrier `id` as lane 0 of the calling warp names it (a collective call of the warp, as a
    /// shuffle: [`warp::shfl_idx`](crate::warp::shfl_idx)); `None` unless it is 1 to 15 (0 is
    /// [`sync_threads`]'s).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn new(id: u32) -> Option<Self> {
        let () = Self::CHECK;
        let id = crate::warp::shfl_idx(id, 0);
        if (1..=15).contains(&id) { Some(DynNamedBarrier { id }) } else { None }
    }

    /// The barrier's id.
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// [`NamedBarrier::sync`] at this barrier.
    #[inline(always)]
    pub fn sync(&self) {
        let () = Self::CHECK;
        backend::named_barrier(self.id, THREADS)
    }

    /// [`NamedBarrier::arrive`] at this barrier.
    #[inline(always)]
    pub fn arrive(&self) {
        let () = Self::CHECK;
        backend::named_barrier_arrive(self.id, THREADS)
    }
}
