//! The entry points (nvptx64 only): each turns its parameters into tensors and calls a kernel
//! body of `const-layout-kernels`. Every `unsafe` block here relies on the launch contract of the
//! crate's `Entry` declarations: tensor parameters built by `TensorParam::new` for allocations
//! alive until the launch completes, inputs ([`In`]) unwritten by the launch, outputs ([`Out`])
//! overlapping no other tensor of it, tensor maps encoded for exactly their tensor and the box the
//! kernel reports.

use crate::{ColMajor, ConfigWords, RowWords, hgemm_f32};
use const_layout_device::abi::{In, Out, TensorMapRef};
use const_layout_device::tma::TmaTensor2d;
use const_layout_device::{Gmem, GmemMut, HalfKind, SmemRegion, fault, launch_bounds, static_shared};
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use const_layout_kernels::hgemm_sm90::{self, Sm90Config};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    const_layout_device::fault("panic")
}

/// A Hopper GEMM operand: the words of `x` as a 16-bit TMA tensor `{2 words, rows}` of pitch
/// `2 ld` halves, loaded through `map` in boxes of `boxd`.
///
/// # Safety
/// `x`'s contract is [`In::memory`]'s, and `map` was encoded for exactly this tensor and box.
#[inline(always)]
unsafe fn tma_operand<'a>(
    x: In<RowWords>,
    map: TensorMapRef,
    boxd: const_layout::atom::tma::TmaBox,
) -> TmaTensor2d<'a> {
    let l = x.param().layout();
    let ((rows, words), ld) = (l.shape(), l.stride().0);
    let (Some(cols), Some(pitch)) = (words.checked_mul(2), ld.checked_mul(2)) else {
        fault("hgemm_sm90: an operand of 2^31 words or more a row");
    };
    // SAFETY: the caller's contract.
    match unsafe { TmaTensor2d::new(map.address(), x.memory(), rows, cols, pitch, boxd) } {
        Some(t) => t,
        None => fault("hgemm_sm90: k is not a multiple of 8, or a tensor map is misaligned"),
    }
}

launch_bounds!(hgemm_sm90_tn_f32, hgemm_sm90::THREADS, 1);
launch_bounds!(hgemm_sm90_tn_f16, hgemm_sm90::THREADS, 1);

/// [`hgemm_sm90::hgemm_sm90_tn`] with `f32` accumulators and `f16` (`bf16 == 0`) or `bf16`
/// inputs, loaded by TMA through `map_a` and `map_b`; in the launch's dynamic shared memory
/// ([`hgemm_sm90::SMEM_BYTES`]), blocks of [`hgemm_sm90::THREADS`], on the grid
/// [`hgemm_sm90::grid`].
///
/// # Safety
/// The launch contract (see the module), and `map_a`, `map_b` are tensor maps of `a` and `b` with the boxes
/// [`hgemm_sm90::a_box`] and [`hgemm_sm90::b_box`] (see [`crate::HGEMM_SM90_TN_F32`]).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn hgemm_sm90_tn_f32(
    a: In<RowWords>,
    b: In<RowWords>,
    c: Out<ColMajor>,
    map_a: TensorMapRef,
    map_b: TensorMapRef,
    alpha: f32,
    beta: f32,
    bf16: u32,
) {
    // SAFETY: the launch contract, maps included.
    let (ta, tb, tc) = unsafe {
        (tma_operand(a, map_a, hgemm_sm90::a_box()), tma_operand(b, map_b, hgemm_sm90::b_box()), c.tensor())
    };
    hgemm_f32!(hgemm_sm90::hgemm_sm90_tn, ta, tb, tc, alpha, beta, bf16)
}

/// [`hgemm_sm90::hgemm_sm90_tn`] with `f16` inputs, accumulators and `c` (CuTe's
/// `wgmma_tma_sm90.cu` types).
///
/// # Safety
/// As [`hgemm_sm90_tn_f32`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn hgemm_sm90_tn_f16(
    a: In<RowWords>,
    b: In<RowWords>,
    c: Out<RowWords>,
    map_a: TensorMapRef,
    map_b: TensorMapRef,
    alpha: f32,
    beta: f32,
) {
    // SAFETY: as in `hgemm_sm90_tn_f32`.
    let (ta, tb, tc) = unsafe {
        (tma_operand(a, map_a, hgemm_sm90::a_box()), tma_operand(b, map_b, hgemm_sm90::b_box()), c.tensor())
    };
    hgemm_sm90::hgemm_sm90_tn(F16Accum, ta, tb, tc, alpha, beta, SmemRegion::dynamic())
}

/// Writes what the host needs to launch the Hopper GEMM (see [`crate::HGEMM_SM90_CONFIG`]). The
/// boxes come from the stages' layouts, so the host encodes its tensor maps with what the kernel's
/// shared memory expects. One thread.
///
/// # Safety
/// The launch contract (see the module).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_sm90_config(out: Out<ConfigWords>) {
    // SAFETY: the launch contract: `out` a checked parameter of a live allocation overlapping
    // nothing else.
    let o = unsafe { out.memory() };
    let (a, b) = (hgemm_sm90::a_box(), hgemm_sm90::b_box());
    o.store4(0, [a.inner, a.outer, a.element_bits, a.swizzle as u32]);
    o.store4(4, [b.inner, b.outer, b.element_bits, b.swizzle as u32]);
    let tile = [hgemm_sm90::BM as u32, hgemm_sm90::BN as u32];
    o.store4(8, [hgemm_sm90::THREADS, hgemm_sm90::SMEM_BYTES, tile[0], tile[1]]);
    o.store4(12, [hgemm_sm90::RASTER, 0, 0, 0]);
}

/// Writes configuration `Cfg`'s launch words (see [`crate::HGEMM_SM90_C128X256S4_CONFIG`]).
///
/// # Safety
/// The launch contract (see the module).
#[inline(always)]
unsafe fn sm90_config_words<Cfg: Sm90Config>(out: Out<ConfigWords>) {
    // SAFETY: the launch contract: `out` a checked parameter of a live allocation overlapping
    // nothing else.
    let o = unsafe { out.memory() };
    let (a, b) = (Cfg::a_box(), Cfg::b_box());
    o.store4(0, [a.inner, a.outer, a.element_bits, a.swizzle as u32]);
    o.store4(4, [b.inner, b.outer, b.element_bits, b.swizzle as u32]);
    o.store4(8, [Cfg::THREADS, Cfg::SMEM_BYTES, Cfg::BM as u32, Cfg::BN as u32]);
    o.store4(12, [Cfg::RASTER, Cfg::PERSISTENT as u32, Cfg::STAGES as u32, Cfg::CONSUMERS as u32]);
}

/// A configuration's two entry points (their `Entry`s are in the crate's root, written out for
/// the builder, which reads source and does not expand macros): `$gemm`, the Hopper GEMM under
/// `$cfg` with `f32` accumulators and `f16` or `bf16` inputs, and `$config`, its launch words.
macro_rules! sm90_config_entries {
    ($cfg:ident, $gemm:ident, $config:ident) => {
        launch_bounds!($gemm, <hgemm_sm90::$cfg as Sm90Config>::THREADS, 1);

        /// [`hgemm_sm90::hgemm_sm90_tn_with`] under the configuration named in the entry point's
        /// name, with `f32` accumulators and `f16` (`bf16 == 0`) or `bf16` inputs, loaded by TMA
        /// through `map_a` and `map_b`; in the launch's dynamic shared memory (the
        /// configuration's `SMEM_BYTES`), blocks of its `THREADS`, on the grid
        /// [`hgemm_sm90::grid_for`] gives.
        ///
        /// # Safety
        /// The launch contract (see the module), and `map_a`, `map_b` are tensor maps of `a` and
        /// `b` with the configuration's boxes.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $gemm(
            a: In<RowWords>,
            b: In<RowWords>,
            c: Out<ColMajor>,
            map_a: TensorMapRef,
            map_b: TensorMapRef,
            alpha: f32,
            beta: f32,
            bf16: u32,
        ) {
            type Cfg = hgemm_sm90::$cfg;
            // SAFETY: the launch contract, maps included.
            let (ta, tb, tc) = unsafe {
                (tma_operand(a, map_a, Cfg::a_box()), tma_operand(b, map_b, Cfg::b_box()), c.tensor())
            };
            hgemm_f32!(hgemm_sm90::hgemm_sm90_tn_with::<Cfg, _, _>, ta, tb, tc, alpha, beta, bf16)
        }

        /// Writes what the host needs to launch the configuration's entry point (16 words: the
        /// boxes, threads, shared memory, tile, raster, persistence, stages, consumers). One
        /// thread.
        ///
        /// # Safety
        /// The launch contract (see the module).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $config(out: Out<ConfigWords>) {
            // SAFETY: the launch contract.
            unsafe { sm90_config_words::<hgemm_sm90::$cfg>(out) }
        }
    };
}

sm90_config_entries!(C128x256S4, hgemm_sm90_c128x256s4_tn_f32, hgemm_sm90_c128x256s4_config);
sm90_config_entries!(C128x256S4P, hgemm_sm90_c128x256s4p_tn_f32, hgemm_sm90_c128x256s4p_config);
sm90_config_entries!(C128x128S6, hgemm_sm90_c128x128s6_tn_f32, hgemm_sm90_c128x128s6_config);
sm90_config_entries!(C128x128S6P, hgemm_sm90_c128x128s6p_tn_f32, hgemm_sm90_c128x128s6p_config);
sm90_config_entries!(C64x256S4, hgemm_sm90_c64x256s4_tn_f32, hgemm_sm90_c64x256s4_config);
sm90_config_entries!(C64x128S8, hgemm_sm90_c64x128s8_tn_f32, hgemm_sm90_c64x128s8_config);
sm90_config_entries!(C256x128S4, hgemm_sm90_c256x128s4_tn_f32, hgemm_sm90_c256x128s4_config);

/// The device layer's [`mma_probe`](const_layout_device::mma_probe::mma_probe): one warp computes
/// `d = a b^T + c` (16x16x16; `a`, `b` halves, two to a word, `f16` or, for `bf16 != 0`, `bf16`)
/// through `ldmatrix` and `mma.sync`; only the first `lanes` lanes reach those (32; fewer must
/// trap). Run by `tools/gpu/mma_probe.py`.
///
/// # Safety
/// `a` and `b` are 16-byte aligned device addresses of 128 readable words, `c` of 256 readable
/// `f32`, `d` of 256 writable `f32` overlapping none of them, all alive until the launch completes;
/// the launch is one block of 32 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn mma_probe(a: u64, b: u64, c: u64, d: u64, bf16: u32, lanes: u32) {
    // SAFETY: the contract above: aligned, live, sized as given; `d` overlaps no input.
    let (a, b, c, d) = unsafe {
        (
            Gmem::<u32>::from_raw(a, 128),
            Gmem::<u32>::from_raw(b, 128),
            Gmem::<f32>::from_raw(c, 256),
            GmemMut::<f32>::from_raw(d, 256),
        )
    };
    let smem: SmemRegion = static_shared!(mma_probe_tiles, const_layout_device::mma_probe::SMEM_BYTES);
    let kind = if bf16 != 0 { HalfKind::BF16 } else { HalfKind::F16 };
    const_layout_device::mma_probe::mma_probe(lanes as usize, kind, a, b, c, d, smem)
}

/// The device layer's [`wgmma_probe`](const_layout_device::wgmma_probe::wgmma_probe): one
/// warpgroup computes `d = a b^T` (64x64x64; `a`, `b` halves, two to a word, row-major, `f16` or,
/// for `bf16 != 0`, `bf16`; `d` `f32` column-major) with four `wgmma.m64n64k16` on 128-byte
/// swizzled shared tiles. Run by `tools/gpu/wgmma_probe.py`.
///
/// # Safety
/// `a` and `b` are 16-byte aligned device addresses of 2048 readable words, `d` of 4096 writable
/// `f32` overlapping neither, all alive until the launch completes; the launch is one block of 128
/// threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wgmma_probe(a: u64, b: u64, d: u64, bf16: u32) {
    // SAFETY: the contract above: aligned, live, sized as given; `d` overlaps no input.
    let (a, b, d) = unsafe {
        (Gmem::<u32>::from_raw(a, 2048), Gmem::<u32>::from_raw(b, 2048), GmemMut::<f32>::from_raw(d, 4096))
    };
    let smem: SmemRegion = static_shared!(wgmma_probe_tiles, const_layout_device::wgmma_probe::SMEM_BYTES);
    let kind = if bf16 != 0 { HalfKind::BF16 } else { HalfKind::F16 };
    const_layout_device::wgmma_probe::wgmma_probe(kind, a, b, d, smem)
}

/// The device layer's [`wgmma_batch_probe`](const_layout_device::wgmma_probe::wgmma_batch_probe):
/// one warpgroup computes `d = a b^T (+ c)` (64 x `n` x 64, `n` = 64, 128 or 256; `a` 64 x 64
/// halves row-major, `b` `n` x 64 row-major or, for `flags & BATCH_B_MN`, 64 x `n` (attention's
/// `V`); `c`, `d` `f32` column-major) with one batch of four `wgmma`s, `A` from shared memory or,
/// for `flags & BATCH_RS`, registers. Run by `tools/gpu/wgmma_probe.py`.
///
/// # Safety
/// `a` is a 16-byte aligned device address of 2048 readable words, `b` of `32 n`, `c` of `64 n`
/// readable `f32`, `d` of `64 n` writable `f32` overlapping none of them, all alive until the
/// launch completes; the launch is one block of 128 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn wgmma_batch_probe(
    a: u64,
    b: u64,
    c: u64,
    d: u64,
    bf16: u32,
    flags: u32,
    n: u32,
) {
    let n = n.min(256) as usize;
    // SAFETY: the contract above: aligned, live, sized as given; `d` overlaps no input.
    let (a, b, c, d) = unsafe {
        (
            Gmem::<u32>::from_raw(a, 2048),
            Gmem::<u32>::from_raw(b, 32 * n),
            Gmem::<f32>::from_raw(c, 64 * n),
            GmemMut::<f32>::from_raw(d, 64 * n),
        )
    };
    let smem: SmemRegion =
        static_shared!(wgmma_batch_probe_tiles, const_layout_device::wgmma_probe::BATCH_SMEM_BYTES);
    let kind = if bf16 != 0 { HalfKind::BF16 } else { HalfKind::F16 };
    const_layout_device::wgmma_probe::wgmma_batch_probe(kind, flags, n as u32, a, b, c, d, smem)
}

/// The device layer's [`tma_probe`](const_layout_device::tma_probe::tma_probe): one warp loads a
/// box of the tensor of rank 3 or 4 that `map` was encoded for and copies it to `out` as it landed
/// in shared memory. `cfg` holds [`CFG_WORDS`](const_layout_device::tma_probe::CFG_WORDS) words:
/// rank, box inner, outer, swizzle, dims (4), coordinates (4), strides (4, low and high words). Run
/// by `tools/gpu/tma_probe.py`.
///
/// # Safety
/// `src` is a 16-byte aligned device address of `words` readable words, `cfg` of `CFG_WORDS`, `out`
/// of 8192 writable words overlapping neither, all alive until the launch completes; `map` is a
/// tensor map encoded for exactly the tensor and box `cfg` describes at `src` (`TmaTensor::new`'s
/// contract); the launch is one block of 32 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn tma_probe(map: u64, src: u64, words: u32, cfg: u64, out: u64) {
    use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    use const_layout_device::tma::TmaTensor;
    use const_layout_device::tma_probe::{CFG_WORDS, tma_probe};
    // SAFETY: the contract above: aligned, live, sized as given; `out` overlaps no input.
    let (src, c, out) = unsafe {
        (
            Gmem::<u32>::from_raw(src, words as usize),
            Gmem::<u32>::from_raw(cfg, CFG_WORDS),
            GmemMut::<u32>::from_raw(out, 8192),
        )
    };
    let swizzle = match c.load(3) {
        0 => TmaSwizzle::None,
        1 => TmaSwizzle::B32,
        2 => TmaSwizzle::B64,
        _ => TmaSwizzle::B128,
    };
    let boxd = TmaBox { inner: c.load(1), outer: c.load(2), element_bits: 16, swizzle };
    let dim = |i: usize| c.load(4 + i);
    let at = |i: usize| c.load(8 + i);
    let stride = |i: usize| c.load(12 + 2 * i) as u64 | (c.load(13 + 2 * i) as u64) << 32;
    let smem: SmemRegion = static_shared!(tma_probe_smem, const_layout_device::tma_probe::SMEM_BYTES);
    match c.load(0) {
        3 => {
            // SAFETY: the contract above (the map is of this tensor and box).
            let t = unsafe {
                TmaTensor::new(map, src, [dim(0), dim(1), dim(2)], [1, stride(1), stride(2)], boxd)
            };
            let Some(t) = t else { fault("tma_probe: the tensor does not fit its words") };
            tma_probe(t, [at(0), at(1), at(2)], out, smem)
        }
        4 => {
            // SAFETY: as above.
            let t = unsafe {
                TmaTensor::new(
                    map,
                    src,
                    [dim(0), dim(1), dim(2), dim(3)],
                    [1, stride(1), stride(2), stride(3)],
                    boxd,
                )
            };
            let Some(t) = t else { fault("tma_probe: the tensor does not fit its words") };
            tma_probe(t, [at(0), at(1), at(2), at(3)], out, smem)
        }
        _ => fault("tma_probe: rank 3 or 4"),
    }
}

/// The device layer's [`bank_probe`](const_layout_device::bank_probe::bank_probe): one warp loads
/// `bytes` (4, 8 or 16) at the byte addresses `addrs` gives (`32 n` of them, aligned to `bytes`,
/// below 16 KiB), writing 32 words to `out`. Run by `tools/gpu/bank_probe.py` under Nsight Compute.
///
/// # Safety
/// `addrs` is a 16-byte aligned device address of `32 n` readable words, `out` of 32 writable
/// words overlapping nothing, both alive until the launch completes; one block of 32 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn bank_probe(addrs: u64, n: u32, bytes: u32, out: u64) {
    // SAFETY: the contract above.
    let (a, o) =
        unsafe { (Gmem::<u32>::from_raw(addrs, 32 * n as usize), GmemMut::<u32>::from_raw(out, 32)) };
    let smem: SmemRegion = static_shared!(bank_probe_words, const_layout_device::bank_probe::SMEM_BYTES);
    const_layout_device::bank_probe::bank_probe(a, n as usize, bytes, o, smem)
}

/// The device layer's [`layer_probe`](const_layout_device::layer_probe::layer_probe): warp
/// shuffles, votes and reductions, fast math, atomics, named barriers, a rank-3 slice and a
/// swizzled shared tensor, each written to `out`, `blocks`, `math` and `atomics` for
/// `tools/gpu/layer_probe.py` to check. One launch of `BLOCKS` blocks of `THREADS` threads.
///
/// # Safety
/// `input` holds `TOTAL` words, `xs` `MATH_N` `f32`, `batch` `BATCH_WORDS` words, `out`
/// `TOTAL * RECORD` words, `blocks` `BLOCKS * BLOCK_RECORD` words, `math` `MATH_FNS * MATH_N` `f32`
/// and `atomics` `3 * 16` words (64 bytes apart): 16-byte aligned device allocations alive until
/// the launch completes, the inputs unwritten, the outputs overlapping nothing else.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn layer_probe(
    input: u64,
    xs: u64,
    batch: u64,
    out: u64,
    blocks: u64,
    math: u64,
    atomics: u64,
) {
    use const_layout_device::layer_probe as p;
    // SAFETY: the contract above.
    let (input, xs, batch, out, blocks, math, au, ai, af) = unsafe {
        (
            Gmem::<u32>::from_raw(input, p::TOTAL),
            Gmem::<f32>::from_raw(xs, p::MATH_N),
            Gmem::<u32>::from_raw(batch, p::BATCH_WORDS),
            GmemMut::<u32>::from_raw(out, p::TOTAL * p::RECORD),
            GmemMut::<u32>::from_raw(blocks, p::BLOCKS as usize * p::BLOCK_RECORD),
            GmemMut::<f32>::from_raw(math, p::MATH_FNS * p::MATH_N),
            GmemMut::<u32>::from_raw(atomics, 16),
            GmemMut::<i32>::from_raw(atomics + 64, 16),
            GmemMut::<f32>::from_raw(atomics + 128, 16),
        )
    };
    let smem: SmemRegion = static_shared!(layer_probe_smem, const_layout_device::layer_probe::SMEM_BYTES);
    p::layer_probe(p::Inputs { input, xs, batch }, p::Outputs { out, blocks, math, au, ai, af }, smem)
}
