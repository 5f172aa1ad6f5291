//! Random layouts and brute-force evaluation, shared by the gap tests (`composition_gaps.rs`,
//! `inverse_gaps.rs`), which include it with `#[path]` next to `rng.rs`.
#![allow(dead_code)] // each test uses part of it

use super::rng::Rng;
use const_layout::dyn_layout::{DynIntTuple, DynLayout};

/// How `random_layout` draws.
pub struct Draw {
    /// Strides are drawn from `lo..=hi`.
    pub lo: isize,
    pub hi: isize,
    /// Layouts of more elements are drawn again.
    pub max_size: isize,
    /// The chance (percent) of a leaf with extent 1; the others have extents 2..=8.
    pub one: u64,
    /// The chance (percent) of a leaf with stride 0, besides those `lo..=hi` gives.
    pub zero: u64,
}

/// A random layout: rank 1-3 (or a scalar), depth <= 2, one-mode tuples included, each leaf's
/// extent and stride static or runtime (all static, all runtime, or mixed leaf by leaf).
pub fn random_layout(rng: &mut Rng, draw: &Draw) -> DynLayout {
    loop {
        let statics = rng.below(3); // 0: all static, 1: all runtime, 2: mixed
        let mut leaf = |rng: &mut Rng| -> (String, String) {
            let e = if rng.chance(draw.one) { 1 } else { rng.range(2, 8) };
            let d = if rng.chance(draw.zero) { 0 } else { rng.range(draw.lo, draw.hi) };
            let st = |rng: &mut Rng| if statics == 0 || (statics == 2 && rng.chance(50)) { "_" } else { "" };
            (format!("{}{e}", st(rng)), format!("{}{d}", st(rng)))
        };
        let group = |parts: Vec<(String, String)>| -> (String, String) {
            let s: Vec<_> = parts.iter().map(|p| p.0.clone()).collect();
            let d: Vec<_> = parts.iter().map(|p| p.1.clone()).collect();
            (format!("({})", s.join(",")), format!("({})", d.join(",")))
        };
        let mode = |rng: &mut Rng, leaf: &mut dyn FnMut(&mut Rng) -> (String, String)| {
            if rng.below(3) == 0 {
                let n = 1 + rng.below(3);
                group((0..n).map(|_| leaf(rng)).collect())
            } else {
                leaf(rng)
            }
        };
        let (s, d) = match rng.below(5) {
            0 => leaf(rng),
            1 => group(vec![mode(rng, &mut leaf)]),
            _ => {
                let n = 2 + rng.below(2);
                group((0..n).map(|_| mode(rng, &mut leaf)).collect())
            }
        };
        let l: DynLayout = format!("{s}:{d}").parse().unwrap();
        if l.size().value <= draw.max_size {
            return l;
        }
    }
}

/// The flat (extent, stride) pairs, as `i128`.
pub fn leaf_pairs(l: &DynLayout) -> Vec<(i128, i128)> {
    l.shape().leaves().zip(l.stride().leaves()).map(|(s, d)| (s.value as i128, d.value as i128)).collect()
}

/// `L(i)` for `i` in `[0, size)`, as `i128` (no overflow at these sizes), first mode fastest.
pub fn offsets(l: &DynLayout) -> Vec<i128> {
    let mut out = vec![0i128];
    for (s, d) in leaf_pairs(l) {
        let len = out.len();
        for j in 1..s {
            for k in 0..len {
                out.push(out[k] + j * d);
            }
        }
    }
    out
}

/// `L(x)` for any `x >= 0` (the last leaf extending, as `CuTe`'s `idx2crd`).
pub fn value_at(l: &DynLayout, mut x: i128) -> i128 {
    let pairs = leaf_pairs(l);
    let mut total = 0;
    for (k, &(s, d)) in pairs.iter().enumerate() {
        if k + 1 == pairs.len() {
            return total + x * d;
        }
        total += (x % s) * d;
        x /= s;
    }
    total
}

/// Whether shape `r` refines shape `b` (CuTe's compatibility of a composition's result with its
/// right operand): the same tree, each leaf of `b` a leaf or a tuple (of any depth) whose product
/// is that leaf, so every coordinate of `b` is one of `r`.
pub fn refines(r: &DynIntTuple, b: &DynIntTuple) -> bool {
    match b.as_int() {
        Some(n) => r.leaves().map(|x| x.value).product::<isize>() == n.value,
        None => {
            r.as_int().is_none()
                && r.rank() == b.rank()
                && (0..b.rank()).all(|i| refines(&r.mode(i).unwrap(), &b.mode(i).unwrap()))
        }
    }
}
