#!/usr/bin/env python3
"""Generate the CuTe layout-algebra test vectors under tests/data/.

Usage:  python3 tools/oracle/gen_vectors.py [--keep-build DIR] [--jobs N]

The oracle is the real CuTe C++ headers from the nvidia-cutlass 4.2.0.0 wheel,
compiled on the host with g++ (no GPU needed), plus pycute from the same wheel
for `prefix_product`, which CuTe C++ 4.2 no longer has. tools/oracle/setup.sh
installs both into $ORACLE (default /tmp/oracle).

How it works: Python draws random int tuples / layouts with a fixed seed and
writes them as C++ expressions into a handful of translation units. Each case
is a function that prints its own record with cute::print, so every value in
the output (arguments included) is CuTe's own text. The output is then checked
line by line against the plan (same keys, same number of lines, arguments
printed exactly as Python expected them) before any file is written.

See tools/oracle/README.md for the file formats.
"""

import argparse
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from math import prod

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA_DIR = os.path.join(REPO, "tests", "data")
SETUP_SH = os.path.join(HERE, "setup.sh")
CUTLASS_VERSION = "4.2.0.0"

SEED = 20250917
N_LAYOUTS = 1500          # random layout records (plus a few fixed ones)
N_PER_FUNCTION = 300      # lines per function in cute_int_tuples.txt
LAYOUT_CASES_PER_TU = 110  # layout cases are template-heavy: keep TUs small
TUPLE_CASES_PER_TU = 700
MAX_SIZE = 512


def die(msg):
    sys.exit("gen_vectors.py: error: " + msg)


# ---------------------------------------------------------------------------
# Int tuple model. A leaf carries its value and whether it is static
# (Int<N>{}, printed `_N`) or dynamic (int, printed `N`); tuples are Python
# tuples of nodes.
# ---------------------------------------------------------------------------

class Leaf:
    __slots__ = ("v", "s")

    def __init__(self, v, s):
        self.v = v
        self.s = s


def is_leaf(x):
    return isinstance(x, Leaf)


def fmt(x):
    """CuTe's print() text for a node."""
    if is_leaf(x):
        return ("_%d" if x.s else "%d") % x.v
    return "(" + ",".join(fmt(e) for e in x) + ")"


def fmt_plain(x):
    """CuTe print() text of a value with every leaf dynamic (for pycute results)."""
    if isinstance(x, tuple):
        return "(" + ",".join(fmt_plain(e) for e in x) + ")"
    return "%d" % x


def cpp(x):
    if is_leaf(x):
        return ("Int<%d>{}" if x.s else "int(%d)") % x.v
    return "make_tuple(" + ",".join(cpp(e) for e in x) + ")"


def plain(x):
    """Node -> plain Python ints/tuples, as pycute expects."""
    if is_leaf(x):
        return x.v
    return tuple(plain(e) for e in x)


def size(x):
    return x.v if is_leaf(x) else prod(size(e) for e in x)


def all_static(x):
    return x.s if is_leaf(x) else all(all_static(e) for e in x)


def leaves(x):
    if is_leaf(x):
        yield x
    else:
        for e in x:
            yield from leaves(e)


def map_leaves(x, f):
    return f(x) if is_leaf(x) else tuple(map_leaves(e, f) for e in x)


def profile(x):
    return "_" if is_leaf(x) else "(" + ",".join(profile(e) for e in x) + ")"


# ---------------------------------------------------------------------------
# Random generation
# ---------------------------------------------------------------------------

# Extent 1 is a corner case everywhere (static _1 gets stride _0, skips a
# division in idx2crd, ...), so it gets about a third of the draws.
EXTENTS = [1, 1, 1, 1] + list(range(2, 9))
# Ranks of nested tuples; one-mode nested tuples like ((8),4) are rarer.
SUB_RANKS = [1] + [2] * 5 + [3] * 3 + [4] * 2
NEST_P = {1: 0.3, 2: 0.2}  # chance that a mode of a level-k tuple is itself a tuple


def rand_leaf(rng, values=EXTENTS, p_static=0.5):
    return Leaf(rng.choice(values), rng.random() < p_static)


def gen_mode(rng, level, values=EXTENTS):
    """A mode inside a tuple at nesting `level` (top-level tuple is level 1);
    tuples are only created up to depth 3."""
    if level < 3 and rng.random() < NEST_P[level]:
        return tuple(gen_mode(rng, level + 1, values) for _ in range(rng.choice(SUB_RANKS)))
    return rand_leaf(rng, values)


def gen_shape(rng, max_size=MAX_SIZE, allow_rank0=False, values=EXTENTS):
    """Scalar, one-mode tuple, rank 2..4 or (rarely) up to 8 at the top."""
    while True:
        r = rng.random()
        if allow_rank0 and r < 0.006:
            return ()
        if r < 0.10:
            s = rand_leaf(rng, values)
        elif r < 0.17:
            s = (gen_mode(rng, 1, values),)
        else:
            rank = rng.choice([5, 6, 7, 8]) if rng.random() < 0.06 else rng.choice([2, 2, 3, 3, 4])
            s = tuple(gen_mode(rng, 1, values) for _ in range(rank))
        if size(s) <= max_size:
            return s


def rand_stride_value(rng):
    r = rng.random()
    if r < 0.08:
        return 0
    if r < 0.23:
        return rng.randint(-12, -1)
    return rng.randint(1, 24)


def gen_stride(rng, shape):
    return map_leaves(shape, lambda _: Leaf(rand_stride_value(rng), rng.random() < 0.5))


def restatic(rng, nodes):
    """Random per-leaf static flags rarely make a whole tuple static, and only
    then are results like size() static; so force all-static in 20% of cases
    and all-dynamic in 10%. `nodes` share one decision."""
    r = rng.random()
    if r < 0.2:
        return [map_leaves(x, lambda l: Leaf(l.v, True)) for x in nodes]
    if r < 0.3:
        return [map_leaves(x, lambda l: Leaf(l.v, False)) for x in nodes]
    return nodes


def gen_order(rng, shape):
    """A static order for make_ordered_layout, weakly congruent with the shape:
    each tuple mode either gets a nested order or one order value for the whole
    mode. Values are distinct, sometimes non-contiguous."""
    if is_leaf(shape) or (len(shape) > 0 and rng.random() < 0.08):
        prof = None  # a single order value
    else:
        def build(s, top):
            if is_leaf(s):
                return None
            if top or rng.random() < 0.5:
                return tuple(build(e, False) for e in s)
            return None
        prof = build(shape, True)
    n = sum(1 for _ in _order_slots(prof))
    vals = rng.sample(range(2 * n + 2), n) if rng.random() < 0.3 else rng.sample(range(n), n)
    it = iter(vals)

    def fill(p):
        if p is None:
            return Leaf(next(it), True)
        return tuple(fill(e) for e in p)
    return fill(prof)


def _order_slots(p):
    if p is None:
        yield None
    else:
        for e in p:
            yield from _order_slots(e)


def rand_coord(rng, shape, mode, p_static=0.2):
    """A coordinate for `shape`: 'hier' congruent with the shape, 'flat' one int
    per top mode, 'mixed' a random choice per mode; leaves in range."""
    def leaf(n):
        return Leaf(rng.randrange(n), rng.random() < p_static)

    def rec(s, m):
        if is_leaf(s):
            return leaf(s.v)
        if m == "mixed" and rng.random() < 0.5:
            return leaf(size(s))
        return tuple(rec(e, m) for e in s)

    if is_leaf(shape):
        return leaf(shape.v)
    if mode == "flat":
        return tuple(leaf(size(e)) for e in shape)
    return tuple(rec(e, mode) for e in shape)


# ---------------------------------------------------------------------------
# C++ plumbing
# ---------------------------------------------------------------------------

CPP_PRELUDE = r"""
// Generated by tools/oracle/gen_vectors.py; compiled and run on the host.
#include <cute/layout.hpp>
#include <cute/int_tuple.hpp>
#include <cstdio>
#include <initializer_list>
using namespace cute;

static void nl() { std::putchar('\n'); }
template <class T> static void fld(T const& x) { std::putchar('\t'); print(x); }
template <class T> static void fbool(T const& b) { std::fputs(bool(b) ? "\ttrue" : "\tfalse", stdout); }

// ---- layout records ----
template <class L> void head(L const& l) {
  std::fputs("layout", stdout); fld(l); nl();
  std::fputs("size", stdout);   fld(size(l)); nl();
  std::fputs("cosize", stdout); fld(cosize(l)); nl();
  std::fputs("rank", stdout);   fld(rank(l)); nl();
}
// depth(), L(i), idx2crd and crd2idx do not compile for rank-0 shapes.
template <class L> void body(L const& l) {
  std::fputs("depth", stdout);  fld(depth(l)); nl();
  std::fputs("offsets\t", stdout);
  for (int i = 0; i < int(size(l)); ++i) std::printf(i ? " %d" : "%d", int(l(i)));
  nl();
}
template <class L, class I> void i2c(L const& l, I const& i) {
  std::fputs("idx2crd", stdout); fld(i); fld(idx2crd(i, shape(l))); nl();
}
template <class L> void i2c_ints(L const& l, std::initializer_list<int> is) {
  for (int i : is) i2c(l, i);
}
template <class L, class C> void c2i(L const& l, C const& c) {
  std::fputs("crd2idx", stdout); fld(c); fld(crd2idx(c, shape(l), stride(l))); nl();
}
template <class L> void hier(L const& l, std::initializer_list<int> is) {
  for (int i : is) { std::printf("get_hier_coord\t%d", i); fld(l.get_hier_coord(i)); nl(); }
}
template <class L> void flat(L const& l, std::initializer_list<int> is) {
  for (int i : is) { std::printf("get_flat_coord\t%d", i); fld(l.get_flat_coord(i)); nl(); }
}
template <class L> void oned(L const& l, std::initializer_list<int> is) {
  for (int i : is) { std::printf("get_1d_coord\t%d", i); fld(l.get_1d_coord(i)); nl(); }
}
static void end() { std::puts("end"); }

// ---- int tuple lines ----
template <class A, class R> void t1(char const* fn, A const& a, R const& r) {
  std::fputs(fn, stdout); fld(a); fld(r); nl();
}
template <class A, class B, class R> void t2(char const* fn, A const& a, B const& b, R const& r) {
  std::fputs(fn, stdout); fld(a); fld(b); fld(r); nl();
}
template <class A, class B, class R> void b2(char const* fn, A const& a, B const& b, R const& r) {
  std::fputs(fn, stdout); fld(a); fld(b); fbool(r); nl();
}
"""


def oracle_env():
    """Run setup.sh (idempotent) and return (g++ include flags, pycute's parent dir)."""
    if shutil.which("g++") is None:
        die("g++ not found on PATH; the CuTe oracle is compiled with g++ -std=c++17")
    try:
        out = subprocess.run(["bash", SETUP_SH], check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        die("oracle setup failed (%s):\n%s%s" % (SETUP_SH, e.stdout, e.stderr))
    env = {}
    for line in out.splitlines():
        if line.startswith("export "):
            k, _, v = line[len("export "):].partition("=")
            env[k] = " ".join(shlex.split(v))  # strip the shell quoting
    inc = shlex.split(env.get("CUTE_INC", ""))
    pypath = env.get("PYTHONPATH", "")
    if not any(os.path.isfile(os.path.join(w, "cute", "layout.hpp")) for w in inc if not w.startswith("-")):
        die("CuTe headers (cute/layout.hpp) not found via CUTE_INC=%r" % " ".join(inc))
    if not os.path.isfile(os.path.join(pypath, "pycute", "int_tuple.py")):
        die("pycute not found under PYTHONPATH=%r" % pypath)
    return inc, pypath


def build_and_run(units, inc, build_dir, jobs):
    """units: list of (name, C++ source). Returns list of stdout texts, in order."""
    def one(unit):
        name, src = unit
        cpp_path = os.path.join(build_dir, name + ".cpp")
        exe = os.path.join(build_dir, name)
        t = time.time()
        with open(cpp_path, "w") as f:
            f.write(src)
        r = subprocess.run(["g++", "-std=c++17", "-O1", *inc, cpp_path, "-o", exe],
                           capture_output=True, text=True)
        if r.returncode != 0:
            die("compiling %s failed:\n%s" % (cpp_path, r.stderr[-6000:]))
        r = subprocess.run([exe], capture_output=True, text=True)
        if r.returncode != 0:
            die("%s exited with %d (stderr: %s)" % (exe, r.returncode, r.stderr[-2000:]))
        print("  %s: %.0f s" % (name, time.time() - t), flush=True)
        return r.stdout

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(one, units))


def compile_and_run(src, inc, what):
    """Compile one C++ program (g++ -O0: these programs print, they do not compute) and return its
    standard output; dies naming `what` on a compile or run failure."""
    with tempfile.TemporaryDirectory() as d:
        cpp_path, exe = os.path.join(d, what + ".cpp"), os.path.join(d, what)
        with open(cpp_path, "w") as f:
            f.write(src)
        r = subprocess.run(["g++", "-std=c++17", "-O0", *inc, cpp_path, "-o", exe], capture_output=True, text=True)
        if r.returncode != 0:
            die("%s: g++ failed:\n%s" % (what, r.stderr[-4000:]))
        r = subprocess.run([exe], capture_output=True, text=True)
        if r.returncode != 0:
            die("%s exited with %d (stderr: %s)" % (what, r.returncode, r.stderr[-2000:]))
        return r.stdout


def write_vectors(path, header, text):
    """Replace `path` atomically with `header` and `text`, and say how many lines it has."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(header + text)
    os.replace(tmp, path)
    print("%s: %d lines -> %s" % (os.path.basename(sys.argv[0]), text.count("\n"), os.path.relpath(path)))


def make_units(prefix, calls, per_tu):
    """calls: list of C++ statement blocks; each becomes a function of its own."""
    units = []
    for u in range(0, len(calls), per_tu):
        chunk = calls[u:u + per_tu]
        fns = "\n".join("static void c%d() {\n%s\n}" % (k, c) for k, c in enumerate(chunk))
        main = "int main() {\n" + "".join("  c%d();\n" % k for k in range(len(chunk))) + "  return 0;\n}\n"
        units.append(("%s_%02d" % (prefix, u // per_tu), CPP_PRELUDE + fns + "\n" + main))
    return units


# ---------------------------------------------------------------------------
# File 1: layouts
# ---------------------------------------------------------------------------

class LayoutCase:
    """One layout record: how to build it and which arguments to query."""

    def __init__(self, shape, stride=None, kind="explicit", order=None):
        self.shape, self.stride, self.kind, self.order = shape, stride, kind, order
        self.extra_idx, self.extra_crd = [], []  # nodes: known answers to include

    def ctor(self):
        if self.kind == "explicit":
            return "make_layout(%s, %s)" % (cpp(self.shape), cpp(self.stride))
        if self.kind == "left":
            return "make_layout(%s)" % cpp(self.shape)
        if self.kind == "right":
            return "make_layout(%s, LayoutRight{})" % cpp(self.shape)
        return "make_ordered_layout(%s, %s)" % (cpp(self.shape), cpp(self.order))

    def plan(self, rng):
        """Choose the queries; returns (C++ statements, expected lines) where an
        expected line is (key, expected first argument text or None)."""
        s, n = self.shape, size(self.shape)
        st = ["auto l = %s;" % self.ctor(), "head(l);"]
        exp = [("layout", None), ("size", None), ("cosize", None), ("rank", None)]
        rank0 = not is_leaf(s) and len(s) == 0
        if self.kind == "explicit":
            # cosize = 1 + sum (s-1)*|d|, not L(size-1)+1
            cosize = 1 + sum((a.v - 1) * abs(b.v) for a, b in zip(leaves(s), leaves(self.stride)))
            # get_hier_coord computes (i / d) % s and divides by zero for a zero
            # stride, except on static _1 modes, which it skips.
            divisible = all(b.v != 0 or (a.s and a.v == 1)
                            for a, b in zip(leaves(s), leaves(self.stride)))
        else:
            cosize, divisible = n, True  # compact: bijection onto [0, size)
        if not rank0:
            st.append("body(l);")
            exp += [("depth", None), ("offsets", None)]
            ints = list(range(n)) if n <= 64 else sorted(rng.sample(range(n), 24))
            ints += [n, n + 3]  # past the end: the last mode absorbs them
            st.append("i2c_ints(l, {%s});" % ",".join(map(str, ints)))
            exp += [("idx2crd", str(i)) for i in ints]
            for a in self.extra_idx:
                st.append("i2c(l, %s);" % cpp(a))
                exp.append(("idx2crd", fmt(a)))
            for k in rng.sample(range(max(n, 2)), 2):
                st.append("i2c(l, Int<%d>{});" % k)
                exp.append(("idx2crd", "_%d" % k))
            if not is_leaf(s):
                for _ in range(4):
                    a = rand_coord(rng, s, "mixed")
                    st.append("i2c(l, %s);" % cpp(a))
                    exp.append(("idx2crd", fmt(a)))
            crds = [rand_coord(rng, s, m) for m in ["hier", "flat", "mixed"] for _ in range(4)]
            crds += [Leaf(rng.randrange(n), False), Leaf(rng.randrange(n), True)] + self.extra_crd
            for c in crds:
                st.append("c2i(l, %s);" % cpp(c))
                exp.append(("crd2idx", fmt(c)))
        if divisible:
            fns = ["hier", "flat"] if rank0 else ["hier", "flat", "oned"]  # get_1d_coord fails on rank 0
            keys = {"hier": "get_hier_coord", "flat": "get_flat_coord", "oned": "get_1d_coord"}
            for fn in fns:
                idx = sorted(rng.sample(range(cosize), min(8, cosize)))
                st.append("%s(l, {%s});" % (fn, ",".join(map(str, idx))))
                exp += [(keys[fn], str(i)) for i in idx]
        st.append("end();")
        exp.append(("end", None))
        return "\n".join("  " + x for x in st), exp


def S(v):
    return Leaf(v, True)


def D(v):
    return Leaf(v, False)


def fixed_layout_cases():
    """Known answers from the CuTe docs / the brief, so the spot checks are in the file."""
    cases = []
    c = LayoutCase((S(8), (S(4), S(2))), (S(1), (S(8), S(32))))
    cases.append(c)
    c = LayoutCase((D(4), (D(2), D(3))), (D(3), (D(1), D(8))))   # idx2crd(13) = (1,(1,1))
    c.extra_crd = [(D(1), (D(1), D(2)))]                        # crd2idx -> 3+1+16 = 20
    cases.append(c)
    c = LayoutCase((D(3), (D(2), D(3))), (D(1), (D(3), D(6))))
    c.extra_idx = [(D(1), D(5))]                                # idx2crd -> (1,(1,2))
    cases.append(c)
    cases.append(LayoutCase(S(8), S(1)))
    cases.append(LayoutCase(D(8), D(2)))
    cases.append(LayoutCase((D(8),), (D(1),)))
    cases.append(LayoutCase((), ()))
    cases.append(LayoutCase((S(1), D(4), S(1)), kind="left"))
    cases.append(LayoutCase((D(2), S(3), D(4)), kind="ordered", order=(S(2), S(0), S(1))))
    return cases


def gen_layout_cases(rng):
    cases = fixed_layout_cases()
    for _ in range(N_LAYOUTS):
        r = rng.random()
        s = gen_shape(rng, allow_rank0=True)
        if r < 0.70:  # arbitrary strides; the rest are compact so get_*_coord mean something
            s, d = restatic(rng, [s, gen_stride(rng, s)])
            cases.append(LayoutCase(s, d))
            continue
        s, = restatic(rng, [s])
        if r < 0.80:
            cases.append(LayoutCase(s, kind="left"))
        elif r < 0.90:
            cases.append(LayoutCase(s, kind="right"))
        else:
            cases.append(LayoutCase(s, kind="ordered", order=gen_order(rng, s)))
    return cases


def check_layout_output(cases, expected, text, pycute):
    """Split the program output into records and check them against the plan."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    pos, records = 0, []
    for case, exp in zip(cases, expected):
        rec = lines[pos:pos + len(exp)]
        pos += len(exp)
        if len(rec) != len(exp):
            die("layout output ended early (case %s)" % case.ctor())
        for line, (key, arg) in zip(rec, exp):
            f = line.split("\t")
            if f[0] != key or (arg is not None and f[1] != arg):
                die("unexpected line %r for case %s; expected key %r arg %r" % (line, case.ctor(), key, arg))
        lay = rec[0].split("\t")[1]
        shape_txt = lay.split(":")[0]
        if shape_txt != fmt(case.shape):
            die("layout %s printed as %r" % (case.ctor(), lay))
        if case.kind == "explicit":
            if lay != fmt(case.shape) + ":" + fmt(case.stride):
                die("layout %s printed as %r" % (case.ctor(), lay))
            if is_leaf(case.shape) or len(case.shape) > 0:
                # independent cross-check of L(i) with pycute
                offs = [l for l in rec if l.startswith("offsets\t")][0].split("\t")[1]
                want = " ".join(str(pycute.crd2idx(i, plain(case.shape), plain(case.stride)))
                                for i in range(size(case.shape)))
                if offs != want:
                    die("offsets of %s disagree with pycute: %s vs %s" % (lay, offs, want))
        records.append(rec)
    if pos != len(lines):
        die("layout output has %d extra lines" % (len(lines) - pos))
    return records


# ---------------------------------------------------------------------------
# File 2: int tuples
# ---------------------------------------------------------------------------

DIV_VALUES = [1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32]


class StaticDivisibility(Exception):
    pass


def leaf_op(a, b, f):
    return Leaf(f(a.v, b.v), a.s and b.s)


def prod_node(x):
    """cute::product: static iff every leaf is static (product of () is _1)."""
    return x if is_leaf(x) else Leaf(size(x), all_static(x))


def emulate_shape_div(a, b):
    """Mirrors cute::shape_div's recursion only to find the int/int steps where
    both sides are static: those static_assert that one divides the other."""
    if not is_leaf(a):
        if not is_leaf(b):
            return tuple(emulate_shape_div(x, y) for x, y in zip(a, b))
        out, rest = [], b
        for ai in a:
            out.append(emulate_shape_div(ai, rest))
            rest = emulate_shape_div(rest, ai)
        return tuple(out)
    if not is_leaf(b):
        return emulate_shape_div(a, prod_node(b))
    if a.s and b.s and a.v % b.v and b.v % a.v:
        raise StaticDivisibility()
    return leaf_op(a, b, lambda x, y: (x + y - 1) // y)


def gen_div_pair(rng, combo, for_ceil):
    """(A, B) for shape_div/ceil_div. combo: tt, ti, it or ii at the top;
    below a tuple/tuple pair the modes pair up recursively in any combination."""
    def tup(level=1):
        return tuple(gen_mode(rng, level, DIV_VALUES) for _ in range(rng.choice([1, 2, 2, 3, 3, 4])))

    def b_for(a, level):
        if is_leaf(a):
            if rng.random() < 0.8 or level >= 3:
                return rand_leaf(rng, range(1, 9))
            return tuple(rand_leaf(rng, range(1, 5)) for _ in range(rng.choice([1, 2, 3])))  # int/tuple
        if rng.random() < 0.4:
            return rand_leaf(rng, range(1, 9))  # tuple/int
        # tuple/tuple: equal rank for shape_div; ceil_div pads a shorter B with 1s
        r = rng.randint(0, len(a)) if for_ceil and rng.random() < 0.5 else len(a)
        return tuple(b_for(e, level + 1) for e in a[:r])

    if combo == "tt":
        a = tup()
        b = tuple(b_for(e, 2) for e in a)
        if for_ceil and rng.random() < 0.5:
            b = b[:rng.randint(0, len(a))]
    elif combo == "ti":
        a, b = tup(), rand_leaf(rng, range(1, 17))
    elif combo == "it":
        a, b = rand_leaf(rng, DIV_VALUES), tuple(rand_leaf(rng, range(1, 5)) for _ in range(rng.choice([1, 2, 3])))
    else:
        a, b = rand_leaf(rng, DIV_VALUES + [7, 9, 10]), rand_leaf(rng, range(1, 13))
    if rng.random() < 0.3:
        # all static; for shape_div, powers of two always pass the static divisibility check
        if for_ceil:
            a, b = [map_leaves(x, lambda l: Leaf(l.v, True)) for x in (a, b)]
        else:
            a, b = [map_leaves(x, lambda l: Leaf(rng.choice(vals), True)) for x, vals in
                    ((a, [1, 2, 4, 8, 16, 32]), (b, [1, 2, 4, 8]))]
    elif rng.random() < 0.15:
        a, b = [map_leaves(x, lambda l: Leaf(l.v, False)) for x in (a, b)]
    if not for_ceil:
        # make static leaves dynamic one by one until no static pair violates divisibility
        while True:
            try:
                emulate_shape_div(a, b)
                break
            except StaticDivisibility:
                stat = [l for l in list(leaves(a)) + list(leaves(b)) if l.s]
                rng.choice(stat).s = False
    return a, b


def factor_subtree(rng, v, level):
    """A random subtree whose product is v (compatible() refinement of a leaf)."""
    k = rng.choice([1, 2, 2, 2, 3])
    parts = [1] * k
    n, p = v, 2
    while n > 1:
        while n % p == 0:
            parts[rng.randrange(k)] *= p
            n //= p
        p += 1
    return tuple(factor_subtree(rng, x, level + 1) if level < 3 and rng.random() < 0.2
                 else Leaf(x, rng.random() < 0.5) for x in parts)


def random_subtree(rng, level):
    return tuple(gen_mode(rng, min(level + 1, 3)) for _ in range(rng.choice([1, 2, 2, 3])))


def refine(rng, a, leaf_fn, p=0.35):
    """Replace some leaves of `a` by subtrees (so a <= result in the partial order)."""
    if is_leaf(a):
        return leaf_fn(a) if rng.random() < p else Leaf(a.v, rng.random() < 0.5)
    return tuple(refine(rng, e, leaf_fn, p) for e in a)


def nodes_with_paths(x, path=()):
    yield path, x
    if not is_leaf(x):
        for i, e in enumerate(x):
            yield from nodes_with_paths(e, path + (i,))


def replace_at(x, path, new):
    if not path:
        return new
    return tuple(replace_at(e, path[1:], new) if i == path[0] else e for i, e in enumerate(x))


def mutate_profile(rng, a):
    """Change the nesting of `a` somewhere: leaf -> tuple, tuple -> leaf, or a
    tuple gains / loses a mode. Leaves keep their product where possible."""
    for _ in range(100):
        nodes = list(nodes_with_paths(a))
        path, n = rng.choice(nodes)
        op = rng.random()
        if is_leaf(n):
            new = (Leaf(n.v, n.s),) if op < 0.3 else factor_subtree(rng, n.v, 3) + (Leaf(1, True),)
        elif op < 0.4:
            new = Leaf(size(n), rng.random() < 0.5)
        elif op < 0.7 or len(n) == 0:
            new = n + (rand_leaf(rng),)
        else:
            new = n[:-1]
        b = replace_at(a, path, new)
        if profile(b) != profile(a):
            return b
    return (a,)


def mutate_coarsen(rng, a):
    """For weakly_congruent: make B coarser than A somewhere (tuple -> leaf or rank change)."""
    tuples = [(p, n) for p, n in nodes_with_paths(a) if not is_leaf(n)]
    if not tuples:
        return None
    path, n = rng.choice(tuples)
    if rng.random() < 0.5 or len(n) == 0:
        new = Leaf(size(n), rng.random() < 0.5)
    else:
        new = n[:-1] if rng.random() < 0.5 else n + (rand_leaf(rng),)
    return replace_at(a, path, new)


def weakly_congruent_py(a, b):
    if not is_leaf(a) and not is_leaf(b):
        return len(a) == len(b) and all(weakly_congruent_py(x, y) for x, y in zip(a, b))
    return is_leaf(a)


def compatible_py(a, b):
    if not is_leaf(a) and not is_leaf(b):
        return len(a) == len(b) and all(compatible_py(x, y) for x, y in zip(a, b))
    return is_leaf(a) and a.v == size(b)


def revalue(rng, x):
    return map_leaves(x, lambda l: rand_leaf(rng))


def gen_tuple_lines(rng, pycute):
    """Plan of cute_int_tuples.txt, in file order: a list of
    (function, C++ block, [expected printed args]) for CuTe calls and
    (function, None, finished line) for lines computed here with pycute."""
    N = N_PER_FUNCTION
    out = []

    def shapes(n, rank0=True):
        res = [restatic(rng, [gen_shape(rng)])[0] for _ in range(n)]
        if rank0:
            res[rng.randrange(n)] = ()
        return res

    for fn in ["size", "rank", "depth", "flatten", "product_each", "compact_col_major", "compact_row_major"]:
        # depth() has no answer for () (cute::max of nothing); no rank-0 there
        for a in shapes(N, rank0=(fn != "depth")):
            out.append((fn, "{ auto a_ = %s; t1(\"%s\", a_, %s(a_)); }" % (cpp(a), fn, fn), [fmt(a)]))

    for fn in ["shape_div", "ceil_div"]:
        for i in range(N):
            a, b = gen_div_pair(rng, ["tt", "ti", "it", "ii"][i % 4], fn == "ceil_div")
            out.append((fn, "{ auto a_ = %s; auto b_ = %s; t2(\"%s\", a_, b_, %s(a_, b_)); }"
                        % (cpp(a), cpp(b), fn, fn), [fmt(a), fmt(b)]))

    def pair(fn, a, b):
        out.append((fn, "{ auto a_ = %s; auto b_ = %s; b2(\"%s\", a_, b_, %s(a_, b_)); }"
                    % (cpp(a), cpp(b), fn, fn), [fmt(a), fmt(b)]))

    for i in range(N):
        a = gen_shape(rng, allow_rank0=True)
        a, b = restatic(rng, [a, revalue(rng, a) if i % 2 == 0 else mutate_profile(rng, a)])
        pair("congruent", a, b)
    # Alternate wanted truth values; the small Python models of the predicates
    # are only used to steer the draws towards a balanced file (CuTe decides).
    for i in range(N):
        for _ in range(50):
            a = gen_shape(rng, allow_rank0=True)
            b = refine(rng, a, lambda l: random_subtree(rng, 2)) if i % 2 == 0 else mutate_coarsen(rng, a)
            if b is not None and weakly_congruent_py(a, b) == (i % 2 == 0):
                break
        a, b = restatic(rng, [a, b])
        pair("weakly_congruent", a, b)
    for i in range(N):
        for _ in range(50):
            a = gen_shape(rng, allow_rank0=True)
            b = refine(rng, a, lambda l: factor_subtree(rng, l.v, 2))
            if i % 2 and rng.random() < 0.5:
                # same nesting, one leaf's product changed
                ls = list(leaves(a))
                if ls:
                    victim = rng.choice(ls)
                    b = refine(rng, map_leaves(a, lambda l: Leaf(l.v + 1, l.s) if l is victim else l),
                               lambda l: factor_subtree(rng, l.v, 2))
            elif i % 2:
                b = mutate_profile(rng, b)
            if compatible_py(a, b) == (i % 2 == 0):
                break
        a, b = restatic(rng, [a, b])
        pair("compatible", a, b)

    for _ in range(N):
        s, = restatic(rng, [gen_shape(rng)])
        o = gen_order(rng, s)
        out.append(("make_ordered_layout",
                    "{ auto a_ = %s; auto b_ = %s; t2(\"make_ordered_layout\", a_, b_, make_ordered_layout(a_, b_)); }"
                    % (cpp(s), cpp(o)), [fmt(s), fmt(o)]))
    for fn, extra in [("make_layout_right", ", LayoutRight{}"), ("make_layout_left", "")]:
        for s in shapes(N):
            out.append((fn, "{ auto a_ = %s; t1(\"%s\", a_, make_layout(a_%s)); }" % (cpp(s), fn, extra),
                        [fmt(s)]))

    # pycute: CuTe C++ 4.2 has no prefix_product (and pycute has no suffix_product)
    for s in shapes(N):
        out.append(("prefix_product", None, "prefix_product\t%s\t%s"
                    % (fmt(map_leaves(s, lambda l: Leaf(l.v, False))),
                       fmt_plain(pycute.prefix_product(plain(s))))))
    return out


def check_tuple_output(items, text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cxx = [it for it in items if it[1] is not None]
    if len(lines) != len(cxx):
        die("int tuple programs printed %d lines, planned %d" % (len(lines), len(cxx)))
    it = iter(lines)
    result = []
    for fn, block, exp in items:
        if block is None:
            result.append(exp)  # the pycute line itself
            continue
        line = next(it)
        f = line.split("\t")
        if f[0] != fn or f[1:1 + len(exp)] != exp or len(f) != 2 + len(exp):
            die("unexpected int tuple line %r; expected %s %s" % (line, fn, exp))
        result.append(line)
    return result


# ---------------------------------------------------------------------------

def header(what, lines):
    return "".join("# %s\n" % l for l in [
        "Generated by tools/oracle/gen_vectors.py from CuTe C++ (cutlass %s)%s. Do not edit."
        % (CUTLASS_VERSION, what),
        "Regenerate with: python3 tools/oracle/gen_vectors.py   (format: tools/oracle/README.md)",
    ] + lines)


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def tally(keys):
    counts = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return ", ".join("%s=%d" % kv for kv in counts.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=["layouts", "tuples"], help="regenerate just one of the two files")
    ap.add_argument("--keep-build", metavar="DIR", help="build in DIR and keep the C++ sources")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    t0 = time.time()
    do_layouts = args.only in (None, "layouts")
    do_tuples = args.only in (None, "tuples")

    inc, pypath = oracle_env()
    sys.path.insert(0, pypath)
    import pycute  # noqa: E402  (from the oracle install)

    build_dir = args.keep_build or tempfile.mkdtemp(prefix="cute_oracle_")
    os.makedirs(build_dir, exist_ok=True)

    # Separate streams so that each file's content is independent of the other.
    rng_l = random.Random(SEED)
    rng_t = random.Random(SEED + 1)

    units, n_layout_units = [], 0
    if do_layouts:
        cases = gen_layout_cases(rng_l)
        plans = [c.plan(rng_l) for c in cases]
        units += make_units("layouts", [p[0] for p in plans], LAYOUT_CASES_PER_TU)
        n_layout_units = len(units)
    if do_tuples:
        items = gen_tuple_lines(rng_t, pycute)
        units += make_units("tuples", [it[1] for it in items if it[1] is not None], TUPLE_CASES_PER_TU)
    print("compiling %d translation units with %d jobs in %s" % (len(units), args.jobs, build_dir), flush=True)
    outs = build_and_run(units, inc, build_dir, args.jobs)

    os.makedirs(DATA_DIR, exist_ok=True)
    if do_layouts:
        records = check_layout_output(cases, [p[1] for p in plans], "".join(outs[:n_layout_units]), pycute)
        path = os.path.join(DATA_DIR, "cute_layouts.txt")
        write_atomically(path, header("", [
            "One record per layout: a `layout` line, then size cosize rank depth offsets,",
            "idx2crd/crd2idx/get_*_coord lines (TAB-separated), then `end`. Rank-0 records",
            "omit the lines CuTe cannot compute (see README).",
        ]) + "".join("\n".join(rec) + "\n" for rec in records))
        print("%s: %d records, %d bytes; lines: %s" % (path, len(records), os.path.getsize(path),
              tally(l.split("\t")[0] for rec in records for l in rec)))
    if do_tuples:
        lines = check_tuple_output(items, "".join(outs[n_layout_units:]))
        path = os.path.join(DATA_DIR, "cute_int_tuples.txt")
        write_atomically(path, header(" and pycute (prefix_product lines only)", [
            "One line per call: function<TAB>arg1[<TAB>arg2]<TAB>result, CuTe print() notation.",
        ]) + "".join(l + "\n" for l in lines))
        print("%s: %d lines, %d bytes; lines: %s" % (path, len(lines), os.path.getsize(path),
              tally(l.split("\t")[0] for l in lines)))

    if not args.keep_build:
        shutil.rmtree(build_dir, ignore_errors=True)
    print("done in %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
