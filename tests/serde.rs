//! serde (feature `serde`): runtime int tuples, layouts, swizzles, composed layouts, tilers and
//! linear layouts serialize as CuTe's text and round-trip exactly through JSON (a text format) and
//! bincode (a binary one); malformed input of any kind is an error carrying the parser's message,
//! never a panic. `cargo test --features serde --test serde`.
#![cfg(feature = "serde")]

#[path = "common/layouts.rs"]
mod layouts;
#[path = "common/rng.rs"]
mod rng;

#[path = "serde/graph.rs"]
mod graph;
#[path = "common/graphs.rs"]
mod graphs;

use const_layout::algebra::Tiler;
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::linear::LinearLayout;
use const_layout::swizzle::{ComposedLayout, Swizzle};
use layouts::{Draw, random_layout};
use rng::Rng;
use serde::{Serialize, de::DeserializeOwned};

/// Through JSON (as the text itself, quoted) and bincode, back to the same value.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + std::fmt::Display>(v: &T) {
    let json = serde_json::to_string(v).unwrap();
    assert_eq!(json, serde_json::to_string(&v.to_string()).unwrap(), "JSON holds the text");
    assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), v, "{json}");
    let bin = bincode::serialize(v).unwrap();
    assert_eq!(&bincode::deserialize::<T>(&bin).unwrap(), v, "{v}");
}

#[test]
fn values_round_trip_as_cute_text() {
    let mut rng = Rng(0x5e2d);
    let draw = Draw { lo: -8, hi: 64, max_size: 1 << 20, one: 10, zero: 10 };
    for _ in 0..2000 {
        let l = random_layout(&mut rng, &draw);
        round_trip(&l);
        round_trip(l.shape());
        // A swizzle over it, where one fits.
        let (b, m, s) = (rng.range(0, 3) as u32, rng.range(0, 4) as u32, rng.range(1, 4) as i32);
        if let Ok(sw) = Swizzle::new(b, m, s) {
            round_trip(&sw);
            round_trip(&ComposedLayout::new(sw, l));
        }
        let tiler: Tiler =
            format!("<{}, {}>", random_layout(&mut rng, &draw), random_layout(&mut rng, &draw))
                .parse()
                .unwrap();
        round_trip(&tiler);
        let bits = rng.range(0, 32) as u32;
        let bases: Vec<u32> =
            (0..rng.range(0, 32)).map(|_| (rng.next() as u32) & ((1u64 << bits) - 1) as u32).collect();
        round_trip(&LinearLayout::new(&bases, bits).unwrap());
    }
}

#[test]
fn the_text_is_what_the_tool_prints() {
    let l: DynLayout = "(_8,(4,_2)):(_1,(_8,32))".parse().unwrap();
    assert_eq!(serde_json::to_string(&l).unwrap(), r#""(_8,(4,_2)):(_1,(_8,32))""#);
    let sw: ComposedLayout = serde_json::from_str(r#""Sw<3,3,3> o _0 o (_8,_64):(_64,_1)""#).unwrap();
    assert_eq!(sw.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
    // A file of a kernel's layouts, as a CuTe user writes them.
    #[derive(serde::Deserialize)]
    struct Config {
        smem: ComposedLayout,
        tile: DynIntTuple,
        copy: DynLayout,
    }
    let c: Config = serde_json::from_str(
        r#"{"smem": "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", "tile": "(_128,_64)", "copy": "(_32,_8):(_8,_1)"}"#,
    )
    .unwrap();
    assert_eq!(
        (c.smem.size().value, c.tile.to_string(), c.copy.cosize().value),
        (512, "(_128,_64)".into(), 256)
    );
}

#[test]
fn malformed_input_is_an_error_with_the_parsers_message() {
    for (text, want) in [
        (r#""(8,4):(1""#, "column"),
        (r#""(8,4):(1,2,3)""#, "column"),
        (r#""(0,4):(1,2)""#, "column"),
        (r#"17"#, "a layout in CuTe's notation"),
        (r#"["(8,4)"]"#, "a layout in CuTe's notation"),
    ] {
        let e = serde_json::from_str::<DynLayout>(text).unwrap_err().to_string();
        assert!(e.contains(want), "{text}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let e = serde_json::from_str::<Swizzle>(r#""(_8,_4):(_1,_8)""#).unwrap_err().to_string();
    assert!(e.contains("the text is not a swizzle"), "{e}");
    let e = serde_json::from_str::<LinearLayout>(r#""linear((8),2)""#).unwrap_err().to_string();
    assert!(e.contains("passes the output bits"), "{e}");
    // Random bytes and random text: errors, never a panic.
    let mut rng = Rng(0xbad);
    let alphabet = b"()_:,<>@0123456789-Swo linear ";
    for _ in 0..5000 {
        let n = rng.pick(40);
        let s: String = (0..n).map(|_| alphabet[rng.pick(alphabet.len())] as char).collect();
        let json = serde_json::to_string(&s).unwrap();
        let _ = serde_json::from_str::<DynLayout>(&json);
        let _ = serde_json::from_str::<DynIntTuple>(&json);
        let _ = serde_json::from_str::<ComposedLayout>(&json);
        let _ = serde_json::from_str::<LinearLayout>(&json);
        let bytes: Vec<u8> = (0..rng.pick(48)).map(|_| rng.next() as u8).collect();
        let _ = bincode::deserialize::<DynLayout>(&bytes);
        let _ = bincode::deserialize::<Tiler>(&bytes);
    }
}

/// Typed layouts (`Layout<S, D>`): the text of their `Display`, read back checked against the
/// type; a text of another nesting, another static value or a value outside an integer type is
/// an error naming the integer.
#[test]
fn typed_layouts_round_trip_and_are_checked_against_their_type() {
    use const_layout::{C, Layout, make_layout};
    type Mixed = Layout<((C<4>, u32), i64), ((C<1>, u32), isize)>;
    type Runtime = Layout<(usize, (usize, usize)), (isize, (isize, isize))>;
    let mut rng = Rng(0x7e9ed);
    for _ in 0..2000 {
        let (m, n) = (rng.range(1, 300) as u32, rng.range(1, 300) as i64);
        let a: Mixed = make_layout(((C::<4>, m), n), ((C::<1>, 4), rng.range(-9, 9999))).unwrap();
        round_trip(&a);
        let d = (rng.range(1, 9) as usize, rng.range(1, 9) as usize, rng.range(1, 9) as usize);
        let b: Runtime =
            make_layout((d.0, (d.1, d.2)), (rng.range(-50, 50), (rng.range(-50, 50), 1))).unwrap();
        round_trip(&b);
        // The same function from a runtime-structured layout, through the checked conversion.
        let dl: DynLayout = b.to_string().parse().unwrap();
        assert_eq!(Runtime::try_from(&dl).unwrap(), b);
    }
    // Every arity and depth the notation has: a scalar, a one-mode tuple, nesting three deep.
    type Scalar = Layout<usize, isize>;
    type OneMode = Layout<(C<4>,), (isize,)>;
    type Deep = Layout<((u32, (C<2>, u32)), C<3>), ((isize, (C<1>, isize)), isize)>;
    for _ in 0..500 {
        let n = rng.range(1, 99) as usize;
        round_trip(&make_layout(n, rng.range(-9, 9)).map(|l: Scalar| l).unwrap());
        round_trip(&make_layout((C::<4>,), (rng.range(-9, 9),)).map(|l: OneMode| l).unwrap());
        let (a, b) = (rng.range(1, 9) as u32, rng.range(1, 9) as u32);
        let d = (rng.range(-99, 99), rng.range(-99, 99), rng.range(-99, 99));
        round_trip(
            &make_layout(((a, (C::<2>, b)), C::<3>), ((d.0, (C::<1>, d.1)), d.2)).map(|l: Deep| l).unwrap(),
        );
    }
    for (text, want) in [
        (r#""((_4,8),5):((_1,4),2)""#, None),
        (
            r#""((_8,8),5):((_1,4),2)""#,
            Some("column 1: shape integer 0 is 8 where the type has the static _4"),
        ),
        (
            r#""((_4,8),5):((2,4),2)""#,
            Some("column 1: stride integer 0 is 2 where the type has the static _1"),
        ),
        (
            r#""((_4,5000000000),5):((_1,4),2)""#,
            Some("column 1: shape integer 1 is 5000000000, outside the type's integer type"),
        ),
        (r#""(_4,8,5):(_1,4,2)""#, Some("column 1: the shape nests differently from the type's")),
        (r#""((_4,8),0):((_1,4),2)""#, Some("column 1: shape integer 2 is 0: extents must be positive")),
        (r#""((_4,8),5):((_1,4)""#, Some("column 19: expected `,` or `)`, found the end of the input")),
        (r#"[4]"#, Some("a layout in CuTe's notation")),
    ] {
        match (serde_json::from_str::<Mixed>(text), want) {
            (Ok(l), None) => assert_eq!(l.to_string(), "((_4,8),5):((_1,4),2)"),
            (Err(e), Some(w)) => assert!(e.to_string().contains(w), "{text}: {e}"),
            (r, w) => panic!("{text}: {r:?}, wanted {w:?}"),
        }
    }
}

/// CK Tile descriptors and adaptors: their text in JSON and bincode, back to the same
/// descriptor; a text of another descriptor type is an error with its column.
#[test]
fn ck_descriptors_round_trip() {
    use const_layout::ck_tile::{
        Merge, Pad, PassThrough, Stage, make_naive_tensor_descriptor_packed,
        make_single_stage_tensor_adaptor, multi_index, transform_tensor_descriptor,
    };
    use const_layout::{C, sequence};
    let mut rng = Rng(0xc4);
    for _ in 0..300 {
        let (n, h) = (rng.range(1, 4) as usize, rng.range(1, 5) as usize);
        let (l, r) = (rng.range(0, 2) as usize, rng.range(0, 2) as usize);
        let d = transform_tensor_descriptor(
            transform_tensor_descriptor(
                make_naive_tensor_descriptor_packed((n, h, C::<2>)).unwrap(),
                (
                    Stage::new(PassThrough::new(n), sequence![0], sequence![0]),
                    Stage::new(Pad::new(h, l, r), sequence![1], sequence![1]),
                    Stage::new(PassThrough::new(C::<2>), sequence![2], sequence![2]),
                ),
            ),
            (Stage::new(Merge::new((n, h + l + r, C::<2>)).unwrap(), sequence![0, 1, 2], sequence![0]),),
        );
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, serde_json::to_string(&d.to_string()).unwrap());
        let same = |j: &str| json_like(&d, j);
        let back = same(&json).unwrap();
        let from_bin = bincode_like(&d, &bincode::serialize(&d).unwrap()).unwrap();
        for k in 0..d.lengths()[0] {
            let top = multi_index([k]);
            let want = (d.calculate_offset(&top), d.is_valid(&top));
            assert_eq!((back.calculate_offset(&top), back.is_valid(&top)), want, "{json}");
            assert_eq!((from_bin.calculate_offset(&top), from_bin.is_valid(&top)), want, "{json}");
        }
        let e = same(&json.replace("_2", "_3")).unwrap_err().to_string();
        assert!(e.starts_with("column") && e.contains("where the type has the static _2"), "{e}");
    }
    let a =
        make_single_stage_tensor_adaptor((Stage::new(PassThrough::new(4usize), sequence![0], sequence![0]),));
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, r#""tensor_adaptor{transforms: [pass_through(4): [1] -> [0]], bottom: [0], top: [1]}""#);
    assert_eq!(json_like(&a, &json).unwrap().top_lengths(), a.top_lengths());
    // Random text and bytes are errors, never a panic.
    let alphabet = b"tensor_adaptor{}[]:,()_->0123 ";
    for _ in 0..5000 {
        let s: String = (0..rng.pick(60)).map(|_| alphabet[rng.pick(alphabet.len())] as char).collect();
        assert!(json_like(&a, &serde_json::to_string(&s).unwrap()).is_err(), "{s}");
        let bytes: Vec<u8> = (0..rng.pick(48)).map(|_| rng.next() as u8).collect();
        let _ = bincode_like(&a, &bytes);
    }
}

/// `json` read as a value of `T`, the type of `_like` (descriptor types are long to name).
fn json_like<T: DeserializeOwned>(_like: &T, json: &str) -> serde_json::Result<T> {
    serde_json::from_str(json)
}

fn bincode_like<T: DeserializeOwned>(_like: &T, bytes: &[u8]) -> bincode::Result<T> {
    bincode::deserialize(bytes)
}
