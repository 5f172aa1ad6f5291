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
use const_layout::algebra::computed::{swizzle, tile_to_shape};
use const_layout::atom::gmma::{CLayout_64xN, GmmaDescriptor};
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

/// Shared memory of [`wgmma_batch_probe`]: `A` (8 KiB), `B` (up to 32 KiB), and room to align
/// them to 1024 bytes.
pub const BATCH_SMEM_BYTES: u32 = 8192 + 32768 + 1024;

/// [`wgmma_batch_probe`]'s flags: `A` from registers (RS) rather than shared memory (SS).
pub const BATCH_RS: u32 = 1;
/// [`wgmma_batch_probe`]'s flags: `B` MN-major (stored as attention's `V`, `imm-trans-b` 1).
pub const BATCH_B_MN: u32 = 2;
/// [`wgmma_batch_probe`]'s flags: the first instruction accumulates on `C` (`scale_d`), rather than
/// overwriting whatever `D` held.
pub const BATCH_SCALE_D: u32 = 4;

/// The probe of the general interface ([`crate::wgmma::Batch`]): one warpgroup computes `D = A
/// B^T (+ C)` for `A` 64 x 64 (row-major, 2048 words), `B` `n` x 64 (`n` = 64, 128 or 256),
/// given row-major as `n x 64` (K-major) or, with [`BATCH_B_MN`], as `V`: 64 keys x `n` (row-major,
/// `v[key][j] = B(j, key)`), written to shared memory as TMA writes `V` (stages of 64 keys x 64
/// halves side by side, 128-byte swizzle) and read MN-major by [`SmemDesc::mn_sw128`](crate::wgmma::SmemDesc::mn_sw128);
/// `A` from shared memory or, with [`BATCH_RS`], from registers by `ALayout_64x16`; `C` and `D` 64 x
/// `n` `f32` column-major. Four `wgmma`s (one a k block) in one batch, committed, then
/// `wait::<0>`; the first with `scale_d` as [`BATCH_SCALE_D`] says (without it `D`'s registers
/// start as NaN, so an instruction that adds instead of overwriting shows). `tools/gpu/wgmma_probe.py`
/// runs every combination on the GPU against NumPy; the tests run it on the emulator.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, Gmem, GmemMut, HalfKind, SmemRegion};
/// use const_layout_device::wgmma_probe::{self, BATCH_B_MN, BATCH_RS};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// // A = 1.0, V = 2.0 (64 keys x 128): every value of D is 64 * 2 = 128.
/// let a: Vec<AtomicU32> = (0..2048).map(|_| AtomicU32::new(0x3c00_3c00)).collect();
/// let b: Vec<AtomicU32> = (0..4096).map(|_| AtomicU32::new(0x4000_4000)).collect();
/// let c: Vec<AtomicU32> = (0..8192).map(|_| AtomicU32::new(0)).collect();
/// let d: Vec<AtomicU32> = (0..8192).map(|_| AtomicU32::new(0)).collect();
/// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: wgmma_probe::BATCH_SMEM_BYTES };
/// launch(&cfg, || {
///     let (ga, gb, gc) = (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b), Gmem::<f32>::from_cells(&c));
///     let gd = GmemMut::<f32>::from_cells(&d);
///     wgmma_probe::wgmma_batch_probe(HalfKind::F16, BATCH_RS | BATCH_B_MN, 128, ga, gb, gc, gd, SmemRegion::dynamic());
/// })
/// .unwrap();
/// assert!(d.iter().all(|x| f32::from_bits(x.load(Ordering::Relaxed)) == 128.0));
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn wgmma_batch_probe(
    kind: HalfKind,
    flags: u32,
    n: u32,
    a: Gmem<'_, u32>,
    b: Gmem<'_, u32>,
    c: Gmem<'_, f32>,
    d: GmemMut<'_, f32>,
    smem: SmemRegion,
) {
    match n {
        64 => batch_probe::<32>(kind, flags, a, b, c, d, smem),
        128 => batch_probe::<64>(kind, flags, a, b, c, d, smem),
        256 => batch_probe::<128>(kind, flags, a, b, c, d, smem),
        _ => fault("wgmma_batch_probe: n is 64, 128 or 256"),
    }
}

#[inline(always)]
fn batch_probe<const R: usize>(
    kind: HalfKind,
    flags: u32,
    a: Gmem<'_, u32>,
    b: Gmem<'_, u32>,
    c: Gmem<'_, f32>,
    d: GmemMut<'_, f32>,
    smem: SmemRegion,
) where
    (): crate::wgmma::Accumulators<R>,
{
    use crate::wgmma::{self, SmemDesc};
    use const_layout::atom::gmma::ALayout_64x16;
    let n = 2 * R;
    if a.len() < 2048 || b.len() < 32 * n || c.len() < 64 * n || d.len() < 64 * n {
        fault("wgmma_batch_probe: A needs 2048 words, B 32 n, C and D 64 n values");
    }
    let t = thread_idx().x as usize;
    if t >= 128 {
        fault("wgmma_batch_probe: one warpgroup");
    }
    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("wgmma_batch_probe: no shared memory");
    };
    let pad = (1024 - first.address(0) % 1024) % 1024;
    let (Some(sa), Some(sb)) = (smem.array::<u32, 2048>(pad), smem.array::<u32, 8192>(pad + 8192)) else {
        fault("wgmma_batch_probe: the block has less shared memory than BATCH_SMEM_BYTES");
    };
    let (rs, b_mn, scale_d) = (flags & BATCH_RS != 0, flags & BATCH_B_MN != 0, flags & BATCH_SCALE_D != 0);
    // K-major rows (A, and B unless MN-major): 16-byte chunk `c` of row `r` at `c ^ (r % 8)`.
    let tile =
        swizzle::<3, 3, 3, _>(tile_to_shape(<layout_type!((8, 64):(64, 1))>::default(), (C::<256>, C::<64>)));
    for i in 0..16 {
        let w = t + 128 * i; // word w of A: row w / 32, halves 2 (w % 32) on
        sa.store(tile.crd2idx((w / 32, 2 * (w % 32))) as usize / 2, a.load(w));
    }
    for w in (t..32 * n).step_by(128) {
        let at = if b_mn {
            // V's word w: key w / (n / 2), dims 2 (w % (n / 2)) on; stages of 64 keys x 64 dims.
            let (key, dim) = (w / (n / 2), 2 * (w % (n / 2)));
            tile.crd2idx((key, dim % 64)) as usize + 4096 * (dim / 64)
        } else {
            tile.crd2idx((w / 32, 2 * (w % 32))) as usize
        };
        sb.store(at / 2, b.load(w));
    }
    // RS: this thread's A values by ALayout_64x16 for each k block, from global memory.
    let al = ALayout_64x16::default();
    let half = |m: usize, k: usize| {
        let word = a.load(32 * m + k / 2);
        if k.is_multiple_of(2) { word & 0xffff } else { word >> 16 }
    };
    let frags: [[u32; 4]; 4] = core::array::from_fn(|kb| {
        core::array::from_fn(|j| {
            let at = |v: usize| {
                let i = al.crd2idx((t, v)) as usize;
                half(i % 64, 16 * kb + i / 64)
            };
            at(2 * j) | at(2 * j + 1) << 16
        })
    });
    // Every loop over the accumulators unrolled (`v` a constant), so they stay in registers.
    macro_rules! each_value {
        ($v:ident => $b:block) => {
            crate::unroll!(q in 0..4 => {
                if 32 * q < R {
                    crate::unroll!(j in 0..32 => { let $v = 32 * q + j; $b });
                }
            })
        };
    }
    let mut acc = [f32::NAN; R];
    if scale_d {
        each_value!(v => { acc[v] = c.load(c_offset::<R>(t, v)); });
    }
    crate::backend::fence_proxy_async_shared();
    sync_threads();
    let mut batch = wgmma::begin();
    crate::unroll!(kb in 0..4 => {
        let bd = if b_mn { SmemDesc::mn_sw128(sb, 64, kb) } else { SmemDesc::k_sw128(sb, n, 0, kb) };
        let sd = scale_d || kb > 0;
        if rs {
            batch.rs_f32(kind, frags[kb], bd, sd, &mut acc);
        } else {
            batch.ss_f32(kind, SmemDesc::k_sw128(sa, 64, 0, kb), bd, sd, &mut acc);
        }
    });
    batch.commit();
    wgmma::wait::<0, R>(&mut acc);
    each_value!(v => { d.store(c_offset::<R>(t, v), acc[v]); });
}

/// `m + 64 n` of value `v` of thread `t`: `CLayout_64xN<2R>`.
#[inline(always)]
fn c_offset<const R: usize>(t: usize, v: usize) -> usize {
    // CLayout_64xN<N> = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) for every N: the same formula.
    CLayout_64xN::<256>::default().crd2idx((t, v)) as usize
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
