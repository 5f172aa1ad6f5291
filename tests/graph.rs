//! rocRoller's coordinate graph (`const_layout::graph`): every numeric expectation of rocRoller's
//! `test/unit/CoordinateGraphTest.cpp` as the reference records them
//! (`../shared/reference/rocroller.md` section 5, reproduced there by a re-implementation), the
//! reference's extra cases, and traversal against the layout algebra.

use const_layout::graph::{CoordinateGraph, Dimension, DimensionKind, Edge, Tag, Transformer};
use const_layout::{LayoutError, LayoutRight, make_layout};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn dim(g: &mut CoordinateGraph, kind: DimensionKind, size: Option<isize>, stride: Option<isize>) -> Tag {
    let mut d = Dimension::new(kind);
    if let Some(s) = size {
        d = d.with_size(s);
    }
    if let Some(s) = stride {
        d = d.with_stride(s);
    }
    g.add_dimension(d).unwrap()
}

fn lin(g: &mut CoordinateGraph, size: isize, stride: isize) -> Tag {
    g.add_dimension(Dimension::linear(size, stride)).unwrap()
}

fn edge_error(r: Result<impl core::fmt::Debug, LayoutError>) -> &'static str {
    match r {
        Err(LayoutError::EdgeFunction { edge, .. }) => edge,
        Err(LayoutError::Graph { what, .. }) => what,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn basic_and_basic3d() {
    let mut g = CoordinateGraph::new();
    let (x, y) = (lin(&mut g, 64, 1), lin(&mut g, 64, 1));
    let m = lin(&mut g, 4096, 1);
    g.add_edge(Edge::Flatten, &[x, y], &[m]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(x, 5);
    t.set_coordinate(y, 3);
    assert_eq!(t.forward(&[m]).unwrap(), [323]);
    let mut r = Transformer::new(&g);
    r.set_coordinate(m, 67);
    assert_eq!(r.reverse(&[x]).unwrap(), [1]);
    assert_eq!(r.reverse(&[y]).unwrap(), [3]);

    // Basic3D: strides are ignored by Flatten.
    let mut g = CoordinateGraph::new();
    let (x, y, z) = (lin(&mut g, 64, 1), lin(&mut g, 32, 4), lin(&mut g, 16, 8));
    let m = lin(&mut g, 64 * 32 * 16, 1);
    g.add_edge(Edge::Flatten, &[x, y, z], &[m]).unwrap();
    let mut t = Transformer::new(&g);
    for (tag, v) in [(x, 5), (y, 3), (z, 7)] {
        t.set_coordinate(tag, v);
    }
    assert_eq!(t.forward(&[m]).unwrap(), [2615]);
    for (mv, xyz) in [(5, [0, 0, 5]), (2615, [5, 3, 7])] {
        let mut r = Transformer::new(&g);
        r.set_coordinate(m, mv);
        assert_eq!(r.reverse(&[x, y, z]).unwrap(), xyz, "m = {mv}");
    }
}

#[test]
fn basic_1d() {
    // Basic1D01: u -Split-> i(1024, stride 2) -Tile-> (wg, wf(64)).
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let i = lin(&mut g, 1024, 2);
    let wg = dim(&mut g, DimensionKind::Workgroup(0), None, None);
    let wf = dim(&mut g, DimensionKind::Workitem(0), Some(64), None);
    g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(wg, 2);
    t.set_coordinate(wf, 33);
    assert_eq!(t.reverse(&[i, u]).unwrap(), [161, 322]);
    let mut f = Transformer::new(&g);
    f.set_coordinate(i, 161);
    assert_eq!(f.forward(&[wg, wf]).unwrap(), [2, 33]);

    // Basic1D02: Tile(i; wg, wf(64), Unroll(4)).
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let i = lin(&mut g, 1024, 2);
    let wg = dim(&mut g, DimensionKind::Workgroup(0), None, None);
    let wf = dim(&mut g, DimensionKind::Workitem(0), Some(64), None);
    let un = dim(&mut g, DimensionKind::Unroll, Some(4), None);
    g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    g.add_edge(Edge::Tile, &[i], &[wg, wf, un]).unwrap();
    let mut t = Transformer::new(&g);
    for (tag, v) in [(wg, 2), (wf, 33), (un, 2)] {
        t.set_coordinate(tag, v);
    }
    assert_eq!(t.reverse(&[i, u]).unwrap(), [646, 1292]);

    // Basic1D03: Tile(i; wg, wf(256)), Tile(wf; thread(64), Unroll(4)).
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let i = lin(&mut g, 1024, 2);
    let wg = dim(&mut g, DimensionKind::Workgroup(0), None, None);
    let wf = dim(&mut g, DimensionKind::Workitem(0), Some(256), None);
    let th = dim(&mut g, DimensionKind::Adhoc, Some(64), None);
    let un = dim(&mut g, DimensionKind::Unroll, Some(4), None);
    g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
    g.add_edge(Edge::Tile, &[wf], &[th, un]).unwrap();
    let mut t = Transformer::new(&g);
    for (tag, v) in [(wg, 2), (th, 33), (un, 2)] {
        t.set_coordinate(tag, v);
    }
    assert_eq!(t.reverse(&[u]).unwrap(), [1292]);
}

/// TensorTile2DLoadStore: A -Split-> (Ai(M=100, stride K=300), Aj(K, 1)), each tiled by a
/// workgroup and a 16-wide macro-tile index, the indices joined into the tile.
fn tensor_tile(m: isize, n: isize) -> (CoordinateGraph, [Tag; 8]) {
    let mut g = CoordinateGraph::new();
    let a = dim(&mut g, DimensionKind::User, None, None);
    let ai = dim(&mut g, DimensionKind::SubDimension(0), Some(m), Some(n));
    let aj = dim(&mut g, DimensionKind::SubDimension(1), Some(n), Some(1));
    let tx = dim(&mut g, DimensionKind::Workgroup(0), None, None);
    let ty = dim(&mut g, DimensionKind::Workgroup(1), None, None);
    let i = dim(&mut g, DimensionKind::MacroTileIndex(0), Some(16), Some(16));
    let j = dim(&mut g, DimensionKind::MacroTileIndex(1), Some(16), Some(1));
    let tile = dim(&mut g, DimensionKind::MacroTile, None, None);
    g.add_edge(Edge::Split, &[a], &[ai, aj]).unwrap();
    g.add_edge(Edge::Tile, &[ai], &[tx, i]).unwrap();
    g.add_edge(Edge::Tile, &[aj], &[ty, j]).unwrap();
    g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
    (g, [a, ai, aj, tx, ty, i, j, tile])
}

#[test]
fn tensor_tile_2d() {
    let (g, [a, ai, _aj, tx, ty, i, j, _tile]) = tensor_tile(100, 300);
    let mut t = Transformer::new(&g);
    for (tag, v) in [(tx, 4), (ty, 5), (i, 33), (j, 2)] {
        t.set_coordinate(tag, v);
    }
    assert_eq!(t.reverse(&[ai, a]).unwrap(), [97, 29182]);
    // With only (tx, i) known, Aj is unreachable and the Split cannot fire.
    let mut p = Transformer::new(&g);
    p.set_coordinate(tx, 4);
    p.set_coordinate(i, 33);
    assert_eq!(edge_error(p.reverse(&[a])), "no path reaches this dimension");
    assert!(!p.has_path(&[a], false));
    // Forward from Ai = 17: i = 17 mod 16.
    let mut f = Transformer::new(&g);
    f.set_coordinate(ai, 17);
    assert_eq!(f.forward(&[i]).unwrap(), [1]);
}

#[test]
fn tensor_tile_2d_strides() {
    // TensorTile2DLoadStore03: M = 1600, N = 4800, plus Flatten(tx, i; Di), Flatten(ty, j; Dj),
    // Join(Di(stride N), Dj(1); D). All coordinates zero-filled, as the code generator does.
    let (mut g, [a, _ai, _aj, tx, ty, i, j, _tile]) = tensor_tile(1600, 4800);
    let di = dim(&mut g, DimensionKind::Adhoc, Some(1600), Some(4800));
    let dj = dim(&mut g, DimensionKind::Adhoc, Some(4800), Some(1));
    let d = dim(&mut g, DimensionKind::User, None, None);
    g.add_edge(Edge::Flatten, &[tx, i], &[di]).unwrap();
    g.add_edge(Edge::Flatten, &[ty, j], &[dj]).unwrap();
    g.add_edge(Edge::Join, &[di, dj], &[d]).unwrap();
    let mut t = Transformer::new(&g);
    for tag in [tx, ty, i, j] {
        t.set_coordinate(tag, 0);
    }
    assert_eq!(t.reverse_stride(tx, 1, &[a]).unwrap(), [76800]);
    assert_eq!(t.reverse_stride(i, 2, &[a]).unwrap(), [9600]);
    assert_eq!(t.reverse_stride(j, 1, &[a]).unwrap(), [1]);
    assert_eq!(t.reverse_stride(ty, 2, &[a]).unwrap(), [32]);
    assert_eq!(t.forward_stride(ty, 2, &[d]).unwrap(), [32]);
}

#[test]
fn sunder() {
    // input -Sunder-> (linX(100), linY(24), linZ(17), sw(2)); each lin tiled.
    let mut g = CoordinateGraph::new();
    let input = dim(&mut g, DimensionKind::User, None, None);
    let (x, y, z) = (lin(&mut g, 100, 1), lin(&mut g, 24, 1), lin(&mut g, 17, 1));
    let sw = lin(&mut g, 2, 1);
    g.add_edge(Edge::Sunder, &[input], &[x, y, z, sw]).unwrap();
    let parts = [(x, 10), (y, 6), (z, 9)].map(|(l, inner)| {
        let outer = dim(&mut g, DimensionKind::Adhoc, None, None);
        let inner = dim(&mut g, DimensionKind::Adhoc, Some(inner), None);
        g.add_edge(Edge::Tile, &[l], &[outer, inner]).unwrap();
        (outer, inner)
    });
    let [(a, b), (c, dd), (e, f)] = parts;
    let mut t = Transformer::new(&g);
    for (tag, v) in [(a, 8), (b, 3), (c, 1), (dd, 4), (e, 0), (f, 19)] {
        t.set_coordinate(tag, v);
    }
    for (s, expected) in [(0, 83), (1, 110), (2, 143)] {
        t.set_coordinate(sw, s);
        assert_eq!(t.reverse(&[input]).unwrap(), [expected], "sw = {s}");
    }
    t.set_coordinate(sw, 3);
    assert_eq!(edge_error(t.reverse(&[input])), "Sunder");
    // Strides: only the selected branch moves the input.
    let cases = [
        (0, b, 2, 2),
        (0, a, 2, 20),
        (0, dd, 2, 0),
        (1, dd, 3, 3),
        (1, c, 3, 18),
        (2, f, 1, 1),
        (2, e, 3, 27),
    ];
    for (s, x, dx, expected) in cases {
        t.set_coordinate(sw, s);
        assert_eq!(t.reverse_stride(x, dx, &[input]).unwrap(), [expected], "sw = {s}, tag {x} by {dx}");
    }
}

#[test]
fn has_path() {
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let (i, j) = (lin(&mut g, 16, 4), lin(&mut g, 4, 1));
    let (wg, wf) = (
        dim(&mut g, DimensionKind::Workgroup(0), None, None),
        dim(&mut g, DimensionKind::Workitem(0), Some(4), None),
    );
    g.add_edge(Edge::Split, &[u], &[i, j]).unwrap();
    g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
    let knowing = |tags: &[Tag]| {
        let mut t = Transformer::new(&g);
        for &tag in tags {
            t.set_coordinate(tag, 0);
        }
        t
    };
    assert!(knowing(&[wg, wf, j]).has_path(&[u], false));
    assert!(!knowing(&[wg, j]).has_path(&[u], false));
    assert!(!knowing(&[wg, wf]).has_path(&[u], false));
    assert!(knowing(&[u]).has_path(&[i, j], true));
    assert!(knowing(&[u]).has_path(&[wg], true));
    assert!(knowing(&[i]).has_path(&[wg, wf], true));
    assert!(!knowing(&[wg, wf]).has_path(&[j], true));
}

#[test]
fn extra_cases_and_directions_without_function() {
    // Join(i(16, s16), j(16, s1); T): forward (3,5) -> 53; no reverse.
    let mut g = CoordinateGraph::new();
    let (i, j) = (lin(&mut g, 16, 16), lin(&mut g, 16, 1));
    let tile = dim(&mut g, DimensionKind::MacroTile, None, None);
    g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(i, 3);
    t.set_coordinate(j, 5);
    assert_eq!(t.forward(&[tile]).unwrap(), [53]);
    let mut r = Transformer::new(&g);
    r.set_coordinate(tile, 53);
    assert_eq!(edge_error(r.reverse(&[i])), "Join");
    // Split(u; a(4, s8), b(8, s1)): reverse (3,5) -> 29; no forward.
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let (a, b) = (lin(&mut g, 4, 8), lin(&mut g, 8, 1));
    g.add_edge(Edge::Split, &[u], &[a, b]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(a, 3);
    t.set_coordinate(b, 5);
    assert_eq!(t.reverse(&[u]).unwrap(), [29]);
    let mut f = Transformer::new(&g);
    f.set_coordinate(u, 29);
    assert_eq!(edge_error(f.forward(&[a])), "Split");
    // Tile(m(24); 2,3,4): forward 17 -> (1,1,1), forward step 5 -> (0,1,1).
    let mut g = CoordinateGraph::new();
    let m = lin(&mut g, 24, 1);
    let (p, q, r2) = (lin(&mut g, 2, 1), lin(&mut g, 3, 1), lin(&mut g, 4, 1));
    g.add_edge(Edge::Tile, &[m], &[p, q, r2]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(m, 17);
    assert_eq!(t.forward(&[p, q, r2]).unwrap(), [1, 1, 1]);
    assert_eq!(t.forward_stride(m, 5, &[p, q, r2]).unwrap(), [0, 1, 1]);
    // Flatten(2,3,4; f): reverse 23 -> (1,2,3), reverse step 6 -> (0,1,2).
    let mut g = CoordinateGraph::new();
    let (p, q, r2) = (lin(&mut g, 2, 1), lin(&mut g, 3, 1), lin(&mut g, 4, 1));
    let f = lin(&mut g, 24, 1);
    g.add_edge(Edge::Flatten, &[p, q, r2], &[f]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(f, 23);
    assert_eq!(t.reverse(&[p, q, r2]).unwrap(), [1, 2, 3]);
    assert_eq!(t.reverse_stride(f, 6, &[p, q, r2]).unwrap(), [0, 1, 2]);
    // Forget has no function either way.
    let mut g = CoordinateGraph::new();
    let (v, w) = (lin(&mut g, 4, 1), lin(&mut g, 4, 1));
    g.add_edge(Edge::Forget, &[v], &[w]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(v, 1);
    assert_eq!(edge_error(t.forward(&[w])), "Forget");
    // Dataflow edges are never traversed.
    let mut g = CoordinateGraph::new();
    let (v, w) = (lin(&mut g, 4, 1), lin(&mut g, 4, 1));
    g.add_edge(Edge::DataFlow, &[v], &[w]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(v, 1);
    assert_eq!(edge_error(t.forward(&[w])), "no path reaches this dimension");
}

proptest! {
    #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0x6a9), failure_persistence: None, ..Config::default() })]

    /// Flatten is `crd2idx` of the row-major (LayoutRight) layout of the sources' sizes; Tile is
    /// its inverse, CuTe's `idx2crd` read row-major; both directions agree.
    #[test]
    fn flatten_and_tile_are_the_row_major_layout(a in 1isize..=6, b in 1isize..=6, c in 1isize..=6, seed in 0isize..10_000) {
        let l = make_layout((a as usize, b as usize, c as usize), LayoutRight).unwrap();
        let mut g = CoordinateGraph::new();
        let (x, y, z) = (lin(&mut g, a, 1), lin(&mut g, b, 1), lin(&mut g, c, 1));
        let f = lin(&mut g, a * b * c, 1);
        let (p, q, r) = (lin(&mut g, a, 1), lin(&mut g, b, 1), lin(&mut g, c, 1));
        g.add_edge(Edge::Flatten, &[x, y, z], &[f]).unwrap();
        g.add_edge(Edge::Tile, &[f], &[p, q, r]).unwrap();
        let u = seed % (a * b * c);
        let coord = ((u / (b * c)) as usize, ((u / c) % b) as usize, (u % c) as usize);
        let mut t = Transformer::new(&g);
        t.set_coordinate(x, coord.0 as isize);
        t.set_coordinate(y, coord.1 as isize);
        t.set_coordinate(z, coord.2 as isize);
        prop_assert_eq!(t.forward(&[f]).unwrap(), [l.crd2idx(coord)]);
        prop_assert_eq!(t.forward(&[p, q, r]).unwrap(), [coord.0 as isize, coord.1 as isize, coord.2 as isize]);
        let mut back = Transformer::new(&g);
        back.set_coordinate(p, coord.0 as isize);
        back.set_coordinate(q, coord.1 as isize);
        back.set_coordinate(r, coord.2 as isize);
        prop_assert_eq!(back.reverse(&[f]).unwrap(), [u]);
        prop_assert_eq!(back.reverse(&[x, y, z]).unwrap(), [coord.0 as isize, coord.1 as isize, coord.2 as isize]);
    }
}

proptest! {
    #![proptest_config(Config { cases: 128, rng_seed: RngSeed::Fixed(0x5e1), failure_persistence: None, ..Config::default() })]

    /// The symbolic traversal (workgroup and index registers as variables) is the integer one:
    /// its expression, evaluated at the values, gives the integer traversal's index and strides.
    #[test]
    fn symbolic_is_the_integers(tx in 0isize..8, ty in 0isize..8, i in 0isize..16, j in 0isize..16, dx in 1isize..4) {
        use const_layout::graph::Arena;
        let (g, [a, ai, _aj, txt, tyt, it, jt, _tile]) = tensor_tile(100, 300);
        let mut n = Transformer::new(&g);
        for (tag, v) in [(txt, tx), (tyt, ty), (it, i), (jt, j)] {
            n.set_coordinate(tag, v);
        }
        let arena = Arena::new();
        let mut s = Transformer::symbolic(&g, &arena);
        for (tag, name) in [(txt, "tx"), (tyt, "ty"), (it, "i"), (jt, "j")] {
            s.set_coordinate(tag, arena.var(name));
        }
        let value = |name: &str| match name { "tx" => tx, "ty" => ty, "i" => i, _ => j };
        let [ea, eai] = s.reverse(&[a, ai]).unwrap();
        prop_assert_eq!([ea.eval(&value), eai.eval(&value)], n.reverse(&[a, ai]).unwrap());
        prop_assert_eq!(ea.c().to_string(), "(tx * 16 + i) * 300 + ty * 16 + j");
        let [st] = s.reverse_stride(txt, arena.constant(dx), &[a]).unwrap();
        prop_assert_eq!(st.as_const_value(), Some(n.reverse_stride(txt, dx, &[a]).unwrap()[0]));
        prop_assert!(!arena.overflowed());
    }
}

mod bridges {
    use super::*;
    use const_layout::dynamic::DynLayout;

    proptest! {
        #![proptest_config(Config { cases: 128, rng_seed: RngSeed::Fixed(0xb41), failure_persistence: None, ..Config::default() })]

        /// A layout as a graph fragment (Tile, then Join): forward from the 1-D index gives the
        /// layout's offset at every index, reverse from the integers' coordinates gives the index
        /// back, and the path comes back as a layout with the same offsets.
        #[test]
        fn layout_fragments(a in 1isize..=5, b in 1isize..=4, c in 1isize..=3, x in 0isize..=20, y in 0isize..=20, z in 0isize..=60) {
            let l: DynLayout = format!("({a},({b},{c})):({x},({y},{z}))").parse().unwrap();
            let mut g = CoordinateGraph::new();
            let f = g.add_layout(&l).unwrap();
            prop_assert_eq!(f.count, 3);
            for k in 0..a * b * c {
                let mut t = Transformer::new(&g);
                t.set_coordinate(f.index, k);
                prop_assert_eq!(t.forward(&[f.offset]).unwrap(), [l.offset(k)], "{} at {}", l, k);
                let coords = t.forward(&[f.leaves[0], f.leaves[1], f.leaves[2]]).unwrap();
                prop_assert_eq!(coords, [k % a, (k / a) % b, k / (a * b)]);
                let mut r = Transformer::new(&g);
                for (tag, v) in f.leaves[..3].iter().zip(coords) {
                    r.set_coordinate(*tag, v);
                }
                prop_assert_eq!(r.reverse(&[f.index]).unwrap(), [k]);
            }
            let back = g.to_layout(f.index, f.offset).unwrap();
            prop_assert_eq!(back.offsets().collect::<Vec<_>>(), l.offsets().collect::<Vec<_>>(), "{} came back as {}", l, back);
        }
    }

    #[test]
    fn non_layout_paths_name_the_edge_and_dot_draws_the_graph() {
        // A Forget on the path: no function, an error naming it.
        let mut g = CoordinateGraph::new();
        let u = lin(&mut g, 12, 1);
        let (p, q) = (lin(&mut g, 3, 1), lin(&mut g, 4, 1));
        g.add_edge(Edge::Tile, &[u], &[p, q]).unwrap();
        let out = dim(&mut g, DimensionKind::Linear, None, None);
        g.add_edge(Edge::Forget, &[p, q], &[out]).unwrap();
        assert!(matches!(g.to_layout(u, out), Err(LayoutError::EdgeFunction { edge: "Forget", .. })));
        // Tile then Flatten in the other order: a transposition, which is a layout.
        let back = lin(&mut g, 12, 1);
        g.add_edge(Edge::Flatten, &[q, p], &[back]).unwrap();
        assert_eq!(g.to_layout(u, back).unwrap().to_string(), "(4,3):(3,1)");
        let dot = g.dot().to_string();
        assert!(dot.starts_with("digraph coordinates {"), "{dot}");
        assert!(dot.contains("n3 [shape=box, label=\"3: Tile\"];"), "{dot}");
        assert!(dot.contains("n0 -> n3") && dot.contains("n3 -> n1") && dot.contains("n3 -> n2"), "{dot}");
        assert_eq!(dot.lines().filter(|l| l.contains("->")).count(), 3 + 3 + 3);
    }
}

#[test]
fn piecewise_affine_join() {
    use const_layout::graph::{Arena, PiecewiseAffine};
    // Rows below 4 at stride 10, the rest at stride 20 from 40 on (a padded second block).
    let p = PiecewiseAffine::new(0, 4, [10, 1], 0, [20, 1], -40);
    let mut g = CoordinateGraph::new();
    let (r, c) = (lin(&mut g, 8, 1), lin(&mut g, 10, 1));
    let out = dim(&mut g, DimensionKind::Linear, None, None);
    g.add_edge(Edge::PiecewiseAffineJoin(p), &[r, c], &[out]).unwrap();
    for (row, col, expected) in [(0, 0, 0), (3, 7, 37), (4, 0, 40), (7, 9, 109)] {
        let mut t = Transformer::new(&g);
        t.set_coordinate(r, row);
        t.set_coordinate(c, col);
        assert_eq!(t.forward(&[out]).unwrap(), [expected], "({row},{col})");
        assert_eq!(t.forward_stride(c, 1, &[out]).unwrap(), [0], "rocRoller's step: the first input's");
    }
    // A symbolic row leaves the branch undecided: an error naming the edge, not a wrong value.
    let arena = Arena::new();
    let mut s = Transformer::symbolic(&g, &arena);
    s.set_coordinate(r, arena.var("row"));
    s.set_coordinate(c, arena.constant(1));
    assert_eq!(edge_error(s.forward(&[out])), "PiecewiseAffineJoin");
}

#[test]
fn runtime_sizes_need_a_symbolic_traversal() {
    use const_layout::graph::Arena;
    // A(M, N) split with the runtime leading dimension N: A = ai * N + aj.
    let mut g = CoordinateGraph::new();
    let a = dim(&mut g, DimensionKind::User, None, None);
    let ai = g
        .add_dimension(
            Dimension::new(DimensionKind::SubDimension(0)).with_runtime_size("M").with_runtime_stride("N"),
        )
        .unwrap();
    let aj = g
        .add_dimension(Dimension::new(DimensionKind::SubDimension(1)).with_runtime_size("N").with_stride(1))
        .unwrap();
    g.add_edge(Edge::Split, &[a], &[ai, aj]).unwrap();
    let mut n = Transformer::new(&g);
    n.set_coordinate(ai, 3);
    n.set_coordinate(aj, 4);
    assert_eq!(edge_error(n.reverse(&[a])), "Split");
    let arena = Arena::new();
    let mut s = Transformer::symbolic(&g, &arena);
    s.set_coordinate(ai, arena.var("i"));
    s.set_coordinate(aj, arena.constant(4));
    let [e] = s.reverse(&[a]).unwrap();
    assert_eq!((e.rust().to_string(), e.c().to_string()), ("i * N + 4".to_string(), "i * N + 4".to_string()));
    let [st] = s.reverse_stride(ai, arena.constant(1), &[a]).unwrap();
    assert_eq!(st.rust().to_string(), "N");
}

#[test]
fn long_chains_fit() {
    // 120 dimensions in a line of PassThroughs and Tiles: 239 elements, deep traversal.
    let mut g = CoordinateGraph::new();
    let first = lin(&mut g, 1 << 20, 1);
    let mut last = first;
    for k in 0..119 {
        let next = lin(&mut g, 1 << 20, 1);
        g.add_edge(if k % 2 == 0 { Edge::PassThrough } else { Edge::Inherit }, &[last], &[next]).unwrap();
        last = next;
    }
    let mut t = Transformer::new(&g);
    t.set_coordinate(first, 12345);
    assert_eq!(t.forward(&[last]).unwrap(), [12345]);
    let mut r = Transformer::new(&g);
    r.set_coordinate(last, 777);
    assert_eq!(r.reverse(&[first]).unwrap(), [777]);
    // The 257th element does not fit: an error, not a panic.
    let mut full = CoordinateGraph::new();
    for _ in 0..256 {
        lin(&mut full, 1, 1);
    }
    assert_eq!(full.add_dimension(Dimension::linear(1, 1)), Err(LayoutError::TooLarge));
}

#[test]
fn macro_tile_dimensions() {
    // A 16x16 macro tile: its indices' sizes and strides as rocRoller's MacroTile gives them, joined
    // into the tile's own linear index (the reference's Join(i(16,s16), j(16,s1)) example).
    let mut g = CoordinateGraph::new();
    let i = g.add_dimension(Dimension::macro_tile_index(&[16, 16], 0, 1).unwrap()).unwrap();
    let j = g.add_dimension(Dimension::macro_tile_index(&[16, 16], 1, 1).unwrap()).unwrap();
    let tile = dim(&mut g, DimensionKind::MacroTile, None, None);
    g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(i, 3);
    t.set_coordinate(j, 5);
    assert_eq!(t.forward(&[tile]).unwrap(), [53]);
    // Jamming by 2 doubles the index's size; a dimension past the sizes is None.
    assert_eq!(Dimension::macro_tile_index(&[16, 16], 0, 2).unwrap().size(), Some(32));
    assert!(Dimension::macro_tile_index(&[16, 16], 2, 1).is_none());
    assert_eq!(Dimension::macro_tile_number(0, 7).stride(), Some(1));
}

#[test]
fn code_generation_helpers() {
    use const_layout::graph::Arena;
    // The tensor-tile graph: workgroups from the kernel's registers, the tile indices left out
    // and zero-filled, as rocRoller's load generator does for the first iteration's offset.
    let (g, [a, _ai, _aj, tx, ty, i, j, _tile]) = tensor_tile(100, 300);
    let arena = Arena::new();
    let mut t = Transformer::symbolic(&g, &arena);
    let wg = [arena.var("blockIdx.x"), arena.var("blockIdx.y"), arena.var("blockIdx.z")];
    let wi = [arena.var("threadIdx.x"), arena.var("threadIdx.y"), arena.var("threadIdx.z")];
    t.fill_execution_coordinates(wg, wi);
    assert_eq!(t.coordinate(tx).map(|v| v.c().to_string()), Some("blockIdx.x".to_string()));
    assert_eq!(t.coordinate(ty).map(|v| v.c().to_string()), Some("blockIdx.y".to_string()));
    assert_eq!(t.zero_fill_required(a, false), 2); // i and j
    assert_eq!(
        (t.coordinate(i).and_then(|v| v.as_const_value()), t.coordinate(j).and_then(|v| v.as_const_value())),
        (Some(0), Some(0))
    );
    let [offset] = t.reverse(&[a]).unwrap();
    assert_eq!(offset.c().to_string(), "blockIdx.x * 16 * 300 + blockIdx.y * 16");
    let [step] = t.reverse_stride(i, arena.constant(1), &[a]).unwrap();
    assert_eq!(step.as_const_value(), Some(300));
}
