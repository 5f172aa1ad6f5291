//! Static index math inside kernel-like loops, against the same loops with hand-written index
//! arithmetic, in the same run. The goal: the same speed.
//!
//! Each group has two functions with the same loop structure: `const-layout` takes every offset
//! from a static layout's `crd2idx` / `idx2crd` (written with `layout!`), `hand-written` computes
//! the same offsets with explicit `%`, `/`, `*`, `^`. Inputs (the source data, the tile
//! coordinate) are black-boxed and the output buffers are preallocated outside `b.iter` and
//! black-boxed after each iteration, so that nothing folds away. Before timing, each group runs
//! both loops once and checks that they write identical output buffers.
//!
//! - `tiled copy`: a 128x128 tile at a runtime tile coordinate of a row-major 512x512 `f32` matrix
//!   in "global memory", copied to a column-major 128x128 tile buffer, partitioned as CuTe
//!   partitions a copy: 256 threads `(32,8)`, each copying a `(4,16)` block of values (outer loop
//!   over threads, inner over values, integer thread and value indices).
//! - `tiled copy idx2crd`: the same copy over a flat index `0..16384` of the destination tile,
//!   each index turned into a `(row, col)` coordinate by `idx2crd`.
//! - `swizzled smem store`: a 64x64 `f16` (here `u16`) tile stored into shared memory with the
//!   128-byte swizzle, `Sw<3,3,3> o (64,64):(64,1)`.

use const_layout::layout;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// The global matrix: 512x512, row-major.
const GM: usize = 512;
/// The tile: 128x128.
const TILE: usize = 128;

/// `0, 1, 2, ...` as `f32` (exact: below 2^24), so that a misplaced element shows.
fn global_matrix() -> Vec<f32> {
    (0..GM * GM).map(|i| i as f32).collect()
}

/// A tiled-copy kernel: source matrix, destination tile, tile coordinate.
type Copy = fn(&[f32], &mut [f32], (usize, usize));

/// Runs a const-layout copy kernel and its hand-written twin once, checks that they write the same
/// tile and that `spot` (a destination index and its source index) is right, then benchmarks both.
fn copy_pair(
    c: &mut Criterion,
    name: &str,
    (const_layout, hand_written): (Copy, Copy),
    tile: (usize, usize),
    spot: (usize, usize),
) {
    let src = global_matrix();
    let tile = (black_box(tile.0), black_box(tile.1));
    let mut out_cl = vec![0f32; TILE * TILE];
    let mut out_hw = vec![0f32; TILE * TILE];
    const_layout(&src, &mut out_cl, tile);
    hand_written(&src, &mut out_hw, tile);
    assert_eq!(out_cl, out_hw);
    assert_eq!(out_cl[spot.0], src[spot.1]);

    let mut g = c.benchmark_group(name);
    for (label, kernel, out) in
        [("const-layout", const_layout, &mut out_cl), ("hand-written", hand_written, &mut out_hw)]
    {
        g.bench_function(label, |b| {
            b.iter(|| {
                kernel(black_box(&src), out, black_box(tile));
                black_box(&mut *out);
            })
        });
    }
    g.finish();
}

fn tiled_copy(c: &mut Criterion) {
    copy_pair(
        c,
        "tiled copy 128x128 f32, threads (32,8) x values (4,16)",
        (copy_tv_const_layout, copy_tv_hand_written),
        (2, 1),
        (3 + 5 * TILE, (2 * TILE + 3) * GM + TILE + 5),
    );
}

fn tiled_copy_idx2crd(c: &mut Criterion) {
    copy_pair(
        c,
        "tiled copy 128x128 f32, idx2crd over 0..16384",
        (copy_idx2crd_const_layout, copy_idx2crd_hand_written),
        (1, 3),
        (3 + 5 * TILE, (TILE + 3) * GM + 3 * TILE + 5),
    );
}

fn swizzled_store(c: &mut Criterion) {
    // The values to store, row-major (a thread block's registers, say).
    let data: Vec<u16> = (0..N * N).map(|i| i as u16).collect();
    let mut out_cl = vec![0u16; N * N];
    let mut out_hw = vec![0u16; N * N];

    let (const_layout, hand_written) = (swizzled_store_const_layout, swizzled_store_hand_written);
    const_layout(&data, &mut out_cl);
    hand_written(&data, &mut out_hw);
    assert_eq!(out_cl, out_hw);
    // Row 2, column 8 (chunk 1): chunk 1 ^ 2 = 3.
    assert_eq!(out_cl[2 * N + 3 * 8], data[2 * N + 8]);

    let mut g = c.benchmark_group("swizzled smem store Sw<3,3,3> o (64,64):(64,1), u16");
    g.bench_function("const-layout", |b| {
        b.iter(|| {
            const_layout(black_box(&data), &mut out_cl);
            black_box(&mut out_cl);
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            hand_written(black_box(&data), &mut out_hw);
            black_box(&mut out_hw);
        })
    });
    g.finish();
}

// The kernels. `#[inline(never)]`, so that each twin is one function in the assembly
// (`cargo rustc -p const-layout-benches --release --bench kernel_loops -- --emit asm`) and both
// sides are compiled alike.

/// The tiled copy, CuTe's thread/value partition. One tile of the source (stride 512 between rows)
/// and the destination tile (column-major), each divided into `(4,16)` value blocks:
/// `((4,16),(32,8))`, mode 0 the value index `v` (`v % 4` the row in the block, `v / 4` the
/// column), mode 1 the thread index `t` (`t % 32` the block row, `t / 32` the block column). Thread
/// `t`'s value `v` is at `crd2idx((v, t))` in each.
#[inline(never)]
fn copy_tv_const_layout(src: &[f32], dst: &mut [f32], (tm, tn): (usize, usize)) {
    // The matrix cut into 128x128 tiles, `((128,128),(4,4)):((512,1),(65536,128))`: element
    // `(0, (tm, tn))` is the tile's base offset, CuTe's `local_tile`.
    let tiles = layout!(zipped_divide((512,512):(512,1), <128:1, 128:1>));
    let src_tv = layout!(zipped_divide((128,128):(512,1), <4:1, 16:1>));
    let dst_tv = layout!(zipped_divide((128,128):(1,128), <4:1, 16:1>));
    let src = &src[tiles.crd2idx((0usize, (tm, tn))) as usize..];
    for t in 0..256usize {
        for v in 0..64usize {
            dst[dst_tv.crd2idx((v, t)) as usize] = src[src_tv.crd2idx((v, t)) as usize];
        }
    }
}
#[inline(never)]
fn copy_tv_hand_written(src: &[f32], dst: &mut [f32], (tm, tn): (usize, usize)) {
    let src = &src[tm * TILE * GM + tn * TILE..];
    for t in 0..256usize {
        for v in 0..64usize {
            let (row, col) = ((t % 32) * 4 + v % 4, (t / 32) * 16 + v / 4);
            dst[row + col * TILE] = src[row * GM + col];
        }
    }
}

/// The tiled copy over a flat index of the destination tile (column-major: `idx2crd(i)` is
/// `(i % 128, i / 128)`), the coordinate's offsets in the destination and in the source tile.
#[inline(never)]
fn copy_idx2crd_const_layout(src: &[f32], dst: &mut [f32], (tm, tn): (usize, usize)) {
    // The matrix cut into 128x128 tiles, `((128,128),(4,4)):((512,1),(65536,128))`: element
    // `(0, (tm, tn))` is the tile's base offset, CuTe's `local_tile`.
    let tiles = layout!(zipped_divide((512,512):(512,1), <128:1, 128:1>));
    let dst_tile = layout!((128,128):(1,128));
    let src_tile = layout!((128,128):(512,1));
    let src = &src[tiles.crd2idx((0usize, (tm, tn))) as usize..];
    for i in 0..TILE * TILE {
        let crd = dst_tile.idx2crd(i);
        dst[dst_tile.crd2idx(crd) as usize] = src[src_tile.crd2idx(crd) as usize];
    }
}
#[inline(never)]
fn copy_idx2crd_hand_written(src: &[f32], dst: &mut [f32], (tm, tn): (usize, usize)) {
    let src = &src[tm * TILE * GM + tn * TILE..];
    for i in 0..TILE * TILE {
        let (row, col) = (i % TILE, i / TILE);
        dst[row + col * TILE] = src[row * GM + col];
    }
}

/// The shared-memory tile: 64x64 halves.
const N: usize = 64;

/// The 128-byte swizzle of a half-precision shared-memory tile (CuTe's SM80 GEMMs use
/// `composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})` as the atom; here the
/// whole 64x64 tile): rows of 64 halves (128 bytes), the 16-byte chunk index (offset bits 3..6)
/// XORed with the row modulo 8 (offset bits 6..9), so that a column of 8 consecutive rows hits 8
/// different bank groups. Stores a row-major tile of values.
#[inline(never)]
fn swizzled_store_const_layout(data: &[u16], smem: &mut [u16]) {
    let layout = layout!(composition(Sw<3,3,3>, (64,64):(64,1)));
    for (r, row) in data.chunks_exact(N).enumerate() {
        for (c, &x) in row.iter().enumerate() {
            smem[layout.crd2idx((r, c)) as usize] = x;
        }
    }
}
#[inline(never)]
fn swizzled_store_hand_written(data: &[u16], smem: &mut [u16]) {
    for (r, row) in data.chunks_exact(N).enumerate() {
        for (c, &x) in row.iter().enumerate() {
            let off = r * N + c;
            smem[off ^ ((off >> 3) & (0b111 << 3))] = x;
        }
    }
}

criterion_group!(benches, tiled_copy, tiled_copy_idx2crd, swizzled_store);
criterion_main!(benches);
