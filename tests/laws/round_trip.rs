//! Everything the tool prints reads back: for generated values of every kind the evaluator can
//! produce (integers with and without basis elements, tuples up to the capacity (64 nodes, 126
//! bytes) and its full depth, layouts, composed layouts with a swizzle or a layout outside and any offset,
//! partitions `offset + layout` with integer and coordinate origins, partitions of composed
//! layouts, TV layouts `tile, layout`, tilers, swizzles, slicing coordinates, truth values and
//! majors), the printed text evaluates to an equal value, which prints as the same text. The
//! library's `FromStr` parsers are held to the same promise.

use const_layout::algebra::{Slicer, Tiler};
use const_layout::dyn_layout::{Basis, DynInt, DynIntTuple, DynLayout, MAX_NODES};
use const_layout::eval::{Value, eval};
use const_layout::swizzle::{ComposedLayout, Outer, Swizzle};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::BTreeMap;

use crate::rng;
use rng::Rng;

/// Any integer: small, or at the edges of `isize`.
fn any_value(r: &mut Rng) -> isize {
    match r.below(10) {
        0 => {
            [isize::MIN, isize::MIN + 1, isize::MAX, isize::MAX - 1, 1 << 62, -(1 << 40)][r.below(6) as usize]
        }
        1 => r.next() as isize,
        _ => r.range(-70, 70),
    }
}

fn basis(r: &mut Rng) -> Basis {
    let depth = 1 + r.below(4) as usize;
    let path: Vec<usize> = (0..depth).map(|_| if r.chance(80) { r.below(4) as usize } else { 255 }).collect();
    Basis::new(&path).unwrap()
}

fn int(r: &mut Rng, with_basis: bool) -> DynInt {
    let v = DynInt::new(any_value(r), r.chance(50));
    if with_basis && r.chance(20) { v.scaled(basis(r)) } else { v }
}

fn extent(r: &mut Rng) -> DynInt {
    let v = if r.chance(5) { r.range(1, isize::MAX >> 40) } else { r.range(1, 9) };
    DynInt::new(v, r.chance(50))
}

/// A tuple shaped by `r`, with leaves from `leaf`, within `budget` nodes.
fn tree(
    r: &mut Rng,
    budget: &mut usize,
    depth: u32,
    leaf: &mut dyn FnMut(&mut Rng) -> DynInt,
) -> DynIntTuple {
    *budget = budget.saturating_sub(1);
    if depth == 0 || *budget < 2 || r.chance(40) {
        return DynIntTuple::int(leaf(r));
    }
    let rank = r.below(4) as usize + usize::from(r.chance(90));
    let mut modes = Vec::new();
    for _ in 0..rank {
        if *budget == 0 {
            break;
        }
        modes.push(tree(r, budget, depth - 1, leaf));
        // Up to the byte capacity too (MAX_BYTES): large integers take up to nine bytes each.
        if DynIntTuple::tuple(&modes).is_err() {
            modes.pop();
            break;
        }
    }
    DynIntTuple::tuple(&modes).unwrap()
}

/// A tuple nested `d` deep, `((((x))))`, up to the capacity.
fn chain(d: usize, x: DynInt) -> DynIntTuple {
    let mut t = DynIntTuple::int(x);
    for _ in 0..d {
        t = DynIntTuple::tuple(&[t]).unwrap();
    }
    t
}

fn tuple(r: &mut Rng) -> DynIntTuple {
    if r.chance(10) {
        return chain(r.below(MAX_NODES as u64) as usize, int(r, true));
    }
    let mut budget = MAX_NODES;
    tree(r, &mut budget, 6, &mut |r| int(r, true))
}

/// A stride congruent with `shape`.
fn stride_for(r: &mut Rng, shape: &DynIntTuple, with_basis: bool) -> DynIntTuple {
    shape.map_leaves(|_| {
        if with_basis {
            DynInt::new_static(1).scaled(basis(r))
        } else {
            DynInt::new(r.range(-40, 40), r.chance(50))
        }
    })
}

fn layout(r: &mut Rng, with_basis: bool) -> DynLayout {
    loop {
        let mut budget = MAX_NODES / 2;
        let shape = if r.chance(5) {
            chain(r.below(MAX_NODES as u64 / 2) as usize, extent(r))
        } else {
            tree(r, &mut budget, 4, &mut extent)
        };
        let b = with_basis && r.chance(30);
        let stride = stride_for(r, &shape, b);
        if let Ok(l) = DynLayout::new(shape, stride) {
            return l;
        }
    }
}

fn swizzle(r: &mut Rng) -> Swizzle {
    loop {
        let b = r.below(5) as u32;
        let s = r.range(-8, 8) as i32;
        if let Ok(sw) = Swizzle::new(b, r.below(8) as u32, s) {
            return sw;
        }
    }
}

fn composed(r: &mut Rng) -> ComposedLayout {
    let outer = if r.chance(70) { Outer::Swizzle(swizzle(r)) } else { Outer::Layout(layout(r, false)) };
    let inner = layout(r, false);
    let mut offset = if r.chance(50) { DynInt::new_static(0) } else { int(r, false) };
    // The tool makes and reads composed layouts whose values `offset + inner(i)` fit in isize.
    let reach = inner.cosize().value;
    if offset.value.checked_add(reach).and(offset.value.checked_sub(reach)).is_none() {
        offset = DynInt::new(isize::MAX - reach, offset.is_static);
    }
    ComposedLayout::with_offset(outer, offset, inner)
}

/// A slicing coordinate congruent with `shape` (the top mode or the leaves fixed at random).
fn slicer_for(r: &mut Rng, shape: &DynIntTuple) -> Slicer {
    let keep = shape.map_leaves(|_| DynInt::new_static(isize::from(r.chance(50))));
    let mut kept = keep.leaves().map(|k| k.value == 1).collect::<Vec<_>>().into_iter();
    let coord = shape.map_leaves(|e| {
        // `_` stands where the coordinate is `_0`, as the parser builds it.
        if kept.next() == Some(true) {
            DynInt::new_static(0)
        } else {
            DynInt::new(r.range(0, e.value.min(1 << 20) - 1), r.chance(50))
        }
    });
    Slicer::new(coord, keep).unwrap()
}

/// A value of kind `k` as the evaluator produces it.
fn value(r: &mut Rng, k: u64) -> Option<Value> {
    Some(match k {
        0 => Value::Int(int(r, true)),
        1 => {
            let t = tuple(r);
            if t.is_int() {
                return None;
            }
            Value::Tuple(t)
        }
        2 => Value::Layout(layout(r, true)),
        3 => Value::Bool(r.chance(50)),
        4 => Value::Major(r.chance(50)),
        5 => {
            // `<item, ...>`: `_`, layouts and shapes.
            let n = 1 + r.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| match r.below(3) {
                    0 => "_".to_string(),
                    1 => layout(r, false).to_string(),
                    _ => {
                        let mut budget = 8;
                        tree(r, &mut budget, 2, &mut extent).to_string()
                    }
                })
                .collect();
            Value::Tiler(format!("<{}>", items.join(", ")).parse::<Tiler>().ok()?)
        }
        6 => Value::Swizzle(swizzle(r)),
        7 => Value::Composed(composed(r)),
        8 => {
            // `slice_and_offset` of a layout, or `local_tile` of an identity layout.
            let b = r.chance(30);
            let l = layout(r, b);
            let s = slicer_for(r, l.shape());
            eval(&format!("slice_and_offset({s}, {l})")).ok()?
        }
        9 => {
            let k = composed(r);
            let s = slicer_for(r, k.inner().shape());
            eval(&format!("slice_and_offset({s}, {k})")).ok()?
        }
        10 => {
            let (t, v) = (layout(r, false), layout(r, false));
            let tv = eval(&format!("make_layout_tv({t}, {v})")).ok();
            tv.unwrap_or(Value::LayoutTv(tuple(r), layout(r, false)))
        }
        11 => {
            let l = layout(r, false);
            let s = slicer_for(r, l.shape());
            if !s.has_underscore() {
                return None;
            }
            Value::Slicer(s)
        }
        12 => {
            // A linear layout over F2: 0 to 32 bases of up to 32 output bits.
            let out = r.range(0, 32) as u32;
            let bases: Vec<u32> = (0..r.range(0, 32))
                .map(|_| (r.next() as u32) & if out == 32 { u32::MAX } else { (1 << out) - 1 })
                .collect();
            Value::Linear(const_layout::linear::LinearLayout::new(&bases, out).unwrap())
        }
        _ => {
            let shape = layout(r, false);
            let id = format!("make_identity_layout({})", shape.shape());
            let tile: Vec<String> = (0..shape.rank()).map(|_| format!("_{}:_1", r.range(1, 3))).collect();
            let coord: Vec<String> = (0..shape.rank()).map(|_| "0".to_string()).collect();
            eval(&format!("local_tile({id}, <{}>, ({}))", tile.join(", "), coord.join(","))).ok()?
        }
    })
}

const KINDS: u64 = 14;

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "int",
        Value::Tuple(_) => "tuple",
        Value::Layout(_) => "layout",
        Value::Bool(_) => "bool",
        Value::Major(_) => "major",
        Value::Tiler(_) => "tiler",
        Value::Swizzle(_) => "swizzle",
        Value::Composed(_) => "composed",
        Value::Partition(p) if p.origin.is_some() => "partition (coordinate origin)",
        Value::Partition(_) => "partition",
        Value::ComposedPartition(..) => "composed partition",
        Value::LayoutTv(..) => "layout_tv",
        Value::Slicer(_) => "slicer",
        Value::Linear(_) => "linear",
    }
}

#[test]
fn every_printed_value_evaluates_back_to_itself() {
    every_printed_value_evaluates_back_to_itself_();
}

fn every_printed_value_evaluates_back_to_itself_() {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 3000, failure_persistence: None, ..Config::default() },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    let seen_cell = std::cell::RefCell::new(&mut seen);
    runner
        .run(&(any::<u64>(), 0..KINDS), |(seed, k)| {
            let mut r = Rng(seed);
            let Some(v) = value(&mut r, k) else { return Ok(()) };
            *seen_cell.borrow_mut().entry(kind_name(&v)).or_default() += 1;
            let text = v.to_string();
            let back = eval(&text).map_err(|e| TestCaseError::fail(format!("`{text}`: {e}")))?;
            prop_assert_eq!(back, v, "`{}` read back differently", text);
            prop_assert_eq!(back.to_string(), text);
            Ok(())
        })
        .unwrap();
    // Every kind was generated, and often.
    for kind in [
        "int",
        "tuple",
        "layout",
        "bool",
        "major",
        "tiler",
        "swizzle",
        "composed",
        "partition",
        "partition (coordinate origin)",
        "composed partition",
        "layout_tv",
        "slicer",
        "linear",
    ] {
        let n = seen.get(kind).copied().unwrap_or(0);
        assert!(n >= 20, "only {n} values of kind {kind}: {seen:?}");
    }
}

#[test]
fn the_from_str_parsers_read_back_what_display_prints() {
    the_from_str_parsers_read_back_what_display_prints_();
}

fn the_from_str_parsers_read_back_what_display_prints_() {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 2000, failure_persistence: None, ..Config::default() },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    runner
        .run(&any::<u64>(), |seed| {
            let mut r = Rng(seed);
            let t = tuple(&mut r);
            prop_assert_eq!(t.to_string().parse::<DynIntTuple>().unwrap(), t);
            let l = layout(&mut r, true);
            prop_assert_eq!(l.to_string().parse::<DynLayout>().unwrap(), l);
            prop_assert_eq!(l.to_string().parse::<Tiler>().unwrap(), Tiler::Layout(l));
            if let Some(Value::Tiler(tiler)) = value(&mut r, 5) {
                prop_assert_eq!(tiler.to_string().parse::<Tiler>().unwrap(), tiler);
            }
            // `Slicer`'s own parser recurses (core/src/algebra/slice.rs), so it reads at most
            // `MAX_NESTING` levels; the evaluator reads slicers of any depth (above).
            let s = slicer_for(&mut r, l.shape());
            if l.shape().depth() < const_layout::text::MAX_NESTING {
                prop_assert_eq!(s.to_string().parse::<Slicer>().unwrap(), s);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_issues_composed_layouts_read_back_and_compose_as_in_cute() {
    the_issues_composed_layouts_read_back_and_compose_as_in_cute_();
}

fn the_issues_composed_layouts_read_back_and_compose_as_in_cute_() {
    // CuTe 4.2's answers (tools/oracle: g++ of composition / right_inverse / tile_to_shape /
    // max_common_vector on these ComposedLayouts).
    for (expr, cute) in [
        ("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"),
        (
            "composition((_8,_8):(_8,_1), Sw<2,0,-3> o _0 o (_8,_8):(_8,_1))",
            "Sw<2,0,3> o _0 o (_8,_8):(_1,_8)",
        ),
        ("right_inverse(Sw<1,0,2> o _0 o (_4,_4):(_1,_4))", "Sw<1,0,2> o _0 o _16:_1"),
        (
            "tile_to_shape(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), (_64,_64))",
            "Sw<3,3,3> o _0 o ((_8,_8),(_8,_8)):((_8,_64),(_1,_512))",
        ),
        ("max_common_vector(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), (_8,_8):(_8,_1))", "_8"),
        ("max_common_vector((_8,_8):(_8,_1), Sw<3,3,3> o _0 o (_8,_8):(_8,_1))", "_8"),
        ("max_common_vector(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), Sw<3,3,3> o _0 o (_8,_8):(_8,_1))", "_64"),
        ("max_common_layout(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), (_8,_8):(_8,_1))", "_8:_8"),
        ("max_common_layout(Sw<2,1,3> o _0 o (_8,_8):(_1,_8), (_8,_8):(_1,_8))", "_2:_1"),
        ("max_common_layout((_8,_8):(_1,_8), Sw<2,1,3> o _0 o (_8,_8):(_1,_8))", "_2:_1"),
        ("max_common_layout(Sw<2,4,3> o _0 o (_8,_8):(_1,_8), (_8,_8):(_1,_8))", "_16:_1"),
        ("max_common_vector(Sw<2,4,3> o _0 o (_8,_8):(_1,_8), (_8,_8):(_1,_8))", "_16"),
    ] {
        assert_eq!(eval(expr).map(|v| v.to_string()), Ok(cute.to_string()), "{expr}");
    }
    // A layout outside is not CuTe's swizzled overload: the error names the operand.
    let e = eval("max_common_vector(_8:_2 o 3 o (_8,_8):(_8,_1), (_8,_8):(_8,_1))").unwrap_err().to_string();
    assert!(e.contains("argument 1 of `max_common_vector` must be a layout or a swizzled layout"), "{e}");
}
