//! Differential tests of identity layouts (`make_identity_layout`, basis strides) against CuTe C++.
//!
//! The rows of `tests/data/cute_identity.txt` were produced by the real CuTe (cutlass 4.2.0.0) with
//! `tools/oracle/gen_identity_vectors.py` (format and verdicts: `tools/oracle/README.md`, "Identity
//! vectors"). A row is one call in `eval::eval` syntax on `make_identity_layout(S)`, CuTe's
//! printed result and size, CuTe's value (a coordinate) at every index when the result has at most
//! 128 elements, and a verdict computed by brute force from the operation's definition:
//!
//! - `ok`: ours must be the same function as CuTe's: the same size and the same coordinate at every
//!   index (CuTe's recorded values; past 128 elements, the values of CuTe's printed layout), and,
//!   where every integer in the expression is static, exactly CuTe's printed text. Our values
//!   come from our layout's extents and basis strides; `DynLayout::apply` / `LayoutPartition::at` must
//!   agree with them at up to 48 sampled indices (all of them below 49 elements: evaluating every
//!   index through `apply` would take minutes in a debug build).
//! - `wrong`: CuTe's result is not the mathematical one (an inadmissible input, Decision 2). Ours
//!   must be an error, or the mathematical function, whose values the row carries.
//!
//! Coordinates are compared as maps from mode paths to their non-zero values, so CuTe's spellings
//! of one coordinate (`(3,0)`, `(3)`, `3@0`, `(_0,3)` with its static zero) are the same value.
//!
//! `cargo test --test vectors identity_vectors:: -- --nocapture` prints the counts per operation.

use crate::common;
use common::all_static;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::{Value, eval};
use std::collections::BTreeMap;

const DATA: &str = include_str!("../data/cute_identity.txt");

/// Failures printed (all are counted).
const MAX_SHOWN: usize = 250;
/// Results larger than this are not expanded.
const MAX_EXPANDED: isize = 1 << 18;

/// Rows expected per operation (the generator makes more: a few are dropped or left out).
const MIN_ROWS: &[(&str, usize)] = &[
    ("identity", 1200),
    ("logical_divide", 750),
    ("zipped_divide", 1100),
    ("tiled_divide", 1000),
    ("flat_divide", 800),
    ("local_tile", 1250),
    ("local_partition", 1100),
    ("composition", 1350),
    ("slice", 500),
    ("slice_and_offset", 550),
    ("coalesce", 450),
    ("filter", 450),
    ("select", 250),
    ("group", 180),
];

/// Ops whose result is a partition (`origin + layout`); the others give a layout.
const PARTITIONS: &[&str] = &["local_tile", "local_partition", "slice_and_offset"];

/// A coordinate: (mode path, value) for its non-zero components, sorted by path.
type Coord = Vec<(Vec<u8>, isize)>;

fn canonical(entries: impl IntoIterator<Item = (Vec<u8>, isize)>) -> Coord {
    let mut m: BTreeMap<Vec<u8>, isize> = BTreeMap::new();
    for (p, v) in entries {
        *m.entry(p).or_insert(0) += v;
    }
    m.into_iter().filter(|&(_, v)| v != 0).collect()
}

/// Walks a printed value or form: tuples, integers `_3`/`3`/`-3`, `*` (a placeholder, value 0),
/// each with optional basis suffixes `@i@j` (CuTe prints the path innermost first). Returns every
/// leaf's mode path and value.
fn leaves_of(text: &str) -> Result<Vec<(Vec<u8>, isize)>, String> {
    let b = text.strip_prefix("ArithTuple").unwrap_or(text).as_bytes();
    let mut pos: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    let bad = |i: usize| format!("cannot read value {text:?} at byte {i}");
    while i < b.len() {
        match b[i] {
            b'(' => {
                pos.push(0);
                i += 1;
            }
            b')' => {
                pos.pop().ok_or_else(|| bad(i))?;
                i += 1;
            }
            b',' => {
                *pos.last_mut().ok_or_else(|| bad(i))? += 1;
                i += 1;
            }
            _ => {
                let mut v: isize = 0;
                if b[i] == b'_' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'*' {
                    i += 1;
                } else {
                    let neg = i < b.len() && b[i] == b'-';
                    if neg {
                        i += 1;
                    }
                    let start = i;
                    while i < b.len() && b[i].is_ascii_digit() {
                        v = v * 10 + (b[i] - b'0') as isize;
                        i += 1;
                    }
                    if i == start {
                        return Err(bad(i));
                    }
                    if neg {
                        v = -v;
                    }
                }
                let mut basis = Vec::new();
                while i < b.len() && b[i] == b'@' {
                    i += 1;
                    let start = i;
                    let mut k: u32 = 0;
                    while i < b.len() && b[i].is_ascii_digit() {
                        k = k * 10 + (b[i] - b'0') as u32;
                        i += 1;
                    }
                    if i == start || k > 255 {
                        return Err(bad(i));
                    }
                    basis.push(k as u8);
                }
                let mut p = pos.clone();
                p.extend(basis.iter().rev());
                out.push((p, v));
            }
        }
    }
    if !pos.is_empty() {
        return Err(bad(b.len()));
    }
    Ok(out)
}

fn parse_value(text: &str) -> Result<Coord, String> {
    Ok(canonical(leaves_of(text)?))
}

/// `form|n,n n,n ...` -> the coordinate at each index.
fn decode_values(field: &str) -> Result<Vec<Coord>, String> {
    let (form, rest) = field.split_once('|').ok_or_else(|| format!("no form in {field:.60}"))?;
    let paths: Vec<Vec<u8>> = leaves_of(form)?.into_iter().map(|(p, _)| p).collect();
    rest.split(' ')
        .map(|v| {
            let nums: Vec<isize> = v
                .split(',')
                .map(|x| x.parse::<isize>().map_err(|_| format!("bad number {x:?} in values")))
                .collect::<Result<_, _>>()?;
            if nums.len() != paths.len() {
                return Err(format!("{} numbers for form {form}", nums.len()));
            }
            Ok(canonical(paths.iter().cloned().zip(nums)))
        })
        .collect()
}

/// Splits `a:b` at the top-level colon.
fn split_layout(t: &str) -> Result<(&str, &str), String> {
    let mut depth = 0i32;
    for (k, ch) in t.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 => return Ok((&t[..k], &t[k + 1..])),
            _ => {}
        }
    }
    Err(format!("not a layout: {t}"))
}

/// (basis path, value) of each stride leaf, in order.
fn strides_of(st: &str) -> Result<Vec<(Vec<u8>, isize)>, String> {
    // The position of a stride leaf in its tuple says nothing about the mode of its value: only
    // its basis suffix does. The text between separators is one leaf `v@i@j`.
    let mut out = Vec::new();
    for tok in st.split(['(', ')', ',']).filter(|t| !t.is_empty()) {
        let mut parts = tok.split('@');
        let v = parts.next().unwrap_or("");
        let v: isize = v.trim_start_matches('_').parse().map_err(|_| format!("bad stride {tok}"))?;
        let mut p: Vec<u8> = parts
            .map(|k| k.parse::<u8>().map_err(|_| format!("bad basis in {tok}")))
            .collect::<Result<_, _>>()?;
        p.reverse();
        out.push((p, v));
    }
    Ok(out)
}

/// The values of a printed result (`layout` or `origin + layout`), evaluated here from its
/// extents and strides, independently of the library: value(i) = origin + sum of c_k * d_k, each
/// term in the mode its stride's basis names (a stride without a basis: path `[]`, an offset).
fn eval_printed(text: &str) -> Result<Vec<Coord>, String> {
    let (origin, lay) = match text.split_once(" + ") {
        Some((o, l)) => (parse_value(o)?, l),
        None => (Vec::new(), text),
    };
    let (sh, st) = split_layout(lay)?;
    let ext: Vec<isize> = leaves_of(sh)?.into_iter().map(|(_, v)| v).collect();
    expand_leaves(&ext, &strides_of(st)?, &origin).map_err(|e| format!("{e} in {text}"))
}

/// The values of one of our layouts from its extents and strides (each stride an integer scaling
/// a basis element, or a plain integer), after `origin`.
fn expand(l: &DynLayout, origin: &[(Vec<u8>, isize)]) -> Result<Vec<Coord>, String> {
    let ext: Vec<isize> = l.shape().leaves().map(|d| d.value).collect();
    let strides: Vec<(Vec<u8>, isize)> =
        l.stride().leaves().map(|d| (d.basis.path().map(|k| k as u8).collect(), d.value)).collect();
    expand_leaves(&ext, &strides, origin)
}

fn expand_leaves(
    ext: &[isize],
    strides: &[(Vec<u8>, isize)],
    origin: &[(Vec<u8>, isize)],
) -> Result<Vec<Coord>, String> {
    if ext.len() != strides.len() {
        return Err("shape and stride are not congruent".to_string());
    }
    let n: isize = ext.iter().product();
    if !(0..=MAX_EXPANDED).contains(&n) {
        return Err(format!("size {n} is out of range"));
    }
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let mut x = i;
        let mut e = origin.to_vec();
        for (s, (p, d)) in ext.iter().zip(strides) {
            let c = x % s;
            x /= s;
            if c != 0 && *d != 0 {
                e.push((p.clone(), c * d));
            }
        }
        out.push(canonical(e));
    }
    Ok(out)
}

/// The indices at which `apply` / `at` are called (all of them for small results; a debug build
/// would take minutes for all of the larger ones): the first 32, 16 spread over the rest, the last.
fn sample(n: isize) -> Vec<isize> {
    if n <= 48 {
        return (0..n).collect();
    }
    let mut v: Vec<isize> = (0..32).collect();
    v.extend((1..=16).map(|k| 32 + (n - 33) * k / 16));
    v.dedup();
    v
}

/// Our result as (printed text, value at each index). The values come from our layout's extents
/// and strides; at the sampled indices `apply` (layouts) or `at` (partitions) must give the same.
fn ours(op: &str, v: &Value) -> Result<(String, Vec<Coord>), String> {
    let text = v.to_string();
    let at = |i: isize| DynIntTuple::int(DynInt::new_runtime(i));
    let vals = match v {
        Value::Layout(l) if !PARTITIONS.contains(&op) => {
            let vals = expand(l, &[])?;
            for i in sample(vals.len() as isize) {
                let c = l.apply(&at(i)).map_err(|e| format!("apply({i}): {e}"))?;
                if parse_value(&c.to_string())? != vals[i as usize] {
                    return Err(format!(
                        "apply({i}) is {c}, but the layout's value there is {}",
                        show(&vals[i as usize])
                    ));
                }
            }
            vals
        }
        Value::Partition(p) if PARTITIONS.contains(&op) => {
            let origin = parse_value(&p.origin_value().to_string())?;
            let vals = expand(&p.layout, &origin)?;
            for i in sample(vals.len() as isize) {
                let c = p.at(i).map_err(|e| format!("at({i}): {e}"))?;
                if parse_value(&c.to_string())? != vals[i as usize] {
                    return Err(format!(
                        "at({i}) is {c}, but origin + layout there is {}",
                        show(&vals[i as usize])
                    ));
                }
            }
            vals
        }
        other => return Err(format!("unexpected kind of value {other}")),
    };
    Ok((text, vals))
}

fn same_function(got: &[Coord], want: &[Coord]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("size {} instead of {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| a != b) {
        Some(i) => Err(format!("value {} at index {i} instead of {}", show(&got[i]), show(&want[i]))),
        None => Ok(()),
    }
}

fn show(c: &Coord) -> String {
    let items: Vec<String> = c.iter().map(|(p, v)| format!("{p:?}:{v}")).collect();
    format!("{{{}}}", items.join(", "))
}

#[derive(Default)]
struct Tally {
    rows: usize,
    agree: usize,
    same_text: usize,
    rejected: usize,
    corrected: usize,
    failures: usize,
}

fn check_all() {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    for (n, line) in DATA.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let lineno = n + 1;
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 7, "line {lineno} has {} fields", f.len());
        let (op, expr, cute, cute_size, verdict, values, truth) = (f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
        let t = tallies.entry(op.to_string()).or_default();
        t.rows += 1;
        let result = eval(expr);
        let ours_text = match &result {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        };
        let outcome: Result<(), String> = match verdict {
            "ok" => (|| {
                let v =
                    result.as_ref().map_err(|_| "rejected an input CuTe handles correctly".to_string())?;
                let (text, got) = ours(op, v)?;
                let want = if values == "-" { eval_printed(cute)? } else { decode_values(values)? };
                let n: usize =
                    cute_size.trim_start_matches('_').parse().map_err(|_| "bad size".to_string())?;
                if want.len() != n {
                    return Err(format!("the row's values have {} elements, CuTe's size is {n}", want.len()));
                }
                same_function(&got, &want)?;
                if all_static(expr) {
                    if text != cute {
                        return Err("same function, but a static result must print as CuTe's".to_string());
                    }
                    t.same_text += 1;
                }
                t.agree += 1;
                Ok(())
            })(),
            "wrong" => match &result {
                Err(_) => {
                    t.rejected += 1;
                    Ok(())
                }
                Ok(v) => (|| {
                    if truth == "-" {
                        return Err("accepted an input that has no mathematical result".to_string());
                    }
                    let (_, got) = ours(op, v)?;
                    same_function(&got, &decode_values(truth)?)?;
                    t.corrected += 1;
                    Ok(())
                })(),
            },
            other => panic!("line {lineno}: unknown verdict {other:?}"),
        };
        if let Err(why) = outcome {
            t.failures += 1;
            failures.push(format!(
                "line {lineno}: {expr}\n    CuTe ({verdict}): {cute}\n    ours: {ours_text}\n    {why}"
            ));
        }
    }
    eprintln!(
        "{:>17} {:>6} {:>6} {:>9} {:>14} {:>15} {:>8}",
        "op", "rows", "agree", "same text", "wrong rejected", "wrong corrected", "failures"
    );
    for (op, t) in &tallies {
        eprintln!(
            "{op:>17} {:>6} {:>6} {:>9} {:>14} {:>15} {:>8}",
            t.rows, t.agree, t.same_text, t.rejected, t.corrected, t.failures
        );
    }
    let shown: Vec<&str> = failures.iter().take(MAX_SHOWN).map(|s| s.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows fail (first {}):\n{}",
        failures.len(),
        tallies.values().map(|t| t.rows).sum::<usize>(),
        shown.len(),
        shown.join("\n")
    );
    for &(op, min) in MIN_ROWS {
        let rows = tallies.get(op).map_or(0, |t| t.rows);
        assert!(rows >= min, "{op}: only {rows} rows, expected at least {min}");
    }
    for op in tallies.keys() {
        assert!(MIN_ROWS.iter().any(|&(o, _)| o == op), "unknown operation {op}");
    }
}

#[test]
fn identity_vectors() {
    check_all();
}

#[test]
fn value_notation() {
    let c = |t: &str| parse_value(t).unwrap();
    assert_eq!(c("(3,0)"), c("3@0"));
    assert_eq!(c("(3)"), c("(_3,_0)"));
    assert_eq!(c("((1,0),2)"), vec![(vec![0u8, 0], 1), (vec![1u8], 2)]);
    assert_eq!(c("2@1@0"), vec![(vec![0u8, 1], 2)]);
    assert_ne!(c("(1,2)"), c("((1,0),2)"));
    assert_eq!(c("ArithTuple(4,8)"), c("(4,8)"));
    let v = decode_values("(*,*@0)|1,2 0,0").unwrap();
    assert_eq!(v, vec![vec![(vec![0u8], 1), (vec![1u8, 0], 2)], vec![]]);
    let e = eval_printed("(4,8) + (_2,_2):(_1@0,_4@1)").unwrap();
    assert_eq!(e, vec![c("(4,8)"), c("(5,8)"), c("(4,12)"), c("(5,12)")]);
    let e = eval_printed("((_2,3),_2):((_1@0@0,_1@1@0),_1@1)").unwrap();
    assert_eq!(e[7], c("((1,0),1)"));
    assert_eq!(eval_printed("7:_1").unwrap()[3], c("3"));
    assert!(all_static("select<0,2>(make_identity_layout((_4,_2,_3)))"));
    assert!(!all_static("local_tile(make_identity_layout((_4,_8)), (_2,_4), (1,_0))"));
}
