//! Property tests of the layout algebra, on both paths: runtime-structured (`DynLayout`,
//! `DynIntTuple`, random nested shapes) and typed (`Layout<S, D>` for a few fixed structures with
//! random runtime values).
//!
//! Deterministic: every `proptest!` block runs a fixed number of cases from a fixed seed, and no
//! failure-persistence files are written. The properties (numbered as in the brief):
//! 1. `idx2crd` / `crd2idx` round trip, coordinates inside the shape;
//! 2. the typed layout and the `DynLayout` of its text agree;
//! 3. size / cosize laws, compact layouts are permutations of `0..size`;
//! 4. compact layouts: `get_1d_coord` and `get_hier_coord` invert the layout;
//! 5. compact strides are the exclusive prefix (suffix) product, static `_1` extents getting 0;
//! 6. text round trip, and parsing random text never panics and reports a sane column;
//! 7. checked construction and `checked_crd2idx` never panic and pick the right `LayoutError`.

use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use const_layout::eval::{Value, eval};
use const_layout::int::Int;
use const_layout::int_tuple::{IntTuple, compact_col_major, compact_row_major};
use const_layout::{C, Layout, LayoutError, LayoutLeft, LayoutRight, make_layout};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x0c07_e1a7),
        max_shrink_iters: 2048,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Random nested layouts for the runtime-structured path
// ---------------------------------------------------------------------------------------------

/// The largest size a random layout gets (every index is visited).
const MAX_SIZE: isize = 360;

#[derive(Clone, Copy, Debug)]
struct LeafSpec {
    extent: isize,
    stride: isize,
    extent_static: bool,
    stride_static: bool,
}

/// A random layout: shape and stride together, nested.
#[derive(Clone, Debug)]
enum Spec {
    Leaf(LeafSpec),
    Tuple(Vec<Spec>),
}

fn leaf_spec() -> impl Strategy<Value = LeafSpec> {
    (1isize..=6, -8isize..=12, prop::bool::weighted(0.3), prop::bool::weighted(0.3)).prop_map(
        |(extent, stride, extent_static, stride_static)| LeafSpec {
            extent,
            stride,
            extent_static,
            stride_static,
        },
    )
}

/// A mode nested at most `depth` more levels.
fn node(depth: u32) -> BoxedStrategy<Spec> {
    if depth == 0 {
        return leaf_spec().prop_map(Spec::Leaf).boxed();
    }
    prop_oneof![
        3 => leaf_spec().prop_map(Spec::Leaf),
        1 => prop::collection::vec(node(depth - 1), 1..=4).prop_map(Spec::Tuple),
    ]
    .boxed()
}

/// A layout of depth <= 3, <= 4 modes a level, extents 1..=6 (shrunk to 1 where the size would
/// exceed [`MAX_SIZE`]), strides -8..=12, about 30% of the integers static.
fn layout_spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        1 => leaf_spec().prop_map(Spec::Leaf),
        5 => prop::collection::vec(node(2), 1..=4).prop_map(Spec::Tuple),
    ]
    .prop_map(|mut s| {
        let mut size = 1;
        cap(&mut s, &mut size);
        s
    })
    .prop_filter("a DynIntTuple holds at most MAX_NODES nodes", |s| s.nodes() <= MAX_NODES)
}

fn cap(s: &mut Spec, size: &mut isize) {
    match s {
        Spec::Leaf(l) => {
            if *size * l.extent > MAX_SIZE {
                l.extent = 1;
            }
            *size *= l.extent;
        }
        Spec::Tuple(v) => v.iter_mut().for_each(|m| cap(m, size)),
    }
}

impl Spec {
    /// Integers plus tuples, as `DynIntTuple` counts them.
    fn nodes(&self) -> usize {
        match self {
            Spec::Leaf(_) => 1,
            Spec::Tuple(v) => 1 + v.iter().map(Spec::nodes).sum::<usize>(),
        }
    }

    fn leaves(&self) -> Vec<LeafSpec> {
        match self {
            Spec::Leaf(l) => vec![*l],
            Spec::Tuple(v) => v.iter().flat_map(|m| m.leaves()).collect(),
        }
    }

    fn build(&self, f: &dyn Fn(&LeafSpec) -> DynInt) -> DynIntTuple {
        match self {
            Spec::Leaf(l) => DynIntTuple::int(f(l)),
            Spec::Tuple(v) => {
                let modes: Vec<DynIntTuple> = v.iter().map(|m| m.build(f)).collect();
                DynIntTuple::tuple(&modes).unwrap()
            }
        }
    }

    fn shape(&self) -> DynIntTuple {
        self.build(&|l| DynInt::new(l.extent, l.extent_static))
    }

    fn stride(&self) -> DynIntTuple {
        self.build(&|l| DynInt::new(l.stride, l.stride_static))
    }

    fn layout(&self) -> DynLayout {
        DynLayout::new(self.shape(), self.stride()).unwrap()
    }
}

fn rt(i: isize) -> DynIntTuple {
    DynIntTuple::int(DynInt::new_runtime(i))
}

/// `coord` is congruent with `shape` and every integer is in `0..extent`.
fn inside(coord: &DynIntTuple, shape: &DynIntTuple) -> bool {
    coord.congruent(shape)
        && coord.leaves().zip(shape.leaves()).all(|(c, s)| 0 <= c.value && c.value < s.value)
}

/// The expected compact strides of `shape`'s integers taken in `order` (CuTe's rule: an exclusive
/// running product from a static 1; a static extent of 1 gets a static 0).
fn expected_compact(shape: &DynIntTuple, reverse: bool) -> Vec<DynInt> {
    let mut leaves: Vec<DynInt> = shape.leaves().collect();
    if reverse {
        leaves.reverse();
    }
    let mut running = DynInt::new_static(1);
    let mut out: Vec<DynInt> = leaves
        .iter()
        .map(|s| {
            let d = if s.is_static && s.value == 1 { DynInt::new_static(0) } else { running };
            running = DynInt::new(running.value * s.value, running.is_static && s.is_static);
            d
        })
        .collect();
    if reverse {
        out.reverse();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Typed structures with random runtime values
// ---------------------------------------------------------------------------------------------

fn ext() -> std::ops::RangeInclusive<usize> {
    1..=6
}

fn strd() -> std::ops::RangeInclusive<isize> {
    -8..=12
}

/// Structure A: `(usize, (usize, usize)) : (isize, (isize, isize))`.
type ShapeA = (usize, (usize, usize));
type StrideA = (isize, (isize, isize));
fn layout_a() -> impl Strategy<Value = Layout<ShapeA, StrideA>> {
    (ext(), ext(), ext(), strd(), strd(), strd())
        .prop_map(|(a, b, c, x, y, z)| make_layout((a, (b, c)), (x, (y, z))).unwrap())
}

/// Structure B: `((usize, usize), usize, usize) : ((isize, isize), isize, isize)`.
type ShapeB = ((usize, usize), usize, usize);
type StrideB = ((isize, isize), isize, isize);
fn layout_b() -> impl Strategy<Value = Layout<ShapeB, StrideB>> {
    (ext(), ext(), ext(), ext(), strd(), strd(), strd(), strd())
        .prop_map(|(a, b, c, d, w, x, y, z)| make_layout(((a, b), c, d), ((w, x), y, z)).unwrap())
}

/// Structure C: `(_4, (usize, _2)) : (isize, (_-3, isize))`.
type ShapeC = (C<4>, (usize, C<2>));
type StrideC = (isize, (C<-3>, isize));
fn layout_c() -> impl Strategy<Value = Layout<ShapeC, StrideC>> {
    (ext(), strd(), strd())
        .prop_map(|(b, x, z)| make_layout((C::<4>, (b, C::<2>)), (x, (C::<-3>, z))).unwrap())
}

/// Structure D (static extents of 1, for the compact-stride rule): `((usize, (_1, usize)), _3)`.
type ShapeD = ((usize, (C<1>, usize)), C<3>);
type StrideD = ((isize, (isize, C<5>)), isize);
fn layout_d() -> impl Strategy<Value = Layout<ShapeD, StrideD>> {
    (ext(), ext(), strd(), strd(), strd())
        .prop_map(|(a, c, w, x, z)| make_layout(((a, (C::<1>, c)), C::<3>), ((w, (x, C::<5>)), z)).unwrap())
}

/// Typed shapes of each structure, for the compact properties.
fn shape_a() -> impl Strategy<Value = ShapeA> {
    (ext(), ext(), ext()).prop_map(|(a, b, c)| (a, (b, c)))
}
fn shape_b() -> impl Strategy<Value = ShapeB> {
    (ext(), ext(), ext(), ext()).prop_map(|(a, b, c, d)| ((a, b), c, d))
}
fn shape_c() -> impl Strategy<Value = ShapeC> {
    ext().prop_map(|b| (C::<4>, (b, C::<2>)))
}
fn shape_d() -> impl Strategy<Value = ShapeD> {
    (ext(), ext()).prop_map(|(a, c)| ((a, (C::<1>, c)), C::<3>))
}

/// Properties 1-3 on one typed layout (a macro: the bounds of a generic function would repeat the
/// library's trait machinery).
macro_rules! typed_layout_props {
    ($l:expr) => {{
        let l = $l;
        let text = l.to_string();
        let size = l.size().value();
        let shape = l.shape().to_dyn().unwrap();
        let stride = l.stride().to_dyn().unwrap();
        // Property 1: round trip, and coordinates inside the shape.
        for i in 0..size as usize {
            let c = l.idx2crd(i);
            let cd = c.to_dyn().unwrap();
            prop_assert!(inside(&cd, &shape), "{text}: idx2crd({i}) = {cd} is outside the shape");
            prop_assert_eq!(l.crd2idx(c).value(), l.crd2idx(i).value(), "{}: round trip of {}", text, i);
        }
        // Property 2: the DynLayout of the same text agrees.
        let d: DynLayout = text.parse().unwrap();
        prop_assert_eq!(d.to_string(), text.clone());
        prop_assert_eq!(DynLayout::try_from(&l).unwrap(), d);
        prop_assert_eq!(d.size().value, size);
        prop_assert_eq!(d.cosize().value, l.cosize().value());
        let typed: Vec<isize> = l.iter().collect();
        let dynamic: Vec<isize> = d.offsets().collect();
        prop_assert_eq!(&typed, &dynamic, "{}: offsets", text);
        for i in 0..size as usize {
            prop_assert_eq!(l.crd2idx(i).value(), d.offset(i as isize));
            let (a, b) = (l.idx2crd(i).to_dyn().unwrap(), d.idx2crd(&rt(i as isize)).unwrap());
            prop_assert!(a.same_values(&b), "{text}: idx2crd({i}) typed {a}, dynamic {b}");
        }
        // Property 3: size and cosize laws.
        let extents: Vec<isize> = shape.leaves().map(|v| v.value).collect();
        let strides: Vec<isize> = stride.leaves().map(|v| v.value).collect();
        prop_assert_eq!(size, extents.iter().product::<isize>());
        let span: isize = extents.iter().zip(&strides).map(|(s, d)| (s - 1) * d.abs()).sum();
        prop_assert_eq!(l.cosize().value(), 1 + span, "{}: cosize", text);
        if strides.iter().all(|&d| d >= 0) {
            prop_assert_eq!(
                l.cosize().value(),
                typed.iter().max().unwrap() + 1,
                "{}: cosize vs max offset",
                text
            );
        }
    }};
}

/// Properties 3-5 for the compact layouts of one typed shape.
macro_rules! typed_compact_props {
    ($shape:expr) => {{
        let shape = $shape;
        let sd = shape.to_dyn().unwrap();
        let left = make_layout(shape, LayoutLeft).unwrap();
        let right = make_layout(shape, LayoutRight).unwrap();
        // Property 5: compact strides.
        for (strides, reverse, name) in [
            (compact_col_major(&shape).to_dyn().unwrap(), false, "col"),
            (compact_row_major(&shape).to_dyn().unwrap(), true, "row"),
        ] {
            let want = expected_compact(&sd, reverse);
            let got: Vec<DynInt> = strides.leaves().collect();
            prop_assert!(
                strides.congruent(&sd),
                "compact_{}_major({}) = {} not congruent",
                name,
                sd,
                strides
            );
            prop_assert_eq!(
                got.iter().map(|v| v.value).collect::<Vec<_>>(),
                want.iter().map(|v| v.value).collect::<Vec<_>>(),
                "compact_{}_major({}) = {}",
                name,
                sd,
                strides
            );
            // Static flags: a typed stride may be static only where CuTe's is. (Not the converse:
            // the typed path gives a static `_1` extent after a runtime one a runtime `0`, where
            // CuTe gives `_0`; cute/src/int.rs documents this for `CompactStrideOf`.)
            prop_assert!(
                got.iter().zip(&want).all(|(g, w)| !g.is_static || w.is_static),
                "compact_{}_major({}) = {}: static where CuTe is not",
                name,
                sd,
                strides
            );
        }
        prop_assert!(
            left.stride().to_dyn().unwrap().same_values(&compact_col_major(&shape).to_dyn().unwrap())
        );
        prop_assert!(
            right.stride().to_dyn().unwrap().same_values(&compact_row_major(&shape).to_dyn().unwrap())
        );
        // Properties 3 and 4 on both compact layouts.
        let size = left.size().value();
        macro_rules! compact_checks {
            ($c:expr) => {{
                let c = $c;
                let text = c.to_string();
                let mut offsets: Vec<isize> = c.iter().collect();
                for (i, &o) in offsets.iter().enumerate() {
                    prop_assert_eq!(c.get_1d_coord(o as usize), i as isize, "{}: get_1d_coord({})", text, o);
                    let h = c.get_hier_coord(o as usize);
                    prop_assert_eq!(c.crd2idx(h).value(), o, "{}: crd2idx(get_hier_coord({}))", text, o);
                }
                offsets.sort();
                prop_assert_eq!(offsets, (0..size).collect::<Vec<_>>(), "{}: not a permutation", text);
                prop_assert_eq!(c.cosize().value(), size, "{}: cosize of a compact layout", text);
            }};
        }
        compact_checks!(left);
        compact_checks!(right);
    }};
}

// ---------------------------------------------------------------------------------------------
// Properties 1-5
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(160))]

    /// Properties 1 and 3 on random nested `DynLayout`s.
    #[test]
    fn dyn_round_trip_and_size_laws(spec in layout_spec()) {
        let l = spec.layout();
        let text = l.to_string();
        let shape = *l.shape();
        let leaves = spec.leaves();
        let size = l.size().value;
        // Property 1.
        for i in 0..size {
            let c = l.idx2crd(&rt(i)).unwrap();
            prop_assert!(inside(&c, &shape), "{text}: idx2crd({i}) = {c} is outside the shape");
            let via_crd = l.crd2idx(&c).unwrap().value;
            let via_idx = l.crd2idx(&rt(i)).unwrap().value;
            prop_assert_eq!(via_crd, via_idx, "{}: round trip of {}", text, i);
            prop_assert_eq!(via_idx, l.offset(i));
        }
        // Property 3.
        prop_assert_eq!(size, leaves.iter().map(|l| l.extent).product::<isize>());
        let span: isize = leaves.iter().map(|l| (l.extent - 1) * l.stride.abs()).sum();
        prop_assert_eq!(l.cosize().value, 1 + span, "{}: cosize", text);
        if leaves.iter().all(|l| l.stride >= 0) {
            let max = l.offsets().max().unwrap();
            prop_assert_eq!(l.cosize().value, max + 1, "{}: cosize vs max offset", text);
        }
    }

    /// Properties 3, 4 and 5 on the compact layouts of random nested shapes.
    #[test]
    fn dyn_compact(spec in layout_spec()) {
        let shape = spec.shape();
        let size = shape.size().unwrap().value;
        for (left, name) in [(true, "LayoutLeft"), (false, "LayoutRight")] {
            let l = DynLayout::compact(shape, left).unwrap();
            let text = l.to_string();
            // Property 5: strides, static flags included (CuTe's rule, as `DynInt` keeps it).
            let want = expected_compact(&shape, !left);
            let got: Vec<DynInt> = l.stride().leaves().collect();
            prop_assert_eq!(&got, &want, "{} of {}: {}", name, shape, text);
            let func = if left { "compact_col_major" } else { "compact_row_major" };
            match eval(&format!("{func}({shape})")) {
                Ok(Value::Tuple(t)) => prop_assert_eq!(t, *l.stride(), "{}({})", func, shape),
                Ok(Value::Int(v)) => prop_assert_eq!(DynIntTuple::int(v), *l.stride(), "{}({})", func, shape),
                other => prop_assert!(false, "{func}({shape}) gave {other:?}"),
            }
            // Property 3: a permutation of 0..size.
            let mut offsets: Vec<isize> = l.offsets().collect();
            // Property 4: get_1d_coord and get_hier_coord invert it.
            for (i, &o) in offsets.iter().enumerate() {
                let one_d = l.get_1d_coord(DynInt::new_runtime(o)).unwrap().value;
                prop_assert_eq!(one_d, i as isize, "{}: get_1d_coord({})", text, o);
                let h = l.get_hier_coord(DynInt::new_runtime(o)).unwrap();
                prop_assert_eq!(l.crd2idx(&h).unwrap().value, o, "{}: crd2idx(get_hier_coord({}))", text, o);
            }
            offsets.sort();
            prop_assert_eq!(offsets, (0..size).collect::<Vec<_>>(), "{}: not a permutation", text);
            prop_assert_eq!(l.cosize().value, size, "{}: cosize", text);
        }
    }
}

proptest! {
    #![proptest_config(config(96))]

    /// Properties 1, 2 and 3 on typed layouts.
    #[test]
    fn typed_a(l in layout_a()) { typed_layout_props!(l); }
    #[test]
    fn typed_b(l in layout_b()) { typed_layout_props!(l); }
    #[test]
    fn typed_c(l in layout_c()) { typed_layout_props!(l); }
    #[test]
    fn typed_d(l in layout_d()) { typed_layout_props!(l); }

    /// Properties 3, 4 and 5 on typed compact layouts.
    #[test]
    fn typed_compact_a(s in shape_a()) { typed_compact_props!(s); }
    #[test]
    fn typed_compact_b(s in shape_b()) { typed_compact_props!(s); }
    #[test]
    fn typed_compact_c(s in shape_c()) { typed_compact_props!(s); }
    #[test]
    fn typed_compact_d(s in shape_d()) { typed_compact_props!(s); }
}

// ---------------------------------------------------------------------------------------------
// Property 6: text
// ---------------------------------------------------------------------------------------------

const ALPHABET: &[char] =
    &['(', ')', '_', ',', ':', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ' ', 'x'];

/// Random short strings over the alphabet of CuTe notation (plus `x`), and valid layout texts with
/// a few random single-character edits (which reach deeper into the parser).
fn fuzz_text() -> impl Strategy<Value = String> {
    let random =
        prop::collection::vec(prop::sample::select(ALPHABET), 0..=24).prop_map(|v| v.into_iter().collect());
    let edit = (0usize..64, prop::option::of(prop::sample::select(ALPHABET)));
    let edited = (layout_spec(), prop::collection::vec(edit, 0..=3)).prop_map(|(spec, edits)| {
        let mut chars: Vec<char> = format!("{}:{}", spec.shape(), spec.stride()).chars().collect();
        for (pos, c) in edits {
            let pos = pos % (chars.len() + 1);
            match c {
                Some(c) if pos.is_multiple_of(2) => chars.insert(pos, c),
                Some(c) if pos < chars.len() => chars[pos] = c,
                _ if pos < chars.len() => {
                    chars.remove(pos);
                }
                _ => {}
            }
        }
        chars.into_iter().collect::<String>()
    });
    prop_oneof![random, edited]
}

/// Random nested int tuples (depth <= 3, <= 4 modes a level), values from `min` up to `isize::MAX`,
/// small ones most often.
fn int_tuple(min: isize) -> impl Strategy<Value = DynIntTuple> {
    let value = prop_oneof![
        6 => -8isize..=12,
        1 => Just(isize::MAX),
        1 => Just(min),
        1 => min..=isize::MAX,
    ];
    let leaf =
        (value, any::<bool>()).prop_map(|(value, is_static)| DynIntTuple::int(DynInt::new(value, is_static)));
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..=4)
            .prop_filter_map("at most MAX_NODES nodes", |modes| DynIntTuple::tuple(&modes).ok())
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// `to_string` of a layout parses back to the same layout (and shape/stride texts likewise).
    #[test]
    fn text_round_trip(spec in layout_spec()) {
        let l = spec.layout();
        let text = l.to_string();
        let back: DynLayout = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(back, l, "{}", text);
        prop_assert_eq!(back.to_string(), text.clone());
        let shape: DynIntTuple = l.shape().to_string().parse().unwrap();
        prop_assert_eq!(shape, *l.shape());
        // The unexpanded spelling parses to the same layout too.
        let raw = format!("{}:{}", spec.shape(), spec.stride());
        prop_assert_eq!(raw.parse::<DynLayout>().unwrap(), l);
    }

    /// Any `DynIntTuple` (nested, any static flags, values up to the extremes of `isize`) prints to
    /// text that parses back to it.
    #[test]
    fn int_tuple_text_round_trip(t in int_tuple(isize::MIN)) {
        let text = t.to_string();
        let back: DynIntTuple = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(back, t, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    /// Parsing random text never panics; errors point inside the text (1..=len+1); successes
    /// print back to text that parses to the same value.
    #[test]
    fn parse_never_panics(s in fuzz_text()) {
        let len = s.chars().count();
        match s.parse::<DynIntTuple>() {
            Ok(t) => prop_assert_eq!(t.to_string().parse::<DynIntTuple>().unwrap(), t),
            Err(e) => prop_assert!((1..=len + 1).contains(&e.column), "{s:?}: column {} ({e})", e.column),
        }
        match s.parse::<DynLayout>() {
            Ok(l) => prop_assert_eq!(l.to_string().parse::<DynLayout>().unwrap(), l),
            Err(e) => prop_assert!((1..=len + 1).contains(&e.column), "{s:?}: column {} ({e})", e.column),
        }
    }
}

/// Regression: `isize::MIN` survives the text round trip (the parser once accumulated positively).
#[test]
fn isize_min_parses() {
    let t = DynIntTuple::int(DynInt::new_runtime(isize::MIN));
    assert_eq!(t.to_string(), "-9223372036854775808");
    let back = t.to_string().parse::<DynIntTuple>();
    assert_eq!(back.map_err(|e| e.to_string()), Ok(t), "isize::MIN prints but does not parse");
}

// ---------------------------------------------------------------------------------------------
// Property 7: checked construction and checked index math
// ---------------------------------------------------------------------------------------------

/// Runtime extents: small ones, 0, and huge ones (beyond `isize`, or overflowing in products).
fn wild_extent() -> impl Strategy<Value = usize> {
    prop_oneof![
        12 => 1usize..=6,
        2 => Just(0usize),
        1 => Just(usize::MAX),
        1 => Just(isize::MAX as usize),
        1 => Just(isize::MAX as usize + 1),
        1 => Just(1usize << 32),
        1 => (1usize << 20)..(1usize << 40),
    ]
}

fn wild_stride() -> impl Strategy<Value = isize> {
    prop_oneof![
        8 => -8isize..=12,
        1 => Just(isize::MAX),
        1 => Just(isize::MIN),
        1 => Just(1isize << 40),
        1 => Just(-(1isize << 40)),
    ]
}

/// The error `make_layout` must give for these extents (checked left to right), if any.
fn shape_error(extents: &[usize]) -> Option<LayoutError> {
    let mut size = 1isize;
    for (leaf, &v) in extents.iter().enumerate() {
        let Ok(v) = isize::try_from(v) else {
            return Some(LayoutError::ValueOutOfRange { part: "shape", leaf });
        };
        if v <= 0 {
            return Some(LayoutError::NonPositiveExtent { leaf, value: v });
        }
        size = match size.checked_mul(v) {
            Some(s) => s,
            None => return Some(LayoutError::SizeOverflow),
        };
    }
    None
}

/// `1 + sum((s-1)*|d|)`, if it fits.
fn cosize_of(extents: &[isize], strides: &[isize]) -> Option<isize> {
    let mut span = 0isize;
    for (&s, &d) in extents.iter().zip(strides) {
        span = span.checked_add((s - 1).checked_mul(d.checked_abs()?)?)?;
    }
    span.checked_add(1)
}

proptest! {
    #![proptest_config(config(512))]

    /// Typed `make_layout` with compact strides: never panics; zero extents, values beyond `isize`
    /// and overflowing sizes are rejected with the right variant.
    #[test]
    fn typed_construction_compact(a in wild_extent(), b in wild_extent(), c in wild_extent()) {
        let want = shape_error(&[a, b, c]);
        let left = make_layout((a, (b, c)), LayoutLeft);
        let right = make_layout((a, (b, c)), LayoutRight);
        match want {
            Some(e) => {
                prop_assert_eq!(left.unwrap_err(), e, "LayoutLeft ({}, ({}, {}))", a, b, c);
                prop_assert_eq!(right.unwrap_err(), e, "LayoutRight ({}, ({}, {}))", a, b, c);
            }
            None => {
                let (left, right) = (left.unwrap(), right.unwrap());
                let size = (a * b * c) as isize;
                prop_assert_eq!(left.size().value(), size);
                prop_assert_eq!(right.cosize().value(), size);
                prop_assert_eq!(left.cosize().value(), size);
            }
        }
    }

    /// Typed `make_layout` with explicit (and scalar-expanded) strides.
    #[test]
    fn typed_construction_strided(
        a in wild_extent(), b in wild_extent(), c in wild_extent(),
        x in wild_stride(), y in wild_stride(), z in wild_stride(),
    ) {
        let full = make_layout((a, (b, c)), (x, (y, z)));
        let scalar = make_layout((a, (b, c)), (x, y)); // y expands to (y, y*b)
        match shape_error(&[a, b, c]) {
            Some(e) => {
                prop_assert_eq!(full.unwrap_err(), e);
                prop_assert_eq!(scalar.unwrap_err(), e);
            }
            None => {
                let ext = [a as isize, b as isize, c as isize];
                match cosize_of(&ext, &[x, y, z]) {
                    None => prop_assert_eq!(full.unwrap_err(), LayoutError::CosizeOverflow),
                    Some(cosize) => prop_assert_eq!(full.unwrap().cosize().value(), cosize),
                }
                match y.checked_mul(b as isize) {
                    None => prop_assert_eq!(scalar.unwrap_err(), LayoutError::StrideOverflow { leaf: 2 }),
                    Some(yb) => match cosize_of(&ext, &[x, y, yb]) {
                        None => prop_assert_eq!(scalar.unwrap_err(), LayoutError::CosizeOverflow),
                        Some(cosize) => {
                            let l = scalar.unwrap();
                            prop_assert_eq!(l.cosize().value(), cosize);
                            prop_assert_eq!(l.stride().to_dyn().unwrap().leaves().map(|v| v.value).collect::<Vec<_>>(), vec![x, y, yb]);
                        }
                    },
                }
            }
        }
    }

    /// Signed runtime extents: negative ones are rejected too.
    #[test]
    fn typed_construction_signed(a in -3isize..=4, b in -3i32..=4) {
        let got = make_layout((a, b), LayoutLeft);
        if a <= 0 {
            prop_assert_eq!(got.unwrap_err(), LayoutError::NonPositiveExtent { leaf: 0, value: a });
        } else if b <= 0 {
            prop_assert_eq!(got.unwrap_err(), LayoutError::NonPositiveExtent { leaf: 1, value: b as isize });
        } else {
            prop_assert_eq!(got.unwrap().size().value(), a * b as isize);
        }
    }

    /// `DynLayout::new` on arbitrary values: never panics, same errors.
    #[test]
    fn dyn_construction(
        exts in prop::collection::vec(prop_oneof![3 => -2isize..=6, 1 => Just(isize::MAX), 1 => (1isize << 20)..(1isize << 40)], 1..=4),
        strides in prop::collection::vec(wild_stride(), 4),
    ) {
        let shape = DynIntTuple::from_modes(exts.iter().map(|&v| DynIntTuple::int(DynInt::new_runtime(v)))).unwrap();
        let stride = DynIntTuple::from_modes(strides[..exts.len()].iter().map(|&v| DynIntTuple::int(DynInt::new_runtime(v)))).unwrap();
        let got = DynLayout::new(shape, stride);
        let want_shape = exts.iter().enumerate().find(|(_, v)| **v <= 0).map(|(leaf, &value)| LayoutError::NonPositiveExtent { leaf, value });
        if let Some(e) = want_shape {
            prop_assert_eq!(got.unwrap_err(), e);
        } else if exts.iter().try_fold(1isize, |acc, &v| acc.checked_mul(v)).is_none() {
            prop_assert_eq!(got.unwrap_err(), LayoutError::SizeOverflow);
        } else {
            match cosize_of(&exts, &strides) {
                None => prop_assert_eq!(got.unwrap_err(), LayoutError::CosizeOverflow),
                Some(cosize) => prop_assert_eq!(got.unwrap().cosize().value, cosize),
            }
        }
    }

    /// `checked_crd2idx` accepts exactly the coordinates inside the shape (hierarchical, flat and
    /// integer), with the right error otherwise, and agrees with `crd2idx` inside.
    #[test]
    fn typed_checked_crd2idx(
        l in layout_a(),
        c0 in 0usize..8, c1 in 0usize..8, c2 in 0usize..8, flat in 0usize..40, idx in 0usize..260,
        huge in prop::bool::weighted(0.1),
    ) {
        let (s0, (s1, s2)) = l.shape();
        let size = (s0 * s1 * s2) as isize;
        // Hierarchical.
        let got = l.checked_crd2idx((c0, (c1, c2)));
        let bad = [(c0, s0), (c1, s1), (c2, s2)].iter().enumerate().find(|(_, (c, s))| c >= s)
            .map(|(leaf, &(c, s))| LayoutError::CoordinateOutOfRange { leaf, value: c as isize, extent: s as isize });
        match bad {
            Some(e) => prop_assert_eq!(got, Err(e)),
            None => prop_assert_eq!(got, Ok(l.crd2idx((c0, (c1, c2))))),
        }
        // Flat: the second integer is split within its mode, so its extent is s1*s2.
        let got = l.checked_crd2idx((c0, flat));
        if c0 >= s0 {
            prop_assert_eq!(got, Err(LayoutError::CoordinateOutOfRange { leaf: 0, value: c0 as isize, extent: s0 as isize }));
        } else if flat >= s1 * s2 {
            prop_assert_eq!(got, Err(LayoutError::CoordinateOutOfRange { leaf: 1, value: flat as isize, extent: (s1 * s2) as isize }));
        } else {
            prop_assert_eq!(got, Ok(l.crd2idx((c0, flat))));
        }
        // Integer index.
        let idx = if huge { usize::MAX - idx } else { idx };
        let got = l.checked_crd2idx(idx);
        if (idx as isize) >= 0 && (idx as isize) < size {
            prop_assert_eq!(got, Ok(l.crd2idx(idx)));
        } else {
            // Below 0 or past the size: out of range; beyond isize: not representable.
            prop_assert!(
                matches!(got, Err(LayoutError::IndexOutOfRange { size: s, .. }) if s == size)
                    || (idx > isize::MAX as usize && got == Err(LayoutError::ValueOutOfRange { part: "coordinate", leaf: 0 })),
                "index {idx}: {got:?}"
            );
        }
        // A coordinate beyond isize is rejected, not wrapped.
        let got = l.checked_crd2idx((usize::MAX - c0, (c1, c2)));
        prop_assert!(got.is_err(), "coordinate usize::MAX - {c0}: {got:?}");
    }
}

/// Extents within `isize` (so that `DynLayout` can hold them too).
fn wild_extent_isize() -> impl Strategy<Value = usize> {
    prop_oneof![
        12 => 1usize..=6,
        2 => Just(0usize),
        1 => Just(isize::MAX as usize),
        1 => Just(1usize << 32),
        1 => Just(1usize << 61),
        1 => (1usize << 20)..(1usize << 40),
    ]
}

fn rt_tuple(values: &[isize]) -> DynIntTuple {
    DynIntTuple::from_modes(values.iter().map(|&v| DynIntTuple::int(DynInt::new_runtime(v)))).unwrap()
}

/// Printed layout or error.
type Built = Result<String, LayoutError>;

/// Shape `(a,(b,c))` with stride `(x,(y,z))` and with the scalar stride `(x,y)`: (typed, dynamic).
fn both_paths((a, b, c): (usize, usize, usize), (x, y, z): (isize, isize, isize)) -> [(Built, Built); 2] {
    let shape = DynIntTuple::tuple(&[
        DynIntTuple::int(DynInt::new_runtime(a as isize)),
        rt_tuple(&[b as isize, c as isize]),
    ])
    .unwrap();
    let full = DynIntTuple::tuple(&[DynIntTuple::int(DynInt::new_runtime(x)), rt_tuple(&[y, z])]).unwrap();
    let scalar = rt_tuple(&[x, y]);
    [
        (
            make_layout((a, (b, c)), (x, (y, z))).map(|l| l.to_string()),
            DynLayout::new(shape, full).map(|l| l.to_string()),
        ),
        (
            make_layout((a, (b, c)), (x, y)).map(|l| l.to_string()),
            DynLayout::new(shape, scalar).map(|l| l.to_string()),
        ),
    ]
}

/// Both paths reject, and the shape has both a non-positive extent and an overflowing product: the
/// typed path reports whichever comes first left to right, `DynLayout` the non-positive extent.
fn both_shape_errors(ext: &[usize], t: &Built, d: &Built) -> bool {
    let shape_err =
        |r: &Built| matches!(r, Err(LayoutError::NonPositiveExtent { .. } | LayoutError::SizeOverflow));
    let has_zero = ext.contains(&0);
    let overflows =
        ext.iter().filter(|&&v| v != 0).try_fold(1isize, |p, &v| p.checked_mul(v as isize)).is_none();
    has_zero && overflows && shape_err(t) && shape_err(d)
}

fn narrow_stride() -> impl Strategy<Value = i32> {
    prop_oneof![6 => -8i32..=12, 1 => Just(i32::MAX), 1 => Just(i32::MIN), 1 => Just(1i32 << 30)]
}

proptest! {
    #![proptest_config(config(512))]

    /// Typed `make_layout` and `DynLayout::new` accept the same layouts (printing the same text) and
    /// reject the others with the same error.
    #[test]
    fn typed_and_dyn_construction_agree(
        a in wild_extent_isize(), b in wild_extent_isize(), c in wild_extent_isize(),
        x in wild_stride(), y in wild_stride(), z in wild_stride(),
    ) {
        for (k, (t, d)) in both_paths((a, b, c), (x, y, z)).into_iter().enumerate() {
            if both_shape_errors(&[a, b, c], &t, &d) {
                continue;
            }
            let stride = if k == 0 { format!("({x},({y},{z}))") } else { format!("({x},{y})") };
            prop_assert_eq!(&t, &d, "({},({},{})):{}", a, b, c, stride);
        }
    }

    /// Narrow integer types: `u32` extents, `i32` strides given in full. A size or cosize that does
    /// not fit `u32` is `TypeTooSmall`; otherwise the layout is exact.
    #[test]
    fn typed_construction_narrow_types(
        a in prop_oneof![6 => 1u32..=6, 1 => Just(0u32), 1 => Just(u32::MAX), 1 => (1u32 << 16)..(1u32 << 20)],
        b in 1u32..=6,
        c in prop_oneof![6 => 1u32..=6, 1 => Just(u32::MAX), 1 => (1u32 << 16)..(1u32 << 20)],
        x in narrow_stride(), y in narrow_stride(), z in narrow_stride(),
    ) {
        let got = make_layout((a, (b, c)), (x, (y, z)));
        let ext = [a as isize, b as isize, c as isize];
        let want = shape_error(&[a as usize, b as usize, c as usize]).map(Err).unwrap_or_else(|| {
            let size: isize = ext.iter().product();
            match cosize_of(&ext, &[x as isize, y as isize, z as isize]) {
                None => Err(LayoutError::CosizeOverflow),
                Some(_) if size > u32::MAX as isize => Err(LayoutError::TypeTooSmall { what: "size", value: size }),
                Some(cosize) if cosize > u32::MAX as isize => {
                    Err(LayoutError::TypeTooSmall { what: "cosize", value: cosize })
                }
                Some(cosize) => Ok(cosize),
            }
        });
        match (got, want) {
            (Ok(l), Ok(cosize)) => {
                prop_assert_eq!(l.cosize() as isize, cosize);
                prop_assert_eq!(l.to_string(), format!("({a},({b},{c})):({x},({y},{z}))"));
            }
            (got, want) => prop_assert_eq!(got.map(|l| l.to_string()), want.map(|c| c.to_string())),
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Regression: `DynLayout` once checked the running product *after* each integer of an
    /// expanded scalar stride instead of the strides themselves, rejecting valid layouts.
    #[test]
    fn scalar_stride_expansion_agrees(
        b in 1usize..=4, c in 1usize..=4,
        y in prop_oneof![Just(1isize << 61), Just(1isize << 62), Just(-(1isize << 61)), (1isize << 59)..(1isize << 62)],
    ) {
        let [_, (t, d)] = both_paths((2, b, c), (1, y, 0));
        prop_assert_eq!(t, d, "(2,({},{})):(1,{})", b, c, y);
    }

    /// Regression: a scalar `i32` stride expanded against a tuple mode once wrapped in `i32`; it
    /// must be exact or rejected with `TypeTooSmall { what: "stride", .. }`.
    #[test]
    fn narrow_scalar_stride_expansion(
        b in 1u32..=4, c in 1u32..=4,
        y in prop_oneof![Just(1i32 << 30), Just(i32::MAX), (1i32 << 28)..i32::MAX],
    ) {
        if let Ok(l) = make_layout((1u32, (b, c)), (1i32, y)) {
            let strides: Vec<isize> = l.stride().to_dyn().unwrap().leaves().map(|v| v.value).collect();
            prop_assert_eq!(strides, vec![1, y as isize, y as isize * b as isize], "{}", l);
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A layout whose extents are `FastDivmod`s is the same function as with plain extents: every
    /// integer index splits to the same coordinate and offset, in- and out-of-range (the last mode
    /// takes the rest).
    #[test]
    fn fast_divmod_extents_agree(
        a in 1usize..=40, b in 1usize..=40, c in 1usize..=9,
        x in -50isize..=50, y in -50isize..=50, z in -50isize..=50,
        big in 0usize..(1usize << 40),
    ) {
        use const_layout::FastDivmod;
        let fd = |v: usize| FastDivmod::new(v).unwrap();
        let plain = make_layout((a, (b, c)), (x, (y, z))).unwrap();
        let fast = make_layout((fd(a), (fd(b), fd(c))), (x, (y, z))).unwrap();
        let flat = make_layout((fd(a), fd(b), fd(c)), (x, y, z)).unwrap();
        prop_assert_eq!(plain.to_string(), fast.to_string());
        for i in (0..a * b * c + 5).chain([big]) {
            prop_assert_eq!(plain.crd2idx(i), fast.crd2idx(i), "{} at {}", plain, i);
            prop_assert_eq!(plain.crd2idx(i), flat.crd2idx(i), "{} flat at {}", plain, i);
            let (p0, (p1, p2)) = plain.idx2crd(i);
            let (f0, (f1, f2)) = fast.idx2crd(i);
            prop_assert_eq!((p0, p1, p2), (f0, f1, f2), "{} idx2crd({})", plain, i);
            prop_assert_eq!((p0, p1, p2), flat.idx2crd(i), "{} flat idx2crd({})", plain, i);
        }
    }
}
