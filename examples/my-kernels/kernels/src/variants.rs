//! Variants of the row kernels ([`crate::softmax`], [`crate::layernorm`]) that keep more of a
//! multiprocessor's loads in flight, to bring their DRAM bandwidth closer to a copy's. The
//! kernels above load a row, then reduce it (two barriers), then store it, and only then load
//! their next row: each block has at most one row's loads in flight, and none while it reduces.
//! The variants, each an entry point of its own (`lib.rs`), compute exactly what their kernel does
//! (the same per-row arithmetic, in the same order):
//!
//! - `pf` (software pipelining in registers): the next row's 4 vectors are loaded into registers
//!   before the current row's reductions, so they are in flight across its barriers, its
//!   arithmetic and its stores (16 more values a thread live across them). LayerNorm's `gamma` and
//!   `beta` move to shared memory (each thread its own columns, written once, read each row: no
//!   barrier) to stay within 64 registers, i.e. 4 blocks a multiprocessor.
//! - `cp` (`cp.async` two rows ahead): a block keeps its next two rows in flight into two
//!   shared-memory stages (32 KiB), each thread copying, and reading back, only its own columns
//!   (so `cp.async.wait_group` orders them, no barrier). A row is read back into registers, and
//!   its stage refilled with the row two ahead once the thread's partial result has consumed the
//!   registers (a data dependence: the refill cannot overtake the reads). Registers as the
//!   kernels'; 4 blocks a multiprocessor (129 KiB of shared memory).
//! - `b6` (occupancy): the kernels' design with launch bounds `(256, 6)` (at most 40 registers)
//!   and a grid of at most [`BLOCKS_PER_SM_B6`] blocks a multiprocessor: half again as many rows
//!   in flight. Softmax is [`crate::softmax::softmax`] itself; LayerNorm keeps `gamma` and `beta` in
//!   shared memory as `pf` does.
//!
//! The grids: [`grid_for`] with [`crate::softmax::BLOCKS_PER_SM`] for `pf` and `cp` (the
//! kernels' [`crate::softmax::grid`]), with [`BLOCKS_PER_SM_B6`] for `b6`.

use crate::softmax::{COLS, THREADS, VECTORS, first_column};
use const_layout::C;
use const_layout_device::warp::{Max, Sum, block_allreduce};
use const_layout_device::{
    DeviceTensor, Dim3, GlobalTile, Memory, MemoryMut, Shifted, SmemAllocator, SmemArray, SmemPlan,
    SmemRegion, Thread, block_idx, cp_async_commit, cp_async_wait, fault, grid_dim, math, unroll,
};

/// Blocks a multiprocessor runs at once for the `b6` variants (their launch bounds and
/// [`grid_for`]'s argument).
pub const BLOCKS_PER_SM_B6: u32 = 6;

/// `pf`'s shared memory, both kernels: two arrays of the warps' partial results, then (LayerNorm)
/// `gamma` and `beta`, a row each.
pub const PF_SMEM_BYTES: u32 =
    SmemPlan::new().array::<f32, 32>().array::<f32, 32>().array::<f32, COLS>().array::<f32, COLS>().bytes();
/// `cp`'s shared memory, both kernels: two arrays of the warps' partial results and two stages of
/// a row.
pub const CP_SMEM_BYTES: u32 =
    SmemPlan::new().array::<f32, 32>().array::<f32, 32>().array::<f32, COLS>().array::<f32, COLS>().bytes();
/// `b6`'s shared memory (LayerNorm): as `pf`'s.
pub const B6_SMEM_BYTES: u32 = PF_SMEM_BYTES;

/// The grid for `rows` rows on `sms` multiprocessors at most `blocks_per_sm` blocks a
/// multiprocessor, every block the same number of rows ([`crate::softmax::grid`] for
/// [`crate::softmax::BLOCKS_PER_SM`]).
pub fn grid_for(rows: u32, sms: u32, blocks_per_sm: u32) -> Dim3 {
    let most = (sms.max(1) * blocks_per_sm.max(1)).max(1);
    let per_block = rows.div_ceil(most).max(1);
    Dim3::x(rows.div_ceil(per_block).max(1))
}

/// A thread's values of a row: [`VECTORS`] 128-bit vectors, `1024` columns apart.
type Vecs = [[f32; 4]; VECTORS];

/// The softmax of one row whose thread values are `v`: the row's maximum (a block reduction
/// into `maxima`), `ex2` of the shifted values and their sum (into `sums`), the values scaled by
/// its reciprocal. `issue` runs once the thread's own maximum has consumed `v`, before the first
/// barrier: where the variants start their next loads.
#[inline(always)]
fn softmax_row(
    t: Thread<THREADS>,
    mut v: Vecs,
    maxima: SmemArray<f32, 32>,
    sums: SmemArray<f32, 32>,
    issue: impl FnOnce(),
) -> Vecs {
    let mut m = f32::NEG_INFINITY;
    unroll!(k in 0..4 => {
        m = m.max(v[k][0].max(v[k][1]).max(v[k][2].max(v[k][3])));
    });
    issue();
    let m = block_allreduce::<Max, f32, THREADS>(t, m, maxima);
    let shift = -m * core::f32::consts::LOG2_E;
    let mut s = 0f32;
    unroll!(k in 0..4 => {
        unroll!(e in 0..4 => {
            v[k][e] = math::ex2_approx(math::fma(v[k][e], core::f32::consts::LOG2_E, shift));
            s += v[k][e];
        });
    });
    let inv = math::rcp_approx(block_allreduce::<Sum, f32, THREADS>(t, s, sums));
    unroll!(k in 0..4 => {
        v[k] = v[k].map(|e| e * inv);
    });
    v
}

/// LayerNorm's statistics of one row whose thread values are `v`: `(rstd, -mean rstd)`, the mean
/// and the variance two block reductions (into `sums`, then `squares`). `issue` runs once the
/// thread's own sum has consumed `v`, before the first barrier.
#[inline(always)]
fn layernorm_row(
    t: Thread<THREADS>,
    v: &Vecs,
    sums: SmemArray<f32, 32>,
    squares: SmemArray<f32, 32>,
    eps: f32,
    issue: impl FnOnce(),
) -> (f32, f32) {
    let inv_n = 1.0 / COLS as f32;
    let mut s = 0f32;
    unroll!(k in 0..4 => {
        s += (v[k][0] + v[k][1]) + (v[k][2] + v[k][3]);
    });
    issue();
    let mean = block_allreduce::<Sum, f32, THREADS>(t, s, sums) * inv_n;
    let mut q = 0f32;
    unroll!(k in 0..4 => {
        unroll!(e in 0..4 => {
            let d = v[k][e] - mean;
            q = math::fma(d, d, q);
        });
    });
    let var = block_allreduce::<Sum, f32, THREADS>(t, q, squares) * inv_n;
    let rstd = math::rsqrt_approx(var + eps);
    (rstd, -mean * rstd)
}

/// The checks of [`crate::softmax::softmax`]: `x` and `y` as 128-bit row tensors.
macro_rules! rows_vectorized {
    ($what:literal, $x:expr, $y:expr) => {{
        let (rows, cols) = $x.extents();
        if cols != COLS || $y.extents() != (rows, cols) {
            fault(concat!($what, ": x and y are rows of COLS columns, of one shape"));
        }
        let (Some(x), Some(y)) = ($x.vectorized(), $y.vectorized()) else {
            fault(concat!($what, ": rows must allow 128-bit access (contiguous, 16-byte aligned)"));
        };
        (rows, x, y)
    }};
}

/// LayerNorm's checks of `gamma` and `beta` (one row of [`COLS`] each, 128-bit access): the two as
/// vector tensors.
macro_rules! weights_vectorized {
    ($what:literal, $g:expr, $b:expr) => {{
        if $g.extents() != (1, COLS) || $b.extents() != (1, COLS) {
            fault(concat!($what, ": gamma and beta are one row of COLS columns"));
        }
        let (Some(g), Some(b)) = ($g.vectorized(), $b.vectorized()) else {
            fault(concat!($what, ": rows must allow 128-bit access (contiguous, 16-byte aligned)"));
        };
        (g, b)
    }};
}

/// `pf`: [`crate::softmax::softmax`] with the next row's loads issued before the current row's
/// reductions. `smem` holds at least [`PF_SMEM_BYTES`].
#[inline(always)]
pub fn softmax_pf<X, Y>(x: X, y: Y, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, x, y) = rows_vectorized!("softmax_pf", x, y);
    let mut alloc = SmemAllocator::new(smem);
    let (maxima, sums) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let j0 = first_column(t);
    let step = grid_dim().x;
    let mut row = block_idx().x;
    let mut next = [[0f32; 4]; VECTORS];
    if (row as usize) < rows {
        let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        unroll!(k in 0..4 => {
            next[k] = xr.load_vec4((0, (1024 * k) as u32));
        });
    }
    while (row as usize) < rows {
        let v = next;
        let ahead = row + step;
        let o = softmax_row(t, v, maxima, sums, || {
            if (ahead as usize) < rows {
                let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (ahead, 0)).from((0, j0));
                unroll!(k in 0..4 => {
                    next[k] = xr.load_vec4((0, (1024 * k) as u32));
                });
            }
        });
        let yr = y.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        unroll!(k in 0..4 => {
            yr.store_vec4((0, (1024 * k) as u32), o[k]);
        });
        row = ahead;
    }
}

/// `cp`: [`crate::softmax::softmax`] with each block's next two rows in flight by `cp.async`
/// into two shared stages. `smem` holds at least [`CP_SMEM_BYTES`].
#[inline(always)]
pub fn softmax_cp<X, Y>(x: X, y: Y, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, x, y) = rows_vectorized!("softmax_cp", x, y);
    let mut alloc = SmemAllocator::new(smem);
    let (maxima, sums) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let (mut stage, mut other) = (alloc.array::<f32, COLS>(), alloc.array::<f32, COLS>());
    let j0 = first_column(t);
    let step = grid_dim().x;
    // This thread's columns of row `r` (if it is one) into `s`, at their own columns: one group.
    let fetch = |r: u32, s: SmemArray<f32, COLS>| {
        if (r as usize) < rows {
            let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (r, 0)).from((0, j0));
            unroll!(k in 0..4 => {
                xr.copy_async_vec4((0, (1024 * k) as u32), s, j0 as usize + 1024 * k);
            });
        }
        cp_async_commit();
    };
    let mut row = block_idx().x;
    fetch(row, stage);
    fetch(row + step, other);
    while (row as usize) < rows {
        cp_async_wait::<1>(); // this row's group (the one after it may still be in flight)
        let mut v = [[0f32; 4]; VECTORS];
        unroll!(k in 0..4 => {
            v[k] = stage.load4(j0 as usize + 1024 * k);
        });
        let o = softmax_row(t, v, maxima, sums, || fetch(row + 2 * step, stage));
        let yr = y.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        unroll!(k in 0..4 => {
            yr.store_vec4((0, (1024 * k) as u32), o[k]);
        });
        (stage, other) = (other, stage);
        row += step;
    }
}

/// `pf`: [`crate::layernorm::layernorm`] with the next row's loads issued before the current
/// row's reductions, `gamma` and `beta` in shared memory. `smem` holds at least
/// [`PF_SMEM_BYTES`].
#[inline(always)]
pub fn layernorm_pf<X, W, Y>(x: X, gamma: W, beta: W, y: Y, eps: f32, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    W: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, x, y) = rows_vectorized!("layernorm_pf", x, y);
    let (gamma, beta) = weights_vectorized!("layernorm_pf", gamma, beta);
    let mut alloc = SmemAllocator::new(smem);
    let (sums, squares) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let (gs, bs) = (alloc.array::<f32, COLS>(), alloc.array::<f32, COLS>());
    let j0 = first_column(t);
    weights_to_shared(gamma, beta, gs, bs, j0);
    let step = grid_dim().x;
    let mut row = block_idx().x;
    let mut next = [[0f32; 4]; VECTORS];
    if (row as usize) < rows {
        let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        unroll!(k in 0..4 => {
            next[k] = xr.load_vec4((0, (1024 * k) as u32));
        });
    }
    while (row as usize) < rows {
        let v = next;
        let ahead = row + step;
        let (rstd, shift) = layernorm_row(t, &v, sums, squares, eps, || {
            if (ahead as usize) < rows {
                let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (ahead, 0)).from((0, j0));
                unroll!(k in 0..4 => {
                    next[k] = xr.load_vec4((0, (1024 * k) as u32));
                });
            }
        });
        let yr = y.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        store_normalized(yr, &v, rstd, shift, gs, bs, j0);
        row = ahead;
    }
}

/// `cp`: [`crate::layernorm::layernorm`] with each block's next two rows in flight by
/// `cp.async` into two shared stages (`gamma` and `beta` in registers, as the kernel's). `smem`
/// holds at least [`CP_SMEM_BYTES`].
#[inline(always)]
pub fn layernorm_cp<X, W, Y>(x: X, gamma: W, beta: W, y: Y, eps: f32, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    W: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, x, y) = rows_vectorized!("layernorm_cp", x, y);
    let (gamma, beta) = weights_vectorized!("layernorm_cp", gamma, beta);
    let mut alloc = SmemAllocator::new(smem);
    let (sums, squares) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let (mut stage, mut other) = (alloc.array::<f32, COLS>(), alloc.array::<f32, COLS>());
    let j0 = first_column(t);
    let step = grid_dim().x;
    let fetch = |r: u32, s: SmemArray<f32, COLS>| {
        if (r as usize) < rows {
            let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (r, 0)).from((0, j0));
            unroll!(k in 0..4 => {
                xr.copy_async_vec4((0, (1024 * k) as u32), s, j0 as usize + 1024 * k);
            });
        }
        cp_async_commit();
    };
    let mut row = block_idx().x;
    fetch(row, stage);
    fetch(row + step, other);
    let (g, b) = (
        gamma.local_tile_full((C::<1>, C::<{ COLS as isize }>), (0, 0)).from((0, j0)),
        beta.local_tile_full((C::<1>, C::<{ COLS as isize }>), (0, 0)).from((0, j0)),
    );
    let mut wg = [[0f32; 4]; VECTORS];
    let mut wb = [[0f32; 4]; VECTORS];
    unroll!(k in 0..4 => {
        wg[k] = g.load_vec4((0, (1024 * k) as u32));
        wb[k] = b.load_vec4((0, (1024 * k) as u32));
    });
    while (row as usize) < rows {
        cp_async_wait::<1>();
        let mut v = [[0f32; 4]; VECTORS];
        unroll!(k in 0..4 => {
            v[k] = stage.load4(j0 as usize + 1024 * k);
        });
        let (rstd, shift) = layernorm_row(t, &v, sums, squares, eps, || fetch(row + 2 * step, stage));
        let yr = y.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        unroll!(k in 0..4 => {
            let mut o = [0f32; 4];
            unroll!(e in 0..4 => {
                o[e] = math::fma(math::fma(v[k][e], rstd, shift), wg[k][e], wb[k][e]);
            });
            yr.store_vec4((0, (1024 * k) as u32), o);
        });
        (stage, other) = (other, stage);
        row += step;
    }
}

/// `b6`: [`crate::layernorm::layernorm`] with `gamma` and `beta` in shared memory (so that it
/// fits 40 registers, 6 blocks a multiprocessor). `smem` holds at least [`B6_SMEM_BYTES`].
#[inline(always)]
pub fn layernorm_b6<X, W, Y>(x: X, gamma: W, beta: W, y: Y, eps: f32, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    W: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, x, y) = rows_vectorized!("layernorm_b6", x, y);
    let (gamma, beta) = weights_vectorized!("layernorm_b6", gamma, beta);
    let mut alloc = SmemAllocator::new(smem);
    let (sums, squares) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let (gs, bs) = (alloc.array::<f32, COLS>(), alloc.array::<f32, COLS>());
    let j0 = first_column(t);
    weights_to_shared(gamma, beta, gs, bs, j0);
    let mut row = block_idx().x;
    while (row as usize) < rows {
        let xr = x.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        let mut v = [[0f32; 4]; VECTORS];
        unroll!(k in 0..4 => {
            v[k] = xr.load_vec4((0, (1024 * k) as u32));
        });
        let (rstd, shift) = layernorm_row(t, &v, sums, squares, eps, || {});
        let yr = y.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0));
        store_normalized(yr, &v, rstd, shift, gs, bs, j0);
        row += grid_dim().x;
    }
}

/// This thread's columns of `gamma` and `beta` into `gs` and `bs` at their own columns (each
/// thread reads back only what it wrote: no barrier).
#[inline(always)]
fn weights_to_shared<W: DeviceTensor<Mem: Memory<Elem = f32>>>(
    gamma: W,
    beta: W,
    gs: SmemArray<f32, COLS>,
    bs: SmemArray<f32, COLS>,
    j0: u32,
) {
    let (g, b) = (
        gamma.local_tile_full((C::<1>, C::<{ COLS as isize }>), (0, 0)).from((0, j0)),
        beta.local_tile_full((C::<1>, C::<{ COLS as isize }>), (0, 0)).from((0, j0)),
    );
    unroll!(k in 0..4 => {
        gs.store4(j0 as usize + 1024 * k, g.load_vec4((0, (1024 * k) as u32)));
        bs.store4(j0 as usize + 1024 * k, b.load_vec4((0, (1024 * k) as u32)));
    });
}

/// `(v rstd + shift) gamma + beta` into this thread's columns of `yr`, `gamma` and `beta` from
/// shared memory.
#[inline(always)]
fn store_normalized<Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
    yr: GlobalTile<Y, 1, { COLS as isize }, Shifted>,
    v: &Vecs,
    rstd: f32,
    shift: f32,
    gs: SmemArray<f32, COLS>,
    bs: SmemArray<f32, COLS>,
    j0: u32,
) {
    unroll!(k in 0..4 => {
        let (g, b) = (gs.load4(j0 as usize + 1024 * k), bs.load4(j0 as usize + 1024 * k));
        let mut o = [0f32; 4];
        unroll!(e in 0..4 => {
            o[e] = math::fma(math::fma(v[k][e], rstd, shift), g[e], b[e]);
        });
        yr.store_vec4((0, (1024 * k) as u32), o);
    });
}
