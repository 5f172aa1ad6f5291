//! The device layer's check of TMA loads of rank 3 and 4 ([`TmaTensor`]) against the hardware: a
//! tensor map that the host encoded (`const_layout_launch.py`'s `tensor_map_of`, or Rust's
//! `TensorMap::encode_nd`) for a tensor of any strides, one box loaded into shared memory and
//! copied out as it landed (its swizzle included). `tools/gpu/tma_probe.py` runs it on the GPU and
//! compares with the CUDA guide's rule (element `(r, c)` of the box at byte `r inner 2 + 2 c`,
//! swizzled as `Swizzle<B,4,3>` on bytes, zeros outside the tensor), which the emulator
//! implements; the tests run it on the emulator.
//!
//! ```
//! use const_layout::atom::tma::{TmaBox, TmaSwizzle};
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::tma::TmaTensor;
//! use const_layout_device::{tma_probe, Dim3, Gmem, GmemMut, SmemRegion};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! // (heads 2, seq 8, dim 16), element e = e; the box of 16 x 8 at head 1.
//! let src: Vec<AtomicU32> = (0..128u32).map(|w| AtomicU32::new(2 * w | (2 * w + 1) << 16)).collect();
//! let out: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
//! let b = TmaBox { inner: 16, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
//! let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: tma_probe::SMEM_BYTES };
//! launch(&cfg, || {
//!     let t = TmaTensor::emulated(Gmem::<u32>::from_cells(&src), [16, 8, 2], [1, 16, 128], b).unwrap();
//!     tma_probe::tma_probe(t, [0, 0, 1], GmemMut::<u32>::from_cells(&out), SmemRegion::dynamic());
//! })
//! .unwrap();
//! assert_eq!(out[0].load(Ordering::Relaxed), 128 | 129 << 16);
//! ```

use crate::tma::{Mbarrier, TmaRank, TmaTensor};
use crate::{GmemMut, SmemRegion, fault, thread_idx};

/// Shared memory: a box of up to 32 KiB, its mbarrier, and room to align the box to 1024 bytes.
pub const SMEM_BYTES: u32 = 32768 + 16 + 1024;

/// Words of the probe's configuration (`tma_probe`'s entry point): rank, box inner, outer,
/// swizzle (`CUtensorMapSwizzle`), dims (4), coordinates (4), strides in elements (4, as low and
/// high words), each innermost first; unused entries 0.
pub const CFG_WORDS: usize = 20;

/// One warp: thread 0 loads the box of `t` at `coords` into shared memory, every thread waits for
/// it and copies it out, word for word, to `out` (the box's bytes, as TMA placed them).
#[inline(always)]
pub fn tma_probe<const RANK: usize>(
    t: TmaTensor<'_, RANK>,
    coords: [u32; RANK],
    out: GmemMut<'_, u32>,
    smem: SmemRegion,
) where
    (): TmaRank<RANK>,
{
    let words = t.box_dims().bytes() as usize / 4;
    if words > 8192 || out.len() < words {
        fault("tma_probe: a box of more than 32 KiB, or an output smaller than the box");
    }
    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("tma_probe: no shared memory");
    };
    let pad = (1024 - first.address(0) % 1024) % 1024;
    let (Some(tile), Some(bar)) = (smem.array::<u32, 8192>(pad), smem.array::<u32, 2>(pad + 32768)) else {
        fault("tma_probe: the block has less shared memory than SMEM_BYTES");
    };
    let [bar] = Mbarrier::init_block(bar, [1]);
    let me = thread_idx().x as usize;
    if me == 0 {
        bar.arrive_expect_tx(t.box_dims().bytes());
        t.load(tile, coords, bar);
    }
    bar.wait(0);
    for w in (me..words).step_by(32) {
        out.store(w, tile.load(w));
    }
}
