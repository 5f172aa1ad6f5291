//! The typed runtime algebra on the operations of CuTe's anchor
//! `../shared/anchors/cute_dyn_algebra.cpp`, each as the anchor's loop body: build the operands
//! from the runtime extents of entry `i & 1023`, operate, read one offset and the size. Shared by
//! `benches/algebra.rs` (time) and `examples/algebra_counts.rs` (instruction counts), so that
//! both measure the same code.

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
