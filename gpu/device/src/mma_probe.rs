//! One warp's 16x16x16 tensor-core product through `ldmatrix` and `mma.sync`, every index from
//! const-layout's atoms: the device layer's check that its warp-collective instructions, the atom
//! layouts and the tiled copies built on them agree with the hardware (`tools/gpu/mma_probe.py`
//! runs it on the GPU against NumPy; the tests run it on the emulator).
//!
//! `D = A B^T + C` with `A` and `B` 16x16 halves (`f16` or `bf16`), each row-major (`k`
//! contiguous, CuTe's `TN`) in 128 words of two halves, low half first, and `C`, `D` 16x16 `f32`
//! column-major. The tiled MMA is `SM80_16x8x16_F32F16F16F32_TN` with the tile `<_16,_16,_16>`
//! (the atom twice along `N`); `A` and `B` reach the fragments through
//! `make_tiled_copy_A`/`_B` of `SM75_U32x4_LDSM_N`: the source layout gives each lane the row it
//! points `ldmatrix` at, and the registers come back in the tiled MMA's value order.
//!
//! ```
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{Dim3, Gmem, GmemMut, HalfKind, SmemRegion};
//! use const_layout_device::mma_probe;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! // A = I (1.0 = 0x3c00 on the diagonal), B = all 2.0, C = 1: D = 2 B^T-rows + 1 = 3.
//! let a: Vec<AtomicU32> = (0..128).map(|w| {
//!     let (r, k) = (w / 8, 2 * (w % 8));
//!     AtomicU32::new(if r == k { 0x3c00 } else if r == k + 1 { 0x3c00 << 16 } else { 0 })
//! }).collect();
//! let b: Vec<AtomicU32> = (0..128).map(|_| AtomicU32::new(0x4000_4000)).collect();
//! let c: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(1f32.to_bits())).collect();
//! let d: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
//! let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: mma_probe::SMEM_BYTES };
//! launch(&cfg, || {
//!     let (ga, gb) = (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b));
//!     let (gc, gd) = (Gmem::<f32>::from_cells(&c), GmemMut::<f32>::from_cells(&d));
//!     mma_probe::mma_probe(32, HalfKind::F16, ga, gb, gc, gd, SmemRegion::dynamic());
//! })
//! .unwrap();
//! assert!(d.iter().all(|x| f32::from_bits(x.load(Ordering::Relaxed)) == 3.0));
//! ```

use crate::{Gmem, GmemMut, HalfKind, SmemRegion, fault, mma_m16n8k16_f32, sync_threads, thread_idx};
use const_layout::atom::{
    Copy_Atom, F16, SM75_U32x4_LDSM_N, SM80_16x8x16_F32F16F16F32_TN, make_tiled_copy_A, make_tiled_copy_B,
    make_tiled_mma,
};
use const_layout::{C, layout_type};

/// Shared memory: `A` and `B`, 128 words each.
pub const SMEM_BYTES: u32 = 2 * 128 * 4;

/// The tile in shared memory, row-major words: `(m, k)` is half `k % 2` of word `8 m + k / 2`.
type SmemRows = layout_type!((16, 8):(8, 1));

/// The probe: one warp of 32 threads computes `D = A B^T + C` (see the module). Only the first
/// `lanes` lanes go on to the warp-collective instructions (32 for the product; fewer is the check
/// of their check: the lanes that go on must trap on the GPU, and the emulator fails the launch).
#[inline(always)]
pub fn mma_probe(
    lanes: usize,
    kind: HalfKind,
    a: Gmem<'_, u32>,
    b: Gmem<'_, u32>,
    c: Gmem<'_, f32>,
    d: GmemMut<'_, f32>,
    smem: SmemRegion,
) {
    if a.len() < 128 || b.len() < 128 || c.len() < 256 || d.len() < 256 {
        fault("mma_probe: A and B need 128 words, C and D 256 values");
    }
    let Some(s) = smem.array::<u32, 256>(0) else {
        fault("mma_probe: the block has less shared memory than SMEM_BYTES");
    };
    let lane = thread_idx().x as usize;
    if lane >= 32 {
        fault("mma_probe: one warp");
    }
    for w in 0..8 {
        s.store(
            lane + 32 * w,
            if lane + 32 * w < 128 { a.load(lane + 32 * w) } else { b.load(lane + 32 * w - 128) },
        );
    }
    sync_threads();
    if lane >= lanes {
        return;
    }
    let mma = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!(1:0)>::default(),
        (C::<16>, C::<16>, C::<16>),
    );
    let ldsm = Copy_Atom::<SM75_U32x4_LDSM_N, F16>::default();
    let (copy_a, copy_b) = (make_tiled_copy_A(ldsm, mma), make_tiled_copy_B(ldsm, mma));
    let rows = SmemRows::default();
    // The row a lane points ldmatrix at: its first source value's (m, k) in the 16x16 tile.
    let row_of = |i: isize| rows.crd2idx(((i % 16) as usize, (i / 16 / 2) as usize)) as usize;
    let ia = copy_a.layout_s_tv().crd2idx((lane, 0usize));
    let ib = copy_b.layout_s_tv().crd2idx((lane, 0usize));
    // Warp-collective: every lane gets here (no lane-dependent branch is open).
    let fa = s.ldmatrix_x4(row_of(ia), false);
    let fb = s.ldmatrix_x4(128 + row_of(ib), false);
    // C's values in the tiled MMA's order: 0-3 for the atom at n 0-7, 4-7 for n 8-15.
    let c_tv = mma.layout_c_tv();
    let at = |v: usize| c_tv.crd2idx((lane, v)) as usize; // m + 16 n, C's column-major offset
    let mut acc = [0f32; 8];
    for (v, x) in acc.iter_mut().enumerate() {
        *x = c.load(at(v));
    }
    let d0 = mma_m16n8k16_f32(kind, fa, [fb[0], fb[1]], [acc[0], acc[1], acc[2], acc[3]]);
    let d1 = mma_m16n8k16_f32(kind, fa, [fb[2], fb[3]], [acc[4], acc[5], acc[6], acc[7]]);
    for v in 0..4 {
        d.store(at(v), d0[v]);
        d.store(at(4 + v), d1[v]);
    }
}
