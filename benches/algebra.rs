//! Runtime cost of the layout algebra on runtime values, the operations of CuTe's anchor
//! `cute_dyn_algebra.cpp` (composition, logical_divide, complement), with the
//! same inputs: per operation, build the operands from runtime extents, run it, and read one
//! offset and the size. `tools/bench_anchor.sh` runs the anchor and this bench in one go
//! (group names are the anchor's lines).

#[path = "anchor/ops.rs"]
mod ops;

use criterion::{Bencher, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Operations per criterion iteration (`tools/bench_anchor.sh` divides by it): a loop like the
/// anchor's, so that a nanosecond operation is not dwarfed by criterion's per-iteration overhead.
const OPS: usize = 256;

/// `OPS` operations per criterion iteration, on consecutive entries of the 1024 extents: each
/// iteration starts where the last one stopped, so the extents cycle through all 1024 as the
/// anchor's `i & 1023` does (the divisions' operands are the anchor's).
fn per_op(b: &mut Bencher, f: impl Fn(usize) -> isize) {
    let mut base = 0usize;
    b.iter(|| {
        base = base.wrapping_add(OPS);
        (base..base + OPS).fold(0isize, |acc, k| acc.wrapping_add(f(k)))
    })
}

fn algebra(c: &mut Criterion) {
    // The typed variants are `ops`' functions (shared with `examples/algebra_counts.rs`).
    let mn = black_box(ops::extents());
    let mn = &*mn;
    let mut g = c.benchmark_group("composition dyn (m,n):(1,m) o (4,2):(2,8)");
    g.bench_function("DynLayout", |b| per_op(b, |k| ops::dyn_composition(mn, k)));
    // Typed layouts with runtime values (`algebra::typed`): the structure is in the type.
    g.bench_function("typed (algebra::typed)", |b| per_op(b, |k| ops::composition(mn, k)));
    g.finish();
    let mut g = c.benchmark_group("logical_divide dyn (m,n) / (2,2)");
    g.bench_function("DynLayout", |b| per_op(b, |k| ops::dyn_logical_divide(mn, k)));
    // The same operation on a typed layout with runtime values (`algebra::tiling`): the structure is
    // in the type, as in CuTe, so only the values are computed.
    g.bench_function("typed (algebra::tiling)", |b| per_op(b, |k| ops::logical_divide(mn, k)));
    g.bench_function("typed, static tile _2", |b| per_op(b, |k| ops::logical_divide_static(mn, k)));
    g.finish();
    let mut g = c.benchmark_group("complement (4,m):(_1,_16) dyn shape");
    g.bench_function("DynLayout", |b| per_op(b, |k| ops::dyn_complement(mn, k)));
    g.bench_function("DynLayout operand only", |b| per_op(b, |k| ops::dyn_complement_operand(mn, k)));
    g.bench_function("floor: flat arrays", |b| per_op(b, |k| ops::floor::complement_op(mn, k)));
    g.bench_function("typed (algebra::typed)", |b| per_op(b, |k| ops::complement(mn, k)));
    g.finish();
}

criterion_group!(benches, algebra);
criterion_main!(benches);
