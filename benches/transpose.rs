//! The transpose of an 8192x8192 `f32` matrix (256 MiB each way), in one run: `memcpy` of the
//! same bytes (the machine's bound), the tensor kernel of `examples/transpose.rs`, its
//! hand-written twin, the plain double loop, and ndarray's transpose-and-copy
//! (`dst.assign(&src.t())`, what a Rust user would write with ndarray). Throughput is bytes read
//! plus bytes written. Every kernel's output is checked before timing.

#[allow(dead_code)]
#[path = "../examples/transpose.rs"]
mod transpose;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndarray::Array2;
use std::hint::black_box;
use std::time::Duration;
use transpose::{is_transpose, matrix, transpose_hand, transpose_layout, transpose_naive};

const N: usize = 8192;

fn bench(c: &mut Criterion) {
    let src = matrix(N);
    let mut dst = vec![0.0f32; N * N];
    let mut g = c.benchmark_group("transpose 8192x8192 f32");
    g.throughput(Throughput::Bytes(2 * (N * N * 4) as u64));
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));

    g.bench_function("memcpy", |b| b.iter(|| dst.copy_from_slice(black_box(&src))));
    assert_eq!(dst, src);

    transpose_layout(&src, &mut dst, N).unwrap();
    assert!(is_transpose(&src, &dst, N));
    g.bench_function("const-layout tensors", |b| b.iter(|| transpose_layout(black_box(&src), &mut dst, N)));

    dst.fill(0.0);
    transpose_hand(&src, &mut dst, N);
    assert!(is_transpose(&src, &dst, N));
    g.bench_function("hand-written", |b| b.iter(|| transpose_hand(black_box(&src), &mut dst, N)));

    g.bench_function("naive loop", |b| b.iter(|| transpose_naive(black_box(&src), &mut dst, N)));

    // ndarray: a row-major source, a row-major destination assigned the transposed view.
    let a = Array2::from_shape_vec((N, N), src.clone()).unwrap();
    let mut t = Array2::<f32>::zeros((N, N));
    t.assign(&a.t());
    assert!(is_transpose(&src, t.as_slice().unwrap(), N));
    g.bench_function("ndarray assign(t())", |b| b.iter(|| t.assign(&black_box(&a).t())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
