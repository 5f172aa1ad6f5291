//! A transpose through a swizzled shared-memory tile: copy an `m x n` tensor laid out row-major
//! into the same shape laid out column-major, 64x64 per block.
//!
//! Both global sides move 128-bit vectors along their unit-stride mode: the block reads its tile
//! row by row (4 consecutive elements of a row per thread, 16 threads per row) into shared
//! memory, synchronizes, and writes it column by column (4 consecutive elements of a column per
//! thread, gathered from four rows). Shared memory is the 64x64 row-major tile composed with the
//! swizzle `Sw<3,2,6>`: the XOR moves each 16-byte chunk of a row by the row's bits 2..5, which
//! keeps a row's 128-bit stores conflict-free and spreads a column's 32-bit reads over all 32
//! banks (checked in the tests against the thread layouts the kernel uses). Shapes that are not
//! multiples of 64 are predicated; tensors that do not allow 128-bit access (a leading dimension
//! that is not a multiple of 4) take the same path element by element.
//!
//! ```
//! use const_layout::{make_layout, C};
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{GlobalTensor, Gmem, GmemMut, SmemRegion};
//! use const_layout_kernels::transpose;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! let (m, n) = (70u32, 100u32);
//! let src: Vec<AtomicU32> = (0..m * n).map(AtomicU32::new).collect();
//! let dst: Vec<AtomicU32> = (0..m * n).map(|_| AtomicU32::new(0)).collect();
//! let s = GlobalTensor::new(Gmem::<u32>::from_cells(&src), make_layout((m, n), (n, C::<1>)).unwrap()).unwrap();
//! let d = GlobalTensor::new(GmemMut::<u32>::from_cells(&dst), make_layout((m, n), (C::<1>, m)).unwrap()).unwrap();
//! let cfg = LaunchConfig { grid: transpose::grid(m, n), block: transpose::block(), dynamic_smem_bytes: transpose::SMEM_BYTES };
//! launch(&cfg, || transpose::transpose(s, d, SmemRegion::dynamic())).unwrap();
//! // Element (i, j) is at i * n + j in the source and at i + j * m in the destination.
//! assert_eq!(dst[3 + 5 * 70].load(Ordering::Relaxed), 3 * 100 + 5);
//! ```

use const_layout::algebra::computed::{StaticSwizzled, composition, make_layout_tv, swizzle};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, GlobalTile, Memory, MemoryMut, Residue, SmemArray, SmemRegion, Thread, Tiled,
    block_idx, fault, sync_threads, unroll,
};

/// Threads per block.
pub const THREADS: usize = 256;
/// The block's tile.
pub const TILE: (C<64>, C<64>) = (C, C);
/// Shared memory per block: one 64x64 tile of 32-bit words.
pub const SMEM_BYTES: u32 = 64 * 64 * 4;

/// The shared tile before the swizzle: 64x64 row-major.
pub type SmemTile = layout_type!((64, 64):(64, 1));
/// The shared tile: `Sw<3,2,6> o _0 o (_64,_64):(_64,_1)`.
pub type SmemLayout = StaticSwizzled<3, 2, 6, SmemTile>;
/// Reading: 16x16 threads, 16 along a row (row-major thread layout), each a 1x4 vector of a row.
pub type ReadThreads = layout_type!((16, 16):(16, 1));
/// A thread's vector when reading: 4 consecutive elements of a row.
pub type ReadValues = layout_type!((1, 4));
/// Writing: 8x32 threads, 8 along a column, each a 4x1 vector of a column.
pub type WriteThreads = layout_type!((8, 32));
/// A thread's vector when writing: 4 consecutive elements of a column.
pub type WriteValues = layout_type!((4, 1));

/// The shared-memory layout.
pub fn smem_layout() -> SmemLayout {
    swizzle::<3, 2, 6, _>(SmemTile::default())
}

/// The grid for an `m x n` tensor: one block per 64x64 tile.
pub fn grid(m: u32, n: u32) -> Dim3 {
    Dim3::xy(m.div_ceil(64), n.div_ceil(64))
}

/// The block: [`THREADS`] threads.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The kernel body: `dst = src` element by element, `src` read along its unit-stride mode 1
/// (row-major), `dst` written along its unit-stride mode 0 (column-major); the shapes must be
/// equal (faults otherwise). `smem` holds at least [`SMEM_BYTES`].
#[inline(always)]
pub fn transpose<S, D>(src: S, dst: D, smem: SmemRegion)
where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
{
    const {
        assert!(
            matches!(S::UNIT_MODE, Some(1)) && matches!(D::UNIT_MODE, Some(0)),
            "transpose reads a row-major source and writes a column-major destination"
        );
    }
    let t = Thread::<THREADS>::index();
    if src.extents() != dst.extents() {
        fault("transpose: source and destination shapes differ");
    }
    let Some(tile) = smem.array::<<S::Mem as Memory>::Elem, 4096>(0) else {
        fault("transpose: the block has less shared memory than SMEM_BYTES");
    };
    let b = block_idx();
    match (src.vectorized(), dst.vectorized()) {
        (Some(s), Some(d)) => transpose_block(s, d, tile, (b.x, b.y), t),
        _ => transpose_block(src, dst, tile, (b.x, b.y), t),
    }
}

#[inline(always)]
fn transpose_block<S, D>(
    src: S,
    dst: D,
    tile: SmemArray<<S::Mem as Memory>::Elem, 4096>,
    coord: (u32, u32),
    t: Thread<THREADS>,
) where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
{
    match (src.local_tile(TILE, coord), dst.local_tile(TILE, coord)) {
        (Tiled::Full(s), Tiled::Full(d)) => transpose_tile(s, d, tile, t),
        (Tiled::Partial(s), Tiled::Partial(d)) => transpose_tile(s, d, tile, t),
        _ => fault("transpose: tiles differ"),
    }
}

/// The first coordinate of thread `t`'s vector in the tile its thread and value layouts cover.
#[inline(always)]
fn first_coord<Thr, Val>(thr: Thr, val: Val, t: Thread<THREADS>) -> (u32, u32)
where
    Thr: const_layout::algebra::computed::StaticLayout,
    Val: const_layout::algebra::computed::StaticLayout,
{
    let (tile, tv) = make_layout_tv(thr, val);
    composition(tile, tv).coord((t.get(), 0usize))
}

#[inline(always)]
fn transpose_tile<S, D, P>(
    s: GlobalTile<S, 64, 64, P>,
    d: GlobalTile<D, 64, 64, P>,
    tile: SmemArray<<S::Mem as Memory>::Elem, 4096>,
    t: Thread<THREADS>,
) where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
    P: Residue,
{
    let sw = smem_layout();
    // Rows in: the 16x64 band the read layouts cover, four times down the tile.
    let (m, n) = first_coord(ReadThreads::default(), ReadValues::default(), t);
    let mut rows = [[<S::Mem as Memory>::Elem::default(); 4]; 4];
    let from = s.from((m, n));
    unroll!(r in 0..4 => {
        rows[r] = from.load_vec4((16 * r as u32, 0));
    });
    unroll!(r in 0..4 => {
        tile.store4(sw.crd2idx((m + 16 * r as u32, n)) as usize, rows[r]);
    });
    sync_threads();
    // Columns out: the 32x32 block the write layouts cover, twice down and twice across.
    let (m, n) = first_coord(WriteThreads::default(), WriteValues::default(), t);
    let to = d.from((m, n));
    unroll!(q in 0..4 => {
        let (di, dj) = (32 * (q % 2) as u32, 32 * (q / 2) as u32);
        let (i, j) = (m + di, n + dj);
        let mut column = [<S::Mem as Memory>::Elem::default(); 4];
        unroll!(k in 0..4 => {
            column[k] = tile.load(sw.crd2idx((i + k as u32, j)) as usize);
        });
        to.store_vec4((di, dj), column);
    });
}
