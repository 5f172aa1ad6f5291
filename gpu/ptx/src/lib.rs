//! The PTX module of const-layout's GPU kernels: one `extern "ptx-kernel"` entry point per kernel
//! of `const-layout-kernels`, built for `nvptx64-nvidia-cuda` by `const-layout-builder`
//! (`tools/gpu/build-ptx.sh`) into one `.ptx` file.
//!
//! The crate is a *kernel crate* as a user would write one. Its entry points are written with
//! [`kernel!`](const_layout_device::kernel): on the GPU each is a PTX entry point, on the host a
//! function the emulator runs, and on both an [`Entry`] declares its name and parameters for the
//! launcher (`gpu/launcher`, through `const-layout-launch`). A tensor parameter (checked by the
//! host's `TensorParam::new`, as [`In`] or [`Out`]) reaches the body as a tensor. The Hopper GEMM
//! (its TMA tensor maps) and the device layer's probes (raw addresses) are written by hand, GPU
//! only, in `entry_points`, with their `Entry`s below.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
// An entry point's parameter list is its ABI: spelled out in full where it is declared.
#![allow(clippy::type_complexity)]

use const_layout::C;
use const_layout_device::abi::{Entry, In, Out, TensorMapRef};
use const_layout_device::{HalfKind, SmemRegion, TensorParam, static_shared};
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use const_layout_kernels::{copy, hgemm, sgemm, transpose};

/// An HGEMM with `f32` accumulators: the element kind as a constant in each branch (the body is
/// inlined into both), so that no `mma.sync` waits on a branch.
macro_rules! hgemm_f32 {
    ($gemm:path, $ta:expr, $tb:expr, $tc:expr, $alpha:expr, $beta:expr, $bf16:expr) => {{
        let smem = SmemRegion::dynamic();
        if $bf16 != 0 {
            $gemm(F32Accum(HalfKind::BF16), $ta, $tb, $tc, $alpha, $beta, smem)
        } else {
            $gemm(F32Accum(HalfKind::F16), $ta, $tb, $tc, $alpha, $beta, smem)
        }
    }};
}
#[cfg(target_arch = "nvptx64")]
pub(crate) use hgemm_f32;

mod attention;
#[cfg(target_arch = "nvptx64")]
mod entry_points;

pub use attention::{
    ATTENTION_SM90_CONFIG, ATTENTION_SM90_D64, ATTENTION_SM90_D128, ATTENTION_SM90_D256, AttentionParams,
    HeadF32, HeadWords,
};

/// An `f32` matrix with runtime extents and leading dimension, column-major: `(m,n):(_1,ld)`.
pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
/// An `f32` matrix with runtime extents and leading dimension, row-major: `(m,n):(ld,_1)`.
pub type RowMajor = TensorParam<f32, (u32, u32), (u32, C<1>)>;
/// 16-bit halves, two to a 32-bit word, rows contiguous: `(rows, words):(ld,_1)` (an HGEMM's
/// `k`-contiguous operand of `k = 2 words`, or an `f16` `C` of `n = 2 words` columns).
pub type RowWords = TensorParam<u32, (u32, u32), (u32, C<1>)>;
/// 16-bit halves, two to a 32-bit word along mode 0, columns contiguous: `(words, cols):(_1,ld)`
/// (an HGEMM's `m`- or `n`-contiguous operand of `2 words` rows).
pub type ColWords = TensorParam<u32, (u32, u32), (C<1>, u32)>;
/// The 16 words `hgemm_sm90_config` writes.
pub type ConfigWords = TensorParam<u32, C<16>, C<1>>;

const_layout_device::kernel! {
    /// `copy_f32(src, dst)`: [`copy`](const_layout_kernels::copy) between two column-major `f32`
    /// matrices of one shape.
    #[entry(COPY_F32)]
    pub fn copy_f32(src: In<ColMajor>, dst: Out<ColMajor>) {
        copy::copy(src, dst)
    }

    /// `transpose_f32(src, dst)`: [`transpose`](const_layout_kernels::transpose), a row-major `src`
    /// into a column-major `dst` of the same shape, through a static shared array of
    /// [`transpose::SMEM_BYTES`].
    #[entry(TRANSPOSE_F32)]
    pub fn transpose_f32(src: In<RowMajor>, dst: Out<ColMajor>) {
        let smem: SmemRegion = static_shared!(transpose_tile, const_layout_kernels::transpose::SMEM_BYTES);
        transpose::transpose(src, dst, smem)
    }

    /// `sgemm_nt_f32(a, b, c, alpha, beta)`: [`sgemm`](const_layout_kernels::sgemm), `a` (m,k) and
    /// `b` (n,k) column-major, `c` (m,n), in the launch's dynamic shared memory
    /// ([`sgemm::SMEM_BYTES`]). Two blocks of 256 threads per multiprocessor (CUDA's
    /// `__launch_bounds__(256, 2)`): at most 128 registers a thread.
    #[entry(SGEMM_NT_F32)]
    #[launch_bounds(sgemm::THREADS, 2)]
    pub fn sgemm_nt_f32(a: In<ColMajor>, b: In<ColMajor>, c: Out<ColMajor>, alpha: f32, beta: f32) {
        sgemm::sgemm(a, b, c, alpha, beta, SmemRegion::dynamic())
    }

    /// `sgemm_tn_f32(a, b, c, alpha, beta)`: as [`SGEMM_NT_F32`] with `a`, `b` row-major (`k`
    /// contiguous).
    #[entry(SGEMM_TN_F32)]
    #[launch_bounds(sgemm::THREADS, 2)]
    pub fn sgemm_tn_f32(a: In<RowMajor>, b: In<RowMajor>, c: Out<ColMajor>, alpha: f32, beta: f32) {
        sgemm::sgemm(a, b, c, alpha, beta, SmemRegion::dynamic())
    }

    /// `hgemm_tn_f32(a, b, c, alpha, beta, bf16)`: [`hgemm_tn`](const_layout_kernels::hgemm::hgemm_tn)
    /// with `f32` accumulators: `a` (m, k/2) and `b` (n, k/2) words of `f16` (`bf16 == 0`) or `bf16`
    /// halves, `k` a multiple of 8, `c` (m, n) `f32`, in the launch's dynamic shared memory
    /// ([`hgemm::SMEM_BYTES`]); two blocks of 128 threads a multiprocessor.
    #[entry(HGEMM_TN_F32)]
    #[launch_bounds(hgemm::THREADS, 2)]
    pub fn hgemm_tn_f32(a: In<RowWords>, b: In<RowWords>, c: Out<ColMajor>, alpha: f32, beta: f32, bf16: u32) {
        hgemm_f32!(hgemm::hgemm_tn, a, b, c, alpha, beta, bf16)
    }

    /// `hgemm_nt_f32(a, b, c, alpha, beta, bf16)`: as [`HGEMM_TN_F32`] with `a` (m/2, k) and `b`
    /// (n/2, k) words, `m` and `n` contiguous (multiples of 8).
    #[entry(HGEMM_NT_F32)]
    #[launch_bounds(hgemm::THREADS, 2)]
    pub fn hgemm_nt_f32(a: In<ColWords>, b: In<ColWords>, c: Out<ColMajor>, alpha: f32, beta: f32, bf16: u32) {
        hgemm_f32!(hgemm::hgemm_nt, a, b, c, alpha, beta, bf16)
    }

    /// `hgemm_tn_f16(a, b, c, alpha, beta)`: `f16` inputs and accumulators (CuTe's `sgemm_sm80.cu`
    /// types), `a`, `b` as [`HGEMM_TN_F32`], `c` (m, n/2) words of halves, row-major.
    #[entry(HGEMM_TN_F16)]
    #[launch_bounds(hgemm::THREADS, 2)]
    pub fn hgemm_tn_f16(a: In<RowWords>, b: In<RowWords>, c: Out<RowWords>, alpha: f32, beta: f32) {
        hgemm::hgemm_tn(F16Accum, a, b, c, alpha, beta, SmemRegion::dynamic())
    }

    /// `hgemm_nt_f16(a, b, c, alpha, beta)`: as [`HGEMM_TN_F16`] with `a`, `b` as
    /// [`HGEMM_NT_F32`].
    #[entry(HGEMM_NT_F16)]
    #[launch_bounds(hgemm::THREADS, 2)]
    pub fn hgemm_nt_f16(a: In<ColWords>, b: In<ColWords>, c: Out<RowWords>, alpha: f32, beta: f32) {
        hgemm::hgemm_nt(F16Accum, a, b, c, alpha, beta, SmemRegion::dynamic())
    }
}

/// `hgemm_sm90_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn)), `a`, `b`, `c` as
/// [`HGEMM_TN_F32`] (row pitches multiples of 16 bytes), loaded by TMA through `map_a`, `map_b`:
/// tensor maps of `a` and `b` as 16-bit tensors `{k, rows}` with the boxes
/// [`hgemm_sm90::a_box`](const_layout_kernels::hgemm_sm90::a_box) and `b_box`.
pub const HGEMM_SM90_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_tn_f32");
/// `hgemm_sm90_tn_f16(a, b, c, map_a, map_b, alpha, beta)`: as [`HGEMM_SM90_TN_F32`] with `f16`
/// accumulators and `c` as [`HGEMM_TN_F16`]'s.
pub const HGEMM_SM90_TN_F16: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<RowWords>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
)> = Entry::new("hgemm_sm90_tn_f16");
/// `hgemm_sm90_config(out)`: what the host needs to launch the Hopper GEMM, 16 words: `A`'s TMA
/// box (inner and outer extents, element bits, `CUtensorMapSwizzle`), `B`'s, the block's threads,
/// its dynamic shared memory, the tile (`BM`, `BN`), `RASTER` and three zeros. One thread.
pub const HGEMM_SM90_CONFIG: Entry<(Out<ConfigWords>,)> = Entry::new("hgemm_sm90_config");
/// `hgemm_sm90_c128x256s4_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// the default configuration's (`C128x256S4`: the same kernel as [`HGEMM_SM90_TN_F32`]); parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C128X256S4_CONFIG`] reports.
pub const HGEMM_SM90_C128X256S4_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c128x256s4_tn_f32");
/// `hgemm_sm90_c128x256s4_config(out)`: what the host needs to launch [`HGEMM_SM90_C128X256S4_TN_F32`], 16
/// words: `A`'s TMA box (inner and outer extents, element bits, `CUtensorMapSwizzle`), `B`'s, the
/// block's threads, its dynamic shared memory, the tile (`BM`, `BN`), then `RASTER`, whether
/// blocks are persistent (1) or one a tile (0), the stages and the consumer warpgroups. One thread.
pub const HGEMM_SM90_C128X256S4_CONFIG: Entry<(Out<ConfigWords>,)> =
    Entry::new("hgemm_sm90_c128x256s4_config");
/// `hgemm_sm90_c128x256s4p_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C128x256S4P`: 128 x 256 tiles, 4 stages, two consumer warpgroups, persistent blocks; parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C128X256S4P_CONFIG`] reports (a persistent grid: at most one block a multiprocessor, `grid_for`).
pub const HGEMM_SM90_C128X256S4P_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c128x256s4p_tn_f32");
/// `hgemm_sm90_c128x256s4p_config(out)`: [`HGEMM_SM90_C128X256S4P_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C128X256S4P_CONFIG: Entry<(Out<ConfigWords>,)> =
    Entry::new("hgemm_sm90_c128x256s4p_config");
/// `hgemm_sm90_c128x128s6_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C128x128S6`: 128 x 128 tiles, 6 stages, two consumer warpgroups of 64 x 128; parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C128X128S6_CONFIG`] reports.
pub const HGEMM_SM90_C128X128S6_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c128x128s6_tn_f32");
/// `hgemm_sm90_c128x128s6_config(out)`: [`HGEMM_SM90_C128X128S6_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C128X128S6_CONFIG: Entry<(Out<ConfigWords>,)> =
    Entry::new("hgemm_sm90_c128x128s6_config");
/// `hgemm_sm90_c128x128s6p_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C128x128S6P`: `C128x128S6` with persistent blocks; parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C128X128S6P_CONFIG`] reports (a persistent grid: at most one block a multiprocessor, `grid_for`).
pub const HGEMM_SM90_C128X128S6P_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c128x128s6p_tn_f32");
/// `hgemm_sm90_c128x128s6p_config(out)`: [`HGEMM_SM90_C128X128S6P_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C128X128S6P_CONFIG: Entry<(Out<ConfigWords>,)> =
    Entry::new("hgemm_sm90_c128x128s6p_config");
/// `hgemm_sm90_c64x256s4_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C64x256S4`: 64 x 256 tiles, 4 stages, one consumer warpgroup; parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C64X256S4_CONFIG`] reports.
pub const HGEMM_SM90_C64X256S4_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c64x256s4_tn_f32");
/// `hgemm_sm90_c64x256s4_config(out)`: [`HGEMM_SM90_C64X256S4_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C64X256S4_CONFIG: Entry<(Out<ConfigWords>,)> = Entry::new("hgemm_sm90_c64x256s4_config");
/// `hgemm_sm90_c64x128s8_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C64x128S8`: 64 x 128 tiles, 8 stages, one consumer warpgroup; parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C64X128S8_CONFIG`] reports.
pub const HGEMM_SM90_C64X128S8_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c64x128s8_tn_f32");
/// `hgemm_sm90_c64x128s8_config(out)`: [`HGEMM_SM90_C64X128S8_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C64X128S8_CONFIG: Entry<(Out<ConfigWords>,)> = Entry::new("hgemm_sm90_c64x128s8_config");
/// `hgemm_sm90_c256x128s4_tn_f32(a, b, c, map_a, map_b, alpha, beta, bf16)`: the Hopper GEMM
/// ([`hgemm_sm90_tn_with`](const_layout_kernels::hgemm_sm90::hgemm_sm90_tn_with)) under
/// `C256x128S4`: 256 x 128 tiles, 4 stages, two consumer warpgroups of 128 x 128 (two `m64n128` `wgmma`s a k block); parameters as [`HGEMM_SM90_TN_F32`], the boxes, block, shared memory and grid
/// those [`HGEMM_SM90_C256X128S4_CONFIG`] reports.
pub const HGEMM_SM90_C256X128S4_TN_F32: Entry<(
    In<RowWords>,
    In<RowWords>,
    Out<ColMajor>,
    TensorMapRef,
    TensorMapRef,
    f32,
    f32,
    u32,
)> = Entry::new("hgemm_sm90_c256x128s4_tn_f32");
/// `hgemm_sm90_c256x128s4_config(out)`: [`HGEMM_SM90_C256X128S4_TN_F32`]'s launch words, as
/// [`HGEMM_SM90_C128X256S4_CONFIG`]'s.
pub const HGEMM_SM90_C256X128S4_CONFIG: Entry<(Out<ConfigWords>,)> =
    Entry::new("hgemm_sm90_c256x128s4_config");
/// `mma_probe(a, b, c, d, bf16, lanes)`: the device layer's `ldmatrix` and `mma.sync` check (raw
/// device addresses; run by `tools/gpu/mma_probe.py`).
pub const MMA_PROBE: Entry<(u64, u64, u64, u64, u32, u32)> = Entry::new("mma_probe");
/// `wgmma_probe(a, b, d, bf16)`: the device layer's `wgmma` check (`tools/gpu/wgmma_probe.py`).
pub const WGMMA_PROBE: Entry<(u64, u64, u64, u32)> = Entry::new("wgmma_probe");
/// `wgmma_batch_probe(a, b, c, d, bf16, flags, n)`: the device layer's general `wgmma` check
/// (`wgmma::Batch`: SS and RS, B K-major and MN-major, `scale_d`; `tools/gpu/wgmma_probe.py`).
pub const WGMMA_BATCH_PROBE: Entry<(u64, u64, u64, u64, u32, u32, u32)> = Entry::new("wgmma_batch_probe");
/// `tma_probe(map, src, words, cfg, out)`: the device layer's TMA loads of rank 3 and 4 through a
/// host-encoded map (`tools/gpu/tma_probe.py`).
pub const TMA_PROBE: Entry<(u64, u64, u32, u64, u64)> = Entry::new("tma_probe");
/// `bank_probe(addrs, n, bytes, out)`: one warp's shared loads at given addresses, for Nsight
/// Compute (`tools/gpu/bank_probe.py`).
pub const BANK_PROBE: Entry<(u64, u32, u32, u64)> = Entry::new("bank_probe");
/// `layer_probe(input, xs, batch, out, blocks, math, atomics)`: the device layer's warp, math,
/// atomic, barrier, tensor and shared-memory primitives on the hardware (raw device addresses; run
/// by `tools/gpu/layer_probe.py`).
pub const LAYER_PROBE: Entry<(u64, u64, u64, u64, u64, u64, u64)> = Entry::new("layer_probe");
