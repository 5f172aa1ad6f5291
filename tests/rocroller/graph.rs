//! rocRoller's coordinate graph (`const_layout::rocroller`): every numeric expectation of rocRoller's
//! `test/unit/CoordinateGraphTest.cpp` (each reproduced by a re-implementation of rocRoller's
//! semantics), further cases in the same style, and traversal against the layout algebra.

use const_layout::rocroller::{
    CoordinateGraph, Dimension, DimensionKind, Edge, GraphError, Tag, Transformer,
};
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

fn edge_error(r: Result<impl core::fmt::Debug, GraphError>) -> &'static str {
    match r {
        Err(GraphError::EdgeFunction { edge, .. }) => edge,
        Err(GraphError::Graph { what, .. }) => what,
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

/// Basic1D01: u -Split-> i(1024, stride 2) -Tile-> (wg, wf(64)).
fn basic_1d01() -> (CoordinateGraph, [Tag; 4]) {
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let i = lin(&mut g, 1024, 2);
    let wg = dim(&mut g, DimensionKind::Workgroup(0), None, None);
    let wf = dim(&mut g, DimensionKind::Workitem(0), Some(64), None);
    g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
    (g, [u, i, wg, wf])
}

#[test]
fn basic_1d() {
    let (g, [u, i, wg, wf]) = basic_1d01();
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
        use const_layout::rocroller::Arena;
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
        prop_assert_eq!([ea.eval(&value).unwrap(), eai.eval(&value).unwrap()], n.reverse(&[a, ai]).unwrap());
        // rocRoller's fast arithmetic changes the expression, not its value.
        prop_assert_eq!(ea.fast_arithmetic().eval(&value), ea.eval(&value));
        prop_assert_eq!(ea.c().to_string(), "(tx * 16 + i) * 300 + ty * 16 + j");
        let [st] = s.reverse_stride(txt, arena.constant(dx), &[a]).unwrap();
        prop_assert_eq!(st.as_const_value(), Some(n.reverse_stride(txt, dx, &[a]).unwrap()[0]));
        prop_assert!(!arena.overflowed());
    }
}

mod bridges {
    use super::*;
    use const_layout::dyn_layout::DynLayout;

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
        assert!(matches!(g.to_layout(u, out), Err(GraphError::EdgeFunction { edge: "Forget", .. })));
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
    use const_layout::rocroller::{Arena, PiecewiseAffine, Positional};
    // Rows below 4 at stride 10, the rest at stride 20 from -40 (rocRoller's workgroup remapping
    // shape: `cond(i...) ? Σ i_k T_k + t0 : Σ i_k F_k + f0`).
    let p = PiecewiseAffine::new(Positional::arg(0).lt(4), [10, 1], 0, [20, 1], -40).unwrap();
    let mut g = CoordinateGraph::new();
    let (r, c) = (lin(&mut g, 8, 1), lin(&mut g, 10, 1));
    let out = dim(&mut g, DimensionKind::Linear, None, None);
    let p = g.add_piecewise_affine(p).unwrap();
    g.add_edge(Edge::PiecewiseAffineJoin(p), &[r, c], &[out]).unwrap();
    for row in 0..8 {
        for col in 0..10 {
            let expected = if row < 4 { row * 10 + col } else { row * 20 + col - 40 };
            let mut t = Transformer::new(&g);
            t.set_coordinate(r, row);
            t.set_coordinate(c, col);
            assert_eq!(t.forward(&[out]).unwrap(), [expected], "({row},{col})");
            // The derivative of the selected branch (rocRoller passes the first input's step,
            // "TODO: This isn't right": 1 for the row).
            assert_eq!(t.forward_stride(c, 1, &[out]).unwrap(), [1]);
            assert_eq!(t.forward_stride(r, 1, &[out]).unwrap(), [if row < 4 { 10 } else { 20 }]);
        }
    }
    // A symbolic row leaves the condition to run time: rocRoller's Conditional.
    let arena = Arena::new();
    let mut s = Transformer::symbolic(&g, &arena);
    s.set_coordinate(r, arena.var("row"));
    s.set_coordinate(c, arena.constant(1));
    let [e] = s.forward(&[out]).unwrap();
    assert_eq!(e.c().to_string(), "row < 4 ? row * 10 + 1 : -40 + row * 20 + 1");
    assert_eq!(e.rust().to_string(), "if row < 4 { row * 10 + 1 } else { -40 + row * 20 + 1 }");
    for row in 0..8 {
        let mut t = Transformer::new(&g);
        t.set_coordinate(r, row);
        t.set_coordinate(c, 1);
        assert_eq!(e.eval(&|_| row), Some(t.forward(&[out]).unwrap()[0]));
    }
    let [step] = s.forward_stride(r, arena.constant(1), &[out]).unwrap();
    assert_eq!(step.c().to_string(), "row < 4 ? 10 : 20");
    // A known row decides it while building: no conditional in the expression.
    s.set_coordinate(r, arena.constant(6));
    s.set_coordinate(c, arena.var("col"));
    assert_eq!(s.forward(&[out]).unwrap()[0].c().to_string(), "80 + col");

    // Reverse: the same formula over the destinations; a compound condition.
    let p = PiecewiseAffine::new(
        (Positional::arg(0) % 2).equal(0).and(Positional::arg(1).ge(3)),
        [1, 100],
        0,
        [1, 1000],
        7,
    )
    .unwrap();
    let mut g = CoordinateGraph::new();
    let u = dim(&mut g, DimensionKind::User, None, None);
    let (x, y) = (lin(&mut g, 4, 1), lin(&mut g, 5, 1));
    let id = g.add_piecewise_affine(p).unwrap();
    g.add_edge(Edge::PiecewiseAffineJoin(id), &[u], &[x, y]).unwrap();
    for (xv, yv) in [(0, 3), (2, 4), (1, 3), (0, 2)] {
        let mut t = Transformer::new(&g);
        t.set_coordinate(x, xv);
        t.set_coordinate(y, yv);
        let expected = if xv % 2 == 0 && yv >= 3 { xv + 100 * yv } else { xv + 1000 * yv + 7 };
        assert_eq!(t.reverse(&[u]).unwrap(), [expected]);
        assert_eq!(p.eval(&[xv, yv]), Ok(expected));
    }
    let arena = Arena::new();
    let mut s = Transformer::symbolic(&g, &arena);
    s.set_coordinate(x, arena.var("x"));
    s.set_coordinate(y, arena.var("y"));
    let [e] = s.reverse(&[u]).unwrap();
    assert_eq!(e.c().to_string(), "x % 2 == 0 && y >= 3 ? x + y * 100 : 7 + x + y * 1000");
    assert_eq!(
        e.rust().to_string(),
        "if x.rem_euclid(2) == 0 && y >= 3 { x + y * 100 } else { 7 + x + y * 1000 }"
    );

    // A condition reading an input the edge lacks, and strides of the wrong count, are errors.
    assert!(PiecewiseAffine::new(Positional::arg(3).lt(1), [1, 1], 0, [1, 1], 0).is_err());
    let q = PiecewiseAffine::new(Positional::arg(0).lt(1), [1, 1, 1], 0, [1, 1, 1], 0).unwrap();
    let mut g = CoordinateGraph::new();
    let (a, b, o) = (lin(&mut g, 4, 1), lin(&mut g, 4, 1), lin(&mut g, 16, 1));
    let q = g.add_piecewise_affine(q).unwrap();
    g.add_edge(Edge::PiecewiseAffineJoin(q), &[a, b], &[o]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(a, 0);
    t.set_coordinate(b, 0);
    assert_eq!(edge_error(t.forward(&[o])), "PiecewiseAffineJoin");
}

#[test]
fn pair_swap_and_rotate() {
    // rocRoller's LDS remappings (reverse only): out from (col, row).
    let cases = [
        Edge::PairSwap { rows_per_group: 4 },
        Edge::Rotate { num_positions: 8, rows_per_group: 2, inverse: false },
        Edge::Rotate { num_positions: 8, rows_per_group: 2, inverse: true },
    ];
    for edge in cases {
        let mut g = CoordinateGraph::new();
        let out = lin(&mut g, 8, 1);
        let (col, row) = (lin(&mut g, 8, 1), lin(&mut g, 32, 1));
        g.add_edge(edge, &[out], &[col, row]).unwrap();
        let mut seen = [[false; 8]; 32];
        for rv in 0..32isize {
            for cv in 0..8isize {
                let expected = match edge {
                    Edge::PairSwap { .. } => cv ^ (((rv >> 2) ^ 1) & 1),
                    Edge::Rotate { inverse: false, .. } => (cv + 8 - ((rv >> 1) >> 1 << 1)) & 7,
                    _ => (cv + ((rv >> 1) >> 1 << 1)) & 7,
                };
                let mut t = Transformer::new(&g);
                t.set_coordinate(col, cv);
                t.set_coordinate(row, rv);
                let [o] = t.reverse(&[out]).unwrap();
                assert_eq!(o, expected, "{edge:?} ({cv},{rv})");
                seen[rv as usize][o as usize] = true;
                assert_eq!(t.reverse_stride(col, 1, &[out]).unwrap(), [1], "rocRoller: the column's step");
            }
        }
        // Each row's columns are permuted: a bijection, so no bank is hit twice.
        assert!(seen.iter().all(|r| r.iter().all(|&b| b)), "{edge:?}");
        let mut f = Transformer::new(&g);
        f.set_coordinate(out, 3);
        assert_eq!(edge_error(f.forward(&[col])), edge.name());
    }
    // Not powers of two: an error naming the edge.
    let mut g = CoordinateGraph::new();
    let out = lin(&mut g, 8, 1);
    let (col, row) = (lin(&mut g, 8, 1), lin(&mut g, 32, 1));
    g.add_edge(Edge::PairSwap { rows_per_group: 3 }, &[out], &[col, row]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(col, 1);
    t.set_coordinate(row, 1);
    assert_eq!(edge_error(t.reverse(&[out])), "PairSwap");
}

#[test]
fn fast_arithmetic_and_overflow() {
    use const_layout::rocroller::Arena;
    // Basic1D01 with the workitem in register v0: rocRoller's FastArithmetic gives
    // `AddShiftL(128, v0, 1)`, here `(128 + v0) << 1`.
    let (g, [u, i, wg, wf]) = basic_1d01();
    let arena = Arena::new();
    let mut t = Transformer::symbolic(&g, &arena);
    t.set_coordinate(wg, arena.constant(2));
    t.set_coordinate(wf, arena.var("v0"));
    let [e] = t.reverse(&[u]).unwrap();
    assert_eq!(e.c().to_string(), "(128 + v0) * 2");
    assert_eq!(e.fast_arithmetic().c().to_string(), "(128 + v0) << 1");
    assert_eq!(e.fast_arithmetic().rust().to_string(), "(128 + v0) << 1");
    // Forward from a register: division and remainder by 64 become a shift and a mask.
    let mut f = Transformer::symbolic(&g, &arena);
    f.set_coordinate(i, arena.var("idx"));
    let [gw, gf] = f.forward(&[wg, wf]).unwrap();
    assert_eq!(
        (gw.fast_arithmetic().c().to_string(), gf.fast_arithmetic().c().to_string()),
        ("idx >> 6".into(), "idx & 63".into())
    );

    // Integer overflow is an error naming the edge, never a wrapped index.
    let mut g = CoordinateGraph::new();
    let (x, y) = (lin(&mut g, isize::MAX / 2, 1), lin(&mut g, 1 << 40, 1));
    let m = lin(&mut g, 1, 1);
    g.add_edge(Edge::Flatten, &[x, y], &[m]).unwrap();
    let mut t = Transformer::new(&g);
    t.set_coordinate(x, 1 << 30);
    t.set_coordinate(y, 1);
    assert_eq!(edge_error(t.forward(&[m])), "Flatten");
    // A symbolic constant that would overflow is not folded, and its value says so.
    let a = Arena::new();
    assert_eq!((a.constant(isize::MAX) + 1).eval(&|_| 0), None);
    assert_eq!((a.var("x") / 0).eval(&|_| 3), None);
}

#[test]
fn wave_and_macro_tiles() {
    use const_layout::rocroller::{LayoutType, MacroTile, MemoryType, ThreadTile, WaveTile};
    // rocRoller's WaveTileBasic, both forms: from the macro tile and from explicit sizes.
    let mac =
        MacroTile::new(&[32, 32, 32, 32], LayoutType::MatrixA, &[32, 0, 2, 0], MemoryType::Wave).unwrap();
    for w in [WaveTile::from_macro_tile(&mac).unwrap(), WaveTile::new(&[32, 2], LayoutType::MatrixA).unwrap()]
    {
        let (ai, aj) = (w.tile_index(0).unwrap(), w.tile_index(1).unwrap());
        assert_eq!(
            (ai.kind(), aj.kind()),
            (DimensionKind::WaveTileIndex(0), DimensionKind::WaveTileIndex(1))
        );
        assert_eq!((ai.size(), aj.size(), ai.stride(), aj.stride()), (Some(32), Some(2), Some(2), Some(1)));
    }
    let w = WaveTile::from_macro_tile(&mac).unwrap();
    let (n0, n1) = (w.tile_number(0).unwrap(), w.tile_number(1).unwrap());
    assert_eq!(
        (n0.kind(), n0.size(), n1.size(), n1.stride()),
        (DimensionKind::WaveTileNumber(0), Some(1), Some(16), Some(1))
    );
    assert!(WaveTile::new(&[32, 2], LayoutType::MatrixA).unwrap().tile_number(0).is_err());
    // B is K x N, the accumulator M x N; padding scales by the wave tiles along each dimension.
    let b = MacroTile::new(&[64, 128], LayoutType::MatrixB, &[32, 32, 16], MemoryType::Lds)
        .unwrap()
        .padded(&[4, 8])
        .unwrap();
    let wb = WaveTile::from_macro_tile(&b).unwrap();
    assert_eq!((wb.sizes(), wb.wave_counts()), (&[16, 32][..], Some(&[4, 4][..])));
    assert_eq!(wb.padding_bytes(), Some(32 * (4 * 4) + 16 * (4 * 8)));
    assert_eq!(b.padding_bytes(), Some(128 * 4 + 64 * 8));
    let acc =
        MacroTile::new(&[64, 128], LayoutType::MatrixAccumulator, &[32, 32, 16], MemoryType::Vgpr).unwrap();
    assert_eq!(WaveTile::from_macro_tile(&acc).unwrap().sizes(), &[32, 32]);
    assert!(acc.padded(&[4, 4]).is_err()); // only A and B are padded
    // A wave tile that does not divide the macro tile is an error with the numbers (rocRoller
    // truncates the division).
    let bad = MacroTile::new(&[48, 32], LayoutType::MatrixA, &[32, 32, 16], MemoryType::Wave).unwrap();
    let err = WaveTile::from_macro_tile(&bad).unwrap_err();
    assert_eq!(err.to_string(), "WaveTile: size 48 along dimension 0 is not a positive multiple of 32");
    // The macro tile's own index dimensions, in a graph: Join(i, j) is the tile's row-major index.
    let t = MacroTile::new(&[16, 8], LayoutType::None, &[4, 2], MemoryType::Vgpr).unwrap();
    let mut g = CoordinateGraph::new();
    let i = g.add_dimension(t.tile_index(0, 1).unwrap()).unwrap();
    let j = g.add_dimension(t.tile_index(1, 1).unwrap()).unwrap();
    let tile = g.add_dimension(t.dimension()).unwrap();
    g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
    let mut tr = Transformer::new(&g);
    tr.set_coordinate(i, 5);
    tr.set_coordinate(j, 3);
    assert_eq!(tr.forward(&[tile]).unwrap(), [43]);
    let th = ThreadTile::from_macro_tile(&t).unwrap();
    assert_eq!((th.sizes(), th.counts()), (&[4, 2][..], &[4, 4][..]));
    assert_eq!(th.tile_index(1).unwrap().kind(), DimensionKind::ThreadTileIndex(1));
    assert!(t.tile_index(2, 1).is_err());
}

#[test]
fn printing_rust_and_c() {
    use const_layout::rocroller::Arena;
    let a = Arena::new();
    let (i, j) = (a.var("i"), a.var("j"));
    // A truth value used as a number: Rust converts it, C does not need to.
    let e = i.lt(4) * 3 + j;
    assert_eq!(e.c().to_string(), "(i < 4) * 3 + j");
    assert_eq!(e.rust().to_string(), "isize::from(i < 4) * 3 + j");
    assert_eq!(e.eval(&|v| if v == "i" { 2 } else { 5 }), Some(8));
    // A number used as a truth value, and Rust's bit operations binding tighter than comparisons.
    let f = (i & 1).and(j.equal(i ^ 3));
    assert_eq!(f.c().to_string(), "i & 1 && j == (i ^ 3)");
    assert_eq!(f.rust().to_string(), "(i & 1 != 0) && j == i ^ 3");
    // Subtraction and division keep their right operands' parentheses.
    assert_eq!((i - (j - 1)).c().to_string(), "i - (j - 1)");
    assert_eq!((i * (j / 2)).c().to_string(), "i * (j / 2)");
    assert_eq!((i + (j + 1)).c().to_string(), "i + j + 1");
}

#[test]
fn runtime_sizes_need_a_symbolic_traversal() {
    use const_layout::rocroller::Arena;
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
    assert_eq!(full.add_dimension(Dimension::linear(1, 1)), Err(GraphError::Layout(LayoutError::TooLarge)));
    // A larger graph by its capacity: 1,201 dimensions alternately tiled and flattened back.
    let mut big: Box<CoordinateGraph<2048>> = Box::new(CoordinateGraph::with_capacity());
    let first = big.add_dimension(Dimension::linear(1 << 20, 1)).unwrap();
    let mut last = first;
    for _ in 0..400 {
        let (hi, lo) = (
            big.add_dimension(Dimension::linear(1 << 10, 1)).unwrap(),
            big.add_dimension(Dimension::linear(1 << 10, 1)).unwrap(),
        );
        big.add_edge(Edge::Tile, &[last], &[hi, lo]).unwrap();
        let next = big.add_dimension(Dimension::linear(1 << 20, 1)).unwrap();
        big.add_edge(Edge::Flatten, &[hi, lo], &[next]).unwrap();
        last = next;
    }
    assert_eq!(big.len(), 1 + 400 * 5);
    let mut t = Transformer::new(&*big);
    t.set_coordinate(first, 654_321);
    assert_eq!(t.forward(&[last]).unwrap(), [654_321]);
    let mut r = Transformer::new(&*big);
    r.set_coordinate(last, 123_456);
    assert_eq!(r.reverse(&[first]).unwrap(), [123_456]);
}

#[test]
fn macro_tile_dimensions() {
    // A 16x16 macro tile: its indices' sizes and strides as rocRoller's MacroTile gives them, joined
    // into the tile's own linear index (rocRoller's Join(i(16,s16), j(16,s1)) example).
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
    use const_layout::rocroller::Arena;
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
