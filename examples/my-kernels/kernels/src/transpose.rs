//! Batched transpose: `dst[b, j, i] = src[b, i, j]` for a batch of `m x n` `f32` matrices, through
//! a swizzled shared-memory tile.
//!
//! Both tensors are rank 3 in `src`'s coordinates `(b, i, j)`: `src` is row-major in each
//! matrix, `(batch, m, n):(sb, ld, _1)`; `dst` stores `(b, i, j)` at `b db + i + j ld'`, so
//! `(batch, m, n):(db, _1, ld')`. A block takes one [`TILE`]` x `[`TILE`] tile of
//! [`BATCHES_PER_BLOCK`] consecutive matrices (`slices_first`: the setup of a block, its checks
//! and its threads' addresses, is done once for all of them, and each matrix's tile is one pointer
//! step from the previous one's), reading rows of the tile with 128-bit loads into shared memory
//! and writing columns with 128-bit stores. The shared
//! tile is `Sw<3,2,6> o (64,64):(64,1)` ([`SmemTile`]): the XOR moves each 16-byte chunk of a row
//! by the row's bits 2 to 4, so a row's 128-bit stores and a column's 32-bit reads are
//! conflict-free. The grid covers the tensor exactly (`m`, `n` multiples of 64, the batch a
//! multiple of [`BATCHES_PER_BLOCK`], checked on the host by [`grid`]): only whole tiles are
//! compiled.

use const_layout::layout::computed::{StaticSwizzled, composition, make_layout_tv, swizzle};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, Full, GlobalTensor, GlobalTile, Memory, MemoryMut, Shifted, SmemAllocator, SmemPlan,
    SmemRegion, Thread, Vector4, block_idx, fault, sync_threads, unroll,
};

/// Threads a block.
pub const THREADS: usize = 256;
/// The launch bounds' minimum of blocks a multiprocessor holds: with [`THREADS`], at most 40
/// registers a thread (6 blocks of 17 KiB of shared memory a multiprocessor). `ptxas` fills the
/// registers a bound allows with loads hoisted across the barriers: without bounds it assumes
/// blocks of 1024 threads (64 registers) and reloads constants to fit; at 4 blocks (64 registers)
/// it does the same; at 6 it keeps to the kernel as written. (The twin's `__launch_bounds__(256)`
/// has no minimum, which the builder cannot write: `ptxas` takes 62 registers there, and spills
/// with a minimum of 6.)
pub const BLOCKS_PER_SM: usize = 6;
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
    let tile = SmemAllocator::new(smem).tensor::<f32, _>(swizzle::<3, 2, 6, _>(SmemRows::default()));
    let (r, w) = (
        first(ReadThreads::default(), ReadValues::default(), t),
        first(WriteThreads::default(), WriteValues::default(), t),
    );
    let blk = block_idx();
    let coord = (blk.y, blk.x);
    // The block's checks, once for its 16 matrices and joined into one branch: one shape, 128-bit
    // access, the block's matrices in the batch (`slices_first`) and its tile whole (on the first
    // matrix). Each matrix's tile is then one pointer step from the previous one's.
    let b = blk.z * BATCHES_PER_BLOCK;
    let checked = (|| {
        if src.extents() != dst.extents() {
            return None;
        }
        let (src, dst) = (src.vectorized()?, dst.vectorized()?);
        let (ss, ds) = (src.slices_first::<16>(b)?, dst.slices_first::<16>(b)?);
        let whole = (
            ss.first().local_tile_as::<Full, 64, 64>((C, C), coord)?,
            ds.first().local_tile_as::<Full, 64, 64>((C, C), coord)?,
        );
        Some((ss.tiles(whole.0.from(r)), ds.tiles(whole.1.from(w))))
    })();
    let Some((mut s_tiles, mut d_tiles)) = checked else {
        fault(
            "transpose: the shapes differ, a leading dimension is not a multiple of 4, or the grid is \
             not the shape's (see transpose::grid)",
        );
    };
    unroll!(_q in 0..16 => {
        let (Some(s), Some(d)) = (s_tiles.next(), d_tiles.next()) else {
            fault("transpose: fewer tiles than matrices");
        };
        transpose_tile(s, d, tile, r, w);
    });
}

/// One tile of one matrix, seen from the thread's first coordinates (`(ri, rj)` in `s`, `(wi, wj)`
/// in `d`): rows in through 128-bit loads and stores, a barrier, columns out.
#[inline(always)]
fn transpose_tile<S, D>(
    s: GlobalTile<S, 64, 64, Shifted>,
    d: GlobalTile<D, 64, 64, Shifted>,
    tile: const_layout_device::SmemTensor<f32, SmemTile>,
    (ri, rj): (u32, u32),
    (wi, wj): (u32, u32),
) where
    S: DeviceTensor<Mem: Memory<Elem = f32>, Access = Vector4>,
    D: DeviceTensor<Mem: MemoryMut<Elem = f32>, Access = Vector4>,
{
    // The shared tile seen from the thread's first coordinates: rows 32 apart (2048 elements, past
    // the swizzle's bits) share an address register, the rest folds into the immediate.
    let (tr, tw) = (tile.from((ri, rj)), tile.from((wi, wj)));
    let mut rows = [[0f32; 4]; 4];
    unroll!(k in 0..4 => {
        rows[k] = s.load_vec4((16 * k as u32, 0));
    });
    unroll!(k in 0..4 => {
        tr.store4((16 * k as u32, 0u32), rows[k]);
    });
    sync_threads();
    unroll!(q in 0..4 => {
        let (di, dj) = (32 * (q % 2) as u32, 32 * (q / 2) as u32);
        let mut column = [0f32; 4];
        unroll!(k in 0..4 => {
            column[k] = tw.load((di + k as u32, dj));
        });
        d.store_vec4((di, dj), column);
    });
    sync_threads();
}
