//! `slice` and `slice_and_offset` of swizzled (composed) layouts against CuTe C++.
//!
//! The data, `tests/data/cute_swizzle_slice.txt`, comes from CuTe itself
//! (`tools/oracle/gen_swizzle_slice_vectors.py`; the row format is in its docstring). Two checks:
//!
//! - `same_function_as_cute`: every row evaluates, and gives the same function as CuTe: for
//!   `slice` the values of CuTe's `slice(c, L)` at i = 0 .. size-1; for `slice_and_offset` the
//!   values of CuTe's layout plus CuTe's offset (our split between the two may differ).
//!   Rows written with an explicit offset, `composition(Sw<..>, _16, L)`, are skipped (and
//!   counted) if `eval` does not take three arguments to `composition`.
//!   Where CuTe's own `slice_and_offset` is not the function it slices (column `exact` is `no`:
//!   CuTe's decay assumes that the fixed and the kept parts of the offset never carry into each
//!   other), `slice_and_offset` must be that original function (column `truth`) and `slice` must
//!   be the layout part of our `slice_and_offset`; the rows where we then differ from CuTe are
//!   counted and printed.
//! - `same_text_as_cute`: where every integer of the expression is static and CuTe's answer is
//!   the function it slices (`exact`), our printed result is CuTe's (`offset + layout` for
//!   `slice_and_offset`). Where CuTe's is another function our answer keeps the swizzle (checked
//!   against the truth by the first test), so its text differs by design.

use const_layout::eval::{Value, eval};

const DATA: &str = include_str!("../data/cute_swizzle_slice.txt");

struct Row<'a> {
    line: usize,
    op: &'a str,
    expr: &'a str,
    is_static: bool,
    layout: &'a str,
    offset_text: &'a str,
    offset: isize,
    values: Vec<isize>,
    /// CuTe's `slice_and_offset` of this case is the original function.
    exact: bool,
    /// Where it is not: the original function.
    truth: Vec<isize>,
}

fn ints(field: &str) -> Vec<isize> {
    if field == "-" { Vec::new() } else { field.split(' ').map(|v| v.parse().expect("value")).collect() }
}

fn rows() -> Vec<Row<'static>> {
    let mut out = Vec::new();
    for (n, line) in DATA.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 9, "line {}: expected 9 fields: {line}", n + 1);
        out.push(Row {
            line: n + 1,
            op: f[0],
            expr: f[1],
            is_static: f[2] == "yes",
            layout: f[3],
            offset_text: f[4],
            offset: if f[5] == "-" { 0 } else { f[5].parse().expect("offset") },
            values: ints(f[6]),
            exact: f[7] == "yes",
            truth: ints(f[8]),
        });
    }
    out
}

/// `composition` with three arguments (swizzle, offset, layout).
fn has_explicit_offset(expr: &str) -> bool {
    let Some(at) = expr.find("composition(Sw<") else { return false };
    let rest = &expr[at..];
    let after_sw = &rest[rest.find('>').unwrap() + 1..];
    // `composition(Sw<..>, _16, (..` vs `composition(Sw<..>, (..` or `, _8:_1`
    let arg = after_sw.trim_start_matches([',', ' ']);
    let end = arg.find([',', ')']).unwrap_or(arg.len());
    !arg.starts_with('(') && !arg[..end].contains(':')
}

/// CuTe's expected text.
fn cute_text(r: &Row<'_>) -> String {
    if r.op == "slice" { r.layout.to_string() } else { format!("{} + {}", r.offset_text, r.layout) }
}

/// CuTe's function: the values at i = 0 .. size-1 (offset included for `slice_and_offset`).
fn cute_values(r: &Row<'_>) -> Vec<isize> {
    r.values.iter().map(|v| v + r.offset).collect()
}

/// The layout part of our `slice_and_offset` (the offset taken out left out).
fn our_layout_part(v: &Value) -> Result<Vec<isize>, String> {
    Ok(match v {
        Value::Partition(p) => (0..p.layout.size().value).map(|i| p.layout.offset(i)).collect(),
        Value::ComposedPartition(k, _) => (0..k.size().value).map(|i| k.offset(i)).collect(),
        other => return our_values(other),
    })
}

/// Our function, or why there is none.
fn our_values(v: &Value) -> Result<Vec<isize>, String> {
    Ok(match v {
        Value::Layout(l) => (0..l.size().value).map(|i| l.offset(i)).collect(),
        Value::Composed(c) => (0..c.size().value).map(|i| c.offset(i)).collect(),
        Value::Partition(p) => {
            if p.origin.is_some() {
                return Err(format!("a partition with a coordinate origin: {v}"));
            }
            (0..p.layout.size().value).map(|i| p.offset + p.layout.offset(i)).collect()
        }
        Value::ComposedPartition(k, o) => (0..k.size().value).map(|i| o.value + k.offset(i)).collect(),
        other => return Err(format!("not a layout: {other}")),
    })
}

#[test]
fn same_function_as_cute() {
    let rows = rows();
    assert!(rows.len() >= 1000, "only {} rows", rows.len());
    let (mut same, mut skipped, mut inexact, mut inexact_differ) = (0, 0, 0, 0);
    let mut bad = Vec::new();
    let mut differ = Vec::new();
    for r in &rows {
        let v = match eval(r.expr) {
            Ok(v) => v,
            Err(e) if has_explicit_offset(r.expr) && e.to_string().contains("`composition` takes") => {
                skipped += 1;
                continue;
            }
            Err(e) => {
                bad.push(format!("line {}: {}: error {e}", r.line, r.expr));
                continue;
            }
        };
        let want = if r.exact {
            cute_values(r)
        } else {
            inexact += 1;
            match our_values(&v) {
                Ok(g) if g != cute_values(r) => {
                    inexact_differ += 1;
                    differ.push(format!(
                        "line {}: {}\n    ours {v}\n    CuTe {}",
                        r.line,
                        r.expr,
                        cute_text(r)
                    ));
                }
                _ => {}
            }
            if r.op == "slice_and_offset" {
                r.truth.clone()
            } else {
                // `slice` is the layout part of our `slice_and_offset`.
                let sao = r.expr.replacen("slice(", "slice_and_offset(", 1);
                match eval(&sao).map_err(|e| e.to_string()).and_then(|s| our_layout_part(&s)) {
                    Ok(w) => w,
                    Err(e) => {
                        bad.push(format!("line {}: {sao}: {e}", r.line));
                        continue;
                    }
                }
            }
        };
        match our_values(&v) {
            Ok(got) if got == want => same += 1,
            Ok(got) => bad.push(format!(
                "line {}: {}\n    ours {v}: {got:?}\n    CuTe {}: {want:?}",
                r.line,
                r.expr,
                cute_text(r)
            )),
            Err(e) => bad.push(format!("line {}: {}: {e}", r.line, r.expr)),
        }
    }
    println!(
        "swizzle slice vectors: {} rows, {same} as required, {skipped} skipped (explicit offset not parsed), {} wrong; \
         {inexact} rows where CuTe's slice_and_offset is not the original function (checked against it), \
         {inexact_differ} of them differ from CuTe",
        rows.len(),
        bad.len()
    );
    for d in differ.iter().take(6) {
        println!("differs from CuTe (CuTe inexact): {d}");
    }
    for b in bad.iter().take(30) {
        println!("{b}");
    }
    assert!(bad.is_empty(), "{} of {} rows differ from CuTe (first: {})", bad.len(), rows.len(), bad[0]);
}

#[test]
fn same_text_as_cute() {
    let rows = rows();
    let (mut considered, mut same_fn, mut same_text, mut skipped) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for r in rows.iter().filter(|r| r.is_static && r.exact) {
        considered += 1;
        let v = match eval(r.expr) {
            Ok(v) => v,
            Err(e) => {
                if has_explicit_offset(r.expr) && e.to_string().contains("`composition` takes") {
                    skipped += 1;
                }
                mismatches.push(format!(
                    "line {}: {}\n    ours: error {e}\n    CuTe: {}",
                    r.line,
                    r.expr,
                    cute_text(r)
                ));
                continue;
            }
        };
        if our_values(&v).is_ok_and(|g| g == cute_values(r)) {
            same_fn += 1;
        }
        let (ours, theirs) = (v.to_string(), cute_text(r));
        if ours == theirs {
            same_text += 1;
        } else {
            mismatches.push(format!("line {}: {}\n    ours: {ours}\n    CuTe: {theirs}", r.line, r.expr));
        }
    }
    println!(
        "swizzle slice text: {} rows, {considered} all-static, {same_fn} same function, {same_text} same text, \
         {} text mismatches ({skipped} of them explicit-offset rows `eval` does not parse)",
        rows.len(),
        mismatches.len()
    );
    for m in mismatches.iter().take(20) {
        println!("{m}");
    }
    assert!(considered >= 800, "only {considered} all-static rows where CuTe is exact");
    assert!(
        mismatches.is_empty(),
        "{} of {considered} all-static rows print differently from CuTe (first: {})",
        mismatches.len(),
        mismatches[0]
    );
}
