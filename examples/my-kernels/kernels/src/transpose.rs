//! Batched transpose: `dst[b, j, i] = src[b, i, j]` for a batch of `m x n` `f32` matrices, through
//! a swizzled shared-memory tile.
//!
//! Both tensors are rank 3 in `src`'s coordinates `(b, i, j)`: `src` is row-major in each
//! matrix, `(batch, m, n):(sb, ld, _1)`; `dst` stores `(b, i, j)` at `b db + i + j ld'`, so
//! `(batch, m, n):(db, _1, ld')`. A block takes one [`TILE`]` x `[`TILE`] tile of one matrix
//! (`slice_first`), reading rows of the tile with 128-bit loads into shared memory and writing
//! columns with 128-bit stores. The shared tile is `Sw<3,2,6> o (64,64):(64,1)` ([`SmemTile`]):
//! the XOR moves each 16-byte chunk of a row by the row's bits 2 to 4, so a row's 128-bit stores
//! and a column's 32-bit reads are conflict-free. The grid covers the tensor exactly (`m`, `n`
//! multiples of 64, checked on the host by [`grid`]): only whole tiles are compiled, and the
//! block's checks are one branch.
//!
//! One matrix a block was measured against 16 (a loop over the same tile of 16 consecutive
//! matrices, the block's setup shared) and 16 software-pipelined (the next matrix's rows loaded
//! during the current one's writes), in Rust and in CUDA C++ alike: on the H200, 64 x 2048 x 2048,
//! 0.516 ms against 0.552 and 0.555 (98.5% of `cuMemcpyDtoD`'s bandwidth against 92%). Many short
//! blocks overlap one another's loads and stores; a block's loop of 16 serializes them at its
//! barriers.

use const_layout::algebra::computed::{StaticSwizzled, composition, make_layout_tv, swizzle};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, Full, GlobalTensor, GlobalTile, Memory, MemoryMut, Shifted, SmemAllocator, SmemPlan,
    SmemRegion, Thread, Vector4, block_idx, fault, sync_threads, unroll,
};

/// Threads a block.
pub const THREADS: usize = 256;
/// The launch bounds' minimum of blocks a multiprocessor holds: with [`THREADS`], at most 40
/// registers a thread (6 blocks of 17 KiB of shared memory a multiprocessor). Without a minimum
/// `ptxas` assumes blocks of 1024 threads (64 registers) and may fill them with loads hoisted
/// across the barrier; the kernel needs fewer.
pub const BLOCKS_PER_SM: usize = 6;
/// The tile's extent in each mode.
pub const TILE: usize = 64;

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

/// The grid for a batch of `batch` `m x n` matrices, one block a tile of a matrix, `(n/64, m/64,
/// batch)`, or `None` unless the grid covers them exactly (`m`, `n` multiples of [`TILE`], all
/// three positive).
pub fn grid(batch: u32, m: u32, n: u32) -> Option<Dim3> {
    let t = TILE as u32;
    (m.is_multiple_of(t) && n.is_multiple_of(t) && batch > 0 && m > 0 && n > 0).then(|| Dim3 {
        x: n / t,
        y: m / t,
        z: batch,
    })
}

/// The block.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The first coordinate of thread `t`'s vector in the tile its thread and value layouts cover.
#[inline(always)]
fn first<Thr, Val>(thr: Thr, val: Val, t: Thread<THREADS>) -> (u32, u32)
where
    Thr: const_layout::algebra::computed::StaticLayout,
    Val: const_layout::algebra::computed::StaticLayout,
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
    // The block's checks, joined into one branch: one shape, 128-bit access, the block's matrix in
    // the batch and its tile whole (the exact-cover idiom: only the full tile is compiled).
    let checked = (|| {
        if src.extents() != dst.extents() {
            return None;
        }
        let (src, dst) = (src.vectorized()?, dst.vectorized()?);
        let (s, d) = (src.slice_first(blk.z)?, dst.slice_first(blk.z)?);
        Some((
            s.local_tile_as::<Full, 64, 64>((C, C), coord)?.from(r),
            d.local_tile_as::<Full, 64, 64>((C, C), coord)?.from(w),
        ))
    })();
    let Some((s, d)) = checked else {
        fault(
            "transpose: the shapes differ, a leading dimension is not a multiple of 4, or the grid is \
             not the shape's (see transpose::grid)",
        );
    };
    store_rows(tile.from(r), load_rows(s));
    sync_threads();
    write_columns(d, tile.from(w));
}

/// A thread's view of the shared tile.
type SmemView = const_layout_device::SmemFrom<f32, SmemTile>;

/// A thread's 4 rows of a tile (16 apart), 128-bit loads.
#[inline(always)]
fn load_rows<S>(s: GlobalTile<S, 64, 64, Shifted>) -> [[f32; 4]; 4]
where
    S: DeviceTensor<Mem: Memory<Elem = f32>, Access = Vector4>,
{
    let mut rows = [[0f32; 4]; 4];
    unroll!(k in 0..4 => {
        rows[k] = s.load_vec4((16 * k as u32, 0));
    });
    rows
}

/// A thread's 4 rows into the shared tile (seen from its first read coordinate: rows 32 apart,
/// 2048 elements, past the swizzle's bits, share an address register; the rest folds into the
/// immediate), 128-bit stores.
#[inline(always)]
fn store_rows(tr: SmemView, rows: [[f32; 4]; 4]) {
    unroll!(k in 0..4 => {
        tr.store4((16 * k as u32, 0u32), rows[k]);
    });
}

/// A thread's 4 columns of 4 out of the shared tile (seen from its first write coordinate), each
/// gathered from 4 rows and stored with one 128-bit store.
#[inline(always)]
fn write_columns<D>(d: GlobalTile<D, 64, 64, Shifted>, tw: SmemView)
where
    D: DeviceTensor<Mem: MemoryMut<Elem = f32>, Access = Vector4>,
{
    unroll!(q in 0..4 => {
        let (di, dj) = (32 * (q % 2) as u32, 32 * (q / 2) as u32);
        let mut column = [0f32; 4];
        unroll!(k in 0..4 => {
            column[k] = tw.load((di + k as u32, dj));
        });
        d.store_vec4((di, dj), column);
    });
}
