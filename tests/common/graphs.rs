//! Random rocRoller coordinate graphs for the text and serde tests: every dimension kind, every
//! edge (parameters and shared `PiecewiseAffineJoin` parameters included), known, runtime and
//! unknown sizes and strides, random conditions. Loaded with `#[path]` next to `rng.rs`.
#![allow(dead_code)] // each test uses part of it

use super::rng::Rng;
use const_layout::rocroller::{
    BinaryOp, CoordinateGraph, Dimension, DimensionKind, Edge, Extent, MAX_NAME_LEN, Name, PiecewiseAffine,
    Positional, Tag,
};

/// Every kind, with `dim` where it takes one.
pub fn kinds(d: u8) -> [DimensionKind; 24] {
    use DimensionKind as K;
    [
        K::ForLoop,
        K::Adhoc,
        K::ElementNumber(d),
        K::Lane,
        K::Lds,
        K::Linear,
        K::MacroTile,
        K::MacroTileIndex(d),
        K::MacroTileNumber(d),
        K::SubDimension(d),
        K::ThreadTile,
        K::ThreadTileIndex(d),
        K::ThreadTileNumber(d),
        K::Unroll,
        K::User,
        K::Vgpr,
        K::VgprBlockNumber,
        K::VgprBlockIndex,
        K::WaveTile,
        K::WaveTileIndex(d),
        K::WaveTileNumber(d),
        K::Wavefront(d),
        K::Workgroup(d),
        K::Workitem(d),
    ]
}

/// Every edge without parameters.
pub const PLAIN_EDGES: [Edge; 18] = [
    Edge::Flatten,
    Edge::Tile,
    Edge::Join,
    Edge::Split,
    Edge::Sunder,
    Edge::PassThrough,
    Edge::Inherit,
    Edge::MakeOutput,
    Edge::Forget,
    Edge::ConstructMacroTile,
    Edge::DestructMacroTile,
    Edge::DataFlow,
    Edge::Alias,
    Edge::Buffer,
    Edge::Duplicate,
    Edge::Offset,
    Edge::Stride,
    Edge::View,
];

/// Small values mostly, the extremes sometimes.
pub fn int(rng: &mut Rng) -> isize {
    match rng.pick(10) {
        0 => [isize::MIN, isize::MAX, isize::MIN + 1, -1, 0][rng.pick(5)],
        1 => rng.next() as isize,
        2..=4 => rng.range(-100, 100),
        _ => rng.range(0, 4096),
    }
}

/// An identifier of 1 to 22 bytes, or a common one (given in code).
pub fn name(rng: &mut Rng) -> Name {
    const FIRST: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
    const REST: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";
    if rng.chance(30) {
        return Name::from(["M", "N", "K", "lda", "inverse", "graph", "Linear"][rng.pick(7)]);
    }
    let len = if rng.chance(10) { MAX_NAME_LEN } else { 1 + rng.pick(6) };
    let s: String = (0..len)
        .map(|k| if k == 0 { FIRST[rng.pick(FIRST.len())] } else { REST[rng.pick(REST.len())] } as char)
        .collect();
    Name::new(&s).unwrap()
}

pub fn extent(rng: &mut Rng) -> Extent {
    if rng.chance(25) { Extent::Runtime(name(rng)) } else { Extent::Known(int(rng)) }
}

pub fn maybe_extent(rng: &mut Rng) -> Option<Extent> {
    if rng.chance(20) { None } else { Some(extent(rng)) }
}

/// A random condition over `inputs` inputs, every operation, at most `budget` steps (odd).
pub fn condition(rng: &mut Rng, inputs: usize, budget: usize) -> Positional {
    if budget < 3 || rng.chance(15) {
        return if rng.chance(60) {
            Positional::arg(rng.pick(inputs) as u8)
        } else {
            Positional::constant(int(rng))
        };
    }
    let left = 1 + 2 * rng.pick((budget - 1) / 2);
    let right = budget - 1 - left;
    let right = right.max(1);
    condition(rng, inputs, left)
        .combine(BinaryOp::ALL[rng.pick(BinaryOp::ALL.len())], condition(rng, inputs, right))
}

pub fn piecewise(rng: &mut Rng) -> PiecewiseAffine {
    let k = 1 + rng.pick(8);
    let steps = 1 + 2 * rng.pick(8);
    let cond = condition(rng, k, steps);
    let t: [Extent; 8] = std::array::from_fn(|_| extent(rng));
    let f: [Extent; 8] = std::array::from_fn(|_| extent(rng));
    let (t0, f0) = (extent(rng), extent(rng));
    // The const-generic constructor by count.
    macro_rules! by_count {
        ($($k:literal)*) => {
            match k {
                $($k => PiecewiseAffine::with_extents::<$k>(cond, t[..$k].try_into().unwrap(), t0, f[..$k].try_into().unwrap(), f0),)*
                _ => unreachable!(),
            }
        };
    }
    by_count!(1 2 3 4 5 6 7 8).unwrap()
}

/// A random graph of up to `max` elements: every dimension kind and every edge, ends of 0 to 8
/// earlier dimensions, parameters shared between edges now and then.
pub fn random_graph(rng: &mut Rng, max: usize) -> CoordinateGraph {
    let mut g = CoordinateGraph::new();
    let mut dims: Vec<Tag> = Vec::new();
    let mut affines = Vec::new();
    for _ in 0..rng.pick(max + 1) {
        if dims.is_empty() || rng.chance(45) {
            let d = if rng.chance(20) { rng.next() as u8 } else { rng.pick(3) as u8 };
            let kind = kinds(d)[rng.pick(24)];
            let dim = Dimension::new(kind).with_extents(maybe_extent(rng), maybe_extent(rng));
            dims.push(g.add_dimension(dim).unwrap());
            continue;
        }
        let ends =
            |rng: &mut Rng| -> Vec<Tag> { (0..rng.pick(9)).map(|_| dims[rng.pick(dims.len())]).collect() };
        let (srcs, dsts) = (ends(rng), ends(rng));
        let edge = match rng.pick(8) {
            0 => Edge::PairSwap { rows_per_group: if rng.chance(50) { 4 } else { rng.next() as u32 } },
            1 => Edge::Rotate {
                num_positions: rng.next() as u32,
                rows_per_group: rng.pick(9) as u32,
                inverse: rng.chance(50),
            },
            2 => Edge::Index([i32::MIN, i32::MAX, -1, 0, 3][rng.pick(5)]),
            3 | 4 => {
                if affines.is_empty() || (affines.len() < 16 && rng.chance(70)) {
                    affines.push(g.add_piecewise_affine(piecewise(rng)).unwrap());
                }
                Edge::PiecewiseAffineJoin(affines[rng.pick(affines.len())])
            }
            _ => PLAIN_EDGES[rng.pick(PLAIN_EDGES.len())],
        };
        g.add_edge(edge, &srcs, &dsts).unwrap();
    }
    g
}
