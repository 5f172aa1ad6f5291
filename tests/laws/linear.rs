//! Linear layouts over F2 (`const_layout::linear`) against the functions they convert, on every
//! index: generated power-of-two layouts (round trips through CuTe form), every `Sw<B,M,S>` with B,
//! M, S <= 5, swizzled tiles, the MMA atoms' thread-value layouts; layouts whose strides carry are
//! refused; and the operations' laws on random maps.

use crate::rng::Rng;
use const_layout::algebra::computed::StaticLayout;
use const_layout::atom::gmma::{LayoutType, Major, layout_atom};
use const_layout::atom::{
    MmaAtom, SM80_16x8x8_F32F16F16F32_TN, SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32F16F16F32_TN,
};
use const_layout::dyn_layout::DynLayout;
use const_layout::linear::LinearLayout;
use const_layout::swizzle::{ComposedLayout, Outer, Swizzle};

/// `l`'s map equals the layout's offsets on every index.
fn same_function(l: &LinearLayout, f: impl Fn(isize) -> isize, size: isize, what: &str) {
    for x in 0..size {
        assert_eq!(l.apply(x as u32) as isize, f(x), "{what}: index {x}");
    }
}

/// A random layout of power-of-two extents whose nonzero strides are distinct powers of two
/// across all its bits (so it is linear), nested by chance.
fn linear_layout(rng: &mut Rng) -> DynLayout {
    let modes = 1 + rng.pick(4);
    let mut bits: Vec<u32> = (0..12).collect();
    for i in (1..bits.len()).rev() {
        bits.swap(i, rng.pick(i + 1));
    }
    let mut next = 0;
    let mut parts = Vec::new();
    for _ in 0..modes {
        let e = rng.pick(3); // extent 2^e
        let stride = if rng.chance(15) {
            0
        } else {
            // A mode's bits are consecutive from its stride's: stride 2^b covers bits b..b+e.
            let b = bits[next % bits.len()];
            next += 1;
            1isize << b
        };
        parts.push((1isize << e, stride));
    }
    let s = |v: &[(isize, isize)], f: fn(&(isize, isize)) -> isize| {
        v.iter().map(|p| format!("_{}", f(p))).collect::<Vec<_>>().join(",")
    };
    let text = format!("({}):({})", s(&parts, |p| p.0), s(&parts, |p| p.1));
    text.parse().unwrap()
}

#[test]
fn power_of_two_layouts_round_trip_or_are_refused_naming_the_index() {
    let mut rng = Rng(0x11ea_2b0a);
    let (mut linear, mut refused) = (0, 0);
    for _ in 0..3000 {
        let l = linear_layout(&mut rng);
        let size = l.size().value;
        match LinearLayout::from_layout(&l) {
            Ok(f) => {
                linear += 1;
                same_function(&f, |x| l.offset(x), size, &l.to_string());
                let back = f.to_layout().unwrap();
                for x in 0..size {
                    assert_eq!(back.offset(x), l.offset(x), "{l} -> {back}: index {x}");
                }
            }
            Err(e) => {
                refused += 1;
                // Refused only where some index is not the XOR of its bits' offsets.
                let e = e.to_string();
                let x: isize = e.rsplit(' ').next().unwrap().parse().unwrap();
                let xor = (0..12).filter(|b| x >> b & 1 == 1).fold(0, |a, b| a ^ l.offset(1 << b));
                assert_ne!(l.offset(x), xor, "{l}: refused at {x} ({e})");
            }
        }
    }
    assert!(linear > 1000 && refused > 100, "{linear} linear, {refused} refused");
}

#[test]
fn every_swizzle_up_to_five_is_linear_an_involution_and_composes_with_tiles() {
    for b in 0..=5u32 {
        for m in 0..=5u32 {
            for s in 0..=5i32 {
                let Ok(sw) = Swizzle::new(b, m, s) else { continue };
                let bits = (m as i32 + s + b as i32).max(1) as u32;
                let l = LinearLayout::from_swizzle(sw, bits);
                same_function(&l, |x| sw.apply(x), 1 << bits, &sw.to_string());
                assert_eq!(l.compose(&l).unwrap(), LinearLayout::identity(l.in_bits()), "{sw}");
                assert_eq!(l.invert().unwrap(), l, "{sw}");
            }
        }
    }
    // CuTe's gmma atoms tiled: Sw o L as one linear map equals the composed layout's offsets.
    for ty in [LayoutType::B32, LayoutType::B64, LayoutType::B128] {
        for major in [Major::K, Major::MN] {
            let atom = layout_atom(major, ty, 16).unwrap();
            let Outer::Swizzle(sw) = *atom.outer() else { unreachable!() };
            let tile =
                const_layout::algebra::tile_to_shape(atom.inner(), &"(_64,_64)".parse().unwrap(), None)
                    .unwrap();
            let inner = LinearLayout::from_layout(&tile).unwrap();
            let whole = LinearLayout::from_swizzle(sw, inner.out_bits()).compose(&inner).unwrap();
            let composed = ComposedLayout::new(sw, tile);
            same_function(&whole, |x| composed.offset(x), 4096, &composed.to_string());
            assert!(whole.is_injective() && whole.is_surjective(), "{composed}");
            assert!(whole.to_layout().is_err(), "{composed}: a swizzle has no plain form");
            let back = whole.to_composed().unwrap();
            for x in 0..4096 {
                assert_eq!(back.offset(x), composed.offset(x), "{composed} -> {back}: index {x}");
            }
        }
    }
}

#[test]
fn mma_atom_layouts_are_linear() {
    fn check<A: MmaAtom>(name: &str) {
        for (which, l) in [
            ("A", <A::ALayout as StaticLayout>::LAYOUT),
            ("B", <A::BLayout as StaticLayout>::LAYOUT),
            ("C", <A::CLayout as StaticLayout>::LAYOUT),
        ] {
            let f = LinearLayout::from_layout(&l).unwrap_or_else(|e| panic!("{name} {which} {l}: {e}"));
            same_function(&f, |x| l.offset(x), l.size().value, name);
            // Each (thread, value) holds a distinct element: injective, and every element held.
            assert!(f.is_injective() && f.is_surjective(), "{name} {which}");
            let back = f.to_layout().unwrap();
            assert!((0..l.size().value).all(|x| back.offset(x) == l.offset(x)), "{name} {which}");
        }
    }
    check::<SM80_16x8x16_F32F16F16F32_TN>("SM80_16x8x16_F32F16F16F32_TN");
    check::<SM80_16x8x16_F16F16F16F16_TN>("SM80_16x8x16_F16F16F16F16_TN");
    check::<SM80_16x8x8_F32F16F16F32_TN>("SM80_16x8x8_F32F16F16F32_TN");
}

/// The tensor-core issue's other atoms: the SM90 `wgmma` atoms' A (registers), B and C layouts
/// for N from 8 to 256 (the shared-memory A/B layouts of the `_SS` atoms map a thread to the whole
/// tile, so they are not injective: checked equal as functions only), and every copy atom's
/// source and destination layouts (`ldmatrix` plain and transposed, `cp.async` and
/// `UniversalCopy` of 16 bytes): linear, equal as functions on every index, and back to the
/// same layout.
#[test]
fn copy_and_sm90_atom_layouts_are_linear() {
    use const_layout::atom::{
        CopyAtom, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
        SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_CP_ASYNC_CACHEGLOBAL, SM90_64xNx16_F16F16F16_SS,
        SM90_64xNx16_F32F16F16_RS, UniversalCopy,
    };
    fn round_trip(l: &DynLayout, what: &str, injective: bool) {
        let f = LinearLayout::from_layout(l).unwrap_or_else(|e| panic!("{what} {l}: {e}"));
        same_function(&f, |x| l.offset(x), l.size().value, what);
        if injective {
            assert!(f.is_injective(), "{what}");
        }
        let back = f.to_layout().unwrap();
        assert!((0..l.size().value).all(|x| back.offset(x) == l.offset(x)), "{what}");
    }
    fn copy<A: CopyAtom>(name: &str) {
        round_trip(&<A::SrcLayout as StaticLayout>::LAYOUT, &format!("{name} src"), false);
        round_trip(&<A::DstLayout as StaticLayout>::LAYOUT, &format!("{name} dst"), true);
    }
    copy::<SM75_U32x1_LDSM_N>("SM75_U32x1_LDSM_N");
    copy::<SM75_U32x2_LDSM_N>("SM75_U32x2_LDSM_N");
    copy::<SM75_U32x4_LDSM_N>("SM75_U32x4_LDSM_N");
    copy::<SM75_U16x2_LDSM_T>("SM75_U16x2_LDSM_T");
    copy::<SM75_U16x4_LDSM_T>("SM75_U16x4_LDSM_T");
    copy::<SM75_U16x8_LDSM_T>("SM75_U16x8_LDSM_T");
    copy::<SM80_CP_ASYNC_CACHEGLOBAL<u128>>("SM80_CP_ASYNC_CACHEGLOBAL<u128>");
    copy::<UniversalCopy<u128>>("UniversalCopy<u128>");
    fn mma<A: MmaAtom>(name: &str, a_injective: bool) {
        round_trip(&<A::ALayout as StaticLayout>::LAYOUT, &format!("{name} A"), a_injective);
        round_trip(&<A::BLayout as StaticLayout>::LAYOUT, &format!("{name} B"), false);
        let c = <A::CLayout as StaticLayout>::LAYOUT;
        round_trip(&c, &format!("{name} C"), true);
        assert!(LinearLayout::from_layout(&c).unwrap().is_surjective(), "{name} C");
    }
    mma::<SM90_64xNx16_F32F16F16_RS<8>>("SM90_64x8x16_F32F16F16_RS", true);
    mma::<SM90_64xNx16_F32F16F16_RS<64>>("SM90_64x64x16_F32F16F16_RS", true);
    mma::<SM90_64xNx16_F32F16F16_RS<256>>("SM90_64x256x16_F32F16F16_RS", true);
    mma::<SM90_64xNx16_F16F16F16_SS<128>>("SM90_64x128x16_F16F16F16_SS", false);
}

fn random_map(rng: &mut Rng, in_bits: u32, out_bits: u32) -> LinearLayout {
    let basis: Vec<u32> =
        (0..in_bits).map(|_| (rng.next() as u32) & ((1u64 << out_bits) - 1) as u32).collect();
    LinearLayout::new(&basis, out_bits).unwrap()
}

#[test]
fn the_operations_keep_their_laws_on_random_maps() {
    let mut rng = Rng(0xf2f2);
    for _ in 0..2000 {
        let (i, j, k) = (1 + rng.pick(10) as u32, 1 + rng.pick(10) as u32, 1 + rng.pick(10) as u32);
        let (a, b) = (random_map(&mut rng, j, k), random_map(&mut rng, i, j));
        let ab = a.compose(&b).unwrap();
        let xs: Vec<u32> = (0..64).map(|_| rng.next() as u32 & ((1 << i) - 1)).collect();
        for &x in &xs {
            assert_eq!(ab.apply(x), a.apply(b.apply(x)));
        }
        // The pseudo-inverse is a right inverse on the image.
        let p = a.pseudo_invert();
        for y in (0..64).map(|_| a.apply(rng.next() as u32)) {
            assert_eq!(a.apply(p.apply(y)), y, "{a:?}");
        }
        assert_eq!(a.rank() + a.free_mask().count_ones(), a.in_bits(), "{a:?}");
        assert_eq!(a.is_injective(), a.free_mask() == 0);
        // invert_and_compose: b's image in a square bijection's.
        let sq = loop {
            let m = random_map(&mut rng, j, j);
            if m.is_injective() {
                break m;
            }
        };
        let c = b.invert_and_compose(&sq).unwrap();
        assert_eq!(sq.compose(&c).unwrap(), b);
        assert_eq!(sq.invert().unwrap().compose(&sq).unwrap(), LinearLayout::identity(j));
        // direct_sum and divide_left undo each other.
        let sum = b.direct_sum(&a).unwrap();
        assert_eq!(sum.divide_left(&b).unwrap(), a);
        for &x in &xs {
            let hi = rng.next() as u32 & ((1 << j) - 1);
            assert_eq!(sum.apply(x | hi << i), b.apply(x) | a.apply(hi) << j);
        }
    }
}

#[test]
fn vector_width_is_the_run_of_identity_bits() {
    // 8 rows of 64 halves, indexed along rows: all 512 contiguous; under Sw<3,3,3> row 0 stays
    // whole (64) and row 1 starts elsewhere; indexed down columns, 1.
    let tile: DynLayout = "(_64,_8):(_1,_64)".parse().unwrap();
    let l = LinearLayout::from_layout(&tile).unwrap();
    assert_eq!(l.contiguous(), 512);
    let sw = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9).compose(&l).unwrap();
    assert_eq!(sw.contiguous(), 64);
    let cols: DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
    assert_eq!(LinearLayout::from_layout(&cols).unwrap().contiguous(), 1);
}

/// `layout eval`'s linear functions agree with the library and with the layouts they read: on
/// generated layouts, `crd2idx(i, linear(L))` is `crd2idx(i, L)` on every index, `to_layout`
/// gives the coalesced layout back, `composition` of two linear layouts is `compose`, and the
/// Triton operations print what the methods return.
#[test]
fn the_evaluators_linear_functions_agree_with_the_library() {
    use const_layout::eval::{Value, eval};
    let mut rng = Rng(0xe7a1);
    let mut checked = 0;
    for _ in 0..400 {
        let l = linear_layout(&mut rng);
        let Ok(f) = LinearLayout::from_layout(&l) else { continue };
        let lin = eval(&format!("linear({l})")).unwrap();
        assert_eq!(lin, Value::Linear(f), "{l}");
        for i in 0..l.size().value {
            // Values equal; whether static follows the index for a linear layout, the layout's
            // shape for a layout.
            let value = |v: Value| match v {
                Value::Int(x) => x.value,
                other => panic!("{other}"),
            };
            let a = value(eval(&format!("crd2idx({i}, {lin})")).unwrap());
            let b = value(eval(&format!("crd2idx({i}, {l})")).unwrap());
            assert_eq!(a, b, "{l} at {i}");
        }
        if let Ok(back) = f.to_layout() {
            assert_eq!(eval(&format!("to_layout({lin})")).unwrap(), Value::Layout(back), "{l}");
            assert_eq!(back.to_string(), const_layout::algebra::coalesce(&l).unwrap().to_string(), "{l}");
        }
        // Against a random square map on the same bits.
        let n = f.out_bits();
        let g = LinearLayout::new(&(0..n).map(|_| rng.below(1 << n) as u32).collect::<Vec<_>>(), n).unwrap();
        let gl = Value::Linear(g);
        assert_eq!(
            eval(&format!("composition({gl}, {lin})")).unwrap(),
            Value::Linear(g.compose(&f).unwrap())
        );
        assert_eq!(eval(&format!("pseudo_invert({gl})")).unwrap(), Value::Linear(g.pseudo_invert()));
        assert_eq!(eval(&format!("is_surjective({gl})")).unwrap(), Value::Bool(g.is_surjective()));
        assert_eq!(eval(&format!("free_mask({gl})")).unwrap().to_string(), format!("_{}", g.free_mask()));
        match g.invert() {
            Ok(inv) => assert_eq!(eval(&format!("invert({gl})")).unwrap(), Value::Linear(inv)),
            Err(e) => {
                assert!(eval(&format!("invert({gl})")).unwrap_err().to_string().contains(&e.to_string()))
            }
        }
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
}

/// Named dimensions change no function: on random maps split into random dimensions, `apply` per
/// dimension is the unnamed `apply` of the concatenated bits, composition is the unnamed
/// composition when the names meet (and an error naming the dimension when they do not), and a
/// bijection's inverse swaps the dimensions and undoes it.
#[test]
fn named_dimensions_are_the_unnamed_map_split_by_name() {
    use const_layout::linear::{Dim, NamedLinearLayout};
    const NAMES: [&str; 4] = ["register", "lane", "warp", "block"];
    const OUTS: [&str; 4] = ["dim0", "dim1", "dim2", "dim3"];
    let mut rng = Rng(0x4a3ed);
    // `bits` split into 1 to 4 dimensions of the given names.
    let split = |rng: &mut Rng, bits: u32, names: &[&'static str; 4]| -> Vec<Dim> {
        let k = 1 + rng.pick(4);
        let mut widths = vec![0u32; k];
        for _ in 0..bits {
            widths[rng.pick(k)] += 1;
        }
        widths.iter().enumerate().map(|(i, &w)| Dim::new(names[i], w as u8)).collect()
    };
    for _ in 0..500 {
        let (n, m) = (1 + rng.pick(12) as u32, 1 + rng.pick(12) as u32);
        let f = LinearLayout::new(&(0..n).map(|_| rng.below(1 << m) as u32).collect::<Vec<_>>(), m).unwrap();
        let (ins, mid) = (split(&mut rng, n, &NAMES), split(&mut rng, m, &OUTS));
        let named = NamedLinearLayout::new(f, &ins, &mid).unwrap();
        for x in 0..(1u32 << n).min(64) {
            let x = if n > 6 { rng.below(1 << n) as u32 } else { x };
            let (mut parts, mut shift) = (Vec::new(), 0);
            for d in &ins {
                parts.push((x >> shift) & ((1 << d.bits) - 1));
                shift += d.bits as u32;
            }
            let got = named.apply(&parts);
            let mut y = 0;
            let mut shift = 0;
            for (k, d) in mid.iter().enumerate() {
                y |= got[k] << shift;
                shift += d.bits as u32;
            }
            assert_eq!(y, f.apply(x));
        }
        // Compose with a map whose inputs are `mid`; a renamed one is refused at that dimension.
        let g = LinearLayout::new(&(0..m).map(|_| rng.below(1 << 5) as u32).collect::<Vec<_>>(), 5).unwrap();
        let outer = NamedLinearLayout::new(g, &mid, &[Dim::new("offset", 5)]).unwrap();
        let c = outer.compose(&named).unwrap();
        assert_eq!(*c.layout(), g.compose(&f).unwrap());
        assert_eq!((c.ins(), c.outs()[0].name), (&ins[..], "offset"));
        let mut renamed = mid.clone();
        let last = renamed.len() - 1;
        renamed[last].name = "other";
        let wrong = NamedLinearLayout::new(g, &renamed, &[Dim::new("offset", 5)]).unwrap();
        let e = wrong.compose(&named).unwrap_err().to_string();
        assert!(e.contains(&format!("the first dimension whose name or width differs is {last}")), "{e}");
        if let Ok(inv) = named.invert() {
            assert_eq!((inv.ins(), inv.outs()), (&mid[..], &ins[..]));
            assert_eq!(*inv.compose(&named).unwrap().layout(), LinearLayout::identity(n));
        }
    }
}
