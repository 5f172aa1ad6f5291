//! `composition` of two composed (swizzled) layouts through the evaluator, on random swizzles
//! and layouts: every answer is `A(B(i))` at every index `i` of `B`'s domain (a layout or a
//! composed layout also at every coordinate of `B`'s shape, which its shape refines; a linear
//! layout at its input `i`), and every refusal is one where no linear layout over F2 holds the
//! composition either (an operand not linear, or `B` reaching past `A`'s domain).
//!
//! CuTe's rule: `composition(A, B)` is `outer_A o offset_A o composition(inner_A, B)`, and a
//! layout after `Sw o _0 o L` is `Sw' o _0 o composition(inner_A, L)`, the swizzle moved through
//! `inner_A`. Two swizzles then remain (CuTe's nested composed layout) unless the moved one has
//! no bits, cancels an equal one outside, or moves on through a layout outside; otherwise the
//! answer is the linear map, as a swizzled layout with `B`'s shape where one holds it.

use crate::{layouts, rng};
use const_layout::LayoutError;
use const_layout::algebra::Inadmissible;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::{EvalError, Value, eval};
use const_layout::linear::LinearLayout;
use const_layout::swizzle::{ComposedLayout, Outer, Swizzle};
use rng::Rng;

/// A layout of `2^m` elements whose values are `m` distinct bits out of `0..n` (a bijection onto
/// them): runs of consecutive output bits, shuffled, each a mode `2^len:2^start`, grouped into
/// tuples by chance. `m == n` is a bijection on `[0, 2^n)`.
fn bit_layout(rng: &mut Rng, n: u32, m: u32) -> String {
    let mut bits: Vec<u32> = (0..n).collect();
    for i in (1..bits.len()).rev() {
        bits.swap(i, rng.pick(i + 1));
    }
    let mut chosen: Vec<u32> = bits[..m as usize].to_vec();
    chosen.sort_unstable();
    // Runs of consecutive chosen bits, cut at random.
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for b in chosen {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == b && *len < 3 && !rng.chance(30) => *len += 1,
            _ => runs.push((b, 1)),
        }
    }
    for i in (1..runs.len()).rev() {
        runs.swap(i, rng.pick(i + 1));
    }
    if runs.is_empty() {
        return "_1:_0".to_string();
    }
    let leaf = |&(start, len): &(u32, u32)| (format!("_{}", 1u64 << len), format!("_{}", 1u64 << start));
    let mut shape = Vec::new();
    let mut stride = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let take = if runs.len() - k >= 2 && rng.chance(30) { 2 } else { 1 };
        let parts: Vec<(String, String)> = runs[k..k + take].iter().map(leaf).collect();
        if take == 1 {
            shape.push(parts[0].0.clone());
            stride.push(parts[0].1.clone());
        } else {
            shape.push(format!("({})", parts.iter().map(|p| p.0.clone()).collect::<Vec<_>>().join(",")));
            stride.push(format!("({})", parts.iter().map(|p| p.1.clone()).collect::<Vec<_>>().join(",")));
        }
        k += take;
    }
    if shape.len() == 1 && !rng.chance(30) {
        return format!("{}:{}", shape[0], stride[0]);
    }
    format!("({}):({})", shape.join(","), stride.join(","))
}

/// A swizzle whose bits lie below bit `n` (`n >= 2`).
fn swizzle(rng: &mut Rng, n: u32) -> Swizzle {
    loop {
        let b = 1 + rng.below(3) as u32;
        let s = b + rng.below(4) as u32;
        if b + s > n {
            continue;
        }
        let m = rng.below((n - b - s + 1) as u64) as u32;
        let s = if rng.chance(30) { -(s as i32) } else { s as i32 };
        if let Ok(sw) = Swizzle::new(b, m, s) {
            return sw;
        }
    }
}

/// One operand `outer o offset o inner`, as a value and as the text the evaluator reads.
fn operand(rng: &mut Rng, n: u32, m: u32, right: bool) -> (String, ComposedLayout) {
    let inner: DynLayout = if rng.chance(8) {
        // Not a power of two: no linear map.
        format!("(_3,_{}):(_1,_4)", 1u64 << m.saturating_sub(2)).parse().unwrap()
    } else {
        bit_layout(rng, n, m).parse().unwrap()
    };
    let offset = DynInt::new_static(if right && rng.chance(8) { 1 + rng.below(8) as isize } else { 0 });
    let outer = if !right && rng.chance(10) {
        // A layout outside: a bijection on the bits.
        Outer::Layout(bit_layout(rng, n, n).parse().unwrap())
    } else {
        Outer::Swizzle(swizzle(rng, n))
    };
    let k = ComposedLayout::with_offset(outer, offset, inner);
    let text = k.to_string();
    match eval(&text) {
        Ok(Value::Composed(read)) if read == k => (text, k),
        other => panic!("{text} reads back as {other:?}"),
    }
}

/// `a(b(i))`, `a` read past its end as CuTe reads it.
fn truth(a: &ComposedLayout, b: &ComposedLayout) -> Vec<isize> {
    (0..b.size().value).map(|i| a.offset(b.offset(i))).collect()
}

/// A layout-like answer (a layout or a composed layout) against the truth: at every index, and at
/// every coordinate of `b`'s shape, which its shape must refine.
fn check_shaped(
    what: &str,
    shape: &DynIntTuple,
    at_index: impl Fn(isize) -> isize,
    at_coord: impl Fn(&DynIntTuple) -> isize,
    b: &ComposedLayout,
    want: &[isize],
) {
    assert!(
        layouts::refines(shape, b.inner().shape()),
        "{what}: shape {shape} does not refine {}",
        b.inner().shape()
    );
    for (i, &w) in want.iter().enumerate() {
        assert_eq!(at_index(i as isize), w, "{what}: index {i}");
        let c = b.inner().idx2crd(&DynIntTuple::int(DynInt::new_runtime(i as isize))).unwrap();
        assert_eq!(at_coord(&c), w, "{what}: coordinate {c}");
    }
}

#[derive(Default, Debug)]
struct Counts {
    layout: usize,
    composed: usize,
    linear: usize,
    refused: usize,
}

#[test]
fn compositions_of_composed_layouts_are_a_after_b_or_no_linear_map_exists() {
    let mut rng = Rng(0x5eed_c0de_0034_0006);
    let mut counts = Counts::default();
    for _ in 0..3000 {
        let n = 4 + rng.below(6) as u32; // 16 to 512 offsets
        let (ta, a) = operand(&mut rng, n, n, false);
        // B's values usually lie in A's domain; now and then they reach past it.
        let (nb, mb) = if rng.chance(10) { (n + 1, n + 1) } else { (n, 1 + rng.below(n as u64) as u32) };
        let (tb, b) = operand(&mut rng, nb, mb, true);
        let expr = format!("composition({ta}, {tb})");
        let want = truth(&a, &b);
        match eval(&expr) {
            Ok(Value::Layout(l)) => {
                counts.layout += 1;
                check_shaped(&expr, l.shape(), |i| l.offset(i), |c| l.crd2idx(c).unwrap().value, &b, &want);
            }
            Ok(Value::Composed(k)) => {
                counts.composed += 1;
                check_shaped(
                    &expr,
                    k.inner().shape(),
                    |i| k.offset(i),
                    |c| k.apply(k.inner().crd2idx(c).unwrap().value),
                    &b,
                    &want,
                );
            }
            Ok(Value::Linear(l)) => {
                counts.linear += 1;
                assert_eq!(1isize << l.in_bits(), b.size().value, "{expr}: {l}");
                for (i, &w) in want.iter().enumerate() {
                    assert_eq!(l.apply(i as u32) as isize, w, "{expr} = {l}: index {i}");
                }
            }
            Ok(other) => panic!("{expr}: {other}"),
            Err(EvalError::Layout { error: LayoutError::Inadmissible { op, why }, .. }) => {
                counts.refused += 1;
                assert!(op == "composition" || op == "make_swizzle", "{expr}: {op}: {why}");
                assert!(
                    LinearLayout::from_composition(&a, &b).is_err(),
                    "{expr} refused ({why}), but both operands are linear"
                );
            }
            Err(e) => {
                counts.refused += 1;
                assert!(
                    LinearLayout::from_composition(&a, &b).is_err(),
                    "{expr} refused ({e}), but both operands are linear"
                );
            }
        }
    }
    println!("compositions of composed layouts: {counts:?}");
    assert!(
        counts.layout > 50 && counts.composed > 100 && counts.linear > 500 && counts.refused > 100,
        "the generator lost its spread: {counts:?}"
    );
}

#[test]
fn the_issues_example_is_a_linear_layout() {
    // Sw<2,0,3> moved through (_8,_64):(_64,_1) reads bits 0-1 and changes bits 6-7: Sw<2,0,-6>,
    // after which Sw<3,3,3> remains, a swizzle after a swizzle (CuTe's nested composed layout).
    let a = "composition(Sw<3,3,3>,(_8,_64):(_64,_1))";
    let b = "composition(Sw<2,0,3>,(_64,_8):(_8,_1))";
    let (Ok(Value::Composed(ka)), Ok(Value::Composed(kb))) = (eval(a), eval(b)) else { panic!() };
    let e = ka.composed_with(&kb).unwrap_err();
    assert_eq!(
        e,
        LayoutError::Inadmissible {
            op: "composition",
            why: Inadmissible::TwoSwizzles { outer: [3, 3, 3], inner: [2, 0, -6] }
        }
    );
    assert!(e.to_string().contains("Sw<3,3,3> after Sw<2,0,-6>, which no single swizzle is"), "{e}");
    let Ok(Value::Linear(l)) = eval(&format!("composition({a}, {b})")) else { panic!() };
    assert_eq!(l.in_bits(), 9);
    assert!((0..512).all(|i| l.apply(i as u32) as isize == ka.offset(kb.offset(i))));
    // Bijective: a permutation of the 512 offsets.
    assert!(l.is_injective() && l.is_surjective());
}

#[test]
fn cutes_rewrites_give_composed_or_plain_layouts() {
    let text = |e: &str| eval(e).map(|v| v.to_string()).map_err(|e| e.to_string());
    // The same swizzle moved through `_16:_1` cancels the one outside: a plain layout.
    assert_eq!(
        text("composition(composition(Sw<1,0,2>,_16:_1), composition(Sw<1,0,2>,(_4,_4):(_4,_1)))").unwrap(),
        "(_4,_4):(_4,_1)"
    );
    // A right swizzle with a layout outside on the left moves through both: one swizzle.
    let r = text("composition(_16:_1 o _0 o (_4,_4):(_4,_1), composition(Sw<1,0,2>,_16:_1))").unwrap();
    assert_eq!(r, "Sw<1,0,-2> o _0 o (_4,_4):(_4,_1)");
    // A layout outside on the right composes into the inner layout.
    let r = text("composition(composition(Sw<1,0,2>,_16:_1), _16:_2 o _0 o _8:_1)").unwrap();
    assert_eq!(r, "Sw<1,0,2> o _0 o _8:_2");
    // CuTe requires the right one's offset to be 0; neither operand is linear then.
    let e = text("composition(composition(Sw<1,0,2>,_16:_1), composition(Sw<1,0,2>,3,_8:_1))").unwrap_err();
    assert!(e.contains("the right composed layout's offset is 3"), "{e}");
}
