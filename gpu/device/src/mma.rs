//! Tensor-core matrix multiply-accumulate (CuTe's `cute::arch` MMA operations): one warp's
//! `mma.sync` on the fragments whose layouts `const_layout::atom` gives.

use crate::backend;
use crate::types::HalfKind;

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
    let mut d = [[c]];
    backend::mma_m16n8k16_f32_grid(kind, &[a], &[b], &mut d, backend::site());
    d[0][0]
}

/// `MI x NI` tensor-core products of the warp, `c[i][j] = a[i] b[j] + c[i][j]`, each as
/// [`mma_m16n8k16_f32`]: CuTe's `gemm(mma, tCrA, tCrB, tCrC)` over a thread's fragments for one
/// `k` step (`MI` fragments of `A` along `m`, `NI` of `B` along `n`).
///
/// The warp is checked once for the whole batch, not once a product: on the GPU the shapes with
/// `MI` in 1, 2, 4 and `NI` in 1, 2, 4, 8 are one `asm!` block (the check, then the `MI * NI`
/// instructions), which saves three instructions a product and leaves the scheduler one block;
/// other shapes issue the products one by one, each checked.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, HalfKind, mma_m16n8k16_f32_grid};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
///     let a = [[0x3c00_3c00u32; 4]; 2]; // ones
///     let b = [[0x4000_4000u32; 2]; 2]; // twos
///     let mut c = [[[1f32; 4]; 2]; 2];
///     mma_m16n8k16_f32_grid(HalfKind::F16, &a, &b, &mut c);
///     assert!(c.iter().flatten().flatten().all(|&x| x == 33.0)); // 1 + 16 * 1 * 2
/// })
/// .unwrap();
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f32_grid<const MI: usize, const NI: usize>(
    kind: HalfKind,
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[f32; 4]; NI]; MI],
) {
    backend::mma_m16n8k16_f32_grid(kind, a, b, c, backend::site())
}

/// CUDA's `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`: the warp's 16x8 tile `D = A B +
/// C` with `f16` inputs and `f16` accumulators (CuTe's `SM80_16x8x16_F16F16F16F16_TN`): `a` and
/// `b` as in [`mma_m16n8k16_f32`], `c` and the result as two words of two halves each (values 0
/// and 1 of the atom's `C` layout in the first word, low half first, 2 and 3 in the second).
/// The emulator computes each value in double precision and rounds it once to `f32`, then to
/// `f16` (exact for the small integers the tests use; the hardware's rounding of wide sums is
/// not specified to the bit).
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, HalfKind, mma_m16n8k16_f16, unpack_half2};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
///     let (ones, twos) = ([0x3c00_3c00u32; 4], [0x4000_4000u32; 2]);
///     let d = mma_m16n8k16_f16(ones, twos, [0x3c00_3c00; 2]); // C = 1
///     assert_eq!(unpack_half2(HalfKind::F16, d[0]), [33.0, 33.0]);
/// })
/// .unwrap();
/// ```
///
/// All 32 lanes of the warp must execute this call together, which is checked as for
/// [`mma_m16n8k16_f32`].
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [u32; 2]) -> [u32; 2] {
    let mut d = [[c]];
    backend::mma_m16n8k16_f16_grid(&[a], &[b], &mut d, backend::site());
    d[0][0]
}

/// [`mma_m16n8k16_f16`] over an `MI x NI` grid of fragments, the warp checked once for the batch,
/// as [`mma_m16n8k16_f32_grid`].
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{Dim3, HalfKind, mma_m16n8k16_f16_grid, unpack_half2};
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
///     let mut c = [[[0u32; 2]; 4]; 1];
///     mma_m16n8k16_f16_grid(&[[0x3c00_3c00; 4]], &[[0x4000_4000; 2]; 4], &mut c);
///     assert!(c.iter().flatten().flatten().all(|&w| unpack_half2(HalfKind::F16, w) == [32.0, 32.0]));
/// })
/// .unwrap();
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f16_grid<const MI: usize, const NI: usize>(
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[u32; 2]; NI]; MI],
) {
    backend::mma_m16n8k16_f16_grid(a, b, c, backend::site())
}

/// Two `f32` rounded to nearest even to 16 bits of `kind` and packed in one word, `lo` in the low
/// half (`cvt.rn.f16x2.f32` on the GPU).
///
/// ```
/// use const_layout_device::{HalfKind, pack_half2};
/// assert_eq!(pack_half2(HalfKind::F16, 1.0, -2.0), 0xc000_3c00);
/// assert_eq!(pack_half2(HalfKind::BF16, 1.0, 0.5), 0x3f00_3f80);
/// ```
#[inline(always)]
pub fn pack_half2(kind: HalfKind, lo: f32, hi: f32) -> u32 {
    backend::pack_half2(kind, lo, hi)
}

/// The two 16-bit values of kind `kind` in a word, as `f32` (exact), low half first.
///
/// ```
/// use const_layout_device::{HalfKind, unpack_half2};
/// assert_eq!(unpack_half2(HalfKind::F16, 0xc000_3c00), [1.0, -2.0]);
/// assert_eq!(unpack_half2(HalfKind::BF16, 0x3f00_3f80), [1.0, 0.5]);
/// ```
#[inline(always)]
pub fn unpack_half2(kind: HalfKind, w: u32) -> [f32; 2] {
    backend::unpack_half2(kind, w)
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

/// `v` as 16 bits of the given kind, rounded to nearest, ties to even (CUDA's `__float2half_rn`
/// and `__float2bfloat16_rn`): what a host puts in a kernel's `f16`/`bf16` inputs. Overflow gives
/// infinity and NaN stays NaN.
///
/// ```
/// use const_layout_device::{f32_to_half, half_to_f32, HalfKind};
/// assert_eq!(f32_to_half(HalfKind::F16, 1.0), 0x3c00);
/// assert_eq!(f32_to_half(HalfKind::F16, -2.5), 0xc100);
/// assert_eq!(f32_to_half(HalfKind::F16, 1e6), 0x7c00); // past 65504: infinity
/// assert_eq!(f32_to_half(HalfKind::BF16, 1.0), 0x3f80);
/// // 1 + 2^-11 is halfway between two halves: ties to even, 1.0.
/// assert_eq!(half_to_f32(HalfKind::F16, f32_to_half(HalfKind::F16, 1.0 + 2f32.powi(-11))), 1.0);
/// ```
pub fn f32_to_half(kind: HalfKind, v: f32) -> u16 {
    let x = v.to_bits();
    // Round `value` (already shifted) up by the `shift` bits dropped below it, ties to even.
    let round = |value: u32, dropped: u32, shift: u32| -> u32 {
        let half = 1 << (shift - 1);
        if dropped > half || (dropped == half && value & 1 == 1) { value + 1 } else { value }
    };
    match kind {
        HalfKind::BF16 => {
            if v.is_nan() {
                return ((x >> 16) | 0x40) as u16;
            }
            round(x >> 16, x & 0xffff, 16) as u16
        }
        HalfKind::F16 => {
            let sign = (x >> 16) & 0x8000;
            let exp = ((x >> 23) & 0xff) as i32;
            let mant = x & 0x7f_ffff;
            if exp == 0xff {
                return (sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 }) as u16;
            }
            let e = exp - 127 + 15;
            if e >= 0x1f {
                return (sign | 0x7c00) as u16;
            }
            if e <= 0 {
                // Subnormal (or zero): the implicit 1 joins the fraction, shifted right.
                if e < -10 {
                    return sign as u16;
                }
                let m = mant | 0x80_0000;
                let shift = (14 - e) as u32;
                return (sign | round(m >> shift, m & ((1 << shift) - 1), shift)) as u16;
            }
            // A carry out of the fraction moves into the exponent, as it should (up to infinity).
            (sign | round((e as u32) << 10 | mant >> 13, mant & 0x1fff, 13)) as u16
        }
    }
}
