//! A tiled transpose written with tensors, next to the same loop written by hand.
//!
//! `dst = src^T` for an `n x n` row-major `f32` matrix `src`: `dst` is `src` seen column-major,
//! so the transpose copies from one layout of the matrix to the other. It goes block by block
//! (128x128, so that a block's source rows and destination columns stay in the cache) and, inside
//! a block, tile by tile (16x16), exactly as the hand-written twin below does; the tiles are
//! [`local_tile`]s of static shape over the runtime-sized matrix, and a tile's elements are
//! copied by coordinate. (`tensor::copy(&ta, &mut tb)` does the same, but with the matrix's
//! runtime stride it plans the copy at run time, about 370 instructions a call: 1.28x the
//! hand-written loop's instructions on 16x16 tiles, where indexing is 0.87x.)
//!
//! ```sh
//! cargo run --release --example transpose            # 2048 x 2048, both ways, checked
//! cargo run --release --example transpose -- layout 1024   # one kernel, for callgrind
//! ```
//!
//! `benches/transpose.rs` times both next to `memcpy` and ndarray's transpose-and-copy;
//! `tools/kernel_counts.sh` counts their instructions.

use const_layout::tensor::{TensorError, local_tile, make_tensor, make_tensor_mut};
use const_layout::{C, LayoutLeft, LayoutRight, make_layout};

/// The block edge: a block's 128 source rows and 128 destination columns fit in L2.
pub const BLOCK: usize = 128;
/// The tile edge: one tile's rows and columns are 16 cache lines each.
pub const TILE: usize = 16;

/// The transpose with layouts: `dst` (column-major) gets `src` (row-major), block by block and
/// tile by tile. `n` must be a multiple of [`BLOCK`] (else `TensorError::NotDivisible`), and the
/// slices at least `n * n` long (else an error naming the lengths).
#[inline(never)]
pub fn transpose_layout(src: &[f32], dst: &mut [f32], n: usize) -> Result<(), TensorError> {
    if !n.is_multiple_of(BLOCK) {
        return Err(TensorError::NotDivisible { mode: 0, extent: n as isize, tile: BLOCK as isize });
    }
    let a = make_tensor(src, make_layout((n, n), LayoutRight)?)?;
    let mut b = make_tensor_mut(dst, make_layout((n, n), LayoutLeft)?)?;
    let (block, tile) = (
        (C::<{ BLOCK as isize }>, C::<{ BLOCK as isize }>),
        (C::<{ TILE as isize }>, C::<{ TILE as isize }>),
    );
    for bi in 0..n / BLOCK {
        for bj in 0..n / BLOCK {
            let ga = local_tile(&a, block, (bi, bj))?;
            let mut gb = local_tile(&mut b, block, (bi, bj))?;
            for ti in 0..BLOCK / TILE {
                for tj in 0..BLOCK / TILE {
                    let ta = local_tile(&ga, tile, (ti, tj))?;
                    let mut tb = local_tile(&mut gb, tile, (ti, tj))?;
                    // Down a column of the destination: its writes are contiguous.
                    for j in 0..TILE {
                        for i in 0..TILE {
                            tb[(i, j)] = ta[(i, j)];
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The same loop by hand (the fastest of the blockings tried: 128 and 16).
#[inline(never)]
pub fn transpose_hand(src: &[f32], dst: &mut [f32], n: usize) {
    assert!(n.is_multiple_of(BLOCK) && src.len() >= n * n && dst.len() >= n * n);
    for bi in (0..n).step_by(BLOCK) {
        for bj in (0..n).step_by(BLOCK) {
            for ti in (bi..bi + BLOCK).step_by(TILE) {
                for tj in (bj..bj + BLOCK).step_by(TILE) {
                    for j in tj..tj + TILE {
                        for i in ti..ti + TILE {
                            dst[j * n + i] = src[i * n + j];
                        }
                    }
                }
            }
        }
    }
}

/// The plain double loop, for reference.
#[inline(never)]
pub fn transpose_naive(src: &[f32], dst: &mut [f32], n: usize) {
    for i in 0..n {
        for j in 0..n {
            dst[j * n + i] = src[i * n + j];
        }
    }
}

/// `n * n` distinct values.
pub fn matrix(n: usize) -> Vec<f32> {
    (0..n * n).map(|x| x as f32).collect()
}

/// Whether `dst` is `src` transposed.
pub fn is_transpose(src: &[f32], dst: &[f32], n: usize) -> bool {
    (0..n).all(|i| (0..n).all(|j| dst[j * n + i] == src[i * n + j]))
}

#[allow(dead_code)] // the benchmark includes this file for its kernels
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map(String::as_str).unwrap_or("both");
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(2048);
    let src = matrix(n);
    let mut dst = vec![0.0f32; n * n];
    if matches!(which, "layout" | "both") {
        transpose_layout(&src, &mut dst, n).map_err(|e| e.to_string())?;
        assert!(is_transpose(&src, &dst, n));
        println!("layout: {n} x {n} transposed");
    }
    if matches!(which, "hand" | "both") {
        dst.fill(0.0);
        transpose_hand(&src, &mut dst, n);
        assert!(is_transpose(&src, &dst, n));
        println!("hand:   {n} x {n} transposed");
    }
    if !matches!(which, "layout" | "hand" | "both") {
        return Err(format!("unknown kernel `{which}`: layout, hand or both").into());
    }
    Ok(())
}
