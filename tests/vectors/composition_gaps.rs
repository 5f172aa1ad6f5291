//! Gaps the algebra once had: rank-1 products and divides where a one-mode tuple meets a
//! scalar, compositions with basis strides on the right, and compositions that exist as layouts
//! although the divisibility conditions fail.
//!
//! - `cute_vectors`: `tests/data/cute_composition_gaps.txt`, written by CuTe C++ through
//!   `tools/oracle/gen_composition_gaps.py` (format in its docstring). Every row carries the
//!   mathematical function (offsets), computed in the script by brute force. Where CuTe is right,
//!   ours is the same function (and CuTe's text for all-static operands); where CuTe is wrong,
//!   ours is an error or the function; where CuTe does not compile (`refused`), ours must be the
//!   function for the rank-1 products and divides (with the rank CuTe documents) unless the
//!   composition inside has no layout, and an error or the function otherwise.
//! - `random_compositions_are_exact_or_impossible`: random operands (ranks 1-3, depth <= 2,
//!   extents <= 8, strides <= 40, static and runtime leaves). Every answer is `A(B(i))` at every
//!   `i` and compatible with `B` (CuTe's contract: its shape refines `B`'s, each leaf of `B` a
//!   leaf or a tuple of that size, and at every hierarchical coordinate `c` of `B` it reads
//!   `A(B(c))`); every refusal is checked by brute force: no layout compatible with `B` is
//!   `A o B` (the additivity over `B`'s leaves fails, or a leaf's values are no layout's under
//!   any ordered factorization of its size).
//!
//! `cargo test --test vectors composition_gaps:: -- --nocapture` prints the counts.

use crate::{common, layouts, rng};
use const_layout::LayoutError;
use const_layout::algebra::composition;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::{EvalError, Value, eval};
use layouts::{Draw, offsets, random_layout, refines, value_at};
use rng::Rng;

const DATA: &str = include_str!("../data/cute_composition_gaps.txt");

/// `CuTe`'s static-operand rule, with basis paths (`_1@0@1`) read as part of their stride.
fn all_static(expr: &str) -> bool {
    let mut s = String::with_capacity(expr.len());
    let mut it = expr.chars().peekable();
    while let Some(c) = it.next() {
        if c == '@' {
            while it.peek().is_some_and(|d| d.is_ascii_digit()) {
                it.next();
            }
        } else {
            s.push(c);
        }
    }
    common::all_static(&s)
}

fn rank(l: &DynLayout) -> usize {
    if l.shape().is_int() { 1 } else { l.rank() }
}

/// The two operands of `f(A, B)` (top-level comma), as written.
fn operands(expr: &str) -> (&str, &str) {
    let inner = &expr[expr.find('(').unwrap() + 1..expr.len() - 1];
    let mut depth = 0i32;
    for (k, c) in inner.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => return (inner[..k].trim(), inner[k + 1..].trim()),
            _ => {}
        }
    }
    panic!("no second operand in {expr}")
}

fn layout_of(text: &str) -> DynLayout {
    match eval(text) {
        Ok(Value::Layout(l)) => l,
        other => panic!("{text} is not a layout: {other:?}"),
    }
}

/// The rank the operation promises, where it promises one.
fn promised_rank(expr: &str) -> Option<usize> {
    let (a, b) = operands(expr);
    if expr.starts_with("blocked_product") || expr.starts_with("raked_product") {
        return Some(rank(&layout_of(a)).max(rank(&layout_of(b))));
    }
    if expr.starts_with("tile_to_shape") {
        let t: DynIntTuple = b.parse().unwrap();
        return Some(if t.is_int() { 1 } else { t.rank() });
    }
    None
}

#[derive(Default, Debug)]
struct Tally {
    rows: usize,
    same: usize,
    same_text: usize,
    wrong_rejected: usize,
    wrong_corrected: usize,
    refused_answered: usize,
    refused_rejected: usize,
    capacity: usize,
    failures: Vec<String>,
}

fn check_row(
    group: &str,
    expr: &str,
    cute: &str,
    verdict: &str,
    truth: &[i128],
    t: &mut Tally,
) -> Result<(), String> {
    let ours = eval(expr);
    let text = match &ours {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    };
    let function = |v: &Value| -> Result<(), String> {
        let Value::Layout(l) = v else { return Err(format!("not a layout: {v}")) };
        if offsets(l) != truth {
            return Err(format!("ours {l} is another function"));
        }
        if let Some(r) = promised_rank(expr)
            && rank(l) != r
        {
            return Err(format!("ours {l} has rank {}, not {r}", rank(l)));
        }
        Ok(())
    };
    match (verdict, &ours) {
        ("ok", Ok(v)) => {
            function(v)?;
            t.same += 1;
            if all_static(expr) {
                if text != cute {
                    return Err(format!("ours {text}, CuTe's {cute}"));
                }
                t.same_text += 1;
            }
            Ok(())
        }
        // The 64 nodes of a runtime-structured tuple: CuTe's result may fit where the
        // intermediate `((tile),(rest))` of a divide's zipped/tiled/flat form does not (the
        // runtime extent-1 modes of a tile each add a mode to its complement).
        ("ok", Err(EvalError::Layout { error: LayoutError::TooLarge, .. })) => {
            t.capacity += 1;
            Ok(())
        }
        ("ok", Err(e)) => Err(format!("refused what CuTe answers correctly: {e}")),
        ("wrong", Ok(v)) => {
            function(v)?;
            t.wrong_corrected += 1;
            Ok(())
        }
        ("wrong", Err(_)) => {
            t.wrong_rejected += 1;
            Ok(())
        }
        ("refused", Ok(v)) => {
            function(v)?;
            t.refused_answered += 1;
            Ok(())
        }
        // A rank-1 case may still fail where its composition has no layout (proven impossible by
        // `random_compositions_are_exact_or_impossible`'s brute force for such compositions);
        // never for a structural reason such as the ranks of the zipped halves.
        (
            "refused",
            Err(EvalError::Layout { error: LayoutError::Inadmissible { op: "composition", .. }, .. }),
        ) if group == "rank1" => {
            t.refused_rejected += 1;
            Ok(())
        }
        ("refused", Err(e)) if group == "rank1" => Err(format!("refused a rank-1 case: {e}")),
        ("refused", Err(_)) => {
            t.refused_rejected += 1;
            Ok(())
        }
        _ => Err(format!("bad verdict {verdict}")),
    }
}

#[test]
fn cute_vectors() {
    let mut tallies: std::collections::BTreeMap<String, Tally> = Default::default();
    for (n, line) in DATA.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "line {} has {} fields", n + 1, f.len());
        let truth: Vec<i128> = f[4].split(',').map(|x| x.parse().unwrap()).collect();
        let t = tallies.entry(f[0].to_string()).or_default();
        t.rows += 1;
        if let Err(e) = check_row(f[0], f[1], f[2], f[3], &truth, t) {
            t.failures.push(format!("line {}: {}: {e}", n + 1, f[1]));
        }
    }
    let mut failed = 0;
    for (g, t) in &tallies {
        println!(
            "{g:6} rows {:5}  CuTe right: same function {:5} (same text {:5})  CuTe wrong: rejected {:4} \
             corrected {:4}  CuTe refuses: answered {:4} rejected {:4}  past 64 nodes {}  failures {}",
            t.rows,
            t.same,
            t.same_text,
            t.wrong_rejected,
            t.wrong_corrected,
            t.refused_answered,
            t.refused_rejected,
            t.capacity,
            t.failures.len()
        );
        for f in t.failures.iter().take(20) {
            println!("  {f}");
        }
        failed += t.failures.len();
    }
    for g in ["rank1", "basis", "fit"] {
        assert!(tallies.get(g).is_some_and(|t| t.rows >= 100), "too few {g} rows");
    }
    assert_eq!(failed, 0, "{failed} rows failed");
}

/// Whether some flat layout of `h.len()` elements has the values `h`: every ordered
/// factorization of the size into factors >= 2, strides read at the running products.
fn is_layout_function(h: &[i128]) -> bool {
    fn rec(h: &[i128], period: usize, base: &[(usize, i128)]) -> bool {
        let n = h.len();
        if period == n {
            return (0..n).all(|k| {
                let (mut x, mut v) = (k, 0i128);
                for &(e, d) in base {
                    v += (x % e) as i128 * d;
                    x /= e;
                }
                v == h[k]
            });
        }
        (2..=n / period).filter(|e| (n / period).is_multiple_of(*e)).any(|e| {
            let mut next = base.to_vec();
            next.push((e, h[period]));
            rec(h, period * e, &next)
        })
    }
    rec(h, 1, &[])
}

/// Whether some layout with top-level modes of sizes `sizes` has the values `values` (its
/// domain in colexicographic order). Such a layout is the sum of its modes, and its mode `m` has the
/// values along `m` with the other coordinates at 0: those must be a layout's, and add up.
fn layout_exists(values: &[i128], sizes: &[usize]) -> bool {
    let mut along = Vec::new();
    let mut period = 1;
    for &n in sizes {
        along.push((0..n).map(|k| values[k * period]).collect::<Vec<i128>>());
        period *= n;
    }
    if !along.iter().all(|h| is_layout_function(h)) {
        return false;
    }
    values.iter().enumerate().all(|(i, &v)| {
        let (mut rest, mut sum) = (i, 0i128);
        for (m, &n) in sizes.iter().enumerate() {
            sum += along[m][rest % n];
            rest /= n;
        }
        v == sum
    })
}

/// The sizes of `b`'s leaves, in order: a layout compatible with `b` (each leaf of `b` a leaf or
/// a tuple of that size) is, flattened by those groups, a layout with these top-level modes.
fn leaf_sizes(b: &DynLayout) -> Vec<usize> {
    b.shape().leaves().map(|s| s.value as usize).collect()
}

/// CuTe's contract for `r = composition(a, b)`: `r`'s shape refines `b`'s, and at every
/// hierarchical coordinate `c` of `b`'s shape `r` reads `want[i]`, `A(B(c))` for the index `i`
/// of `c`.
fn compatible(r: &DynLayout, b: &DynLayout, want: &[i128]) -> Result<(), String> {
    if !refines(r.shape(), b.shape()) {
        return Err(format!("the shape {} does not refine {}", r.shape(), b.shape()));
    }
    for (i, &w) in want.iter().enumerate() {
        let c = b.idx2crd(&DynIntTuple::int(DynInt::new_runtime(i as isize))).unwrap();
        let v = r.crd2idx(&c).map_err(|e| format!("coordinate {c} of {}: {e}", b.shape()))?;
        if v.value as i128 != w {
            return Err(format!("at coordinate {c} it reads {}, A(B(c)) is {w}", v.value));
        }
    }
    Ok(())
}

/// Whether some layout compatible with `b` is `c -> a(b(c))`.
fn some_layout_exists(a: &DynLayout, b: &DynLayout) -> bool {
    let values: Vec<i128> = offsets(b).into_iter().map(|x| value_at(a, x)).collect();
    layout_exists(&values, &leaf_sizes(b))
}

#[derive(Default)]
struct Counts {
    cases: usize,
    answered: usize,
    refused: usize,
}

/// Operands drawn as the random differential draws them: strides 0..=40, one leaf in six of extent 1.
const PLAIN: Draw = Draw { lo: 0, hi: 40, max_size: 512, one: 17, zero: 0 };
/// Many extent-1 and stride-0 leaves, which the checks must see through.
const DEGENERATE: Draw = Draw { lo: 0, hi: 40, max_size: 512, one: 35, zero: 25 };

fn random_compositions(seed: u64, n: usize, draw: &Draw) -> Counts {
    let mut rng = Rng(seed);
    let mut c = Counts::default();
    for _ in 0..n {
        let a = random_layout(&mut rng, draw);
        let b = random_layout(&mut rng, draw);
        c.cases += 1;
        match composition(&a, &b) {
            Ok(r) => {
                c.answered += 1;
                let want: Vec<i128> = offsets(&b).into_iter().map(|x| value_at(&a, x)).collect();
                assert_eq!(offsets(&r), want, "composition({a}, {b}) = {r} is another function");
                if let Err(e) = compatible(&r, &b, &want) {
                    panic!("composition({a}, {b}) = {r} is not compatible with {b}: {e}");
                }
            }
            Err(e) => {
                c.refused += 1;
                assert!(
                    !some_layout_exists(&a, &b),
                    "composition({a}, {b}) refused ({e}), but a layout compatible with its right operand exists"
                );
            }
        }
    }
    c
}

#[test]
fn random_compositions_are_exact_or_impossible() {
    for (name, seed, draw) in [
        ("plain", 0x9e37_79b9_7f4a_7c15, &PLAIN),
        ("extent-1 and stride-0 leaves", 0x5851_f42d_4c95_7f2d, &DEGENERATE),
    ] {
        let c = random_compositions(seed, 20_000, draw);
        println!(
            "random compositions ({name}): {} cases, {} answered, {} refused (each refusal brute-forced)",
            c.cases, c.answered, c.refused
        );
        assert!(c.answered > c.cases / 4 && c.refused > 0, "the generator lost its spread");
    }
}

/// Mode `path` of `a` (a scalar's mode 0 is itself).
fn sub_layout(a: &DynLayout, path: &[usize]) -> Option<DynLayout> {
    let mut l = *a;
    for &p in path {
        if l.shape().is_int() {
            if p != 0 {
                return None;
            }
            continue;
        }
        l = l.mode(p)?;
    }
    Some(l)
}

#[test]
fn random_basis_compositions_are_exact() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut answered, mut refused) = (0, 0);
    for _ in 0..2000 {
        let a = random_layout(&mut rng, &PLAIN);
        // The paths of a: top modes, and the modes of tuple modes, none a prefix of another.
        let mut paths: Vec<Vec<usize>> = Vec::new();
        for m in 0..rank(&a) {
            let sub = sub_layout(&a, &[m]).unwrap();
            if sub.shape().is_int() || rng.below(3) == 0 {
                paths.push(vec![m]);
            } else {
                paths.extend((0..sub.rank()).map(|j| vec![m, j]));
            }
        }
        // B: 1-4 leaves, each `e:v@path`, grouped as a scalar, a flat tuple or nested.
        let n = 1 + rng.below(4) as usize;
        let leaves: Vec<(usize, i128, Vec<usize>, bool)> = (0..n)
            .map(|_| {
                let p = paths[rng.below(paths.len() as u64) as usize].clone();
                (1 + rng.below(4) as usize, 1 + rng.below(3) as i128, p, rng.below(2) == 0)
            })
            .collect();
        let text = |(e, v, p, st): &(usize, i128, Vec<usize>, bool)| -> (String, String) {
            let u = if *st { "_" } else { "" };
            let at: String = p.iter().rev().map(|i| format!("@{i}")).collect();
            (format!("{u}{e}"), format!("{u}{v}{at}"))
        };
        let parts: Vec<(String, String)> = leaves.iter().map(text).collect();
        let (s, d) = if n == 1 {
            parts[0].clone()
        } else if n >= 3 && rng.below(2) == 0 {
            (
                format!(
                    "({},({}))",
                    parts[0].0,
                    parts[1..].iter().map(|p| p.0.clone()).collect::<Vec<_>>().join(",")
                ),
                format!(
                    "({},({}))",
                    parts[0].1,
                    parts[1..].iter().map(|p| p.1.clone()).collect::<Vec<_>>().join(",")
                ),
            )
        } else {
            (
                format!("({})", parts.iter().map(|p| p.0.clone()).collect::<Vec<_>>().join(",")),
                format!("({})", parts.iter().map(|p| p.1.clone()).collect::<Vec<_>>().join(",")),
            )
        };
        let Ok(b) = format!("{s}:{d}").parse::<DynLayout>() else { continue };
        // A(B(i)): each leaf adds c * v to its path's coordinate; A reads each path as a 1-D index.
        let size: usize = leaves.iter().map(|l| l.0).product();
        let want: Vec<i128> = (0..size)
            .map(|i| {
                let mut comp: Vec<(Vec<usize>, i128)> = Vec::new();
                let mut rest = i;
                for (k, (e, v, p, _)) in leaves.iter().enumerate() {
                    let c = if k + 1 == leaves.len() { rest } else { rest % e } as i128;
                    rest /= e;
                    match comp.iter_mut().find(|(q, _)| q == p) {
                        Some((_, x)) => *x += c * v,
                        None => comp.push((p.clone(), c * v)),
                    }
                }
                comp.iter().map(|(p, x)| value_at(&sub_layout(&a, p).unwrap(), *x)).sum()
            })
            .collect();
        if size > 1 << 14 {
            continue;
        }
        match composition(&a, &b) {
            Ok(r) => {
                answered += 1;
                assert!(!r.has_basis(), "composition({a}, {b}) = {r} has basis strides");
                assert_eq!(offsets(&r), want, "composition({a}, {b}) = {r} is another function");
                if let Err(e) = compatible(&r, &b, &want) {
                    panic!("composition({a}, {b}) = {r} is not compatible with {b}: {e}");
                }
            }
            Err(e) => {
                refused += 1;
                assert!(
                    matches!(e, LayoutError::Inadmissible { op: "composition", .. }),
                    "composition({a}, {b}): {e}"
                );
                assert!(
                    !layout_exists(&want, &leaf_sizes(&b)),
                    "composition({a}, {b}) refused ({e}), but a layout compatible with its right operand exists"
                );
            }
        }
    }
    println!("random basis compositions: {answered} answered, {refused} refused");
    assert!(answered > 1000, "only {answered} answered");
}

#[test]
fn past_the_bound_the_error_names_the_size() {
    let a: DynLayout = "(_6,_5):(_7,_31)".parse().unwrap();
    let b: DynLayout = "20000:9".parse().unwrap();
    let e = composition(&a, &b).unwrap_err().to_string();
    let bound = const_layout::algebra::BY_VALUE_LIMIT.to_string();
    assert!(e.contains("20000") && e.contains(&bound), "{e}");
    // Below the bound the same composition is found by value: 9 = 6 + 3 carries into mode 1 evenly.
    let small: DynLayout = "8:9".parse().unwrap();
    let r = composition(&a, &small).unwrap();
    assert!((0..8).all(|i| r.offset(i) == a.offset(9 * i)), "{r}");
}

#[test]
fn extent_1_modes_matter_only_past_the_left_layouts_end() {
    let l = |s: &str| s.parse::<DynLayout>().unwrap();
    let text = |a: &str, b: &str| composition(&l(a), &l(b)).map(|r| r.to_string());
    // Inside the domain (and between other modes) an extent-1 mode changes nothing.
    assert_eq!(text("(_7,_1):(_1,_1)", "_3:_3").unwrap(), "_3:_3");
    assert_eq!(text("(_7,_1,_2):(_1,_5,_7)", "_5:_3").unwrap(), "_5:_3");
    // A trailing one carries the left layout past its end, as CuTe 4.2 reads it (`coalesce_x`
    // keeps `(_7,_1):(_1,_1)` as `(_7,_2):(_1,_1)`): A(9) = 2 + 1 = 3, so `A o _5:_3` has the
    // values 0,3,6,3,6, no layout's (CuTe's static check refuses it too), and `A o _5:_7` is
    // CuTe's `_5:_1`, not `_5:_7`.
    let a = l("(_7,_1):(_1,_1)");
    assert_eq!(
        offsets(&l("_5:_3")).into_iter().map(|x| value_at(&a, x)).collect::<Vec<_>>(),
        [0, 3, 6, 3, 6]
    );
    assert!(text("(_7,_1):(_1,_1)", "_5:_3").is_err());
    assert_eq!(text("(_7,_1):(_1,_1)", "_5:_7").unwrap(), "_5:_1");
}

#[test]
fn a_fitted_composition_is_static_only_if_every_operand_integer_is() {
    // 9 is not a multiple of 6: the composition is fitted by value, and its strides depend on
    // the left layout's extents as much as on its strides.
    let b: DynLayout = "(_8,_1):(_9,_3)".parse().unwrap();
    for (a, all_static) in [
        ("(_6,_5):(_7,_31)", true),
        ("(6,5):(_7,_31)", false),
        ("(_6,5):(_7,_31)", false),
        ("(_6,_5):(7,_31)", false),
    ] {
        let a: DynLayout = a.parse().unwrap();
        let r = composition(&a, &b).unwrap();
        let want: Vec<i128> = offsets(&b).into_iter().map(|x| value_at(&a, x)).collect();
        assert_eq!(offsets(&r), want, "{a} o {b} = {r}");
        let flags: Vec<bool> = r.shape().leaves().chain(r.stride().leaves()).map(|v| v.is_static).collect();
        assert!(flags.iter().all(|&f| f == all_static), "{a} o {b} = {r}");
    }
}
