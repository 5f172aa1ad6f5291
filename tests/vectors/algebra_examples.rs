//! The upstream systems' documented examples, evaluated with `eval::eval` and compared with
//! what CuTe C++ prints for the same expression.
//!
//! Sources (the first field of every row):
//!
//! - `Docs02`: CuTe's `media/docs/cpp/cute/02_layout_algebra.md` (NVIDIA/cutlass), its text and the
//!   comments of its code; `Docs02Fig`: the figures of that document (`media/images/cute/*.png`),
//!   whose captions state results and whose cells give offsets; `Docs02Old`: the earlier revision,
//!   `media/docs/cute/02_layout_algebra.md`, where it has examples the current one dropped.
//! - `Docs01`: CuTe's `media/docs/cpp/cute/01_layout.md`: construction, sublayouts, concatenation,
//!   grouping, compatibility and the coordinate functions.
//! - `Unit`: the inputs of CuTe's unit tests `test/unit/cute/core/{coalesce, composition,
//!   complement, logical_divide, logical_product, inverse_left, inverse_right, nullspace}.cpp`.
//!   Those tests check postconditions rather than print results; the postconditions are checked
//!   here as well (`post_*`), beside CuTe's printed result.
//! - `Flir4`, `Flir5`, `Flir6`, `Fly7`: `shared/reference/flir.md` sections 4 to 7: FLIR's tests,
//!   the CuTe column of FLIR's differences, `swizzle_xor16`, and the Fly dialect (which agrees with
//!   CuTe). Where FLIR differs from CuTe, the row has CuTe's value (DECISIONS.md decision 5).
//! - `Ref2`: DECISIONS.md decision 2's inadmissible compositions.
//! - `Api`: behaviour CuTe's headers define without a documented example (`swizzle_layout.hpp`,
//!   `layout_composed.hpp`: the casts of swizzles and swizzled layouts), on inputs chosen here.
//!
//! Every expected value was printed by CuTe itself: cutlass 4.2.0.0's headers compiled with
//! `g++ -std=c++17`, one `print(...)` per row of the same expression (static integers as `Int<N>`,
//! runtime ones as `int`, tilers with `make_tile`). Where the upstream text and CuTe's print
//! disagree, the row has CuTe's print and a comment says what the text says.
//!
//! Comparison (`Want::Cute`): where every integer of the expression is static, the text must be
//! exactly CuTe's. Where some integer is runtime, DECISIONS.md decision 3 allows another structure: a
//! layout is then compared as a function (same size, same rank, same offset at every index), and
//! such rows are listed by `cargo test --test vectors algebra_examples:: -- --nocapture` (currently none:
//! every runtime result also prints as CuTe's). Integers, tuples and booleans are compared as text.
//!
//! Upstream examples not here: CuTe's unit-test cases with basis strides (`E<0>`, `E<1,1>`;
//! identity layouts are checked against CuTe in `tests/vectors/identity_vectors.rs`), its `mixedbits.cpp`
//! (`MixedBits` has no counterpart). The docs' "modding out" steps
//! (`(6,2) % 2 => (2,1)`) name no function (CuTe has no `shape_mod`); the docs' `o 16:9` example,
//! instantiated, covers them.

use const_layout::dyn_layout::DynLayout;
use const_layout::eval::{Value, eval};
use const_layout::swizzle::{Swizzle, swizzle_xor16};
use std::fmt::Write as _;

use Src::*;
use Want::*;

/// Where a row comes from (see the module documentation).
#[derive(Clone, Copy, Debug)]
enum Src {
    Docs02,
    Docs02Fig,
    Docs02Old,
    Docs01,
    Unit,
    Flir4,
    Flir5,
    Flir6,
    Fly7,
    Ref2,
    Api,
}

/// What a row must evaluate to.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// CuTe's print.
    Cute(&'static str),
    /// CuTe's print, which is not the mathematical result (DECISIONS.md decision 2): ours must be an
    /// error.
    Wrong(&'static str),
    /// CuTe rejects the expression (it does not compile): ours must be an error.
    Refused,
    /// CuTe rejects the expression for an implementation reason, or gives less than exists for
    /// one (a right inverse that stops at a runtime stride: DECISIONS.md decision 6); ours must be
    /// this function (the same size and offsets).
    Math(&'static str),
    /// CuTe prints this, but the operands fail const-layout's conditions (`left_inverse` needs
    /// non-negative strides; a divide's composition must have a layout), so const-layout rejects
    /// them. Accepted: an error, or CuTe's function.
    Stricter(&'static str),
}

type Row = (Src, &'static str, Want);

/// Checks a family's own postconditions on a successful result.
type Post = fn(&str, &Value) -> Result<(), String>;

fn ev(expr: &str) -> Result<Value, String> {
    eval(expr).map_err(|e| format!("error: {e}"))
}

fn layout_of(expr: &str) -> Result<DynLayout, String> {
    match ev(expr)? {
        Value::Layout(l) => Ok(l),
        v => Err(format!("`{expr}` is not a layout: {v}")),
    }
}

/// Whether every integer of `expr` is static (`_N`); template arguments (`select<1,3>`,
/// `Sw<2,0,-3>`) do not count.
fn all_static(expr: &str) -> bool {
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'<' && i > 0 && b[i - 1].is_ascii_alphanumeric() {
            while i < b.len() && b[i] != b'>' {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            let mut j = i;
            if j > 0 && b[j - 1] == b'-' {
                j -= 1;
            }
            let marked = j > 0 && b[j - 1] == b'_';
            let in_name = j > 0 && b[j - 1].is_ascii_alphabetic();
            if !marked && !in_name {
                return false;
            }
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    true
}

/// The offsets of a layout, `L(0), ..., L(size - 1)`.
fn offsets(l: &DynLayout) -> Vec<isize> {
    l.offsets().collect()
}

/// Whether two layouts are the same function: same size, same rank, same offsets.
fn same_function(a: &DynLayout, b: &DynLayout) -> Result<(), String> {
    if a.size().value != b.size().value {
        return Err(format!("size {} vs {}", a.size().value, b.size().value));
    }
    if a.rank() != b.rank() {
        return Err(format!("rank {} vs {}", a.rank(), b.rank()));
    }
    let (oa, ob) = (offsets(a), offsets(b));
    match (0..oa.len()).find(|&i| oa[i] != ob[i]) {
        Some(i) => Err(format!("offset {i}: {} vs {}", oa[i], ob[i])),
        None => Ok(()),
    }
}

/// Compares a result with CuTe's print; `Ok(Some(note))` when only the structure differs.
fn compare(expr: &str, got: &Value, cute: &str) -> Result<Option<String>, String> {
    let text = got.to_string();
    if text == cute {
        return Ok(None);
    }
    if all_static(expr) {
        return Err(format!("printed `{text}`, CuTe prints `{cute}`"));
    }
    let want = layout_of(cute)?;
    match got {
        Value::Layout(l) => same_function(l, &want)
            .map(|()| Some(format!("`{text}`, CuTe `{cute}`: same function")))
            .map_err(|e| format!("`{text}` is not CuTe's `{cute}`: {e}")),
        _ => Err(format!("printed `{text}`, CuTe prints `{cute}`")),
    }
}

fn check_row(row: &Row, post: Option<Post>) -> Result<Option<String>, String> {
    let (_, expr, want) = *row;
    let got = eval(expr);
    let note = match (want, &got) {
        (Cute(cute), Ok(v)) => compare(expr, v, cute)?,
        (Math(math), Ok(v)) => match v {
            // No CuTe print fixes a rank here: the same size and offsets.
            Value::Layout(l) if offsets(l) == offsets(&layout_of(math)?) => None,
            _ => return Err(format!("`{v}` is not the function `{math}`")),
        },
        (Stricter(cute), Ok(v)) => compare(expr, v, cute)?,
        (Wrong(_) | Refused | Stricter(_), Err(_)) => None,
        (Wrong(cute), Ok(v)) => {
            return Err(format!("expected an error (CuTe's `{cute}` is wrong), got `{v}`"));
        }
        (Refused, Ok(v)) => return Err(format!("expected an error (CuTe refuses it), got `{v}`")),
        (Cute(_) | Math(_), Err(e)) => return Err(format!("error: {e}")),
    };
    if let (Some(post), Ok(v)) = (post, &got) {
        post(expr, v).map_err(|e| format!("postcondition: {e}"))?;
    }
    Ok(note)
}

/// Checks every row, then reports all failures together.
fn run_family(family: &'static str, rows: &'static [Row], post: Option<Post>) {
    let mut failures = String::new();
    let mut failed = 0;
    for row in rows {
        match check_row(row, post) {
            Ok(None) => {}
            Ok(Some(note)) => println!("{family}: {} (structure differs) {note}", row.1),
            Err(e) => {
                failed += 1;
                let _ =
                    writeln!(failures, "  [{:?}] {}\n      expected {:?}\n      {e}", row.0, row.1, row.2);
            }
        }
    }
    println!("{family}: {} examples, {failed} failed", rows.len());
    assert!(failed == 0, "{family}: {failed} of {} examples failed:\n{failures}", rows.len());
}

/// The name and the top-level arguments of a call `f<...>(a, b, ...)`.
fn call_args(expr: &str) -> Option<(&str, Vec<&str>)> {
    let open = expr.find('(')?;
    let name = expr[..open].split('<').next()?;
    if !expr.ends_with(')') {
        return None;
    }
    let inner = &expr[open + 1..expr.len() - 1];
    let (mut depth, mut start, mut args) = (0i32, 0, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    Some((name, args))
}

fn size_of_tuple(t: &str) -> Result<isize, String> {
    match ev(&format!("size({t})"))? {
        Value::Int(i) => Ok(i.value),
        v => Err(format!("size({t}) = {v}")),
    }
}

fn is_true(expr: &str) -> Result<bool, String> {
    match ev(expr)? {
        Value::Bool(b) => Ok(b),
        v => Err(format!("`{expr}` = {v}")),
    }
}

fn result_layout(v: &Value) -> Result<DynLayout, String> {
    match v {
        Value::Layout(l) => Ok(*l),
        v => Err(format!("`{v}` is not a layout")),
    }
}

/// Whether the shape of `b` is compatible with that of `r` (CuTe's `compatible(B, R)`).
fn compatible(b: &DynLayout, r: &DynLayout) -> Result<(), String> {
    if is_true(&format!("compatible({}, {})", b.shape(), r.shape()))? {
        Ok(())
    } else {
        Err(format!("shape {} is not compatible with {}", b.shape(), r.shape()))
    }
}

// ---- the examples ----

/// `coalesce`, plain and by mode.
const COALESCE: &[Row] = &[
    (Docs02, "coalesce((_2,(_1,_6)):(_1,(_6,_2)))", Cute("_12:_1")),
    (Docs02, "coalesce((_2,(_1,_6)):(_1,(_6,_2)), (_1,_1))", Cute("(_2,_6):(_1,_2)")),
    (Docs02, "make_layout(coalesce(_2:_1), coalesce((_1,_6):(_6,_2)))", Cute("(_2,_6):(_1,_2)")),
    // Text: `(_2,_4):(_1,_2)` acts as `_8:_1` on 1-D coordinates.
    (Docs02, "coalesce((_2,_4):(_1,_2))", Cute("_8:_1")),
    (Fly7, "coalesce((_3,_1,_9):(_1,_9,_3))", Cute("_27:_1")),
    // Fly's example is static (row above); with runtime integers CuTe merges nothing.
    (Fly7, "coalesce((3,1,9):(1,9,3))", Cute("(3,1,9):(1,9,3)")),
    (Flir4, "coalesce((_3,(_1,_9)):(_1,(_9,_3)))", Cute("_27:_1")),
    // FLIR's `(2,(1,6)):(1,(s,2))` with a runtime `s`: FLIR keeps `s`; CuTe drops the static `_1` mode.
    (Flir4, "coalesce((_2,(_1,_6)):(_1,(7,_2)))", Cute("_12:_1")),
    // FLIR never merges: `(2,1,6):(1,7,2)`. flir.md's CuTe value `12:1` is CuTe's for static integers.
    (Flir5, "coalesce((_2,(_1,_6)):(_1,(_7,_2)))", Cute("_12:_1")),
    (Unit, "coalesce(_1:_0)", Cute("_1:_0")),
    (Unit, "coalesce(_1:_1)", Cute("_1:_0")),
    (Unit, "coalesce(make_layout((_2,_4)))", Cute("_8:_1")),
    (Unit, "coalesce(make_layout((_2,_4,_6)))", Cute("_48:_1")),
    (Unit, "coalesce((_2,_1,_6):(_1,_6,_2))", Cute("_12:_1")),
    (Unit, "coalesce((_2,_1,_6):(_1,7,_2))", Cute("_12:_1")),
    (Unit, "coalesce((_2,_1,_6):(_4,7,_8))", Cute("_12:_4")),
    (Unit, "coalesce(make_layout((2,_4,_6)))", Cute("(2,_4,_6):(_1,2,8)")),
    (Unit, "coalesce(make_layout((_2,4,_6)))", Cute("(_2,4,_6):(_1,_2,8)")),
    (Unit, "coalesce(make_layout((_2,_4,6)))", Cute("(_8,6):(_1,_8)")),
    (Unit, "coalesce(make_layout((_2,_4), LayoutRight))", Cute("(_2,_4):(_4,_1)")),
    (Unit, "coalesce(make_layout((_2,_4,_6), LayoutRight))", Cute("(_2,_4,_6):(_24,_6,_1)")),
    (Unit, "coalesce(make_layout((2,_4,_6), LayoutRight))", Cute("(2,_4,_6):(_24,_6,_1)")),
    (Unit, "coalesce(make_layout((_2,4,_6), LayoutRight))", Cute("(_2,4,_6):(24,_6,_1)")),
    (Unit, "coalesce(make_layout((_2,_4,6), LayoutRight))", Cute("(_2,_4,6):(24,6,_1)")),
    (Unit, "coalesce(make_layout((_2,_1,_3), LayoutRight))", Cute("(_2,_3):(_3,_1)")),
    (Unit, "coalesce(make_layout((_2,1,_3), LayoutRight))", Cute("(_2,1,_3):(3,_3,_1)")),
    (Unit, "coalesce((_2,1,_3):(_2,4,_4))", Cute("(_2,1,_3):(_2,4,_4)")),
    (Unit, "coalesce((_2,1,_3):(_2,_0,_4))", Cute("(_2,1,_3):(_2,_0,_4)")),
    (Unit, "coalesce(((_2,_2),(_2,_2)):((_1,_4),(_8,_32)))", Cute("(_2,_4,_2):(_1,_4,_32)")),
];

/// `composition` with layouts, tilers and shapes; the docs' `shape_div` steps; DECISIONS.md decision 2.
const COMPOSITION: &[Row] = &[
    // The text writes `((2,2),3):((24,2),8)` and lists `R(i)` (checked in `figure_offsets`).
    (Docs02, "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))", Cute("((_2,_2),_3):((_24,_2),_8)")),
    // The text's result is the static print above; with runtime integers CuTe keeps the mode
    // `(3,1):(8,2)`.
    (Docs02, "composition((6,2):(8,2), (4,3):(3,1))", Cute("((2,2),(3,1)):((24,2),(8,2))")),
    (Docs02, "compatible((4,3), shape(composition((6,2):(8,2), (4,3):(3,1))))", Cute("true")),
    (Docs02, "composition((_6,_2):(_8,_2), _4:_3)", Cute("(_2,_2):(_24,_2)")),
    // The worked example writes this step `(3,1):(8,2)`, before coalescing.
    (Docs02, "composition((_6,_2):(_8,_2), _3:_1)", Cute("_3:_8")),
    // The text's `(3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z)` with `(w,x,y,z) =
    // (1,100,1000,10000)`.
    (
        Docs02,
        "composition((_3,_6,_2,_8):(_1,_100,_1000,_10000), _16:_9)",
        Cute("(_2,_2,_4):(_300,_1000,_10000)"),
    ),
    (Docs02, "composition(_20:_2, (_5,_4):(_4,_1))", Cute("(_5,_4):(_8,_2)")),
    (Docs02, "composition(_20:_2, _5:_4)", Cute("_5:_8")),
    (Docs02, "composition(_20:_2, _4:_1)", Cute("_4:_2")),
    (Docs02, "composition(20:2, (5,4):(4,1))", Cute("(5,4):(8,2)")),
    // As the text says for static integers (its step 5 has a stray parenthesis: `(5,(2,2))):(16,(80,4))`).
    (Docs02, "composition((_10,_2):(_16,_4), (_5,_4):(_1,_5))", Cute("(_5,(_2,_2)):(_16,(_80,_4))")),
    // As the text says for runtime integers.
    (Docs02, "composition((10,2):(16,4), (5,4):(1,5))", Cute("((5,1),(2,2)):((16,4),(80,4))")),
    // The text writes this step `(5,1):(16,4)`, before the by-mode coalesce.
    (Docs02, "composition((_10,_2):(_16,_4), _5:_1)", Cute("_5:_16")),
    (Docs02, "composition((_10,_2):(_16,_4), _4:_5)", Cute("(_2,_2):(_80,_4)")),
    (Docs02, "composition((12,(4,8)):(59,(13,1)), <_3:_4, _8:_2>)", Cute("(_3,(2,4)):(236,(26,1))")),
    (
        Docs02,
        "make_layout(composition(12:59, _3:_4), composition((4,8):(13,1), _8:_2))",
        Cute("(_3,(2,4)):(236,(26,1))"),
    ),
    (Docs02, "composition((12,(4,8)):(59,(13,1)), (_3,_8))", Cute("(_3,(4,2)):(59,(13,1))")),
    (Docs02, "composition((12,(4,8)):(59,(13,1)), <_3:_1, _8:_1>)", Cute("(_3,(4,2)):(59,(13,1))")),
    // The text's "dividing out" examples, `(6,2) / 2 => (3,2)` and so on.
    (Docs02, "shape_div((_6,_2), _2)", Cute("(_3,_2)")),
    (Docs02, "shape_div((_6,_2), _3)", Cute("(_2,_2)")),
    (Docs02, "shape_div((_6,_2), _6)", Cute("(_1,_2)")),
    (Docs02, "shape_div((_6,_2), _12)", Cute("(_1,_1)")),
    (Docs02, "shape_div((_3,_6,_2,_8), _3)", Cute("(_1,_6,_2,_8)")),
    (Docs02, "shape_div((_3,_6,_2,_8), _6)", Cute("(_1,_3,_2,_8)")),
    (Docs02, "shape_div((_3,_6,_2,_8), _9)", Cute("(_1,_2,_2,_8)")),
    (Docs02, "shape_div((_3,_6,_2,_8), _72)", Cute("(_1,_1,_1,_4)")),
    (Docs02Old, "shape_div((_42,_16,_3), _2)", Cute("(_21,_16,_3)")),
    (Docs02Old, "shape_div((_42,_16,_3), _6)", Cute("(_7,_16,_3)")),
    (Flir4, "composition((_6,_9):(_19,_69), (_6,_3):(_3,_1))", Cute("((_2,_3),_3):((_57,_69),_19)")),
    // flir.md's `((2,3),3):((57,69),19)` is the static print above; with runtime integers CuTe keeps a
    // size-1 mode.
    (Flir4, "composition((6,9):(19,69), (6,3):(3,1))", Cute("((2,3),(3,1)):((57,69),(19,69))")),
    (Flir4, "composition((_5,_15):(_19,_51), (_3,_5):(_1,_5))", Cute("(_3,_5):(_19,_51)")),
    (Flir4, "composition(_4:_1, _2:_1)", Cute("_2:_1")),
    // FLIR's nested type of this composition, `((2,2),3):((24,2),8)`.
    (Flir4, "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))", Cute("((_2,_2),_3):((_24,_2),_8)")),
    // FLIR gives `(4,2):(1,1)`.
    (Flir5, "composition(_4:_1, _8:_1)", Cute("_8:_1")),
    (Unit, "composition(_1:_0, _1:_0)", Cute("_1:_0")),
    (Unit, "composition(_1:_0, _1:_1)", Cute("_1:_0")),
    (Unit, "composition(_1:_1, _1:_0)", Cute("_1:_0")),
    (Unit, "composition(_1:_1, _1:_1)", Cute("_1:_1")),
    (Unit, "composition(make_layout((_4)), make_layout((_4)))", Cute("(_4):(_1)")),
    (Unit, "composition((_4):(_2), make_layout((_4)))", Cute("(_4):(_2)")),
    (Unit, "composition((_4):(_0), make_layout((_4)))", Cute("(_4):(_0)")),
    (Unit, "composition(make_layout((_4)), (_4):(_0))", Cute("(_4):(_0)")),
    (Unit, "composition(make_layout((_4)), (_1):(_0))", Cute("(_1):(_0)")),
    (Unit, "composition(make_layout((_4)), make_layout((_2)))", Cute("(_2):(_1)")),
    (Unit, "composition((_4):(_2), make_layout((_2)))", Cute("(_2):(_2)")),
    (Unit, "composition(make_layout((_4)), (_2):(_2))", Cute("(_2):(_2)")),
    (Unit, "composition((_4):(_2), (_2):(_2))", Cute("(_2):(_4)")),
    (Unit, "composition(make_layout((_4,_3)), make_layout((_12)))", Cute("(_12):(_1)")),
    (Unit, "composition(make_layout((_12)), make_layout((_4,_3)))", Cute("(_4,_3):(_1,_4)")),
    (Unit, "composition((_12):(_2), make_layout((_4,_3)))", Cute("(_4,_3):(_2,_8)")),
    (Unit, "composition(make_layout((_12)), (_4,_3):(_3,_1))", Cute("(_4,_3):(_3,_1)")),
    (Unit, "composition((_12):(_2), (_4,_3):(_3,_1))", Cute("(_4,_3):(_6,_2)")),
    (Unit, "composition(make_layout((_12)), (_2,_3):(_2,_4))", Cute("(_2,_3):(_2,_4)")),
    (Unit, "composition(make_layout((_4,_3)), make_layout((_4,_3)))", Cute("(_4,_3):(_1,_4)")),
    (Unit, "composition(make_layout((_4,_3)), make_layout((_6)))", Cute("(_6):(_1)")),
    (Unit, "composition(make_layout((_4,_3)), (_6):(_2))", Cute("(_6):(_2)")),
    (Unit, "composition(make_layout((_4,_3)), (_6,_2):(_2,_1))", Cute("(_6,_2):(_2,_1)")),
    (Unit, "composition(make_layout((_4,_3)), (_4,_3):(_3,_1))", Cute("(_4,_3):(_3,_1)")),
    (Unit, "composition((_4,_3):(_3,_1), make_layout((_4,_3)))", Cute("(_4,_3):(_3,_1)")),
    (Unit, "composition((_4,_3):(_3,_1), make_layout((_12)))", Cute("((_4,_3)):((_3,_1))")),
    (Unit, "composition((_4,_3):(_3,_1), (_6):(_2))", Cute("((_2,_3)):((_6,_1))")),
    (Unit, "composition((_4,_3):(_3,_1), (_6,_2):(_2,_1))", Cute("((_2,_3),_2):((_6,_1),_3)")),
    (
        Unit,
        "composition(make_layout((_8,_8)), ((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32)))",
        Cute("((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32))"),
    ),
    (
        Unit,
        "composition((_8,_8):(_8,_1), ((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32)))",
        Cute("((_2,_2,_2),(_2,_2,_2)):((_8,_2,_32),(_1,_16,_4))"),
    ),
    (Unit, "composition(((_4,_2)):((_1,_16)), (_4,_2):(_2,_1))", Cute("((_2,_2),_2):((_2,_16),_1)")),
    (Unit, "composition((_2,_2):(_2,_1), (_2,_2):(_2,_1))", Cute("(_2,_2):(_1,_2)")),
    (Unit, "composition(make_layout((_4,_8,_2)), (_2,_2,_2):(_2,_8,_1))", Cute("(_2,_2,_2):(_2,_8,_1)")),
    (Unit, "composition((_4,_8,_2):(_2,_8,_1), (_2,_2,_2):(_1,_8,_2))", Cute("(_2,_2,_2):(_2,_16,_4)")),
    (Unit, "composition((_4,_8,_2):(_2,_8,_1), (_4,_2,_2):(_2,_8,_1))", Cute("(_4,_2,_2):(_4,_16,_2)")),
    (Unit, "composition(12:1, _4:_1)", Cute("_4:1")),
    (Unit, "composition(12:1, _4:1)", Cute("_4:1")),
    (Unit, "composition(12:_1, _4:1)", Cute("_4:1")),
    (Unit, "composition(12:_1, _4:_1)", Cute("_4:_1")),
    (Unit, "composition((12,3):(1,24), (_4):(_1))", Cute("((4,1)):((1,24))")),
    (Unit, "composition(16:2, 4:2)", Cute("4:4")),
    (Unit, "composition((128,24,5):(1,128,3072), 64:2)", Cute("(64,1,1):(2,128,3072)")),
    (Unit, "composition((128,24,5):(1,128,3072), 480:_32)", Cute("(4,24,5):(32,128,3072)")),
    (Unit, "composition((_1):(_0), make_layout((_4)))", Cute("(_4):(_0)")),
    (Unit, "composition((_1):(_1), make_layout((_4)))", Cute("(_4):(_1)")),
    (Unit, "composition(make_layout((_4)), (_4):(_2))", Cute("(_4):(_2)")),
    (Unit, "composition((_4,_3):(_3,_1), make_layout((_24)))", Cute("((_4,_6)):((_3,_1))")),
    (Unit, "composition((_4,_3):(_3,_1), make_layout((_8)))", Cute("((_4,_2)):((_3,_1))")),
    (Unit, "composition((_4,_3,_1):(_3,_1,_0), make_layout((_24)))", Cute("((_4,_3,_2)):((_3,_1,_0))")),
    (Unit, "composition(3:_1, _4:_1)", Cute("_4:_1")),
    (Unit, "composition((48,24,5):(_1,128,3072), 32:_1)", Cute("(32,1,1):(_1,128,3072)")),
    (Unit, "composition((_4):(_-1), (_4):(_1))", Cute("(_4):(_-1)")),
    (Unit, "composition((_4):(_1), (_4):(_-1))", Cute("(_4):(_-1)")),
    (Unit, "composition((_4):(_-1), (_4):(_-1))", Cute("(_4):(_1)")),
    (Unit, "composition((_4):(_1), (_4):(_-2))", Cute("(_4):(_-2)")),
    (
        Unit,
        "composition((_4,_4):(_-1,_1), make_layout((_2,_4,_2)))",
        Cute("(_2,(_2,_2),_2):(_-1,(_-2,_1),_2)"),
    ),
    (Unit, "composition((_4,_4):(_-1,_1), (_2,_4,_2):(_1,_4,_2))", Cute("(_2,_4,_2):(_-1,_1,_-2)")),
    (Unit, "composition((_1,(_2,_4)):(_0,(_-1,_512)), _2:_-1)", Cute("_2:_1")),
    (Unit, "composition((_1,(_2,_4)):(_0,(_-1,_512)), _4:_-1)", Cute("(_2,_2):(_1,_-512)")),
    (Ref2, "composition((6,2):(1,7), (3,2):(2,3))", Wrong("((3,1),(2,1)):((2,7),(3,7))")),
    (Ref2, "composition((_6,_2):(_1,_7), (_3,_2):(_2,_3))", Wrong("(_3,_2):(_2,_3)")),
    (Ref2, "composition((6,6):(6,1), 12:4)", Wrong("(2,6):(24,1)")),
    (Ref2, "composition((_6,_6):(_6,_1), _12:_4)", Wrong("(_2,_6):(_24,_1)")),
];

/// `complement`, with the cosizes the docs state beside it.
const COMPLEMENT: &[Row] = &[
    (Docs02, "complement(_4:_1, _24)", Cute("_6:_4")),
    (Docs02, "cosize((_4,_6):(_1,_4))", Cute("_24")),
    (Docs02, "complement(_6:_4, _24)", Cute("_4:_1")),
    (Docs02, "cosize((_6,_4):(_4,_1))", Cute("_24")),
    (Docs02, "complement((_4,_6):(_1,_4), _24)", Cute("_1:_0")),
    (Docs02, "complement(_4:_2, _24)", Cute("(_2,_3):(_1,_8)")),
    (Docs02, "cosize((_4,(_2,_3)):(_2,(_1,_8)))", Cute("_24")),
    (Docs02, "complement((_2,_4):(_1,_6), _24)", Cute("_3:_2")),
    (Docs02, "cosize(((_2,_4),_3):((_1,_6),_2))", Cute("_24")),
    (Docs02, "complement((_2,_2):(_1,_6), _24)", Cute("(_3,_2):(_2,_12)")),
    (Docs02, "cosize(((_2,_2),(_3,_2)):((_1,_6),(_2,_12)))", Cute("_24")),
    (Flir4, "complement(_3:_1, _12)", Cute("_4:_3")),
    (Flir4, "complement((_3,_2):(_2,_1), _12)", Cute("_2:_6")),
    // FLIR: "Non-injective Layout detected in complement". Overlapping modes: const-layout's
    // complement is whole copies of the layout's span, ceil(12 / cosize) : cosize.
    (Flir4, "complement((_3,_2):(_1,_2), _12)", Math("_3:_5")),
    // FLIR reports a non-injective layout; CuTe filters the stride-0 mode.
    (Flir4, "complement(_3:_0, _12)", Cute("_12:_1")),
    (Flir4, "complement(3:1, 12)", Cute("(1,4):(_1,3)")),
    // CuTe: "Dynamic-stride complement only for rank-1 layouts" (FLIR's test uses a runtime stride too);
    // const-layout answers by value.
    (Flir4, "complement((3,2):(2,1), 12)", Math("2:6")),
    (Fly7, "complement(_4:_1, _32)", Cute("_8:_4")),
    (Unit, "complement(_1:_0)", Cute("_1:_0")),
    (Unit, "complement(_1:_0, _2)", Cute("_2:_1")),
    (Unit, "complement(_1:_0, _5)", Cute("_5:_1")),
    (Unit, "complement(_1:_0, (_2,2))", Cute("(_2,2):(_1,_2)")),
    (Unit, "complement(_1:_1)", Cute("_1:_0")),
    (Unit, "complement(_1:_1, _2)", Cute("_2:_1")),
    (Unit, "complement(_1:_1, _5)", Cute("_5:_1")),
    (Unit, "complement(_1:_1, (_2,2))", Cute("(_2,2):(_1,_2)")),
    (Unit, "complement(_1:_2, _1)", Cute("_1:_0")),
    (Unit, "complement(_1:_2, _2)", Cute("_2:_1")),
    (Unit, "complement(_1:_2, _8)", Cute("_8:_1")),
    (Unit, "complement(_1:_2, _5)", Cute("_5:_1")),
    (Unit, "complement(_1:_2, (_2,2))", Cute("(_2,2):(_1,_2)")),
    (Unit, "complement(_4:_0, _1)", Cute("_1:_0")),
    (Unit, "complement(_4:_0, _2)", Cute("_2:_1")),
    (Unit, "complement(_4:_0, _8)", Cute("_8:_1")),
    (Unit, "complement(_4:_1, _1)", Cute("_1:_0")),
    (Unit, "complement(_4:_1, _2)", Cute("_1:_0")),
    (Unit, "complement(_4:_1, _8)", Cute("_2:_4")),
    (Unit, "complement(_4:_2, _1)", Cute("_2:_1")),
    (Unit, "complement(_4:_2)", Cute("_2:_1")),
    (Unit, "complement(_4:_2, _16)", Cute("(_2,_2):(_1,_8)")),
    (Unit, "complement(_4:_2, _19)", Cute("(_2,_3):(_1,_8)")),
    (Unit, "complement(_4:_2, (_2,2))", Cute("(_2,1):(_1,_8)")),
    (Unit, "complement(_4:_4, _1)", Cute("_4:_1")),
    (Unit, "complement(_4:_4)", Cute("_4:_1")),
    (Unit, "complement(_4:_4, _17)", Cute("(_4,_2):(_1,_16)")),
    (Unit, "complement(_4:_4, (_2,2))", Cute("(_4,1):(_1,_16)")),
    (Unit, "complement(make_layout((_2,_4)))", Cute("_1:_0")),
    (Unit, "complement(make_layout((_2,_3)))", Cute("_1:_0")),
    (Unit, "complement((_2,_4):(_1,_4))", Cute("_2:_2")),
    (Unit, "complement((_2,_4):(_1,_6))", Cute("_3:_2")),
    (Unit, "complement((_2,_4,_8):(_8,_1,_64))", Cute("(_2,_4):(_4,_16)")),
    (Unit, "complement((_2,_4,_8):(_8,_1,_0))", Cute("_2:_4")),
    (Unit, "complement((_2,_4,_8):(_8,_1,_0), _460)", Cute("(_2,_29):(_4,_16)")),
    (Unit, "complement(((_2,_2),(_2,_2)):((_1,_4),(_8,_32)))", Cute("(_2,_2):(_2,_16)")),
    (Unit, "complement(((_2,_2),(_2,_2)):((_1,_32),(_8,_4)))", Cute("(_2,_2):(_2,_16)")),
    // Commented out in CuTe's test: "Fails due to non-injective layout". Overlapping modes: whole
    // copies of the layout's span (the postconditions hold).
    (Unit, "complement(((_2,_2),(_2,_2)):((_1,_8),(_8,_4)))", Math("_1:_0")),
    (Unit, "complement((_2,_2):(_2,_3))", Math("_1:_0")),
    (Unit, "complement((_2,_2):(_2,_3), _19)", Math("_4:_6")),
    // Strides that do not nest (6 is not a multiple of 4): CuTe's answers satisfy its
    // postconditions, and they are const-layout's.
    (Unit, "complement((_4,_6):(_1,_6))", Cute("_1:_0")),
    (Unit, "complement((_4,_2):(_1,_10))", Cute("_2:_4")),
    (Unit, "complement((_4,_2):(_1,_16))", Cute("_4:_4")),
    (Unit, "complement(make_layout(12), 1)", Cute("1:12")),
    (Unit, "complement(make_layout(12))", Cute("1:12")),
    (Unit, "complement(make_layout(12), 53)", Cute("5:12")),
    (Unit, "complement(make_layout(12), 128)", Cute("11:12")),
    (Unit, "complement(12:1, 1)", Cute("(1,1):(_1,12)")),
    (Unit, "complement(12:1)", Cute("(1,1):(_1,12)")),
    (Unit, "complement(12:1, 53)", Cute("(1,5):(_1,12)")),
    (Unit, "complement(12:1, 128)", Cute("(1,11):(_1,12)")),
    (Unit, "complement(12:_2, 1)", Cute("(_2,1):(_1,24)")),
    (Unit, "complement(12:_2)", Cute("(_2,1):(_1,24)")),
    (Unit, "complement(12:_2, 53)", Cute("(_2,3):(_1,24)")),
    (Unit, "complement(12:_2, 128)", Cute("(_2,6):(_1,24)")),
    (Unit, "complement(12:2, 1)", Cute("(2,1):(_1,24)")),
    (Unit, "complement(12:2)", Cute("(2,1):(_1,24)")),
    (Unit, "complement(12:2, 53)", Cute("(2,3):(_1,24)")),
    (Unit, "complement(12:2, 128)", Cute("(2,6):(_1,24)")),
    (Unit, "complement((3,6):(_1,_3))", Cute("(1,1):(3,18)")),
    (Unit, "complement((3,6):(_1,_9))", Cute("(3,1):(3,54)")),
    (Unit, "complement((3,6):(_1,_10))", Cute("(3,1):(3,60)")),
    (Unit, "complement(((2,2),(2,2)):((_1,_4),(_8,_32)))", Cute("(2,1,2,1):(2,8,16,64)")),
    (Unit, "complement(make_layout(_64), (_32,_4,_4))", Cute("_8:_64")),
    (Unit, "complement(make_layout(_64), (_32,_4,4))", Cute("(_2,4):(_64,_128)")),
];

/// The divides: logical, zipped, tiled, flat.
const DIVIDE: &[Row] = &[
    // Also figure `divide1.png` (offsets checked in `figure_offsets`).
    (Docs02, "logical_divide((_4,_2,_3):(_2,_1,_8), _4:_2)", Cute("((_2,_2),(_2,_3)):((_4,_1),(_2,_8))")),
    // The text's `(B,B*)`.
    (Docs02, "make_layout(_4:_2, complement(_4:_2, _24))", Cute("(_4,(_2,_3)):(_2,(_1,_8))")),
    (
        Docs02,
        "composition((_4,_2,_3):(_2,_1,_8), (_4,(_2,_3)):(_2,(_1,_8)))",
        Cute("((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"),
    ),
    // The earlier revision divides `A = (2,4,3):(4,1,8)` and states `((2,2),(2,3)):((4,1),(2,8))`, which
    // is the current text's result for `A = (4,2,3):(2,1,8)` (first row); CuTe gives this for the earlier
    // `A`.
    (Docs02Old, "logical_divide((_2,_4,_3):(_4,_1,_8), _4:_2)", Cute("(_4,(_2,_3)):(_1,(_4,_8))")),
    // Also figure `divide2.png`.
    (
        Docs02,
        "logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("((_3,_3),((_2,_4),(_2,_2))):((_177,_59),((_13,_2),(_26,_1)))"),
    ),
    // The text: the first mode of each mode of the divide. The earlier revision wrote
    // `(3,(2,4)):(236,(13,52))`.
    (
        Docs02,
        "composition((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("(_3,(_2,_4)):(_177,(_13,_2))"),
    ),
    // The text states the shapes: `((3,3),(8,4))` for logical_divide, `((3,8),(3,4))` here.
    (
        Docs02,
        "zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("((_3,(_2,_4)),(_3,(_2,_2))):((_177,(_13,_2)),(_59,(_26,_1)))"),
    ),
    (
        Docs02,
        "get(zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>), _0)",
        Cute("(_3,(_2,_4)):(_177,(_13,_2))"),
    ),
    (
        Docs02,
        "tiled_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("((_3,(_2,_4)),_3,(_2,_2)):((_177,(_13,_2)),_59,(_26,_1))"),
    ),
    (
        Docs02,
        "flat_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("(_3,(_2,_4),_3,(_2,_2)):(_177,(_13,_2),_59,(_26,_1))"),
    ),
    // The offsets of the 3rd, 7th and (1,2)th tiles, `zd(0,3)`, `zd(0,7)`, `zd(0,(1,2))`; figure
    // `divide3.png` shows them in its row 0.
    (
        Docs02,
        "crd2idx((0,3), zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>))",
        Cute("26"),
    ),
    (
        Docs02,
        "crd2idx((0,7), zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>))",
        Cute("60"),
    ),
    (
        Docs02,
        "crd2idx((0,(1,2)), zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>))",
        Cute("60"),
    ),
    // Fly's result equals CuTe's, but its size is 648, not size(A) = 756: stride 7 is not a multiple of 6,
    // and CuTe's complement of the tiler, 18:42, leaves the last element of A uncovered. const-layout's
    // covers it, 19:42, and then the composition has no layout (19 is not a multiple of 2).
    (
        Fly7,
        "logical_divide((_14,_6,_9):(_19,_69,_1), (_2,_3,_6):(_7,_14,_1))",
        Stricter("((_2,_3,_6),(_2,_9)):((_133,_69,_19),(_207,_1))"),
    ),
    (
        Fly7,
        "tiled_divide((_14,_6,_9):(_19,_69,_1), (_2,_3,_6):(_7,_14,_1))",
        Stricter("((_2,_3,_6),_2,_9):((_133,_69,_19),_207,_1)"),
    ),
    (Fly7, "flat_divide((_4,_8):(_1,_4), (_2,_4):(_1,_2))", Cute("(_2,_4,_4):(_1,_2,_8)")),
    // flir.md: leaves `[3,9,2,9]`, `[2,6,1,54]`.
    (Flir4, "logical_divide((_9,_6,_9):(_6,_1,_54), _3:_18)", Cute("(_3,((_9,_2),_9)):(_2,((_6,_1),_54))")),
    // FLIR applies the layout `(2,(3,6)):(7,(1,3))` by mode; the CuTe tiler for that is `<2:7,
    // (3,6):(1,3)>`. The result is flir.md's.
    (
        Flir4,
        "logical_divide((_14,(_6,_9)):(_19,(_69,_1)), <_2:_7, (_3,_6):(_1,_3)>)",
        Cute("((_2,_7),((_3,(_2,_3)),_3)):((_133,_19),((_69,(_207,_1)),_3))"),
    ),
    // FLIR's zipped/tiled/flat divides are all `[2,3,2,3,7,3]`, `[133,69,207,1,19,3]` (these three,
    // flattened).
    (
        Flir4,
        "zipped_divide((_14,(_6,_9)):(_19,(_69,_1)), <_2:_7, (_3,_6):(_1,_3)>)",
        Cute("((_2,(_3,(_2,_3))),(_7,_3)):((_133,(_69,(_207,_1))),(_19,_3))"),
    ),
    (
        Flir4,
        "tiled_divide((_14,(_6,_9)):(_19,(_69,_1)), <_2:_7, (_3,_6):(_1,_3)>)",
        Cute("((_2,(_3,(_2,_3))),_7,_3):((_133,(_69,(_207,_1))),_19,_3)"),
    ),
    (
        Flir4,
        "flat_divide((_14,(_6,_9)):(_19,(_69,_1)), <_2:_7, (_3,_6):(_1,_3)>)",
        Cute("(_2,(_3,(_2,_3)),_7,_3):(_133,(_69,(_207,_1)),_19,_3)"),
    ),
    (Flir4, "logical_divide(_12:_1, _3:_1)", Cute("(_3,_4):(_1,_3)")),
    (Flir4, "size(logical_divide(12:1, 3:1))", Cute("12")),
    // flir.md's model of the nested divide by `(3,(2,4)):(3,(1,8))`, as a CuTe tiler.
    (
        Flir4,
        "logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)",
        Cute("((_3,_3),((_2,_4),(_2,_2))):((_177,_59),((_13,_2),(_26,_1)))"),
    ),
    (Unit, "logical_divide(_1:_0, _1:_0)", Cute("(_1,_1):(_0,_0)")),
    (Unit, "logical_divide(_1:_0, _1:_1)", Cute("(_1,_1):(_0,_0)")),
    (Unit, "logical_divide(_1:_1, _1:_0)", Cute("(_1,_1):(_0,_0)")),
    (Unit, "logical_divide(_1:_1, _1:_1)", Cute("(_1,_1):(_1,_0)")),
    (Unit, "logical_divide(_6:_1, _2:_1)", Cute("(_2,_3):(_1,_2)")),
    (Unit, "logical_divide(_6:_1, _2:_3)", Cute("(_2,_3):(_3,_1)")),
    (Unit, "logical_divide(_6:_1, (_2,_3):(_3,_1))", Cute("((_2,_3),_1):((_3,_1),_0)")),
    (Unit, "logical_divide(_6:_2, _2:_1)", Cute("(_2,_3):(_2,_4)")),
    (Unit, "logical_divide(_6:_2, _2:_3)", Cute("(_2,_3):(_6,_2)")),
    (Unit, "logical_divide(_6:_2, (_2,_3):(_3,_1))", Cute("((_2,_3),_1):((_6,_2),_0)")),
    (
        Unit,
        "logical_divide((_6,_6):(_1,_12), (_6,_3):(_3,_1))",
        Cute("(((_2,_3),_3),_2):(((_3,_12),_1),_36)"),
    ),
    (
        Unit,
        "logical_divide((_6,_6):(_12,_1), (_6,_3):(_3,_1))",
        Cute("(((_2,_3),_3),_2):(((_36,_1),_12),_3)"),
    ),
    (Unit, "logical_divide(make_layout(_32), _2:_8)", Cute("(_2,(_8,_2)):(_8,(_1,_16))")),
    (Unit, "logical_divide((_4,_1):(_1,_1), _2:_1)", Cute("(_2,_2):(_1,_2)")),
    (Unit, "logical_divide((_4,_1):(_1,_1), _2:_2)", Cute("(_2,_2):(_2,_1)")),
    (Unit, "logical_divide((_8,_8):(_1,_8), _32:_2)", Cute("(_32,_2):(_2,_1)")),
    (Unit, "logical_divide((_8,_8):(_8,_1), _32:_2)", Cute("((_4,_8),_2):((_16,_1),_8)")),
    (Unit, "logical_divide(make_layout(2), make_layout(_32))", Cute("(_32,1):(_1,_32)")),
    (Unit, "logical_divide(make_layout(48), make_layout(_32))", Cute("(_32,2):(_1,_32)")),
    (Unit, "logical_divide(make_layout(96), _32:_2)", Cute("(_32,(_2,2)):(_2,(_1,_64))")),
    (Unit, "logical_divide(make_layout(32), make_layout(_48))", Cute("(_48,1):(_1,_48)")),
    // Commented out in CuTe's test as DISALLOWED (this and the next two); CuTe 4.2.0 prints these.
    (
        Unit,
        "logical_divide((128,4,3):(1,512,0), make_layout(_32))",
        Cute("((32,1,1),(4,4,3)):((1,512,0),(32,512,0))"),
    ),
    (
        Unit,
        "logical_divide((128,4,3):(1,512,0), _32:_2)",
        Cute("((32,1,1),((2,1,1),(2,4,3))):((2,512,0),((1,512,0),(64,512,0)))"),
    ),
    (
        Unit,
        "logical_divide((16,4,3):(1,512,0), make_layout(_32))",
        Cute("((16,2,1),(1,2,3)):((1,512,0),(32,1024,0))"),
    ),
];

/// The products: logical, blocked, raked, zipped, tiled, flat.
const PRODUCT: &[Row] = &[
    // Also figure `product1.png`.
    (Docs02, "logical_product((_2,_2):(_4,_1), _6:_1)", Cute("((_2,_2),(_2,_3)):((_4,_1),(_2,_8))")),
    (Docs02, "complement((_2,_2):(_4,_1), _24)", Cute("(_2,_3):(_2,_8)")),
    (Docs02, "composition((_2,_3):(_2,_8), _6:_1)", Cute("(_2,_3):(_2,_8)")),
    // Figure `product2.png`; the text says only that there are 8 tiles.
    (
        Docs02Fig,
        "logical_product((_2,_2):(_4,_1), (_4,_2):(_2,_1))",
        Cute("((_2,_2),(_4,_2)):((_4,_1),(_8,_2))"),
    ),
    // Figure `product2d.png`.
    (
        Docs02Fig,
        "logical_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)",
        Cute("((_2,_3),(_5,_4)):((_5,_10),(_1,_30))"),
    ),
    // Figure `productblocked2d.png` states `(6,(5,4)):(5,(1,30))`, and the text says blocked_product
    // coalesces mode 0; CuTe 4.2.0 does not (the same function).
    (
        Docs02Fig,
        "blocked_product((_2,_5):(_5,_1), make_layout((_3,_4)))",
        Cute("((_2,_3),(_5,_4)):((_5,_10),(_1,_30))"),
    ),
    // Figure `productraked2d.png`.
    (
        Docs02Fig,
        "raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))",
        Cute("((_3,_2),(_4,_5)):((_10,_5),(_30,_1))"),
    ),
    // The text gives only the mode patterns of zipped, tiled and flat products; here on the 2-D example.
    (
        Docs02,
        "zipped_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)",
        Cute("((_2,_5),(_3,_4)):((_5,_1),(_10,_30))"),
    ),
    (Docs02, "tiled_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)", Cute("((_2,_5),_3,_4):((_5,_1),_10,_30)")),
    (Docs02, "flat_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)", Cute("(_2,_5,_3,_4):(_5,_1,_10,_30)")),
    (
        Fly7,
        "blocked_product((_4,_8):(_1,_4), (_2,_2):(_1,_2))",
        Cute("((_4,_2),(_8,_2)):((_1,_32),(_4,_64))"),
    ),
    (Fly7, "raked_product((_4,_8):(_1,_4), (_2,_2):(_1,_2))", Cute("((_2,_4),(_2,_8)):((_32,_1),(_64,_4))")),
    // flir.md writes `(4,8):(8,1)`; CuTe's result has rank 1 (the same function).
    (Fly7, "raked_product(_8:_1, _4:_1)", Cute("((_4,_8)):((_8,_1))")),
    // flir.md: leaves `[6,9,9]`, `[9,1,54]`.
    (Flir4, "logical_product((_6,_9):(_9,_1), _9:_1)", Cute("((_6,_9),_9):((_9,_1),_54)")),
    // FLIR's blocked product is the flat logical product `[3,6,4,5]`, `[6,1,18,72]`; flir.md's CuTe value
    // is this.
    (
        Flir4,
        "blocked_product((_3,_6):(_6,_1), (_4,_5):(_1,_4))",
        Cute("((_3,_4),(_6,_5)):((_6,_18),(_1,_72))"),
    ),
    // FLIR: `[3,6,4,5]`, `[6,1,18,72]`.
    (Flir4, "flat_product((_3,_6):(_6,_1), (_4,_5):(_1,_4))", Cute("(_3,_6,_4,_5):(_6,_1,_18,_72)")),
    // FLIR gives `(4,2):(2,4)` (overlapping).
    (Flir5, "logical_product(_4:_2, _2:_1)", Cute("(_4,_2):(_2,_1)")),
    (Unit, "logical_product(_1:_0, _1:_0)", Cute("(_1,_1):(_0,_0)")),
    (Unit, "logical_product(_1:_1, _1:_0)", Cute("(_1,_1):(_1,_0)")),
    (Unit, "logical_product(_1:_0, _1:_1)", Cute("(_1,_1):(_0,_0)")),
    (Unit, "logical_product(_1:_1, _1:_1)", Cute("(_1,_1):(_1,_0)")),
    (Unit, "logical_product(_3:_1, _4:_0)", Cute("(_3,_4):(_1,_0)")),
    (Unit, "logical_product(_3:_0, _4:_1)", Cute("(_3,_4):(_0,_1)")),
    (Unit, "logical_product(_3:_0, _4:_0)", Cute("(_3,_4):(_0,_0)")),
    (Unit, "logical_product(_3:_2, _4:_1)", Cute("(_3,(_2,_2)):(_2,(_1,_6))")),
    (Unit, "logical_product(make_layout((_3)), make_layout((_2,_4)))", Cute("((_3),(_2,_4)):((_1),(_3,_6))")),
    (Unit, "logical_product(make_layout((_2,_4)), make_layout((_3)))", Cute("((_2,_4),(_3)):((_1,_2),(_8))")),
    (
        Unit,
        "logical_product(make_layout((_8,(_2,_2))), (_4):(_2))",
        Cute("((_8,(_2,_2)),(_4)):((_1,(_8,_16)),(_64))"),
    ),
    (
        Unit,
        "logical_product(make_layout((_2,_2)), (_3,_3):(_3,_1))",
        Cute("((_2,_2),(_3,_3)):((_1,_2),(_12,_4))"),
    ),
    (Unit, "logical_product((_3):(_32), make_layout((_32)))", Cute("((_3),(_32)):((_32),(_1))")),
    (Unit, "logical_product((_3):(_2), make_layout((_4)))", Cute("((_3),((_2,_2))):((_2),((_1,_6)))")),
    (Unit, "logical_product((_3):(_32), make_layout((_128)))", Cute("((_3),((_32,_4))):((_32),((_1,_96)))")),
    (
        Unit,
        "logical_product((_3):(_32), make_layout((_8,_8)))",
        Cute("((_3),(_8,(_4,_2))):((_32),(_1,(_8,_96)))"),
    ),
    (Unit, "logical_product((_3):(_32), (_8,_8):(_8,_1))", Cute("((_3),((_4,_2),_8)):((_32),((_8,_96),_1))")),
    (
        Unit,
        "logical_product(((_4,_2)):((_1,_16)), make_layout((_4,_4)))",
        Cute("(((_4,_2)),(_4,_4)):(((_1,_16)),(_4,_32))"),
    ),
    (
        Unit,
        "logical_product(((_4,_2)):((_1,_16)), (_4,_2):(_2,_1))",
        Cute("(((_4,_2)),((_2,_2),_2)):(((_1,_16)),((_8,_32),_4))"),
    ),
    (
        Unit,
        "logical_product(((_2,_2),(_2,_2)):((_1,_4),(_8,_32)), (_2,_2):(_1,_2))",
        Cute("(((_2,_2),(_2,_2)),(_2,_2)):(((_1,_4),(_8,_32)),(_2,_16))"),
    ),
    (
        Unit,
        "logical_product(((_2,_2),(_2,_2)):((_1,_4),(_8,_32)), (_2,_2):(_2,_1))",
        Cute("(((_2,_2),(_2,_2)),(_2,_2)):(((_1,_4),(_8,_32)),(_16,_2))"),
    ),
    // The modes of `(4,6):(1,6)` do not nest (6 is not a multiple of 4); CuTe's complement, `_3:_36`,
    // satisfies its postconditions, and the product is injective.
    (Unit, "logical_product(((_4,_6)):((_1,_6)), (_3):(_1))", Cute("(((_4,_6)),(_3)):(((_1,_6)),(_36))")),
];

/// `left_inverse`, `right_inverse`, `nullspace` (CuTe's unit tests only).
const INVERSE: &[Row] = &[
    (Unit, "left_inverse((_1):(_0))", Cute("_1:_0")),
    (Unit, "left_inverse(((_1,_1)):((_0,_0)))", Cute("_1:_0")),
    (Unit, "left_inverse((_1):(_1))", Cute("_1:_0")),
    (Unit, "left_inverse((_4):(_1))", Cute("_4:_1")),
    (Unit, "left_inverse((_4):(_2))", Cute("(_2,_4):(_0,_1)")),
    (Unit, "left_inverse(make_layout((_8,_4)))", Cute("_32:_1")),
    (Unit, "left_inverse(filter((_8,_4):(_4,_1)))", Cute("(_4,_8):(_8,_1)")),
    (Unit, "left_inverse(make_layout((_2,_4,_6)))", Cute("_48:_1")),
    (Unit, "left_inverse((_2,_4,_6):(_4,_1,_8))", Cute("(_4,_2,_6):(_2,_1,_8)")),
    (Unit, "left_inverse((_4,_2):(_1,_16))", Cute("(_16,_2):(_1,_4)")),
    // Negative strides are "beta" in CuTe; const-layout's left_inverse rejects them.
    (Unit, "left_inverse((_4):(_-1))", Stricter("(_-1,_4):(_0,_1)")),
    (Unit, "right_inverse(_1:_0)", Cute("_1:_0")),
    (Unit, "right_inverse(_1:_1)", Cute("_1:_0")),
    (Unit, "right_inverse((_4):(_0))", Cute("_1:_0")),
    (Unit, "right_inverse(((_1,_1)):((_0,_0)))", Cute("_1:_0")),
    (Unit, "right_inverse(((_3,_7)):((_0,_0)))", Cute("_1:_0")),
    (Unit, "right_inverse((_1):(_1))", Cute("_1:_0")),
    (Unit, "right_inverse((_4):(_1))", Cute("_4:_1")),
    (Unit, "right_inverse((_4):(_2))", Cute("_1:_0")),
    (Unit, "right_inverse((_2,_4):(_0,_2))", Cute("_1:_0")),
    (Unit, "right_inverse(make_layout((_8,_4)))", Cute("_32:_1")),
    (Unit, "right_inverse((_8,_4):(_4,_1))", Cute("(_4,_8):(_8,_1)")),
    (Unit, "right_inverse(make_layout((_2,_4,_6)))", Cute("_48:_1")),
    (Unit, "right_inverse((_2,_4,_6):(_4,_1,_8))", Cute("(_4,_2,_6):(_2,_1,_8)")),
    (Unit, "right_inverse((_2,_4,_4,_6):(_4,_1,_0,_8))", Cute("(_4,_2,_6):(_2,_1,_32)")),
    (Unit, "right_inverse((_4,_2):(_1,_16))", Cute("_4:_1")),
    (Unit, "right_inverse((_4,_2):(_1,_5))", Cute("_4:_1")),
    // CuTe (`_4:_1`, `_4:_1`, `4:_1`) stops at the runtime stride 4, which continues the chain.
    (Unit, "right_inverse((_4,_2):(_1,4))", Math("8:1")),
    (Unit, "right_inverse((_4,2):(_1,4))", Math("8:1")),
    (Unit, "right_inverse((4,2):(_1,4))", Math("8:1")),
    (Unit, "right_inverse((_4):(_-1))", Cute("_1:_0")),
    (Unit, "nullspace((_2,_2,_2):(_0,_0,_0))", Cute("(_2,_2,_2):(_1,_2,_4)")),
    (Unit, "nullspace((_7,_5,_16):(_0,_0,_0))", Cute("(_7,_5,_16):(_1,_7,_35)")),
    (Unit, "nullspace((_2,_2,_2):(_1,_0,_2))", Cute("_2:_2")),
    (Unit, "nullspace((_7,_5,_16):(_3,_1,_0))", Cute("_16:_35")),
];

/// Sublayouts, `select`, `take`, concatenation, `append`/`prepend`/`replace`, `group`, `flatten`.
const MODES: &[Row] = &[
    // The text prints the static layouts of this section without `_` ("(4,(3,6)):(1,(4,12))"), up to
    // `group`.
    (Docs01, "make_layout((_4,(_3,_6)))", Cute("(_4,(_3,_6)):(_1,(_4,_12))")),
    (Docs01, "get(make_layout((_4,(_3,_6))), _0)", Cute("_4:_1")),
    (Docs01, "get(make_layout((_4,(_3,_6))), _1)", Cute("(_3,_6):(_4,_12)")),
    (Docs01, "get(get(make_layout((_4,(_3,_6))), _1), _0)", Cute("_3:_4")),
    (Docs01, "get(get(make_layout((_4,(_3,_6))), _1), _1)", Cute("_6:_12")),
    (Docs01, "make_layout((_2,_3,_5,_7))", Cute("(_2,_3,_5,_7):(_1,_2,_6,_30)")),
    (Docs01, "select<1,3>(make_layout((_2,_3,_5,_7)))", Cute("(_3,_7):(_2,_30)")),
    (Docs01, "select<0,1,3>(make_layout((_2,_3,_5,_7)))", Cute("(_2,_3,_7):(_1,_2,_30)")),
    (Docs01, "select<2>(make_layout((_2,_3,_5,_7)))", Cute("(_5):(_6)")),
    (Docs01, "take<1,3>(make_layout((_2,_3,_5,_7)))", Cute("(_3,_5):(_2,_6)")),
    (Docs01, "take<1,4>(make_layout((_2,_3,_5,_7)))", Cute("(_3,_5,_7):(_2,_6,_30)")),
    (Docs01, "make_layout(_3:_1, _4:_3)", Cute("(_3,_4):(_1,_3)")),
    (Docs01, "make_layout(_4:_3, _3:_1)", Cute("(_4,_3):(_3,_1)")),
    (
        Docs01,
        "make_layout(make_layout(_3:_1, _4:_3), make_layout(_4:_3, _3:_1))",
        Cute("((_3,_4),(_4,_3)):((_1,_3),(_3,_1))"),
    ),
    (Docs01, "make_layout(_3:_1)", Cute("(_3):(_1)")),
    (Docs01, "make_layout(make_layout(_3:_1))", Cute("((_3)):((_1))")),
    (Docs01, "make_layout(_3:_1, make_layout(_3:_1), _3:_1)", Cute("(_3,(_3),_3):(_1,(_1),_1)")),
    (Docs01, "append(_3:_1, _4:_3)", Cute("(_3,_4):(_1,_3)")),
    (Docs01, "prepend(_3:_1, _4:_3)", Cute("(_4,_3):(_3,_1)")),
    (Docs01, "append((_3,_4):(_1,_3), (_3,_4):(_1,_3))", Cute("(_3,_4,(_3,_4)):(_1,_3,(_1,_3))")),
    (Docs01, "replace<2>(append((_3,_4):(_1,_3), (_3,_4):(_1,_3)), _4:_3)", Cute("(_3,_4,_4):(_1,_3,_3)")),
    (Docs01, "group<0,2>(make_layout((_2,_3,_5,_7)))", Cute("((_2,_3),_5,_7):((_1,_2),_6,_30)")),
    (
        Docs01,
        "group<1,3>(group<0,2>(make_layout((_2,_3,_5,_7))))",
        Cute("((_2,_3),(_5,_7)):((_1,_2),(_6,_30))"),
    ),
    (Docs01, "flatten(group<0,2>(make_layout((_2,_3,_5,_7))))", Cute("(_2,_3,_5,_7):(_1,_2,_6,_30)")),
    (
        Docs01,
        "flatten(group<1,3>(group<0,2>(make_layout((_2,_3,_5,_7)))))",
        Cute("(_2,_3,_5,_7):(_1,_2,_6,_30)"),
    ),
];

/// Construction, `compatible`, `idx2crd`, `crd2idx`, `cosize`, `get_flat_coord`.
const BASICS: &[Row] = &[
    (Docs01, "make_layout(_8)", Cute("_8:_1")),
    (Docs01, "make_layout(8)", Cute("8:_1")),
    (Docs01, "make_layout((_2,_4))", Cute("(_2,_4):(_1,_2)")),
    (Docs01, "make_layout((_2,4))", Cute("(_2,4):(_1,_2)")),
    (Docs01, "make_layout((_2,4), (_12,_1))", Cute("(_2,4):(_12,_1)")),
    (Docs01, "make_layout((_2,4), LayoutLeft)", Cute("(_2,4):(_1,_2)")),
    (Docs01, "make_layout((_2,4), LayoutRight)", Cute("(_2,4):(4,_1)")),
    (Docs01, "make_layout((2,(2,2)), (4,(2,1)))", Cute("(2,(2,2)):(4,(2,1))")),
    (Docs01, "make_layout((2,(2,2)), LayoutLeft)", Cute("(2,(2,2)):(_1,(2,4))")),
    (Docs01, "make_layout((2,(2,2)), LayoutRight)", Cute("(2,(2,2)):(4,(2,_1))")),
    (Docs01, "compatible(24, 32)", Cute("false")),
    (Docs01, "compatible(24, (4,6))", Cute("true")),
    (Docs01, "compatible((4,6), ((2,2),6))", Cute("true")),
    (Docs01, "compatible(((2,2),6), ((2,2),(3,2)))", Cute("true")),
    (Docs01, "compatible(24, ((2,2),(3,2)))", Cute("true")),
    (Docs01, "compatible(24, ((2,3),4))", Cute("true")),
    (Docs01, "compatible(((2,2),(3,2)), ((2,3),4))", Cute("false")),
    (Docs01, "compatible(24, (24))", Cute("true")),
    (Docs01, "compatible((24), 24)", Cute("false")),
    (Docs01, "compatible((24), (4,6))", Cute("false")),
    (Docs01, "idx2crd(16, (_3,(_2,_3)))", Cute("(1,(1,2))")),
    (Docs01, "idx2crd(_16, (_3,(_2,_3)))", Cute("(_1,(_1,_2))")),
    (Docs01, "idx2crd((1,5), (_3,(_2,_3)))", Cute("(1,(1,2))")),
    (Docs01, "idx2crd((_1,5), (_3,(_2,_3)))", Cute("(_1,(1,2))")),
    (Docs01, "idx2crd((1,(1,2)), (_3,(_2,_3)))", Cute("(1,(1,2))")),
    (Docs01, "idx2crd((_1,(1,_2)), (_3,(_2,_3)))", Cute("(_1,(1,_2))")),
    (Docs01, "crd2idx(16, (_3,(_2,_3)), (_3,(_12,_1)))", Cute("17")),
    (Docs01, "crd2idx(_16, (_3,(_2,_3)), (_3,(_12,_1)))", Cute("_17")),
    (Docs01, "crd2idx((1,5), (_3,(_2,_3)), (_3,(_12,_1)))", Cute("17")),
    (Docs01, "crd2idx((_1,5), (_3,(_2,_3)), (_3,(_12,_1)))", Cute("17")),
    (Docs01, "crd2idx((_1,_5), (_3,(_2,_3)), (_3,(_12,_1)))", Cute("_17")),
    (Docs01, "crd2idx((1,(1,2)), (_3,(_2,_3)), (_3,(_12,_1)))", Cute("17")),
    (Docs01, "crd2idx((_1,(_1,_2)), (_3,(_2,_3)), (_3,(_12,_1)))", Cute("_17")),
    // FLIR gives 2033 (a maximum).
    (Fly7, "cosize((_8,_128):(_1,_16))", Cute("_2040")),
    (Fly7, "idx2crd(_14, (_4,_8))", Cute("(_2,_3)")),
    (Fly7, "get_flat_coord(((_2,_4),_8):((_1,_2),_8), 5)", Cute("(5,0)")),
    // FLIR's idx2crd is row-major, `(2,11)`.
    (Flir5, "idx2crd(43, (8,16))", Cute("(3,5)")),
    // flir.md's CuTe values for a layout are CuTe's 3-argument idx2crd, offset to coordinate.
    (Flir5, "idx2crd(43, (8,16), (1,8))", Cute("(3,5)")),
    // FLIR gives `(0,50)`.
    (Flir5, "idx2crd(50, (8,128), (1,16))", Cute("(2,3)")),
    // FLIR's cosize is a maximum, 121.
    (Flir5, "cosize((8,16):(1,8))", Cute("128")),
    (Flir4, "crd2idx((2,3), (2,3):(1,16))", Cute("50")),
    (Flir4, "crd2idx((2,3), (32,64):(64,1))", Cute("131")),
    (Flir4, "idx2crd(35, (8,16), (16,1))", Cute("(2,3)")),
    (Flir4, "size((9,(4,8)):(59,(13,1)))", Cute("288")),
];

/// Swizzles and composed layouts.
const SWIZZLE: &[Row] = &[
    // The swizzled layouts of composition.cpp, and their offsets at a few indices.
    (Unit, "composition(Sw<2,0,-3>, (_8,_8):(_8,_1))", Cute("Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)")),
    (Unit, "composition(Sw<2,0,3>, (_8,_8):(_8,_1))", Cute("Sw<2,0,3> o _0 o (_8,_8):(_8,_1)")),
    (Unit, "crd2idx(5, composition(Sw<2,0,-3>, (_8,_8):(_8,_1)))", Cute("40")),
    (Unit, "crd2idx(27, composition(Sw<2,0,-3>, (_8,_8):(_8,_1)))", Cute("3")),
    (Unit, "crd2idx(63, composition(Sw<2,0,-3>, (_8,_8):(_8,_1)))", Cute("39")),
    // The casts of a swizzled layout: every part cast, the swizzle's base bit moved by log2(N).
    (Api, "upcast<2>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Cute("Sw<3,3,3> o _0 o (_8,_32):(_32,_1)")),
    (Api, "upcast<16>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Cute("Sw<3,0,3> o _0 o (_8,_4):(_4,_1)")),
    (Api, "upcast<32>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Cute("Sw<2,0,3> o _0 o (_8,_2):(_2,_1)")),
    (
        Api,
        "downcast<2>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))",
        Cute("Sw<3,5,3> o _0 o (_8,_128):(_128,_1)"),
    ),
    (
        Api,
        "recast_layout<16,32>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))",
        Cute("Sw<3,3,3> o _0 o (_8,_32):(_32,_1)"),
    ),
    (
        Api,
        "recast_layout<32,16>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))",
        Cute("Sw<3,5,3> o _0 o (_8,_128):(_128,_1)"),
    ),
    (Api, "upcast<2>(Sw<3,4,3>)", Cute("Sw<3,3,3>")),
    (Api, "upcast<3>(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Refused),
    // Inverses of swizzled layouts: the swizzle moved through the inverse layout.
    (Api, "right_inverse(composition(Sw<1,0,2>, (_4,_4):(_1,_4)))", Cute("Sw<1,0,2> o _0 o _16:_1")),
    (Api, "left_inverse(composition(Sw<1,0,2>, (_4,_4):(_1,_4)))", Cute("Sw<1,0,2> o _0 o _16:_1")),
    (
        Api,
        "right_inverse(composition(Sw<1,0,2>, (_4,_4):(_4,_1)))",
        Cute("Sw<1,0,-2> o _0 o (_4,_4):(_4,_1)"),
    ),
    (
        Api,
        "right_inverse(composition(Sw<2,0,3>, (_8,_8):(_8,_1)))",
        Cute("Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)"),
    ),
    (Api, "left_inverse(composition(Sw<2,0,-3>, (_8,_8):(_8,_1)))", Cute("Sw<2,0,3> o _0 o (_8,_8):(_8,_1)")),
    (Api, "right_inverse(composition(Sw<2,0,-3>, (_8,_8):(_1,_8)))", Cute("Sw<2,0,-3> o _0 o _64:_1")),
    (Api, "left_inverse(composition(Sw<3,0,3>, (_8,_8):(_8,_1)))", Cute("Sw<3,0,-3> o _0 o (_8,_8):(_8,_1)")),
    (Api, "right_inverse(composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Refused),
    // A swizzle with an offset (CuTe's three-argument composition), and its cast.
    (Api, "composition(Sw<2,3,3>, _16, (_8,_32):(_32,_1))", Cute("Sw<2,3,3> o _16 o (_8,_32):(_32,_1)")),
    (
        Api,
        "upcast<2>(composition(Sw<2,3,3>, _16, (_8,_32):(_32,_1)))",
        Cute("Sw<2,2,3> o _8 o (_8,_16):(_16,_1)"),
    ),
    // A layout composed with a swizzled layout: the swizzle moved through the layout.
    (
        Api,
        "composition((_4,_4):(_4,_1), composition(Sw<1,0,2>, _16:_1))",
        Cute("Sw<1,0,-2> o _0 o (_4,_4):(_4,_1)"),
    ),
    (
        Api,
        "composition((_8,_8):(_8,_1), composition(Sw<2,0,3>, (_8,_8):(_1,_8)))",
        Cute("Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)"),
    ),
    // Slices of a swizzled layout: the swizzle decays to a plain layout where it is linear.
    (Api, "slice((_,_2), composition(Sw<3,4,3>, (_8,_64):(_64,_1)))", Cute("((_2,_4)):((_64,_144))")),
    (Unit, "crd2idx(5, composition(Sw<2,0,3>, (_8,_8):(_8,_1)))", Cute("41")),
    (Unit, "crd2idx(27, composition(Sw<2,0,3>, (_8,_8):(_8,_1)))", Cute("24")),
    (Unit, "crd2idx(63, composition(Sw<2,0,3>, (_8,_8):(_8,_1)))", Cute("60")),
    // swizzle_xor16's examples (5,37,4), (0,5,4), (1,5,4), (3,20,4) and (7,0,8) as byte offsets
    // `row * 16k + col`: Sw<B,4,B> with k = 2^B moves each by the same xor.
    (Flir6, "crd2idx(357, Sw<2,4,2>)", Cute("373")),
    (Flir6, "crd2idx(5, Sw<2,4,2>)", Cute("5")),
    (Flir6, "crd2idx(69, Sw<2,4,2>)", Cute("85")),
    (Flir6, "crd2idx(212, Sw<2,4,2>)", Cute("228")),
    (Flir6, "crd2idx(896, Sw<3,4,3>)", Cute("1008")),
    // The swizzled layouts of inverse_left.cpp and inverse_right.cpp (their inverses are not in `eval`).
    (Unit, "composition(Sw<1,0,2>, (_4,_4):(_1,_4))", Cute("Sw<1,0,2> o _0 o (_4,_4):(_1,_4)")),
    (Unit, "composition(Sw<1,0,2>, (_4,_4):(_4,_1))", Cute("Sw<1,0,2> o _0 o (_4,_4):(_4,_1)")),
    (Unit, "composition(Sw<1,0,1>, (_4,_4):(_8,_1))", Cute("Sw<1,0,1> o _0 o (_4,_4):(_8,_1)")),
];

/// The docs' table `R(i) = A(B(i))` of the first composition example, and the offsets that the
/// figures show cell by cell (1-D figures in full; for 2-D figures a mode's offsets, one row or
/// column of the figure).
const FIGURE_OFFSETS: &[(Src, &str, &[isize])] = &[
    (Docs02, "composition((6,2):(8,2), (4,3):(3,1))", &[0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42]),
    (Docs02, "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))", &[0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42]),
    // divide1.png: A(c), then (A / B)(c).
    (
        Docs02Fig,
        "(_4,_2,_3):(_2,_1,_8)",
        &[0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15, 16, 18, 20, 22, 17, 19, 21, 23],
    ),
    (
        Docs02Fig,
        "logical_divide((_4,_2,_3):(_2,_1,_8), _4:_2)",
        &[0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 16, 20, 17, 21, 18, 22, 19, 23],
    ),
    // product1.png and product2.png.
    (
        Docs02Fig,
        "logical_product((_2,_2):(_4,_1), _6:_1)",
        &[0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 16, 20, 17, 21, 18, 22, 19, 23],
    ),
    (
        Docs02Fig,
        "logical_product((_2,_2):(_4,_1), (_4,_2):(_2,_1))",
        &[
            0, 4, 1, 5, 8, 12, 9, 13, 16, 20, 17, 21, 24, 28, 25, 29, 2, 6, 3, 7, 10, 14, 11, 15, 18, 22, 19,
            23, 26, 30, 27, 31,
        ],
    ),
    // composition1.png and composition2.png: the highlighted 3x8 cells, column by column.
    (
        Docs02Fig,
        "composition((12,(4,8)):(59,(13,1)), <_3:_4, _8:_2>)",
        &[
            0, 236, 472, 26, 262, 498, 1, 237, 473, 27, 263, 499, 2, 238, 474, 28, 264, 500, 3, 239, 475, 29,
            265, 501,
        ],
    ),
    (
        Docs02Fig,
        "composition((12,(4,8)):(59,(13,1)), (_3,_8))",
        &[
            0, 59, 118, 13, 72, 131, 26, 85, 144, 39, 98, 157, 1, 60, 119, 14, 73, 132, 27, 86, 145, 40, 99,
            158,
        ],
    ),
    // divide3.png: column 0 (the tile) and row 0 (the tiles' origins) of the zipped divide.
    (
        Docs02Fig,
        "get(zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>), _0)",
        &[
            0, 177, 354, 13, 190, 367, 2, 179, 356, 15, 192, 369, 4, 181, 358, 17, 194, 371, 6, 183, 360, 19,
            196, 373,
        ],
    ),
    (
        Docs02Fig,
        "get(zipped_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>), _1)",
        &[0, 59, 118, 26, 85, 144, 1, 60, 119, 27, 86, 145],
    ),
];

/// Cells `(row, column) = offset` of the 2-D figures, read off the images.
const FIGURE_CELLS: &[(&str, (isize, isize), isize)] = &[
    // divide2.png, top: A itself.
    ("(_9,(_4,_8)):(_59,(_13,_1))", (0, 1), 13),
    ("(_9,(_4,_8)):(_59,(_13,_1))", (3, 4), 178),
    ("(_9,(_4,_8)):(_59,(_13,_1))", (8, 31), 518),
    // divide2.png, bottom: the logical divide.
    ("logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)", (1, 1), 190),
    ("logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)", (3, 0), 59),
    ("logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)", (0, 8), 26),
    ("logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)", (6, 16), 119),
    ("logical_divide((_9,(_4,_8)):(_59,(_13,_1)), <_3:_3, (_2,_4):(_1,_8)>)", (8, 31), 518),
    // product2d.png and productblocked2d.png (the same table).
    ("logical_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)", (1, 5), 35),
    ("logical_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)", (3, 7), 47),
    ("logical_product((_2,_5):(_5,_1), <_3:_5, _4:_6>)", (5, 19), 119),
    ("blocked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (1, 5), 35),
    ("blocked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (3, 7), 47),
    ("blocked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (4, 12), 82),
    ("blocked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (5, 19), 119),
    // productraked2d.png.
    ("raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (0, 1), 30),
    ("raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (1, 0), 10),
    ("raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (3, 0), 5),
    ("raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (3, 16), 9),
    ("raked_product((_2,_5):(_5,_1), make_layout((_3,_4)))", (5, 19), 119),
];

/// flir.md section 6: `swizzle_xor16(row, col, k_blocks16)`.
const XOR16: &[((isize, isize, isize), isize)] = &[
    ((0, 5, 4), 5),
    ((1, 5, 4), 21),
    ((3, 20, 4), 36),
    ((5, 37, 4), 53),
    ((7, 0, 8), 112),
    // k_blocks16 not a power of two: the result leaves the row.
    ((2, 16, 3), 48),
];

// ---- postconditions (CuTe's unit tests) ----

/// `coalesce.cpp`: depth at most 1 (for the plain form), same size, same function.
fn post_coalesce(expr: &str, v: &Value) -> Result<(), String> {
    let Some(("coalesce", args)) = call_args(expr) else { return Ok(()) };
    let (r, l) = (result_layout(v)?, layout_of(args[0])?);
    if args.len() == 1 && r.depth() > 1 {
        return Err(format!("depth {}", r.depth()));
    }
    if r.size().value != l.size().value {
        return Err(format!("size {} vs {}", r.size().value, l.size().value));
    }
    if offsets(&r) != offsets(&l) {
        return Err("not the same function as the input".into());
    }
    Ok(())
}

/// `composition.cpp`: `compatible(B, R)` and `R(i) == A(B(i))` (for layouts `A` and `B`).
fn post_composition(expr: &str, v: &Value) -> Result<(), String> {
    let Some(("composition", args)) = call_args(expr) else { return Ok(()) };
    let (Ok(Value::Layout(a)), Ok(Value::Layout(b))) = (ev(args[0]), ev(args[1])) else { return Ok(()) };
    let r = result_layout(v)?;
    compatible(&b, &r)?;
    for i in 0..b.size().value {
        let (got, want) = (r.offset(i), a.offset(b.offset(i)));
        if got != want {
            return Err(format!("R({i}) = {got}, A(B({i})) = {want}"));
        }
    }
    Ok(())
}

/// `complement.cpp`: the bounds on the codomains, ordered, disjoint from the layout, and nothing
/// left to complete (where everything is static).
fn post_complement(expr: &str, v: &Value) -> Result<(), String> {
    let Some(("complement", args)) = call_args(expr) else { return Ok(()) };
    let (l, r) = (layout_of(args[0])?, result_layout(v)?);
    let target = match args.get(1) {
        Some(t) => size_of_tuple(t)?,
        None => l.cosize().value,
    };
    let completed = layout_of(&format!("make_layout({l}, {r})"))?;
    let filtered = layout_of(&format!("filter({l})"))?.size().value;
    let (size_r, cosize_r, cosize_l) = (r.size().value, r.cosize().value, l.cosize().value);
    let round_up = (target + cosize_l - 1) / cosize_l * cosize_l;
    let checks = [
        (completed.cosize().value >= target, "cosize(completed) >= size(cotarget)"),
        (cosize_r <= round_up, "cosize(R) <= round_up(size(cotarget), cosize(L))"),
        (size_r <= cosize_r, "size(R) <= cosize(R)"),
        (size_r >= target / filtered, "size(R) >= size(cotarget) / size(filter(L))"),
        (completed.cosize().value <= cosize_r + cosize_l, "cosize(completed) <= cosize(R) + cosize(L)"),
        (cosize_r >= target / filtered, "cosize(R) >= size(cotarget) / size(filter(L))"),
    ];
    if let Some((_, what)) = checks.iter().find(|(ok, _)| !ok) {
        return Err(format!("{what} fails for R = {r}"));
    }
    let (ro, lo) = (offsets(&r), offsets(&l));
    for i in 1..ro.len() {
        if ro[i - 1] >= ro[i] {
            return Err(format!("R is not ordered at {i}"));
        }
        if lo.contains(&ro[i]) {
            return Err(format!("R({i}) = {} is an offset of L", ro[i]));
        }
    }
    if all_static(expr) {
        let again = layout_of(&format!("complement({completed})"))?;
        if again.size().value != 1 {
            return Err(format!("complement(completed) = {again}, not of size 1"));
        }
    }
    Ok(())
}

/// `logical_divide.cpp`: rank 2, and the tiler compatible with mode 0 (for a layout tiler).
fn post_divide(expr: &str, v: &Value) -> Result<(), String> {
    let Some(("logical_divide", args)) = call_args(expr) else { return Ok(()) };
    let Ok(Value::Layout(t)) = ev(args[1]) else { return Ok(()) };
    let r = result_layout(v)?;
    if r.rank() != 2 {
        return Err(format!("rank {}", r.rank()));
    }
    compatible(&t, &r.mode(0).ok_or("no mode 0")?)
}

/// `logical_product.cpp`: rank 2, mode 0 is the layout, the tiler compatible with mode 1.
fn post_product(expr: &str, v: &Value) -> Result<(), String> {
    let Some(("logical_product", args)) = call_args(expr) else { return Ok(()) };
    let Ok(Value::Layout(b)) = ev(args[1]) else { return Ok(()) };
    let (a, r) = (layout_of(args[0])?, result_layout(v)?);
    if r.rank() != 2 {
        return Err(format!("rank {}", r.rank()));
    }
    let m0 = r.mode(0).ok_or("no mode 0")?;
    if m0.to_string() != a.to_string() {
        return Err(format!("mode 0 is {m0}, not the layout {a}"));
    }
    compatible(&b, &r.mode(1).ok_or("no mode 1")?)
}

/// `inverse_left.cpp`, `inverse_right.cpp`, `nullspace.cpp`.
fn post_inverse(expr: &str, v: &Value) -> Result<(), String> {
    let Some((name, args)) = call_args(expr) else { return Ok(()) };
    let (l, r) = (layout_of(args[0])?, result_layout(v)?);
    match name {
        "left_inverse" => {
            if let Some(i) = (0..l.size().value).find(|&i| r.offset(l.offset(i)) != i) {
                return Err(format!("inv(L({i})) = {}", r.offset(l.offset(i))));
            }
        }
        "right_inverse" => {
            if let Some(i) = (0..r.size().value).find(|&i| l.offset(r.offset(i)) != i) {
                return Err(format!("L(inv({i})) = {}", l.offset(r.offset(i))));
            }
        }
        "nullspace" => {
            let filtered = layout_of(&format!("filter({l})"))?.size().value;
            if r.size().value != l.size().value / filtered {
                return Err(format!("size {} is not size(L) / size(filter(L))", r.size().value));
            }
            if let Some(i) = (0..r.size().value).find(|&i| l.offset(r.offset(i)) != 0) {
                return Err(format!("L(ker({i})) = {}", l.offset(r.offset(i))));
            }
        }
        _ => {}
    }
    Ok(())
}

// ---- the tests, one per family ----

#[test]
fn coalesce_examples() {
    run_family("coalesce", COALESCE, Some(post_coalesce));
}

#[test]
fn composition_examples() {
    run_family("composition", COMPOSITION, Some(post_composition));
}

#[test]
fn complement_examples() {
    run_family("complement", COMPLEMENT, Some(post_complement));
}

#[test]
fn divide_examples() {
    run_family("divide", DIVIDE, Some(post_divide));
}

#[test]
fn product_examples() {
    run_family("product", PRODUCT, Some(post_product));
}

#[test]
fn inverse_examples() {
    run_family("inverse", INVERSE, Some(post_inverse));
}

#[test]
fn mode_examples() {
    run_family("modes", MODES, None);
}

/// `01_layout.md`: "take<1,1> not allowed"; CuTe's `take` asserts `B < E` ("take: empty range
/// error"). const-layout accepts `begin == end` and returns the empty layout `():()`.
#[test]

fn mode_examples_take_empty_range() {
    const ROWS: &[Row] = &[(Docs01, "take<1,1>(make_layout((_2,_3,_5,_7)))", Refused)];
    run_family("modes (take<1,1>)", ROWS, None);
}

#[test]
fn layout_basics_examples() {
    run_family("basics", BASICS, None);
}

#[test]
fn swizzle_examples() {
    run_family("swizzle", SWIZZLE, None);
    let mut failures = Vec::new();
    for &((row, col, k), want) in XOR16 {
        match swizzle_xor16(row, col, k) {
            Ok(got) if got == want => {}
            got => failures.push(format!("swizzle_xor16({row}, {col}, {k}) = {got:?}, expected {want}")),
        }
    }
    // flir.md: with a row pitch of 16 * k bytes and k = 2^B, swizzle_xor16 is CuTe's
    // Swizzle<B,4,B> on the byte offset, and each row's mapping is a bijection of [0, 16 k).
    for b in 0..=3u32 {
        let k = 1isize << b;
        let sw = Swizzle::new(b, 4, b as i32).expect("Swizzle<B,4,B>");
        for row in 0..3 * k {
            let mut seen = vec![false; 16 * k as usize];
            for col in 0..16 * k {
                let x = swizzle_xor16(row, col, k).expect("swizzle_xor16");
                if sw.apply(row * 16 * k + col) != row * 16 * k + x {
                    failures.push(format!("Sw<{b},4,{b}> differs from swizzle_xor16({row}, {col}, {k})"));
                }
                match usize::try_from(x).ok().and_then(|x| seen.get_mut(x)) {
                    Some(s) if !*s => *s = true,
                    _ => failures
                        .push(format!("swizzle_xor16({row}, {col}, {k}) = {x} repeats or leaves the row")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "swizzle_xor16:\n  {}", failures.join("\n  "));
}

#[test]
fn figure_offsets() {
    let mut failures = Vec::new();
    for &(src, expr, want) in FIGURE_OFFSETS {
        match layout_of(expr) {
            Ok(l) if offsets(&l) == want => {}
            Ok(l) => failures.push(format!("[{src:?}] {expr}: offsets {:?}, expected {want:?}", offsets(&l))),
            Err(e) => failures.push(format!("[{src:?}] {expr}: {e}")),
        }
    }
    for &(expr, (row, col), want) in FIGURE_CELLS {
        match ev(&format!("crd2idx(({row},{col}), {expr})")) {
            Ok(Value::Int(v)) if v.value == want => {}
            got => failures.push(format!("[Docs02Fig] {expr} at ({row},{col}): {got:?}, expected {want}")),
        }
    }
    println!("figures: {} offset lists, {} cells", FIGURE_OFFSETS.len(), FIGURE_CELLS.len());
    assert!(failures.is_empty(), "figures:\n  {}", failures.join("\n  "));
}

/// The counts per family and source, for the record (`-- --nocapture`).
#[test]
fn example_counts() {
    let families: &[(&str, &[Row])] = &[
        ("coalesce", COALESCE),
        ("composition", COMPOSITION),
        ("complement", COMPLEMENT),
        ("divide", DIVIDE),
        ("product", PRODUCT),
        ("inverse", INVERSE),
        ("modes", MODES),
        ("basics", BASICS),
        ("swizzle", SWIZZLE),
    ];
    for (name, rows) in families {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for (src, _, _) in rows.iter() {
            let key = format!("{src:?}");
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
        let list: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!("{name}: {} ({})", rows.len(), list.join(", "));
        assert!(!rows.is_empty());
    }
}
