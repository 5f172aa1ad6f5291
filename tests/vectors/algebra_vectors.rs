//! Differential tests of the layout algebra against CuTe C++.
//!
//! The rows in `tests/data/cute_algebra_<family>.txt` were produced by the real CuTe (cutlass
//! 4.2.0.0) with `tools/oracle/gen_algebra_vectors.py` (format and verdicts: `tools/oracle/README.md`,
//! "Algebra vectors"). A row is one call in `eval::eval` syntax, CuTe's printed result, and a
//! verdict computed by brute force from the operation's definition:
//!
//! - `ok` / `unchecked`: ours must be the same function as CuTe's (same size, same rank, the same
//!   offset at every index), and where every operand is static it must print exactly as CuTe's
//!   (static result structure, Decision 3). Integers: the same value (and static flag).
//! - `wrong`: CuTe's result is not the mathematical one (an inadmissible input, Decision 2). Ours
//!   must be an error, or the mathematical result, whose offsets the row carries. A `-` instead of
//!   offsets means there is no single right answer: the inverse family is then checked by its
//!   defining property, every other family must reject the input.
//! - The families built on `complement` (complement, divide, product, tile_to_shape) are judged by
//!   complement's postconditions (core/src/algebra/complement.rs): CuTe is right where its complement
//!   satisfies them (and, for the others, its result is the function built from it). Where CuTe is
//!   wrong, ours must be the row's offsets, which the script computes from const_layout's
//!   complement (a complement is also checked against the postconditions by brute force here), or
//!   one of the documented refusals: a negative stride, and for the others a composition that is
//!   no layout.
//!
//! `cargo test --test vectors algebra_vectors:: -- --nocapture` prints the counts per family.

use crate::{common, complement as complement_pc};
use common::all_static;
use const_layout::LayoutError;
use const_layout::algebra::Inadmissible;
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::eval::{EvalError, Value, eval};

/// Failures printed per family (all are counted).
const MAX_SHOWN: usize = 20;
/// Results larger than this are not expanded (a wrong answer can be huge).
const MAX_EXPANDED: isize = 1 << 20;

/// A result seen as a function of the index.
struct Func {
    offsets: Vec<isize>,
    rank: usize,
    text: String,
}

enum Res {
    Func(Func),
    Int { value: isize, is_static: bool },
}

/// `L(i)` for `i` in `[0, size)` from the flattened (extent, stride) pairs, first mode fastest.
fn offsets_of(pairs: &[(isize, isize)]) -> Result<Vec<isize>, String> {
    let mut n: isize = 1;
    for &(s, _) in pairs {
        if s < 0 {
            return Err(format!("negative extent {s}"));
        }
        n = n.saturating_mul(s);
    }
    if n > MAX_EXPANDED {
        return Err(format!("size {n} is too large to compare"));
    }
    let mut out = Vec::with_capacity(n as usize);
    out.push(0);
    for &(s, d) in pairs {
        if s == 0 {
            out.clear();
            break;
        }
        let len = out.len();
        for j in 1..s {
            out.extend_from_within(..len);
            let start = out.len() - len;
            for v in &mut out[start..] {
                *v += j * d;
            }
        }
    }
    Ok(out)
}

fn layout_offsets(l: &DynLayout) -> Result<Vec<isize>, String> {
    let pairs: Vec<(isize, isize)> =
        l.shape().leaves().zip(l.stride().leaves()).map(|(s, d)| (s.value, d.value)).collect();
    offsets_of(&pairs)
}

/// CuTe's `Swizzle<b,m,s>`: xor the `b` bits at `m + max(s,0)` into the bits `s` lower.
fn apply_swizzle(b: isize, m: isize, s: isize, x: isize) -> isize {
    let yyy = ((1isize << b) - 1) << (m + s.max(0));
    let t = x & yyy;
    x ^ if s >= 0 { t >> s } else { t << -s }
}

/// `_4` / `4` -> (4, static?).
fn parse_int(t: &str) -> Option<(isize, bool)> {
    match t.strip_prefix('_') {
        Some(d) => d.parse().ok().map(|v| (v, true)),
        None => t.parse().ok().map(|v| (v, false)),
    }
}

/// CuTe's print of a composed layout: `Sw<3,4,3> o _0 o (_8,_8):(_8,_1)`.
fn parse_composed(t: &str) -> Option<([isize; 3], isize, &str)> {
    let rest = t.strip_prefix("Sw<")?;
    let (params, rest) = rest.split_once("> o ")?;
    let mut p = [0isize; 3];
    let mut it = params.split(',');
    for v in p.iter_mut() {
        *v = it.next()?.parse().ok()?;
    }
    let (off, lay) = rest.split_once(" o ")?;
    Some((p, parse_int(off)?.0, lay))
}

fn cute_result(text: &str) -> Result<Res, String> {
    if let Some(([b, m, s], off, lay)) = parse_composed(text) {
        let l: DynLayout = lay.parse().map_err(|e| format!("cannot parse CuTe's layout {lay}: {e}"))?;
        let offsets = layout_offsets(&l)?.into_iter().map(|x| apply_swizzle(b, m, s, off + x)).collect();
        return Ok(Res::Func(Func { offsets, rank: l.rank(), text: text.to_string() }));
    }
    if text.contains(':') {
        let l: DynLayout = text.parse().map_err(|e| format!("cannot parse CuTe's result: {e}"))?;
        return Ok(Res::Func(Func { offsets: layout_offsets(&l)?, rank: l.rank(), text: text.to_string() }));
    }
    let (value, is_static) = parse_int(text).ok_or_else(|| format!("cannot parse CuTe's result {text}"))?;
    Ok(Res::Int { value, is_static })
}

fn our_result(v: &Value) -> Result<Res, String> {
    match v {
        Value::Layout(l) => {
            Ok(Res::Func(Func { offsets: layout_offsets(l)?, rank: l.rank(), text: l.to_string() }))
        }
        Value::Composed(c) => {
            let n = c.size().value;
            if !(0..=MAX_EXPANDED).contains(&n) {
                return Err(format!("size {n} is out of range"));
            }
            Ok(Res::Func(Func {
                offsets: (0..n).map(|i| c.offset(i)).collect(),
                rank: c.rank(),
                text: c.to_string(),
            }))
        }
        Value::Int(i) => Ok(Res::Int { value: i.value, is_static: i.is_static }),
        other => Err(format!("unexpected kind of value {other}")),
    }
}

/// Families whose result rank is part of the contract (the rank of the right operand or tiler,
/// of the operand, or of the chosen modes). For the others (coalesce, filter, complement, the
/// inverses, nullspace) a runtime result may have any structure (DECISIONS.md decision 3): only the
/// function and the size must agree; static results are checked by text.
const RANK_CONTRACT: &[&str] =
    &["composition", "divide", "product", "modes", "cast", "tile_to_shape", "swizzle"];

/// Whether this row's result rank is a contract. `tiled_` and `flat_` forms unpack the rest mode,
/// whose structure is free for runtime results, so their rank is not.
fn rank_contract(family: &str, expr: &str) -> bool {
    RANK_CONTRACT.contains(&family) && !expr.starts_with("tiled_") && !expr.starts_with("flat_")
}

/// `ok` rows: ours must be CuTe's function (and CuTe's text where every operand is static).
fn agree(ours: &Res, cute: &Res, statics: bool, rank_contract: bool) -> Result<(), String> {
    match (ours, cute) {
        (Res::Func(a), Res::Func(b)) => {
            if a.offsets.len() != b.offsets.len() {
                return Err(format!("size {} instead of {}", a.offsets.len(), b.offsets.len()));
            }
            if rank_contract && a.rank != b.rank {
                return Err(format!("rank {} instead of {}", a.rank, b.rank));
            }
            if let Some(i) = a.offsets.iter().zip(&b.offsets).position(|(x, y)| x != y) {
                return Err(format!("offset {} at index {i} instead of {}", a.offsets[i], b.offsets[i]));
            }
            if statics && a.text != b.text {
                return Err("same function, but a static result must print as CuTe's".to_string());
            }
            Ok(())
        }
        (Res::Int { value: a, is_static: sa }, Res::Int { value: b, is_static: sb }) => {
            if a != b {
                return Err(format!("{a} instead of {b}"));
            }
            if statics && sa != sb {
                return Err("static flag differs".to_string());
            }
            Ok(())
        }
        _ => Err("a different kind of value".to_string()),
    }
}

fn parse_truth(t: &str) -> Vec<isize> {
    t.split(',').map(|x| x.parse().unwrap_or_else(|_| panic!("bad truth value {x:?}"))).collect()
}

/// `wrong` rows with known offsets: ours must be exactly the mathematical function.
fn matches_truth(ours: &Value, truth: &[isize]) -> Result<(), String> {
    match our_result(ours)? {
        Res::Func(f) => {
            if f.offsets.len() != truth.len() {
                return Err(format!("size {} instead of {}", f.offsets.len(), truth.len()));
            }
            match f.offsets.iter().zip(truth).position(|(x, y)| x != y) {
                Some(i) => Err(format!("offset {} at index {i} instead of {}", f.offsets[i], truth[i])),
                None => Ok(()),
            }
        }
        Res::Int { .. } => Err("an integer where a layout was expected".to_string()),
    }
}

/// `wrong` rows without offsets: inverses are checked by their defining property (`truth` is
/// `size=N` for `right_inverse`, the size of the largest right inverse, `none` for a
/// `left_inverse` that has no left inverse, `?` where the generator could not decide); any other
/// family has no mathematical result for the input, so it must be rejected.
fn satisfies_property(family: &str, expr: &str, truth: &str, ours: &Value) -> Result<(), String> {
    if family != "inverse" {
        return Err("accepted an input that has no mathematical result".to_string());
    }
    let open = expr.find('(').expect("a call");
    let (name, arg) = (&expr[..open], &expr[open + 1..expr.len() - 1]);
    let l = match eval(arg) {
        Ok(Value::Layout(l)) => l,
        _ => return Err(format!("cannot evaluate the operand {arg}")),
    };
    let lo = layout_offsets(&l)?;
    let ro = match our_result(ours)? {
        Res::Func(f) => f.offsets,
        Res::Int { .. } => return Err("an integer where a layout was expected".to_string()),
    };
    let at =
        |v: &[isize], x: isize| if x >= 0 && (x as usize) < v.len() { Some(v[x as usize]) } else { None };
    match name {
        "right_inverse" => match (0..ro.len()).find(|&i| at(&lo[..], ro[i]) != Some(i as isize)) {
            Some(i) => Err(format!("L(R({i})) != {i}")),
            None if truth != format!("size={}", ro.len()) => {
                Err(format!("a right inverse of size {}, the largest has {truth}", ro.len()))
            }
            None => Ok(()),
        },
        "left_inverse" if truth == "none" => Err("answered, but no left inverse exists".to_string()),
        "left_inverse" => {
            let mut sorted = lo.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() == lo.len() {
                match (0..lo.len()).find(|&i| at(&ro[..], lo[i]) != Some(i as isize)) {
                    Some(i) => Err(format!("R(L({i})) != {i}")),
                    None => Ok(()),
                }
            } else {
                // not injective: a quasi-inverse, L(R(L(i))) == L(i)
                match (0..lo.len()).find(|&i| at(&ro[..], lo[i]).and_then(|r| at(&lo[..], r)) != Some(lo[i]))
                {
                    Some(i) => Err(format!("L(R(L({i}))) != L({i})")),
                    None => Ok(()),
                }
            }
        }
        _ => Err(format!("no property known for {name}")),
    }
}

/// The families whose verdicts rest on `complement`'s postconditions.
const ON_COMPLEMENT: &[&str] = &["complement", "divide", "product", "tile_to_shape"];

/// A `wrong` row of a family built on `complement` that we refuse: only the documented refusals
/// (a negative stride has no complement; a composition that is no layout, named by `composition`;
/// a static target that is no multiple of the block) and only where the row has no offsets for
/// the complement itself.
fn documented_refusal(family: &str, truth: &str, e: &EvalError) -> Result<(), String> {
    let EvalError::Layout { error: LayoutError::Inadmissible { op, why }, .. } = e else {
        return Err(format!("refused with an error that is no documented refusal: {e}"));
    };
    match (*op, why) {
        ("complement", Inadmissible::NegativeStride { .. }) => Ok(()),
        ("composition" | "tile_to_shape", _) if family != "complement" => Ok(()),
        _ if family == "complement" && truth != "-" => Err(format!("refused a complement that exists: {e}")),
        _ => Err(format!("refused with an error that is no documented refusal: {e}")),
    }
}

/// `complement(A)` / `complement(A, M)`: our answer against the postconditions.
fn complement_postconditions(expr: &str, ours: &Value) -> Result<(), String> {
    let inner = &expr["complement(".len()..expr.len() - 1];
    let mut depth = 0;
    let split = inner.char_indices().find(|&(_, c)| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        c == ',' && depth == 0
    });
    let (a, m) = match split {
        Some((k, _)) => (&inner[..k], Some(inner[k + 1..].trim())),
        None => (inner, None),
    };
    let a: DynLayout = a.parse().map_err(|e| format!("cannot parse {a}: {e}"))?;
    let m = match m {
        Some(m) => {
            m.parse::<DynIntTuple>().map_err(|e| format!("cannot parse {m}: {e}"))?.size().unwrap().value
        }
        None => a.cosize().value,
    };
    let Value::Layout(r) = ours else { return Err("a complement that is no layout".to_string()) };
    match complement_pc::broken(&a, r, m) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

#[derive(Default)]
struct Tally {
    rows: usize,
    agree: usize,
    agree_static_text: usize,
    rejected: usize,
    corrected: usize,
    failures: Vec<String>,
}

fn check_family(family: &str, data: &str, min_rows: usize) {
    let mut t = Tally::default();
    for (n, line) in data.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let lineno = n + 1;
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "line {lineno} has {} fields", f.len());
        assert_eq!(f[0], family, "line {lineno} belongs to another family");
        let (expr, cute, mut verdict, truth) = (f[1], f[2], f[3], f[4]);
        // `downcast` has no function to compare with but CuTe's own: which modes absorb the new
        // elements is its definition (a static `_1` stride), so CuTe's answer is the answer.
        if expr.starts_with("downcast<") {
            verdict = "ok";
        }
        t.rows += 1;
        let ours = eval(expr);
        let ours_text = match &ours {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        };
        let outcome = match verdict {
            "ok" | "unchecked" => {
                let statics = all_static(expr);
                let r = match &ours {
                    Ok(v) => our_result(v).and_then(|o| {
                        cute_result(cute).and_then(|c| agree(&o, &c, statics, rank_contract(family, expr)))
                    }),
                    Err(_) => Err("rejected an input CuTe handles correctly".to_string()),
                };
                if r.is_ok() {
                    t.agree += 1;
                    if statics {
                        t.agree_static_text += 1;
                    }
                }
                r
            }
            "wrong" => match &ours {
                Err(e) => {
                    let r = if family == "inverse" {
                        // An inverse is refused only where none exists, or where the generator
                        // could not decide (`?`: a quasi-inverse with too many choices to try).
                        if truth == "none" || truth == "?" {
                            Ok(())
                        } else {
                            Err(format!("refused ({e}), but an inverse exists"))
                        }
                    } else if ON_COMPLEMENT.contains(&family) {
                        documented_refusal(family, truth, e)
                    } else {
                        Ok(())
                    };
                    if r.is_ok() {
                        t.rejected += 1;
                    }
                    r
                }
                Ok(v) => {
                    let r = if truth == "-" || family == "inverse" {
                        satisfies_property(family, expr, truth, v)
                    } else if family == "complement" {
                        matches_truth(v, &parse_truth(truth))
                            .and_then(|()| complement_postconditions(expr, v))
                    } else {
                        matches_truth(v, &parse_truth(truth))
                    };
                    if r.is_ok() {
                        t.corrected += 1;
                    }
                    r
                }
            },
            other => panic!("line {lineno}: unknown verdict {other:?}"),
        };
        if let Err(why) = outcome {
            t.failures.push(format!(
                "line {lineno}: {expr}\n    CuTe ({verdict}): {cute}\n    ours: {ours_text}\n    {why}"
            ));
        }
    }
    println!(
        "{family:>14}: {} rows; {} agree with CuTe ({} static, same text); CuTe wrong: {} rejected, {} corrected; {} failures",
        t.rows,
        t.agree,
        t.agree_static_text,
        t.rejected,
        t.corrected,
        t.failures.len()
    );
    if !t.failures.is_empty() {
        let shown: Vec<&str> = t.failures.iter().take(MAX_SHOWN).map(|s| s.as_str()).collect();
        panic!(
            "{family}: {} of {} rows fail (first {}):\n{}",
            t.failures.len(),
            t.rows,
            shown.len(),
            shown.join("\n")
        );
    }
    assert!(t.rows >= min_rows, "{family}: only {} rows, expected at least {min_rows}", t.rows);
}

macro_rules! family_test {
    ($name:ident, $family:literal, $min:expr) => {
        #[test]
        fn $name() {
            check_family($family, include_str!(concat!("../data/cute_algebra_", $family, ".txt")), $min);
        }
    };
}

family_test!(coalesce, "coalesce", 10_000);
family_test!(filter, "filter", 10_000);
family_test!(composition, "composition", 10_000);
family_test!(complement, "complement", 10_000);
family_test!(inverse, "inverse", 10_000);
family_test!(divide, "divide", 10_000);
family_test!(product, "product", 10_000);
family_test!(modes, "modes", 200);
family_test!(cast, "cast", 200);
family_test!(max_common, "max_common", 200);
family_test!(nullspace, "nullspace", 200);
family_test!(tile_to_shape, "tile_to_shape", 200);
family_test!(swizzle, "swizzle", 200);

#[test]
fn static_operand_rule() {
    assert!(all_static("coalesce((_4,(_2,_3)):(_1,(_4,_8)))"));
    assert!(all_static("select<0,2>((_4,_2,_3):(_1,_-4,_8))"));
    assert!(all_static("composition(Sw<3,4,3>, (_8,_8):(_8,_1))"));
    assert!(all_static("composition((_6,_2):(_1,_7), <_3:_3, (_2,_4):(_1,_8)>)"));
    assert!(!all_static("composition((_6,_2):(_1,7), _3)"));
    assert!(!all_static("upcast<2>((_4,2):(_1,-4))"));
    assert!(!all_static("composition((_6,_2):(_1,_7), <3:_3>)"));
    assert!(!all_static("complement(_4:_1, 24)"));
}

#[test]
fn truth_offsets_helper() {
    assert_eq!(offsets_of(&[(2, 1), (3, 4)]).unwrap(), [0, 1, 4, 5, 8, 9]);
    assert_eq!(offsets_of(&[(1, 7), (2, -3)]).unwrap(), [0, -3]);
    assert_eq!(apply_swizzle(3, 4, 3, 0b11_1000_0000), 0b11_1111_0000);
    assert_eq!(apply_swizzle(2, 0, -2, 0b0011), 0b1111);
}

/// `text` with each by-mode tiler `<...>` written as CuTe prints a `Tile`, `(...)`: a `<` that
/// opens an argument (after `(` or `,`), not a template argument list (`upcast<2>`).
fn tiler_as_tuple(text: &str) -> String {
    let (mut out, mut open) = (String::with_capacity(text.len()), 0usize);
    let mut prev = ' ';
    for c in text.chars() {
        let c2 = match c {
            '<' if prev == '(' || prev == ',' => {
                open += 1;
                '('
            }
            '>' if open > 0 => {
                open -= 1;
                ')'
            }
            _ => c,
        };
        if !c.is_whitespace() {
            prev = c;
        }
        out.push(c2);
    }
    out
}

/// Every by-mode tiler of CuTe's vectors (composition, divides, products, identity layouts), written
/// as a tuple of layouts, `(_2:_1,_2:_1)`, as CuTe prints it: the same result as `<...>`, or the
/// same refusal.
#[test]
fn tilers_written_as_tuples_read_as_by_mode_tilers() {
    let mut compared = 0;
    for data in [
        include_str!("../data/cute_algebra_composition.txt"),
        include_str!("../data/cute_algebra_divide.txt"),
        include_str!("../data/cute_algebra_product.txt"),
        include_str!("../data/cute_identity.txt"),
    ] {
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let Some(expr) = line.split('\t').nth(1) else { continue };
            let tuple = tiler_as_tuple(expr);
            if tuple == expr {
                continue;
            }
            let (a, b) = (eval(expr).map(|v| v.to_string()), eval(&tuple).map(|v| v.to_string()));
            assert_eq!(a.is_ok(), b.is_ok(), "{expr} -> {a:?}; {tuple} -> {b:?}");
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a, b, "{expr} against {tuple}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 1000, "only {compared} tilers compared");
    assert_eq!(tiler_as_tuple("upcast<2>(f(x, <_2:_1, _>))"), "upcast<2>(f(x, (_2:_1, _)))");
}

/// A tuple of layouts is a by-mode tiler wherever a tiler is read: the expression evaluator and
/// `Tiler`'s own text; a tuple with a layout among its modes takes only tilers' modes.
#[test]
fn tuple_tilers_in_text() {
    use const_layout::algebra::Tiler;
    let t: Tiler = "(_2:_1,(_2,_2):(_1,_4),_,3)".parse().unwrap();
    assert_eq!(t.to_string(), "<_2:_1, (_2,_2):(_1,_4), _, 3>");
    assert_eq!(t, "<_2:_1, (_2,_2):(_1,_4), _, 3>".parse().unwrap());
    assert_eq!(eval("(_2:_1, _)").unwrap().to_string(), "<_2:_1, _>");
    assert_eq!(eval("(1,(_,2))").unwrap().to_string(), "(1,(_,2))"); // no layout: a slicing coordinate
    let e = eval("(_2:_1,(_,2))").unwrap_err().to_string();
    assert!(e.contains("by-mode tiler") && e.contains("column 8"), "{e}");
    assert!(eval("(<_2>, _2:_1)").is_err());
    assert!("(_2:_1,".parse::<Tiler>().is_err());
    assert!("((((_2:_1".parse::<Tiler>().is_err());
}
