//! Runtime index math: the `crd2idx` and `idx2crd` loops of CuTe's anchor
//! `cute_dyn_algebra.cpp`, ported one to one (the same extents from the same
//! `mt19937` sequence, the same index expressions, CuTe's `int` as `i32`), and the same loops
//! with precomputed division. `tools/bench_anchor.sh` runs the anchor and this bench in one go
//! and prints nanoseconds per operation side by side (group names are the anchor's lines).
//!
//! Variants, per operation:
//! - `one-to-one`: the anchor's loop: build the layout (here a checked `make_layout`) from the
//!   runtime extents in every iteration, then split the index with hardware division;
//! - `prepared`: extents as [`FastDivmod`]s, built once per distinct shape as a kernel receives
//!   them (the multiplier needs a division, so it is computed on the host, as CUTLASS does); the
//!   loop's own `i % size` still a hardware division;
//! - `prepared, fast %`: the same, and the loop's `i % size` by a `FastDivmod` of the size too.

use const_layout::{FastDivmod, make_layout};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Operations per criterion iteration; `tools/bench_anchor.sh` divides by it.
const OPS: usize = 1 << 16;

/// `std::mt19937` (the anchor's generator), for the anchor's exact extents.
struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    fn new(seed: u32) -> Self {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            state[i] =
                1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    fn next(&mut self) -> u32 {
        if self.index == 624 {
            for i in 0..624 {
                let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.state[i] = self.state[(i + 397) % 624] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

/// The anchor's `m[i]`, `n[i]` (`2 << (rng() % 4)`), in its order of draws (`k` is drawn too).
fn extents() -> (Vec<i32>, Vec<i32>) {
    let mut rng = Mt19937::new(7);
    let (mut m, mut n) = (vec![0; 1024], vec![0; 1024]);
    for i in 0..1024 {
        m[i] = 2 << (rng.next() % 4);
        n[i] = 2 << (rng.next() % 4);
        let _k = 1 + rng.next() % 3;
    }
    (m, n)
}

fn fd(v: i32) -> FastDivmod {
    FastDivmod::new(v as usize).expect("a positive extent")
}

fn crd2idx(c: &mut Criterion) {
    let (m, n) = extents();
    let (m, n) = (black_box(m), black_box(n));
    let mut g = c.benchmark_group("crd2idx dyn (m,n):(1,m) idx->offset");
    g.bench_function("one-to-one", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS as i64 {
                let (mi, ni) = (m[(i & 1023) as usize], n[(i & 1023) as usize]);
                let l = make_layout((mi, ni), (1i32, mi)).expect("valid");
                acc += l.crd2idx((i % (mi * ni) as i64) as i32) as i64;
            }
            acc
        })
    });
    let prepared: Vec<_> = (0..1024)
        .map(|i| {
            let l = make_layout((fd(m[i]), fd(n[i])), (1i32, m[i])).expect("valid");
            (l, fd(m[i] * n[i]))
        })
        .collect();
    let prepared = black_box(prepared);
    g.bench_function("prepared", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS {
                let (l, size) = &prepared[i & 1023];
                acc += l.crd2idx(i % size.divisor()) as i64;
            }
            acc
        })
    });
    g.bench_function("prepared, fast %", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS {
                let (l, size) = &prepared[i & 1023];
                acc += l.crd2idx(size.rem(i)) as i64;
            }
            acc
        })
    });
    g.finish();
}

fn idx2crd(c: &mut Criterion) {
    let (m, n) = extents();
    let (m, n) = (black_box(m), black_box(n));
    let mut g = c.benchmark_group("idx2crd dyn 3-mode");
    g.bench_function("one-to-one", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS as i64 {
                let (a, b_, c3) = (m[(i & 1023) as usize], n[(i & 1023) as usize], 3i32);
                let (x, y, z) =
                    const_layout::layout::idx2crd((i % (a * b_ * c3) as i64) as i32, &(a, b_, c3));
                acc += (x + y + z) as i64;
            }
            acc
        })
    });
    let prepared: Vec<_> = (0..1024).map(|i| ((fd(m[i]), fd(n[i]), fd(3)), fd(m[i] * n[i] * 3))).collect();
    let prepared = black_box(prepared);
    g.bench_function("prepared", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS {
                let (shape, size) = &prepared[i & 1023];
                let (x, y, z) = const_layout::layout::idx2crd(i % size.divisor(), shape);
                acc += (x + y + z) as i64;
            }
            acc
        })
    });
    g.bench_function("prepared, fast %", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 0..OPS {
                let (shape, size) = &prepared[i & 1023];
                let (x, y, z) = const_layout::layout::idx2crd(size.rem(i), shape);
                acc += (x + y + z) as i64;
            }
            acc
        })
    });
    g.finish();
}

criterion_group!(benches, crd2idx, idx2crd);
criterion_main!(benches);
