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

/// DECISIONS.md, "Products take the complement, not a complement": `blocked_product(_7:_8,
/// _7:_10)` is refused, and so are the other five products of the same operands. The product is
/// `(A, R o B)` with `R = complement(A, size(A) * cosize(B))`, here CuTe's own `(_8,8):(_1,_56)`
/// (the block's holes filled), so copy `j` of the block starts at `R(10 j)`: 0, 58, 116, 174,
/// 280, 338, 396, which no layout of 7 elements has (7 is prime, so `7:d`: equal steps, and the
/// fourth step is 106, not 58).
/// Whole copies of the block's range, `R' = 61:49` (61 = cosize(B) elements, as the product's
/// complement holds), also meet complement's postconditions P1-P3
/// and would give `((7,7)):((8,490))`, but that is another function than the product's (its
/// copies start at 0, 490, 980, ...), which decision 2 forbids.
#[test]
fn a_product_whose_complement_after_the_tiler_is_no_layout_is_refused() {
    use const_layout::eval::eval;
    let (a, b) = (lay("_7:_8"), lay("_7:_10"));
    let cotarget = a.size().value * b.cosize().value;
    let r = crate::complement::product_complement(&a, b.cosize().value, true);
    assert_eq!(r.to_string(), "(_8,_8):(_1,_56)");
    assert_eq!(crate::complement::broken(&a, &r, cotarget), None);
    let starts: Vec<isize> = (0..7).map(|j| r.offset(b.offset(j))).collect();
    assert_eq!(starts, [0, 58, 116, 174, 280, 338, 396]);
    // A layout of 7 (prime) elements is `7:d`: equal steps. These are not.
    assert!(starts.windows(2).any(|w| w[1] - w[0] != starts[1]));
    // Whole copies: P1-P3 hold too, but the copies start elsewhere.
    let copies = lay("_61:_49");
    assert_eq!(crate::complement::broken(&a, &copies, cotarget), None);
    let other: Vec<isize> = (0..7).map(|j| copies.offset(b.offset(j))).collect();
    assert_eq!(other, [0, 490, 980, 1470, 1960, 2450, 2940]);
    assert_ne!(other, starts);
    let why = "composition: the right layout's stride reaches mode 0 of the left layout as 10, which is not a \
               multiple of its extent 8";
    for f in [
        "logical_product",
        "zipped_product",
        "tiled_product",
        "flat_product",
        "blocked_product",
        "raked_product",
    ] {
        let expr = format!("{f}(_7:_8, _7:_10)");
        let e = eval(&expr).unwrap_err().to_string();
        assert!(e.contains(why), "{expr}: {e}");
    }
    // The same block with a tiler whose steps land on whole columns of the complement answers.
    assert_eq!(blocked_product(&a, &lay("_7:_16")).unwrap().to_string(), "((_7,_7)):((_8,_112))");
    assert_eq!(logical_product(&a, &Tiler::Layout(lay("_7:_16"))).unwrap().to_string(), "(_7,_7):(_8,_112)");
}
