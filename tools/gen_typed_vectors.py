#!/usr/bin/env python3
"""Generate tests/typed/typed_vectors.rs: differential tests of the *typed* layout path against CuTe.

Usage:  python3 tools/gen_typed_vectors.py [--records N] [--per-test K] [--out PATH]

Input:  tests/data/cute_layouts.txt (CuTe C++ output; format in tools/oracle/README.md).
Output: tests/typed/typed_vectors.rs (checked in; regenerate with this script, never edit by hand).

Deterministic (no randomness, no network): the same input always gives the same output.

What it does
------------
1. Reads every record of cute_layouts.txt and keeps the eligible ones: rank 1..4 at the top,
   depth <= 3, no tuple wider than 12 (the typed path's MAX_RANK), not the rank-0 `():()`.
2. Selects about --records of them (default 150), spread over (rank, depth) buckets: each bucket
   gets an equal share (water-filling: a small bucket gives its unused share to the others), and
   within a bucket the records are taken evenly spaced in file order. The README's spot-check
   records at the top of the file are always included.
3. For each selected record it emits Rust that builds the typed layout with CuTe's exact
   static/runtime mix -- a static leaf `_8` becomes `C::<8>` (`_-3` becomes `C::<-3>`), a runtime
   leaf `8` becomes `8usize` in a shape and `8isize` in a stride -- via
   `make_layout(shape, stride).unwrap()`, and checks against CuTe:
     - print           `to_string()` equals the record's layout text exactly;
     - size / cosize   values (and zero-sized when the layout is static and CuTe prints `_N`);
     - offsets         `iter()` equals the record's `offsets` line;
     - idx2crd         every line with a runtime integer index (a data table, one call site);
     - idx2crd_static  every line with a static index `_k` (`C::<k>`);
     - idx2crd_hier    up to 6 partly-hierarchical index tuples, built as typed tuples;
     - crd2idx         up to 8 coordinates (2 hierarchical, 2 flat, 2 mixed, the runtime and the
                       static integer), each built as a typed tuple of the same nesting and
                       static/runtime mix;
     - get_hier_coord / get_flat_coord / get_1d_coord: up to 4 each (first, last, two between).
   Tuple results are compared by value and structure (`to_dyn()` + `same_values`); in addition a
   typed result leaf may only be static where CuTe's is (the typed path makes a result static only
   when all its inputs are, so the converse may differ legitimately in mixed cases). Where all
   inputs are static and CuTe prints the result static, the typed result must be zero-sized
   (counted as `zero_sized`).
4. Groups the records into #[test] functions of --per-test records (default 10), inside a
   `#[rustfmt::skip] mod records` (one record is one long line; the rest of the file is written
   as rustfmt formats it, so `cargo fmt` leaves the generated file unchanged). Every check is
   counted per kind; each test asserts its counts equal the plan written here, and the last test to
   finish asserts the grand total and prints the per-kind counts (`cargo test --test typed typed_vectors::
   -- --nocapture`).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.join(REPO, "tests", "data", "cute_layouts.txt")
OUT = os.path.join(REPO, "tests", "typed", "typed_vectors.rs")

MAX_RANK = 12
N_SPOT = 3  # the README's spot checks: the first records of the file
KINDS = [
    "print", "size", "cosize", "offsets", "idx2crd", "idx2crd_static", "idx2crd_hier",
    "crd2idx", "get_hier_coord", "get_flat_coord", "get_1d_coord", "zero_sized",
]
KIND_IDX = {k: i for i, k in enumerate(KINDS)}
MAX_HIER_IDX2CRD = 6
MAX_CRD2IDX = 8
MAX_GET = 4


def die(msg):
    sys.exit("gen_typed_vectors.py: error: " + msg)


# ---------------------------------------------------------------------------
# CuTe text: a leaf is (value, is_static); a tuple is a Python list of nodes.
# ---------------------------------------------------------------------------

def parse(text):
    pos = 0

    def node():
        nonlocal pos
        if text[pos] == "(":
            pos += 1
            items = []
            if text[pos] == ")":
                pos += 1
                return items
            while True:
                items.append(node())
                c = text[pos]
                pos += 1
                if c == ")":
                    return items
                if c != ",":
                    die("bad tuple text %r" % text)
        static = text[pos] == "_"
        if static:
            pos += 1
        start = pos
        if text[pos] == "-":
            pos += 1
        while pos < len(text) and text[pos].isdigit():
            pos += 1
        if start == pos:
            die("bad integer in %r" % text)
        return (int(text[start:pos]), static)

    n = node()
    if pos != len(text):
        die("trailing text in %r" % text)
    return n


def is_leaf(n):
    return isinstance(n, tuple)


def leaves(n):
    if is_leaf(n):
        yield n
    else:
        for m in n:
            yield from leaves(m)


def all_static(n):
    return all(s for _, s in leaves(n))


def depth(n):
    return 0 if is_leaf(n) else 1 + max((depth(m) for m in n), default=0)


def rank(n):
    return 1 if is_leaf(n) else len(n)


def max_width(n):
    return 0 if is_leaf(n) else max([len(n)] + [max_width(m) for m in n])


def rust(n, rt):
    """Rust expression for a typed int tuple; `rt` is the runtime integer suffix."""
    if is_leaf(n):
        v, s = n
        return "C::<%d>" % v if s else "%d%s" % (v, rt)
    inner = ", ".join(rust(m, rt) for m in n)
    return "(%s,)" % inner if len(n) == 1 else "(%s)" % inner


def rs_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

def read_records(path):
    recs, cur = [], None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if fields[0] == "layout":
                if cur is not None:
                    die("line %d: record not ended" % lineno)
                cur = {"num": len(recs), "layout": fields[1], "lines": []}
            elif fields[0] == "end":
                recs.append(cur)
                cur = None
            else:
                if cur is None:
                    die("line %d: line outside a record" % lineno)
                cur["lines"].append(fields)
    return recs


def eligible(rec):
    shape_text, _ = split_layout(rec["layout"])
    shape = parse(shape_text)
    if not is_leaf(shape) and len(shape) == 0:
        return False
    return 1 <= rank(shape) <= 4 and depth(shape) <= 3 and max_width(shape) <= MAX_RANK


def split_layout(text):
    # shape:stride -- the shape never contains ':'.
    i = text.index(":")
    return text[:i], text[i + 1:]


def spread(items, k):
    """k items of the list, evenly spaced (deterministic)."""
    n = len(items)
    if k >= n:
        return list(items)
    return [items[(2 * j + 1) * n // (2 * k)] for j in range(k)]


def select(recs, target):
    elig = [r for r in recs if eligible(r)]
    forced = [r for r in elig if r["num"] < N_SPOT]
    buckets = {}
    for r in elig:
        if r in forced:
            continue
        shape = parse(split_layout(r["layout"])[0])
        buckets.setdefault((rank(shape), depth(shape)), []).append(r)
    keys = sorted(buckets)
    share = {k: 0 for k in keys}
    left = target - len(forced)
    while left > 0:
        open_keys = [k for k in keys if share[k] < len(buckets[k])]
        if not open_keys:
            break
        for k in open_keys:
            if left == 0:
                break
            share[k] += 1
            left -= 1
    chosen = list(forced)
    for k in keys:
        chosen += spread(buckets[k], share[k])
    chosen.sort(key=lambda r: r["num"])
    return chosen, {k: share[k] for k in keys}


# ---------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------

def pick_get(lines, k):
    if len(lines) <= k:
        return lines
    n = len(lines)
    idx = sorted(set([0, n - 1] + [(n - 1) * j // (k - 1) for j in range(1, k - 1)]))
    return [lines[i] for i in idx]


def gen_record(rec, plan):
    shape_text, stride_text = split_layout(rec["layout"])
    shape, stride = parse(shape_text), parse(stride_text)
    layout_static = all_static(shape) and all_static(stride)
    by = {}
    for f in rec["lines"]:
        by.setdefault(f[0], []).append(f)

    def count(kind, n=1):
        plan[KIND_IDX[kind]] += n

    def one(key):
        v = by.get(key)
        if not v or len(v) != 1:
            die("record %d: expected one %s line" % (rec["num"], key))
        return v[0][1]

    size, cosize = one("size"), one("cosize")
    offsets = one("offsets").split()
    rt_idx, st_idx, hier_idx = [], [], []
    for f in by.get("idx2crd", []):
        arg = parse(f[1])
        if is_leaf(arg):
            (st_idx if arg[1] else rt_idx).append(f)
        else:
            hier_idx.append(f)
    hier_idx = hier_idx[:MAX_HIER_IDX2CRD]
    crd = by.get("crd2idx", [])
    if len(crd) == 14:
        crd = [crd[i] for i in (0, 1, 4, 5, 8, 9, 12, 13)]
    else:
        crd = spread(crd, MAX_CRD2IDX)
    gets = {k: pick_get(by.get(k, []), MAX_GET) for k in ("get_hier_coord", "get_flat_coord", "get_1d_coord")}

    size_zst = all_static(shape) and size.startswith("_")
    cosize_zst = layout_static and cosize.startswith("_")
    count("print")
    count("size")
    count("cosize")
    count("offsets")
    count("zero_sized", int(size_zst) + int(cosize_zst))
    count("idx2crd", len(rt_idx))
    for k, v in gets.items():
        count(k, len(v))

    name = "R%d" % rec["num"]
    out = []
    w = out.append
    w("const %s: Rec = Rec {" % name)
    w("    num: %d," % rec["num"])
    w("    text: %s," % rs_str(rec["layout"]))
    w("    size: %s," % rs_str(size))
    w("    cosize: %s," % rs_str(cosize))
    w("    size_zst: %s," % ("true" if size_zst else "false"))
    w("    cosize_zst: %s," % ("true" if cosize_zst else "false"))
    w("    offsets: &[%s]," % ", ".join(offsets))
    w("    idx2crd: &[%s]," % ", ".join("(%d, %s)" % (parse(f[1])[0], rs_str(f[2])) for f in rt_idx))
    w("    hier: &[%s]," % ", ".join("(%s, %s)" % (f[1], rs_str(f[2])) for f in gets["get_hier_coord"]))
    w("    flat: &[%s]," % ", ".join("(%s, %s)" % (f[1], rs_str(f[2])) for f in gets["get_flat_coord"]))
    w("    one_d: &[%s]," % ", ".join("(%s, %s)" % (f[1], rs_str(f[2])) for f in gets["get_1d_coord"]))
    w("};")
    consts = "\n".join(out)

    body = []
    b = body.append
    b("    {")
    b("        // %s" % rec["layout"])
    b("        let l = make_layout(%s, %s).unwrap();" % (rust(shape, "usize"), rust(stride, "isize")))
    b("        check_common(t, &l, &%s);" % name)
    for f in st_idx:
        arg, want = parse(f[1]), f[2]
        zst = all_static(shape) and all_static(parse(want))
        count("idx2crd_static")
        count("zero_sized", int(zst))
        b("        check_tuple(t, K::Idx2CrdStatic, &%s, %s, &l.idx2crd(%s), %s, %s);"
          % (name, rs_str(f[1]), rust(arg, "usize"), rs_str(want), "true" if zst else "false"))
    for f in hier_idx:
        arg, want = parse(f[1]), f[2]
        zst = all_static(shape) and all_static(arg) and all_static(parse(want))
        count("idx2crd_hier")
        count("zero_sized", int(zst))
        b("        check_tuple(t, K::Idx2CrdHier, &%s, %s, &l.idx2crd(%s), %s, %s);"
          % (name, rs_str(f[1]), rust(arg, "usize"), rs_str(want), "true" if zst else "false"))
    for f in crd:
        arg, want = parse(f[1]), f[2]
        zst = layout_static and all_static(arg) and want.startswith("_")
        count("crd2idx")
        count("zero_sized", int(zst))
        b("        check_int(t, K::Crd2Idx, &%s, %s, l.crd2idx(%s), %s, %s);"
          % (name, rs_str(f[1]), rust(arg, "usize"), rs_str(want), "true" if zst else "false"))
    b("    }")
    return consts, "\n".join(body)


HEADER = '''\
// Generated by tools/gen_typed_vectors.py from tests/data/cute_layouts.txt. Do not edit.
// Regenerate with: python3 tools/gen_typed_vectors.py
//
//! Differential tests of the *typed* layout path (`Layout<S, D>` built by `make_layout` from Rust
//! tuples of `C<N>` and runtime integers, with CuTe's exact static/runtime mix) against the CuTe C++
//! vectors in `tests/data/cute_layouts.txt`. See the generator's docstring for what is checked.
//! `cargo test --test typed typed_vectors:: -- --nocapture` prints the number of checks per kind.

%(bucket_note)s

use const_layout::dyn_layout::{DynInt, DynIntTuple};
use const_layout::int::Int;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::{Idx2Crd, LayoutShape};
use const_layout::{C, Layout, make_layout};
use std::sync::Mutex;

/// The check kinds, in the order of the plan arrays.
#[derive(Clone, Copy)]
#[allow(dead_code)]
enum K {
%(kind_variants)s
}

const KIND_NAMES: [&str; %(nk)d] = [
%(kind_names)s
];

/// Checks planned by the generator, per kind, over all tests.
const TOTAL_PLAN: [usize; %(nk)d] = %(total_plan)s;
/// Number of `#[test]` functions that contribute to [`TOTAL_PLAN`].
const GROUPS: usize = %(groups)d;

/// The non-typed parts of a record: expected values as CuTe printed them.
struct Rec {
    num: usize,
    text: &'static str,
    size: &'static str,
    cosize: &'static str,
    size_zst: bool,
    cosize_zst: bool,
    offsets: &'static [isize],
    idx2crd: &'static [(usize, &'static str)],
    hier: &'static [(usize, &'static str)],
    flat: &'static [(usize, &'static str)],
    one_d: &'static [(usize, &'static str)],
}

#[derive(Default)]
struct Tally {
    counts: [usize; %(nk)d],
    failures: Vec<String>,
}

struct Totals {
    counts: [usize; %(nk)d],
    done: usize,
}

static TOTALS: Mutex<Totals> = Mutex::new(Totals { counts: [0; %(nk)d], done: 0 });

impl Tally {
    fn check(&mut self, kind: K, rec: &Rec, arg: &str, ok: Result<(), String>) {
        self.counts[kind as usize] += 1;
        if let Err(msg) = ok {
            self.failures.push(format!(
                "{} record {} `{}` {arg}: {msg}",
                KIND_NAMES[kind as usize], rec.num, rec.text
            ));
        }
    }

    /// Assert no failures and the planned counts; the last group also checks the grand total.
    fn finish(self, plan: &[usize; %(nk)d]) {
        assert!(
            self.failures.is_empty(),
            "{} disagreements with CuTe:\\n{}",
            self.failures.len(),
            self.failures.join("\\n")
        );
        assert_eq!(&self.counts, plan, "checks performed differ from the generator's plan");
        let mut tot = TOTALS.lock().unwrap_or_else(|e| e.into_inner());
        for (a, b) in tot.counts.iter_mut().zip(self.counts) {
            *a += b;
        }
        tot.done += 1;
        if tot.done == GROUPS {
            let total: usize = tot.counts.iter().sum();
            println!("typed path vs CuTe, checks per kind (all {GROUPS} groups):");
            for (name, n) in KIND_NAMES.iter().zip(tot.counts) {
                println!("{name:>16}: {n}");
            }
            println!("{:>16}: {total}", "total");
            assert_eq!(tot.counts, TOTAL_PLAN, "checks performed differ from the generator's plan");
            assert_eq!(total, TOTAL_PLAN.iter().sum::<usize>());
        }
    }
}

fn parse_tuple(s: &str) -> DynIntTuple {
    s.parse().unwrap_or_else(|e| panic!("cannot parse {s:?}: {e}"))
}

fn parse_int(s: &str) -> DynInt {
    parse_tuple(s).as_int().unwrap_or_else(|| panic!("{s:?} is not an integer"))
}

/// Value and structure equal; a typed leaf static only where CuTe's is; zero-sized if `zst`.
fn tuple_result<T: IntTuple>(got: &T, want: &str, zst: bool) -> Result<(), String> {
    let want_t = parse_tuple(want);
    let got_t = got.to_dyn().map_err(|e| format!("to_dyn failed: {e}"))?;
    if !got_t.same_values(&want_t) {
        return Err(format!("got {got_t}, CuTe {want}"));
    }
    if got_t.leaves().zip(want_t.leaves()).any(|(g, w)| g.is_static && !w.is_static) {
        return Err(format!("got {got_t} static where CuTe's {want} is not"));
    }
    if zst && std::mem::size_of_val(got) != 0 {
        return Err(format!("got {got_t}: not zero-sized, CuTe {want} is static"));
    }
    Ok(())
}

fn int_result<I: Int>(got: I, want: &str, zst: bool) -> Result<(), String> {
    let w = parse_int(want);
    let g = got.value();
    if g != w.value {
        return Err(format!("got {g}, CuTe {want}"));
    }
    if I::STATIC.is_some() && !w.is_static {
        return Err(format!("got static _{g}, CuTe {want} is not static"));
    }
    if zst && std::mem::size_of_val(&got) != 0 {
        return Err(format!("got {g}: not zero-sized, CuTe {want} is static"));
    }
    Ok(())
}

fn check_tuple<T: IntTuple>(t: &mut Tally, kind: K, rec: &Rec, arg: &str, got: &T, want: &str, zst: bool) {
    t.check(kind, rec, arg, tuple_result(got, want, false));
    if zst {
        t.check(K::ZeroSized, rec, arg, tuple_result(got, want, zst));
    }
}

fn check_int<I: Int>(t: &mut Tally, kind: K, rec: &Rec, arg: &str, got: I, want: &str, zst: bool) {
    t.check(kind, rec, arg, int_result(got, want, false));
    if zst {
        t.check(K::ZeroSized, rec, arg, int_result(got, want, true));
    }
}

/// The checks that need no typed argument: print, size, cosize, offsets, runtime `idx2crd`,
/// `get_*_coord`.
fn check_common<S, D>(t: &mut Tally, l: &Layout<S, D>, rec: &Rec)
where
    S: IntTuple + LayoutShape<D> + Idx2Crd<usize>,
    D: IntTuple,
{
    let printed = l.to_string();
    let ok = if printed == rec.text { Ok(()) } else { Err(format!("printed {printed}")) };
    t.check(K::Print, rec, "", ok);
    check_int(t, K::Size, rec, "", l.size(), rec.size, rec.size_zst);
    check_int(t, K::Cosize, rec, "", l.cosize(), rec.cosize, rec.cosize_zst);
    let offsets: Vec<isize> = l.iter().collect();
    let ok = if offsets == rec.offsets { Ok(()) } else { Err(format!("got {offsets:?}")) };
    t.check(K::Offsets, rec, "", ok);
    for &(i, want) in rec.idx2crd {
        check_tuple(t, K::Idx2Crd, rec, &i.to_string(), &l.idx2crd(i), want, false);
    }
    for &(i, want) in rec.hier {
        check_tuple(t, K::GetHierCoord, rec, &i.to_string(), &l.get_hier_coord(i), want, false);
    }
    for &(i, want) in rec.flat {
        check_tuple(t, K::GetFlatCoord, rec, &i.to_string(), &l.get_flat_coord(i), want, false);
    }
    for &(i, want) in rec.one_d {
        check_int(t, K::Get1dCoord, rec, &i.to_string(), l.get_1d_coord(i), want, false);
    }
}
'''


def camel(kind):
    """The Rust variant name of a kind: `idx2crd_static` -> `Idx2CrdStatic`."""
    return "".join(p[:1].upper() + p[1:] for p in kind.replace("2crd", "2_crd").replace("2idx", "2_idx").split("_"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=150)
    ap.add_argument("--per-test", type=int, default=10)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()

    recs = read_records(DATA)
    chosen, shares = select(recs, args.records)
    groups = [chosen[i:i + args.per_test] for i in range(0, len(chosen), args.per_test)]
    total = [0] * len(KINDS)
    consts_out, tests_out = [], []
    for g, grp in enumerate(groups):
        plan = [0] * len(KINDS)
        bodies = []
        for rec in grp:
            c, body = gen_record(rec, plan)
            consts_out.append(c)
            bodies.append(body)
        total = [a + b for a, b in zip(total, plan)]
        nums = ", ".join(str(r["num"]) for r in grp)
        tests_out.append(
            "/// Records %s.\n#[test]\nfn group_%02d() {\n    let t = &mut Tally::default();\n%s\n"
            "    std::mem::take(t).finish(&%s);\n}\n"
            % (nums, g, "\n".join(bodies), "[" + ", ".join(map(str, plan)) + "]"))

    variants = "\n".join("    %s," % camel(k) for k in KINDS)
    header = HEADER % {
        "kind_variants": variants,
        "nk": len(KINDS),
        "kind_names": "\n".join('    "%s",' % k for k in KINDS),
        "total_plan": "[" + ", ".join(map(str, total)) + "]",
        "groups": len(groups),
        "bucket_note": "// Records per (rank, depth) bucket, besides the %d spot checks: %s" % (
            N_SPOT, ", ".join("%s: %d" % (k, v) for k, v in sorted(shares.items()))),
    }
    text = header
    # The records are one long line each: keep `cargo fmt` away from them (the header above is
    # already formatted as rustfmt would, so `cargo fmt` leaves the whole file unchanged).
    text += ("\n#[rustfmt::skip]\nmod records {\nuse super::*;\n\n" + "\n\n".join(consts_out) + "\n\n"
             + "\n".join(tests_out) + "}\n")
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print("wrote %s: %d records in %d tests, %d checks (%s)" % (
        os.path.relpath(args.out, REPO), len(chosen), len(groups), sum(total),
        ", ".join("%s %d" % (k, n) for k, n in zip(KINDS, total))))


if __name__ == "__main__":
    main()
