//! Runtime cost of the layout algebra on runtime values, the operations of CuTe's anchor
//! `../shared/anchors/cute_dyn_algebra.cpp` (composition, logical_divide, complement), with the
//! same inputs: per operation, build the operands from runtime extents, run it, and read one
//! offset and the size. `tools/bench_anchor.sh` runs the anchor and this bench in one go
//! (group names are the anchor's lines).

#[path = "anchor/ops.rs"]
mod ops;

use const_layout::algebra::{Tiler, complement_to, composition, logical_divide};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use criterion::{Bencher, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn rt(v: isize) -> DynIntTuple {
    DynIntTuple::int(DynInt::new_runtime(v))
}

fn pair(a: DynIntTuple, b: DynIntTuple) -> DynIntTuple {
    DynIntTuple::tuple(&[a, b]).expect("two modes")
}

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
    g.bench_function("DynLayout", |b| {
        per_op(b, |k| {
            let (m, n) = (mn[k & 1023].0 as isize, mn[k & 1023].1 as isize);
            let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
            let t = DynLayout::new(pair(rt(4), rt(2)), pair(rt(2), rt(8))).expect("valid");
            let r = composition(&a, &t).expect("admissible");
            r.offset(3) + r.size().value
        })
    });
    // Typed layouts with runtime values (`layout::typed_algebra`): the structure is in the type.
    g.bench_function("typed (layout::typed_algebra)", |b| per_op(b, |k| ops::composition(mn, k)));
    g.finish();
    let mut g = c.benchmark_group("logical_divide dyn (m,n) / (2,2)");
    g.bench_function("DynLayout", |b| {
        per_op(b, |k| {
            let (m, n) = (mn[k & 1023].0 as isize, mn[k & 1023].1 as isize);
            let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
            let two = DynLayout::new(rt(2), DynIntTuple::int(DynInt::new_static(1))).expect("valid");
            let t = Tiler::by_mode(&[
                const_layout::algebra::TileMode::Layout(two),
                const_layout::algebra::TileMode::Layout(two),
            ])
            .expect("two modes");
            let r = logical_divide(&a, &t).expect("admissible");
            r.offset(5) + r.size().value
        })
    });
    // The same operation on a typed layout with runtime values (`layout::tiling`): the structure is
    // in the type, as in CuTe, so only the values are computed.
    g.bench_function("typed (layout::tiling)", |b| per_op(b, |k| ops::logical_divide(mn, k)));
    g.bench_function("typed, static tile _2", |b| per_op(b, |k| ops::logical_divide_static(mn, k)));
    g.finish();
    let mut g = c.benchmark_group("complement (4,m):(_1,_16) dyn shape");
    g.bench_function("DynLayout", |b| {
        per_op(b, |k| {
            let m = mn[k & 1023].0 as isize;
            let a = DynLayout::new(
                pair(DynIntTuple::int(DynInt::new_static(4)), rt(m)),
                pair(DynIntTuple::int(DynInt::new_static(1)), DynIntTuple::int(DynInt::new_static(16))),
            )
            .expect("valid");
            let r = complement_to(&a, &rt(4096)).expect("admissible");
            r.offset(1) + r.size().value
        })
    });
    g.bench_function("typed (layout::typed_algebra)", |b| per_op(b, |k| ops::complement(mn, k)));
    g.finish();
}

criterion_group!(benches, algebra);
criterion_main!(benches);
