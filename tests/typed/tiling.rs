//! The typed runtime tiling (`algebra::tiling`) against the runtime-structured algebra
//! (`algebra::logical_divide` / `zipped_divide` / `local_tile`, itself tested against CuTe): on
//! generated layouts and tilers, static, runtime and mixed, both print the same layout (CuTe's
//! static-ness included) and the same tile offset; and the typed path's errors.

use const_layout::algebra::tiling::{local_tile, logical_divide, zipped_divide};
use const_layout::dyn_layout::DynLayout;
use const_layout::eval::eval;
use const_layout::{C, LayoutError, make_layout};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(0x7111), failure_persistence: None, ..Config::default() }
}

fn runtime(expr: &str) -> String {
    eval(expr).map(|v| v.to_string()).unwrap_or_else(|e| format!("error: {e}"))
}

/// Our typed result (its text and offsets) against the runtime algebra's text. The same
/// structure and values (static marks aside: the typed path is static only where every input is,
/// decision 3), except that CuTe gives a mode of extent 1 the stride 0 by value; so where the
/// result has an extent-1 mode, the same shape and the same offset at every index.
fn same(ours: String, offsets: Vec<isize>, cute: &str) -> Result<(), String> {
    let plain = |t: &str| t.replace('_', "");
    let (ours, cute) = (plain(&ours), plain(cute));
    let (ours_layout, cute_layout) = (ours.rsplit(" + ").next().unwrap(), cute.rsplit(" + ").next().unwrap());
    let has_unit =
        ours_layout.split(':').next().unwrap().split(|c: char| !c.is_ascii_digit()).any(|x| x == "1");
    if !has_unit {
        return if ours == cute { Ok(()) } else { Err(format!("ours {ours}, runtime algebra {cute}")) };
    }
    let theirs: DynLayout = cute_layout.parse().map_err(|e| format!("{cute}: {e:?}"))?;
    let their_offsets: Vec<isize> = theirs.offsets().collect();
    let shape = |t: &str| t.split(':').next().unwrap().to_string();
    let offset = |t: &str| t.split(" + ").next().filter(|_| t.contains(" + ")).map(str::to_string);
    if shape(ours_layout) == shape(cute_layout) && offsets == their_offsets && offset(&ours) == offset(&cute)
    {
        Ok(())
    } else {
        Err(format!("ours {ours}, runtime algebra {cute}"))
    }
}

/// Checks the three operations of one typed layout and tiler against the runtime algebra, and
/// the given tile coordinates.
macro_rules! agree {
    ($a:expr, $t:expr, $tiles:expr) => {{
        let (a, t) = ($a, $t);
        let text = a.to_string();
        let tiler = const_layout::int_tuple::IntTuple::display(&t).to_string();
        let l = logical_divide(&a, t).expect("divides");
        let r = runtime(&format!("logical_divide({text}, {tiler})"));
        prop_assert_eq!(
            same(l.to_string(), l.iter().collect(), &r),
            Ok(()),
            "logical_divide({}, {})",
            text,
            tiler
        );
        let z = zipped_divide(&a, t).expect("divides");
        let r = runtime(&format!("zipped_divide({text}, {tiler})"));
        prop_assert_eq!(
            same(z.to_string(), z.iter().collect(), &r),
            Ok(()),
            "zipped_divide({}, {})",
            text,
            tiler
        );
        for c in $tiles {
            let (tile, offset) = local_tile(&a, t, c).expect("a tile inside");
            let coord = const_layout::int_tuple::IntTuple::display(&c).to_string();
            let r = runtime(&format!("local_tile({text}, {tiler}, {coord})"));
            prop_assert_eq!(
                same(format!("{offset} + {tile}"), tile.iter().collect(), &r),
                Ok(()),
                "local_tile({}, {}, {})",
                text,
                tiler,
                coord
            );
        }
    }};
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn rank_two(
        m in 1usize..=70, n in 1usize..=70, s0 in -9isize..=9, ld in 70isize..=90,
        t0 in 1usize..=12, t1 in 1usize..=12,
    ) {
        let a = make_layout((m, n), (s0, ld)).unwrap();
        let tiles = |a0: usize, a1: usize| {
            let (q0, q1) = (m.div_ceil(a0), n.div_ceil(a1));
            vec![(0usize, 0usize), (q0 - 1, q1 - 1), (q0 / 2, q1 - 1)]
        };
        agree!(a, (t0, t1), tiles(t0, t1));
        agree!(a, (C::<4>, C::<8>), tiles(4, 8));
        agree!(a, (C::<16>, t1), tiles(16, t1));
        let b = make_layout((m, n), (C::<1>, ld)).unwrap();
        agree!(b, (C::<4>, t1), tiles(4, t1));
        agree!(b, (t0, C::<1>), tiles(t0, 1));
    }

    #[test]
    fn rank_one_and_three(
        m in 1usize..=40, k in 1usize..=5, d in -5isize..=5,
        t0 in 1usize..=9, t2 in 1usize..=3,
    ) {
        let a = make_layout(m, d).unwrap();
        agree!(a, t0, [0usize, m.div_ceil(t0) - 1]);
        agree!(a, C::<3>, [0usize, m.div_ceil(3) - 1]);
        let b = make_layout((m, C::<6>, k), (C::<1>, 64isize, 6 * 64isize)).unwrap();
        agree!(b, (t0, C::<4>, t2), [(0usize, 0usize, 0usize), (m.div_ceil(t0) - 1, 1, k.div_ceil(t2) - 1)]);
    }
}

#[test]
fn errors() {
    let a = make_layout((10usize, 8usize), (1isize, 10isize)).unwrap();
    assert_eq!(
        logical_divide(&a, (0usize, 2usize)).unwrap_err(),
        LayoutError::NonPositiveExtent { leaf: 1, value: 0 }
    );
    assert_eq!(
        zipped_divide(&a, (2usize, 0usize)).unwrap_err(),
        LayoutError::NonPositiveExtent { leaf: 1, value: 0 }
    );
    assert_eq!(
        local_tile(&a, (C::<4>, 2usize), (0usize, 4usize)).unwrap_err(),
        LayoutError::CoordinateOutOfRange { leaf: 1, value: 4, extent: 4 }
    );
    // A tile whose stride does not fit the stride's type.
    let narrow = make_layout((4i32, 2i32), (1i32, 1i32 << 28)).unwrap();
    assert_eq!(
        zipped_divide(&narrow, (C::<2>, 8i32)).unwrap_err(),
        LayoutError::TypeTooSmall { what: "stride", value: 1 << 31 }
    );
}

/// Where the tiles divide, the divided layouts are built without checking every integer again
/// (they have the layout's size and cosize): each must be exactly what `Layout::try_new` makes of
/// the same integers, errors included, here at the edges of the result's integer types (a result
/// whose `i32` size or cosize does not fit, whose `T*d` does not fit its stride type) and inside.
#[test]
fn divided_layouts_are_checked_layouts() {
    use const_layout::Layout;
    use const_layout::algebra::tiling::ShapeTiler;
    macro_rules! same_as_checked {
        ($a:expr, $t:expr) => {{
            let (a, t) = ($a, $t);
            let logical = t.logical(&a.shape(), &a.stride()).and_then(|(s, d)| Layout::try_new(s, d));
            assert_eq!(logical_divide(&a, t), logical, "logical_divide({a}, {t:?})");
            let zipped = t.zipped(&a.shape(), &a.stride()).and_then(|(s, d)| Layout::try_new(s, d));
            assert_eq!(zipped_divide(&a, t), zipped, "zipped_divide({a}, {t:?})");
        }};
    }
    let mut errors = 0;
    for k in [1usize, 2, 3, 4000, 30000, 40000, 65535, 65536] {
        for (s0, d1) in [(65536usize, 65536isize), (2, 100_000), (4, 1 << 29), (2, -(1 << 30))] {
            let a = make_layout((s0, k), (1isize, d1)).unwrap();
            same_as_checked!(a, (s0 as i32, 1i32));
            same_as_checked!(a, (2i32, C::<1>));
            same_as_checked!(a, (C::<2>, k as i32));
            same_as_checked!(a, (2u32, k as u32));
            let b = make_layout((C::<2>, k), (C::<1>, d1 as i64)).unwrap();
            same_as_checked!(b, (C::<2>, k as i32));
            same_as_checked!(b, (1i32, 1i32));
            errors += [
                logical_divide(&a, (s0 as i32, 1i32)).is_err(),
                logical_divide(&a, (C::<2>, k as i32)).is_err(),
                zipped_divide(&b, (1i32, 1i32)).is_err(),
            ]
            .iter()
            .filter(|&&e| e)
            .count();
        }
    }
    assert!(errors > 10, "{errors} errors: the cases miss the type limits");
}
