//! Tensor-core matrix multiply-accumulate (CuTe's `cute::arch` MMA operations): one warp's
//! `mma.sync` on the fragments whose layouts `const_layout::atom` gives.

/// The element type of `A` and `B` in [`mma_m16n8k16_f32`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfKind {
    /// IEEE half precision (`.f16`).
    F16,
    /// bfloat16 (`.bf16`).
    BF16,
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.f32`: the warp computes its 16x8 tile
/// `D = A B + C` with `A` 16x16, `B` 8x16 (both `k`-contiguous: CuTe's `TN`), in 32-bit
/// accumulators. Each lane passes its fragments in the layouts of
/// [`SM80_16x8x16_F32F16F16F32_TN`](const_layout::atom::SM80_16x8x16_F32F16F16F32_TN): register
/// `a[r]` holds `A` values `2r` and `2r + 1` of the lane (low half first), `b[r]` values `2r`,
/// `2r + 1` of `B`, and `c[v]`/the result value `v` of `C`/`D`.
///
/// The emulator sums `C` and the 16 products in double precision and rounds once to `f32` (the
/// hardware's order and internal precision are unspecified; the two agree wherever the sum is
/// exact in both, as for the tests' small integers).
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{mma_m16n8k16_f32, thread_idx, Dim3, GmemMut, HalfKind};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// // A = all 1.0 (0x3c00), B = all 2.0 (0x4000): every D is 16 * 2 + C.
/// let out: Vec<AtomicU32> = (0..128).map(|_| AtomicU32::new(0)).collect();
/// let g = GmemMut::<f32>::from_cells(&out);
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
///     let a = [0x3c00_3c00u32; 4];
///     let b = [0x4000_4000u32; 2];
///     let d = mma_m16n8k16_f32(HalfKind::F16, a, b, [1.0; 4]);
///     let lane = thread_idx().x as usize;
///     for v in 0..4 {
///         g.store(4 * lane + v, d[v]);
///     }
/// })
/// .unwrap();
/// assert!(out.iter().all(|w| f32::from_bits(w.load(Ordering::Relaxed)) == 33.0));
/// ```
///
/// All 32 lanes of the warp must execute this call together (PTX's `.sync.aligned`). That is
/// checked, not assumed, so the function is safe: on the GPU a lane that reaches it while the warp
/// is diverged traps, ending the kernel with an error as [`fault`](crate::fault) does (three
/// instructions before the `mma`); the emulator reports a partial warp, or lanes calling it from
/// different places.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f32(kind: HalfKind, a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    #[cfg(target_arch = "nvptx64")]
    return crate::arch::mma_m16n8k16_f32(a, b, c, kind == HalfKind::BF16);
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::emu::mma_m16n8k16_f32(kind, a, b, c, core::panic::Location::caller());
}

/// The value of 16 bits of the given kind (the emulator's conversion; exact).
///
/// ```
/// use const_layout_device::{half_to_f32, HalfKind};
/// assert_eq!(half_to_f32(HalfKind::F16, 0x3c00), 1.0);
/// assert_eq!(half_to_f32(HalfKind::F16, 0xc000), -2.0);
/// assert_eq!(half_to_f32(HalfKind::F16, 0x0001), 2f32.powi(-24)); // the least subnormal
/// assert!(half_to_f32(HalfKind::F16, 0x7c00).is_infinite());
/// assert_eq!(half_to_f32(HalfKind::BF16, 0x3f80), 1.0);
/// ```
pub fn half_to_f32(kind: HalfKind, bits: u16) -> f32 {
    match kind {
        HalfKind::BF16 => f32::from_bits((bits as u32) << 16),
        HalfKind::F16 => {
            let sign = ((bits as u32) & 0x8000) << 16;
            let exp = ((bits >> 10) & 0x1f) as u32;
            let frac = (bits & 0x3ff) as u32;
            match exp {
                // Subnormal: frac * 2^-24, exact in f32.
                0 => {
                    let v = frac as f32 * f32::from_bits((127 - 24) << 23);
                    if sign != 0 { -v } else { v }
                }
                0x1f => f32::from_bits(sign | 0x7f80_0000 | frac << 13),
                e => f32::from_bits(sign | (e + 127 - 15) << 23 | frac << 13),
            }
        }
    }
}
