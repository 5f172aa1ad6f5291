//! The kernels on the CPU emulator, launched through their entry points with parameters made
//! from emulated device buffers (as the host launches them on the GPU), against references
//! computed here in `f64`.

use const_layout::{C, make_layout};
use const_layout_device::emu::{DeviceBuffer, launch};
use const_layout_device::{Dim3, LaunchConfig};
use my_kernels::{layernorm_f32, softmax, softmax_f32, transpose, transpose_batched_f32};

const COLS: usize = softmax::COLS;

/// Deterministic values in (-scale, scale): splitmix64 of the index and a seed.
fn values(seed: u64, len: usize, scale: f32) -> Vec<f32> {
    (0..len)
        .map(|i| {
            let mut z = seed.wrapping_add((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            scale * (2.0 * ((z >> 40) as f32 + 0.5) / (1u64 << 24) as f32 - 1.0)
        })
        .collect()
}

fn rows_cfg(grid: Dim3, smem: u32) -> LaunchConfig {
    LaunchConfig { grid, block: softmax::block(), dynamic_smem_bytes: smem }
}

#[test]
fn softmax_matches_f64_for_any_rows_and_grid() {
    for (rows, ld, grid) in
        [(1u32, COLS, 1u32), (5, COLS, 2), (7, COLS + 4, 3), (12, COLS + 64, 12), (9, COLS, 4)]
    {
        let x = values(rows as u64, rows as usize * ld, 20.0);
        let xb = DeviceBuffer::from_slice(&x);
        let mut yb = DeviceBuffer::from_slice(&vec![f32::NAN; rows as usize * ld]);
        let l = make_layout((rows, C::<4096>), (ld as u32, C::<1>)).unwrap();
        let (xp, yp) = (xb.input(&l).unwrap(), yb.output(&l).unwrap());
        launch(&rows_cfg(Dim3::x(grid), 0), || softmax_f32(xp, yp)).unwrap();
        let y = yb.to_vec();
        for r in 0..rows as usize {
            let row = &x[r * ld..r * ld + COLS];
            let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
            let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
            for j in 0..COLS {
                let want = (row[j] as f64 - m).exp() / s;
                let got = y[r * ld + j] as f64;
                assert!((got - want).abs() <= 1e-5 * want + 1e-12, "row {r} col {j}: {got} vs {want}");
            }
            // Padding past the row is not written.
            assert!(y[r * ld + COLS..(r + 1) * ld].iter().all(|v| v.is_nan()));
        }
    }
}

#[test]
fn softmax_grid_is_rows_per_block() {
    for (rows, blocks) in [(4096u32, 1024u32), (16385, 4097), (3, 1), (1, 1), (0, 1), (u32::MAX, 1 << 30)] {
        assert_eq!(softmax::grid(rows), Dim3::x(blocks), "{rows}");
    }
}

#[test]
fn layernorm_matches_f64() {
    let eps = 1e-5f32;
    for (rows, ld, grid) in [(1u32, COLS, 1u32), (6, COLS, 3), (5, COLS + 8, 2)] {
        let x = values(100 + rows as u64, rows as usize * ld, 3.0);
        let (g, b) = (values(7, COLS, 1.0), values(8, COLS, 0.5));
        let (xb, gb, bb) =
            (DeviceBuffer::from_slice(&x), DeviceBuffer::from_slice(&g), DeviceBuffer::from_slice(&b));
        let mut yb = DeviceBuffer::from_slice(&vec![f32::NAN; rows as usize * ld]);
        let l = make_layout((rows, C::<4096>), (ld as u32, C::<1>)).unwrap();
        let w = make_layout((C::<1>, C::<4096>), (C::<0>, C::<1>)).unwrap();
        let (xp, gp, bp, yp) =
            (xb.input(&l).unwrap(), gb.input(&w).unwrap(), bb.input(&w).unwrap(), yb.output(&l).unwrap());
        launch(&rows_cfg(Dim3::x(grid), 0), || layernorm_f32(xp, gp, bp, yp, eps)).unwrap();
        let y = yb.to_vec();
        for r in 0..rows as usize {
            let row = &x[r * ld..r * ld + COLS];
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / COLS as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / COLS as f64;
            let rstd = 1.0 / (var + eps as f64).sqrt();
            for j in 0..COLS {
                let want = (row[j] as f64 - mean) * rstd * g[j] as f64 + b[j] as f64;
                let got = y[r * ld + j] as f64;
                assert!((got - want).abs() <= 2e-5 * (1.0 + want.abs()), "row {r} col {j}: {got} vs {want}");
            }
        }
    }
}

#[test]
fn batched_transpose_moves_every_element() {
    for case in [(16u32, 64u32, 64u32, 0u32), (2, 128, 64, 0), (3, 64, 192, 4), (1, 192, 128, 8)] {
        transpose_case(case);
    }
}

fn transpose_case((batch, m, n, pad): (u32, u32, u32, u32)) {
    let (lds, ldd) = (n + pad, m + pad);
    let (sb, db) = (m * lds, n * ldd);
    let src: Vec<f32> = (0..batch * sb).map(|v| v as f32).collect();
    let sbuf = DeviceBuffer::from_slice(&src);
    let mut dbuf = DeviceBuffer::from_slice(&vec![-1.0f32; (batch * db) as usize]);
    let ls = make_layout((batch, m, n), (sb, lds, C::<1>)).unwrap();
    let ld = make_layout((batch, m, n), (db, C::<1>, ldd)).unwrap();
    let (sp, dp) = (sbuf.input(&ls).unwrap(), dbuf.output(&ld).unwrap());
    let cfg = LaunchConfig {
        grid: transpose::grid(batch, m, n).unwrap(),
        block: transpose::block(),
        dynamic_smem_bytes: 0,
    };
    launch(&cfg, || transpose_batched_f32(sp, dp)).unwrap();
    let d = dbuf.to_vec();
    for b in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let got = d[(b * db + i + j * ldd) as usize];
                assert_eq!(got, src[(b * sb + i * lds + j) as usize], "{batch}x{m}x{n}: ({b}, {i}, {j})");
            }
        }
    }
}

#[test]
fn the_transpose_grid_must_cover_the_batch_exactly() {
    assert_eq!(transpose::grid(3, 64, 128), Some(Dim3 { x: 2, y: 1, z: 3 }));
    assert!(transpose::grid(16, 65, 64).is_none());
    assert!(transpose::grid(16, 64, 100).is_none());
    assert!(transpose::grid(0, 64, 64).is_none());
    // A grid past the batch faults instead of reading past it.
    let (sbuf, mut dbuf) = (DeviceBuffer::<f32>::zeros(16 * 4096), DeviceBuffer::<f32>::zeros(16 * 4096));
    let ls = make_layout((16u32, 64u32, 64u32), (4096u32, 64u32, C::<1>)).unwrap();
    let ld = make_layout((16u32, 64u32, 64u32), (4096u32, C::<1>, 64u32)).unwrap();
    let (sp, dp) = (sbuf.input(&ls).unwrap(), dbuf.output(&ld).unwrap());
    let cfg =
        LaunchConfig { grid: Dim3 { x: 1, y: 1, z: 17 }, block: transpose::block(), dynamic_smem_bytes: 0 };
    let e = launch(&cfg, || transpose_batched_f32(sp, dp)).unwrap_err();
    assert!(e.to_string().contains("the grid is not the shape's"), "{e}");
}

#[test]
fn kernels_refuse_wrong_blocks_and_shapes() {
    let (xb, mut yb) = (DeviceBuffer::<f32>::zeros(2 * COLS), DeviceBuffer::<f32>::zeros(2 * COLS));
    let l = make_layout((2u32, C::<4096>), (4096u32, C::<1>)).unwrap();
    let (xp, yp) = (xb.input(&l).unwrap(), yb.output(&l).unwrap());
    let wrong = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 0 };
    let e = launch(&wrong, || softmax_f32(xp, yp)).unwrap_err();
    assert!(e.to_string().contains("thread count"), "{e}");
    // A leading dimension that is not a multiple of 4 cannot be read 128 bits at a time.
    let two = make_layout((2u32, C::<4096>), (4097u32, C::<1>)).unwrap();
    let (xb3, mut yb3) = (DeviceBuffer::<f32>::zeros(8193), DeviceBuffer::<f32>::zeros(8193));
    let (xp3, yp3) = (xb3.input(&two).unwrap(), yb3.output(&two).unwrap());
    let e = launch(&rows_cfg(Dim3::x(1), 0), || softmax_f32(xp3, yp3)).unwrap_err();
    assert!(e.to_string().contains("128-bit"), "{e}");
}
