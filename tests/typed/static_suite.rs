//! CuTe's static algebra anchor (the program `cute_static_suite.cpp`, 37 fully static
//! results), computed by the program `examples/static_suite.rs` with `layout!`: every result is
//! computed at compile time and must print exactly what CuTe printed
//! (`tests/data/cute_static_suite.txt`, the anchor's output; refresh it with
//! `tools/static_suite.sh`, which also times that program's build next to the anchor's). Then more
//! static results CuTe's anchor does not have: swizzles with casts and offsets, TV layouts.

use const_layout::int_tuple::IntTuple;
use const_layout::layout;

#[path = "../../examples/static_suite.rs"]
#[allow(dead_code)] // its `main` is the program's, not the test's
mod program;

#[test]
fn static_suite_matches_cute() {
    let got = program::results();
    let expected: Vec<&str> = include_str!("../data/cute_static_suite.txt").lines().collect();
    assert_eq!(got.len(), expected.len(), "one result per line of CuTe's output");
    let wrong: Vec<String> = got
        .iter()
        .zip(&expected)
        .enumerate()
        .filter(|(_, (g, e))| g != e)
        .map(|(k, (g, e))| format!("line {}: CuTe {e}, here {g}", k + 1))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A swizzled shared-memory layout recast for wider elements, at compile time: every part cast
/// (CuTe's `upcast<2>(Sw<3,4,3> o (8,64):(64,1))` prints `Sw<3,3,3> o _0 o (_8,_32):(_32,_1)`).
#[test]
fn static_swizzled_upcast() {
    let smem = layout!(upcast<2>(composition(Sw<3,4,3>, (8,64):(64,1))));
    assert_eq!(smem.to_string(), "Sw<3,3,3> o _0 o (_8,_32):(_32,_1)");
    assert_eq!(core::mem::size_of_val(&smem), 0);
    let o = 2 * 32 + 5;
    assert_eq!(smem.crd2idx((2usize, 5usize)), o ^ ((o >> 3) & (0b111 << 3)));
}

/// CuTe's `composition(Sw<3,4,3>{}, Int<16>{}, layout)`: a static offset inside the swizzle.
#[test]
fn static_swizzled_offset() {
    let smem = layout!(composition(Sw<3,4,3>, 16, (8,64):(64,1)));
    assert_eq!(smem.to_string(), "Sw<3,4,3> o _16 o (_8,_64):(_64,_1)");
    assert_eq!(core::mem::size_of_val(&smem), 0);
    for (r, c) in [(0usize, 0usize), (3, 0), (5, 7)] {
        let o = 16 + (r * 64 + c) as isize;
        assert_eq!(smem.crd2idx((r, c)), o ^ ((o >> 3) & (0b111 << 4)));
    }
}

/// CuTe's `(layout, offset)` results at compile time: a slice, a tile, a thread's partition, and
/// `make_layout_tv`'s `(tiler, layout)`.
#[test]
fn static_pairs() {
    use const_layout::int::Int;
    let (column, offset) = layout!(slice_and_offset((_, 2), (4,8):(8,1)));
    assert_eq!((column.to_string(), offset.value()), ("(_4):(_8)".to_string(), 2));
    let (tile, offset) = layout!(local_tile((8,6):(1,8), (4,3), (1,1)));
    assert_eq!((tile.to_string(), offset.value()), ("(_4,_3):(_1,_8)".to_string(), 28));
    let (mine, offset) = layout!(local_partition((8,6):(1,8), (4,3):(3,1), 5));
    assert_eq!((mine.to_string(), offset.value()), ("(_2,_2):(_4,_24)".to_string(), 17));
    let (tiler, tv) = layout!(make_layout_tv((2,2):(2,1), (2,1):(1,0)));
    assert_eq!(core::mem::size_of_val(&(tiler, tv)), 0);
    let runtime = const_layout::eval::eval("make_layout_tv((_2,_2):(_2,_1), (_2,_1):(_1,_0))").unwrap();
    assert_eq!(format!("{}, {tv}", tiler.display()), runtime.to_string());
}
