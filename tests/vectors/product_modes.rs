//! `blocked_product` and `raked_product` of layouts whose single mode is a tuple `(x)`, which were
//! refused ("the zipped layout has rank 1 but the shape has rank 1").
//!
//! The rows CuTe C++ compiles were printed by cutlass 4.2.0.0's headers (`g++ -std=c++17`); CuTe
//! does not compile a one-mode tuple block against an integer tiler, and there the answer must be
//! the one for the integer block, whose only mode is the same layout.

use const_layout::algebra::{Tiler, blocked_product, logical_product, raked_product};
use const_layout::dyn_layout::DynLayout;

fn lay(s: &str) -> DynLayout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn offsets(l: &DynLayout) -> Vec<isize> {
    l.offsets().collect()
}

#[test]
fn cute_prints() {
    // (block, tiler, raked, CuTe's print)
    let rows = [
        ("_5:_1", "_6:_1", false, "((_5,_6)):((_1,_5))"),
        ("_5:_1", "_6:_2", true, "((_6,_5)):((_10,_1))"),
        ("((_2,_3)):((_3,_1))", "(_4):(_2)", false, "(((_2,_3),_4)):(((_3,_1),_12))"),
        ("((_2,_3)):((_3,_1))", "_4:_1", true, "((_4,((_2,_3)))):((_6,((_3,_1))))"),
        ("_2:_1", "(_3,_4):(_1,_3)", false, "((_2,_3),(_1,_4)):((_1,_2),(_0,_6))"),
    ];
    for (a, b, raked, want) in rows {
        let f = if raked { raked_product } else { blocked_product };
        let got = f(&lay(a), &lay(b)).unwrap_or_else(|e| panic!("{a} x {b}: {e}"));
        assert_eq!(got.to_string(), want, "{a} x {b} (raked: {raked})");
    }
}

/// Every one-mode tuple block `(s):(d)` and tiler `(t):(e)`, in either spelling, gives the
/// integer spelling's answer up to the one-mode tuple, and the same image as `logical_product`.
#[test]
fn one_mode_tuples_answer_as_integers() {
    let mut n = 0;
    for s in 1..=6 {
        for d in 1..=4 {
            for t in 1..=5 {
                for e in 1..=3 {
                    let ints = (lay(&format!("_{s}:_{d}")), lay(&format!("_{t}:_{e}")));
                    let tuples = (lay(&format!("(_{s}):(_{d})")), lay(&format!("(_{t}):(_{e})")));
                    let tiler: Tiler = format!("_{t}:_{e}").parse().unwrap();
                    let Ok(whole) = logical_product(&ints.0, &tiler) else { continue };
                    let mut image = offsets(&whole);
                    image.sort();
                    for f in [blocked_product, raked_product] {
                        let want =
                            f(&ints.0, &ints.1).unwrap_or_else(|e| panic!("{} x {}: {e}", ints.0, ints.1));
                        for (a, b) in [(&tuples.0, &ints.1), (&ints.0, &tuples.1), (&tuples.0, &tuples.1)] {
                            let got = f(a, b).unwrap_or_else(|e| panic!("{a} x {b}: {e}"));
                            assert_eq!(got.size(), want.size(), "{a} x {b}");
                            assert_eq!(offsets(&got), offsets(&want), "{a} x {b}");
                            let mut mine = offsets(&got);
                            mine.sort();
                            assert_eq!(mine, image, "{a} x {b}: not logical_product's image");
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(n > 500, "only {n} cases answered");
}
