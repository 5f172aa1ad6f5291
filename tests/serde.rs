//! serde (feature `serde`): runtime int tuples, layouts, swizzles, composed layouts, tilers and
//! linear layouts serialize as CuTe's text and round-trip exactly through JSON (a text format) and
//! bincode (a binary one); malformed input of any kind is an error carrying the parser's message,
//! never a panic. `cargo test --features serde --test serde`.
#![cfg(feature = "serde")]

#[path = "common/layouts.rs"]
mod layouts;
#[path = "common/rng.rs"]
mod rng;

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
