//! CuTe's tiled copy (`tiled_copy.cu`, with `tiled_copy_if.cu`'s predication): each block copies
//! a 128x64 tile; its 256 threads, laid out 32x8, each move a 4x1 vector of values, 8 times along
//! the tile's second mode. Source and destination may have any layouts of the same shape
//! (column-major, row-major, padded, ...); 128-bit accesses are used where both tensors allow
//! them along the first mode, single elements otherwise, and the residue of a shape that is not a
//! multiple of the tile is predicated.
//!
//! ```
//! use const_layout::{make_layout, C};
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{GlobalTensor, Gmem, GmemMut};
//! use const_layout_kernels::copy;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! let (m, n) = (130u32, 70u32);
//! let src: Vec<AtomicU32> = (0..m * n).map(AtomicU32::new).collect();
//! let dst: Vec<AtomicU32> = (0..m * n).map(|_| AtomicU32::new(0)).collect();
//! let l = make_layout((m, n), (C::<1>, m)).unwrap();
//! let s = GlobalTensor::new(Gmem::<u32>::from_cells(&src), l).unwrap();
//! let d = GlobalTensor::new(GmemMut::<u32>::from_cells(&dst), l).unwrap();
//! let cfg = LaunchConfig { grid: copy::grid(m, n), block: copy::block(), dynamic_smem_bytes: 0 };
//! launch(&cfg, || copy::copy(s, d)).unwrap();
//! assert!(dst.iter().enumerate().all(|(i, w)| w.load(Ordering::Relaxed) == i as u32));
//! ```

use const_layout::algebra::computed::{composition, make_layout_tv};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, GlobalTile, Memory, MemoryMut, Residue, Thread, Tiled, block_idx, fault, unroll,
};

/// Threads per block.
pub const THREADS: usize = 256;
/// The block's tile: CuTe's `block_shape`, `(_128,_64)`.
pub const TILE: (C<128>, C<64>) = (C, C);
/// The thread layout, `(_32,_8):(_1,_32)` (CuTe's `thr_layout`).
pub type ThrLayout = layout_type!((32, 8));
/// The value layout, `(_4,_1):(_1,_0)` (CuTe's `val_layout`: a 128-bit vector of `f32`).
pub type ValLayout = layout_type!((4, 1));

/// The grid for an `m x n` tensor: one block per tile.
pub fn grid(m: u32, n: u32) -> Dim3 {
    Dim3::xy(m.div_ceil(128), n.div_ceil(64))
}

/// The block: [`THREADS`] threads.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The kernel body: copy `src` into `dst` (same shape; faults otherwise).
#[inline(always)]
pub fn copy<S, D>(src: S, dst: D)
where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
{
    let t = Thread::<THREADS>::index();
    if src.extents() != dst.extents() {
        fault("copy: source and destination shapes differ");
    }
    let b = block_idx();
    // 128-bit vectors run along the first mode: both tensors need it as their unit-stride mode.
    let along_first = S::UNIT_MODE == Some(0) && D::UNIT_MODE == Some(0);
    match (src.vectorized(), dst.vectorized()) {
        (Some(s), Some(d)) if along_first => copy_block::<_, _, true>(s, d, (b.x, b.y), t),
        _ => copy_block::<_, _, false>(src, dst, (b.x, b.y), t),
    }
}

/// One block: its tile of each tensor, with or without predicates.
#[inline(always)]
fn copy_block<S, D, const VEC: bool>(src: S, dst: D, coord: (u32, u32), t: Thread<THREADS>)
where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
{
    match (src.local_tile(TILE, coord), dst.local_tile(TILE, coord)) {
        (Tiled::Full(s), Tiled::Full(d)) => copy_tile::<_, _, _, VEC>(s, d, t),
        (Tiled::Partial(s), Tiled::Partial(d)) => copy_tile::<_, _, _, VEC>(s, d, t),
        // Equal shapes cut equal tiles.
        _ => fault("copy: tiles differ"),
    }
}

/// One tile: each thread reads its 8 vectors into registers, then writes them; 128-bit accesses
/// with `VEC` (both tensors' unit-stride mode is the first), else element by element.
#[inline(always)]
fn copy_tile<S, D, P, const VEC: bool>(
    s: GlobalTile<S, 128, 64, P>,
    d: GlobalTile<D, 128, 64, P>,
    t: Thread<THREADS>,
) where
    S: DeviceTensor,
    D: DeviceTensor<Mem: MemoryMut<Elem = <S::Mem as Memory>::Elem>>,
    P: Residue,
{
    // CuTe's TiledCopy: (thread, value) -> coordinate in the 128x8 tile the threads cover.
    let (tile, tv) = make_layout_tv(ThrLayout::default(), ValLayout::default());
    let coords = composition(tile, tv);
    let (m, n): (u32, u32) = coords.coord((t.get(), 0usize));
    // The tiles as this thread sees them (CuTe's partition): its vectors are 8 apart along mode 1.
    let (s, d) = (s.from((m, n)), d.from((m, n)));
    let mut frag = [[<S::Mem as Memory>::Elem::default(); 4]; 8];
    unroll!(r in 0..8 => {
        let at = (0, 8 * r as u32);
        frag[r] = if VEC { s.load_vec4(at) } else { core::array::from_fn(|v| s.load_or_zero((v as u32, at.1))) };
    });
    unroll!(r in 0..8 => {
        let at = (0, 8 * r as u32);
        if VEC {
            d.store_vec4(at, frag[r]);
        } else {
            unroll!(v in 0..4 => {
                d.store((v as u32, at.1), frag[r][v]);
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::algebra::computed::{composition, make_layout_tv};

    /// The vector a thread moves is 4 consecutive elements of the first mode, and the threads
    /// cover the 128x8 tile once: what `copy_tile` relies on when it reads value 0 only.
    #[test]
    fn threads_cover_the_tile_with_vectors_along_the_first_mode() {
        let (_, tv) = make_layout_tv(ThrLayout::default(), ValLayout::default());
        let coords = composition(make_layout_tv(ThrLayout::default(), ValLayout::default()).0, tv);
        let mut seen = [[false; 8]; 128];
        for t in 0..THREADS {
            let first: (usize, usize) = coords.coord((t, 0usize));
            assert_eq!(first.0 % 4, 0);
            for v in 0..4 {
                let c: (usize, usize) = coords.coord((t, v));
                assert_eq!(c, (first.0 + v, first.1));
                assert!(!seen[c.0][c.1]);
                seen[c.0][c.1] = true;
            }
        }
        assert!(seen.iter().flatten().all(|&s| s));
    }
}
