//! Row softmax: `y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max))` for rows of [`COLS`]
//! `f32`, one block of [`THREADS`] threads a row at a time (the grid strides over the rows).
//!
//! A thread holds [`COLS`]` / `[`THREADS`] values of the row in registers, as [`VECTORS`] 128-bit
//! vectors `1024` columns apart (the TV layout [`RowThreads`] x [`RowValues`]: consecutive
//! threads read consecutive vectors). The row's maximum and sum are block reductions
//! ([`block_allreduce`]): a warp butterfly, one barrier, and every thread combining the warps'
//! results. The exponential is `ex2.approx` of `x log2(e) - max log2(e)` (one `FFMA` and one
//! `MUFU.EX2` an element), the division one `rcp.approx` a row.
//!
//! The grid covers the rows exactly by striding (any row count, any grid), and a row is a whole
//! tile ([`COLS`] is static): only the whole-tile path is compiled (`local_tile_full`).
//!
//! Three ways to keep more loads in flight were measured against this design, for softmax and
//! LayerNorm alike, in Rust and in CUDA C++ (H200), on a grid then sized to the GPU (4 blocks a
//! multiprocessor, each striding over many rows): the next row prefetched into registers, two
//! rows ahead by `cp.async`, and 6 blocks a multiprocessor. At 16384 rows and more all were within
//! 1% of it (softmax 0.904-0.915 of `cuMemcpyDtoD`'s bandwidth, this design 0.908-0.915); only at
//! 4096 rows did the first two gain (0.951 and 0.961 against 0.918). The simplest stays; what
//! gained was the grid ([`grid`]: 4 rows a block, 0.93-0.94).

use const_layout::algebra::computed::{composition, make_layout_tv};
use const_layout::{C, layout_type};
use const_layout_device::warp::{Max, Sum, block_allreduce};
use const_layout_device::{
    DeviceTensor, Dim3, GlobalTile, Memory, MemoryMut, Shifted, SmemAllocator, SmemPlan, SmemRegion, Thread,
    Vector4, block_idx, fault, grid_dim, math, unroll,
};

/// Columns of a row: a static extent (the rows are runtime).
pub const COLS: usize = 4096;
/// Threads a block.
pub const THREADS: usize = 256;
/// 128-bit vectors a thread holds: `COLS / THREADS / 4`.
pub const VECTORS: usize = COLS / THREADS / 4;
const _: () = assert!(VECTORS == 4, "the kernel's loops are unrolled for 4 vectors a thread");
/// The launch bounds' minimum of blocks a multiprocessor holds (64 registers a thread).
pub const BLOCKS_PER_SM: u32 = 4;
/// Rows a block normalizes (for [`grid`]).
pub const ROWS_PER_BLOCK: u32 = 4;
/// The block's shared memory: two arrays of the warps' partial results (alternated between the
/// two reductions of a row).
pub const SMEM_BYTES: u32 = SmemPlan::new().array::<f32, 32>().array::<f32, 32>().bytes();

/// The threads of a row segment: `(1, 256)`, thread `t` at column `t`.
pub type RowThreads = layout_type!((1, 256));
/// A thread's values in a segment: 4 consecutive columns (a 128-bit vector).
pub type RowValues = layout_type!((1, 4));

/// The grid for `rows` rows: [`ROWS_PER_BLOCK`] rows a block (`rows.div_ceil(4)` blocks, at least
/// one, at most 2^30 for a `u32` of rows; the kernel strides over the rows by the grid, so any grid
/// is correct).
///
/// Many short blocks keep the memory busier than a grid sized to the GPU with every block
/// striding over many rows, as for the transpose: on an H200 at 16384 rows, softmax reached 0.963
/// of `cuMemcpyDtoD`'s bandwidth with one row a block, 0.951 with 2, 0.927 with 4, and 0.896 with
/// 4 blocks a multiprocessor of 32 rows each (65536 rows: 0.966, 0.956, 0.943, 0.902; LayerNorm
/// alike). A block's setup (its parameters' checks) is paid once for its rows, and at 4 rows it
/// is amortized: the instructions a thread executes are 0.97x (softmax) and 1.01x (LayerNorm) the
/// same design's in CUDA C++, against 1.11x and 1.15x at one row a block.
pub fn grid(rows: u32) -> Dim3 {
    Dim3::x(rows.div_ceil(ROWS_PER_BLOCK).max(1))
}

/// The block.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The first column of thread `t`'s vectors: the TV layout's coordinate of `(t, 0)`.
#[inline(always)]
pub(crate) fn first_column(t: Thread<THREADS>) -> u32 {
    let (tile, tv) = make_layout_tv(RowThreads::default(), RowValues::default());
    let (_, j): (u32, u32) = composition(tile, tv).coord((t.get(), 0usize));
    j
}

/// Row `row` of a tensor of rows of [`COLS`], seen from the thread's first column `j0`
/// ([`first_column`]): the row kernels' view of their inputs and outputs (a whole row, so only the
/// full-tile path is compiled).
#[inline(always)]
pub(crate) fn row_from<T: DeviceTensor>(
    t: T,
    row: u32,
    j0: u32,
) -> GlobalTile<T, 1, { COLS as isize }, Shifted> {
    t.local_tile_full((C::<1>, C::<{ COLS as isize }>), (row, 0)).from((0, j0))
}

/// The thread's [`VECTORS`] vectors of a row ([`row_from`]'s), 1024 columns apart: 128-bit loads.
#[inline(always)]
pub(crate) fn load_row<T>(r: GlobalTile<T, 1, { COLS as isize }, Shifted>) -> [[f32; 4]; VECTORS]
where
    T: DeviceTensor<Mem: Memory<Elem = f32>, Access = Vector4>,
{
    let mut v = [[0f32; 4]; VECTORS];
    unroll!(k in 0..4 => {
        v[k] = r.load_vec4((0, (1024 * k) as u32));
    });
    v
}

/// The kernel body: `y` gets the softmax of each row of `x` (both `rows x COLS`, rows
/// contiguous and 16-byte aligned; faults otherwise). `smem` holds at least [`SMEM_BYTES`].
#[inline(always)]
pub fn softmax<X, Y>(x: X, y: Y, smem: SmemRegion)
where
    X: DeviceTensor<Mem: Memory<Elem = f32>>,
    Y: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let t = Thread::<THREADS>::index();
    let (rows, cols) = x.extents();
    if cols != COLS || y.extents() != (rows, cols) {
        fault("softmax: x and y are rows of COLS columns, of one shape");
    }
    let (Some(x), Some(y)) = (x.vectorized(), y.vectorized()) else {
        fault("softmax: rows must allow 128-bit access (contiguous, 16-byte aligned)");
    };
    let mut alloc = SmemAllocator::new(smem);
    let (maxima, sums) = (alloc.array::<f32, 32>(), alloc.array::<f32, 32>());
    let j0 = first_column(t);
    let mut row = block_idx().x;
    while (row as usize) < rows {
        let (xr, yr) = (row_from(x, row, j0), row_from(y, row, j0));
        let mut v = load_row(xr);
        let mut m = f32::NEG_INFINITY;
        unroll!(k in 0..4 => {
            m = m.max(v[k][0].max(v[k][1]).max(v[k][2].max(v[k][3])));
        });
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
            yr.store_vec4((0, (1024 * k) as u32), v[k].map(|e| e * inv));
        });
        row += grid_dim().x;
    }
}
