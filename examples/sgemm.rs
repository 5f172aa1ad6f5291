//! A tiled SGEMM written with tensors, next to the same loop written by hand.
//!
//! `C += A * B` with row-major `A` `(M,K)`, `B` `(K,N)` and `C` `(M,N)`: block tiles of
//! `(_64,_64,_64)`, each block of `A` and `B` first [`copy`]'d into a packed buffer with a static
//! layout (CuTe's global-to-shared staging), and inside a block a `(_4,_8)` register tile of `C`
//! (32 accumulators) swept along `K`. Every tile is a [`local_tile`] of static shape (over the
//! runtime-sized matrices, or over the static packed blocks), and every element is read by its
//! coordinate in a tile, as a CuTe kernel reads it; the hand-written twin has the same loops with
//! the index arithmetic spelled out. Packing is what lets the optimizer see constant offsets and
//! vectorize the inner loop (without it: 1.40x the twin's instructions, both scalar), and the C
//! tile is read and written a row at a time through `slice((r, Keep))`, a static `(_8):(_1)` view
//! whose accesses need no range check (by coordinate over the runtime row stride: 1.14x).
//!
//! ```sh
//! cargo run --release --example sgemm             # 256^3, both ways, checked against a reference
//! cargo run --release --example sgemm -- layout 128   # one kernel, for callgrind
//! ```
//!
//! `benches/sgemm.rs` times both next to the `matrixmultiply` crate's `sgemm`;
//! `tools/kernel_counts.sh` counts their instructions.

use const_layout::tensor::{Keep, TensorError, copy, local_tile, make_tensor, make_tensor_mut};
use const_layout::{C, LayoutRight, layout_type, make_layout};

/// The block edge (M, N and K).
pub const BLOCK: usize = 64;
/// The register tile: rows of `C`.
pub const MR: usize = 4;
/// The register tile: columns of `C` (two 4-wide vectors).
pub const NR: usize = 8;

type Static<const V: isize> = C<V>;
const B: isize = BLOCK as isize;
const R: isize = MR as isize;
const Q: isize = NR as isize;

/// A packed block: `(_64,_64)` row-major, a static layout (CuTe's shared-memory tile).
type Packed = layout_type!((64,64):(64,1));

/// `C += A * B` with tensors. `m`, `n`, `k` must be multiples of [`BLOCK`]
/// (else `TensorError::NotDivisible`); the slices must hold the matrices.
#[inline(never)]
pub fn sgemm_layout(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
) -> Result<(), TensorError> {
    for (mode, extent) in [m, n, k].into_iter().enumerate() {
        if !extent.is_multiple_of(BLOCK) {
            return Err(TensorError::NotDivisible { mode, extent: extent as isize, tile: B });
        }
    }
    let ma = make_tensor(a, make_layout((m, k), LayoutRight)?)?;
    let mb = make_tensor(b, make_layout((k, n), LayoutRight)?)?;
    let mut mc = make_tensor_mut(c, make_layout((m, n), LayoutRight)?)?;
    let block = (Static::<B>::default(), Static::<B>::default());
    // The blocks of A and B, packed: with static layouts every access below is a constant
    // offset from the tile's start, and the bounds checks fold away.
    let (mut a_buf, mut b_buf) = ([0.0f32; BLOCK * BLOCK], [0.0f32; BLOCK * BLOCK]);
    for bi in 0..m / BLOCK {
        for bj in 0..n / BLOCK {
            let mut gc = local_tile(&mut mc, block, (bi, bj))?;
            for bk in 0..k / BLOCK {
                // Global to "shared": rows of 64 contiguous in both, copied as runs.
                copy(
                    &local_tile(&ma, block, (bi, bk))?,
                    &mut make_tensor_mut(&mut a_buf, Packed::default())?,
                )?;
                copy(
                    &local_tile(&mb, block, (bk, bj))?,
                    &mut make_tensor_mut(&mut b_buf, Packed::default())?,
                )?;
                let (sa, sb) =
                    (make_tensor(&a_buf, Packed::default())?, make_tensor(&b_buf, Packed::default())?);
                for ti in 0..BLOCK / MR {
                    let ta = local_tile(&sa, (Static::<R>::default(), Static::<B>::default()), (ti, 0))?; // (_4,_64)
                    for tj in 0..BLOCK / NR {
                        let tb = local_tile(&sb, (Static::<B>::default(), Static::<Q>::default()), (0, tj))?; // (_64,_8)
                        let mut tc =
                            local_tile(&mut gc, (Static::<R>::default(), Static::<Q>::default()), (ti, tj))?; // (_4,_8)
                        let mut acc = [[0.0f32; NR]; MR];
                        for (r, row) in acc.iter_mut().enumerate() {
                            let crow = tc.as_tensor().slice((r, Keep))?; // (_8):(_1): static, unchecked
                            for (q, x) in row.iter_mut().enumerate() {
                                *x = crow[q];
                            }
                        }
                        for p in 0..BLOCK {
                            for (r, row) in acc.iter_mut().enumerate() {
                                let x = ta[(r, p)];
                                for (q, y) in row.iter_mut().enumerate() {
                                    *y += x * tb[(p, q)];
                                }
                            }
                        }
                        for (r, row) in acc.iter().enumerate() {
                            let mut crow = tc.reborrow().slice((r, Keep))?;
                            for (q, x) in row.iter().enumerate() {
                                crow[q] = *x;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The same loops by hand.
#[inline(never)]
pub fn sgemm_hand(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    assert!(m.is_multiple_of(BLOCK) && n.is_multiple_of(BLOCK) && k.is_multiple_of(BLOCK));
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    let (mut a_buf, mut b_buf) = ([0.0f32; BLOCK * BLOCK], [0.0f32; BLOCK * BLOCK]);
    for bi in (0..m).step_by(BLOCK) {
        for bj in (0..n).step_by(BLOCK) {
            for bk in (0..k).step_by(BLOCK) {
                for r in 0..BLOCK {
                    a_buf[r * BLOCK..][..BLOCK].copy_from_slice(&a[(bi + r) * k + bk..][..BLOCK]);
                    b_buf[r * BLOCK..][..BLOCK].copy_from_slice(&b[(bk + r) * n + bj..][..BLOCK]);
                }
                for i in (0..BLOCK).step_by(MR) {
                    for j in (0..BLOCK).step_by(NR) {
                        let mut acc = [[0.0f32; NR]; MR];
                        for (r, row) in acc.iter_mut().enumerate() {
                            for (q, x) in row.iter_mut().enumerate() {
                                *x = c[(bi + i + r) * n + bj + j + q];
                            }
                        }
                        for p in 0..BLOCK {
                            for (r, row) in acc.iter_mut().enumerate() {
                                let x = a_buf[(i + r) * BLOCK + p];
                                for (q, y) in row.iter_mut().enumerate() {
                                    *y += x * b_buf[p * BLOCK + j + q];
                                }
                            }
                        }
                        for (r, row) in acc.iter().enumerate() {
                            for (q, x) in row.iter().enumerate() {
                                c[(bi + i + r) * n + bj + j + q] = *x;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Small integers, exact in `f32` sums of this size.
pub fn operand(len: usize, seed: usize) -> Vec<f32> {
    (0..len).map(|x| ((x * 7 + seed) % 13) as f32 - 6.0).collect()
}

/// The product by the definition (f64 sums: exact here).
pub fn reference(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] as f64 * b[p * n + j] as f64).sum::<f64>() as f32;
        }
    }
    c
}

#[allow(dead_code)] // the benchmark includes this file for its kernels
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map(String::as_str).unwrap_or("both");
    let s: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(256);
    let (a, b) = (operand(s * s, 1), operand(s * s, 5));
    let want = reference(s, s, s, &a, &b);
    let mut c = vec![0.0f32; s * s];
    if matches!(which, "layout" | "both") {
        sgemm_layout(s, s, s, &a, &b, &mut c).map_err(|e| e.to_string())?;
        assert_eq!(c, want);
        println!("layout: {s}^3 multiplied");
    }
    if matches!(which, "hand" | "both") {
        c.fill(0.0);
        sgemm_hand(s, s, s, &a, &b, &mut c);
        assert_eq!(c, want);
        println!("hand:   {s}^3 multiplied");
    }
    if !matches!(which, "layout" | "hand" | "both") {
        return Err(format!("unknown kernel `{which}`: layout, hand or both").into());
    }
    Ok(())
}
