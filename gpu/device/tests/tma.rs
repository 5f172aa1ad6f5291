//! TMA loads of 3-D and 4-D tensors (`tma::TmaTensor`) on the emulator: attention's `Q`, `K`, `V`
//! of shape (batch, heads, seq, dim) with PyTorch's strides, transposed storage included, boxes
//! with the 128-byte swizzle, zero fill past every dimension; the constructor's checks.

use const_layout::atom::tma::{TmaBox, TmaSwizzle};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::tma::{Mbarrier, TmaTensor};
use const_layout_device::{Dim3, Gmem, SmemRegion, thread_idx};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

const B128: TmaBox = TmaBox { inner: 64, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B128 };

/// A tensor's words: element `e` (of `elements`) holds `value(e)`'s low 16 bits.
fn words(elements: usize, value: impl Fn(usize) -> u32) -> Vec<AtomicU32> {
    (0..elements.div_ceil(2))
        .map(|w| AtomicU32::new(value(2 * w) & 0xffff | (value(2 * w + 1) & 0xffff) << 16))
        .collect()
}

/// The half at byte `byte` of the box TMA wrote, as the CUDA guide's 128-byte swizzle places
/// element `(r, c)`: byte `128 r + (2 c ^ 16 (r % 8))`.
fn box_half(tile: &[u32], r: usize, c: usize) -> u32 {
    let byte = 128 * r + ((2 * c) ^ ((r % 8) << 4));
    let w = tile[byte / 4];
    if byte.is_multiple_of(4) { w & 0xffff } else { w >> 16 }
}

/// Loads the 64 x 64 box at `coords` of `t` (through `load`, in one launch) and returns it.
fn load_box<const RANK: usize>(
    src: &[AtomicU32],
    dims: [u32; RANK],
    strides: [u64; RANK],
    coords: [u32; RANK],
) -> Vec<u32>
where
    (): const_layout_device::tma::TmaRank<RANK>,
{
    let out: Vec<AtomicU32> = (0..2048).map(|_| AtomicU32::new(0)).collect();
    let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 8192 + 1024 };
    launch(&cfg, || {
        let smem = SmemRegion::dynamic();
        let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(8192).unwrap(), [1]);
        let t = TmaTensor::emulated(Gmem::<u32>::from_cells(src), dims, strides, B128).unwrap();
        let tile = smem.array::<u32, 2048>(0).unwrap();
        if thread_idx().x == 0 {
            bar.arrive_expect_tx(B128.bytes());
            t.load(tile, coords, bar);
        }
        bar.wait(0);
        for w in (thread_idx().x as usize..2048).step_by(32) {
            out[w].store(tile.load(w), Relaxed);
        }
    })
    .unwrap();
    out.iter().map(|w| w.load(Relaxed)).collect()
}

#[test]
fn a_4d_tensor_stored_transposed_loads_one_heads_tile_with_zero_fill() {
    // q of shape (batch 2, heads 3, seq 70, dim 128) stored as (b, s, h, d): q.stride() =
    // (26880, 128, 384, 1); TMA's dims innermost first: [128, 70, 3, 2], strides [1, 384, 128, 26880].
    let (b, h, s, d) = (2usize, 3usize, 70usize, 128usize);
    let value =
        |bb: usize, hh: usize, ss: usize, dd: usize| (4096 * bb + 1024 * hh + 8 * ss + dd % 8) as u32 + 1;
    let elements = b * s * h * d;
    let src = words(elements, |e| {
        let (dd, hh, ss, bb) = (e % d, e / d % h, e / (d * h) % s, e / (d * h * s));
        if e < elements { value(bb, hh, ss, dd) } else { 0 }
    });
    let dims = [d as u32, s as u32, h as u32, b as u32];
    let strides = [1, (h * d) as u64, d as u64, (s * h * d) as u64];
    for coords in [[64u32, 32, 1, 1], [0, 0, 2, 0], [0, 64, 0, 1], [64, 0, 3, 0], [0, 0, 0, 2]] {
        let tile = load_box(&src, dims, strides, coords);
        for r in 0..64 {
            for c in 0..64 {
                let (dd, ss, hh, bb) =
                    (coords[0] as usize + c, coords[1] as usize + r, coords[2] as usize, coords[3] as usize);
                let want = if dd < d && ss < s && hh < h && bb < b { value(bb, hh, ss, dd) } else { 0 };
                assert_eq!(box_half(&tile, r, c), want, "coords {coords:?}: box ({r}, {c})");
            }
        }
    }
}

#[test]
fn a_3d_tensor_loads_like_its_2d_slices() {
    // (heads 4, seq 100, dim 64), contiguous: dims [64, 100, 4], strides [1, 64, 6400].
    let src = words(4 * 100 * 64, |e| e as u32 * 7 + 3);
    for coords in [[0u32, 0, 0], [0, 40, 3], [0, 99, 1]] {
        let tile = load_box(&src, [64, 100, 4], [1, 64, 6400], coords);
        for r in 0..64 {
            for c in 0..64 {
                let (ss, hh) = (coords[1] as usize + r, coords[2] as usize);
                let want = if ss < 100 { ((hh * 6400 + ss * 64 + c) as u32 * 7 + 3) & 0xffff } else { 0 };
                assert_eq!(box_half(&tile, r, c), want, "coords {coords:?}: box ({r}, {c})");
            }
        }
    }
}

#[test]
fn the_constructor_refuses_what_tma_cannot_load() {
    let w: Vec<AtomicU32> = (0..4096).map(|_| AtomicU32::new(0)).collect();
    let g = || Gmem::<u32>::from_cells(&w);
    assert!(TmaTensor::emulated(g(), [64, 16, 8], [1, 64, 1024], B128).is_some()); // 8192 elements
    assert!(TmaTensor::emulated(g(), [64, 16, 9], [1, 64, 1024], B128).is_none()); // past the words
    assert!(TmaTensor::emulated(g(), [64, 16, 8], [2, 128, 1024], B128).is_none()); // not contiguous
    assert!(TmaTensor::emulated(g(), [64, 16, 8], [1, 68, 1024], B128).is_none()); // 136 bytes
    assert!(TmaTensor::emulated(g(), [64, 0, 8], [1, 64, 1024], B128).is_none()); // empty
    assert!(
        TmaTensor::emulated(g(), [64, 16, 8], [1, 64, 1024], TmaBox { element_bits: 32, ..B128 }).is_none()
    );
    // Transposed strides are a tensor too: (d, h, s) with h innermost after d.
    assert!(TmaTensor::emulated(g(), [64, 8, 16], [1, 1024, 64], B128).is_some());
    assert!(
        TmaTensor::emulated(g(), [8, 8, 8, 8, 16], [1, 8, 64, 512, 4096], TmaBox { inner: 8, ..B128 })
            .is_none()
    );
    assert!(
        TmaTensor::emulated(g(), [8, 8, 8, 8, 2], [1, 8, 64, 512, 4096], TmaBox { inner: 8, ..B128 })
            .is_some()
    );
}

#[test]
fn a_load_into_a_misaligned_tile_fails_the_launch() {
    let w: Vec<AtomicU32> = (0..4096).map(|_| AtomicU32::new(0)).collect();
    let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 16384 };
    let e = launch(&cfg, || {
        let smem = SmemRegion::dynamic();
        let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(0).unwrap(), [1]);
        let t = TmaTensor::emulated(Gmem::<u32>::from_cells(&w), [64, 16, 8], [1, 64, 1024], B128).unwrap();
        if thread_idx().x == 0 {
            t.load(smem.array::<u32, 2048>(512).unwrap(), [0, 0, 0], bar);
        }
    })
    .unwrap_err();
    assert!(e.to_string().contains("misaligned for its swizzle"), "{e}");
}
