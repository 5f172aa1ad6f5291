//! SGEMM `C += A * B`, 512^3 `f32`, in one run: the tensor kernel of `examples/sgemm.rs`, its
//! hand-written twin, and the `matrixmultiply` crate's `sgemm` (what a Rust user would pick: packed
//! panels and SIMD micro-kernels chosen at run time). Throughput is in multiply-adds. Every
//! kernel's result is checked against the reference before timing.

#[allow(dead_code)]
#[path = "../examples/sgemm.rs"]
mod sgemm;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sgemm::{operand, reference, sgemm_hand, sgemm_layout};
use std::hint::black_box;
use std::time::Duration;

const S: usize = 512;

fn matrixmultiply_sgemm(a: &[f32], b: &[f32], c: &mut [f32]) {
    let s = S as isize;
    // Row-major: row stride S, column stride 1; C = 1 * A * B + 1 * C.
    assert!(a.len() >= S * S && b.len() >= S * S && c.len() >= S * S);
    // SAFETY: matrixmultiply's sgemm takes raw pointers; each points to an S x S row-major
    // matrix inside its slice (checked above), and `c` is borrowed mutably, so it aliases neither.
    unsafe {
        matrixmultiply::sgemm(S, S, S, 1.0, a.as_ptr(), s, 1, b.as_ptr(), s, 1, 1.0, c.as_mut_ptr(), s, 1)
    };
}

fn bench(cr: &mut Criterion) {
    let (a, b) = (operand(S * S, 1), operand(S * S, 5));
    let want = reference(S, S, S, &a, &b);
    let mut c = vec![0.0f32; S * S];
    sgemm_layout(S, S, S, &a, &b, &mut c).unwrap();
    assert_eq!(c, want);
    c.fill(0.0);
    sgemm_hand(S, S, S, &a, &b, &mut c);
    assert_eq!(c, want);
    c.fill(0.0);
    matrixmultiply_sgemm(&a, &b, &mut c);
    assert_eq!(c, want);

    let mut g = cr.benchmark_group("sgemm 512^3 f32");
    g.throughput(Throughput::Elements((S * S * S) as u64));
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function("const-layout tensors", |bn| {
        bn.iter(|| sgemm_layout(S, S, S, black_box(&a), black_box(&b), &mut c))
    });
    g.bench_function("hand-written", |bn| {
        bn.iter(|| sgemm_hand(S, S, S, black_box(&a), black_box(&b), &mut c))
    });
    g.bench_function("matrixmultiply::sgemm", |bn| {
        bn.iter(|| matrixmultiply_sgemm(black_box(&a), black_box(&b), &mut c))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
