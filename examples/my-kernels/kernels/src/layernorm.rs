//! LayerNorm forward: `y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta` over rows of
//! [`COLS`] `f32` (PyTorch's `layer_norm` over the last dimension, biased variance), one block of
//! [`THREADS`] threads a row at a time, the grid striding over the rows.
//!
//! The layout of a row's values over the threads is the softmax's ([`crate::softmax`]): each
//! thread holds 16 values as 4 vectors `1024` columns apart, and the same columns of `gamma` and
//! `beta`, loaded once before the rows. The mean and the variance are two block reductions (two
//! passes over the registers: `sum x`, then `sum (x - mean)^2`); `1 / sqrt(var + eps)` is one
//! `rsqrt.approx`; each output one `FFMA` for `(x - mean) rstd` and one for `* gamma + beta`.

use crate::softmax::{COLS, THREADS, VECTORS, first_column, load_row, row_from};
use const_layout_device::warp::{Sum, block_allreduce};
use const_layout_device::{
    DeviceTensor, Memory, MemoryMut, SmemAllocator, SmemPlan, SmemRegion, Thread, block_idx, fault, grid_dim,
    math, unroll,
};

/// The block's shared memory: two arrays of the warps' partial sums.
pub const SMEM_BYTES: u32 = SmemPlan::new().array::<f32, 32>().array::<f32, 32>().bytes();

/// The kernel body: `y` gets the normalization of each row of `x` (both `rows x COLS`, rows
/// contiguous and 16-byte aligned) scaled by `gamma` and shifted by `beta` (`1 x COLS` each);
/// faults on other shapes. `smem` holds at least [`SMEM_BYTES`].
#[inline(always)]
pub fn layernorm<X, W, Y>(x: X, gamma: W, beta: W, y: Y, eps: f32, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    W: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, cols) = x.extents();
    if cols != COLS
        || y.extents() != (rows, cols)
        || gamma.extents() != (1, COLS)
        || beta.extents() != (1, COLS)
    {
        fault("layernorm: x and y are rows of COLS columns, of one shape; gamma and beta one such row");
    }
    let (Some(x), Some(y), Some(gamma), Some(beta)) =
        (x.vectorized(), y.vectorized(), gamma.vectorized(), beta.vectorized())
    else {
        fault("layernorm: rows must allow 128-bit access (contiguous, 16-byte aligned)");
    };
    let mut alloc = SmemAllocator::new(smem);
    let (sums, squares) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let j0 = first_column(t);
    let (g, b) = (row_from(gamma, 0, j0), row_from(beta, 0, j0));
    let mut wg = [[0f32; 4]; VECTORS];
    let mut wb = [[0f32; 4]; VECTORS];
    unroll!(k in 0..4 => {
        wg[k] = g.load_vec4((0, (1024 * k) as u32));
        wb[k] = b.load_vec4((0, (1024 * k) as u32));
    });
    let inv_n = 1.0 / COLS as f32;
    let mut row = block_idx().x;
    while (row as usize) < rows {
        let (xr, yr) = (row_from(x, row, j0), row_from(y, row, j0));
        let v = load_row(xr);
        let mut s = 0f32;
        unroll!(k in 0..4 => {
            s += (v[k][0] + v[k][1]) + (v[k][2] + v[k][3]);
        });
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
        let shift = -mean * rstd;
        unroll!(k in 0..4 => {
            let mut o = [0f32; 4];
            unroll!(e in 0..4 => {
                o[e] = math::fma(math::fma(v[k][e], rstd, shift), wg[k][e], wb[k][e]);
            });
            yr.store_vec4((0, (1024 * k) as u32), o);
        });
        row += grid_dim().x;
    }
}
