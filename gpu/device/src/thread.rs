//! Thread and block indices, barriers: CUDA's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`,
//! `__syncthreads()`.

use core::fmt;

/// Three extents or indices, as CUDA's `dim3`.
///
/// ```
/// use const_layout_device::Dim3;
/// assert_eq!(Dim3::x(256).count(), 256);
/// assert_eq!(Dim3 { x: 4, y: 2, z: 1 }.to_string(), "(4,2,1)");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Dim3 {
    /// The first (fastest) extent.
    pub x: u32,
    /// The second extent.
    pub y: u32,
    /// The third extent.
    pub z: u32,
}

impl Dim3 {
    /// `(x, 1, 1)`.
    #[inline(always)]
    pub const fn x(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }

    /// `(x, y, 1)`.
    #[inline(always)]
    pub const fn xy(x: u32, y: u32) -> Self {
        Dim3 { x, y, z: 1 }
    }

    /// `x * y * z`.
    #[inline(always)]
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

/// A kernel launch's geometry: what the emulator ([`emu::launch`](crate::emu)) and a host
/// launcher take.
///
/// ```
/// use const_layout_device::{Dim3, LaunchConfig};
/// let cfg = LaunchConfig { grid: Dim3::xy(64, 2), block: Dim3::x(256), dynamic_smem_bytes: 0 };
/// assert_eq!(cfg.grid.count() * cfg.block.count(), 32768);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Bytes of dynamic shared memory per block.
    pub dynamic_smem_bytes: u32,
}

#[cfg(target_arch = "nvptx64")]
fn dim([x, y, z]: [u32; 3]) -> Dim3 {
    Dim3 { x, y, z }
}

/// CUDA's `threadIdx`.
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    #[cfg(target_arch = "nvptx64")]
    return dim(crate::arch::thread_idx());
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::emu::with(|c| c.thread);
}

/// CUDA's `blockIdx`.
#[inline(always)]
pub fn block_idx() -> Dim3 {
    #[cfg(target_arch = "nvptx64")]
    return dim(crate::arch::block_idx());
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::emu::with(|c| c.block);
}

/// CUDA's `blockDim`.
#[inline(always)]
pub fn block_dim() -> Dim3 {
    #[cfg(target_arch = "nvptx64")]
    return dim(crate::arch::block_dim());
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::emu::block_dim();
}

/// CUDA's `gridDim`.
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    #[cfg(target_arch = "nvptx64")]
    return dim(crate::arch::grid_dim());
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::emu::grid_dim();
}

/// CUDA's `__syncthreads()`: wait until every thread of the block has reached it (or exited);
/// shared-memory accesses before it are visible to every thread after it.
#[inline(always)]
pub fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    crate::arch::sync_threads();
    #[cfg(not(target_arch = "nvptx64"))]
    crate::emu::sync_threads();
}

/// Stop the kernel: `trap` on the GPU (the launch fails), a panic in the emulator (the launch
/// returns the message). What every failed check of the device layer calls.
#[cold]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never), track_caller)]
pub fn fault(what: &'static str) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = what;
        crate::arch::trap()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("device fault: {what}")
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
    /// `threadIdx.x`, after checking that the block is `(N, 1, 1)`.
    #[inline(always)]
    pub fn index() -> Self {
        let (t, d) = (thread_idx(), block_dim());
        if d.x as usize != N || d.y != 1 || d.z != 1 || t.x as usize >= N {
            fault("the block does not have the thread count the kernel was written for");
        }
        Thread(t.x)
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
