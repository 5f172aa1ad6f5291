//! `right_inverse` and `left_inverse` answer whenever a layout with their properties
//! exists, checked by brute force on random and on all small layouts.
//!
//! - `right_inverse(A)` is a right inverse (`A(R(i)) == i`, `0 <= R(i) < size(A)` for `i <
//!   size(R)`) of the largest size: an exhaustive search over every flat layout `R` (every
//!   ordered choice of extents, every stride among the indices `A` maps to the running product)
//!   finds none larger.
//! - `left_inverse(A)` is a left inverse: `0 <= A(i) < size(L)`, and `A(L(A(i))) == A(i)` with
//!   `0 <= L(A(i)) < size(A)` (so `L(A(i)) == i` when `A` is injective; otherwise CuTe's
//!   quasi-inverse). Every refusal is confirmed: a negative offset, or no layout `L` at all,
//!   which is decided independently of the library: for every sequence of extents `L` can start
//!   with (running products up to the largest offset, the last mode extending), the equations
//!   `L(A(i)) == i` are linear in `L`'s strides, and an integer solution is sought by
//!   diagonalizing them (Smith's method). Where two indices of the moving modes share an offset,
//!   every choice of one index per offset is tried that way (up to [`QUASI_CHOICES`] choices;
//!   past that the refusal is counted as unchecked).
//!
//! `cargo test --test laws inverse_gaps:: -- --nocapture` prints the counts.

use crate::{layouts, rng};

use const_layout::LayoutError;
use const_layout::algebra::{Inadmissible, left_inverse, right_inverse};
use const_layout::dyn_layout::DynLayout;
use layouts::{Draw, leaf_pairs, offsets, random_layout};
use rng::Rng;

// ---- right_inverse ----------------------------------------------------------------------------

/// The size of the largest right inverse of `a`, by exhaustive search: every flat layout whose
/// prefix is a right inverse is extended by every stride (an index mapped to the running
/// product) and every extent.
fn largest_right_inverse(a: &[i128]) -> usize {
    fn walk(a: &[i128], modes: &mut Vec<(usize, usize)>, best: &mut usize) {
        let p: usize = modes.iter().map(|m| m.0).product();
        let r: Vec<usize> = (0..p)
            .map(|i| {
                let (mut rest, mut v) = (i, 0);
                for &(e, d) in modes.iter() {
                    v += (rest % e) * d;
                    rest /= e;
                }
                v
            })
            .collect();
        for x in (0..a.len()).filter(|&x| a[x] == p as i128) {
            for e in 2.. {
                let ok = (0..p).all(|i| {
                    let y = r[i] + (e - 1) * x;
                    y < a.len() && a[y] == (i + (e - 1) * p) as i128
                });
                if !ok {
                    break;
                }
                *best = (*best).max(p * e);
                modes.push((e, x));
                walk(a, modes, best);
                modes.pop();
            }
        }
    }
    let mut best = 1;
    walk(a, &mut Vec::new(), &mut best);
    best
}

fn check_right_inverse(a: &DynLayout) -> Result<(), String> {
    let ao = offsets(a);
    let r = right_inverse(a).map_err(|e| format!("right_inverse({a}) refused: {e}"))?;
    let ro = offsets(&r);
    for (i, &x) in ro.iter().enumerate() {
        if x < 0 || x as usize >= ao.len() || ao[x as usize] != i as i128 {
            return Err(format!("right_inverse({a}) = {r}: A(R({i})) != {i}"));
        }
    }
    let best = largest_right_inverse(&ao);
    if ro.len() != best {
        return Err(format!("right_inverse({a}) = {r} has {} elements, the largest has {best}", ro.len()));
    }
    Ok(())
}

// ---- left_inverse -----------------------------------------------------------------------------

/// Whether `A x == b` has an integer solution (rows of `A` with `b` appended): unimodular row
/// and column operations with the smallest pivot bring `A` to diagonal form `D`, `x = Q y`;
/// then `D y == P b` needs each diagonal entry to divide its row and zero rows to be zero.
fn integer_solvable(mut rows: Vec<Vec<i128>>, k: usize) -> bool {
    let m = rows.len();
    let mut r = 0;
    for c in 0..k {
        if r == m {
            break;
        }
        while let Some((i, j)) = (r..m)
            .flat_map(|i| (c..k).map(move |j| (i, j)))
            .filter(|&(i, j)| rows[i][j] != 0)
            .min_by_key(|&(i, j)| rows[i][j].abs())
        {
            rows.swap(r, i);
            for row in rows.iter_mut() {
                row.swap(c, j);
            }
            let pivot = rows[r][c];
            let mut clean = true;
            let top = rows[r].clone();
            for row in rows.iter_mut().skip(r + 1) {
                let q = row[c] / pivot;
                for (x, t) in row.iter_mut().zip(&top) {
                    *x -= q * t;
                }
                clean &= row[c] == 0;
            }
            for j in c + 1..k {
                let q = rows[r][j] / pivot;
                for row in rows.iter_mut() {
                    row[j] -= q * row[c];
                }
                clean &= rows[r][j] == 0;
            }
            if clean {
                break;
            }
        }
        if rows[r][c] != 0 {
            r += 1;
        }
    }
    (0..m).all(|i| if i < r { rows[i][k] % rows[i][i] == 0 } else { rows[i][k] == 0 })
}

/// Whether some layout `L` has `L(o) == t` for every `(o, t)` (offsets distinct, all `>= 0`,
/// `(0, 0)` among them), decided for every sequence of running products `1 = p0 < p1 < ... <= max
/// offset` (each dividing the next) of `L`'s modes, the last mode extending. A prefix is dropped
/// when the equations between offsets in one block `o / p` (whose coordinates from there on are
/// equal in every extension) have no integer solution.
fn left_inverse_exists(points: &[(i128, i128)]) -> bool {
    let max = points.iter().map(|p| p.0).max().unwrap_or(0);
    // The coordinates of `o` under the running products `periods` (the last mode extending).
    let coords = |o: i128, periods: &[i128]| -> Vec<i128> {
        let k = periods.len();
        (0..k)
            .map(
                |j| if j + 1 < k { (o / periods[j]) % (periods[j + 1] / periods[j]) } else { o / periods[j] },
            )
            .collect()
    };
    fn go(
        points: &[(i128, i128)],
        max: i128,
        periods: &mut Vec<i128>,
        coords: &dyn Fn(i128, &[i128]) -> Vec<i128>,
    ) -> bool {
        let k = periods.len();
        let rows: Vec<Vec<i128>> = points
            .iter()
            .map(|&(o, t)| {
                let mut row = coords(o, periods);
                row.push(t);
                row
            })
            .collect();
        if integer_solvable(rows, k) {
            return true;
        }
        let p = *periods.last().unwrap();
        (2..).take_while(|e| p * e <= max).any(|e| {
            // Offsets in one block o / (p * e) differ only in the first k coordinates.
            let next = p * e;
            let mut rows = Vec::new();
            let mut first: Option<(i128, i128)> = None;
            for &(o, t) in points {
                match first {
                    Some((f, ft)) if f / next == o / next => {
                        let (a, b) = (coords(o, periods), coords(f, periods));
                        let mut row: Vec<i128> = (0..k)
                            .map(|j| if j + 1 < k { a[j] - b[j] } else { (o / p) % e - (f / p) % e })
                            .collect();
                        row.push(t - ft);
                        rows.push(row);
                    }
                    _ => first = Some((o, t)),
                }
            }
            if !integer_solvable(rows, k) {
                return false;
            }
            periods.push(next);
            let found = go(points, max, periods, coords);
            periods.pop();
            found
        })
    }
    go(points, max, &mut vec![1], &coords)
}

/// What a left inverse of `A` must do: the offsets of `A` paired with the index each must map
/// back to (the coordinates of modes that do not move at 0), and whether an offset is negative or
/// two indices of the moving modes share one (then there is no left inverse).
struct LeftProblem {
    points: Vec<(i128, i128)>,
    negative: bool,
    collision: bool,
}

fn left_problem(a: &DynLayout) -> LeftProblem {
    let pairs = leaf_pairs(a);
    let mut seen = std::collections::HashMap::new();
    let (mut negative, mut collision) = (false, false);
    for (i, &o) in offsets(a).iter().enumerate() {
        let (mut rest, mut pre, mut t) = (i as i128, 1i128, 0i128);
        for &(s, d) in &pairs {
            if d != 0 {
                t += (rest % s) * pre;
            }
            rest /= s;
            pre *= s;
        }
        negative |= o < 0;
        collision |= seen.insert(o, t).is_some_and(|u| u != t);
    }
    let mut points: Vec<(i128, i128)> = seen.into_iter().collect();
    points.sort_unstable();
    LeftProblem { points, negative, collision }
}

/// Whether a layout that is not injective has CuTe's quasi-inverse (`L` maps each offset to an
/// index that reaches it; the indices over the whole domain, stride-0 modes included), decided
/// by trying every choice of one index per offset with [`left_inverse_exists`]; `None` where
/// there are more than `limit` choices.
fn quasi_inverse_exists(a: &DynLayout, limit: usize) -> Option<bool> {
    let mut pre: std::collections::BTreeMap<i128, Vec<i128>> = Default::default();
    for (i, &o) in offsets(a).iter().enumerate() {
        pre.entry(o).or_default().push(i as i128);
    }
    let choices: Vec<(i128, Vec<i128>)> = pre.into_iter().collect();
    let mut count = 1usize;
    for (_, t) in &choices {
        count = count.checked_mul(t.len()).filter(|&c| c <= limit)?;
    }
    // Offset 0 goes to index 0 in every layout L.
    let mut pick = vec![0usize; choices.len()];
    loop {
        let points: Vec<(i128, i128)> =
            choices.iter().zip(&pick).map(|((o, t), &k)| (*o, if *o == 0 { 0 } else { t[k] })).collect();
        if left_inverse_exists(&points) {
            return Some(true);
        }
        // The next choice, odometer style (offset 0's fixed).
        let mut j = 0;
        loop {
            if j == pick.len() {
                return Some(false);
            }
            if choices[j].0 != 0 && pick[j] + 1 < choices[j].1.len() {
                pick[j] += 1;
                break;
            }
            pick[j] = 0;
            j += 1;
        }
    }
}

/// The most choices of preimages [`quasi_inverse_exists`] tries for one layout.
const QUASI_CHOICES: usize = 64;

#[derive(Default, Debug)]
struct LeftCounts {
    answered: usize,
    answered_quasi: usize,
    refused_collision: usize,
    /// Refused as colliding with more preimage choices than are tried here.
    refused_collision_unchecked: usize,
    /// Refused past the quasi-inverse search's step bound.
    refused_effort: usize,
    refused_negative: usize,
    refused_none: usize,
}

fn check_left_inverse(a: &DynLayout, c: &mut LeftCounts) -> Result<(), String> {
    let ao = offsets(a);
    match left_inverse(a) {
        Ok(l) => {
            let lo = offsets(&l);
            for (i, &o) in ao.iter().enumerate() {
                let back = if o >= 0 && (o as usize) < lo.len() { Some(lo[o as usize]) } else { None };
                match back {
                    Some(x) if x >= 0 && (x as usize) < ao.len() && ao[x as usize] == o => {}
                    _ => return Err(format!("left_inverse({a}) = {l}: A(L(A({i}))) != A({i}) = {o}")),
                }
            }
            c.answered += 1;
            if left_problem(a).collision {
                c.answered_quasi += 1;
            }
            Ok(())
        }
        Err(LayoutError::Inadmissible { op: "left_inverse", why }) => {
            let p = left_problem(a);
            match why {
                Inadmissible::NegativeStride { .. } if p.negative => c.refused_negative += 1,
                Inadmissible::Collision { .. } if p.collision => match quasi_inverse_exists(a, QUASI_CHOICES)
                {
                    Some(false) => c.refused_collision += 1,
                    None => c.refused_collision_unchecked += 1,
                    Some(true) => {
                        return Err(format!("left_inverse({a}) refused ({why}), but a quasi-inverse exists"));
                    }
                },
                Inadmissible::SearchEffort { .. } if p.collision => c.refused_effort += 1,
                Inadmissible::NoLeftInverse { .. } | Inadmissible::NotNested { .. }
                    if !p.negative && !p.collision && !left_inverse_exists(&p.points) =>
                {
                    c.refused_none += 1
                }
                _ => return Err(format!("left_inverse({a}) refused ({why}), but the brute force disagrees")),
            }
            Ok(())
        }
        Err(e) => Err(format!("left_inverse({a}): {e}")),
    }
}

// ---- tests ------------------------------------------------------------------------------------

const DRAWS: [(&str, Draw); 3] = [
    ("strides 0..=40", Draw { lo: 0, hi: 40, max_size: 64, one: 17, zero: 0 }),
    ("strides -6..=12", Draw { lo: -6, hi: 12, max_size: 64, one: 17, zero: 5 }),
    ("extent-1 and stride-0 leaves", Draw { lo: 0, hi: 16, max_size: 64, one: 35, zero: 25 }),
];

#[test]
fn random_right_inverses_are_the_largest() {
    for (k, (name, draw)) in DRAWS.iter().enumerate() {
        let mut rng = Rng(0x1234_5678 + k as u64);
        let mut failures = Vec::new();
        let mut cases = 0;
        for _ in 0..3000 {
            let a = random_layout(&mut rng, draw);
            cases += 1;
            if let Err(e) = check_right_inverse(&a) {
                failures.push(e);
            }
        }
        println!("right_inverse ({name}): {cases} cases, {} failures", failures.len());
        assert!(failures.is_empty(), "{}", failures[..failures.len().min(10)].join("\n"));
    }
}

#[test]
fn random_left_inverses_exist_or_are_impossible() {
    for (k, (name, draw)) in DRAWS.iter().enumerate() {
        let mut rng = Rng(0x8765_4321 + k as u64);
        let mut c = LeftCounts::default();
        let mut failures = Vec::new();
        for _ in 0..3000 {
            let a = random_layout(&mut rng, draw);
            if a.cosize().value > 200 {
                continue;
            }
            if let Err(e) = check_left_inverse(&a, &mut c) {
                failures.push(e);
            }
        }
        println!("left_inverse ({name}): {c:?}, {} failures", failures.len());
        assert!(failures.is_empty(), "{}", failures[..failures.len().min(10)].join("\n"));
        assert!(c.answered > 500, "the generator lost its spread: {c:?}");
    }
}

/// Every flat layout of rank 2 and 3 with extents 2..=4 (rank 3: 2..=3) and strides 1..=12
/// (rank 3: 1..=8): each answer is a left inverse, each refusal has none.
#[test]
fn all_small_left_inverses_exist_or_are_impossible() {
    let mut c = LeftCounts::default();
    let mut failures = Vec::new();
    let mut run = |text: String| {
        let a: DynLayout = text.parse().unwrap();
        if let Err(e) = check_left_inverse(&a, &mut c) {
            failures.push(e);
        }
    };
    for s0 in 2..=4 {
        for s1 in 2..=4 {
            for d0 in 1..=12 {
                for d1 in 1..=12 {
                    run(format!("({s0},{s1}):({d0},{d1})"));
                }
            }
        }
    }
    for s in 0..8 {
        let (s0, s1, s2) = (2 + (s & 1), 2 + ((s >> 1) & 1), 2 + ((s >> 2) & 1));
        for d in 0..8 * 8 * 8 {
            let (d0, d1, d2) = (1 + d % 8, 1 + (d / 8) % 8, 1 + d / 64);
            run(format!("({s0},{s1},{s2}):({d0},{d1},{d2})"));
        }
    }
    println!("all small left inverses: {c:?}, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(10)].join("\n"));
    assert!(c.refused_none > 0 && c.answered > 0);
    assert!(c.answered_quasi > 0 && c.refused_collision > 0 && c.refused_effort == 0);
}

#[test]
fn brief_examples() {
    let l = |s: &str| s.parse::<DynLayout>().unwrap();
    let text = |r: Result<DynLayout, LayoutError>| r.map(|x| x.to_string()).unwrap_or_else(|e| e.to_string());
    // CuTe gives _1:_0 for runtime strides and _3:_1 for this static overlap.
    assert_eq!(text(right_inverse(&l("(2,4):(1,2)"))), "(2,4):(1,2)");
    assert_eq!(text(right_inverse(&l("4:1"))), "4:1");
    // Found by value through a runtime stride: runtime, although the extents are static.
    assert_eq!(text(right_inverse(&l("(_4,_2):(_1,4)"))), "8:1");
    assert_eq!(text(right_inverse(&l("(_3,_2):(_1,_2)"))), "(_2,_2):(_1,_3)");
    // CuTe's answers where they are the largest, with CuTe's text.
    assert_eq!(text(right_inverse(&l("(_4,_2):(_2,_1)"))), "(_2,_4):(_4,_1)");
    assert_eq!(text(right_inverse(&l("(_4,_8):(_1,_0)"))), "_4:_1");
    // Left inverses where the strides do not nest.
    assert_eq!(text(left_inverse(&l("(_4,_2):(_1,_10)"))), "(_10,_2):(_1,_4)");
    assert_eq!(text(left_inverse(&l("(2,2):(2,3)"))), "(2,3):(1,1)");
    // Quasi-inverses of layouts whose moving modes collide (CuTe's postcondition
    // A(L(A(i))) == A(i)), and a proven refusal.
    assert_eq!(text(left_inverse(&l("(2,2):(1,1)"))), "(2,2):(1,3)");
    assert_eq!(text(left_inverse(&l("(5,7):(4,4)"))), "(2,2,2,2,3):(0,0,1,2,16)");
    assert_eq!(text(left_inverse(&l("(_2,_2,_2):(_1,_1,_1)"))), "(_2,_2):(_1,_6)");
    assert_eq!(
        text(left_inverse(&l("(5,3):(2,3)"))),
        "left_inverse: indices 3 and 10 both map to offset 6, and no layout maps each offset to an \
         index that reaches it"
    );
    // Past the bound of the search, the error names it.
    assert_eq!(
        text(left_inverse(&l("(200,200):(1,150)"))),
        "left_inverse: the modes do not nest, and their 30050 offsets are more than the 16384 up to \
         which a left inverse is searched for by value"
    );
    assert_eq!(
        text(left_inverse(&l("(3,3):(3,2)"))),
        "left_inverse: no layout of 11 or more elements maps every offset of the layout back to its index"
    );
}

/// The searches are `const fn`s: the generic static path evaluates them in constants, and
/// `layout!` at expansion time.
#[test]
fn static_paths_search_too() {
    use const_layout::algebra::computed;
    use const_layout::{layout, layout_type};
    let left = computed::left_inverse(<layout_type!((2,2):(2,3))>::default());
    assert_eq!(left.to_string(), "(_2,_3):(_1,_1)");
    let right = computed::right_inverse(<layout_type!((3,2):(1,2))>::default());
    assert_eq!(right.to_string(), "(_2,_2):(_1,_3)");
    let left = layout!(left_inverse((4,2):(1,10)));
    assert_eq!(left.to_string(), "(_10,_2):(_1,_4)");
    let right = layout!(right_inverse((3,2):(1,2)));
    assert_eq!(right.to_string(), "(_2,_2):(_1,_3)");
}
