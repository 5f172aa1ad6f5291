//! proptest strategies (feature `proptest`): random int tuples, layouts (each leaf static or
//! runtime), admissible composition pairs, divisible tilers and swizzles, so a kernel's layout
//! logic can be tested the way this crate tests itself.
//!
//! ```
//! use const_layout::algebra::{composition, coalesce, logical_divide};
//! use const_layout::strategy;
//! use proptest::prelude::*;
//!
//! proptest!(|((a, b) in strategy::composition_pair())| {
//!     // CuTe's law: composition(A, B)(i) == A(B(i)).
//!     let c = composition(&a, &b).unwrap();
//!     for i in 0..b.size().value {
//!         prop_assert_eq!(c.offset(i), a.offset(b.offset(i)));
//!     }
//! });
//! proptest!(|(l in strategy::layout())| {
//!     // coalesce keeps the function.
//!     let c = coalesce(&l).unwrap();
//!     for i in 0..l.size().value {
//!         prop_assert_eq!(c.offset(i), l.offset(i));
//!     }
//! });
//! proptest!(|((l, t) in strategy::layout().prop_flat_map(|l| (Just(l), strategy::divisible_tiler(l))))| {
//!     // A tiler that divides: logical_divide keeps the size.
//!     prop_assert_eq!(logical_divide(&l, &t).unwrap().size().value, l.size().value);
//! });
//! ```

extern crate std;

use crate::algebra::{Tiler, composition};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::swizzle::Swizzle;
use proptest::prelude::*;
use std::format;
use std::string::String;
use std::vec::Vec;

/// What the generators draw: at most `leaves` integers a tuple (1 to 12), nested at most `depth`
/// levels, extents from 1 to `max_extent`, strides from `min_stride` to `max_stride`, and each
/// integer static with probability `static_percent` (so all-static, all-runtime and mixed
/// layouts all come up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Leaves of a tuple, at most.
    pub leaves: usize,
    /// Nesting depth, at most.
    pub depth: u32,
    /// The largest extent.
    pub max_extent: isize,
    /// The smallest stride (negative strides are valid layouts).
    pub min_stride: isize,
    /// The largest stride.
    pub max_stride: isize,
    /// The chance, in percent, that an integer is static.
    pub static_percent: u32,
}

impl Default for Config {
    /// Up to 4 leaves, depth 2, extents 1-8, strides -4 to 32, half the integers static.
    fn default() -> Self {
        Config { leaves: 4, depth: 2, max_extent: 8, min_stride: -4, max_stride: 32, static_percent: 50 }
    }
}

/// One leaf: a value and whether it is static.
fn leaf(lo: isize, hi: isize, static_percent: u32) -> impl Strategy<Value = DynInt> {
    (lo..=hi, 0u32..100).prop_map(move |(v, s)| DynInt::new(v, s < static_percent))
}

/// `values` nested by `cuts` (one bit per gap between values, at each level): a tuple of depth at
/// most `depth`.
fn nest(values: &[DynInt], depth: u32, cuts: &[bool]) -> DynIntTuple {
    if values.len() == 1 || depth == 0 {
        if values.len() == 1 {
            return DynIntTuple::int(values[0]);
        }
        let flat: Vec<DynIntTuple> = values.iter().map(|&v| DynIntTuple::int(v)).collect();
        return DynIntTuple::tuple(&flat).expect("a small tuple");
    }
    let mut groups = Vec::new();
    let mut start = 0;
    for k in 1..values.len() {
        if cuts.get(k).copied().unwrap_or(true) {
            groups.push(nest(&values[start..k], depth - 1, &cuts[k.min(cuts.len())..]));
            start = k;
        }
    }
    groups.push(nest(&values[start..], depth - 1, &cuts[values.len().min(cuts.len())..]));
    DynIntTuple::tuple(&groups).expect("a small tuple")
}

/// An int tuple (a shape) under the default [`Config`].
pub fn int_tuple() -> impl Strategy<Value = DynIntTuple> {
    int_tuple_with(Config::default())
}

/// An int tuple of positive extents under `cfg`.
pub fn int_tuple_with(cfg: Config) -> impl Strategy<Value = DynIntTuple> {
    let n = cfg.leaves.clamp(1, 12);
    (
        prop::collection::vec(leaf(1, cfg.max_extent.max(1), cfg.static_percent), 1..=n),
        prop::collection::vec(any::<bool>(), 0..=n),
    )
        .prop_map(move |(v, cuts)| nest(&v, cfg.depth, &cuts))
}

/// A layout under the default [`Config`]: any strides (it need not be injective).
pub fn layout() -> impl Strategy<Value = DynLayout> {
    layout_with(Config::default())
}

/// A layout under `cfg`: a shape and a congruent stride, each leaf static or runtime on its own.
pub fn layout_with(cfg: Config) -> impl Strategy<Value = DynLayout> {
    let n = cfg.leaves.clamp(1, 12);
    (
        prop::collection::vec(
            (
                leaf(1, cfg.max_extent.max(1), cfg.static_percent),
                leaf(cfg.min_stride, cfg.max_stride.max(cfg.min_stride), cfg.static_percent),
            ),
            1..=n,
        ),
        prop::collection::vec(any::<bool>(), 0..=n),
    )
        .prop_filter_map("a valid layout", move |(v, cuts)| {
            let (e, d): (Vec<DynInt>, Vec<DynInt>) = v.into_iter().unzip();
            DynLayout::new(nest(&e, cfg.depth, &cuts), nest(&d, cfg.depth, &cuts)).ok()
        })
}

/// An injective layout: the leaves, in a random order, get the running product of the extents
/// before them times a gap of 1 to 3 as stride (CuTe's compact layouts, permuted and padded).
pub fn injective_layout() -> impl Strategy<Value = DynLayout> {
    let cfg = Config::default();
    (
        prop::collection::vec((1isize..=8, any::<u16>(), 1isize..=3, 0u32..100, 0u32..100), 1..=cfg.leaves),
        prop::collection::vec(any::<bool>(), 0..=cfg.leaves),
    )
        .prop_filter_map("a valid layout", move |(v, cuts)| {
            let mut order: Vec<usize> = (0..v.len()).collect();
            order.sort_by_key(|&k| (v[k].1, k));
            let mut strides = vec_of(v.len());
            let mut running = 1isize;
            for &k in &order {
                strides[k] = running * v[k].2;
                running = strides[k] * v[k].0;
            }
            let e: Vec<DynInt> = v.iter().map(|l| DynInt::new(l.0, l.3 < 50)).collect();
            let d: Vec<DynInt> = v.iter().zip(&strides).map(|(l, &s)| DynInt::new(s, l.4 < 50)).collect();
            DynLayout::new(nest(&e, cfg.depth, &cuts), nest(&d, cfg.depth, &cuts)).ok()
        })
}

fn vec_of(n: usize) -> Vec<isize> {
    std::vec![0; n]
}

/// A pair `(A, B)` whose composition is admissible (`composition(A, B)` is `Ok`, so
/// `composition(A, B)(i) == A(B(i))`): `A` injective, `B` a tile of `A`'s domain whose modes each
/// walk one of `A`'s leaves with a step and extent that divide it.
pub fn composition_pair() -> impl Strategy<Value = (DynLayout, DynLayout)> {
    injective_layout().prop_flat_map(|a| {
        let extents: Vec<isize> = a.shape().leaves().map(|e| e.value).collect();
        let k = extents.len();
        (Just(a), prop::collection::vec((0..k, any::<u8>(), any::<u8>(), any::<bool>()), 1..=3))
            .prop_filter_map("an admissible composition", move |(a, picks)| {
                // Column-major prefix products of A's shape: the domain stride of each leaf.
                let mut prefix = vec_of(k);
                let mut running = 1;
                for j in 0..k {
                    prefix[j] = running;
                    running *= extents[j];
                }
                let mut e = Vec::new();
                let mut d = Vec::new();
                for &(j, f, g, st) in &picks {
                    let divisors: Vec<isize> = (1..=extents[j]).filter(|x| extents[j] % x == 0).collect();
                    let step = divisors[f as usize % divisors.len()];
                    let rest = extents[j] / step;
                    let counts: Vec<isize> = (1..=rest).filter(|x| rest % x == 0).collect();
                    e.push(DynInt::new(counts[g as usize % counts.len()], st));
                    d.push(DynInt::new(prefix[j] * step, st));
                }
                let to = |v: &[DynInt]| -> DynIntTuple {
                    if v.len() == 1 {
                        DynIntTuple::int(v[0])
                    } else {
                        let t: Vec<DynIntTuple> = v.iter().map(|&x| DynIntTuple::int(x)).collect();
                        DynIntTuple::tuple(&t).expect("a small tuple")
                    }
                };
                let b = DynLayout::new(to(&e), to(&d)).ok()?;
                composition(&a, &b).ok()?;
                Some((a, b))
            })
    })
}

/// A by-mode tiler `<d0:1, d1:1, ...>` over `layout`'s top modes that divides them as CuTe's
/// divides require: each `d` is the product of the mode's first leaves (colexicographic) times a
/// divisor of the next leaf, so the divides keep every element and the tiles are whole.
pub fn divisible_tiler(layout: DynLayout) -> impl Strategy<Value = Tiler> {
    let shape = layout.shape();
    let mut modes: Vec<Vec<isize>> = shape.modes().map(|m| m.leaves().map(|e| e.value).collect()).collect();
    if shape.as_int().is_some() {
        // A scalar layout `n:d`: one mode.
        modes = std::vec![shape.leaves().map(|e| e.value).collect()];
    }
    prop::collection::vec((any::<u16>(), any::<u16>()), modes.len()..=modes.len()).prop_map(move |picks| {
        let tiles: Vec<String> = modes
            .iter()
            .zip(&picks)
            .map(|(leaves, &(k, p))| {
                let k = k as usize % leaves.len();
                let whole: isize = leaves[..k].iter().product();
                let divisors: Vec<isize> = (1..=leaves[k]).filter(|x| leaves[k] % x == 0).collect();
                format!("_{}:_1", whole * divisors[p as usize % divisors.len()])
            })
            .collect();
        format!("<{}>", tiles.join(", ")).parse().expect("a tiler of divisors")
    })
}

/// A swizzle `Sw<B,M,S>` with `B` from 0 to 3, `M` from 0 to 4 and `S` from `B` to 5 (CuTe's
/// condition `|S| >= B`).
pub fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0u32..=3, 0u32..=4, 0i32..=5).prop_filter_map("a valid swizzle", |(b, m, s)| {
        if s >= b as i32 { Swizzle::new(b, m, s).ok() } else { None }
    })
}
