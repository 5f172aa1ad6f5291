//! The transpose on the emulated grid (every size, vectorizable or not), and its shared-memory
//! accesses checked for bank conflicts with the layouts the kernel uses.

use crate::common;

use common::{Buffer, value};
use const_layout::algebra::computed::{composition, make_layout_tv};
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::{GlobalTensor, Gmem, GmemMut, SmemRegion};
use const_layout_kernels::transpose::{self, ReadThreads, ReadValues, WriteThreads, WriteValues};
use proptest::prelude::*;

fn check(m: u32, n: u32, lds: u32, ldd: u32) {
    let src = Buffer::from_fn((lds * m) as usize, |i| value(3, i));
    let dst = Buffer::filled((ldd * n) as usize, -7.0);
    let s = GlobalTensor::new(Gmem::<f32>::from_cells(&src.0), make_layout((m, n), (lds, C::<1>)).unwrap())
        .unwrap();
    let d =
        GlobalTensor::new(GmemMut::<f32>::from_cells(&dst.0), make_layout((m, n), (C::<1>, ldd)).unwrap())
            .unwrap();
    let cfg = LaunchConfig {
        grid: transpose::grid(m, n),
        block: transpose::block(),
        dynamic_smem_bytes: transpose::SMEM_BYTES,
    };
    launch(&cfg, || transpose::transpose(s, d, SmemRegion::dynamic())).unwrap();
    for j in 0..n as usize {
        for i in 0..ldd as usize {
            let want = if i < m as usize { src.get(i * lds as usize + j) } else { -7.0 };
            assert_eq!(dst.get(i + j * ldd as usize), want, "({i}, {j}) of {m}x{n}");
        }
    }
}

#[test]
fn whole_tiles_and_residues() {
    for (m, n) in [(64, 64), (128, 192), (1, 1), (70, 100), (65, 63), (5, 200), (200, 5)] {
        check(m, n, n, m);
    }
}

#[test]
fn padded_and_misaligned_leading_dimensions() {
    check(64, 64, 68, 65);
    check(64, 64, 65, 68);
    check(100, 60, 64, 101);
}

#[test]
fn too_little_shared_memory_faults() {
    let (src, dst) = (Buffer::filled(64, 1.0), Buffer::filled(64, 0.0));
    let s = GlobalTensor::new(
        Gmem::<f32>::from_cells(&src.0),
        make_layout((8u32, 8u32), (8u32, C::<1>)).unwrap(),
    )
    .unwrap();
    let d = GlobalTensor::new(
        GmemMut::<f32>::from_cells(&dst.0),
        make_layout((8u32, 8u32), (C::<1>, 8u32)).unwrap(),
    )
    .unwrap();
    let cfg =
        LaunchConfig { grid: transpose::grid(8, 8), block: transpose::block(), dynamic_smem_bytes: 1024 };
    let e = launch(&cfg, || transpose::transpose(s, d, SmemRegion::dynamic())).unwrap_err();
    assert!(e.to_string().contains("shared memory"), "{e}");
}

/// The banks (4-byte words modulo 32) a warp's shared accesses touch, by the same layouts the
/// kernel uses. A 128-bit access is served 8 threads at a time (a quarter warp, 128 bytes); a
/// 32-bit one 32 at a time. Conflict-free: within each group, distinct words never share a bank.
#[test]
fn shared_accesses_are_free_of_bank_conflicts() {
    let sw = transpose::smem_layout();
    let conflicts = |words: &[usize]| {
        let mut seen = std::collections::HashMap::new();
        words.iter().filter(|&&w| seen.insert(w % 32, w).is_some_and(|other| other != w)).count()
    };
    let (tile, tv) = make_layout_tv(ReadThreads::default(), ReadValues::default());
    let reads = composition(tile, tv);
    let (tile, tv) = make_layout_tv(WriteThreads::default(), WriteValues::default());
    let writes = composition(tile, tv);
    for warp in 0..8 {
        for r in 0..4 {
            // Rows in: 128-bit stores, a quarter warp at a time.
            for quarter in 0..4 {
                let words: Vec<usize> = (0..8)
                    .flat_map(|l| {
                        let (m, n): (usize, usize) = reads.coord((32 * warp + 8 * quarter + l, 0usize));
                        let base = sw.crd2idx((m + 16 * r, n)) as usize;
                        assert_eq!(base % 4, 0);
                        base..base + 4
                    })
                    .collect();
                assert_eq!(conflicts(&words), 0, "row store: warp {warp} rep {r} quarter {quarter}");
            }
        }
        for q in 0..4 {
            for k in 0..4 {
                // Columns out: 32-bit loads, the whole warp at once.
                let words: Vec<usize> = (0..32)
                    .map(|l| {
                        let (m, n): (usize, usize) = writes.coord((32 * warp + l, 0usize));
                        sw.crd2idx((m + 32 * (q % 2) + k, n + 32 * (q / 2))) as usize
                    })
                    .collect();
                assert_eq!(conflicts(&words), 0, "column load: warp {warp} rep {q} element {k}");
            }
        }
    }
    // Without the swizzle, the column loads would be 16-way conflicts: the check can fail.
    let plain = transpose::SmemTile::default();
    let words: Vec<usize> = (0..32)
        .map(|l| {
            let (m, n): (usize, usize) = writes.coord((l, 0usize));
            plain.crd2idx((m, n)) as usize
        })
        .collect();
    assert!(conflicts(&words) > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn any_size(m in 1u32..200, n in 1u32..200, pad in 0u32..6) {
        check(m, n, n + pad, m + (pad + 3) % 5);
    }
}
