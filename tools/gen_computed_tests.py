#!/usr/bin/env python3
"""Generate tests/typed/computed_vectors.rs: the static algebra on type parameters against CuTe.

Usage:  python3 tools/gen_computed_tests.py [--per-family N] [--out PATH]

Input:  tests/data/cute_algebra_{coalesce,filter,composition,complement,divide,product}.txt
        (CuTe C++ output with a verdict per row; format: tools/oracle/README.md, "Algebra vectors").
Output: tests/typed/computed_vectors.rs (checked in; regenerate with this script, never edit by hand).

Deterministic (no randomness, no network): the same input always gives the same output.

What it does
------------
1. Reads every row of the six data files and keeps the eligible ones:
     - every integer of the expression is static (`_N`), so that the whole expression can be
       written with `layout_type!` layouts and `C<N>` integers;
     - CuTe's verdict is `ok` (CuTe's printed result is the right answer). `wrong` rows are left
       out: where our answer to them is an error, the static algebra refuses them at compile time
       (a `const` evaluation panic), which the UI tests cover (`ui-tests/fail/computed_*.rs`,
       `ui-tests/fail/algebra_*.rs`);
     - the operation and its argument forms are ones `const_layout::algebra::computed` offers:
       `coalesce(L)`, `filter(L)`, `composition(A, T)`, `complement(A)`, `complement(A, M)`,
       the four divides and the four tiler products with a tiler `T`, and `blocked_product` /
       `raked_product` of two layouts. Left out: `coalesce(L, profile)` and `filter_zeros`.
2. Selects about --per-family rows per family (default 60), spread over strata: the operation and
   the form of its right operand (a layout, an integer, the integer `_1`, a shape, a by-mode
   tiler, a cotarget). Each stratum gets an equal share (water-filling: a small stratum gives its
   unused share to the others); within a stratum the rows are evenly spaced in file order.
   `--per-family 10000` takes every eligible row (about 1,750; a debug build of that takes
   about 45 s on 2 cores).
3. Emits one #[test] per family. Each row is one call of `check`, which is given the static
   result (`composition(<layout_type!(...)>::default(), ...)`, computed by rustc's const
   evaluation), the expression text and CuTe's print; it requires
     - `to_string()` to equal CuTe's print exactly, and
     - `crd2idx(i)` for every `i < size` to equal `l.offset(i)` of the runtime algebra's result
       on the same expression (`const_layout::eval::eval(expr)` -> `Value::Layout(l)`), the
       sizes to agree as well.
   Failures are collected and the test fails listing all of them.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.join(REPO, "tests", "data")
OUT = os.path.join(REPO, "tests", "typed", "computed_vectors.rs")

FAMILIES = ["coalesce", "filter", "composition", "complement", "divide", "product"]

TILER_OPS = {
    "composition",
    "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
}
LAYOUT_OPS = {"blocked_product", "raked_product"}
UNARY_OPS = {"coalesce", "filter", "complement"}


class Unsupported(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Parsing the expression text (the subset of `eval::eval` syntax the data uses).
# AST: ("int", v) | ("tuple", [ast]) | ("layout", shape_ast, stride_ast) | ("tiler", [ast])
#      | ("keep",) | ("call", name, [ast])


class Parser:
    def __init__(self, text):
        self.t = text
        self.p = 0

    def ws(self):
        while self.p < len(self.t) and self.t[self.p] == " ":
            self.p += 1

    def peek(self):
        self.ws()
        return self.t[self.p] if self.p < len(self.t) else None

    def eat(self, c):
        if self.peek() == c:
            self.p += 1
            return True
        return False

    def expect(self, c):
        if not self.eat(c):
            raise ValueError(f"expected {c!r} at {self.p} in {self.t!r}")

    def int_tuple(self):
        c = self.peek()
        if c == "(":
            self.p += 1
            items = []
            if not self.eat(")"):
                while True:
                    items.append(self.int_tuple())
                    if self.eat(")"):
                        break
                    self.expect(",")
            return ("tuple", items)
        m = re.compile(r"_?-?\d+").match(self.t, self.p)
        if not m:
            raise ValueError(f"expected an integer at {self.p} in {self.t!r}")
        self.p = m.end()
        s = m.group(0)
        if not s.startswith("_"):
            raise Unsupported("runtime integer")
        return ("int", int(s[1:]))

    def value(self):
        """A layout `S:D`, an int tuple, a by-mode tiler `<...>`, `_`, or a call."""
        c = self.peek()
        if c == "<":
            self.p += 1
            items = []
            while True:
                items.append(self.value())
                if self.eat(">"):
                    break
                self.expect(",")
            return ("tiler", items)
        if c == "_" and not re.compile(r"_-?\d").match(self.t, self.p):
            self.p += 1
            return ("keep",)
        if c is not None and c.isalpha():
            m = re.compile(r"[A-Za-z_][A-Za-z_0-9]*").match(self.t, self.p)
            name = m.group(0)
            self.p = m.end()
            if self.peek() == "<":
                raise Unsupported(f"template arguments of {name}")
            self.expect("(")
            args = []
            while True:
                args.append(self.value())
                if self.eat(")"):
                    break
                self.expect(",")
            return ("call", name, args)
        shape = self.int_tuple()
        if self.eat(":"):
            stride = self.int_tuple()
            return ("layout", shape, stride)
        return shape


def parse(expr):
    p = Parser(expr)
    v = p.value()
    if p.peek() is not None:
        raise ValueError(f"trailing text in {expr!r}")
    return v


# ---------------------------------------------------------------------------------------------
# Rust spelling.


def notation(t):
    """An int tuple in `layout_type!` notation: static literals, `-1` for negatives."""
    if t[0] == "int":
        return str(t[1])
    return "(" + ",".join(notation(x) for x in t[1]) + ")"


def c_int(v):
    return f"C::<{v}>" if v >= 0 else f"C::<{{{v}}}>"


def rust_layout(ast):
    return f"<layout_type!({notation(ast[1])}:{notation(ast[2])})>::default()"


def rust_tuple(items):
    """A Rust tuple expression (a one-item tuple keeps its comma)."""
    if len(items) > 12:
        raise Unsupported("tuple of more than 12 items")
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def rust_int_tuple(ast):
    if ast[0] == "int":
        return c_int(ast[1])
    return rust_tuple([rust_int_tuple(x) for x in ast[1]])


def rust_tile_item(ast):
    kind = ast[0]
    if kind == "int":
        return c_int(ast[1])
    if kind == "layout":
        return rust_layout(ast)
    if kind == "keep":
        return "const_layout::algebra::computed::Keep"
    if kind == "tuple":
        return rust_int_tuple(ast)
    raise Unsupported(f"tiler item {kind}")


def rust_tiler(ast):
    kind = ast[0]
    if kind == "int":
        return c_int(ast[1])
    if kind == "layout":
        return rust_layout(ast)
    if kind in ("tuple", "tiler"):
        return rust_tuple([rust_tile_item(x) for x in ast[1]])
    raise Unsupported(f"tiler {kind}")


def rust_call(ast):
    if ast[0] != "call":
        raise Unsupported("not a call")
    name, args = ast[1], ast[2]
    if any(a[0] == "call" for a in args):
        raise Unsupported("nested call")
    if name in UNARY_OPS and len(args) == 1:
        if args[0][0] != "layout":
            raise Unsupported("operand is not a layout")
        return f"{name}({rust_layout(args[0])})"
    if name == "complement" and len(args) == 2:
        if args[0][0] != "layout" or args[1][0] not in ("int", "tuple"):
            raise Unsupported("complement operands")
        return f"complement_to({rust_layout(args[0])}, {rust_int_tuple(args[1])})"
    if name in TILER_OPS and len(args) == 2:
        if args[0][0] != "layout":
            raise Unsupported("left operand is not a layout")
        return f"{name}({rust_layout(args[0])}, {rust_tiler(args[1])})"
    if name in LAYOUT_OPS and len(args) == 2:
        if args[0][0] != "layout" or args[1][0] != "layout":
            raise Unsupported(f"{name} of a non-layout")
        return f"{name}({rust_layout(args[0])}, {rust_layout(args[1])})"
    raise Unsupported(f"{name} with {len(args)} arguments")


def all_static(expr):
    """Every integer written `_N` (no template-argument lists in the families used here)."""
    for m in re.finditer(r"-?\d+", expr):
        k = m.start()
        prev = expr[k - 1] if k > 0 else " "
        if prev != "_" and not (prev.isalnum()):
            return False
    return True


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------------------------


def read_family(family):
    rows = []
    skipped = {}
    path = os.path.join(DATA, f"cute_algebra_{family}.txt")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fam, expr, cute, verdict, _truth = line.split("\t")
            assert fam == family, line
            if verdict != "ok" or not all_static(expr):
                continue
            try:
                call = rust_call(parse(expr))
            except Unsupported as e:
                skipped[str(e)] = skipped.get(str(e), 0) + 1
                continue
            op = expr.split("(", 1)[0]
            if op == "complement":
                op = "complement_to" if call.startswith("complement_to") else "complement"
            rows.append((op, expr, cute, call))
    return rows, skipped


def operand_form(expr):
    """The form of the right operand: `layout`, `int`, `int1` (a static `_1`, which CuTe treats
    apart: `make_layout(_1)` is `_1:_0`), `tuple` (a shape), `tiler` (by-mode `<...>`), or `-`."""
    args = parse(expr)[2]
    if len(args) < 2:
        return "-"
    a = args[1]
    if a[0] == "int":
        return "int1" if a[1] == 1 else "int"
    return a[0]


def select(rows, n):
    """About n rows: an equal share per stratum (operation and form of the right operand;
    water-filling: a small stratum gives its unused share to the others), evenly spaced in file
    order within a stratum."""
    strata = {}
    for r in rows:
        strata.setdefault((r[0], operand_form(r[1])), []).append(r)
    keys = sorted(strata, key=lambda k: (len(strata[k]), k))
    quota = {}
    left = n
    for k, key in enumerate(keys):
        share = left // (len(keys) - k)
        quota[key] = min(share, len(strata[key]))
        left -= quota[key]
    chosen = set()
    for key, rs in strata.items():
        q = quota[key]
        for j in range(q):
            chosen.add(id(rs[(j * len(rs)) // q]))
    return [r for r in rows if id(r) in chosen]


HEADER = """\
//! Generated by `python3 tools/gen_computed_tests.py` from `tests/data/cute_algebra_*.txt`.
//! Do not edit by hand: change the generator and run it again.
//!
//! The static layout algebra on type parameters (`const_layout::algebra::computed`) against CuTe
//! C++ (cutlass 4.2.0.0). Each row is an all-static expression whose CuTe verdict is `ok`; the
//! result is computed by rustc's const evaluation (a zero-sized `Computed<...>`), and it must
//!   - print exactly as CuTe printed it, and
//!   - give, through `crd2idx(i)` for every `i < size`, the offsets of the runtime algebra's
//!     result on the same expression (`const_layout::eval::eval`), itself checked against
//!     CuTe by `tests/vectors/algebra_vectors.rs`.
//!
//! Rows where CuTe's verdict is `wrong` are not here: where our answer to them is an error, the
//! static algebra refuses them at compile time (a failed const evaluation would stop this whole
//! file from building), which the UI tests cover (`ui-tests/fail/computed_*.rs` for this path,
//! `ui-tests/fail/algebra_*.rs` for `layout!`). Also left out: operations and argument forms the
//! static algebra does not offer (`coalesce` with a profile, `filter_zeros`).
//!
//! Rows per family: {counts}.
"""

PRELUDE = r"""use const_layout::algebra::computed::{
    blocked_product, coalesce, complement, complement_to, composition, filter, flat_divide, flat_product,
    logical_divide, logical_product, raked_product, tiled_divide, tiled_product, zipped_divide,
    zipped_product,
};
use const_layout::eval::{Value, eval};
use const_layout::{C, layout_type};

/// Failures of one family, reported together at the end of its test.
#[derive(Default)]
struct Checker {
    rows: usize,
    failures: Vec<String>,
}

impl Checker {
    /// One row: `text`, `size` and `crd2idx` of the static result of `expr` against CuTe's print
    /// and the runtime algebra's offsets.
    fn check(&mut self, expr: &str, cute: &str, text: String, size: isize, crd2idx: &dyn Fn(usize) -> isize) {
        self.rows += 1;
        if text != cute {
            self.failures.push(format!("{expr}\n    static:  {text}\n    CuTe:    {cute}"));
        }
        let l = match eval(expr) {
            Ok(Value::Layout(l)) => l,
            other => {
                self.failures.push(format!("{expr}\n    runtime: {other:?}"));
                return;
            }
        };
        if size != l.size().value {
            self.failures.push(format!("{expr}\n    static size {size}, runtime size {}", l.size().value));
            return;
        }
        let ours: Vec<isize> = (0..size as usize).map(crd2idx).collect();
        let theirs: Vec<isize> = (0..size).map(|i| l.offset(i)).collect();
        if ours != theirs {
            self.failures.push(format!(
                "{expr}\n    static crd2idx:  {ours:?}\n    runtime offsets: {theirs:?} ({l})"
            ));
        }
    }

    fn finish(self, family: &str, expected_rows: usize) {
        assert_eq!(self.rows, expected_rows, "{family}: rows checked");
        assert!(
            self.failures.is_empty(),
            "{family}: {} of {} rows differ:\n{}",
            self.failures.len(),
            self.rows,
            self.failures.join("\n")
        );
    }
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-family", type=int, default=60)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()

    chosen = {}
    for fam in FAMILIES:
        rows, skipped = read_family(fam)
        chosen[fam] = select(rows, args.per_family)
        ops = {}
        for r in chosen[fam]:
            key = f"{r[0]}/{operand_form(r[1])}"
            ops[key] = ops.get(key, 0) + 1
        print(
            f"{fam}: {len(rows)} eligible, {len(chosen[fam])} chosen {ops}; skipped {skipped}",
            file=sys.stderr,
        )

    counts = ", ".join(f"{fam} {len(chosen[fam])}" for fam in FAMILIES)
    out = [HEADER.replace("{counts}", counts), PRELUDE.rstrip("\n")]
    for fam in FAMILIES:
        out.append("")
        out.append("#[rustfmt::skip]")
        out.append("#[test]")
        out.append(f"fn {fam}_matches_cute_and_runtime() {{")
        out.append("    let mut c = Checker::default();")
        for _op, expr, cute, call in chosen[fam]:
            out.append(
                f"    {{ let r = {call}; c.check({rust_str(expr)}, {rust_str(cute)}, r.to_string(), r.size(), &|i| r.crd2idx(i)); }}"
            )
        out.append(f"    c.finish({rust_str(fam)}, {len(chosen[fam])});")
        out.append("}")
    text = "\n".join(out) + "\n"
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
