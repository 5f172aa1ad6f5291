//! rocRoller's coordinate graphs as text (`const_layout::rocroller::text`): every graph of
//! `graph.rs`'s kinds and thousands of random ones (every dimension kind, every edge, known,
//! runtime and unknown sizes, random conditions) print, read back equal and print the same text
//! again; the graph read back traverses as the original; and malformed text of every kind
//! (truncated, mutated, random, nested 100,000 deep) is a one-line error, never a panic.

use crate::graphs::{condition, random_graph};
use crate::rng::Rng;
use const_layout::dyn_layout::DynLayout;
use const_layout::rocroller::{
    Arena, CoordinateGraph, Dimension, DimensionKind, Edge, Extent, GraphError, MAX_NAME_LEN, Name,
    PiecewiseAffine, Positional, Tag, TextProblem, Transformer,
};
use std::hash::BuildHasher;

/// Printed, read back equal, printed again the same; the same through `{:#}`.
fn round_trip(g: &CoordinateGraph) -> String {
    let text = g.to_string();
    let back: CoordinateGraph = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, g, "{text}");
    assert_eq!(back.to_string(), text);
    let lines = format!("{g:#}");
    assert_eq!(lines.lines().count(), if g.is_empty() { 1 } else { g.len() + 2 });
    assert_eq!(&lines.parse::<CoordinateGraph>().unwrap(), g, "{lines}");
    text
}

fn lin(g: &mut CoordinateGraph, size: isize, stride: isize) -> Tag {
    g.add_dimension(Dimension::linear(size, stride)).unwrap()
}

fn dim(g: &mut CoordinateGraph, kind: DimensionKind, size: Option<isize>, stride: Option<isize>) -> Tag {
    g.add_dimension(Dimension::new(kind).with_extents(size.map(Extent::Known), stride.map(Extent::Known)))
        .unwrap()
}

/// A graph of `graph.rs`'s, built into an empty graph. Builders fill a graph in place: in a
/// debug build every graph a function holds takes 52 KB of its frame, so one function holding
/// them all would need a larger stack than a test thread has.
type Build = fn(&mut CoordinateGraph);

/// The graphs of `graph.rs`, built the same way.
const EXAMPLES: [Build; 19] = [
    // Basic, Basic3D.
    |g| {
        let (x, y, m) = (lin(g, 64, 1), lin(g, 64, 1), lin(g, 4096, 1));
        g.add_edge(Edge::Flatten, &[x, y], &[m]).unwrap();
    },
    |g| {
        let (x, y, z, m) = (lin(g, 64, 1), lin(g, 32, 4), lin(g, 16, 8), lin(g, 64 * 32 * 16, 1));
        g.add_edge(Edge::Flatten, &[x, y, z], &[m]).unwrap();
    },
    // Basic1D01..03.
    |g| basic_1d(g, &[64]),
    |g| basic_1d(g, &[64, 4]),
    |g| basic_1d(g, &[256]),
    |g| {
        tensor_tile(g, 100, 300);
    },
    // TensorTile2DLoadStore03's strides.
    |g| {
        use DimensionKind as K;
        let [_, _, _, tx, ty, i, j, _] = tensor_tile(g, 1600, 4800);
        let di = dim(g, K::Adhoc, Some(1600), Some(4800));
        let dj = dim(g, K::Adhoc, Some(4800), Some(1));
        let d = dim(g, K::User, None, None);
        g.add_edge(Edge::Flatten, &[tx, i], &[di]).unwrap();
        g.add_edge(Edge::Flatten, &[ty, j], &[dj]).unwrap();
        g.add_edge(Edge::Join, &[di, dj], &[d]).unwrap();
    },
    |g| {
        sunder(g);
    },
    |g| {
        piecewise_graph(g);
    },
    // The compound condition, in reverse.
    |g| {
        let p = PiecewiseAffine::new(
            (Positional::arg(0) % 2).equal(0).and(Positional::arg(1).ge(3)),
            [1, 100],
            0,
            [1, 1000],
            7,
        )
        .unwrap();
        let u = dim(g, DimensionKind::User, None, None);
        let (x, y) = (lin(g, 4, 1), lin(g, 5, 1));
        let id = g.add_piecewise_affine(p).unwrap();
        g.add_edge(Edge::PiecewiseAffineJoin(id), &[u], &[x, y]).unwrap();
    },
    // PairSwap, Rotate both ways; Forget, DataFlow.
    |g| remapping(g, Edge::PairSwap { rows_per_group: 4 }),
    |g| remapping(g, Edge::Rotate { num_positions: 8, rows_per_group: 2, inverse: false }),
    |g| remapping(g, Edge::Rotate { num_positions: 8, rows_per_group: 2, inverse: true }),
    |g| remapping(g, Edge::Forget),
    |g| remapping(g, Edge::DataFlow),
    // Runtime sizes: A(M, N) split with the runtime leading dimension.
    |g| {
        use DimensionKind as K;
        let a = dim(g, K::User, None, None);
        let ai = g
            .add_dimension(Dimension::new(K::SubDimension(0)).with_runtime_size("M").with_runtime_stride("N"))
            .unwrap();
        let aj = g
            .add_dimension(Dimension::new(K::SubDimension(1)).with_runtime_size("N").with_stride(1))
            .unwrap();
        g.add_edge(Edge::Split, &[a], &[ai, aj]).unwrap();
    },
    // Macro-tile dimensions joined into the tile; a layout as a fragment.
    |g| {
        let i = g.add_dimension(Dimension::macro_tile_index(&[16, 16], 0, 1).unwrap()).unwrap();
        let j = g.add_dimension(Dimension::macro_tile_index(&[16, 16], 1, 1).unwrap()).unwrap();
        let tile = dim(g, DimensionKind::MacroTile, None, None);
        g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
        g.add_dimension(Dimension::macro_tile_number(0, 7)).unwrap();
        let l: DynLayout = "(4,(2,3)):(3,(1,8))".parse().unwrap();
        g.add_layout(&l).unwrap();
    },
    // A long chain: 239 elements.
    |g| {
        let mut last = lin(g, 1 << 20, 1);
        for k in 0..119 {
            let next = lin(g, 1 << 20, 1);
            g.add_edge(if k % 2 == 0 { Edge::PassThrough } else { Edge::Inherit }, &[last], &[next]).unwrap();
            last = next;
        }
    },
    // The empty graph.
    |_| {},
];

fn built(build: Build) -> CoordinateGraph {
    let mut g = CoordinateGraph::new();
    build(&mut g);
    g
}

/// Basic1D01 (`[64]`), 02 (`[64, 4]`), 03 (`[256]`, then tiled again).
fn basic_1d(g: &mut CoordinateGraph, tiles: &[isize]) {
    use DimensionKind as K;
    let u = dim(g, K::User, None, None);
    let i = lin(g, 1024, 2);
    let mut parts = vec![dim(g, K::Workgroup(0), None, None)];
    for (k, &t) in tiles.iter().enumerate() {
        parts.push(dim(g, if k == 0 { K::Workitem(0) } else { K::Unroll }, Some(t), None));
    }
    g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    g.add_edge(Edge::Tile, &[i], &parts).unwrap();
    if tiles == [256] {
        let (th, un) = (dim(g, K::Adhoc, Some(64), None), dim(g, K::Unroll, Some(4), None));
        g.add_edge(Edge::Tile, &[parts[1]], &[th, un]).unwrap();
    }
}

/// An LDS remapping's shape: out from (col, row).
fn remapping(g: &mut CoordinateGraph, edge: Edge) {
    let out = lin(g, 8, 1);
    let (col, row) = (lin(g, 8, 1), lin(g, 32, 1));
    g.add_edge(edge, &[out], &[col, row]).unwrap();
}

/// TensorTile2DLoadStore.
fn tensor_tile(g: &mut CoordinateGraph, m: isize, n: isize) -> [Tag; 8] {
    use DimensionKind as K;
    let a = dim(g, K::User, None, None);
    let ai = dim(g, K::SubDimension(0), Some(m), Some(n));
    let aj = dim(g, K::SubDimension(1), Some(n), Some(1));
    let tx = dim(g, K::Workgroup(0), None, None);
    let ty = dim(g, K::Workgroup(1), None, None);
    let i = dim(g, K::MacroTileIndex(0), Some(16), Some(16));
    let j = dim(g, K::MacroTileIndex(1), Some(16), Some(1));
    let tile = dim(g, K::MacroTile, None, None);
    g.add_edge(Edge::Split, &[a], &[ai, aj]).unwrap();
    g.add_edge(Edge::Tile, &[ai], &[tx, i]).unwrap();
    g.add_edge(Edge::Tile, &[aj], &[ty, j]).unwrap();
    g.add_edge(Edge::Join, &[i, j], &[tile]).unwrap();
    [a, ai, aj, tx, ty, i, j, tile]
}

/// Sunder into three tiled parts and a selector: the input, then the parts' tags and the selector.
fn sunder(g: &mut CoordinateGraph) -> (Tag, [Tag; 7]) {
    let input = dim(g, DimensionKind::User, None, None);
    let (x, y, z) = (lin(g, 100, 1), lin(g, 24, 1), lin(g, 17, 1));
    let sw = lin(g, 2, 1);
    g.add_edge(Edge::Sunder, &[input], &[x, y, z, sw]).unwrap();
    let [(a, b), (c, d), (e, f)] = [(x, 10), (y, 6), (z, 9)].map(|(l, inner)| {
        let outer = dim(g, DimensionKind::Adhoc, None, None);
        let inner = dim(g, DimensionKind::Adhoc, Some(inner), None);
        g.add_edge(Edge::Tile, &[l], &[outer, inner]).unwrap();
        (outer, inner)
    });
    (input, [a, b, c, d, e, f, sw])
}

/// Rows below 4 at stride 10, the others at stride 20 from -40, and a second edge sharing them.
fn piecewise_graph(g: &mut CoordinateGraph) -> [Tag; 4] {
    let p = PiecewiseAffine::new(Positional::arg(0).lt(4), [10, 1], 0, [20, 1], -40).unwrap();
    let (r, c) = (lin(g, 8, 1), lin(g, 10, 1));
    let out = dim(g, DimensionKind::Linear, None, None);
    let p = g.add_piecewise_affine(p).unwrap();
    g.add_edge(Edge::PiecewiseAffineJoin(p), &[r, c], &[out]).unwrap();
    let again = dim(g, DimensionKind::Linear, None, None);
    g.add_edge(Edge::PiecewiseAffineJoin(p), &[r, c], &[again]).unwrap();
    [r, c, out, again]
}

#[test]
fn the_examples_round_trip() {
    for build in EXAMPLES {
        round_trip(&built(build));
    }
    // Two edges sharing parameters print them twice, and read back sharing one id again.
    let mut g = CoordinateGraph::new();
    let [.., out, again] = piecewise_graph(&mut g);
    let text = round_trip(&g);
    let back: CoordinateGraph = text.parse().unwrap();
    assert_eq!(back.edge(3).map(|e| e.0), g.edge(3).map(|e| e.0));
    assert_eq!(back.edge(5).map(|e| e.0), back.edge(3).map(|e| e.0));
    assert_eq!(
        text.matches("PiecewiseAffineJoin<$0 < 4 ? (10, 1) + 0 : (20, 1) + -40>").count(),
        2,
        "{text}"
    );
    assert_eq!((out, again), (2, 4));
}

#[test]
fn random_graphs_round_trip() {
    let mut rng = Rng(0x7e47);
    let mut elements = 0;
    for n in 0..3000 {
        let g = random_graph(&mut rng, if n % 100 == 0 { 256 } else { 40 });
        elements += g.len();
        round_trip(&g);
    }
    assert!(elements > 50_000, "{elements}");
}

/// The same traversal results (values and errors) from the same known coordinates.
fn same_traversals(a: &CoordinateGraph, b: &CoordinateGraph, rng: &mut Rng, rounds: usize) {
    let dims: Vec<Tag> = (0..a.len()).filter(|&t| a.dimension(t).is_some()).collect();
    if dims.is_empty() {
        return;
    }
    for _ in 0..rounds {
        let (mut ta, mut tb) = (Transformer::new(a), Transformer::new(b));
        for &t in &dims {
            if rng.chance(50) {
                let v = rng.range(-3, 40);
                ta.set_coordinate(t, v);
                tb.set_coordinate(t, v);
            }
        }
        let target = [dims[rng.pick(dims.len())]];
        assert_eq!(ta.forward(&target), tb.forward(&target));
        assert_eq!(ta.reverse(&target), tb.reverse(&target));
        let (from, step) = (dims[rng.pick(dims.len())], rng.range(1, 3));
        assert_eq!(ta.forward_stride(from, step, &target), tb.forward_stride(from, step, &target));
        assert_eq!(ta.reverse_stride(from, step, &target), tb.reverse_stride(from, step, &target));
    }
}

fn read(g: &CoordinateGraph) -> CoordinateGraph {
    g.to_string().parse().unwrap()
}

#[test]
fn a_graph_read_back_traverses_the_same() {
    // TensorTile2D, Sunder and PiecewiseAffine examples, every coordinate.
    let mut g = CoordinateGraph::new();
    let [a, ai, _aj, tx, ty, i, j, _tile] = tensor_tile(&mut g, 100, 300);
    let b = read(&g);
    for (vx, vy, vi, vj) in [(4, 5, 33, 2), (0, 0, 0, 0), (1, 2, 3, 4)] {
        let (mut t, mut u) = (Transformer::new(&g), Transformer::new(&b));
        for (tag, v) in [(tx, vx), (ty, vy), (i, vi), (j, vj)] {
            t.set_coordinate(tag, v);
            u.set_coordinate(tag, v);
        }
        assert_eq!(u.reverse(&[ai, a]).unwrap(), t.reverse(&[ai, a]).unwrap());
    }
    assert_eq!(
        {
            let mut t = Transformer::new(&b);
            t.set_coordinate(tx, 4);
            t.set_coordinate(ty, 5);
            t.set_coordinate(i, 33);
            t.set_coordinate(j, 2);
            t.reverse(&[ai, a]).unwrap()
        },
        [97, 29182],
        "rocRoller's numbers"
    );
    let mut g = CoordinateGraph::new();
    let (input, [pa, pb, pc, pd, pe, pf, sw]) = sunder(&mut g);
    let b = read(&g);
    for s in 0..4 {
        let (mut t, mut u) = (Transformer::new(&g), Transformer::new(&b));
        for (tag, v) in [(pa, 8), (pb, 3), (pc, 1), (pd, 4), (pe, 0), (pf, 19), (sw, s)] {
            t.set_coordinate(tag, v);
            u.set_coordinate(tag, v);
        }
        assert_eq!(u.reverse(&[input]), t.reverse(&[input]), "sw = {s}");
    }
    let mut g = CoordinateGraph::new();
    let [r, c, out, again] = piecewise_graph(&mut g);
    let b = read(&g);
    for (rv, cv) in (0..8).flat_map(|r| (0..10).map(move |c| (r, c))) {
        let mut u = Transformer::new(&b);
        u.set_coordinate(r, rv);
        u.set_coordinate(c, cv);
        let expected = if rv < 4 { rv * 10 + cv } else { rv * 20 + cv - 40 };
        assert_eq!(u.forward(&[out, again]).unwrap(), [expected, expected]);
    }
}

#[test]
fn a_graph_read_back_gives_the_same_expressions() {
    // Runtime sizes read from the text: the same symbolic traversal.
    let mut g = CoordinateGraph::new();
    let a = dim(&mut g, DimensionKind::User, None, None);
    let ai = g
        .add_dimension(
            Dimension::new(DimensionKind::SubDimension(0)).with_runtime_size("M").with_runtime_stride("lda"),
        )
        .unwrap();
    let aj = g
        .add_dimension(Dimension::new(DimensionKind::SubDimension(1)).with_runtime_size("N").with_stride(1))
        .unwrap();
    g.add_edge(Edge::Split, &[a], &[ai, aj]).unwrap();
    let b = read(&g);
    let arena = Arena::new();
    let expr = |g: &CoordinateGraph| {
        let mut s = Transformer::symbolic(g, &arena);
        s.set_coordinate(ai, arena.var("i"));
        s.set_coordinate(aj, arena.var("j"));
        s.reverse(&[a]).unwrap()[0].c().to_string()
    };
    assert_eq!((expr(&g), expr(&b)), ("i * lda + j".to_string(), "i * lda + j".to_string()));
}

#[test]
fn every_graph_read_back_traverses_the_same() {
    // Every example and random graphs: the same answers (and errors) from the same coordinates.
    let mut rng = Rng(0x7a5);
    for build in EXAMPLES {
        let g = built(build);
        same_traversals(&g, &read(&g), &mut rng, 50);
    }
    for _ in 0..300 {
        let g = random_graph(&mut rng, 30);
        same_traversals(&g, &read(&g), &mut rng, 10);
    }
}

#[test]
fn conditions_print_and_read_back_step_by_step() {
    let mut rng = Rng(0xc0d);
    for _ in 0..20_000 {
        let steps = 1 + 2 * rng.pick(8);
        let p = condition(&mut rng, 8, steps);
        assert!(p.is_complete());
        let text = p.to_string();
        assert_eq!(text.parse::<Positional>(), Ok(p), "{text}");
        // Same values wherever they exist.
        let args: [isize; 8] = std::array::from_fn(|_| rng.range(-20, 20));
        assert_eq!(text.parse::<Positional>().unwrap().eval(&args), p.eval(&args));
    }
    // Nothing folded; precedence and grouping kept; C readers' parentheses.
    let (a, b, c) = (Positional::arg(0), Positional::arg(1), Positional::arg(2));
    for (p, text) in [
        (a + 0, "$0 + 0"),
        (a * 1 + 0, "$0 * 1 + 0"),
        (a - (b - c), "$0 - ($1 - $2)"),
        ((a - b) - c, "$0 - $1 - $2"),
        (a * (b + c), "$0 * ($1 + $2)"),
        (a + b * c, "$0 + $1 * $2"),
        ((a + 1) << 2, "($0 + 1) << 2"),
        ((a & 1).equal(0), "($0 & 1) == 0"),
        (a.lt(b).or(b.lt(c).and(c.lt(a))), "$0 < $1 || ($1 < $2 && $2 < $0)"),
        (a.lt(-5), "$0 < -5"),
        (a - -5, "$0 - -5"),
        (Positional::constant(isize::MIN) / a, "-9223372036854775808 / $0"),
        (a.lt(b).lt(c), "$0 < $1 < $2"),
        (a.lt(b.lt(c)), "$0 < ($1 < $2)"),
    ] {
        assert_eq!(p.to_string(), text);
        assert_eq!(text.parse::<Positional>(), Ok(p), "{text}");
    }
    // Spacing is free; parentheses that group nothing are allowed.
    assert_eq!("((($0)))*(-5)".parse::<Positional>(), Ok(a * -5));
    assert_eq!("$0<<2>>1".parse::<Positional>(), Ok((a << 2) >> 1));
    // A condition that did not fit prints as such and is refused by the graph.
    let long = (0..9).fold(a, |p, _| p + 1);
    assert!(!long.is_complete());
    assert_eq!(long.to_string(), "<its condition has more than 16 steps>");
    let e = format!("$0{}", " + 1".repeat(8)).parse::<Positional>().unwrap_err();
    assert_eq!(e.problem, TextProblem::TooMany { what: "steps in a condition", most: 16 });
    assert!(format!("$0{}", " + 1".repeat(7)).parse::<Positional>().is_ok());
}

/// An error: one line naming a column, never a panic.
fn refused(text: &str) -> String {
    match text.parse::<CoordinateGraph>() {
        Ok(g) => panic!("`{text}` read as {g}"),
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with(&format!("column {}: ", e.column)), "{m}");
            assert!(e.column >= 1 && e.column <= text.chars().count() + 1, "{m} in {text:?}");
            assert_eq!(m.lines().count(), 1, "{m:?}");
            m
        }
    }
}

#[test]
fn malformed_text_is_a_one_line_error() {
    let cases = [
        ("", "column 1: expected `graph{`, found the end of the input"),
        ("graph{", "column 7: expected an element's tag (an integer), found the end of the input"),
        ("graph{} x", "column 9: expected the end of the input, found `x`"),
        ("graph{0: Linear(4, 1);}", "column 23: expected an element's tag (an integer), found `}`"),
        ("graph{1: Linear(4, 1)}", "column 7: expected tag 0 (elements are written in tag order), found 1"),
        ("graph{0: SubDimension(4, 1)}", "column 22: expected `[`, found `(`"),
        ("graph{0: Linear[0](4, 1)}", "column 16: expected `(`, found `[`"),
        (
            "graph{0: SubDimension[256](4, 1)}",
            "column 23: expected a dimension number from 0 to 255, found `2`",
        ),
        ("graph{0: Linear(4 1)}", "column 19: expected `,`, found `1`"),
        (
            "graph{0: Linear(99999999999999999999, 1)}",
            "column 17: expected an integer within isize, found `9`",
        ),
        ("graph{0: Linear(-, 1)}", "column 18: expected an integer, found `,`"),
        (
            "graph{0: Linear(a_name_longer_than_22_bytes, 1)}",
            "column 17: expected a runtime name of at most 22 bytes, found `a`",
        ),
        ("graph{0: Linear(4, +1)}", "column 20: expected an integer, a runtime name or `?`, found `+`"),
        (
            "graph{0: Linear(4, 1); 1: Tile(0 -> 1)}",
            "column 37: coordinate graph: an edge end is not a dimension (tag 1)",
        ),
        ("graph{0: Linear(4, 1); 1: Tile(0, 0 0)}", "column 37: expected `,` or `->`, found `0`"),
        ("graph{0: Linear(4, 1); 1: Tile(0 -> 0}", "column 38: expected `,` or `)`, found `}`"),
        ("graph{0: Linear(4, 1); 1: Rotate<8>(0 -> 0)}", "column 35: expected `,`, found `>`"),
        (
            "graph{0: Linear(4, 1); 1: Rotate<8, 2, reverse>(0 -> 0)}",
            "column 47: expected `inverse`, found `>`",
        ),
        (
            "graph{0: Linear(4, 1); 1: PairSwap<-1>(0 -> 0)}",
            "column 36: expected rows per group (a u32), found `-`",
        ),
        (
            "graph{0: Linear(4, 1); 1: Index<2147483648>(0 -> 0)}",
            "column 33: expected an index within i32, found `2`",
        ),
        (
            "graph{0: Linear(4, 1); 1: PiecewiseAffineJoin<$1 < 4 ? (1) + 0 : (2) + 0>(0 -> 0)}",
            "column 47: edge 1 (PiecewiseAffineJoin): its condition reads an input the edge does not have",
        ),
        (
            "graph{0: Linear(4, 1); 1: PiecewiseAffineJoin<$0 < 4 ? (1, 2) + 0 : (2) + 0>(0 -> 0)}",
            "column 69: expected as many strides after `:` as before it, found `(`",
        ),
        (
            "graph{0: Linear(4, 1); 1: PiecewiseAffineJoin<$0 < 4 ? (?) + 0 : (2) + 0>(0 -> 0)}",
            "column 57: expected an integer or a runtime name, found `?`",
        ),
        (
            "graph{0: Linear(4, 1); 1: PiecewiseAffineJoin<$0 = 4 ? (1) + 0 : (2) + 0>(0 -> 0)}",
            "column 50: expected an operator or `?`, found `=`",
        ),
        (
            "graph{0: Linear(4, 1); 1: PiecewiseAffineJoin<($0 < 4 ? (1) + 0 : (2) + 0>(0 -> 0)}",
            "column 55: expected an operator or `)`, found `?`",
        ),
        ("graph{0: Linear(4, 1)\n1: Lane(?, ?)}", "column 23: expected `;` or `}`, found `1`"),
        ("graph{0: Linear(4, 1)\u{1}}", "column 22: expected `;` or `}`, found `\\u{1}`"),
        (
            "graph{0: Linéar(4, 1)}",
            "column 10: expected a dimension kind or an edge name (rocRoller's), found `L`",
        ),
        (
            "graph{0: Linear(4, 1); 1: é}",
            "column 27: expected a dimension kind or an edge name (rocRoller's), found `é`",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(refused(text), want, "{text}");
    }
    // Capacities: elements, distinct parameters, ends.
    let many: String = (0..300).map(|k| format!("{k}: Lane(?, ?)")).collect::<Vec<_>>().join("; ");
    assert!(refused(&format!("graph{{{many}}}")).ends_with("more than 256 elements (the graph's capacity)"));
    let mut g = CoordinateGraph::new();
    let x = lin(&mut g, 4, 1);
    let affine = |k| PiecewiseAffine::new(Positional::arg(0).lt(k), [1], 0, [2], 0).unwrap();
    for k in 0..16 {
        let id = g.add_piecewise_affine(affine(k)).unwrap();
        g.add_edge(Edge::PiecewiseAffineJoin(id), &[x], &[x]).unwrap();
    }
    let text = round_trip(&g);
    let seventeenth = format!(
        "{}; 17: PiecewiseAffineJoin<$0 < 16 ? (1) + 0 : (2) + 0>(0 -> 0)}}",
        &text[..text.len() - 1]
    );
    assert!(
        refused(&seventeenth).ends_with("more than 16 distinct PiecewiseAffineJoin parameters"),
        "{seventeenth}"
    );
    // A 17th edge with parameters already kept shares them.
    let shared = format!(
        "{}; 17: PiecewiseAffineJoin<$0 < 15 ? (1) + 0 : (2) + 0>(0 -> 0)}}",
        &text[..text.len() - 1]
    );
    let shared: CoordinateGraph = shared.parse().unwrap();
    assert_eq!(shared.edge(17).map(|e| e.0), shared.edge(16).map(|e| e.0));
    // A name from code that is no identifier prints, but does not read back.
    let mut g = CoordinateGraph::new();
    g.add_dimension(Dimension::new(DimensionKind::Workgroup(0)).with_runtime_size("gridDim.x")).unwrap();
    assert_eq!(refused(&g.to_string()), "column 30: expected `,`, found `.`");
}

#[test]
fn no_input_panics() {
    let mut rng = Rng(0xf422);
    // Every truncation of valid texts is an error.
    for n in 0..60 {
        let g = random_graph(&mut rng, if n == 0 { 80 } else { 12 });
        let text = g.to_string();
        for cut in 0..text.len() {
            refused(&text[..cut]);
        }
    }
    // Random mutations: an error, or a graph that round-trips.
    let alphabet = b"graph{}0123456789:;,()[]<>?$-+*/%&|^!=_ LinearTileVGPR->inverse\n\t\x00";
    for n in 0..4000 {
        let g = random_graph(&mut rng, 10);
        let mut bytes = g.to_string().into_bytes();
        for _ in 0..1 + rng.pick(4) {
            let at = rng.pick(bytes.len() + 1);
            let c = alphabet[rng.pick(alphabet.len())];
            match rng.pick(3) {
                0 if at < bytes.len() => bytes[at] = c,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, c),
            }
        }
        let text = String::from_utf8(bytes).unwrap();
        match text.parse::<CoordinateGraph>() {
            Ok(g) => {
                round_trip(&g);
            }
            Err(_) => {
                refused(&text);
            }
        }
        // Random strings, random bytes made text.
        let s: String = (0..rng.pick(60)).map(|_| alphabet[rng.pick(alphabet.len())] as char).collect();
        let _ = s.parse::<CoordinateGraph>();
        let _ = s.parse::<Positional>();
        let raw: Vec<u8> = (0..rng.pick(40)).map(|_| rng.next() as u8).collect();
        let lossy = String::from_utf8_lossy(&raw);
        let _ = lossy.parse::<CoordinateGraph>();
        let _ = format!("graph{{{lossy}}}").parse::<CoordinateGraph>();
        if n % 10 == 0 {
            let _ = format!("graph{{0: Linear(1, 1); 1: PiecewiseAffineJoin<{s}").parse::<CoordinateGraph>();
        }
    }
    // Deep and long: 100,000 parentheses, 100,000 elements, a million digits.
    let deep = format!("{}$0{}", "(".repeat(100_000), ")".repeat(100_000));
    let e = deep.parse::<Positional>().unwrap_err();
    assert_eq!(e.to_string(), "column 17: more than 16 nested parentheses in a condition");
    let in_graph =
        format!("graph{{0: Linear(1, 1); 1: PiecewiseAffineJoin<{deep} ? (1) + 0 : (1) + 0>(0 -> 0)}}");
    assert!(refused(&in_graph).ends_with("more than 16 nested parentheses in a condition"));
    let ops = format!("$0{}", " + $0".repeat(100_000));
    assert!(ops.parse::<Positional>().is_err());
    let elements: String = (0..100_000).map(|k| format!("{k}: Lane(?, ?); ")).collect();
    refused(&format!("graph{{{elements}}}"));
    refused(&format!("graph{{0: Linear({}, 1)}}", "9".repeat(1_000_000)));
    refused(&format!("graph{{0: Linear({}, 1)}}", "x".repeat(1_000_000)));
    refused(&format!("graph{{{}", "0: Lane(?, ?); 1: Flatten(0 -> 0); ".repeat(10)));
}

#[test]
fn names() {
    let n = Name::new("lda").unwrap();
    assert_eq!(n, Name::from("lda"));
    assert_eq!(format!("{n:?} {n}"), "\"lda\" lda");
    let hasher = std::hash::RandomState::new();
    assert_eq!(hasher.hash_one(n), hasher.hash_one(Name::from_static("lda")));
    assert_eq!(std::mem::size_of::<Name>(), 24);
    for bad in ["", "1a", "a b", "a-b", "é", &"x".repeat(MAX_NAME_LEN + 1)] {
        assert!(Name::new(bad).is_none(), "{bad}");
    }
    assert!(Name::new(&"x".repeat(MAX_NAME_LEN)).unwrap().is_identifier());
    assert!(!Name::from("threadIdx.x").is_identifier());
    // Extents compare names by content, whatever their origin.
    let text_made =
        Dimension::linear(4, 1).with_extents(Some(Extent::Runtime(Name::new("N").unwrap())), None);
    let code_made = Dimension::new(DimensionKind::Linear).with_runtime_size("N");
    assert_eq!(text_made, code_made);
    assert_ne!(GraphError::Graph { what: "x", tag: 0 }.to_string(), "");
}
