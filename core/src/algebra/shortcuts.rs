//! The algorithms' shortcuts answer as the general code, compared result for result, static flags
//! and structure included, on generated layouts:
//! - on small working lists (`Leaves<SMALL>`) they give exactly what they give on full ones, or
//!   `Err(TooLarge)` (which the entry points answer by running on full lists);
//! - `complement` by the nesting rule (`rules::nested_complement`) gives what its fold gives;
//! - the divide of one integer mode by `t:1` (`rules::divide_mode`) gives what the divide's
//!   definition (complement, then composition) gives.

extern crate std;
use super::coalesce::{bw_coalesce, coalesce, filter, filter_in};
use super::complement::{answers_by_rule, complement_by, complement_in};
use super::composition::compose_in;
use super::divide::{divide_general, divide_leaf};
use super::leaves::{Leaves, SMALL};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::LayoutError;
use std::vec::Vec;

/// A small deterministic generator (splitmix64), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n) as usize
    }
    fn int(&mut self, v: isize) -> DynInt {
        DynInt::new(v, self.below(2) == 0)
    }
}

/// A layout of 1 to 11 integers (so some need full lists), nested up to two levels, with extents
/// 1 to 6 and strides that are compact, padded, overlapping, zero or negative.
fn layout(r: &mut Rng) -> DynLayout {
    loop {
        let leaves = 1 + r.below(11);
        let (mut s, mut d, mut span) = (Vec::new(), Vec::new(), 1isize);
        for _ in 0..leaves {
            let e = 1 + r.below(6) as isize;
            let stride = match r.below(8) {
                0 => 0,
                1 => -span,
                2 => span * (2 + r.below(3) as isize),
                3 => 1 + r.below(5) as isize,
                _ => span,
            };
            span = (span * e).max(1);
            s.push(DynIntTuple::int(r.int(e)));
            d.push(DynIntTuple::int(r.int(stride)));
        }
        // Group runs of the integers into modes, sometimes twice.
        let group = |r: &mut Rng, xs: Vec<DynIntTuple>, cuts: &[usize]| -> Vec<DynIntTuple> {
            let _ = r;
            let mut out = Vec::new();
            let mut at = 0;
            for &c in cuts {
                out.push(DynIntTuple::tuple(&xs[at..c]).unwrap());
                at = c;
            }
            out.push(DynIntTuple::tuple(&xs[at..]).unwrap());
            out
        };
        let mut cuts: Vec<usize> = (1..leaves).filter(|_| r.below(3) == 0).collect();
        cuts.dedup();
        let (shape, stride) = if r.below(3) == 0 || leaves == 1 {
            (DynIntTuple::tuple(&s).unwrap(), DynIntTuple::tuple(&d).unwrap())
        } else {
            let (gs, gd) = (group(r, s, &cuts), group(r, d, &cuts));
            (DynIntTuple::tuple(&gs).unwrap(), DynIntTuple::tuple(&gd).unwrap())
        };
        let (shape, stride) = if leaves == 1 && r.below(2) == 0 {
            (shape.mode(0).unwrap(), stride.mode(0).unwrap())
        } else {
            (shape, stride)
        };
        if let Ok(l) = DynLayout::new(shape, stride) {
            return l;
        }
    }
}

/// `small` is `full`, or `Err(TooLarge)`; counts the answers the small lists gave.
fn same(
    small: Result<DynLayout, LayoutError>,
    full: Result<DynLayout, LayoutError>,
    what: &str,
    n: &mut usize,
) {
    if small == Err(LayoutError::TooLarge) {
        return;
    }
    *n += 1;
    assert_eq!(small, full, "{what}");
}

#[test]
fn small_lists_answer_as_full_ones() {
    let mut r = Rng(0x5a11_1157);
    let (mut composed, mut complemented, mut filtered, mut coalesced) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        let (a, b) = (layout(&mut r), layout(&mut r));
        let what = std::format!("{a} and {b}");
        same(compose_in::<SMALL>(&a, &b), compose_in::<MAX_NODES>(&a, &b), &what, &mut composed);
        same(filter_in::<SMALL>(&a), filter_in::<MAX_NODES>(&a), &what, &mut filtered);
        assert_eq!(coalesce(&a), bw_coalesce(&Leaves::of(&a), false), "{what}");
        coalesced += 1;
        if let Ok(f) = filter(&a) {
            let v = 1 + r.below(200) as isize;
            let m = DynIntTuple::int(r.int(v));
            same(
                complement_in::<SMALL>(&f, &m),
                complement_in::<MAX_NODES>(&f, &m),
                &what,
                &mut complemented,
            );
        }
    }
    // Most layouts fit the small lists: the comparison is not vacuous.
    assert!(
        composed > 8_000 && complemented > 8_000 && filtered > 10_000,
        "{composed} {complemented} {filtered}"
    );
    assert_eq!(coalesced, 20_000);
}

/// A layout whose moving strides nest, in any order: `(s_0,...):(d_0,...)` with each stride a
/// multiple (1 to 3) of the span below, extents 1 to 5, some strides zero, static flags at random.
fn nested_layout(r: &mut Rng) -> DynLayout {
    let n = 1 + r.below(6);
    let (mut s, mut d, mut span) = (Vec::new(), Vec::new(), 1isize);
    for _ in 0..n {
        let e = 1 + r.below(5) as isize;
        let stride = if r.below(8) == 0 { 0 } else { span * (1 + r.below(3) as isize) };
        span = if stride == 0 { span } else { stride * e };
        s.push(DynIntTuple::int(r.int(e)));
        d.push(DynIntTuple::int(r.int(stride)));
    }
    for k in (1..n).rev() {
        let j = r.below(k as u64 + 1);
        s.swap(k, j);
        d.swap(k, j);
    }
    DynLayout::new(DynIntTuple::tuple(&s).unwrap(), DynIntTuple::tuple(&d).unwrap()).unwrap()
}

#[test]
fn the_nesting_rule_answers_as_the_fold() {
    let mut r = Rng(0x0e57_ed00);
    let mut by_rule = 0;
    for i in 0..20_000 {
        let a = if i % 2 == 0 { nested_layout(&mut r) } else { layout(&mut r) };
        let Ok(f) = filter(&a) else { continue };
        let v = match r.below(8) {
            0 => 4096,
            1 => isize::MAX - r.below(3) as isize,
            _ => 1 + r.below(300) as isize,
        };
        let m = if r.below(10) == 0 {
            let e = 1 + r.below(9) as isize;
            DynIntTuple::tuple(&[DynIntTuple::int(r.int(e)); 2]).unwrap()
        } else {
            DynIntTuple::int(r.int(v))
        };
        let what = std::format!("complement({a}, {m})");
        let modes = Leaves::<MAX_NODES>::of(&f);
        let fold = complement_by(&modes, f.cosize(), &m, false);
        assert_eq!(complement_by(&modes, f.cosize(), &m, true), fold, "{what}");
        by_rule += answers_by_rule(&f, &m) as usize;
    }
    // Half the layouts nest: the rule answers most of them, so its answers are what is compared.
    assert!(by_rule > 5_000, "{by_rule}");
}

#[test]
fn the_one_mode_divide_answers_as_the_definition() {
    let mut r = Rng(0xd1_71de);
    let mut by_rule = 0;
    for _ in 0..20_000 {
        let s = 1 + r.below(40) as isize;
        let d = [1, 1, 2, 3, 0, -1, -4, isize::MAX / 3][r.below(8)];
        let t = [2, 2, 4, 8, 3, 1, 0, 64][r.below(8)];
        // Mostly the tile stride `_1` of the rule; also a runtime 1 and others, which it leaves.
        let one = DynInt::new([1, 1, 1, 1, 1, 2, 0][r.below(7)], r.below(5) != 0);
        let (Ok(a), Ok(tile)) = (
            DynLayout::new(DynIntTuple::int(r.int(s)), DynIntTuple::int(r.int(d))),
            DynLayout::new(DynIntTuple::int(r.int(t)), DynIntTuple::int(one)),
        ) else {
            continue;
        };
        let general = divide_general(&a, &tile);
        if let Some(ours) = divide_leaf(&a, &tile) {
            by_rule += 1;
            assert_eq!(ours, general, "logical_divide({a}, {tile})");
        }
    }
    assert!(by_rule > 4_000, "{by_rule}");
}
