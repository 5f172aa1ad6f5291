//! The SGEMM on the emulated grid, NT and TN, against an `f64` reference: whole tiles and
//! residues in every mode, `k` not a multiple of the k tile, leading dimensions that forbid
//! 128-bit access, `alpha` and `beta`, and BLAS's rule that `C` is not read when `beta` is 0.

use crate::common;

use common::{Buffer, value};
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::{GlobalTensor, Gmem, GmemMut, SmemRegion};
use const_layout_kernels::sgemm;

#[derive(Clone, Copy, Debug)]
enum Form {
    /// A (m,k):(1,lda), B (n,k):(1,ldb).
    Nt,
    /// A (m,k):(lda,1), B (n,k):(ldb,1).
    Tn,
}

/// The index of an operand's element `(row, p)` in its buffer.
type Index = Box<dyn Fn(usize, usize) -> usize>;

struct Case {
    form: Form,
    m: u32,
    n: u32,
    k: u32,
    pad: u32,
    alpha: f32,
    beta: f32,
}

fn run(c: &Case) {
    let Case { form, m, n, k, pad, alpha, beta } = *c;
    let (lda, ldb, ldc) = match form {
        Form::Nt => (m + pad, n + pad, m + pad),
        Form::Tn => (k + pad, k + pad, m + pad),
    };
    let (a_len, b_len) = match form {
        Form::Nt => (lda * k, ldb * k),
        Form::Tn => (lda * m, ldb * n),
    };
    let a = Buffer::from_fn(a_len as usize, |i| value(5, i));
    let b = Buffer::from_fn(b_len as usize, |i| value(6, i));
    // With beta = 0 the input C is NaN: reading it would poison the result.
    let c0 = |i: usize| if beta == 0.0 { f32::NAN } else { value(7, i) };
    let cbuf = Buffer::from_fn((ldc * n) as usize, c0);
    let (ai, bi): (Index, Index) = match form {
        Form::Nt => (Box::new(move |i, p| i + p * lda as usize), Box::new(move |j, p| j + p * ldb as usize)),
        Form::Tn => (Box::new(move |i, p| i * lda as usize + p), Box::new(move |j, p| j * ldb as usize + p)),
    };
    let tc =
        GlobalTensor::new(GmemMut::<f32>::from_cells(&cbuf.0), make_layout((m, n), (C::<1>, ldc)).unwrap())
            .unwrap();
    let cfg = LaunchConfig {
        grid: sgemm::grid(m, n),
        block: sgemm::block(),
        dynamic_smem_bytes: sgemm::SMEM_BYTES,
    };
    match form {
        Form::Nt => {
            let ta =
                GlobalTensor::new(Gmem::<f32>::from_cells(&a.0), make_layout((m, k), (C::<1>, lda)).unwrap())
                    .unwrap();
            let tb =
                GlobalTensor::new(Gmem::<f32>::from_cells(&b.0), make_layout((n, k), (C::<1>, ldb)).unwrap())
                    .unwrap();
            launch(&cfg, || sgemm::sgemm(ta, tb, tc, alpha, beta, SmemRegion::dynamic())).unwrap();
        }
        Form::Tn => {
            let ta =
                GlobalTensor::new(Gmem::<f32>::from_cells(&a.0), make_layout((m, k), (lda, C::<1>)).unwrap())
                    .unwrap();
            let tb =
                GlobalTensor::new(Gmem::<f32>::from_cells(&b.0), make_layout((n, k), (ldb, C::<1>)).unwrap())
                    .unwrap();
            launch(&cfg, || sgemm::sgemm(ta, tb, tc, alpha, beta, SmemRegion::dynamic())).unwrap();
        }
    }
    for j in 0..n as usize {
        for i in 0..ldc as usize {
            let at = i + j * ldc as usize;
            let got = cbuf.get(at);
            if i >= m as usize {
                assert!(got.to_bits() == c0(at).to_bits(), "{form:?}: padding ({i}, {j}) was written");
                continue;
            }
            let (mut dot, mut mag) = (0f64, 0f64);
            for p in 0..k as usize {
                let x = a.get(ai(i, p)) as f64 * b.get(bi(j, p)) as f64;
                dot += x;
                mag += x.abs();
            }
            let old = if beta == 0.0 { 0.0 } else { c0(at) as f64 };
            let want = alpha as f64 * dot + beta as f64 * old;
            let scale = alpha.abs() as f64 * mag + beta.abs() as f64 * old.abs() + 1e-30;
            assert!(
                ((got as f64 - want) / scale).abs() < 1e-6,
                "{form:?} {m}x{n}x{k}: C({i}, {j}) = {got}, want {want}"
            );
        }
    }
}

#[test]
fn whole_tiles() {
    for form in [Form::Nt, Form::Tn] {
        run(&Case { form, m: 128, n: 128, k: 24, pad: 0, alpha: 1.0, beta: 0.0 });
    }
}

#[test]
fn residues_in_every_mode() {
    for form in [Form::Nt, Form::Tn] {
        for (m, n, k) in [(130, 129, 17), (1, 1, 1), (5, 3, 2), (127, 200, 9), (129, 1, 8)] {
            run(&Case { form, m, n, k, pad: 0, alpha: 1.0, beta: 0.0 });
        }
    }
}

#[test]
fn alpha_beta_and_padding() {
    for form in [Form::Nt, Form::Tn] {
        // pad 4 keeps 128-bit access, pad 1 does not.
        run(&Case { form, m: 128, n: 130, k: 16, pad: 4, alpha: 0.5, beta: -2.0 });
        run(&Case { form, m: 70, n: 128, k: 33, pad: 1, alpha: -1.5, beta: 0.25 });
        run(&Case { form, m: 128, n: 128, k: 8, pad: 1, alpha: 2.0, beta: 0.0 });
    }
}

#[test]
fn mismatched_shapes_fault() {
    let (a, b, c) = (Buffer::filled(64, 1.0), Buffer::filled(64, 1.0), Buffer::filled(64, 0.0));
    let ta =
        GlobalTensor::new(Gmem::<f32>::from_cells(&a.0), make_layout((8u32, 8u32), (C::<1>, 8u32)).unwrap())
            .unwrap();
    let tb =
        GlobalTensor::new(Gmem::<f32>::from_cells(&b.0), make_layout((8u32, 7u32), (C::<1>, 8u32)).unwrap())
            .unwrap();
    let tc = GlobalTensor::new(
        GmemMut::<f32>::from_cells(&c.0),
        make_layout((8u32, 8u32), (C::<1>, 8u32)).unwrap(),
    )
    .unwrap();
    let cfg = LaunchConfig {
        grid: sgemm::grid(8, 8),
        block: sgemm::block(),
        dynamic_smem_bytes: sgemm::SMEM_BYTES,
    };
    let e = launch(&cfg, || sgemm::sgemm(ta, tb, tc, 1.0, 0.0, SmemRegion::dynamic())).unwrap_err();
    assert!(e.to_string().contains("do not match"), "{e}");
}

/// The thread and value layouts the kernel uses, checked against what it relies on: the 256
/// threads' 8x8 values cover the 128x128 tile once; a warp reads 8 distinct 128-bit values of `A`
/// and 4 of `B` for each `k` (one shared-memory wavefront each); the TN copy's transposed writes
/// into the padded shared tile meet no bank conflict.
#[test]
fn thread_layouts_cover_the_tile_and_spare_the_banks() {
    use const_layout::algebra::computed::{composition, make_layout_tv};
    use sgemm::{CopyThreadsK, CopyValuesK, MmaThreads, MmaValues, SmemOperand};
    let (tile, tv) = make_layout_tv(MmaThreads::default(), MmaValues::default());
    let mma = composition(tile, tv);
    let mut seen = vec![0u8; 128 * 128];
    for t in 0..256usize {
        let (row, col): (usize, usize) = mma.coord((t, 0usize));
        assert_eq!((row % 4, col % 4), (0, 0));
        for v in 0..16usize {
            let c: (usize, usize) = mma.coord((t, v));
            assert_eq!(c, (row + v % 4, col + v / 4), "thread {t} value {v}");
        }
        for (i, j) in (0..8).flat_map(|i| (0..8).map(move |j| (i, j))) {
            seen[(row + 64 * (i / 4) + i % 4) + 128 * (col + 64 * (j / 4) + j % 4)] += 1;
        }
    }
    assert!(seen.iter().all(|&s| s == 1));
    for warp in 0..8 {
        let coords: Vec<(usize, usize)> = (0..32).map(|l| mma.coord((32 * warp + l, 0usize))).collect();
        let rows: std::collections::BTreeSet<_> = coords.iter().map(|c| c.0).collect();
        let cols: std::collections::BTreeSet<_> = coords.iter().map(|c| c.1).collect();
        assert_eq!((rows.len(), cols.len()), (8, 4), "warp {warp}");
    }
    let (tile, tv) = make_layout_tv(CopyThreadsK::default(), CopyValuesK::default());
    let copy = composition(tile, tv);
    let s = SmemOperand::default();
    for warp in 0..8 {
        let banks: std::collections::BTreeSet<_> = (0..32)
            .map(|l| {
                let (i, p): (usize, usize) = copy.coord((32 * warp + l, 0usize));
                s.crd2idx((i, p)) as usize % 32
            })
            .collect();
        assert_eq!(banks.len(), 32, "TN copy, warp {warp}");
    }
}
