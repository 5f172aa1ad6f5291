#!/usr/bin/env python3
"""Generate the CuTe layout-algebra test vectors, tests/data/cute_algebra_<family>.txt.

Usage:  python3 tools/oracle/gen_algebra_vectors.py [--only FAMILY,...] [--scale X]
                                                   [--keep-build DIR] [--jobs N]

The oracle is the CuTe C++ headers of nvidia-cutlass 4.2.0.0, compiled on the host with g++ (set
up by tools/oracle/setup.sh, as for gen_vectors.py). Each vector is one call of a CuTe algebra
function; the file records CuTe's printed result and a verdict computed here, by brute force, from
the defining property of the operation: CuTe silently returns wrong layouts for inadmissible inputs
(Decision 2 of the project's reference), and those rows say so and carry the right answer.

How it works. A case is a CuTe call whose operands have static leaves (Int<N>{}) and runtime leaves
(int). Its C++ text with every runtime leaf replaced by a slot V(k) is the case's *kernel*: cases
that differ only in runtime values share a kernel, so one compiled function serves thousands of
vectors (the values are read from stdin), while each static operand needs a kernel of its own.
Kernels are spread over translation units that are compiled in parallel. A kernel that CuTe rejects
at compile time (a static_assert) is dropped and its unit recompiled; a case that crashes at run
time (division by zero, assert) is dropped and the run resumes after it. Both are counted in the
summary. Nothing is written unless every family ran; files are replaced atomically.

See tools/oracle/README.md ("Algebra vectors") for the file format, the operand catalogue and the
exact property behind each verdict.
"""

import argparse
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from math import prod

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vectors as gv  # noqa: E402  (shared oracle setup, tuple model and printing)
from gen_vectors import Leaf, is_leaf, fmt, size, leaves, all_static  # noqa: E402

DATA_DIR = gv.DATA_DIR
CUTLASS_VERSION = gv.CUTLASS_VERSION

SEED = 20250918
MAX_SIZE = 512        # operand sizes
MAX_RESULT = 1024     # sizes of the mathematical results (products, padded divides)
MAX_TRUTH = 512       # `wrong` rows carry at most this many offsets (keeps the files small)
MAX_CUTE_SIZE = 16384 # larger CuTe results are not recorded
MAX_NODES = 64        # const_layout's DynIntTuple holds 64 nodes: no operand or result is larger
KERNELS_PER_TU = 150
RUN_TIMEOUT = 300

FAMILIES = ["coalesce", "filter", "composition", "complement", "inverse", "divide", "product",
            "modes", "cast", "max_common", "nullspace", "tile_to_shape", "swizzle"]


def die(msg):
    sys.exit("gen_algebra_vectors.py: error: " + msg)


# ---------------------------------------------------------------------------
# Model: int tuples are gen_vectors' Leaf / tuple nodes; a layout is a pair of congruent nodes.
# ---------------------------------------------------------------------------

def S(v):
    return Leaf(v, True)


def D(v):
    return Leaf(v, False)


def nnodes(x):
    return 1 if is_leaf(x) else 1 + sum(nnodes(e) for e in x)


def restatic(x, flag):
    return Leaf(x.v, flag) if is_leaf(x) else tuple(restatic(e, flag) for e in x)


class Lay:
    __slots__ = ("shape", "stride")

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def pairs(self):
        return [(a.v, b.v) for a, b in zip(leaves(self.shape), leaves(self.stride))]

    def size(self):
        return size(self.shape)

    def rank(self):
        return 1 if is_leaf(self.shape) else len(self.shape)

    def modes(self):
        if is_leaf(self.shape):
            return [self]
        return [Lay(a, b) for a, b in zip(self.shape, self.stride)]

    def text(self):
        return fmt(self.shape) + ":" + fmt(self.stride)

    def is_static(self):
        return all_static(self.shape) and all_static(self.stride)

    def nodes(self):
        return nnodes(self.shape)


def concat(layouts):
    """The layout whose modes are the given layouts (CuTe's make_layout(l0, l1, ...))."""
    return Lay(tuple(l.shape for l in layouts), tuple(l.stride for l in layouts))


# ---------------------------------------------------------------------------
# Layout functions, by brute force
# ---------------------------------------------------------------------------

def offs(pairs):
    """L(i) for i in [0, size), colexicographic (first mode fastest)."""
    res = [0]
    for s, d in pairs:
        if s != 1:
            res = [r + j * d for j in range(max(s, 0)) for r in res]
    return res


def ev(pairs, i):
    """L(i) for any i >= 0, past the end too: CuTe's idx2crd gives the excess to the last leaf."""
    off, last = 0, len(pairs) - 1
    for k, (s, d) in enumerate(pairs):
        if k == last:
            return off + i * d
        off += (i % s) * d
        i //= s
    return off


def cosize(pairs):
    """CuTe's cosize: 1 + sum (s-1)*|d|."""
    return 1 + sum((s - 1) * abs(d) for s, d in pairs)


def ceil_div(a, b):
    return -(-a // b)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def flagged(lay):
    """The (extent, stride) leaves of a layout, as Leafs (values and static flags)."""
    return list(zip(leaves(lay.shape), leaves(lay.stride)))


def mul_static(a, b):
    """Whether CuTe's product of Leafs a * b is static (a static 0 factor makes it static)."""
    return (a.s and b.s) or (a.s and a.v == 0) or (b.s and b.v == 0)


def ceil_div_leaves(cot, b):
    """CuTe's ceil_div(cot, b), cot an int tuple (a Leaf or a tuple) and b a positive Leaf, as the
    flat list of its Leafs: a tuple is divided mode by mode, the divisor itself divided by each
    mode's size as it goes."""
    if is_leaf(cot):
        return [Leaf(ceil_div(cot.v, b.v), cot.s and b.s)]
    out = []
    for e in cot:
        out += ceil_div_leaves(e, b)
        b = Leaf(ceil_div(b.v, size(e)), b.s and all_static(e))
    return out


def coalesce_leaves(ls):
    """coalesce of a flat int tuple: neighbours both static or both runtime multiply."""
    out = []
    for x in ls:
        if out and out[-1].s == x.s:
            out[-1] = Leaf(out[-1].v * x.v, x.s)
        else:
            out.append(x)
    return out


def compact_from(ls, span):
    """The compact (column-major) flagged pairs of extents `ls`, starting at stride Leaf `span`."""
    out = []
    for x in ls:
        out.append((x, span))
        span = Leaf(span.v * x.v, span.s and x.s)
    return out


def vals(fp):
    """(extent, stride) values of flagged pairs."""
    return [(a.v, b.v) for a, b in fp]


def rep(fp):
    """The (extent, stride) pairs that evaluate flagged pairs `fp` past their size as the layout
    CuTe (and const_layout) returns does: coalesce drops trailing static _1 extents (runtime 1s
    stay), and the last mode left takes the excess (merging modes does not change that)."""
    k = len(fp)
    while k > 0 and fp[k - 1][0].s and fp[k - 1][0].v == 1:
        k -= 1
    return vals(fp[:k]) or [(1, 0)]


def complement_pc(ap, rp, m):
    """Which of complement's postconditions R (pairs) breaks for A (pairs) and cotarget size m, or
    None: P1 R(i-1) < R(i); P2 R(i) not in A's image for i >= 1, and (A, R) injective when A is;
    P3 cosize((A, R)) >= m (CuTe's cosize). R must be a layout (positive extents)."""
    if any(s <= 0 for s, _ in rp):
        return "an empty mode"
    ro = offs(rp)
    if any(x >= y for x, y in zip(ro, ro[1:])):
        return "P1 (not ordered)"
    ao = offs(ap)
    image = set(ao)
    if any(x in image for x in ro[1:]):
        return "P2 (meets the layout)"
    if len(image) == len(ao):
        seen = set()
        for r in ro:
            for a in ao:
                if a + r in seen:
                    return "P2 ((A, R) not injective)"
                seen.add(a + r)
    if cosize(ap + rp) < m:
        return "P3 (does not cover)"
    return None


def fold_head(sorted_modes):
    """CuTe's fold over (extent, stride) Leafs taken in this order: the head of the complement
    (flagged pairs), its span S (a Leaf), the holes rounding down left and whether they are static."""
    res, prev, holes, holes_s = [], S(1), 0, True
    for a, b in sorted_modes:
        if prev.v == 0:
            return None
        q = Leaf(b.v // prev.v, b.s and prev.s)
        res.append((q, prev))
        holes += b.v - q.v * prev.v
        holes_s = holes_s and q.s
        prev = Leaf(b.v * a.v, mul_static(b, a))
    return res, prev, holes, holes_s


def cute_complement(fl, cot):
    """CuTe's complement(A, cot) as flagged pairs (A given as flagged leaves, cot a Leaf or a
    tuple): filter (static _0 strides and static _1 extents go, static neighbours merge), its fold
    with integer division, then coalesce(ceil_div(cot, span)) compact. None where CuTe divides by
    zero or the strides are negative (undefined)."""
    f = cute_filter_leaves(Lay(tuple(a for a, _ in fl), tuple(b for _, b in fl)))
    if not f:
        return compact_from(coalesce_leaves(leaves(cot)), S(1))
    if any(b.v < 0 for _, b in f):
        return None
    # min, then the first position holding it: a stable sort by stride
    h = fold_head(sorted(f, key=lambda ab: ab[1].v))
    if h is None or h[1].v == 0:
        return None
    res, span, _, _ = h
    return res + compact_from(coalesce_leaves(ceil_div_leaves(cot, span)), span)


def our_complement(fl, cot):
    """const_layout's complement(A, cot) (core/src/algebra/complement.rs) as flagged pairs, or None
    where it refuses (a negative stride). Modes that do not move are left out, except runtime
    extent-1 modes of positive stride ("pins"), which CuTe's fold counts. If the moving modes,
    sorted by stride, overlap (a stride below the span of the moving mode below): ceil(m/c):c with
    c = cosize(A). Otherwise pins inside the span below them are left out, CuTe's fold runs
    (rounding down), and its rest coalesce(ceil_div(cot, S)) is kept if (A, R) then covers m, else
    its last extent grows by the least amount that covers (m + H, H the holes rounding down left)."""
    m, ms = size(cot), all_static(cot)
    modes = []
    for a, b in fl:
        if b.v == 0 or (a.v == 1 and (a.s or b.v < 0)):
            continue
        if b.v < 0:
            return None
        modes.append((a, b))
    if not modes:
        return compact_from(coalesce_leaves(leaves(cot)), S(1))
    kept, moving_span, kept_span = [], 0, 0
    for a, b in sorted(modes, key=lambda ab: ab[1].v):
        if a.v == 1:
            if b.v >= kept_span:
                kept.append((a, b))
                kept_span = b.v
            continue
        if b.v < moving_span:
            # cosize(filter(A)): static when every leaf filter keeps is
            kept_by_filter = [(a, b) for a, b in fl if b.v != 0 and not (a.s and a.v == 1)]
            c = Leaf(cosize(vals(modes)), all(a.s and b.s for a, b in kept_by_filter))
            return [(Leaf(ceil_div(m, c.v), ms and c.s), c)]
        kept.append((a, b))
        moving_span = kept_span = a.v * b.v
    res, span, holes, holes_s = fold_head(kept)
    rest = coalesce_leaves(ceil_div_leaves(cot, span))
    n = prod(x.v for x in rest)
    if n * span.v - holes < m:
        last = rest[-1]
        step = n // last.v * span.v
        grown = last.v + ceil_div(m + holes - n * span.v, step)
        rest[-1] = Leaf(grown, all(x.s for x in rest) and ms and span.s and holes_s)
    return res + compact_from(rest, span)


def coalesce_shape_of(lay):
    """shape(coalesce(lay)) as CuTe (and const_layout) compute it: static _1 extents vanish, two
    neighbours merge when all four integers are static and the first's span is the second's
    stride. Values and flags, as a Leaf or a flat tuple of Leafs."""
    old = flagged(lay)
    new = [old[-1]]
    is_tuple = False
    for a, b in reversed(old[:-1]):
        if a.s and a.v == 1:
            continue
        na, nb = new[0]
        if not is_tuple and na.s and na.v == 1:
            new[0] = (a, b)
            continue
        span_static = (a.s and b.s) or (a.s and a.v == 0) or (b.s and b.v == 0)
        if na.s and span_static and nb.s and a.v * b.v == nb.v:
            new[0] = (Leaf(a.v * na.v, a.s and na.s), b)
            continue
        new.insert(0, (a, b))
        is_tuple = True
    if not is_tuple:
        a = new[0][0]
        return Leaf(1, True) if a.s and a.v == 1 else a
    return tuple(a for a, _ in new)


class Units:
    """A result function assembled from 'units': a unit is a table of offsets over the colex index
    of its own coordinate slots; the result's offset at a coordinate is the sum of the units'
    values. A form of the result (logical / zipped / blocked / ...) is an order of the slots."""

    def __init__(self):
        self.tables, self.slots = [], []  # slot: (size, unit, multiplier)

    def unit(self, table, slot_sizes):
        u, m, ids = len(self.tables), 1, []
        self.tables.append(table)
        for n in slot_sizes:
            ids.append(len(self.slots))
            self.slots.append((n, u, m))
            m *= n
        return ids

    def size(self, order):
        return prod(self.slots[s][0] for s in order)

    def offsets(self, order):
        assert sorted(order) == list(range(len(self.slots))), order
        idx = [[0] for _ in self.tables]
        for sid in order:
            n, u, m = self.slots[sid]
            if n == 1:
                continue
            for w in range(len(idx)):
                if w == u:
                    idx[w] = [x + c * m for c in range(n) for x in idx[w]]
                else:
                    idx[w] = [x for _ in range(n) for x in idx[w]]
        out = [0] * len(idx[0])
        for w, t in enumerate(self.tables):
            iw = idx[w]
            out = [o + t[i] for o, i in zip(out, iw)]
        return out


def swizzle_fn(b, m, s):
    yyy = ((1 << b) - 1) << (m + max(0, s))

    def f(x):
        t = x & yyy
        return x ^ (t >> s if s >= 0 else t << -s)
    return f


# ---------------------------------------------------------------------------
# CuTe's printed results
# ---------------------------------------------------------------------------

_LEAF = re.compile(r"(_?)(-?\d+)")


def parse_node(t, i):
    if t[i] == "(":
        items, i = [], i + 1
        if t[i] == ")":
            return (), i + 1
        while True:
            x, i = parse_node(t, i)
            items.append(x)
            if t[i] == ")":
                return tuple(items), i + 1
            if t[i] != ",":
                raise ValueError("bad tuple in %r" % t)
            i += 1
    m = _LEAF.match(t, i)
    if not m:
        raise ValueError("bad leaf in %r at %d" % (t, i))
    return Leaf(int(m.group(2)), m.group(1) == "_"), m.end()


def parse_result(t):
    """('layout', Lay) | ('int', Leaf) | ('tuple', node) | ('composed', (b,m,s), offset, Lay)."""
    m = re.fullmatch(r"Sw<(-?\d+),(-?\d+),(-?\d+)> o (\S+) o (\S+)", t)
    if m:
        off, _ = parse_node(m.group(4), 0)
        kind = parse_result(m.group(5))
        return ("composed", tuple(int(m.group(k)) for k in (1, 2, 3)), off, kind[1])
    x, i = parse_node(t, 0)
    if i == len(t):
        return ("int", x) if is_leaf(x) else ("tuple", x)
    if t[i] != ":":
        raise ValueError("cannot parse %r" % t)
    y, j = parse_node(t, i + 1)
    if j != len(t):
        raise ValueError("cannot parse %r" % t)
    return ("layout", Lay(x, y))


# ---------------------------------------------------------------------------
# Cases: the expression in the Rust evaluator's syntax and the C++ call, built side by side
# ---------------------------------------------------------------------------

class Tiler:
    """kind: 'layout' (lay), 'int' (leaf), 'shape' (node, a tuple of ints), 'bymode' (items)."""
    __slots__ = ("kind", "lay", "leaf", "node", "items")

    def __init__(self, kind, lay=None, leaf=None, node=None, items=None):
        self.kind, self.lay, self.leaf, self.node, self.items = kind, lay, leaf, node, items

    def parts(self):
        """The by-mode items of a tuple tiler (a shape's entries are int or shape tilers)."""
        if self.kind == "bymode":
            return self.items
        return [Tiler("int", leaf=e) if is_leaf(e) else Tiler("shape", node=e) for e in self.node]

    def as_layout(self):
        """A layout or int tiler as a layout (an int n is CuTe's make_layout(n) = n:_1)."""
        return self.lay if self.kind == "layout" else Lay(self.leaf, S(1))

    def is_tuple(self):
        return self.kind in ("shape", "bymode")


class Em:
    """Emits an operand as (expression text, C++ text); runtime leaves become slots V(k) whose
    values are collected in order."""

    def __init__(self):
        self.vals = []

    def leaf(self, x):
        if x.s:
            return "_%d" % x.v, "Int<%d>{}" % x.v
        self.vals.append(x.v)
        return "%d" % x.v, "V(%d)" % (len(self.vals) - 1)

    def node(self, x):
        if is_leaf(x):
            return self.leaf(x)
        p = [self.node(e) for e in x]
        return "(" + ",".join(a for a, _ in p) + ")", "make_tuple(" + ",".join(b for _, b in p) + ")"

    def lay(self, lay):
        a, b = self.node(lay.shape)
        c, d = self.node(lay.stride)
        return a + ":" + c, "make_layout(%s,%s)" % (b, d)

    def tiler(self, t):
        if t.kind == "layout":
            return self.lay(t.lay)
        if t.kind == "int":
            return self.leaf(t.leaf)
        if t.kind == "shape":
            return self.node(t.node)
        p = [self.tiler(it) for it in t.items]
        return "<" + ", ".join(a for a, _ in p) + ">", "make_tile(" + ",".join(b for _, b in p) + ")"

    def swz(self, sw):
        return "Sw<%d,%d,%d>" % sw, "Swizzle<%d,%d,%d>{}" % sw


class Case:
    __slots__ = ("family", "expr", "cxx", "vals", "check", "result", "verdict")

    def __init__(self, family, expr, cxx, vals, check):
        self.family, self.expr, self.cxx, self.vals, self.check = family, expr, cxx, vals, check
        self.result = self.verdict = None


def call(family, fn, args, check, targs=None):
    """A case for CuTe function `fn` applied to `args`: each is ('lay', Lay) | ('node', node) |
    ('tiler', Tiler) | ('sw', (b,m,s)) | ('expr', (text, C++)) (a nested call, already emitted
    with the same Em) . `targs`: template arguments, as in select<0,2>."""
    em = Em()
    ex, cx = [], []
    for kind, a in args:
        if kind == "lay":
            e, c = em.lay(a)
        elif kind == "node":
            e, c = em.node(a)
        elif kind == "tiler":
            e, c = em.tiler(a)
        elif kind == "sw":
            e, c = em.swz(a)
        elif kind == "call":
            e, c = a(em)
        else:
            raise AssertionError(kind)
        ex.append(e)
        cx.append(c)
    t = "" if targs is None else "<" + ",".join(str(v) for v in targs) + ">"
    return Case(family, "%s%s(%s)" % (fn, t, ", ".join(ex)), "%s%s(%s)" % (fn, t, ", ".join(cx)),
                em.vals, check)


def nested_call(fn, args):
    """An argument that is itself a call (swizzle family: composition(composition(Sw, L1), L2))."""
    def emit(em):
        ex, cx = [], []
        for kind, a in args:
            e, c = {"lay": em.lay, "sw": em.swz}[kind](a)
            ex.append(e)
            cx.append(c)
        return "%s(%s)" % (fn, ", ".join(ex)), "%s(%s)" % (fn, ", ".join(cx))
    return ("call", emit)


_DYN_LEAF = re.compile(r"(?<![_\w-])-?\d+")


def expr_all_static(expr):
    """The rule the Rust harness uses: strip template-argument lists `name<...>` (select<0,2>,
    Sw<3,4,3>), then every remaining integer must be written `_N`."""
    e = re.sub(r"(?<=[A-Za-z_0-9])<[-0-9,]*>", "", expr)
    return not _DYN_LEAF.search(e)


# ---------------------------------------------------------------------------
# Random operands
# ---------------------------------------------------------------------------

EXT = [2, 2, 3, 4, 4, 5, 6, 7, 8]
# Extent 1 is a corner case (static _1 modes vanish, runtime 1 modes stay and keep their stride),
# frequent by default; the complement-based families see fewer, or degenerate modes dominate.
ONE_P = {"complement": 0.1, "inverse": 0.12, "divide": 0.12, "product": 0.1, "tile_to_shape": 0.1}
_one_p = [0.25]
SMALL_STRIDES = [1, 1, 1, 2, 2, 3, 4, 4, 5, 6, 8, 8, 12, 16, 24, 32]


def rand_ext(rng):
    r = rng.random()
    if r < _one_p[0]:
        return 1
    return 16 if r > 0.97 else rng.choice(EXT)


def parse_skel(s):
    """'(x,(x,o))' -> ('x', ('x', 'o')); letters mark leaves."""
    def rec(i):
        if s[i] == "(":
            items, i = [], i + 1
            while True:
                x, i = rec(i)
                items.append(x)
                if s[i] == ")":
                    return tuple(items), i + 1
                i += 1  # ','
        return s[i], i + 1
    x, i = rec(0)
    assert i == len(s), s
    return x


def skel_map(sk, f):
    return f(sk) if isinstance(sk, str) else tuple(skel_map(e, f) for e in sk)


def rand_skel(rng, max_rank=4, scalar_p=0.12):
    """Random nesting: scalar, one-mode tuple, rank 2..max_rank, tuples nested to depth 3."""
    def mode(level):
        if level < 3 and rng.random() < {1: 0.3, 2: 0.2}[level]:
            return tuple(mode(level + 1) for _ in range(rng.choice([1, 2, 2, 2, 3, 3, 4])))
        return "x"
    r = rng.random()
    if r < scalar_p:
        return "x"
    if r < scalar_p + 0.06:
        return (mode(1),)
    return tuple(mode(1) for _ in range(rng.randint(2, max_rank)))


def skel_nleaves(sk):
    return 1 if isinstance(sk, str) else sum(skel_nleaves(e) for e in sk)


def rand_stride(rng, neg=True, zero=True):
    r = rng.random()
    if zero and r < 0.1:
        return 0
    if neg and r < 0.2:
        return -rng.randint(1, 4)
    return rng.choice(SMALL_STRIDES) if rng.random() < 0.7 else rng.randint(1, 32)


def stride_values(rng, exts, neg=True, zero=True, mode=None):
    """Strides for leaves with extents `exts`: random (in -4..32), compact in a random order with
    occasional gaps, or a mix of both."""
    n = len(exts)
    mode = mode or rng.choice(["random", "compact", "compact", "mixed"])
    if mode == "random":
        return [rand_stride(rng, neg, zero) for _ in exts]
    perm = list(range(n))
    if rng.random() < 0.6:
        rng.shuffle(perm)
    out, p = [0] * n, rng.choice([1, 1, 1, 2])
    for k in perm:
        out[k] = p
        p *= exts[k]
        if rng.random() < 0.2:
            p *= rng.choice([2, 3])
    if mode == "mixed":
        for k in range(n):
            if rng.random() < 0.3:
                out[k] = rand_stride(rng, neg, zero)
    if zero and rng.random() < 0.15:
        out[rng.randrange(n)] = 0
    if neg and rng.random() < 0.1:
        out[rng.randrange(n)] = -rng.randint(1, 4)
    return out


def fill_layout(rng, sk, max_size=MAX_SIZE, neg=True, zero=True, smode=None, ext=None):
    """A layout with the nesting of skeleton `sk`. Letters: x = runtime shape and stride,
    o = static _1 shape with a runtime stride, z = runtime shape with static _0 stride,
    S = static shape and stride. Values random (extents 1..8, sometimes 16)."""
    letters = list(leaves_of_skel(sk))
    for _ in range(50):
        exts = [1 if c == "o" else (ext or rand_ext)(rng) for c in letters]
        if prod(exts) <= max_size:
            break
    else:
        exts = [1 if c == "o" else rng.choice([1, 2]) for c in letters]
    strides = stride_values(rng, exts, neg, zero, smode)
    it = iter(range(len(letters)))

    def leaf_pair(c):
        k = next(it)
        e, d = exts[k], strides[k]
        if c == "x":
            return D(e), D(d)
        if c == "o":
            return S(1), D(d)
        if c == "z":
            return D(e), S(0)
        if c == "S":
            return S(e), S(d)
        raise AssertionError(c)
    pairs = skel_map(sk, leaf_pair)
    return Lay(pair_part(pairs, 0), pair_part(pairs, 1))


def leaves_of_skel(sk):
    if isinstance(sk, str):
        yield sk
    else:
        for e in sk:
            yield from leaves_of_skel(e)


def pair_part(p, k):
    """skel_map produced (shape_leaf, stride_leaf) pairs at the leaves; take one side."""
    if isinstance(p, tuple) and len(p) == 2 and is_leaf(p[0]) and is_leaf(p[1]):
        return p[k]
    return tuple(pair_part(e, k) for e in p)


def set_static(rng, lay, mode):
    """Static flags: 'static', 'dynamic', 'mixed' (per leaf), 'sstride' (static strides, runtime
    shapes), 'keep'."""
    if mode == "keep":
        return lay
    if mode in ("static", "dynamic"):
        return Lay(restatic(lay.shape, mode == "static"), restatic(lay.stride, mode == "static"))
    if mode == "sstride":
        return Lay(restatic(lay.shape, False), restatic(lay.stride, True))
    f = lambda x: Leaf(x.v, rng.random() < 0.5)  # noqa: E731
    return Lay(gv.map_leaves(lay.shape, f), gv.map_leaves(lay.stride, f))


def static_mode(rng, p_static=0.75):
    return "static" if rng.random() < p_static else "mixed"


def rand_layout(rng, max_size=MAX_SIZE, neg=True, zero=True, smode=None, skel=None, max_rank=4):
    return fill_layout(rng, skel or rand_skel(rng, max_rank), max_size, neg, zero, smode)


def flat_exts(lay):
    return [a.v for a in leaves(lay.shape)]


def prefix(exts):
    p, out = 1, []
    for e in exts:
        out.append(p)
        p *= e
    return out


def admissible_mode(rng, exts, max_size=MAX_SIZE):
    """(shape, stride) of a B mode that looks admissible against a layout of extents `exts`:
    the stride is a prefix product times a divisor of that extent, the shape fits what is left
    (sometimes running past the end of the last mode)."""
    n = len(exts)
    pre = prefix(exts)
    i = rng.randrange(n)
    f = rng.choice(divisors(max(exts[i], 1)))
    stride = pre[i] * f
    room = max(exts[i] // f, 1)
    if rng.random() < 0.4 and i + 1 < n:
        room *= prod(exts[i + 1:i + 1 + rng.randint(1, n - i - 1)])
    shape = rng.choice(divisors(room)) if rng.random() < 0.5 else room
    if i == n - 1 and rng.random() < 0.3:
        shape *= rng.choice([2, 3])
    return min(shape, max_size), stride


def b_layout(rng, sk, target, adm_p=0.5, max_size=MAX_SIZE):
    """A right operand with skeleton `sk` (all 'x'), non-negative strides; admissible-looking
    against `target` (a Lay) with probability adm_p, else random."""
    if rng.random() < adm_p:
        exts = [e for e in flat_exts(target) if e != 1] or [1]
        for _ in range(20):
            vals = [admissible_mode(rng, exts) for _ in leaves_of_skel(sk)]
            if prod(v[0] for v in vals) <= max_size:
                break
        else:
            vals = [(1, 1) for _ in leaves_of_skel(sk)]
        it = iter(vals)
        pairs = skel_map(sk, lambda c: (lambda v: (D(v[0]), D(v[1])))(next(it)))
        return Lay(pair_part(pairs, 0), pair_part(pairs, 1))
    # no zero strides: a runtime 0 stride in the right operand makes CuTe divide by zero
    # (composition's ceil_div by the stride); static _0 strides come from inject_static_zero
    return fill_layout(rng, sk, max_size, neg=False, zero=False)


def inject_static_zero(rng, T, p=0.15):
    """Sometimes give one leaf of a tiler's layouts a static _0 stride (CuTe special-cases it)."""
    if T.kind == "layout":
        if rng.random() >= p:
            return T
        ls = list(leaves(T.lay.stride))
        k = rng.randrange(len(ls))
        it = iter(range(len(ls)))
        return Tiler("layout", lay=Lay(T.lay.shape, gv.map_leaves(T.lay.stride, lambda l: S(0) if next(it) == k else l)))
    if T.kind == "bymode":
        return Tiler("bymode", items=[inject_static_zero(rng, it, p) for it in T.items])
    return T


# ---------------------------------------------------------------------------
# CuTe's compile-time rejections, approximately: cases that would only be dropped at compile time
# are not generated (saves compile time; whatever slips through is dropped by compile_tu)
# ---------------------------------------------------------------------------

def cute_filter_leaves(lay):
    """CuTe's filter(): static-0-stride and static-_1 leaves go, static neighbours merge."""
    out = [(a, b) for a, b in zip(leaves(lay.shape), leaves(lay.stride))
           if not (b.s and b.v == 0) and not (a.s and a.v == 1)]
    merged = []
    for a, b in reversed(out):
        if merged:
            na, nb = merged[-1]
            if na.s and a.s and b.s and nb.s and a.v * b.v == nb.v:
                merged[-1] = (Leaf(a.v * na.v, True), b)
                continue
        merged.append((a, b))
    return merged[::-1]


def cute_complement_rejects(lay):
    """complement()'s static_asserts: runtime strides only for rank 1 (after filter), and
    "Non-injective Layout detected" when a static new shape min_stride / previous stride is 0."""
    f = cute_filter_leaves(lay)
    if len(f) > 1 and not all(b.s for _, b in f):
        return True
    rem, prev = list(f), (1, True)
    while rem:
        k = min(range(len(rem)), key=lambda i: rem[i][1].v)
        a, b = rem.pop(k)
        if b.s and prev[1] and abs(b.v) < prev[0]:
            return True
        prev = (b.v * a.v, b.s and a.s)
    return False


def cute_left_inverse_rejects(lay):
    """left_inverse() needs static strides, each (sorted, non-zero) a multiple of the previous."""
    if not all(b.s for b in leaves(lay.stride)):
        return True
    ds = sorted(b.v for a, b in cute_filter_leaves(lay) if b.v != 0)
    return any(d2 % d1 for d1, d2 in zip(ds, ds[1:]))


def tiler_complement_rejects(T):
    if T.kind == "layout":
        return cute_complement_rejects(T.lay)
    if T.kind == "bymode":
        return any(tiler_complement_rejects(it) for it in T.items)
    return False


def block_complement_rejects(A, B):
    """The complement of the block (per mode for a tuple tiler) in logical_product."""
    if B.is_tuple():
        return any(block_complement_rejects(m, it) for m, it in zip(A.modes(), B.parts()))
    return cute_complement_rejects(A)


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------

def fn_verdict(res, truth, what="result"):
    """Compare CuTe's layout `res` with the mathematical function `truth` (list of offsets);
    truth None: no mathematical result exists."""
    if truth is None:
        return "wrong", None, "no %s exists (inadmissible operand)" % what
    if len(truth) > MAX_RESULT * 4:
        raise Skip("truth too large")
    n = prod(max(a.v, 0) for a in leaves(res.shape))
    if n > 65536:
        return "wrong", truth, "size differs"
    got = offs(res.pairs())
    if got == truth:
        return "ok", None, None
    if len(got) > len(truth) and got[:len(truth)] == truth:
        return "wrong", truth, "padded past the mathematical size"
    if len(got) != len(truth):
        return "wrong", truth, "size differs"
    return "wrong", truth, "offsets differ"


class Skip(Exception):
    """Drop the case (result beyond the limits of the data file)."""


def as_layout(r):
    if r[0] != "layout":
        raise ValueError("expected a layout, CuTe printed %r" % (r,))
    return r[1]


def mode_sizes(lay):
    return [m.size() for m in lay.modes()]


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

BULK_SKELS = ["x", "(x)", "(x,x)", "(x,x,x)", "(x,x,x,x)", "(x,(x,x))", "((x,x),x)",
              "(x,(x,x),x)", "((x,x),(x,x))", "(x,(x,(x,x)))", "((x,x,x),x)", "(x,x,(x,x))"]


def rand_profile(rng, sk, leaf_fn, partial=True):
    """A target profile for the modes of skeleton `sk` (weakly congruent: a leaf may stand for a
    whole tuple mode); tuple profiles may cover only the first modes."""
    def rec(s, top):
        if isinstance(s, str) or (not top and rng.random() < 0.5):
            return leaf_fn()
        n = len(s)
        if partial and top and n > 1 and rng.random() < 0.3:
            n = rng.randint(1, n - 1)
        return tuple(rec(e, False) for e in s[:n])
    if isinstance(sk, str):
        return leaf_fn()
    return rec(sk, True)


def profile_skel(lay):
    """Skeleton letters of a layout's shape (for profiles of random layouts)."""
    return skel_map_node(lay.shape)


def skel_map_node(x):
    return "x" if is_leaf(x) else tuple(skel_map_node(e) for e in x)


# ---- coalesce ---------------------------------------------------------------

def check_coalesce(L, prof):
    def chk(r):
        R = as_layout(r)
        v = fn_verdict(R, offs(L.pairs()))
        if v[0] == "ok" and prof is not None and not is_leaf(prof):
            if R.rank() != L.rank() or mode_sizes(R) != mode_sizes(L):
                return "wrong", offs(L.pairs()), "modes of the result do not follow the profile"
        return v
    return chk


def coalesce_case(L, prof):
    args = [("lay", L)] + ([("node", prof)] if prof is not None else [])
    return call("coalesce", "coalesce", args, check_coalesce(L, prof))


def gen_coalesce(rng, n_bulk, n_static):
    cases = []
    skels = BULK_SKELS + ["(x,o)", "(o,x,x)", "(x,z,x)", "((x,o),(z,x))", "(x,(o,x),z)"]
    kernels = []
    for s in skels:
        sk = parse_skel(s)
        kernels.append((sk, None))
        if not isinstance(sk, str):
            for _ in range(2):
                kernels.append((sk, rand_profile(rng, sk, lambda: S(1))))
    per = max(1, n_bulk // len(kernels))
    for sk, prof in kernels:
        for _ in range(per):
            cases.append(coalesce_case(fill_layout(rng, sk), prof))
    for _ in range(n_static):
        L = set_static(rng, rand_layout(rng), static_mode(rng))
        prof = None
        if L.rank() > 1 and rng.random() < 0.3:
            prof = rand_profile(rng, profile_skel(L), lambda: S(1))
        cases.append(coalesce_case(L, prof))
    return cases


# ---- filter -------------------------------------------------------------------

def zero_filtered(L, zero_at):
    """(s,d) pairs of L with the leaves in zero_at (a list of booleans) given extent 1."""
    return [(1 if z else s, d) for (s, d), z in zip(L.pairs(), zero_at)]


def profile_zero_mask(shape, prof):
    """Which leaves of `shape` sit under a 0 of the (weakly congruent) profile."""
    if is_leaf(prof):
        return [prof.v == 0] * sum(1 for _ in leaves(shape))
    if is_leaf(shape):
        raise AssertionError("profile deeper than the shape")
    out = []
    for k, sub in enumerate(shape):
        if k < len(prof):
            out += profile_zero_mask(sub, prof[k])
        else:
            out += [False] * sum(1 for _ in leaves(sub))
    return out


def check_filter(fn, L, prof):
    def chk(r):
        R = as_layout(r)
        pairs = L.pairs()
        if fn == "filter":
            truth = offs([(s, d) for s, d in pairs if d != 0])
        elif prof is None:
            truth = offs(zero_filtered(L, [d == 0 for _, d in pairs]))
        else:
            truth = offs(zero_filtered(L, profile_zero_mask(L.shape, prof)))
        v = fn_verdict(R, truth)
        if v[0] == "wrong" and v[2] != "offsets differ":
            dyn0 = any(b.v == 0 and not b.s and a.v != 1 for a, b in zip(leaves(L.shape), leaves(L.stride)))
            if prof is not None:
                dyn0 = any(not p.s and p.v == 0 for p in leaves(prof))
            if dyn0:
                return "wrong", v[1], "runtime zero not filtered"
        if v[0] == "ok" and fn == "filter_zeros" and R.rank() != L.rank():
            return "wrong", truth, "rank changed"
        return v
    return chk


def filter_case(fn, L, prof=None):
    args = [("lay", L)] + ([("node", prof)] if prof is not None else [])
    return call("filter", fn, args, check_filter(fn, L, prof))


def zero_one(rng, p_dyn=0.0):
    return Leaf(0 if rng.random() < 0.5 else rng.choice([1, 1, 2, 5]), rng.random() >= p_dyn)


def gen_filter(rng, n_bulk, n_static):
    cases = []
    skels = ["x", "(x)", "(x,z)", "(z,x)", "(x,x,z)", "(x,(z,x))", "((x,z),x)", "(o,x,z)", "(x,(x,z),o)",
             "((z,x),(x,z))", "(z,(x,(z,x)))", "(x,x)", "(x,x,x)", "(x,(x,x))", "(z,z)"]
    kernels = []
    for s in skels:
        sk = parse_skel(s)
        kernels += [("filter_zeros", sk, None), ("filter", sk, None)]
        if not isinstance(sk, str):
            kernels.append(("filter_zeros", sk, rand_profile(rng, sk, lambda: zero_one(rng), partial=False)))
            kernels.append(("filter_zeros", sk, rand_profile(rng, sk, lambda: zero_one(rng, 0.5), partial=False)))
    per = max(1, n_bulk // len(kernels))
    for fn, sk, prof in kernels:
        for _ in range(per):
            L = fill_layout(rng, sk, smode=rng.choice(["random", "compact", "mixed"]))
            if prof is not None:
                prof = restatic_values(rng, prof)
            cases.append(filter_case(fn, L, prof))
    for i in range(n_static):
        L = set_static(rng, rand_layout(rng), static_mode(rng))
        fn = ["filter_zeros", "filter", "filter_zeros"][i % 3]
        prof = None
        if i % 3 == 2 and L.rank() > 1:
            prof = rand_profile(rng, profile_skel(L), lambda: zero_one(rng, 0.2), partial=False)
        cases.append(filter_case(fn, L, prof))
    return cases


def restatic_values(rng, prof):
    """New values for the runtime leaves of a profile (its static leaves are part of the kernel)."""
    return gv.map_leaves(prof, lambda l: l if l.s else Leaf(0 if rng.random() < 0.5 else 1, False))


# ---- composition ----------------------------------------------------------------

def comp_units(U, A, B):
    """Slots of composition(A, B) (B a Tiler), or None; modes of A not hit by a tuple tiler are
    dropped (as CuTe does)."""
    if not B.is_tuple():
        bl = B.as_layout()
        bo = offs(bl.pairs())
        if any(b < 0 for b in bo):
            return None
        ap = A.pairs()
        return U.unit([ev(ap, b) for b in bo], [len(bo)])
    modes, out = A.modes(), []
    for k, it in enumerate(B.parts()):
        r = comp_units(U, modes[k], it)
        if r is None:
            return None
        out += r
    return out


def comp_truth(A, B):
    U = Units()
    order = comp_units(U, A, B)
    if order is None:
        return None
    if U.size(order) > MAX_RESULT:
        raise Skip("too large")
    return U.offsets(order)


def check_composition(A, B):
    truth = comp_truth(A, B)

    def chk(r):
        return fn_verdict(as_layout(r), truth, "composition")
    return chk


def comp_case(A, B):
    return call("composition", "composition", [("lay", A), ("tiler", B)], check_composition(A, B))


def tiler_for(rng, kind, A, adm_p=0.5, item_skels=("x",)):
    """A tiler of `kind` for layout A (all runtime leaves).
    kinds: L:<skel> (a layout), int, shape<k> (k ints), bymode:<item,...> (items: L:<skel>, int,
    nest (a shape tuple for a tuple mode))."""
    modes = A.modes()
    if kind.startswith("L:"):
        return Tiler("layout", lay=b_layout(rng, parse_skel(kind[2:]), A, adm_p))
    if kind == "int":
        return Tiler("int", leaf=D(int_tile(rng, A, adm_p)))
    if kind.startswith("shape"):
        k = int(kind[5:])
        return Tiler("shape", node=tuple(D(int_tile(rng, modes[i], adm_p)) for i in range(k)))
    if kind.startswith("bymode:"):
        items = []
        for i, it in enumerate(kind[7:].split(";")):
            if it == "nest":
                sub = modes[i].modes()
                items.append(Tiler("shape", node=tuple(D(int_tile(rng, sub[j], adm_p)) for j in range(len(sub)))))
            else:
                items.append(tiler_for(rng, it, modes[i], adm_p))
        return Tiler("bymode", items=items)
    raise AssertionError(kind)


def int_tile(rng, A, adm_p):
    n = A.size()
    if rng.random() < adm_p:
        return rng.choice(divisors(n))
    return rand_ext(rng)


def tiler_kinds_for(sk, family):
    """Tiler kinds that fit a skeleton (CuTe static_asserts tuple tilers of too high rank)."""
    rank = 1 if isinstance(sk, str) else len(sk)
    ks = ["L:x", "int", "shape1", "bymode:L:x"]
    if family == "composition":
        ks += ["L:(x)", "L:(x,x)", "L:(x,x,x)", "L:(x,(x,x))", "L:((x,x),x)"]
    if rank >= 2:
        ks += ["shape2", "bymode:L:x;L:x", "bymode:int;L:x"]
        if family == "composition":
            ks += ["bymode:L:(x,x);L:x"]
    if rank >= 3 and family == "composition":
        ks += ["bymode:L:x;int;L:(x,x)"]
    if not isinstance(sk, str) and not isinstance(sk[0], str):
        ks += ["bymode:nest;L:x" if rank >= 2 else "bymode:nest"]
    return ks


def gen_composition(rng, n_bulk, n_static):
    cases = []
    skels = BULK_SKELS + ["(o,x)", "(x,z,x)"]
    kernels = [(parse_skel(s), k) for s in skels for k in tiler_kinds_for(parse_skel(s), "composition")]
    per = max(1, n_bulk // len(kernels))
    for sk, kind in kernels:
        for _ in range(per):
            A = fill_layout(rng, sk)
            B = tiler_for(rng, kind, A, adm_p=0.5)
            try:
                cases.append(comp_case(A, B))
            except Skip:
                pass
    for _ in range(n_static):
        A = rand_layout(rng)
        kinds = tiler_kinds_for(profile_skel(A), "composition")
        B = tiler_for(rng, rng.choice(kinds), A, adm_p=0.7)
        mode = static_mode(rng)
        A = set_static(rng, A, mode)
        B = inject_static_zero(rng, static_tiler(rng, B, mode))
        try:
            cases.append(comp_case(A, B))
        except Skip:
            pass
    return cases


def static_tiler(rng, T, mode):
    if T.kind == "layout":
        return Tiler("layout", lay=set_static(rng, T.lay, mode))
    if T.kind == "int":
        return Tiler("int", leaf=Leaf(T.leaf.v, mode == "static" or rng.random() < 0.5))
    if T.kind == "shape":
        return Tiler("shape", node=gv.map_leaves(T.node, lambda l: Leaf(l.v, mode == "static" or rng.random() < 0.5)))
    return Tiler("bymode", items=[static_tiler(rng, it, mode) for it in T.items])


# ---- complement ---------------------------------------------------------------

def check_complement(A, M):
    """CuTe is right iff its answer satisfies the postconditions (complement_pc); the truth of a
    `wrong` row is const_layout's complement (our_complement), `-` where it refuses."""
    m = cosize(A.pairs()) if M is None else size(M)
    c = our_complement(flagged(A), D(m) if M is None else M)
    truth = None if c is None else offs(vals(c))
    if truth is not None and len(truth) > MAX_RESULT:
        raise Skip("too large")

    def chk(r):
        R = as_layout(r)
        if truth is None:
            return "wrong", None, "negative stride: no complement"
        if prod(max(a.v, 0) for a in leaves(R.shape)) * max(A.size(), 1) > 1 << 22:
            return "wrong", truth, "too large to check"
        why = complement_pc(A.pairs(), R.pairs(), m)
        if why is None:
            return "ok", None, None
        return "wrong", truth, why
    return chk


def comp_case_c(A, M):
    args = [("lay", A)] + ([("node", M)] if M is not None else [])
    return call("complement", "complement", args, check_complement(A, M))


def chain_strides(rng, n, zero_p=0.1, noise_p=0.1, one_p=0.12):
    """n static strides forming (mostly) a divisibility chain in random leaf order (a factor 1
    repeats a stride: the layout is then not injective)."""
    vals, p = [], 1
    for _ in range(n):
        vals.append(p)
        p *= 1 if rng.random() < one_p else rng.choice([2, 2, 3, 4, 4, 6, 8])
    rng.shuffle(vals)
    out = []
    for v in vals:
        r = rng.random()
        if r < zero_p:
            out.append(0)
        elif r < zero_p + noise_p:
            out.append(rng.randint(1, 24))
        else:
            out.append(v)
    return out


def shapes_for_strides(rng, strides, adm_p=0.6):
    """Extents for leaves with the given (static) strides: with probability adm_p each extent fits
    below the next larger stride (so the layout is complementable), otherwise random."""
    order = sorted(range(len(strides)), key=lambda k: strides[k])
    exts = [rand_ext(rng) for _ in strides]
    if rng.random() < adm_p:
        for a, b in zip(order, order[1:]):
            da, db = strides[a], strides[b]
            if da > 0 and db % da == 0 and db > da:
                exts[a] = rng.choice(divisors(db // da))
    while prod(exts) > MAX_SIZE:
        k = max(range(len(exts)), key=lambda k: exts[k])
        exts[k] = max(1, exts[k] // 2)
    return exts


def sstride_layout(rng, sk, strides, adm_p=0.6, shape_static=False):
    exts = shapes_for_strides(rng, strides, adm_p)
    it = iter(zip(exts, strides))
    pairs = skel_map(sk, lambda c: (lambda v: (Leaf(v[0], shape_static), S(v[1])))(next(it)))
    return Lay(pair_part(pairs, 0), pair_part(pairs, 1))


def rand_cotarget(rng, kind, A):
    n = max(A.size(), 1)
    base = cosize([(s, d) for s, d in A.pairs() if s != 1 and d != 0])
    if kind is None:
        return None
    v = rng.choice([base, base, n * rng.choice([1, 2, 3, 4]), rng.randint(1, 64), base * 2])
    v = max(1, min(v, 1024))
    if kind == "x":
        return D(v)
    if kind == "S":
        return S(v)
    if kind == "(x,x)":
        a = rng.choice(divisors(v)) if rng.random() < 0.7 else rng.randint(1, 8)
        return (D(a), D(max(1, ceil_div(v, a))))
    if kind == "(S,x)":
        a = rng.choice([2, 4])
        return (S(a), D(max(1, ceil_div(v, a))))
    raise AssertionError(kind)


def gen_complement(rng, n_bulk, n_static):
    cases = []
    # (a) layouts that are rank 1 after filter(): runtime strides are allowed (CuTe's static_assert
    #     "Dynamic-stride complement only for rank-1 layouts")
    rank1 = ["x", "(x)", "(x,o)", "(o,x)", "(x,z)", "(z,(x,o))"]
    kernels = [("r1", parse_skel(s), None, m) for s in rank1 for m in [None, "x", "(x,x)", "(S,x)"]]
    # (b) static strides from a catalogue, runtime shapes
    cat_skels = ["(x,x)", "(x,x,x)", "(x,x,x,x)", "(x,(x,x))", "((x,x),x)", "(x,(x,x),x)", "((x,x),(x,x))"]
    for _ in range(110):
        sk = parse_skel(rng.choice(cat_skels))
        st = chain_strides(rng, skel_nleaves(sk))
        for m in rng.sample([None, "x", "(x,x)"], 2 if rng.random() < 0.4 else 1):
            kernels.append(("cat", sk, st, m))
    n_r1 = sum(1 for k in kernels if k[0] == "r1")
    per_r1 = max(1, int(n_bulk * 0.25) // n_r1)
    per_cat = max(1, int(n_bulk * 0.75) // (len(kernels) - n_r1))
    for kind, sk, st, m in kernels:
        for _ in range(per_r1 if kind == "r1" else per_cat):
            if kind == "r1":
                A = fill_layout(rng, sk, neg=False, zero=False)
            else:
                A = sstride_layout(rng, sk, st)
            try:
                cases.append(comp_case_c(A, rand_cotarget(rng, m, A)))
            except Skip:
                pass
    for _ in range(n_static):
        sk = rand_skel(rng)
        st = chain_strides(rng, skel_nleaves(sk))
        A = sstride_layout(rng, sk, st, adm_p=0.75, shape_static=True)
        if rng.random() < 0.2:
            A = set_static(rng, A, "mixed")
            A = Lay(A.shape, restatic(A.stride, True)) if A.rank() > 1 or not is_leaf(A.shape) else A
        m = rng.choice([None, None, "S", "x", "(x,x)", "(S,x)"])
        M = rand_cotarget(rng, m, A)
        if M is not None and rng.random() < 0.8:
            M = restatic(M, True)
        if cute_complement_rejects(A):
            continue
        try:
            cases.append(comp_case_c(A, M))
        except Skip:
            pass
    return cases


# ---- inverse ---------------------------------------------------------------------

def largest_right_inverse(lo):
    """The size of the largest right inverse R of the layout with offsets `lo`: `0 <= R(i) <
    len(lo)` and `lo[R(i)] == i` for `i < size(R)`. Exhaustive over flat layouts R, mode by mode:
    every stride R can have at the running product p (an index x with lo[x] == p) and every
    extent. No R is larger than n, the first offset `lo` does not reach, which ends the search;
    a stride equal to the last mode's span only continues that mode (whose larger extents are
    tried), so it is skipped."""
    img = set(lo)
    n = 0
    while n in img:
        n += 1
    pre = {}
    for i, o in enumerate(lo):
        pre.setdefault(o, []).append(i)
    best = [1]

    def walk(modes, rv):
        p = len(rv)
        if p * (n // p) <= best[0]:
            return
        for x in pre.get(p, []):
            if modes and x == modes[-1][0] * modes[-1][1]:
                continue
            e, vals = 1, list(rv)
            while p * (e + 1) <= n:
                ext = [r + e * x for r in rv]
                if not all(0 <= y < len(lo) and lo[y] == i + e * p for i, y in enumerate(ext)):
                    break
                vals += ext
                e += 1
            for k in range(e, 1, -1):
                best[0] = max(best[0], p * k)
                if best[0] == n:
                    return
                walk(modes + [(k, x)], vals[:p * k])
                if best[0] == n:
                    return
    walk([], [0])
    return best[0]


def check_right_inverse(L):
    lo = offs(L.pairs())
    n = len(lo)

    def chk(r):
        R = as_layout(r)
        big = "size=%d" % largest_right_inverse(lo)
        ro = offs(R.pairs())
        for i, x in enumerate(ro):
            if not (0 <= x < n and lo[x] == i):
                return "wrong", big, "L(R(i)) != i"
        if "size=%d" % len(ro) != big:
            return "wrong", big, "not the largest right inverse"
        return "ok", None, None
    return chk


def int_solvable(rows, k):
    """Whether rows (coefficients of k unknowns, then the right-hand side) have an integer
    solution: unimodular row and column operations with the smallest pivot make the matrix
    diagonal; each diagonal entry must divide its row's right-hand side, zero rows need zero."""
    A = [list(r) for r in rows]
    m, r = len(A), 0
    for c in range(k):
        if r == m:
            break
        while True:
            cand = [(abs(A[i][j]), i, j) for i in range(r, m) for j in range(c, k) if A[i][j]]
            if not cand:
                break
            _, i, j = min(cand)
            A[r], A[i] = A[i], A[r]
            for row in A:
                row[c], row[j] = row[j], row[c]
            piv, clean = A[r][c], True
            for i in range(r + 1, m):
                q = A[i][c] // piv
                if q:
                    A[i] = [x - q * y for x, y in zip(A[i], A[r])]
                clean = clean and A[i][c] == 0
            for j in range(c + 1, k):
                q = A[r][j] // piv
                if q:
                    for row in A:
                        row[j] -= q * row[c]
                clean = clean and A[r][j] == 0
            if clean:
                break
        if A[r][c]:
            r += 1
    return all(A[i][k] % A[i][i] == 0 if i < r else A[i][k] == 0 for i in range(m))


def left_inverse_exists(points):
    """Whether a layout L has L(o) == t for every (o, t) in `points` (sorted by o, (0, 0) first):
    every sequence of running products 1 = p0 < p1 < ... <= max(o) of L's modes (the last
    extending) is tried, the equations being linear in L's strides; a prefix is dropped when the
    equations between offsets in one block o // p (equal coordinates in every extension) have no
    integer solution."""
    top = points[-1][0]

    def crd(o, per):
        k = len(per)
        return [(o // per[j]) % (per[j + 1] // per[j]) if j + 1 < k else o // per[j] for j in range(k)]

    def walk(per):
        k, p = len(per), per[-1]
        if int_solvable([crd(o, per) + [t] for o, t in points], k):
            return True
        e = 2
        while p * e <= top:
            nxt, rows, first = p * e, [], None
            for o, t in points:
                if first is not None and first[0] // nxt == o // nxt:
                    a, b = crd(o, per), crd(first[0], per)
                    rows.append([a[j] - b[j] for j in range(k - 1)]
                                + [(o // p) % e - (first[0] // p) % e, t - first[1]])
                else:
                    first = (o, t)
            if int_solvable(rows, k) and walk(per + [nxt]):
                return True
            e += 1
        return False
    return walk([1])


def left_points(L):
    """(offset, index) pairs a left inverse of L must map (index read with the coordinates of
    modes that do not move at 0), or None if there is no left inverse: a negative offset, or two
    indices of the moving modes at one offset."""
    pairs = L.pairs()
    seen = {}
    for i, o in enumerate(offs(pairs)):
        rest, pre, t = i, 1, 0
        for s, d in pairs:
            if d != 0:
                t += (rest % s) * pre
            rest //= s
            pre *= s
        if o < 0 or seen.get(o, t) != t:
            return None
        seen[o] = t
    return sorted(seen.items())


# The most choices of one index per offset tried for a quasi-inverse (past it the truth is "?").
QUASI_CHOICES = 4096


def quasi_inverse_exists(L):
    """Whether a layout whose moving modes collide has CuTe's quasi-inverse: a layout R mapping
    each offset to one of the indices (over the whole domain) that reach it. Every choice of one
    index per offset is tried with left_inverse_exists; None past QUASI_CHOICES choices."""
    pre = {}
    for i, o in enumerate(offs(L.pairs())):
        pre.setdefault(o, []).append(i)
    offsets = sorted(pre)
    n = 1
    for o in offsets:
        n *= len(pre[o]) if o != 0 else 1
        if n > QUASI_CHOICES:
            return None
    for pick in itertools.product(*[[0] if o == 0 else pre[o] for o in offsets]):
        if left_inverse_exists(list(zip(offsets, pick))):
            return True
    return False


def check_left_inverse(L):
    lo = offs(L.pairs())
    injective = len(set(lo)) == len(lo)

    def none_or_some():
        pts = left_points(L)
        if pts is not None:
            return None if left_inverse_exists(pts) else "none"
        if min(lo) < 0:
            return "none"
        # The moving modes collide: CuTe's postcondition is the quasi-inverse.
        q = quasi_inverse_exists(L)
        return "?" if q is None else (None if q else "none")

    def chk(r):
        R = as_layout(r)
        rp = R.pairs()
        ro = offs(rp)
        if injective:
            if all(0 <= y < len(ro) and ro[y] == i for i, y in enumerate(lo)):
                return "ok", None, None
            if all(y >= 0 and ev(rp, y) == i for i, y in enumerate(lo)):
                return "wrong", none_or_some(), "R(L(i)) == i only past the end of R"
            return "wrong", none_or_some(), "R(L(i)) != i"
        # not injective: CuTe promises a quasi-inverse, L(R(L(i))) == L(i)
        if all(0 <= y < len(ro) and 0 <= ro[y] < len(lo) and lo[ro[y]] == y for y in lo):
            return "ok", None, None
        return "wrong", none_or_some(), "L(R(L(i))) != L(i)"
    return chk


def gen_inverse(rng, n_bulk, n_static):
    cases = []

    def add(fn, L):
        chk = check_right_inverse(L) if fn == "right_inverse" else check_left_inverse(L)
        cases.append(call("inverse", fn, [("lay", L)], chk))

    # (a) runtime strides: right_inverse only (left_inverse static_asserts static strides)
    per = max(1, int(n_bulk * 0.2) // len(BULK_SKELS))
    for s in BULK_SKELS:
        for _ in range(per):
            add("right_inverse", fill_layout(rng, parse_skel(s), smode=rng.choice(["compact", "compact", "random"])))
    # (b) static strides from a catalogue, runtime shapes
    # (one-leaf skeletons have few distinct runtime shapes: they would mostly repeat)
    cat_skels = ["(x,x)", "(x,x,x)", "(x,x,x,x)", "(x,(x,x))", "((x,x),x)", "(x,(x,x),x)", "((x,x),(x,x))"]
    kernels = []
    for _ in range(260):
        sk = parse_skel(rng.choice(cat_skels))
        fn = rng.choice(["right_inverse", "left_inverse"])
        st = chain_strides(rng, skel_nleaves(sk), zero_p=0.08, noise_p=0.05 if fn == "left_inverse" else 0.15,
                           one_p=0.05)
        if fn == "left_inverse" and cute_left_inverse_rejects(Lay(skel_map(sk, lambda c: D(1)),
                                                                  skel_fill_values(skel_map(sk, lambda c: S(0)), st))):
            continue
        kernels.append((fn, sk, st))
    per = max(1, int(n_bulk * 0.8) // len(kernels))
    for fn, sk, st in kernels:
        for _ in range(per):
            add(fn, sstride_layout(rng, sk, st, adm_p=0.8))
    for i in range(n_static):
        fn = ["right_inverse", "left_inverse"][i % 2]
        sk = rand_skel(rng)
        if fn == "right_inverse" and rng.random() < 0.4:
            L = set_static(rng, rand_layout(rng, skel=sk), "static")
        else:
            st = chain_strides(rng, skel_nleaves(sk), zero_p=0.08, noise_p=0.05)
            L = sstride_layout(rng, sk, st, adm_p=0.85, shape_static=True)
            if rng.random() < 0.25:
                L = Lay(set_static(rng, L, "mixed").shape, L.stride)
        if fn == "left_inverse" and cute_left_inverse_rejects(L):
            continue
        add(fn, L)
    return cases


# ---- divide / product --------------------------------------------------------------

def div_units(U, A, T, cfn=None):
    """(logical order, tile slots, rest slots) of logical_divide(A, T), or None. The complement of
    a tile is `cfn` (our_complement by default) against shape(coalesce(A)), as in CuTe."""
    cfn = cfn or our_complement
    if not T.is_tuple():
        tl = T.as_layout()
        c = cfn(flagged(tl), coalesce_shape_of(A))
        if c is None:
            return None
        to, co, ap = offs(tl.pairs()), offs(vals(c)), A.pairs()
        if len(to) * len(co) > MAX_RESULT:
            raise Skip("too large")
        ids = U.unit([ev(ap, t + x) for x in co for t in to], [len(to), len(co)])
        return ids, [ids[0]], [ids[1]]
    return by_mode_units(U, A, T.parts(), lambda U, a, t: div_units(U, a, t, cfn))


def by_mode_units(U, A, items, one):
    """`one` applied mode by mode for a by-mode tiler; the modes past it are kept as they are."""
    modes = A.modes()
    logical, firsts, seconds = [], [], []
    for k, it in enumerate(items):
        r = one(U, modes[k], it)
        if r is None:
            return None
        logical += r[0]
        firsts += r[1]
        seconds += r[2]
    extra = []
    for m in modes[len(items):]:
        extra += U.unit(offs(m.pairs()), [m.size()])
    return logical + extra, firsts, seconds + extra


def prod_units(U, A, B, cfn=None):
    """(logical order, block slots, tiler slots) of logical_product(A, B), or None."""
    cfn = cfn or our_complement
    if not B.is_tuple():
        bp = B.as_layout().pairs()
        if any(d < 0 for _, d in bp):
            return None
        ap = A.pairs()
        c = product_complement(cfn, flagged(A), product_cotarget(A, B.as_layout()), cosize(bp))
        if c is None:
            return None
        ao, bo = offs(ap), offs(bp)
        if len(ao) * len(bo) > MAX_RESULT:
            raise Skip("too large")
        ia = U.unit(ao, [len(ao)])
        ib = U.unit([ev(rep(c), b) for b in bo], [len(bo)])
        return ia + ib, ia, ib
    return by_mode_units(U, A, B.parts(), lambda U, a, b: prod_units(U, a, b, cfn))


def tiled_truth(build, A, T, form, cfn=None):
    U = Units()
    r = build(U, A, T, cfn)
    if r is None:
        return None
    order = r[0] if form == "logical" else r[1] + r[2]
    if U.size(order) > MAX_RESULT:
        raise Skip("too large")
    return U.offsets(order)


def product_cotarget(A, B):
    """size(A) * cosize(B), static as CuTe computes it: a product of static integers, where a
    cosize term (s-1)*|d| is static when s is a static _1, d a static _0, or both are static."""
    st = all_static(A.shape) and all(mul_static(Leaf(a.v - 1, a.s), b) for a, b in flagged(B))
    return Leaf(A.size() * cosize(B.pairs()), st)


def product_complement(cfn, fl, cot, reach):
    """The complement a product takes: cfn's for CuTe's cotarget `size(A) * cosize(B)`; with
    const_layout's complement (the truth), where that holds fewer than `reach = cosize(B)`
    elements (the block has holes), the complement of the least larger cotarget that holds them,
    so that `R o B` reads R inside its domain (core/src/algebra/divide.rs, `covering_complement`).
    CuTe's own complement (the postcondition check) is taken as it is: its result reads it past
    its end, and is right only where that is the grown function."""
    c = cfn(fl, cot)
    if c is None or cfn is not our_complement or prod(a.v for a, _ in c) >= reach:
        return c
    lo, hi = cot.v, 2 * cosize(vals(fl)) * reach
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if prod(a.v for a, _ in our_complement(fl, Leaf(mid, cot.s))) >= reach:
            hi = mid
        else:
            lo = mid
    return our_complement(fl, Leaf(hi, cot.s))


def pad_modes(L, r):
    return L.modes() + [Lay(S(1), S(0))] * (r - L.rank())


def blocked_truth(A, B, raked, cfn=None):
    """blocked_product / raked_product: logical_product of A and B padded to the same rank with
    _1:_0 modes, then mode k of the result is (A_k, C_k) (blocked) or (C_k, A_k) (raked)."""
    cfn = cfn or our_complement
    r = max(A.rank(), B.rank())
    am, bm = pad_modes(A, r), pad_modes(B, r)
    ap = [p for m in am for p in m.pairs()]
    bp = [p for m in bm for p in m.pairs()]
    if any(d < 0 for _, d in bp):
        return None
    c = product_complement(cfn, flagged(concat(am)), product_cotarget(concat(am), concat(bm)), cosize(bp))
    if c is None:
        return None
    ao, bo = offs(ap), offs(bp)
    if len(ao) * len(bo) > MAX_RESULT:
        raise Skip("too large")
    U = Units()
    ia = U.unit(ao, [m.size() for m in am])
    ib = U.unit([ev(rep(c), b) for b in bo], [m.size() for m in bm])
    order = []
    for k in range(r):
        order += [ia[k], ib[k]] if not raked else [ib[k], ia[k]]
    return U.offsets(order)


def cute_complements_pc(truth_fn):
    """Run truth_fn(cfn) with CuTe's complement as cfn, checking every complement it takes
    against the postconditions: the first one broken (a reason), or None. (Where they all hold
    they are const_layout's complements too, so the function built is the truth.)"""
    broken = []

    def cfn(fl, cot):
        c = cute_complement(fl, cot)
        if c is None:
            broken.append("CuTe's complement is undefined")
            return None
        why = complement_pc(vals(fl), vals(c), size(cot))
        if why:
            broken.append("CuTe's complement breaks " + why)
            return None  # the verdict is known: stop building
        return c
    try:
        truth_fn(cfn)
    except Skip:
        pass
    return broken[0] if broken else None


def tiled_verdict(truth, cute_pc, what):
    """CuTe is right iff every complement it takes satisfies the postconditions and its result is
    the function A o (T, R) built from it (then R is ours, so the function is `truth`)."""
    def chk(r):
        R = as_layout(r)
        if truth is not None and cute_pc:
            return "wrong", truth, cute_pc
        return fn_verdict(R, truth, what)
    return chk


def check_tiled(build, A, T, form, what):
    truth = tiled_truth(build, A, T, form)
    return tiled_verdict(truth, cute_complements_pc(lambda cfn: tiled_truth(build, A, T, form, cfn)), what)


DIV_FORMS = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]
PROD_FORMS = ["logical_product", "zipped_product", "tiled_product", "flat_product"]


def divide_case(fn, A, T):
    form = "logical" if fn.startswith("logical") else "zipped"
    return call("divide", fn, [("lay", A), ("tiler", T)], check_tiled(div_units, A, T, form, "complement of the tiler"))


def product_case(fn, A, B):
    if fn in ("blocked_product", "raked_product"):
        raked = fn == "raked_product"
        truth = blocked_truth(A, B.as_layout(), raked)
        cute_pc = cute_complements_pc(lambda cfn: blocked_truth(A, B.as_layout(), raked, cfn))
        chk = tiled_verdict(truth, cute_pc, "complement of the block")
    else:
        form = "logical" if fn.startswith("logical") else "zipped"
        chk = check_tiled(prod_units, A, B, form, "complement of the block")
    return call("product", fn, [("lay", A), ("tiler", B)], chk)


def div_tiler(rng, kind, A, adm_p):
    """Divide tilers: layouts must be rank 1 after filter() or have static strides, because
    logical_divide takes their complement."""
    if kind.startswith("C:"):  # catalogue layout with static strides, runtime shapes
        sk, st = kind[2:].split("/")
        st = [int(x) for x in st.split(",")]
        return Tiler("layout", lay=sstride_layout(rng, parse_skel(sk), st, adm_p))
    T = tiler_for(rng, kind, A, adm_p)
    return fix_tile_strides(rng, T)


def fix_tile_strides(rng, T):
    """Tile layouts with positive strides (a runtime 0 stride makes CuTe divide by zero)."""
    if T.kind == "layout":
        return Tiler("layout", lay=Lay(T.lay.shape, gv.map_leaves(T.lay.stride, lambda l: Leaf(max(l.v, 1), l.s))))
    if T.kind == "bymode":
        return Tiler("bymode", items=[fix_tile_strides(rng, it) for it in T.items])
    return T


DIV_A_SKELS = ["x", "(x,x)", "(x,x,x)", "(x,(x,x))", "((x,x),x)", "(x,(x,x),x)", "(x,x,x,x)", "((x,x),(x,x))"]
DIV_CATALOGUE = ["C:(x,x)/1,4", "C:(x,x)/4,1", "C:(x,x)/2,8", "C:(x,x,x)/1,4,16", "C:(x,(x,x))/8,1,2"]


def gen_divide(rng, n_bulk, n_static):
    cases = []
    kernels = []
    for s in DIV_A_SKELS:
        sk = parse_skel(s)
        kinds = [k for k in tiler_kinds_for(sk, "divide")] + DIV_CATALOGUE
        for fn in DIV_FORMS:
            for k in kinds:
                kernels.append((fn, sk, k))
    per = max(1, n_bulk // len(kernels))
    for fn, sk, kind in kernels:
        for _ in range(per):
            A = fill_layout(rng, sk)
            T = div_tiler(rng, kind, A, adm_p=0.6)
            try:
                cases.append(divide_case(fn, A, T))
            except Skip:
                pass
    for i in range(n_static):
        fn = DIV_FORMS[i % 4]
        A = rand_layout(rng)
        kinds = tiler_kinds_for(profile_skel(A), "divide")
        T = div_tiler(rng, rng.choice(kinds), A, adm_p=0.75)
        mode = static_mode(rng, 0.7)
        A = set_static(rng, A, mode)
        T = static_tiler(rng, T, "static" if mode == "static" else "sstride")
        T = static_strides(T)
        if tiler_complement_rejects(T):
            continue
        try:
            cases.append(divide_case(fn, A, T))
        except Skip:
            pass
    return cases


def static_strides(T):
    """Tile layouts of rank > 1 need static strides (complement)."""
    if T.kind == "layout":
        return Tiler("layout", lay=Lay(T.lay.shape, restatic(T.lay.stride, True)))
    if T.kind == "bymode":
        return Tiler("bymode", items=[static_strides(it) for it in T.items])
    return T


PROD_A = ["x", "(x)", "C:(x,x)/1,4", "C:(x,x)/4,1", "C:(x,x)/1,2", "C:(x,x,x)/1,2,8",
          "C:(x,(x,x))/1,4,16", "C:((x,x),x)/2,1,8", "C:(x,x)/2,16"]
PROD_B = ["L:x", "L:(x,x)", "L:(x,x,x)", "L:(x,(x,x))", "int", "bymode:L:x;L:x", "shape2", "bymode:L:x"]


def prod_block(rng, kind, max_size):
    if kind.startswith("C:"):
        sk, st = kind[2:].split("/")
        st = [int(x) for x in st.split(",")]
        for _ in range(20):
            A = sstride_layout(rng, parse_skel(sk), st, adm_p=0.7)
            if A.size() <= max_size:
                return A
        return A
    return fill_layout(rng, parse_skel(kind), max_size=max_size, neg=False, zero=False)


def prod_tiler(rng, kind, A, max_size):
    for _ in range(20):
        if kind.startswith("L:"):
            B = Tiler("layout", lay=fill_layout(rng, parse_skel(kind[2:]), max_size=max_size, neg=False, zero=False))
        elif kind == "int":
            B = Tiler("int", leaf=D(rand_ext(rng)))
        elif kind == "shape2":
            B = Tiler("shape", node=(D(rand_ext(rng)), D(rand_ext(rng))))
        else:
            B = Tiler("bymode", items=[prod_tiler(rng, it, m, max_size) for it, m in zip(kind[7:].split(";"), A.modes())])
        if tiler_size(B) <= max_size:
            return B
    return B


def tiler_size(T):
    if T.kind == "layout":
        return T.lay.size()
    if T.kind == "int":
        return T.leaf.v
    return prod(tiler_size(it) for it in T.parts())


def gen_product(rng, n_bulk, n_static):
    cases = []
    kernels = []
    for a in PROD_A:
        rank = 1 if a in ("x", "(x)") else len(parse_skel(a[2:].split("/")[0]))
        for fn in PROD_FORMS:
            for b in PROD_B:
                if (b.startswith("bymode:L:x;") or b == "shape2") and rank < 2:
                    continue
                kernels.append((fn, a, b))
        for fn in ("blocked_product", "raked_product"):
            for b in PROD_B[:4]:
                if rank == 1 and b == "L:x":
                    continue  # both rank 1: CuTe's zip of the two modes does not compile
                kernels.append((fn, a, b))
    per = max(1, n_bulk // len(kernels))
    for fn, a, b in kernels:
        for _ in range(per):
            A = prod_block(rng, a, 64)
            B = prod_tiler(rng, b, A, max(1, MAX_RESULT // max(A.size(), 1)) if rng.random() < 0.5 else 16)
            try:
                cases.append(product_case(fn, A, B))
            except Skip:
                pass
    forms = PROD_FORMS + ["blocked_product", "raked_product"]
    for i in range(n_static):
        fn = forms[i % 6]
        sk = rand_skel(rng, max_rank=3)
        st = chain_strides(rng, skel_nleaves(sk), zero_p=0.05, noise_p=0.05)
        A = sstride_layout(rng, sk, st, adm_p=0.85, shape_static=True)
        while A.size() > 64:
            sk = rand_skel(rng, max_rank=3)
            st = chain_strides(rng, skel_nleaves(sk), zero_p=0.05, noise_p=0.05)
            A = sstride_layout(rng, sk, st, adm_p=0.85, shape_static=True)
        if fn in ("blocked_product", "raked_product"):
            kinds = PROD_B[:4]
        else:
            kinds = [k for k in PROD_B if A.rank() >= 2 or not (k.startswith("bymode:L:x;") or k == "shape2")]
        B = prod_tiler(rng, rng.choice(kinds), A, 32)
        mode = static_mode(rng, 0.7)
        if mode != "static":
            A = Lay(set_static(rng, A, "mixed").shape, A.stride)
        B = inject_static_zero(rng, static_tiler(rng, B, mode))
        if fn in ("blocked_product", "raked_product"):
            r = max(A.rank(), B.lay.rank())
            if r == 1 and (is_leaf(A.shape) or is_leaf(B.lay.shape)):
                continue
            if cute_complement_rejects(concat(pad_modes(A, r))):
                continue
        elif block_complement_rejects(A, B):
            continue
        try:
            cases.append(product_case(fn, A, B))
        except Skip:
            pass
    return cases


# ---- modes: select / take / group / append / prepend / replace / make_layout_like ------

def check_expected(expected):
    """The result must be the layout `expected` as a function, with the same rank."""
    truth = offs(expected.pairs())

    def chk(r):
        R = as_layout(r)
        v = fn_verdict(R, truth)
        if v[0] == "ok" and R.rank() != expected.rank():
            return "wrong", truth, "rank differs"
        return v
    return chk


def check_layout_like(L):
    def chk(r):
        R = as_layout(r)
        if fmt(R.shape) != fmt(L.shape):
            return "wrong", None, "shape changed"
        lp, rp = L.pairs(), R.pairs()
        keep = []
        for (s, d), (_, e), b in zip(lp, rp, leaves(L.stride)):
            if b.s and b.v == 0:
                if e != 0:
                    return "wrong", None, "static zero stride not kept"
            else:
                keep.append((s, e))
        o = offs(keep)
        if sorted(o) != list(range(len(o))):
            return "wrong", None, "not compact"
        st = [(b.v, e) for b, (_, e), a in zip(leaves(L.stride), rp, leaves(L.shape)) if b.s and b.v != 0 and a.v != 1]
        if all(b.s for b in leaves(L.stride)):
            for d1, e1 in st:
                for d2, e2 in st:
                    if d1 < d2 and not e1 < e2:
                        return "wrong", None, "stride order not kept"
        return "ok", None, None
    return chk


def gen_modes(rng, n_bulk, n_static):
    cases = []
    total = n_bulk + n_static
    for i in range(total):
        mode = ["static", "mixed", "dynamic"][i % 3]
        L = set_static(rng, rand_layout(rng, max_rank=4, smode=None), mode)
        op = rng.choice(["select", "take", "group", "append", "prepend", "replace", "make_layout_like"])
        r = L.rank()
        modes = L.modes()
        if op in ("select", "take", "group", "replace") and is_leaf(L.shape):
            op = rng.choice(["append", "prepend", "make_layout_like"])
        if op == "select":
            idx = rng.sample(range(r), rng.randint(1, r))
            exp = concat([modes[k] for k in idx])
            cases.append(call("modes", "select", [("lay", L)], check_expected(exp), targs=idx))
        elif op == "take":
            b = rng.randrange(r)
            e = rng.randint(b + 1, r)
            exp = concat(modes[b:e])
            cases.append(call("modes", "take", [("lay", L)], check_expected(exp), targs=[b, e]))
        elif op == "group":
            b = rng.randrange(r)
            e = rng.randint(b + 1, r)
            exp = concat(modes[:b] + [concat(modes[b:e])] + modes[e:])
            cases.append(call("modes", "group", [("lay", L)], check_expected(exp), targs=[b, e]))
        elif op in ("append", "prepend", "replace"):
            M = set_static(rng, rand_layout(rng, max_size=16, max_rank=2), mode)
            if op == "replace":
                k = rng.randrange(r)
                exp = concat(modes[:k] + [M] + modes[k + 1:])
                cases.append(call("modes", "replace", [("lay", L), ("lay", M)], check_expected(exp), targs=[k]))
            else:
                base = modes if not is_leaf(L.shape) else [L]
                exp = concat(base + [M] if op == "append" else [M] + base)
                cases.append(call("modes", op, [("lay", L), ("lay", M)], check_expected(exp)))
        else:
            cases.append(call("modes", "make_layout_like", [("lay", L)], check_layout_like(L)))
    return cases


# ---- upcast / downcast ---------------------------------------------------------------

def check_cast(fn, n, L):
    exp = []
    for s, d in L.pairs():
        if fn == "upcast":
            if d == 0:
                exp.append((s, 0))
            elif abs(d) % n == 0:
                exp.append((s, d // n))
            elif n % abs(d) == 0:
                exp.append((ceil_div(s, n // abs(d)), 1 if d > 0 else -1))
            else:
                exp = None
                break
        else:
            exp.append((s * n, d) if abs(d) == 1 else (s, d * n))
    truth = None if exp is None else offs(exp)

    def chk(r):
        R = as_layout(r)
        v = fn_verdict(R, truth, "element-wise %s" % fn)
        if v[0] == "ok" and R.rank() != L.rank():
            return "wrong", truth, "rank differs"
        return v
    return chk


def gen_cast(rng, n_bulk, n_static):
    cases = []
    for i in range(n_bulk + n_static):
        fn = ["upcast", "downcast"][i % 2]
        n = rng.choice([2, 2, 4, 4, 8])
        mode = ["static", "static", "mixed", "dynamic"][i % 4] if i < n_static else "dynamic"
        L = rand_layout(rng, max_size=64, smode="compact", neg=True, zero=True)
        if fn == "upcast" and mode != "static" and rng.random() < 0.7:
            # runtime strides are assumed to be multiples of N
            L = Lay(L.shape, gv.map_leaves(L.stride, lambda l: Leaf(l.v * n if abs(l.v) > 1 else l.v, l.s)))
        L = set_static(rng, L, mode)
        if fn == "downcast":
            # downcast needs a static stride-1 leaf ("Downcast requires adjacent elements")
            ls = list(leaves(L.stride))
            if not any(l.s and l.v == 1 for l in ls):
                k = rng.randrange(len(ls))
                it = iter(range(len(ls)))
                L = Lay(L.shape, gv.map_leaves(L.stride, lambda l: S(1) if next(it) == k else l))
        if fn == "upcast" and any(b.s and b.v % n and n % b.v for b in leaves(L.stride) if b.v):
            continue  # static_assert "Divisibility condition"
        cases.append(call("cast", fn, [("lay", L)], check_cast(fn, n, L), targs=[n]))
    return cases


# ---- max_common_vector / max_common_layout -----------------------------------------

def common_prefix(A, B):
    """Largest N such that for every n < N some j has B(j) == n and A(j) == n (first such j)."""
    ao, bo = offs(A.pairs()), offs(B.pairs())
    inv = {}
    for j, b in enumerate(bo):
        inv.setdefault(b, j)
    n = 0
    while n in inv and ao[inv[n]] == n:
        n += 1
    return n, ao, bo


def check_mcv(A, B):
    nmax, ao, bo = common_prefix(A, B)
    # maximality is only checked for static, injective operands (CuTe keeps runtime modes out, and
    # for a non-injective B the longest run need not be a layout)
    stat = A.is_static() and B.is_static() and len(set(bo)) == len(bo)

    def chk(r):
        if r[0] != "int":
            raise ValueError("expected an integer")
        n = r[1].v
        if n < 1 or n > nmax:
            return "wrong", None, "elements do not correspond"
        if stat and n != nmax:
            return "wrong", None, "not maximal"
        return "ok", None, None
    return chk


def check_mcl(A, B):
    nmax, ao, bo = common_prefix(A, B)
    stat = A.is_static() and B.is_static() and len(set(bo)) == len(bo)

    def chk(r):
        R = as_layout(r)
        ro = offs(R.pairs())
        for i, x in enumerate(ro):
            if not (0 <= x < len(ao) and ao[x] == i and bo[x] == i):
                return "wrong", None, "A(R(i)) or B(R(i)) != i"
        if stat and len(ro) != nmax:
            return "wrong", None, "not maximal"
        return "ok", None, None
    return chk


def gen_max_common(rng, n_bulk, n_static):
    cases = []
    for i in range(n_bulk + n_static):
        fn = ["max_common_vector", "max_common_layout"][i % 2]
        mode = ["static", "static", "mixed"][i % 3] if i < n_static else "dynamic"
        A = rand_layout(rng, neg=False, zero=False, smode=rng.choice(["compact", "compact", "mixed"]))
        r = rng.random()
        if r < 0.3:
            B = Lay(A.shape, A.stride)
        elif r < 0.8:
            B = Lay(A.shape, skel_fill_values(A.shape, stride_values(rng, flat_exts(A), False, False, "compact")))
        else:
            B = rand_layout(rng, neg=False, zero=False, smode="compact", skel=profile_skel(A))
            B = Lay(A.shape, B.stride)
        A = set_static(rng, A, mode)
        B = set_static(rng, B, mode if mode != "mixed" else "mixed")
        chk = check_mcv(A, B) if fn == "max_common_vector" else check_mcl(A, B)
        cases.append(call("max_common", fn, [("lay", A), ("lay", B)], chk))
    return cases


def skel_fill_values(shape, vals):
    it = iter(vals)
    return gv.map_leaves(shape, lambda l: Leaf(next(it), l.s))


# ---- nullspace ------------------------------------------------------------------------

def check_nullspace(L):
    exts = flat_exts(L)
    pre = prefix(exts)
    canon = [(s, p) for (s, d), p in zip(L.pairs(), pre) if d == 0 and s != 1]
    truth = offs(canon)
    lo = offs(L.pairs())

    def chk(r):
        R = as_layout(r)
        ro = offs(R.pairs())
        valid = len(set(ro)) == len(ro) and all(0 <= x < len(lo) and lo[x] == 0 for x in ro)
        if valid and len(ro) == len(truth):
            return "ok", None, None
        dyn0 = any(b.v == 0 and not b.s and a.v != 1 for a, b in zip(leaves(L.shape), leaves(L.stride)))
        return "wrong", truth, "runtime zero stride missed" if dyn0 else "not the kernel"
    return chk


def gen_nullspace(rng, n_bulk, n_static):
    cases = []
    for i in range(n_bulk + n_static):
        mode = ["static", "mixed", "static"][i % 3] if i < n_static else "dynamic"
        L = rand_layout(rng, smode=rng.choice(["random", "compact"]))
        ls = list(leaves(L.stride))
        for k in rng.sample(range(len(ls)), min(len(ls), rng.choice([0, 1, 1, 2]))):
            ls[k] = Leaf(0, ls[k].s)
        L = Lay(L.shape, skel_fill_values(L.stride, [l.v for l in ls]))
        L = set_static(rng, L, mode)
        cases.append(call("nullspace", "nullspace", [("lay", L)], check_nullspace(L)))
    return cases


# ---- tile_to_shape -----------------------------------------------------------------

def ordered_layout(exts, order):
    """make_ordered_layout of a flat shape with a flat order (ties by position)."""
    idx = sorted(range(len(exts)), key=lambda k: (order[k], k))
    st, p = [0] * len(exts), 1
    for k in idx:
        st[k] = p
        p *= exts[k]
    return Lay(tuple(D(e) for e in exts), tuple(D(s) for s in st))


def check_tile_to_shape(L, trg, order):
    r = len(trg)
    blk = [m.size() for m in pad_modes(L, r)]
    tsz = [size(t) for t in trg]
    pshape = [ceil_div(t, b) for t, b in zip(tsz, blk)]
    B = ordered_layout(pshape, order if order is not None else list(range(r)))
    truth = blocked_truth(L, B, False)
    return tiled_verdict(truth, cute_complements_pc(lambda cfn: blocked_truth(L, B, False, cfn)), "tiling")


def gen_tile_to_shape(rng, n_bulk, n_static):
    cases = []
    for i in range(n_bulk + n_static):
        mode = ["static", "mixed", "static"][i % 3] if i < n_static else "dynamic"
        sk = rand_skel(rng, max_rank=3, scalar_p=0.2)
        L = fill_layout(rng, sk, max_size=32, neg=False, zero=False, smode="compact")
        r = L.rank() + rng.choice([0, 0, 1])
        blk = [m.size() for m in pad_modes(L, r)]
        trg = []
        for b in blk:
            t = b * rng.choice([1, 2, 3, 4])
            if mode != "static" and rng.random() < 0.2:
                t += 1
            if rng.random() < 0.15 and t % 2 == 0:
                trg.append((Leaf(2, True), Leaf(t // 2, True)))
            else:
                trg.append(Leaf(t, True))
        if prod(size(t) for t in trg) > MAX_RESULT:
            continue
        trg = tuple(trg)
        order = None
        if rng.random() < 0.4:
            order = list(range(r))
            rng.shuffle(order)
        L = set_static(rng, L, mode)
        if not is_leaf(L.shape) and len(L.shape) > 1:
            L = Lay(L.shape, restatic(L.stride, True))  # complement of the block needs static strides
        if cute_complement_rejects(concat(pad_modes(L, r))):
            continue
        trg = trg if mode == "static" else restatic(trg, False) if mode == "dynamic" else \
            gv.map_leaves(trg, lambda l: Leaf(l.v, rng.random() < 0.5))
        args = [("lay", L), ("node", trg)]
        if order is not None:
            args.append(("node", tuple(S(o) for o in order)))
        try:
            cases.append(call("tile_to_shape", "tile_to_shape", args, check_tile_to_shape(L, trg, order)))
        except Skip:
            pass
    return cases


# ---- swizzle -------------------------------------------------------------------------

def composed_offsets(r):
    """Offsets of a CuTe result that is a plain layout or Sw o offset o layout."""
    if r[0] == "layout":
        return offs(r[1].pairs())
    if r[0] != "composed":
        raise ValueError("expected a layout")
    f = swizzle_fn(*r[1])
    o = r[2].v
    return [f(o + x) for x in offs(r[3].pairs())]


def check_swizzle(truth):
    def chk(r):
        got = composed_offsets(r)
        if got == truth:
            return "ok", None, None
        return "wrong", truth, "offsets differ" if len(got) == len(truth) else "size differs"
    return chk


def rand_swizzle(rng):
    b = rng.choice([0, 1, 2, 2, 3, 3])
    m = rng.randint(0, 4)
    s = rng.choice([b, b, b + 1, b + 2, -b if b else 1])
    if abs(s) < b:
        s = b
    if s < 0 and m + s < 0:
        s = -s
    return (b, m, s)


def gen_swizzle(rng, n_bulk, n_static):
    cases = []
    for i in range(n_bulk + n_static):
        mode = ["static", "static", "mixed"][i % 3] if i < n_static else "dynamic"
        sw = rand_swizzle(rng)
        f = swizzle_fn(*sw)
        kind = rng.random()
        L = set_static(rng, rand_layout(rng, neg=False, zero=True, smode=rng.choice(["compact", "compact", "random"])), mode)
        if kind < 0.75:
            truth = [f(x) for x in offs(L.pairs())]
            cases.append(call("swizzle", "composition", [("sw", sw), ("lay", L)], check_swizzle(truth)))
        else:
            B = b_layout(rng, rand_skel(rng, 2), L, adm_p=0.8)
            B = set_static(rng, B, mode)
            lp = L.pairs()
            bo = offs(B.pairs())
            truth = [f(ev(lp, b)) for b in bo]
            cases.append(call("swizzle", "composition", [nested_call("composition", [("sw", sw), ("lay", L)]), ("lay", B)],
                              check_swizzle(truth)))
    return cases


GENERATORS = {
    # family: (generator, bulk vectors (mostly runtime values), static-subset cases (own kernels))
    "coalesce": (gen_coalesce, 10800, 480),
    "filter": (gen_filter, 11300, 540),
    "composition": (gen_composition, 10300, 600),
    "complement": (gen_complement, 11600, 760),
    "inverse": (gen_inverse, 14000, 500),
    "divide": (gen_divide, 12500, 600),
    "product": (gen_product, 12500, 750),
    "modes": (gen_modes, 150, 250),
    "cast": (gen_cast, 60, 260),
    "max_common": (gen_max_common, 60, 260),
    "nullspace": (gen_nullspace, 60, 240),
    "tile_to_shape": (gen_tile_to_shape, 40, 300),
    "swizzle": (gen_swizzle, 40, 260),
}


# ---------------------------------------------------------------------------
# C++ plumbing: kernels -> translation units -> compile (dropping static_assert failures) -> run
# ---------------------------------------------------------------------------

CPP_PRELUDE = r"""// Generated by tools/oracle/gen_algebra_vectors.py; compiled and run on the host.
#include <cute/layout.hpp>
#include <cute/swizzle_layout.hpp>
#include <cstdio>
#include <cstdlib>
using namespace cute;
#define V(k) int(v_[k])
typedef void (*Kernel)(long const*);
"""

CPP_MAIN = r"""
int main() {
  static char line[1 << 16];
  long v[512];
  while (std::fgets(line, sizeof line, stdin)) {
    char* p = line;
    char* q;
    long id = std::strtol(p, &q, 10);
    p = q;
    int n = 0;
    for (;;) {
      long x = std::strtol(p, &q, 10);
      if (q == p) break;
      v[n++] = x;
      p = q;
    }
    std::printf("%ld\t", id);
    table[id](v);
    std::putchar('\n');
    std::fflush(stdout);
  }
  return 0;
}
"""


def tu_source(kernels, dropped):
    """One kernel per line, so that g++'s line numbers name the kernels."""
    head = CPP_PRELUDE.count("\n")
    lines = []
    for k, cx in enumerate(kernels):
        body = 'std::fputs("#dropped", stdout);' if k in dropped else "print(%s);" % cx
        lines.append("static void k%d(long const* v_) { (void)v_; %s }" % (k, body))
    table = "static Kernel table[] = {%s};" % ",".join("k%d" % k for k in range(len(kernels)))
    return CPP_PRELUDE + "\n".join(lines) + "\n" + table + "\n" + CPP_MAIN, head + 1


def compile_tu(name, kernels, inc, build_dir, source=None, label=str, attempts=6):
    """Compile; kernels that do not compile (CuTe's static_asserts) are dropped and the unit is
    compiled again, up to `attempts` times. `source(kernels, dropped)` writes the unit (this
    file's `tu_source` by default) and `label(kernel)` names a dropped kernel in the `.dropped`
    log. Returns (executable, dropped kernel indices, seconds)."""
    source = source or tu_source
    cpp_path = os.path.join(build_dir, name + ".cpp")
    exe = os.path.join(build_dir, name)
    dropped = set()
    t = time.time()
    for _ in range(attempts):
        src, first = source(kernels, dropped)
        with open(cpp_path, "w") as f:
            f.write(src)
        r = subprocess.run(["g++", "-std=c++17", "-O1", "-ftemplate-backtrace-limit=1", *inc, cpp_path, "-o", exe],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return exe, dropped, time.time() - t
        with open(cpp_path + ".err", "a") as f:
            f.write(r.stderr)
        bad = {int(m) - first for m in re.findall(re.escape(cpp_path) + r":(\d+):", r.stderr)}
        bad = {k for k in bad if 0 <= k < len(kernels)} - dropped
        if not bad:
            die("compiling %s failed outside any kernel:\n%s" % (cpp_path, r.stderr[-6000:]))
        dropped |= bad
        with open(cpp_path + ".dropped", "a") as f:
            f.write("".join("k%d %s\n" % (k, label(kernels[k])) for k in sorted(bad)))
    die("compiling %s still fails after dropping kernels" % cpp_path)


CRASHED = {}  # family -> expressions whose CuTe call crashed


def run_tu(exe, inputs):
    """inputs: list of (case, input line). Fills case.result; returns the cases that crashed.
    Each crash drops that case and the run resumes after it."""
    crashed, pos = [], 0
    while pos < len(inputs):
        text = "".join(line + "\n" for _, line in inputs[pos:])
        try:
            r = subprocess.run([exe], input=text, capture_output=True, text=True, timeout=RUN_TIMEOUT)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), -1
        done = out.split("\n")[:-1]  # complete lines only
        for k, line in enumerate(done):
            case, inp = inputs[pos + k]
            kid, _, res = line.partition("\t")
            if kid != inp.split(" ")[0]:
                die("%s: output %r does not answer input %r" % (exe, line, inp))
            case.result = res
        pos += len(done)
        if rc == 0:
            if pos != len(inputs):
                die("%s stopped after %d of %d inputs" % (exe, pos, len(inputs)))
            break
        crashed.append(inputs[pos][0])
        inputs[pos][0].result = None
        CRASHED.setdefault(inputs[pos][0].family, []).append(inputs[pos][0].expr)
        pos += 1
    return crashed


def build_and_run(cases, inc, build_dir, jobs):
    """Group cases into kernels and units, compile and run them all. Returns per-family counts of
    kernels dropped at compile time and cases dropped (compile / crash)."""
    kernels = {}  # C++ call -> kernel
    order = []
    for c in cases:
        if c.cxx not in kernels:
            kernels[c.cxx] = (c.family, [])
            order.append(c.cxx)
        kernels[c.cxx][1].append(c)
    # one family per unit (its compile time and failures are then per family)
    units = []
    by_family = {}
    for cx in order:
        by_family.setdefault(kernels[cx][0], []).append(cx)
    for fam in FAMILIES:
        ks = by_family.get(fam, [])
        for u in range(0, len(ks), KERNELS_PER_TU):
            units.append(("%s_%02d" % (fam, u // KERNELS_PER_TU), fam, ks[u:u + KERNELS_PER_TU]))
    stats = {f: {"kernels": 0, "kernels_dropped": 0, "compile_dropped": 0, "crashed": 0} for f in FAMILIES}
    for _, fam, ks in units:
        stats[fam]["kernels"] += len(ks)
    print("%d kernels for %d cases in %d units, %d jobs, in %s" % (len(order), len(cases), len(units), jobs, build_dir),
          flush=True)

    def one(unit):
        name, fam, ks = unit
        exe, dropped, secs = compile_tu(name, ks, inc, build_dir)
        inputs = []
        for k, cx in enumerate(ks):
            if k in dropped:
                continue
            for c in kernels[cx][1]:
                inputs.append((c, " ".join(str(x) for x in [k] + c.vals)))
        t = time.time()
        crashed = run_tu(exe, inputs)
        ndrop = sum(len(kernels[ks[k]][1]) for k in dropped)
        print("  %-18s %3d kernels (%d rejected at compile time), %5d cases, %3d crashed: compile %.0f s, run %.1f s"
              % (name, len(ks), len(dropped), len(inputs), len(crashed), secs, time.time() - t), flush=True)
        return fam, len(dropped), ndrop, len(crashed)

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for fam, nk, nd, ncr in ex.map(one, units):
            stats[fam]["kernels_dropped"] += nk
            stats[fam]["compile_dropped"] += nd
            stats[fam]["crashed"] += ncr
    return stats


# ---------------------------------------------------------------------------
# Verdicts and files
# ---------------------------------------------------------------------------

def judge(case):
    """Fill case.verdict = (verdict, truth text, reason) from CuTe's result, or None to drop."""
    try:
        r = parse_result(case.result)
    except ValueError as e:
        die("%s: %s" % (case.expr, e))
    if r[0] in ("layout", "composed"):
        lay = r[1] if r[0] == "layout" else r[3]
        if lay.nodes() > MAX_NODES or nnodes(lay.stride) > MAX_NODES:
            return None
        if prod(max(a.v, 0) for a in leaves(lay.shape)) > MAX_CUTE_SIZE:
            return None
    try:
        v, truth, reason = case.check(r)
    except Skip:
        return None
    if v not in ("ok", "wrong", "unchecked"):
        die("bad verdict %r" % v)
    if isinstance(truth, str):  # a claim about the result, not its offsets (inverse)
        t = truth
    elif v == "wrong" and truth is not None:
        if len(truth) > MAX_TRUTH:
            return None
        t = ",".join(str(x) for x in truth)
    else:
        t = "-"
    case.verdict = (v, t, reason)
    return case


def file_header(fam):
    return "".join("# %s\n" % l for l in [
        "Generated by tools/oracle/gen_algebra_vectors.py from CuTe C++ (cutlass %s). Do not edit." % CUTLASS_VERSION,
        "Regenerate with: python3 tools/oracle/gen_algebra_vectors.py   (format: tools/oracle/README.md)",
        "family<TAB>expression<TAB>CuTe's printed result<TAB>verdict (ok|wrong|unchecked)<TAB>truth",
        "truth: for `wrong` rows the offsets of the mathematical result (i = 0, 1, ...), or `-`",
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated families to regenerate (default: all)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every count (for quick trials)")
    ap.add_argument("--keep-build", metavar="DIR", help="build in DIR and keep the C++ sources")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=DATA_DIR, help="output directory (default tests/data)")
    args = ap.parse_args()
    t0 = time.time()
    fams = FAMILIES if not args.only else args.only.split(",")
    for f in fams:
        if f not in GENERATORS:
            die("unknown family %r (known: %s)" % (f, ", ".join(FAMILIES)))

    inc, _ = gv.oracle_env()
    build_dir = args.keep_build or tempfile.mkdtemp(prefix="cute_algebra_")
    os.makedirs(build_dir, exist_ok=True)

    cases, skipped = [], {}
    for fam in fams:
        gen, n_bulk, n_static = GENERATORS[fam]
        rng = random.Random("%d-%s" % (SEED, fam))  # one stream per family
        _one_p[0] = ONE_P.get(fam, 0.25)
        seen, fc = set(), []
        for c in gen(rng, max(1, int(n_bulk * args.scale)), max(1, int(n_static * args.scale))):
            if c.expr in seen:
                continue
            seen.add(c.expr)
            if expr_all_static(c.expr) != (not c.vals):
                die("static-ness rule disagrees for %s" % c.expr)
            fc.append(c)
        cases += fc
        print("%-14s %6d cases (%d all-static)" % (fam, len(fc), sum(1 for c in fc if not c.vals)), flush=True)
    t1 = time.time()
    print("cases generated in %.0f s" % (t1 - t0), flush=True)

    stats = build_and_run(cases, inc, build_dir, args.jobs)
    t2 = time.time()

    os.makedirs(args.out, exist_ok=True)
    summary = []
    for fam in fams:
        rows, reasons = [], {}
        counts = {"ok": 0, "wrong": 0, "unchecked": 0}
        static_rows = 0
        for c in cases:
            if c.family != fam or c.result is None:
                continue
            if judge(c) is None:
                skipped[fam] = skipped.get(fam, 0) + 1
                continue
            v, t, reason = c.verdict
            counts[v] += 1
            if reason:
                reasons[reason] = reasons.get(reason, 0) + 1
            if not c.vals:
                static_rows += 1
            rows.append("\t".join([fam, c.expr, c.result, v, t]))
        path = os.path.join(args.out, "cute_algebra_%s.txt" % fam)
        gv.write_atomically(path, file_header(fam) + "".join(r + "\n" for r in rows))
        st = stats[fam]
        summary.append((fam, len(rows), counts, static_rows, st, skipped.get(fam, 0), reasons, os.path.getsize(path)))
    print("\nfamily         rows     ok  wrong  unchk  static  kernels(rejected)  dropped: compile crash limits  bytes")
    for fam, n, cnt, ns, st, sk, reasons, nbytes in summary:
        print("%-13s %6d %6d %6d %6d %7d %8d (%5d) %16d %6d %6d %9d" % (
            fam, n, cnt["ok"], cnt["wrong"], cnt["unchecked"], ns, st["kernels"], st["kernels_dropped"],
            st["compile_dropped"], st["crashed"], sk, nbytes))
        for r, k in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print("%15s %6d  %s" % ("", k, r))
        for e in CRASHED.get(fam, [])[:3]:
            print("%15s crashed: %s" % ("", e))
    if not args.keep_build:
        shutil.rmtree(build_dir, ignore_errors=True)
    print("done in %.0f s (generation %.0f s, C++ %.0f s, verdicts %.0f s)" % (time.time() - t0, t1 - t0, t2 - t1,
                                                                         time.time() - t2))


if __name__ == "__main__":
    main()
