//! The runtime algebra and runtime index math never touch the heap: a counting global allocator
//! (counting this thread's allocations only, so the test harness's own threads do not interfere)
//! sees no allocation while the anchor's operations run on runtime values.
//!
//! `unsafe` here is only `GlobalAlloc`'s contract (the library itself forbids `unsafe`); every
//! call forwards to the system allocator unchanged.

use const_layout::algebra::{TileMode, Tiler, complement_to, composition, logical_divide};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::{C, FastDivmod, make_layout};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce() -> isize) -> (usize, isize) {
    let before = ALLOCATIONS.with(Cell::get);
    let r = f();
    (ALLOCATIONS.with(Cell::get) - before, r)
}

fn rt(v: isize) -> DynIntTuple {
    DynIntTuple::int(DynInt::new_runtime(v))
}

fn pair(a: DynIntTuple, b: DynIntTuple) -> DynIntTuple {
    DynIntTuple::tuple(&[a, b]).expect("two modes")
}

#[test]
fn the_counter_sees_allocations() {
    // Without this, a counter that never counts would pass every test below.
    let (n, _) = allocations_during(|| black_box(vec![1isize, 2, 3]).iter().sum());
    assert!(n >= 1, "the counting allocator missed an allocation");
}

#[test]
fn runtime_algebra_allocates_nothing() {
    for (m, n) in [(2isize, 2isize), (4, 16), (16, 8), (8, 4)] {
        let (m, n) = (black_box(m), black_box(n));
        let (count, value) = allocations_during(|| {
            let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
            let b = DynLayout::new(pair(rt(4), rt(2)), pair(rt(2), rt(8))).expect("valid");
            let c = composition(&a, &b).expect("admissible");
            let two = DynLayout::new(rt(2), DynIntTuple::int(DynInt::new_static(1))).expect("valid");
            let t = Tiler::by_mode(&[TileMode::Layout(two), TileMode::Layout(two)]).expect("two modes");
            let d = logical_divide(&a, &t).expect("admissible");
            let k = DynLayout::new(
                pair(DynIntTuple::int(DynInt::new_static(4)), rt(m)),
                pair(DynIntTuple::int(DynInt::new_static(1)), DynIntTuple::int(DynInt::new_static(16))),
            )
            .expect("valid");
            let e = complement_to(&k, &rt(4096)).expect("admissible");
            c.offset(3) + c.size().value + d.offset(5) + d.size().value + e.offset(1) + e.size().value
        });
        assert_eq!(count, 0, "the algebra allocated {count} times for m = {m}, n = {n}");
        // The values themselves, so that the work cannot be skipped. C = (4,2):(2,8) as A's
        // first mode holds 8 or more: C(3) = 6, size 8. D = ((2,2m),(2,2n)):((1,2),(4m,8m)):
        // D(5) = 5 (index 5 stays in the first mode, of size 4m >= 8), size 16mn. E = (4,
        // 4096/(16m)):(4,16m): E(1) = 4, size 4 * 4096 / (16m).
        assert_eq!(value, 6 + 8 + 5 + 16 * m * n + 4 + 4 * 4096 / (16 * m), "m = {m}, n = {n}");
    }
}

#[test]
fn typed_runtime_algebra_allocates_nothing() {
    use const_layout::algebra::{tiling, typed};
    let (m, n) = (black_box(8i32), black_box(4i32));
    let (count, value) = allocations_during(|| {
        let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
        let b = make_layout((4i32, 2i32), (2i32, 8i32)).expect("valid");
        let c = typed::composition(&a, &b).expect("admissible");
        let d = tiling::logical_divide(&a, (2i32, 2i32)).expect("divides");
        let k = make_layout((C::<4>, m), (C::<1>, C::<16>)).expect("valid");
        let e = typed::complement(&k, 4096i32).expect("admissible");
        // Also the general path (a right stride the common case does not take).
        let g = typed::composition(&a, &make_layout(2i32, -1i32).expect("valid")).expect("admissible");
        c.crd2idx(3i32)
            + c.size()
            + d.crd2idx(5i32)
            + d.size() as isize
            + e.crd2idx(1i32)
            + e.size()
            + g.crd2idx(1i32)
    });
    assert_eq!(count, 0, "the typed runtime algebra allocated {count} times");
    // As in `runtime_algebra_allocates_nothing` with m = 8, n = 4; and g(1) = A(-1) = -1.
    assert_eq!(value, 6 + 8 + 5 + 16 * 8 * 4 + 4 + 4 * 4096 / (16 * 8) - 1);
}

#[test]
fn runtime_index_math_allocates_nothing() {
    let (m, n) = (black_box(12usize), black_box(7usize));
    let (count, value) = allocations_during(|| {
        let plain = make_layout((m, n), (C::<1>, m)).expect("valid");
        let fast = make_layout((FastDivmod::new(m).expect("m > 0"), n), (C::<1>, m)).expect("valid");
        let (x, y) = fast.idx2crd(29usize);
        plain.crd2idx(29usize) + fast.crd2idx(30usize) + (x + y) as isize
    });
    assert_eq!(count, 0);
    assert_eq!(value, 29 + 30 + 5 + 2);
}
