//! Index math against hand-written arithmetic, in the same run.
//!
//! Each benchmark maps a black-boxed array of indices (or coordinates) to offsets, so that the
//! compiler cannot fold the loop away for either side. `static_*`: a static layout, which must cost
//! what the hand-written arithmetic costs. `runtime_*`: runtime extents, against hand-written
//! arithmetic over the same runtime extents.

use const_layout::{C, layout, make_layout};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const N: usize = 4096;

fn indices(bound: usize) -> Vec<usize> {
    // A fixed pseudo-random sequence inside 0..bound.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % bound as u64) as usize
        })
        .collect()
}

fn run<T: Copy>(input: &[usize], out: &mut [T], f: impl Fn(usize) -> T) {
    for (o, &i) in out.iter_mut().zip(black_box(input)) {
        *o = f(i);
    }
    black_box(out);
}

fn static_layouts(c: &mut Criterion) {
    let input = indices(64);
    let mut out = vec![0isize; N];
    let mut g = c.benchmark_group("static (8,(4,2)):(1,8) crd2idx, 4096 indices");
    let l = layout!((8,(4,2)):(1,8));
    g.bench_function("const-layout", |b| b.iter(|| run(&input, &mut out, |i| l.crd2idx(i))));
    g.bench_function("hand-written", |b| {
        b.iter(|| run(&input, &mut out, |i| ((i % 8) + ((i / 8) % 4) * 8 + (i / 32) * 32) as isize))
    });
    g.finish();

    let input = indices(105);
    let mut out = vec![(0usize, (0usize, 0usize)); N];
    let mut g = c.benchmark_group("static (3,(5,7)) idx2crd, 4096 indices");
    let l = layout!((3,(5,7)):(35,(7,1)));
    g.bench_function("const-layout", |b| b.iter(|| run(&input, &mut out, |i| l.idx2crd(i))));
    g.bench_function("hand-written", |b| {
        b.iter(|| run(&input, &mut out, |i| (i % 3, ((i / 3) % 5, i / 15))))
    });
    g.finish();
}

fn runtime_layouts(c: &mut Criterion) {
    // A padded leading dimension, so that neither side simplifies to the identity.
    let (m, n, ld) = (black_box(16usize), black_box(8usize), black_box(17usize));
    let input = indices(m * n);
    let mut out = vec![0isize; N];
    let mut g = c.benchmark_group("runtime (m,n):(1,ld) crd2idx, 4096 indices");
    let l = make_layout((m, n), (C::<1>, ld)).unwrap();
    g.bench_function("const-layout", |b| b.iter(|| run(&input, &mut out, |i| l.crd2idx(i))));
    g.bench_function("hand-written", |b| {
        b.iter(|| run(&input, &mut out, |i| ((i % m) + (i / m) * ld) as isize))
    });
    g.finish();
}

criterion_group!(benches, static_layouts, runtime_layouts);
criterion_main!(benches);
