//! The PTX module: one `extern "ptx-kernel"` entry point per kernel of `const-layout-kernels`,
//! built for `nvptx64-nvidia-cuda` by `tools/gpu/build-ptx.sh` into one `.ptx` file.
//!
//! An entry point is where a kernel's raw parameters (device addresses the host passed) become
//! the safe tensors the kernel body takes, so it is part of the device layer and the only other
//! place with `unsafe` code. Each parameter is a [`TensorParam`] that the launcher built with
//! `TensorParam::new` (alignment, strides, cosize within the allocation), for allocations that
//! stay alive until the launch completes; inputs are never written by the kernel and outputs
//! overlap nothing else. That is the contract every `SAFETY` comment below relies on, and the
//! launcher (`gpu/launcher`) keeps it.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

use const_layout::{C, make_layout};
use const_layout_device::TensorParam;
use const_layout_device::{
    DeviceTensor, GlobalTensor, Gmem, GmemMut, HalfKind, MemoryMut, SmemRegion, fault, static_shared,
};
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use const_layout_kernels::{copy, hgemm, hgemm_sm90, sgemm, transpose};

/// An `f32` matrix with runtime extents and leading dimension, column-major: `(m,n):(_1,ld)`.
pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
/// An `f32` matrix with runtime extents and leading dimension, row-major: `(m,n):(ld,_1)`.
pub type RowMajor = TensorParam<f32, (u32, u32), (u32, C<1>)>;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    const_layout_device::fault("panic")
}

/// [`copy::copy`] between two column-major `f32` matrices of the same shape.
///
/// # Safety
/// `src` and `dst` come from `TensorParam::new` for live, distinct allocations (see the crate).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn copy_f32(src: ColMajor, dst: ColMajor) {
    // SAFETY: the crate's contract: checked parameters, live allocations, `src` only read, `dst`
    // overlapping nothing.
    let (s, d) = unsafe { (src.read_only(), dst.writable()) };
    copy::copy(s, d)
}

/// [`transpose::transpose`]: `dst` (column-major) gets `src` (row-major) of the same shape, through
/// a static shared array of [`transpose::SMEM_BYTES`].
///
/// # Safety
/// As [`copy_f32`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_f32(src: RowMajor, dst: ColMajor) {
    // SAFETY: as in `copy_f32`.
    let (s, d) = unsafe { (src.read_only(), dst.writable()) };
    let smem: SmemRegion = static_shared!(transpose_tile, const_layout_kernels::transpose::SMEM_BYTES);
    transpose::transpose(s, d, smem)
}

const_layout_device::launch_bounds!(sgemm_nt_f32, 256, 2);
/// [`sgemm::sgemm`], NT: `a` (m,k) and `b` (n,k) column-major, in the launch's dynamic shared
/// memory ([`sgemm::SMEM_BYTES`]). Two blocks of 256 threads per multiprocessor (CUDA's
/// `__launch_bounds__(256, 2)`, declared by `launch_bounds!` above): at most 128 registers a
/// thread.
///
/// # Safety
/// As [`copy_f32`]; `c` overlaps neither `a` nor `b`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_nt_f32(a: ColMajor, b: ColMajor, c: ColMajor, alpha: f32, beta: f32) {
    // SAFETY: as in `copy_f32`.
    let (a, b, c) = unsafe { (a.read_only(), b.read_only(), c.writable()) };
    sgemm::sgemm(a, b, c, alpha, beta, SmemRegion::dynamic())
}

const_layout_device::launch_bounds!(sgemm_tn_f32, 256, 2);
/// [`sgemm::sgemm`], TN: `a` (m,k) and `b` (n,k) row-major (k contiguous). Launch bounds as
/// [`sgemm_nt_f32`].
///
/// # Safety
/// As [`sgemm_nt_f32`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_tn_f32(a: RowMajor, b: RowMajor, c: ColMajor, alpha: f32, beta: f32) {
    // SAFETY: as in `copy_f32`.
    let (a, b, c) = unsafe { (a.read_only(), b.read_only(), c.writable()) };
    sgemm::sgemm(a, b, c, alpha, beta, SmemRegion::dynamic())
}

/// The device layer's [`mma_probe`](const_layout_device::mma_probe::mma_probe): one warp computes
/// `d = a b^T + c` (16x16x16; `a`, `b` halves, two to a word, `f16` or, for `bf16 != 0`,
/// `bf16`) through `ldmatrix` and `mma.sync`; only the first `lanes` lanes reach those (32; fewer
/// must trap). Run by `tools/gpu/mma_probe.py`.
///
/// # Safety
/// `a` and `b` are 16-byte aligned device addresses of 128 readable words, `c` of 256 readable
/// `f32`, `d` of 256 writable `f32` overlapping none of them, all alive until the launch completes;
/// the launch is one block of 32 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn mma_probe(a: u64, b: u64, c: u64, d: u64, bf16: u32, lanes: u32) {
    use const_layout_device::{Gmem, GmemMut, HalfKind};
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

/// The HGEMM's operands: `a` (m x k) and `b` (n x k) halves, as tensors of 32-bit words (two
/// halves each): `tn`, `k`-contiguous rows, `(m, k/2):(k/2, _1)`; `nt`, columns contiguous,
/// `(m/2, k):(_1, m/2)`.
///
/// # Safety
/// `a` and `b` are 16-byte aligned device addresses of `m k` and `n k` halves, alive and unwritten
/// until the launch completes.
macro_rules! hgemm_operands {
    ($a:expr, $b:expr, $m:expr, $n:expr, $k:expr, tn) => {
        hgemm_operands!(@make $a, $b, $m, $n, $k, |_, _, k: u32| k % 2 == 0,
            |rows: u32, k: u32| make_layout((rows, k / 2), (k / 2, C::<1>)))
    };
    ($a:expr, $b:expr, $m:expr, $n:expr, $k:expr, nt) => {
        hgemm_operands!(@make $a, $b, $m, $n, $k, |m: u32, n: u32, _| m % 2 == 0 && n % 2 == 0,
            |rows: u32, k: u32| make_layout((rows / 2, k), (C::<1>, rows / 2)))
    };
    (@make $a:expr, $b:expr, $m:expr, $n:expr, $k:expr, $even:expr, $layout:expr) => {{
        let (m, n, k): (u32, u32, u32) = ($m, $n, $k);
        if !$even(m, n, k) {
            fault("hgemm: the contiguous extents (k for TN, m and n for NT) must be even");
        }
        // SAFETY: the entry point's contract: aligned, live, sized as given.
        let (ga, gb) = unsafe {
            (Gmem::<u32>::from_raw($a, m as usize * k as usize / 2), Gmem::<u32>::from_raw($b, n as usize * k as usize / 2))
        };
        let layout = $layout;
        let (Ok(la), Ok(lb)) = (layout(m, k), layout(n, k)) else {
            fault("hgemm: extents out of range");
        };
        let (Some(ta), Some(tb)) = (GlobalTensor::new(ga, la), GlobalTensor::new(gb, lb)) else {
            fault("hgemm: a tensor does not fit its allocation");
        };
        (ta, tb)
    }};
}

/// `c` (m x n) `f32`, column-major.
///
/// # Safety
/// `c` is a 16-byte aligned device address of `m n` `f32`, alive until the launch completes and
/// overlapping no input.
#[inline(always)]
unsafe fn hgemm_c_f32(c: u64, m: u32, n: u32) -> impl DeviceTensor<Mem: MemoryMut<Elem = f32>> {
    // SAFETY: the contract above.
    let gc = unsafe { GmemMut::<f32>::from_raw(c, m as usize * n as usize) };
    let Some(tc) = make_layout((m, n), (C::<1>, m)).ok().and_then(|lc| GlobalTensor::new(gc, lc)) else {
        fault("hgemm: C does not fit its allocation");
    };
    tc
}

/// `c` (m x n) halves, row-major, as words of two (`n` even).
///
/// # Safety
/// `c` is a 16-byte aligned device address of `m n` halves, alive until the launch completes and
/// overlapping no input.
#[inline(always)]
unsafe fn hgemm_c_f16(c: u64, m: u32, n: u32) -> impl DeviceTensor<Mem: MemoryMut<Elem = u32>> {
    if n % 2 != 0 {
        fault("hgemm: an f16 C needs an even n");
    }
    let nw = n / 2;
    // SAFETY: the contract above (`m n / 2` words).
    let gc = unsafe { GmemMut::<u32>::from_raw(c, m as usize * nw as usize) };
    let Some(tc) = make_layout((m, nw), (nw, C::<1>)).ok().and_then(|lc| GlobalTensor::new(gc, lc)) else {
        fault("hgemm: C does not fit its allocation");
    };
    tc
}

/// An HGEMM entry point with `f32` accumulators: the element kind as a constant in each branch
/// (the body is inlined into both), so that no `mma.sync` waits on a branch.
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

/// An HGEMM entry point: `$layout` (`tn` or `nt`) operands, `f32` accumulators (with the `bf16`
/// flag) or `f16` ones.
macro_rules! hgemm_entry {
    ($(#[$doc:meta])* $name:ident, $gemm:path, $layout:ident, f32) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            a: u64,
            b: u64,
            c: u64,
            m: u32,
            n: u32,
            k: u32,
            alpha: f32,
            beta: f32,
            bf16: u32,
        ) {
            let (ta, tb) = hgemm_operands!(a, b, m, n, k, $layout);
            // SAFETY: the entry point's contract.
            let tc = unsafe { hgemm_c_f32(c, m, n) };
            hgemm_f32!($gemm, ta, tb, tc, alpha, beta, bf16)
        }
    };
    ($(#[$doc:meta])* $name:ident, $gemm:path, $layout:ident, f16) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(a: u64, b: u64, c: u64, m: u32, n: u32, k: u32, alpha: f32, beta: f32) {
            let (ta, tb) = hgemm_operands!(a, b, m, n, k, $layout);
            // SAFETY: the entry point's contract.
            let tc = unsafe { hgemm_c_f16(c, m, n) };
            $gemm(F16Accum, ta, tb, tc, alpha, beta, SmemRegion::dynamic())
        }
    };
}

const_layout_device::launch_bounds!(hgemm_tn_f32, 128, 2);
hgemm_entry! {
    /// [`hgemm::hgemm_tn`] with `f32` accumulators and `f16` (`bf16 == 0`) or `bf16` inputs: `a`
    /// (m x k) and `b` (n x k) halves, `k`-contiguous rows of `k` halves (`k` a multiple of 8),
    /// `c` (m x n) `f32` column-major, in the launch's dynamic shared memory
    /// ([`hgemm::SMEM_BYTES`]). Two blocks of 128 threads per multiprocessor
    /// (`__launch_bounds__(128, 2)`, as the shared memory allows).
    ///
    /// # Safety
    /// `a`, `b` and `c` are 16-byte aligned device addresses of `m k`, `n k` halves and `m n`
    /// `f32`, alive until the launch completes; `c` overlaps neither input.
    hgemm_tn_f32, hgemm::hgemm_tn, tn, f32
}

const_layout_device::launch_bounds!(hgemm_nt_f32, 128, 2);
hgemm_entry! {
    /// [`hgemm::hgemm_nt`] with `f32` accumulators: as [`hgemm_tn_f32`], but `a` (m x k) and `b`
    /// (n x k) column-major (`m` and `n` contiguous, multiples of 8).
    ///
    /// # Safety
    /// As [`hgemm_tn_f32`].
    hgemm_nt_f32, hgemm::hgemm_nt, nt, f32
}

const_layout_device::launch_bounds!(hgemm_tn_f16, 128, 2);
hgemm_entry! {
    /// [`hgemm::hgemm_tn`] with `f16` inputs, `f16` accumulators and an `f16` `c` (CuTe's
    /// `sgemm_sm80.cu` types): `a`, `b` as for [`hgemm_tn_f32`], `c` (m x n) halves row-major,
    /// `n` even.
    ///
    /// # Safety
    /// `a`, `b` and `c` are 16-byte aligned device addresses of `m k`, `n k` and `m n` halves,
    /// alive until the launch completes; `c` overlaps neither input.
    hgemm_tn_f16, hgemm::hgemm_tn, tn, f16
}

const_layout_device::launch_bounds!(hgemm_nt_f16, 128, 2);
hgemm_entry! {
    /// [`hgemm::hgemm_nt`] with `f16` accumulators: as [`hgemm_tn_f16`], `a` and `b` column-major.
    ///
    /// # Safety
    /// As [`hgemm_tn_f16`].
    hgemm_nt_f16, hgemm::hgemm_nt, nt, f16
}

/// `a` (m x k) and `b` (n x k) halves, `k`-contiguous rows, as the TMA tensors of their maps.
macro_rules! sm90_operands {
    ($a:expr, $b:expr, $map_a:expr, $map_b:expr, $m:expr, $n:expr, $k:expr) => {{
        use const_layout_device::tma::TmaTensor2d;
        let (box_a, box_b) = (hgemm_sm90::a_box(), hgemm_sm90::b_box());
        let words = |rows: u32| rows as usize * $k as usize / 2;
        // SAFETY: the entry point's contract: `a`, `b` hold `m k` and `n k` halves, alive until
        // the launch completes, and `map_a`, `map_b` are their tensor maps, encoded for this box.
        let (ta, tb) = unsafe {
            (
                TmaTensor2d::new($map_a, Gmem::<u32>::from_raw($a, words($m)), $m, $k, $k, box_a),
                TmaTensor2d::new($map_b, Gmem::<u32>::from_raw($b, words($n)), $n, $k, $k, box_b),
            )
        };
        let (Some(ta), Some(tb)) = (ta, tb) else {
            fault("hgemm_sm90: k is not a multiple of 8, or a tensor map is misaligned");
        };
        (ta, tb)
    }};
}

/// A Hopper GEMM entry point: `f32` accumulators (with the `bf16` flag) or `f16` ones.
macro_rules! sm90_entry {
    ($(#[$doc:meta])* $name:ident, $c:ident, $($bf16:ident)?) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            a: u64,
            b: u64,
            c: u64,
            map_a: u64,
            map_b: u64,
            m: u32,
            n: u32,
            k: u32,
            alpha: f32,
            beta: f32,
            $($bf16: u32,)?
        ) {
            let (ta, tb) = sm90_operands!(a, b, map_a, map_b, m, n, k);
            // SAFETY: the entry point's contract.
            let tc = unsafe { $c(c, m, n) };
            sm90_call!(ta, tb, tc, alpha, beta $(, $bf16)?)
        }
    };
}

/// The call of an entry point: with a `bf16` flag, `f32` accumulators of that kind; without,
/// `f16` accumulators.
macro_rules! sm90_call {
    ($ta:expr, $tb:expr, $tc:expr, $alpha:expr, $beta:expr, $bf16:expr) => {
        hgemm_f32!(hgemm_sm90::hgemm_sm90_tn, $ta, $tb, $tc, $alpha, $beta, $bf16)
    };
    ($ta:expr, $tb:expr, $tc:expr, $alpha:expr, $beta:expr) => {
        hgemm_sm90::hgemm_sm90_tn(F16Accum, $ta, $tb, $tc, $alpha, $beta, SmemRegion::dynamic())
    };
}

const_layout_device::launch_bounds!(hgemm_sm90_tn_f32, 384, 1);
sm90_entry! {
    /// [`hgemm_sm90::hgemm_sm90_tn`] with `f32` accumulators and `f16` (`bf16 == 0`) or `bf16`
    /// inputs: `a` (m x k) and `b` (n x k) halves, `k`-contiguous rows (`k` a multiple of 8), loaded
    /// by TMA through the tensor maps at `map_a` and `map_b`; `c` (m x n) `f32` column-major; in the
    /// launch's dynamic shared memory ([`hgemm_sm90::SMEM_BYTES`]), blocks of
    /// [`hgemm_sm90::THREADS`], on the grid [`hgemm_sm90::grid`].
    ///
    /// # Safety
    /// As [`hgemm_tn_f32`], and `map_a`, `map_b` are the global addresses of 64-byte aligned
    /// `CUtensorMap`s that `cuTensorMapEncodeTiled` encoded, before the launch, for `a` and `b`:
    /// 16-bit elements, dimensions `{k, m}` and `{k, n}`, row strides `2 k` bytes, the boxes
    /// [`hgemm_sm90_config`] gives, element strides 1, no interleave, zero fill.
    hgemm_sm90_tn_f32, hgemm_c_f32, bf16
}

const_layout_device::launch_bounds!(hgemm_sm90_tn_f16, 384, 1);
sm90_entry! {
    /// [`hgemm_sm90::hgemm_sm90_tn`] with `f16` inputs, `f16` accumulators and an `f16` `c`
    /// (CuTe's `wgmma_tma_sm90.cu` types): as [`hgemm_sm90_tn_f32`], `c` (m x n) halves row-major
    /// (`n` even).
    ///
    /// # Safety
    /// As [`hgemm_sm90_tn_f32`], with `c` of `m n` halves.
    hgemm_sm90_tn_f16, hgemm_c_f16,
}

/// Writes what the host needs to launch [`hgemm_sm90_tn_f32`] and [`hgemm_sm90_tn_f16`] to `out`
/// (16 words): `A`'s TMA box ([`hgemm_sm90::a_box`]: inner and outer extents, element bits,
/// `CUtensorMapSwizzle`), `B`'s ([`hgemm_sm90::b_box`]), the block's threads, its dynamic shared
/// memory, the tile (`BM`, `BN`), [`hgemm_sm90::RASTER`] and three zeros. The boxes come from the stages'
/// layouts, so the host encodes its tensor maps with what the kernel's shared memory expects. One
/// thread.
///
/// # Safety
/// `out` is a 16-byte aligned device address of 16 writable words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_sm90_config(out: u64) {
    // SAFETY: the contract above.
    let o = unsafe { GmemMut::<u32>::from_raw(out, 16) };
    let (a, b) = (hgemm_sm90::a_box(), hgemm_sm90::b_box());
    o.store4(0, [a.inner, a.outer, a.element_bits, a.swizzle as u32]);
    o.store4(4, [b.inner, b.outer, b.element_bits, b.swizzle as u32]);
    let tile = [hgemm_sm90::BM as u32, hgemm_sm90::BN as u32];
    o.store4(8, [hgemm_sm90::THREADS, hgemm_sm90::SMEM_BYTES, tile[0], tile[1]]);
    o.store4(12, [hgemm_sm90::RASTER, 0, 0, 0]);
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
