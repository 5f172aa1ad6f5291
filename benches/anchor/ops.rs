//! The typed runtime algebra on the operations of CuTe's anchor
//! `../shared/anchors/cute_dyn_algebra.cpp`, each as the anchor's loop body: build the operands
//! from the runtime extents of entry `i & 1023`, operate, read one offset and the size. Shared by
//! `benches/algebra.rs` (time) and `examples/algebra_counts.rs` (instruction counts), so that
//! both measure the same code.

use const_layout::algebra::{self, TileMode, Tiler};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::layout::{tiling, typed_algebra};
use const_layout::{C, make_layout};

/// The anchor's runtime extents `(m, n)`, in an array of 1024 so that `[i & 1023]` needs no bounds
/// check (the anchor's `std::vector` has none).
pub type Extents = [(i32, i32); 1024];

/// m, n in {2, 4, 8, 16} from a fixed sequence, as the anchor's.
pub fn extents() -> Box<Extents> {
    let mut x = 7u64;
    Box::new(core::array::from_fn(|_| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (2 << ((x >> 33) % 4), 2 << ((x >> 40) % 4))
    }))
}

/// `composition((m*4, n*4):(1, m*4), (4,2):(2,8))`.
#[inline(always)]
pub fn composition(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let b = make_layout((4i32, 2i32), (2i32, 8i32)).expect("valid");
    let r = typed_algebra::composition(&a, &b).expect("admissible");
    r.crd2idx(3i32) + r.size()
}

/// `logical_divide((m*4, n*4):(1, m*4), <2, 2>)`, the tile runtime as the anchor's.
#[inline(always)]
pub fn logical_divide(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let r = tiling::logical_divide(&a, (2i32, 2i32)).expect("divides");
    r.crd2idx(5i32) + r.size() as isize
}

/// The same with a static tile `<_2, _2>`.
#[inline(always)]
pub fn logical_divide_static(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let r = tiling::logical_divide(&a, (C::<2>, C::<2>)).expect("divides");
    r.crd2idx(5i32) + r.size() as isize
}

/// `complement((_4, m):(_1, _16), 4096)`.
#[inline(always)]
pub fn complement(mn: &Extents, i: usize) -> isize {
    let (m, _) = mn[i & 1023];
    let a = make_layout((C::<4>, m), (C::<1>, C::<16>)).expect("valid");
    let r = typed_algebra::complement(&a, 4096i32).expect("admissible");
    r.crd2idx(1i32) + r.size()
}

fn rt(v: isize) -> DynIntTuple {
    DynIntTuple::int(DynInt::new_runtime(v))
}

fn pair(a: DynIntTuple, b: DynIntTuple) -> DynIntTuple {
    DynIntTuple::tuple(&[a, b]).expect("two modes")
}

/// `composition` on runtime-structured layouts (`algebra` on `DynLayout`): the structure is data.
#[inline(always)]
pub fn dyn_composition(mn: &Extents, i: usize) -> isize {
    let (m, n) = (mn[i & 1023].0 as isize, mn[i & 1023].1 as isize);
    let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
    let t = DynLayout::new(pair(rt(4), rt(2)), pair(rt(2), rt(8))).expect("valid");
    let r = algebra::composition(&a, &t).expect("admissible");
    r.offset(3) + r.size().value
}

/// `logical_divide` on a runtime-structured layout, by the tile `<2:_1, 2:_1>`.
#[inline(always)]
pub fn dyn_logical_divide(mn: &Extents, i: usize) -> isize {
    let (m, n) = (mn[i & 1023].0 as isize, mn[i & 1023].1 as isize);
    let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
    let two = DynLayout::new(rt(2), DynIntTuple::int(DynInt::new_static(1))).expect("valid");
    let t = Tiler::by_mode(&[TileMode::Layout(two), TileMode::Layout(two)]).expect("two modes");
    let r = algebra::logical_divide(&a, &t).expect("admissible");
    r.offset(5) + r.size().value
}

/// `complement`'s operand `(_4,m):(_1,_16)` as a runtime-structured layout.
#[inline(always)]
fn dyn_complement_layout(m: isize) -> DynLayout {
    DynLayout::new(
        pair(DynIntTuple::int(DynInt::new_static(4)), rt(m)),
        pair(DynIntTuple::int(DynInt::new_static(1)), DynIntTuple::int(DynInt::new_static(16))),
    )
    .expect("valid")
}

/// `complement` of a runtime-structured layout.
#[inline(always)]
pub fn dyn_complement(mn: &Extents, i: usize) -> isize {
    let a = dyn_complement_layout(mn[i & 1023].0 as isize);
    let r = algebra::complement_to(&a, &rt(4096)).expect("admissible");
    r.offset(1) + r.size().value
}

/// What [`dyn_complement`] spends before the algebra: its operand built and read (one offset
/// and the size), no complement. A floor for the runtime-structured rows.
#[inline(always)]
pub fn dyn_complement_operand(mn: &Extents, i: usize) -> isize {
    let a = dyn_complement_layout(mn[i & 1023].0 as isize);
    a.offset(1) + a.size().value
}
