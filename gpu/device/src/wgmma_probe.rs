//! One warpgroup's 64x64x64 product with Hopper's `wgmma`, its operands in shared memory as
//! `atom::gmma` lays them out and found by the descriptors `make_gmma_desc` gives: the device
//! layer's check that its `wgmma` wrapper, the 128-byte swizzled K-major atom, the descriptors and
//! the `wgmma` accumulator layout agree with the hardware (`tools/gpu/wgmma_probe.py` runs it on
//! the GPU against NumPy; the tests run it on the emulator, which decodes the descriptors by the
//! PTX ISA's canonical layouts).
//!
//! `D = A B^T` with `A` and `B` 64x64 halves (`f16` or `bf16`), each row-major (`k` contiguous,
//! K-major) in 2048 words of two halves, low half first, and `D` 64x64 `f32` column-major. Both
//! tiles go to shared memory as `tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (64,64))`
//! (`Sw<3,3,3> o (8,64):(64,1)`, 1024-byte aligned); four `wgmma.m64n64k16` walk `k`, each
//! descriptor the first one advanced by 32 bytes a step (CuTe's descriptor iterator); `D` leaves
//! through `CLayout_64xN<64>`.
//!
//! ```
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{Dim3, Gmem, GmemMut, HalfKind, SmemRegion};
//! use const_layout_device::wgmma_probe;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! // A = all 1.0, B = all 2.0: every value of D is 64 * 2 = 128.
//! let a: Vec<AtomicU32> = (0..2048).map(|_| AtomicU32::new(0x3c00_3c00)).collect();
//! let b: Vec<AtomicU32> = (0..2048).map(|_| AtomicU32::new(0x4000_4000)).collect();
//! let d: Vec<AtomicU32> = (0..4096).map(|_| AtomicU32::new(0)).collect();
//! let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: wgmma_probe::SMEM_BYTES };
//! launch(&cfg, || {
//!     let (ga, gb, gd) = (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b), GmemMut::<f32>::from_cells(&d));
//!     wgmma_probe::wgmma_probe(HalfKind::F16, ga, gb, gd, SmemRegion::dynamic());
//! })
//! .unwrap();
//! assert!(d.iter().all(|x| f32::from_bits(x.load(Ordering::Relaxed)) == 128.0));
//! ```

use crate::{Gmem, GmemMut, HalfKind, SmemRegion, fault, sync_threads, thread_idx};
use const_layout::atom::gmma::{CLayout_64xN, GmmaDescriptor};
use const_layout::layout::computed::{swizzle, tile_to_shape};
use const_layout::{C, layout_type};

/// Shared memory: `A` and `B`, 8 KiB each, and room to align them to 1024 bytes.
pub const SMEM_BYTES: u32 = 2 * 8192 + 1024;

/// The descriptor of the first 64x16 block of a tile at shared address 0: `make_gmma_desc(K,
/// Sw<3,3,3> o ((8,8),16):((64,512),1), 16, 0)` (128-byte swizzle, `SBO` 1024 bytes = 64
/// units, `LBO` 1; the tests check it against `make_gmma_desc`). A constant, as building it is
/// host-side layout algebra.
pub const DESC_K_SW128_64X16: GmmaDescriptor = GmmaDescriptor(1 << 62 | 64 << 32 | 1 << 16);

/// The probe: one warpgroup of 128 threads computes `D = A B^T` (see the module).
#[inline(always)]
pub fn wgmma_probe(
    kind: HalfKind,
    a: Gmem<'_, u32>,
    b: Gmem<'_, u32>,
    d: GmemMut<'_, f32>,
    smem: SmemRegion,
) {
    if a.len() < 2048 || b.len() < 2048 || d.len() < 4096 {
        fault("wgmma_probe: A and B need 2048 words, D 4096 values");
    }
    let t = thread_idx().x as usize;
    if t >= 128 {
        fault("wgmma_probe: one warpgroup");
    }
    // The tiles 1024-byte aligned, as the 128-byte swizzle repeats every 1024 bytes.
    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("wgmma_probe: no shared memory");
    };
    let pad = (1024 - first.address(0) % 1024) % 1024;
    let (Some(sa), Some(sb)) = (smem.array::<u32, 2048>(pad), smem.array::<u32, 2048>(pad + 8192)) else {
        fault("wgmma_probe: the block has less shared memory than SMEM_BYTES");
    };
    let tile =
        swizzle::<3, 3, 3, _>(tile_to_shape(<layout_type!((8, 64):(64, 1))>::default(), (C::<64>, C::<64>)));
    for i in 0..16 {
        let w = t + 128 * i; // word w of the row-major 64x64 halves: row w / 32, halves 2 (w % 32) on
        let at = tile.crd2idx((w / 32, 2 * (w % 32))) as usize / 2;
        sa.store(at, a.load(w));
        sb.store(at, b.load(w));
    }
    crate::backend::fence_proxy_async_shared();
    sync_threads();
    let (da, db) =
        (DESC_K_SW128_64X16.advanced(sa.address(0) >> 4), DESC_K_SW128_64X16.advanced(sb.address(0) >> 4));
    // k blocks of 16 halves, 32 bytes (2 units) apart.
    let descs = |d: GmmaDescriptor| [0, 2, 4, 6].map(|u| d.advanced(u).0);
    let mut acc = [0f32; 32];
    // SAFETY: every thread of the warpgroup (the block, checked above) reaches this call with no
    // branch open; the descriptors are of the two tiles written above, inside the region, fenced
    // for the async proxy before the barrier.
    unsafe {
        crate::backend::wgmma_64x64x64_f32(kind, descs(da), descs(db), &mut acc, crate::backend::site())
    };
    let c = CLayout_64xN::<64>::default();
    crate::unroll!(v in 0..32 => {
        d.store(c.crd2idx((t, v)) as usize, acc[v]); // m + 64 n: D's column-major offset
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::atom::gmma::{Major, layout_atom, make_gmma_desc};
    use const_layout::swizzle::ComposedLayout;

    #[test]
    fn the_descriptor_is_make_gmma_descs() {
        let atom = layout_atom(Major::K, const_layout::atom::gmma::LayoutType::B128, 16).unwrap();
        let const_layout::swizzle::Outer::Swizzle(sw) = *atom.outer() else { panic!("{atom}") };
        let block = ComposedLayout::new(sw, "((_8,_8),_16):((_64,_512),_1)".parse().unwrap());
        assert_eq!(make_gmma_desc(Major::K, &block, 16, 0).unwrap(), DESC_K_SW128_64X16);
    }
}
