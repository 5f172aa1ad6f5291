//! The tiled copy on the emulated grid: every size (multiples of the tile and residues in either
//! mode), vectorizable and not, and layouts that differ.

use crate::common;

use common::{Buffer, value};
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::{GlobalTensor, Gmem, GmemMut};
use const_layout_kernels::copy;
use proptest::prelude::*;

/// Copy an `m x n` column-major matrix with leading dimensions `lds`, `ldd`; check every element
/// and that the padding between columns is untouched.
fn check_col_major(m: u32, n: u32, lds: u32, ldd: u32) {
    let src = Buffer::from_fn((lds * n) as usize, |i| value(1, i));
    let dst = Buffer::filled((ldd * n) as usize, -7.0);
    let s = GlobalTensor::new(Gmem::<f32>::from_cells(&src.0), make_layout((m, n), (C::<1>, lds)).unwrap())
        .unwrap();
    let d =
        GlobalTensor::new(GmemMut::<f32>::from_cells(&dst.0), make_layout((m, n), (C::<1>, ldd)).unwrap())
            .unwrap();
    let cfg = LaunchConfig { grid: copy::grid(m, n), block: copy::block(), dynamic_smem_bytes: 0 };
    launch(&cfg, || copy::copy(s, d)).unwrap();
    for j in 0..n as usize {
        for i in 0..ldd as usize {
            let want = if i < m as usize { src.get(i + j * lds as usize) } else { -7.0 };
            assert_eq!(dst.get(i + j * ldd as usize), want, "({i}, {j}) of {m}x{n}, ld {lds} -> {ldd}");
        }
    }
}

#[test]
fn whole_tiles_and_residues() {
    for (m, n) in [(128, 64), (256, 128), (1, 1), (4, 4), (130, 70), (257, 3), (3, 257), (127, 65)] {
        check_col_major(m, n, m, m);
    }
}

#[test]
fn padded_and_misaligned_leading_dimensions() {
    // 132 keeps 128-bit access, 131 does not (element by element); the two sides may differ.
    check_col_major(128, 64, 132, 131);
    check_col_major(128, 64, 131, 132);
    check_col_major(100, 33, 104, 100);
}

#[test]
fn row_major_into_column_major() {
    let (m, n) = (70u32, 90u32);
    let src = Buffer::from_fn((m * n) as usize, |i| value(2, i));
    let dst = Buffer::filled((m * n) as usize, 0.0);
    let s = GlobalTensor::new(Gmem::<f32>::from_cells(&src.0), make_layout((m, n), (n, C::<1>)).unwrap())
        .unwrap();
    let d = GlobalTensor::new(GmemMut::<f32>::from_cells(&dst.0), make_layout((m, n), (C::<1>, m)).unwrap())
        .unwrap();
    let cfg = LaunchConfig { grid: copy::grid(m, n), block: copy::block(), dynamic_smem_bytes: 0 };
    launch(&cfg, || copy::copy(s, d)).unwrap();
    for i in 0..m as usize {
        for j in 0..n as usize {
            assert_eq!(dst.get(i + j * m as usize), src.get(i * n as usize + j));
        }
    }
}

#[test]
fn mismatched_shapes_fault() {
    let (src, dst) = (Buffer::filled(64, 1.0), Buffer::filled(64, 0.0));
    let s = GlobalTensor::new(
        Gmem::<f32>::from_cells(&src.0),
        make_layout((8u32, 8u32), (C::<1>, 8u32)).unwrap(),
    )
    .unwrap();
    let d = GlobalTensor::new(
        GmemMut::<f32>::from_cells(&dst.0),
        make_layout((8u32, 7u32), (C::<1>, 8u32)).unwrap(),
    )
    .unwrap();
    let cfg = LaunchConfig { grid: copy::grid(8, 8), block: copy::block(), dynamic_smem_bytes: 0 };
    let e = launch(&cfg, || copy::copy(s, d)).unwrap_err();
    assert!(e.to_string().contains("shapes differ"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn any_size(m in 1u32..300, n in 1u32..140, pad in 0u32..6) {
        check_col_major(m, n, m + pad, m + (pad + 1) % 5);
    }
}
