//! The SGEMM on the emulated grid, NT and TN, against an `f64` reference: whole tiles and
//! residues in every mode, `k` not a multiple of the k tile, leading dimensions that forbid
//! 128-bit access, `alpha` and `beta`, and BLAS's rule that `C` is not read when `beta` is 0.

mod common;

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
