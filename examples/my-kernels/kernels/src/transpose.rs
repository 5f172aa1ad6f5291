//! Batched transpose: `dst[b, j, i] = src[b, i, j]` for a batch of `m x n` `f32` matrices, through
//! a swizzled shared-memory tile.
//!
//! Both tensors are rank 3 in `src`'s coordinates `(b, i, j)`: `src` is row-major in each
//! matrix, `(batch, m, n):(sb, ld, _1)`; `dst` stores `(b, i, j)` at `b db + i + j ld'`, so
//! `(batch, m, n):(db, _1, ld')`. A block takes one [`TILE`]` x `[`TILE`] tile of
//! [`BATCHES_PER_BLOCK`] consecutive matrices (the setup of a block, its checks and its threads'
//! coordinates, is done once for all of them) (`slice_first` of each), reading rows of the tile
//! with 128-bit loads into shared memory and writing columns with 128-bit stores. The shared
//! tile is `Sw<3,2,6> o (64,64):(64,1)` ([`SmemTile`]): the XOR moves each 16-byte chunk of a row
//! by the row's bits 2 to 4, so a row's 128-bit stores and a column's 32-bit reads are
//! conflict-free. The grid covers the tensor exactly (`m`, `n` multiples of 64, the batch a
//! multiple of [`BATCHES_PER_BLOCK`], checked on the host by [`grid`]): only whole tiles are
//! compiled.

use const_layout::layout::computed::{StaticSwizzled, composition, make_layout_tv, swizzle};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, GlobalTensor, Memory, MemoryMut, SmemAllocator, SmemPlan, SmemRegion, Thread,
    Vector4, block_idx, fault, sync_threads, unroll,
};

/// Threads a block.
pub const THREADS: usize = 256;
/// The tile's extent in each mode.
pub const TILE: usize = 64;
/// Matrices of the batch a block transposes (the same tile of each).
pub const BATCHES_PER_BLOCK: u32 = 16;
const _: () = assert!(BATCHES_PER_BLOCK == 16, "the kernel's batch loop is unrolled for 16");

/// The shared tile before the swizzle: 64 x 64 row-major.
pub type SmemRows = layout_type!((64, 64):(64, 1));
/// The shared tile: `Sw<3,2,6> o _0 o (_64,_64):(_64,_1)`.
pub type SmemTile = StaticSwizzled<3, 2, 6, SmemRows>;
/// The block's shared memory.
pub const SMEM_BYTES: u32 = SmemPlan::new().tensor::<f32, SmemTile>().bytes();

/// Reading: 16 x 16 threads, 16 along a row, each a 1 x 4 vector of a row.
pub type ReadThreads = layout_type!((16, 16):(16, 1));
/// A thread's vector when reading.
pub type ReadValues = layout_type!((1, 4));
/// Writing: 8 x 32 threads, 8 along a column, each a 4 x 1 vector of a column.
pub type WriteThreads = layout_type!((8, 32));
/// A thread's vector when writing.
pub type WriteValues = layout_type!((4, 1));

/// The source: a batch of row-major matrices, `(batch, m, n):(sb, ld, _1)`.
pub type Src<M> = GlobalTensor<M, const_layout::Layout<(u32, u32, u32), (u32, u32, C<1>)>>;
/// The destination in the source's coordinates: `(batch, m, n):(db, _1, ld)`.
pub type Dst<M> = GlobalTensor<M, const_layout::Layout<(u32, u32, u32), (u32, C<1>, u32)>>;

/// The grid for a batch of `batch` `m x n` matrices, or `None` unless the grid covers them exactly
/// (`m`, `n` multiples of [`TILE`], `batch` of [`BATCHES_PER_BLOCK`]).
pub fn grid(batch: u32, m: u32, n: u32) -> Option<Dim3> {
    let t = TILE as u32;
    (m.is_multiple_of(t)
        && n.is_multiple_of(t)
        && batch.is_multiple_of(BATCHES_PER_BLOCK)
        && batch > 0
        && m > 0
        && n > 0)
        .then(|| Dim3 { x: n / t, y: m / t, z: batch / BATCHES_PER_BLOCK })
}

/// The block.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The first coordinate of thread `t`'s vector in the tile its thread and value layouts cover.
#[inline(always)]
fn first<Thr, Val>(thr: Thr, val: Val, t: Thread<THREADS>) -> (u32, u32)
where
    Thr: const_layout::layout::computed::StaticLayout,
    Val: const_layout::layout::computed::StaticLayout,
{
    let (tile, tv) = make_layout_tv(thr, val);
    composition(tile, tv).coord((t.get(), 0usize))
}

/// The kernel body: `dst = src` element by element (one shape), `src` read along its contiguous
/// mode 2, `dst` written along its contiguous mode 1; faults unless the grid is [`grid`]'s for the
/// shape, or the tensors do not allow 128-bit access. `smem` holds at least [`SMEM_BYTES`].
#[inline(always)]
pub fn transpose<MS, MD>(src: Src<MS>, dst: Dst<MD>, smem: SmemRegion)
where
    MS: Memory<Elem = f32>,
    MD: MemoryMut<Elem = f32>,
{
    let t = Thread::<THREADS>::index();
    if src.extents() != dst.extents() {
        fault("transpose: source and destination shapes differ");
    }
    let tile = SmemAllocator::new(smem).tensor::<f32, _>(swizzle::<3, 2, 6, _>(SmemRows::default()));
    let (r, w) = (
        first(ReadThreads::default(), ReadValues::default(), t),
        first(WriteThreads::default(), WriteValues::default(), t),
    );
    let (Some(src), Some(dst)) = (src.vectorized(), dst.vectorized()) else {
        fault("transpose: the tensors must allow 128-bit access (leading dimensions multiples of 4)");
    };
    let blk = block_idx();
    let coord = (blk.y, blk.x);
    // The block's matrices exist (checked once: each slice's own check then folds away).
    if (blk.z as usize + 1) * BATCHES_PER_BLOCK as usize > src.extents().0 {
        fault("transpose: the grid is not the shape's (see transpose::grid)");
    }
    unroll!(q in 0..16 => {
        let b = blk.z * BATCHES_PER_BLOCK + q as u32;
        let (Some(s), Some(d)) = (src.slice_first(b), dst.slice_first(b)) else {
            fault("transpose: the grid is not the shape's (see transpose::grid)");
        };
        transpose_tile(s, d, tile, coord, r, w);
    });
}

/// One tile of one matrix: rows in through 128-bit loads and stores, a barrier, columns out.
#[inline(always)]
fn transpose_tile<S, D>(
    s: S,
    d: D,
    tile: const_layout_device::SmemTensor<f32, SmemTile>,
    coord: (u32, u32),
    (ri, rj): (u32, u32),
    (wi, wj): (u32, u32),
) where
    S: DeviceTensor<Mem: Memory<Elem = f32>, Access = Vector4>,
    D: DeviceTensor<Mem: MemoryMut<Elem = f32>, Access = Vector4>,
{
    let (s, d) = (
        s.local_tile_full((C::<64>, C::<64>), coord).from((ri, rj)),
        d.local_tile_full((C::<64>, C::<64>), coord).from((wi, wj)),
    );
    let mut rows = [[0f32; 4]; 4];
    unroll!(k in 0..4 => {
        rows[k] = s.load_vec4((16 * k as u32, 0));
    });
    unroll!(k in 0..4 => {
        tile.store4((ri + 16 * k as u32, rj), rows[k]);
    });
    sync_threads();
    unroll!(q in 0..4 => {
        let (di, dj) = (32 * (q % 2) as u32, 32 * (q / 2) as u32);
        let mut column = [0f32; 4];
        unroll!(k in 0..4 => {
            column[k] = tile.load((wi + di + k as u32, wj + dj));
        });
        d.store_vec4((di, dj), column);
    });
    sync_threads();
}
