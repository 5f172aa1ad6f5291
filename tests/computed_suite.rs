//! CuTe's static algebra anchor (`tests/data/cute_static_suite.txt`, CuTe's own output) through the
//! generic static path, `const_layout::algebra::computed`: the operands are types, as in a generic
//! kernel, and every result must print exactly what CuTe printed. Every layout-algebra row of the
//! anchor is computed by the program `examples/computed_suite.rs` (31 of its 37 results); the
//! others (the swizzle, make_ordered_layout, make_layout and the int-tuple functions cosize,
//! idx2crd, crd2idx) are covered by `tests/typed/static_suite.rs` through `layout!` and by the
//! typed layouts themselves. Then the same path against the runtime algebra.

use const_layout::algebra::computed::{
    StaticLayout, local_partition, local_tile, logical_divide, slice, slice_and_offset, zipped_divide,
};
use const_layout::{C, layout_type};

#[path = "../examples/computed_suite.rs"]
#[allow(dead_code)] // its `main` is the program's, not the test's
mod program;

/// The zero-sized value of a static layout written in CuTe notation.
macro_rules! l {
    ($($t:tt)*) => {
        <layout_type!($($t)*)>::default()
    };
}

#[test]
fn static_suite_through_type_parameters_matches_cute() {
    let got = program::results();
    let expected: Vec<&str> = include_str!("data/cute_static_suite.txt").lines().collect();
    let wrong: Vec<String> = got
        .iter()
        .filter(|(k, g)| g != expected[*k])
        .map(|(k, g)| format!("line {}: got {g}, CuTe {}", k + 1, expected[*k]))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn results_are_zero_sized_and_index_like_their_layout() {
    let tiles = zipped_divide(l!((8,6):(1,8)), (C::<4>, C::<3>));
    assert_eq!(core::mem::size_of_val(&tiles), 0);
    let runtime = tiles.to_dyn();
    for i in 0..tiles.size() {
        assert_eq!(tiles.crd2idx(i as usize), runtime.offset(i), "index {i}");
    }
    // Hierarchical coordinates agree with the index they name.
    for (a, b, c, d) in [(0usize, 0usize, 0usize, 0usize), (3, 2, 1, 1), (1, 0, 1, 0)] {
        let i = a + 4 * b + 12 * c + 24 * d;
        assert_eq!(tiles.crd2idx(((a, b), (c, d))), runtime.offset(i as isize));
    }
    // Results feed further operations.
    let twice = logical_divide(tiles, l!(6:2));
    assert_eq!(
        twice.to_string(),
        const_layout::algebra::logical_divide(&runtime, &"_6:_2".parse().unwrap()).unwrap().to_string()
    );
}

#[test]
fn local_tile_agrees_with_the_runtime_algebra() {
    let runtime = |coord: &str| {
        let p = const_layout::algebra::local_tile(
            &"(_8,_6):(_1,_8)".parse().unwrap(),
            &"<_4:_1, _3:_1>".parse().unwrap(),
            &coord.parse().unwrap(),
        )
        .unwrap();
        (p.layout.to_string(), p.offset)
    };
    for (m, n) in [(0usize, 0usize), (1, 0), (0, 1), (1, 1)] {
        let (tile, offset) = local_tile(l!((8,6):(1,8)), (C::<4>, C::<3>), (m, n));
        assert_eq!((tile.to_string(), offset), runtime(&format!("({m},{n})")), "tile ({m},{n})");
        // An integer tile index is the same tile as its colexicographic coordinate.
        assert_eq!(local_tile(l!((8,6):(1,8)), (C::<4>, C::<3>), m + 2 * n).1, offset);
    }
}

#[test]
fn local_partition_agrees_with_the_runtime_algebra() {
    use const_layout::dyn_layout::DynInt;
    // Thread layouts in column-major, row-major and nested order, over a (8,6) and a (16,8) tile.
    fn check<A: StaticLayout + Copy, T: StaticLayout + Copy>(a: A, t: T, threads: usize) {
        let (la, lt) = (A::LAYOUT, T::LAYOUT);
        for index in 0..threads {
            let p = const_layout::algebra::local_partition(&la, &lt, DynInt::new_runtime(index as isize))
                .unwrap();
            let (mine, offset) = local_partition(a, t, index);
            assert_eq!(
                (mine.to_string(), offset),
                (p.layout.to_string(), p.offset),
                "{la} / {lt} thread {index}"
            );
        }
    }
    check(l!((8,6):(1,8)), l!((4,3):(3,1)), 12);
    check(l!((8,6):(1,8)), l!((4,3):(1,4)), 12);
    check(l!((16,8):(8,1)), l!(((2,2),4):((1,8),2)), 16);
    check(l!((16,8):(1,16)), l!(32:1), 32);
}

#[test]
fn slices_agree_with_the_runtime_algebra() {
    use const_layout::algebra::Slicer;
    use const_layout::algebra::computed::Keep;
    let runtime = |coord: &str, layout: &str| {
        let s: Slicer = coord.parse().unwrap();
        let p = const_layout::algebra::slice_and_offset(&s, &layout.parse().unwrap()).unwrap();
        (p.layout.to_string(), p.offset)
    };
    let l = l!((4,(2,3)):(1,(4,8)));
    let text = "(_4,(_2,_3)):(_1,(_4,_8))";
    for k in 0..4usize {
        for j in 0..3usize {
            let (s, o) = slice_and_offset((k, (Keep, j)), l);
            assert_eq!((s.to_string(), o), runtime(&format!("({k},(_,{j}))"), text));
            let (s, o) = slice_and_offset((Keep, (k % 2, j)), l);
            assert_eq!((s.to_string(), o), runtime(&format!("(_,({},{j}))", k % 2), text));
        }
        // `_` for a whole nested mode, and an integer split over one.
        let (s, o) = slice_and_offset((k, Keep), l);
        assert_eq!((s.to_string(), o), runtime(&format!("({k},_)"), text));
        let (s, o) = slice_and_offset((Keep, k), l);
        assert_eq!((s.to_string(), o), runtime(&format!("(_,{k})"), text));
    }
    assert_eq!(slice((C::<1>, Keep), l).to_string(), "((_2,_3)):((_4,_8))");
}

#[test]
fn identity_layouts_agree_with_the_runtime_algebra() {
    use const_layout::algebra::computed::make_identity_layout;
    use const_layout::dyn_layout::{DynInt, DynIntTuple};
    let id = make_identity_layout((C::<12>, C::<16>));
    let tiles = zipped_divide(id, (C::<4>, C::<8>));
    let runtime = const_layout::algebra::zipped_divide(
        &const_layout::algebra::make_identity_layout(&"(_12,_16)".parse().unwrap()).unwrap(),
        &"<_4:_1, _8:_1>".parse().unwrap(),
    )
    .unwrap();
    assert_eq!(tiles.to_string(), runtime.to_string());
    for i in 0..tiles.size() {
        let (m, n): (usize, usize) = tiles.coord(i as usize);
        let want = runtime.apply(&DynIntTuple::int(DynInt::new_runtime(i))).unwrap();
        assert_eq!(format!("({m},{n})"), want.to_string(), "index {i}");
    }
    // A nested shape: the coordinate type mirrors it.
    let nested = make_identity_layout(((C::<2>, C::<3>), C::<4>));
    assert_eq!(nested.to_string(), "((_2,_3),_4):((_1@0@0,_1@1@0),_1@1)");
    let ((a, b), c): ((usize, usize), usize) = nested.coord(17usize);
    assert_eq!((a, b, c), (1, 2, 2));
}

#[test]
fn mode_operations_agree_with_the_runtime_algebra() {
    use const_layout::algebra::computed::{group, select2, select3, take};
    let l = l!((2,3,4,5):(1,2,6,24));
    let rt: const_layout::dyn_layout::DynLayout = "(_2,_3,_4,_5):(_1,_2,_6,_24)".parse().unwrap();
    let eq = |got: String, want: const_layout::dyn_layout::DynLayout| assert_eq!(got, want.to_string());
    eq(select2::<3, 0, _>(l).to_string(), const_layout::algebra::select(&rt, &[3, 0]).unwrap());
    eq(select3::<1, 3, 2, _>(l).to_string(), const_layout::algebra::select(&rt, &[1, 3, 2]).unwrap());
    eq(take::<1, 3, _>(l).to_string(), const_layout::algebra::take(&rt, 1, 3).unwrap());
    eq(group::<1, 3, _>(l).to_string(), const_layout::algebra::group(&rt, 1, 3).unwrap());
}

#[test]
fn idx2crd_agrees_with_the_runtime_layout() {
    use const_layout::dyn_layout::{DynInt, DynIntTuple};
    let tiles = zipped_divide(l!((8,6):(1,8)), (C::<4>, C::<3>));
    let runtime = tiles.to_dyn();
    for i in 0..tiles.size() {
        let ((a, b), (c, d)): ((usize, usize), (usize, usize)) = tiles.idx2crd(i as usize);
        let want = runtime.idx2crd(&DynIntTuple::int(DynInt::new_runtime(i))).unwrap();
        let strip = want.to_string().replace('_', "");
        assert_eq!(format!("(({a},{b}),({c},{d}))"), strip, "index {i}");
    }
}

#[test]
fn modes_of_results() {
    use const_layout::algebra::computed::mode;
    let tiles = zipped_divide(l!((8,6):(1,8)), (C::<4>, C::<3>));
    assert_eq!(mode::<0, _>(tiles).to_string(), "(_4,_3):(_1,_8)");
    assert_eq!(mode::<1, _>(tiles).to_string(), "(_2,_2):(_4,_24)");
    assert_eq!(mode::<1, _>(tiles).crd2idx((1usize, 1usize)), 28);
}
