#!/usr/bin/env python3
"""Generate the CuTe identity-layout test vectors, tests/data/cute_identity.txt.

Usage:  python3 tools/oracle/gen_identity_vectors.py [--scale X] [--keep-build DIR] [--jobs N]
                                                    [--out FILE]

The oracle is the CuTe C++ headers of nvidia-cutlass 4.2.0.0, compiled on the host with g++ (set up
by tools/oracle/setup.sh, as for gen_vectors.py). Each vector is one CuTe call on
make_identity_layout(S) (or make_identity_tensor(S) for local_tile / local_partition): the
identity layout itself, the four divides, local_tile, local_partition, composition with a small
layout, slice / slice_and_offset, coalesce, filter, select / group. The file records CuTe's printed
result and size, CuTe's value (a coordinate) at every index for results of up to 128 elements, and
a verdict computed here by brute force from the mathematical definition: CuTe silently returns wrong functions for inadmissible inputs
(Decision 2 of the project's reference), and those rows carry the right answer.

How it works (the pattern of gen_algebra_vectors.py): a case's C++ call with every runtime leaf
replaced by a slot V(k) is its *kernel*; cases that differ only in runtime values share one compiled
function, which reads `kernel v0 v1 ...` lines from stdin. Kernels are spread over translation
units compiled in parallel; a kernel CuTe rejects at compile time (a static_assert) is dropped and
its unit recompiled, a case that crashes at run time is dropped and the run resumes after it. Both
are counted. The file is replaced atomically, only after everything ran.

See tools/oracle/README.md ("Identity vectors") for the format and the verdicts.
"""

import argparse
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
import gen_vectors as gv  # noqa: E402  (oracle setup, int-tuple model, CuTe's print notation)
import gen_algebra_vectors as ga  # noqa: E402  (layouts, tilers, emission, complement)
from gen_vectors import Leaf, is_leaf, fmt, size, leaves  # noqa: E402
from gen_algebra_vectors import Lay, Tiler, Em, S, D, offs  # noqa: E402

OUT_FILE = os.path.join(gv.DATA_DIR, "cute_identity.txt")
CUTLASS_VERSION = gv.CUTLASS_VERSION

SEED = 20250920
MAX_S = 1024          # size of the identity shape S
MAX_VALUES = 128      # CuTe's values are recorded for results up to this size
MAX_TRUTH = 512       # `wrong` rows whose truth is larger are left out
MAX_CUTE_SIZE = 65536 # larger CuTe results are left out (garbage from inadmissible inputs)
KERNELS_PER_TU = 120
RUN_TIMEOUT = 300

OPS = ["identity", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "local_tile",
       "local_partition", "composition", "slice", "slice_and_offset", "coalesce", "filter", "select",
       "group"]


def die(msg):
    sys.exit("gen_identity_vectors.py: error: " + msg)


# ---------------------------------------------------------------------------
# Values: a coordinate is a dict {mode path: value} without its zero entries, so that CuTe's
# different spellings of one coordinate ((3,0), (3), 3@0) compare equal. The paths are those of the
# identity shape S; an integer shape S gives integer values (path ()).
# ---------------------------------------------------------------------------

def leaf_paths(x, pre=()):
    if is_leaf(x):
        return [pre]
    out = []
    for k, e in enumerate(x):
        out += leaf_paths(e, pre + (k,))
    return out


def crd_fn(node, pre):
    """x -> the coordinate of index x in shape `node` (colexicographic, the last leaf absorbs
    indices past the end), as a value dict with paths under `pre`."""
    paths = [pre + p for p in leaf_paths(node)]
    exts = [a.v for a in leaves(node)]
    memo = {}

    def f(x0):
        r = memo.get(x0)
        if r is None:
            r, x = {}, x0
            for k, (p, s) in enumerate(zip(paths, exts)):
                c = x if k == len(exts) - 1 else x % s
                if k != len(exts) - 1:
                    x //= s
                if c:
                    r[p] = c
            memo[x0] = r
        return r
    return lambda x: dict(f(x))


def mode_fns(Sh):
    """f_k per top mode of S (the whole S for an integer shape)."""
    if is_leaf(Sh):
        return [crd_fn(Sh, ())]
    return [crd_fn(m, (k,)) for k, m in enumerate(Sh)]


def freeze(d):
    return tuple(sorted((p, v) for p, v in d.items() if v))


class Fn:
    """A result function built from parts. modes[m] = (fn, [part pairs...]): mode m's value at an
    assignment of its parts' 1-D indices is fn(sum of the parts' offsets). A slot is (m, j); an
    order lists the free slots (first fastest), `fixed` gives the others an index."""

    def __init__(self, modes):
        self.modes = modes
        self.tables = [[offs(p) for p in parts] for _, parts in modes]

    def slot_size(self, s):
        return len(self.tables[s[0]][s[1]])

    def values(self, order, fixed=None, limit=None):
        fixed = dict(fixed or {})
        sizes = [self.slot_size(s) for s in order]
        n = prod(sizes)
        if limit is not None and n > limit:
            return None
        out = []
        for i in range(n):
            idx = dict(fixed)
            for s, m in zip(order, sizes):
                idx[s] = i % m
                i //= m
            r = {}
            for mi, (fn, parts) in enumerate(self.modes):
                o = sum(self.tables[mi][j][idx.get((mi, j), 0)] for j in range(len(parts)))
                for p, v in fn(o).items():
                    r[p] = r.get(p, 0) + v
            out.append(freeze(r))
        return out


# ---------------------------------------------------------------------------
# Parsing CuTe's prints: leaves `_4`, `4`, `_1@0@1` (value 1 times E<1,0>: CuTe prints the path
# innermost first), tuples, `shape:stride`, `origin + layout`.
# ---------------------------------------------------------------------------

_LEAF = re.compile(r"(_?)(-?\d+)((?:@\d+)*)")


class BLeaf:
    __slots__ = ("v", "s", "path")

    def __init__(self, v, s, path):
        self.v, self.s, self.path = v, s, path


def parse_node(t, i=0):
    if t.startswith("ArithTuple", i):
        i += len("ArithTuple")
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
    path = tuple(int(x) for x in m.group(3).split("@")[1:])[::-1]
    return BLeaf(int(m.group(2)), m.group(1) == "_", path), m.end()


def parse_full(t):
    x, i = parse_node(t, 0)
    if i != len(t):
        raise ValueError("trailing text in %r" % t)
    return x


def bleaves(x, pre=()):
    if isinstance(x, BLeaf):
        yield pre, x
    else:
        for k, e in enumerate(x):
            yield from bleaves(e, pre + (k,))


def value_of(node):
    """A printed CuTe value (int, ScaledBasis, ArithmeticTuple) as a value dict."""
    r = {}
    for pos, lf in bleaves(node):
        p = pos + lf.path
        r[p] = r.get(p, 0) + lf.v
    return {p: v for p, v in r.items() if v}


def parse_layout_text(t):
    """'shape:stride' -> (pairs [(extent, (stride value, basis path))], size)."""
    depth, cut = 0, None
    for k, ch in enumerate(t):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == ":" and depth == 0:
            cut = k
            break
    if cut is None:
        raise ValueError("not a layout: %r" % t)
    sh, st = parse_full(t[:cut]), parse_full(t[cut + 1:])
    ex = [lf.v for _, lf in bleaves(sh)]
    ds = [(lf.v, lf.path) for _, lf in bleaves(st)]
    if len(ex) != len(ds):
        raise ValueError("shape and stride are not congruent in %r" % t)
    return list(zip(ex, ds)), prod(ex)


def eval_printed(t, limit):
    """CuTe's printed result ('layout' or 'origin + layout') as its list of values (frozen), by
    evaluating the printed shape and strides; None past `limit` elements."""
    origin = {}
    if " + " in t:
        o, _, t = t.partition(" + ")
        origin = value_of(parse_full(o))
    pairs, n = parse_layout_text(t)
    if n > limit:
        return None
    out = []
    for i in range(n):
        r = dict(origin)
        for s, (d, p) in pairs:
            c = i % s
            i //= s
            if c and d:
                r[p] = r.get(p, 0) + c * d
        out.append(freeze(r))
    return out


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
    __slots__ = ("op", "expr", "cxx", "kind", "vals", "truth", "shape", "result")

    def __init__(self, op, expr, cxx, kind, vals, truth, shape):
        self.op, self.expr, self.cxx, self.kind, self.vals, self.truth = op, expr, cxx, kind, vals, truth
        self.shape, self.result = shape, None


def emit_coord(em, c):
    """A coordinate or slicing coordinate: leaves Leaf or '_' ."""
    if c == "_":
        return "_", "_"
    if is_leaf(c):
        return em.leaf(c)
    p = [emit_coord(em, e) for e in c]
    return "(" + ",".join(a for a, _ in p) + ")", "make_coord(" + ",".join(b for _, b in p) + ")"


def identity_args(em, Sh, tensor=False):
    e, c = em.node(Sh)
    return "make_identity_layout(%s)" % e, ("make_identity_tensor(%s)" if tensor else "make_identity_layout(%s)") % c


def make_case(op, fn, Sh, extra, kind, truth, targs=None, tensor=False):
    """`fn`(identity(S), extra...) in eval syntax and C++. extra: list of ('tiler', Tiler) |
    ('lay', Lay) | ('coord', node) | ('leaf', Leaf); a ('slicer', c) first argument goes before S."""
    em = Em()
    ex, cx = [], []
    pre = [a for a in extra if a[0] == "slicer"]
    post = [a for a in extra if a[0] != "slicer"]
    for _, c in pre:
        a, b = emit_coord(em, c)
        ex.append(a)
        cx.append(b)
    a, b = identity_args(em, Sh, tensor)
    ex.append(a)
    cx.append(b)
    for k, v in post:
        if k == "tiler":
            a, b = em.tiler(v)
        elif k == "lay":
            a, b = em.lay(v)
        elif k == "coord":
            a, b = emit_coord(em, v)
        elif k == "leaf":
            a, b = em.leaf(v)
        else:
            raise AssertionError(k)
        ex.append(a)
        cx.append(b)
    t = "" if targs is None else "<" + ",".join(str(v) for v in targs) + ">"
    if fn is None:  # the identity layout itself
        return Case(op, ex[0], cx[0], kind, em.vals, truth, Sh)
    return Case(op, "%s%s(%s)" % (fn, t, ", ".join(ex)), "%s%s(%s)" % (fn, t, ", ".join(cx)), kind, em.vals, truth,
                Sh)


# ---------------------------------------------------------------------------
# Random identity shapes. A template is a node whose leaves are Leaf (static, fixed value) or
# None (runtime, drawn per case): cases of one template share their kernel.
# ---------------------------------------------------------------------------

EXT = [2, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16]
SKELS = [("x", 6), ("(x)", 6), ("(x,x)", 30), ("(x,x,x)", 14), ("((x,x),x)", 9), ("(x,(x,x))", 9),
         ("((x,x),(x,x))", 5), ("(x,x,(x,x))", 4), ("((x,x,x),x)", 4), ("(x,(x,x),x)", 4),
         ("((x),x)", 2), ("(x,(x))", 2)]


def rand_ext(rng, one_p=0.12):
    return 1 if rng.random() < one_p else rng.choice(EXT)


def pick(rng, weighted):
    tot = sum(w for _, w in weighted)
    r = rng.random() * tot
    for v, w in weighted:
        r -= w
        if r < 0:
            return v
    return weighted[-1][0]


def rand_skel(rng, min_rank=1, tuple_only=False):
    for _ in range(100):
        sk = ga.parse_skel(pick(rng, SKELS))
        if isinstance(sk, str):
            if tuple_only or min_rank > 1:
                continue
            return sk
        if len(sk) >= min_rank:
            return sk
    raise AssertionError("no skeleton")


def fill_template(rng, sk, smode):
    """smode: 'static' | 'dynamic' | 'mixed' -> a template (static leaves get their value now)."""
    def leaf(_):
        st = smode == "static" or (smode == "mixed" and rng.random() < 0.5)
        return Leaf(rand_ext(rng), True) if st else None
    return ga.skel_map(sk, leaf)


def tmpl_leaves(t):
    if t is None or is_leaf(t):
        yield t
    else:
        for e in t:
            yield from tmpl_leaves(e)


def is_static_tmpl(t):
    return all(x is not None for x in tmpl_leaves(t))


def instantiate(rng, t, ext_for=None, max_size=MAX_S):
    """Runtime leaves get values (ext_for(k) for the k-th leaf if given, else random)."""
    for _ in range(60):
        it = iter(range(10 ** 6))

        def leaf(x):
            k = next(it)
            if x is not None:
                return x
            return D(ext_for(k) if ext_for else rand_ext(rng))
        Sh = tmap(t, leaf)
        if size(Sh) <= max_size:
            return Sh
    return None


def tmap(t, f):
    if t is None or is_leaf(t):
        return f(t)
    return tuple(tmap(e, f) for e in t)


def smode_of(rng, p_static):
    r = rng.random()
    return "static" if r < p_static else "mixed" if r < (1 + p_static) / 2 else "dynamic"


def groups(rng, n_rows, p_static, per_group, make):
    """Draw groups until n_rows cases: make(rng, smode) -> (is_static, draw) where draw(rng)
    returns a Case or None."""
    out, seen = [], set()
    while len(out) < n_rows:
        smode = smode_of(rng, p_static)
        static, draw = make(rng, smode)
        k = 1 if static else per_group
        for _ in range(k):
            c = draw(rng)
            if c is None or c.expr in seen:
                continue
            seen.add(c.expr)
            out.append(c)
    return out


# ---------------------------------------------------------------------------
# Operations and their mathematical truth
# ---------------------------------------------------------------------------

def whole(Sh):
    """The identity of S as one mode: index -> coordinate (the last leaf absorbs the excess)."""
    return Fn([(crd_fn(Sh, ()), [[(size(Sh), 1)]])])


def gen_identity(rng, n_rows, p_static, per_group, op="identity", fn=None, targs_fn=None):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng), smode)

        def draw(rng):
            Sh = instantiate(rng, t)
            if Sh is None:
                return None
            truth = whole(Sh).values([(0, 0)])
            return make_case(op, fn, Sh, [], "layout", truth)
        return is_static_tmpl(t), draw
    return groups(rng, n_rows, p_static, per_group, make)


def gen_modes(rng, n_rows, p_static, per_group):
    """select<...> and group<b,e> of identity layouts of rank >= 2."""
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng, min_rank=2), smode)
        r = len(t)
        if rng.random() < 0.6:
            op = "select"
            k = rng.randint(1, r)
            targs = sorted(rng.sample(range(r), k)) if rng.random() < 0.7 else [rng.randrange(r) for _ in range(k)]
        else:
            op = "group"
            b = rng.randrange(r)
            targs = [b, rng.randint(b + 1, r)]

        def draw(rng):
            Sh = instantiate(rng, t)
            if Sh is None:
                return None
            if op == "select":
                F = Fn([(crd_fn(Sh[k], (k,)), [[(size(Sh[k]), 1)]]) for k in targs])
                truth = F.values([(m, 0) for m in range(len(targs))])
            else:
                truth = whole(Sh).values([(0, 0)])
            return make_case(op, op, Sh, [], "layout", truth, targs=targs)
        return is_static_tmpl(t), draw
    return groups(rng, n_rows, p_static, per_group, make)


TILE_SIZES = [1, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8, 8, 16, 16]


def rand_tile_item(rng, bymode):
    """A static tile for one mode: an int `_n` or (by-mode tilers) a layout `_n:_d` or
    `(_a,_b):(_1,_g)` whose complement exists."""
    if not bymode or rng.random() < 0.4:
        return Tiler("int", leaf=S(rng.choice(TILE_SIZES)))
    r = rng.random()
    if r < 0.6:
        n = rng.choice([2, 3, 4, 4, 8])
        d = rng.choice([1, 2, 2, 3, 4])
        return Tiler("layout", lay=Lay(S(n), S(d)))
    a, b = rng.choice([2, 2, 4]), rng.choice([2, 2, 3, 4])
    g = a * rng.choice([1, 2, 2, 4])
    return Tiler("layout", lay=Lay((S(a), S(b)), (S(1), S(g))))


def rand_tiler(rng, rank):
    """A shape tiler (_4,_8) or a by-mode tiler <_4:_1, _8:_2> of rank 1..rank."""
    m = rng.randint(1, rank) if rng.random() < 0.3 else rank
    bymode = rng.random() < 0.45
    items = [rand_tile_item(rng, bymode) for _ in range(m)]
    if not bymode:
        return Tiler("shape", node=tuple(it.leaf for it in items))
    return Tiler("bymode", items=items)


def tile_pairs(it):
    if it.kind == "int":
        return [(it.leaf.v, 1)]
    return it.lay.pairs()


def tile_size(it):
    return prod(s for s, _ in tile_pairs(it))


def coalesced_shape(mk):
    """shape(coalesce(I_k)) of an identity mode: its leaves without the static _1s (each leaf has
    its own basis, so none merge); `_1` if none is left, the leaf if one is."""
    ls = [a for a in leaves(mk) if not (a.s and a.v == 1)]
    if not ls:
        return S(1)
    return ls[0] if len(ls) == 1 else tuple(ls)


def divide_fn(Sh, T):
    """The zipped parts: mode k < rank(T) has parts [tile_k, complement(tile_k,
    shape(coalesce(I_k)))] (const_layout's complement, which is CuTe's wherever CuTe's satisfies
    its postconditions: ga.our_complement), the other modes one part, their whole extent. None when
    a tile has no complement (a negative stride)."""
    fns = mode_fns(Sh)
    items = T.parts()
    modes = []
    for k, f in enumerate(fns):
        mk = Sh if is_leaf(Sh) else Sh[k]
        if k < len(items):
            tp = tile_pairs(items[k])
            c = ga.our_complement([(S(s), S(d)) for s, d in tp], coalesced_shape(mk))
            if c is None:
                return None
            modes.append((f, [tp, ga.vals(c)]))
        else:
            modes.append((f, [[(size(mk), 1)]]))
    return Fn(modes), len(items)


def divide_order(op, F, m):
    n = len(F.modes)
    if op == "logical_divide":
        order = [(k, j) for k in range(m) for j in (0, 1)]
    else:
        order = [(k, 0) for k in range(m)] + [(k, 1) for k in range(m)]
    return order + [(k, 0) for k in range(m, n)]


def divisible_values(rng, t, T):
    """ext_for: half the time, runtime extents of tiled modes are multiples of the tile size
    (divisible problem sizes), otherwise random (non-divisible: the predication case)."""
    if rng.random() < 0.5:
        return None
    items = T.parts()
    flat = []  # per leaf: the tile size of its mode at the leaf made a multiple of it
    if t is None or is_leaf(t):
        flat = [tile_size(items[0])] if items else [None]
    else:
        for k, mk in enumerate(t):
            nl = sum(1 for _ in tmpl_leaves(mk))
            ts = tile_size(items[k]) if k < len(items) else None
            at = 0 if rng.random() < 0.6 else nl - 1  # nested mode: its first or its last leaf
            flat += [ts if j == at else None for j in range(nl)]

    def ext_for(k):
        ts = flat[k]
        if ts is None:
            return rand_ext(rng)
        return ts * rng.choice([1, 1, 2, 2, 3, 4]) if ts <= 16 else ts
    return ext_for


def gen_divide(rng, n_rows, p_static, per_group):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng, tuple_only=rng.random() < 0.9), smode)
        rank = 1 if t is None or is_leaf(t) else len(t)
        T = rand_tiler(rng, rank)
        op = rng.choice(["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"])

        def draw(rng):
            Sh = instantiate(rng, t, divisible_values(rng, t, T))
            if Sh is None:
                return None
            r = divide_fn(Sh, T)
            if r is None:
                return None
            F, m = r
            truth = F.values(divide_order(op, F, m), limit=MAX_TRUTH * 4)
            if truth is None:
                return None
            return make_case(op, op, Sh, [("tiler", T)], "layout", truth)
        return is_static_tmpl(t), draw
    return groups(rng, n_rows, p_static, per_group, make)


def gen_local_tile(rng, n_rows, p_static, per_group):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng, min_rank=2 if rng.random() < 0.85 else 1, tuple_only=True), smode)
        T = rand_tiler(rng, len(t))
        int_coord = rng.random() < 0.15
        st = is_static_tmpl(t)
        static_coord = st and rng.random() < 0.5

        def draw(rng):
            Sh = instantiate(rng, t, divisible_values(rng, t, T))
            if Sh is None:
                return None
            r = divide_fn(Sh, T)
            if r is None:
                return None
            F, m = r
            n = len(F.modes)
            rest = [(k, 1) for k in range(m)]
            extra = [(k, 0) for k in range(m, n)]
            mk = (lambda v: S(v)) if static_coord else (lambda v: D(v))
            if int_coord:
                sizes = [F.slot_size(s) for s in rest + extra]
                c = rng.randrange(prod(sizes))
                coord, fixed, x = mk(c), {}, c
                for s, z in zip(rest + extra, sizes):
                    fixed[s] = x % z
                    x //= z
                order = [(k, 0) for k in range(m)]
            else:
                cs = [rng.randrange(F.slot_size(s)) for s in rest]
                coord = tuple(mk(v) for v in cs)
                fixed = dict(zip(rest, cs))
                order = [(k, 0) for k in range(m)] + extra
            truth = F.values(order, fixed, limit=MAX_TRUTH * 4)
            if truth is None:
                return None
            return make_case("local_tile", "local_tile", Sh, [("tiler", T), ("coord", coord)], "tensor", truth,
                             tensor=True)
        return static_coord, draw
    return groups(rng, n_rows, p_static, per_group, make)


def rand_thread_layout(rng, rank):
    """A static compact thread layout of rank 1..rank (modes sometimes nested), in col-major,
    row-major or a random order."""
    m = rank if rng.random() < 0.75 else rng.randint(1, rank)
    THR = [1, 2, 2, 2, 3, 4, 4, 4, 8, 8, 16]

    def mode():
        if rng.random() < 0.15:
            return tuple(S(rng.choice([2, 2, 4])) for _ in range(2))
        return S(rng.choice(THR))
    for _ in range(50):
        sh = tuple(mode() for _ in range(m))
        if size(sh) <= 128:
            break
    else:
        sh = tuple(S(2) for _ in range(m))
    exts = [a.v for a in leaves(sh)]
    order = list(range(len(exts)))
    r = rng.random()
    if r < 0.35:
        order = order[::-1]
    elif r < 0.6:
        rng.shuffle(order)
    st, p = [0] * len(exts), 1
    for k in order:
        st[k] = p
        p *= exts[k]
    it = iter(st)
    stride = gv.map_leaves(sh, lambda _: S(next(it)))
    if m == 1 and rng.random() < 0.5:  # a plain (non-tuple) thread layout
        return Lay(sh[0], stride[0])
    return Lay(sh, stride)


def thread_coord(thr, idx):
    """The flat coordinate of thread idx: per mode, the 1-D index j_k with sum thr_k(j_k) == idx."""
    mds = thr.modes() if not is_leaf(thr.shape) else [thr]
    tabs = [offs(md.pairs()) for md in mds]

    def rec(k, acc, sel):
        if k == len(tabs):
            return sel if acc == idx else None
        for j, o in enumerate(tabs[k]):
            r = rec(k + 1, acc + o, sel + [j])
            if r is not None:
                return r
        return None
    return rec(0, 0, [])


def gen_local_partition(rng, n_rows, p_static, per_group):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng, min_rank=2 if rng.random() < 0.85 else 1, tuple_only=True), smode)
        thr = rand_thread_layout(rng, len(t))
        m = 1 if is_leaf(thr.shape) else len(thr.shape)
        tsz = [size(thr.shape)] if is_leaf(thr.shape) else [size(x) for x in thr.shape]
        T = Tiler("shape", node=tuple(S(v) for v in tsz))
        st = is_static_tmpl(t)
        static_idx = st and rng.random() < 0.5

        def draw(rng):
            Sh = instantiate(rng, t, divisible_values(rng, t, T))
            if Sh is None:
                return None
            r = divide_fn(Sh, T)
            if r is None:
                return None
            F, mm = r
            assert mm == m
            n = len(F.modes)
            idx = rng.randrange(size(thr.shape))
            c = thread_coord(thr, idx)
            fixed = {(k, 0): c[k] for k in range(m)}
            order = [(k, 1) for k in range(m)] + [(k, 0) for k in range(m, n)]
            truth = F.values(order, fixed, limit=MAX_TRUTH * 4)
            if truth is None:
                return None
            return make_case("local_partition", "local_partition", Sh,
                             [("lay", thr), ("leaf", S(idx) if static_idx else D(idx))], "tensor", truth, tensor=True)
        return static_idx, draw
    return groups(rng, n_rows, p_static, per_group, make)


def b_values(rng, Sh, nl):
    """(extent, stride) for the nl leaves of a small right operand (non-negative strides, never 0):
    about half the time strides that look admissible against S (a prefix product of S's extents
    times a divisor of that extent, the extent fitting what is left), otherwise random."""
    exts = [e for e in (a.v for a in leaves(Sh)) if e != 1] or [1]
    for _ in range(40):
        if rng.random() < 0.55:
            vals = [ga.admissible_mode(rng, exts, max_size=64) for _ in range(nl)]
        else:
            vals = [(rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 8]), rng.choice([1, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 32]))
                    for _ in range(nl)]
        if prod(v[0] for v in vals) <= 256:
            return vals
    return [(1, 1)] * nl


B_SKELS = ["x", "x", "(x)", "(x,x)", "(x,x)", "(x,x)", "((x,x),x)", "(x,(x,x))", "(x,x,x)"]


def gen_composition(rng, n_rows, p_static, per_group):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng), smode)
        bskel = ga.parse_skel(rng.choice(B_SKELS))
        nl = sum(1 for _ in ga.leaves_of_skel(bskel))
        # static flags of B's (extent, stride) leaves, fixed for the group; static values are drawn
        # once (against a first S), runtime ones per case
        bmode = "static" if smode == "static" else rng.choice(["dynamic", "dynamic", "sshape", "mixed"])
        if bmode == "static":
            flags = [(True, True)] * nl
        elif bmode == "dynamic":
            flags = [(False, False)] * nl
        elif bmode == "sshape":
            flags = [(True, False)] * nl
        else:
            flags = [(rng.random() < 0.5, rng.random() < 0.5) for _ in range(nl)]
        S0 = instantiate(rng, t)
        if S0 is None:
            return True, lambda rng: None
        fixed = b_values(rng, S0, nl)

        def draw(rng):
            Sh = instantiate(rng, t)
            if Sh is None:
                return None
            vals = b_values(rng, Sh, nl)
            lv = [(Leaf(fs if sf else vs, sf), Leaf(fd if df else vd, df))
                  for (sf, df), (fs, fd), (vs, vd) in zip(flags, fixed, vals)]
            it = iter(lv)
            pp = ga.skel_map(bskel, lambda _: next(it))
            B = Lay(ga.pair_part(pp, 0), ga.pair_part(pp, 1))
            if size(B.shape) > 256:
                return None
            F = Fn([(crd_fn(Sh, ()), [B.pairs()])])
            truth = F.values([(0, 0)])
            return make_case("composition", "composition", Sh, [("lay", B)], "layout", truth)
        return is_static_tmpl(t) and bmode == "static", draw
    return groups(rng, n_rows, p_static, per_group, make)


def slicer_template(rng, t):
    """Per top mode: '_' (keep), 'i' (fix with a 1-D index) or, for a tuple mode, a tuple of
    '_'/'i' per sub-mode. At least one '_' and one 'i' somewhere (mostly)."""
    for _ in range(50):
        def mode(mt):
            if mt is not None and not is_leaf(mt) and rng.random() < 0.4:
                return tuple(rng.choice("_i") for _ in mt)
            return rng.choice("_i")
        c = tuple(mode(mt) for mt in t)
        fl = "".join(ga.leaves_of_skel(c))
        if "_" in fl and ("i" in fl or rng.random() < 0.05):
            return c
    return tuple("_" for _ in t)


def slice_truth(Sh, c, with_offset):
    """Kept leaves in order, the fixed modes at their coordinates."""
    kept, fixed = [], {}

    def rec(sn, cn, pre):
        if cn == "_":
            kept.extend((pre + p, a.v) for p, a in zip(leaf_paths(sn), leaves(sn)))
        elif is_leaf(cn):
            fixed.update({pre + p: v for p, v in crd_fn(sn, ())(cn.v).items()})
        else:
            for k, (se, ce) in enumerate(zip(sn, cn)):
                rec(se, ce, pre + (k,))
    rec(Sh, c, ())
    out = []
    for i in range(prod(e for _, e in kept)):
        r = dict(fixed) if with_offset else {}
        for p, e in kept:
            if i % e:
                r[p] = i % e
            i //= e
        out.append(freeze(r))
    return out


def gen_slice(rng, n_rows, p_static, per_group):
    def make(rng, smode):
        t = fill_template(rng, rand_skel(rng, tuple_only=True), smode)
        ct = slicer_template(rng, t)
        op = rng.choice(["slice", "slice_and_offset"])
        st = is_static_tmpl(t)
        static_c = st and rng.random() < 0.5

        def draw(rng):
            Sh = instantiate(rng, t)
            if Sh is None:
                return None

            def fill(cn, sn):
                if cn == "_":
                    return "_"
                if cn == "i":
                    v = rng.randrange(size(sn))
                    return S(v) if static_c else D(v)
                return tuple(fill(a, b) for a, b in zip(cn, sn))
            c = tuple(fill(a, b) for a, b in zip(ct, Sh))
            truth = slice_truth(Sh, c, op == "slice_and_offset")
            return make_case(op, op, Sh, [("slicer", c)], "so" if op == "slice_and_offset" else "layout", truth)
        return static_c, draw
    return groups(rng, n_rows, p_static, per_group, make)


def gen_coalesce(rng, n_rows, p_static, per_group):
    cs = gen_identity(rng, n_rows // 2, p_static, per_group, op="coalesce", fn="coalesce")
    return cs + gen_identity(rng, n_rows - n_rows // 2, p_static, per_group, op="filter", fn="filter")


# (name, generator, cases, share of groups whose S is all-static, cases per group with runtime
# values: they share one kernel)
GENERATORS = [
    ("identity", gen_identity, 1300, 0.65, 12),
    ("divide", gen_divide, 4600, 0.65, 12),
    ("local_tile", gen_local_tile, 1500, 0.75, 12),
    ("local_partition", gen_local_partition, 1300, 0.75, 12),
    ("composition", gen_composition, 1600, 0.65, 12),
    ("slice", gen_slice, 1200, 0.75, 10),
    ("coalesce", gen_coalesce, 1000, 0.65, 10),
    ("modes", gen_modes, 500, 0.65, 8),
]


# ---------------------------------------------------------------------------
# C++ plumbing: kernels -> translation units -> compile (dropping static_assert failures) -> run
# ---------------------------------------------------------------------------

CPP_PRELUDE = r"""// Generated by tools/oracle/gen_identity_vectors.py; compiled and run on the host.
#include <cute/tensor.hpp>
#include <cstdio>
#include <cstdlib>
using namespace cute;
#define V(k) int(v_[k])
typedef void (*Kernel)(long const*);
static const long MAXV = %d;
static void T() { std::putchar('\t'); }
// layout: print(L) TAB size TAB L(0) L(1) ...   ('-' past MAXV elements)
template <class L> void emit_layout(L const& r) {
  print(r); T(); print(size(r)); T();
  long n = long(size(r));
  if (n < 0 || n > MAXV) { std::fputs("-", stdout); return; }
  for (long i = 0; i < n; ++i) { if (i) std::putchar(' '); print(r(int(i))); }
}
// tensor over an identity tensor: origin + layout TAB size TAB t(0) t(1) ...
template <class X> void emit_tensor(X const& r) {
  print(*r.data()); std::fputs(" + ", stdout); print(r.layout()); T(); print(size(r)); T();
  long n = long(size(r));
  if (n < 0 || n > MAXV) { std::fputs("-", stdout); return; }
  for (long i = 0; i < n; ++i) { if (i) std::putchar(' '); print(r(int(i))); }
}
// slice_and_offset: offset + layout TAB size TAB offset+L(0) ...
template <class X> void emit_so(X const& so) {
  auto const& l = get<0>(so);
  auto const& o = get<1>(so);
  print(o); std::fputs(" + ", stdout); print(l); T(); print(size(l)); T();
  long n = long(size(l));
  if (n < 0 || n > MAXV) { std::fputs("-", stdout); return; }
  for (long i = 0; i < n; ++i) { if (i) std::putchar(' '); print(o + l(int(i))); }
}
""" % MAX_VALUES

CPP_MAIN = ga.CPP_MAIN

EMIT = {"layout": "emit_layout", "tensor": "emit_tensor", "so": "emit_so"}


def tu_source(kernels, dropped):
    head = CPP_PRELUDE.count("\n")
    lines = []
    for k, (cx, kind) in enumerate(kernels):
        body = 'std::fputs("#dropped", stdout);' if k in dropped else "%s(%s);" % (EMIT[kind], cx)
        lines.append("static void k%d(long const* v_) { (void)v_; %s }" % (k, body))
    table = "static Kernel table[] = {%s};" % ",".join("k%d" % k for k in range(len(kernels)))
    return CPP_PRELUDE + "\n".join(lines) + "\n" + table + "\n" + CPP_MAIN, head + 1


def compile_tu(name, kernels, inc, build_dir):
    """gen_algebra_vectors' compile loop with this file's units (a kernel is `(call, kind)`)."""
    return ga.compile_tu(name, kernels, inc, build_dir, source=tu_source, label=lambda k: k[0], attempts=8)


CRASHED = []


def run_tu(exe, inputs):
    crashed, pos = [], 0
    while pos < len(inputs):
        text = "".join(line + "\n" for _, line in inputs[pos:])
        try:
            r = subprocess.run([exe], input=text, capture_output=True, text=True, timeout=RUN_TIMEOUT)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            rc = -1
        done = out.split("\n")[:-1]
        for k, line in enumerate(done):
            case, inp = inputs[pos + k]
            kid, _, res = line.partition("\t")
            if kid != inp.split(" ")[0]:
                die("%s: output %r does not answer input %r" % (exe, line[:200], inp))
            case.result = res
        pos += len(done)
        if rc == 0:
            if pos != len(inputs):
                die("%s stopped after %d of %d inputs" % (exe, pos, len(inputs)))
            break
        c = inputs[pos][0]
        crashed.append(c)
        c.result = None
        CRASHED.append(c)
        pos += 1
    return crashed


def build_and_run(cases, inc, build_dir, jobs):
    kernels, order = {}, []
    for c in cases:
        key = (c.cxx, c.kind)
        if key not in kernels:
            kernels[key] = []
            order.append(key)
        kernels[key].append(c)
    # Kernels that CuTe may reject at compile time (its static divisibility checks: composition
    # with a static right operand, a static tile against a nested mode with static extents) get
    # units of their own, so that only those units are compiled twice.
    def risky(key):
        c = kernels[key][0]
        if c.op == "composition":
            return "Int<" in c.cxx.split("make_layout(", 1)[-1] or is_leaf(c.shape)
        if c.op.endswith("_divide") or c.op in ("local_tile", "local_partition"):
            return not is_leaf(c.shape) and any(not is_leaf(m) and any(x.s for x in leaves(m)) for m in c.shape)
        return False
    order = [k for k in order if not risky(k)] + [k for k in order if risky(k)]
    units = [("id_%03d" % (u // KERNELS_PER_TU), order[u:u + KERNELS_PER_TU])
             for u in range(0, len(order), KERNELS_PER_TU)]
    print("%d kernels for %d cases in %d units, %d jobs, in %s" % (len(order), len(cases), len(units), jobs,
                                                                   build_dir), flush=True)
    stats = {"kernels": len(order), "kernels_dropped": 0, "compile_dropped": {}, "crashed": 0}

    def one(unit):
        name, ks = unit
        exe, dropped, secs = compile_tu(name, ks, inc, build_dir)
        inputs = []
        for k, key in enumerate(ks):
            if k in dropped:
                continue
            for c in kernels[key]:
                inputs.append((c, " ".join(str(x) for x in [k] + c.vals)))
        t = time.time()
        crashed = run_tu(exe, inputs)
        dropped_cases = [c for k in dropped for c in kernels[ks[k]]]
        print("  %-8s %3d kernels (%d rejected at compile time), %5d cases, %3d crashed: compile %.0f s, run %.1f s"
              % (name, len(ks), len(dropped), len(inputs), len(crashed), secs, time.time() - t), flush=True)
        return len(dropped), dropped_cases, len(crashed)

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for nk, dc, ncr in ex.map(one, units):
            stats["kernels_dropped"] += nk
            for c in dc:
                stats["compile_dropped"][c.op] = stats["compile_dropped"].get(c.op, 0) + 1
            stats["crashed"] += ncr
    return stats


# ---------------------------------------------------------------------------
# Verdicts and the file
# ---------------------------------------------------------------------------

_NUM = re.compile(r"_?-?\d+((?:@\d+)*)")


def value_form(text):
    """CuTe's print of one value with every integer replaced by `*` (basis suffixes kept) and the
    integers: `(_0,2)` -> ('(*,*)', [0, 2]); `3@0` -> ('*@0', [3])."""
    nums = []

    def sub(m):
        nums.append(int(m.group(0).lstrip("_").split("@")[0]))
        return "*" + m.group(1)
    form = _NUM.sub(sub, text)
    return form, nums


def encode_values(texts):
    """CuTe's values at every index -> 'form|n,n n,n ...' (one form for all: they share a type)."""
    form = None
    out = []
    for t in texts:
        f, nums = value_form(t)
        if form is None:
            form = f
        elif f != form:
            die("values of one result with different forms: %r and %r" % (form, f))
        out.append(",".join(str(x) for x in nums))
    return "%s|%s" % (form, " ".join(out))


def truth_form(Sh):
    """The form of a coordinate of S: S with `*` at the leaves."""
    if is_leaf(Sh):
        return "*"
    return "(" + ",".join(truth_form(e) for e in Sh) + ")"


def encode_truth(Sh, truth):
    paths = leaf_paths(Sh)
    rows = []
    for v in truth:
        d = dict(v)
        if any(p not in paths for p in d):
            die("truth value %r outside the coordinates of %s" % (v, fmt(Sh)))
        rows.append(",".join(str(d.get(p, 0)) for p in paths))
    return "%s|%s" % (truth_form(Sh), " ".join(rows))


INCONSISTENT = []


def judge(c):
    """-> (row fields, verdict, reason) or None (left out: limits)."""
    res = c.result
    parts = res.split("\t")
    if len(parts) != 3:
        die("%s: unexpected output %r" % (c.expr, res[:300]))
    printed, sz, vals = parts
    try:
        n = int(sz.lstrip("_"))
    except ValueError:
        die("%s: bad size %r" % (c.expr, sz))
    if n > MAX_CUTE_SIZE:
        return None
    try:
        from_print = eval_printed(printed, MAX_CUTE_SIZE)
    except (ValueError, IndexError) as e:
        die("%s: cannot parse CuTe's result %r: %s" % (c.expr, printed, e))
    if from_print is None or len(from_print) != n:
        die("%s: size %s disagrees with CuTe's print %r" % (c.expr, sz, printed))
    if vals != "-":
        texts = vals.split(" ")
        if len(texts) != n:
            die("%s: %d values for size %d" % (c.expr, len(texts), n))
        try:
            recorded = [freeze(value_of(parse_full(t))) for t in texts]
        except (ValueError, IndexError) as e:
            die("%s: cannot parse CuTe's values: %s" % (c.expr, e))
        if recorded != from_print:
            INCONSISTENT.append(c.expr)
        cute_fn, vfield = recorded, encode_values(texts)
    else:
        cute_fn, vfield = from_print, "-"
    truth = c.truth
    if cute_fn == truth:
        verdict, reason, tfield = "ok", None, "-"
    else:
        if len(truth) > MAX_TRUTH:
            return None
        verdict = "wrong"
        reason = "size differs" if len(cute_fn) != len(truth) else "values differ"
        tfield = encode_truth(c.shape, truth)
    return [c.op, c.expr, printed, sz, verdict, vfield, tfield], verdict, reason


def file_header():
    return "".join("# %s\n" % l for l in [
        "Generated by tools/oracle/gen_identity_vectors.py from CuTe C++ (cutlass %s). Do not edit." % CUTLASS_VERSION,
        "Regenerate with: python3 tools/oracle/gen_identity_vectors.py   (format: tools/oracle/README.md,"
        " \"Identity vectors\")",
        "op<TAB>expression<TAB>CuTe's print<TAB>CuTe's size<TAB>verdict (ok|wrong)<TAB>CuTe's values<TAB>truth",
        "values: form|v v v ... (form: CuTe's print of a value with `*` for its integers; each v: those"
        " integers, comma-separated), or - past %d elements" % MAX_VALUES,
        "truth (wrong rows): the mathematical values, form|v v v ... with the form of a coordinate of S;"
        " - for ok rows",
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every count (for quick trials)")
    ap.add_argument("--keep-build", metavar="DIR", help="build in DIR and keep the C++ sources")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 2))
    ap.add_argument("--out", default=OUT_FILE, help="output file (default tests/data/cute_identity.txt)")
    args = ap.parse_args()
    t0 = time.time()
    inc, _ = gv.oracle_env()
    build_dir = args.keep_build or tempfile.mkdtemp(prefix="cute_identity_")
    os.makedirs(build_dir, exist_ok=True)

    cases, seen = [], set()
    for name, gen, n, p_static, per_group in GENERATORS:
        rng = random.Random("%d-%s" % (SEED, name))
        got = gen(rng, max(1, int(n * args.scale)), p_static, per_group)
        k = 0
        for c in got:
            if c.expr in seen:
                continue
            seen.add(c.expr)
            if ga.expr_all_static(c.expr) != (not c.vals):
                die("static-ness rule disagrees for %s" % c.expr)
            cases.append(c)
            k += 1
        print("%-16s %6d cases (%d all-static)" % (name, k, sum(1 for c in got if not c.vals)), flush=True)
    t1 = time.time()
    print("cases generated in %.0f s" % (t1 - t0), flush=True)

    stats = build_and_run(cases, inc, build_dir, args.jobs)
    t2 = time.time()

    rows, counts, limits = [], {}, {}
    for c in cases:
        if c.result is None:
            continue
        j = judge(c)
        if j is None:
            limits[c.op] = limits.get(c.op, 0) + 1
            continue
        fields, v, reason = j
        st = counts.setdefault(c.op, {"rows": 0, "ok": 0, "wrong": 0, "static": 0, "values": 0, "reasons": {}})
        st["rows"] += 1
        st[v] += 1
        st["static"] += not c.vals
        st["values"] += fields[5] != "-"
        if reason:
            st["reasons"][reason] = st["reasons"].get(reason, 0) + 1
        rows.append("\t".join(fields))
    if INCONSISTENT:
        print("WARNING: %d results whose values disagree with their print, e.g. %s" % (
            len(INCONSISTENT), INCONSISTENT[:3]))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    gv.write_atomically(args.out, file_header() + "".join(r + "\n" for r in rows))
    crashed = {}
    for c in CRASHED:
        crashed[c.op] = crashed.get(c.op, 0) + 1
    print("\nop                  rows     ok  wrong  static values  dropped: compile crash limits")
    for op in OPS:
        st = counts.get(op)
        if not st:
            continue
        print("%-17s %6d %6d %6d %7d %6d %17d %6d %6d" % (
            op, st["rows"], st["ok"], st["wrong"], st["static"], st["values"], stats["compile_dropped"].get(op, 0),
            crashed.get(op, 0), limits.get(op, 0)))
        for r, k in sorted(st["reasons"].items(), key=lambda kv: -kv[1]):
            print("%19s %6d  %s" % ("", k, r))
    for c in CRASHED[:5]:
        print("crashed: %s" % c.expr)
    print("%d kernels (%d rejected at compile time); %d rows, %d bytes" % (
        stats["kernels"], stats["kernels_dropped"], len(rows), os.path.getsize(args.out)))
    if not args.keep_build:
        shutil.rmtree(build_dir, ignore_errors=True)
    print("done in %.0f s (generation %.0f s, C++ %.0f s, verdicts %.0f s)" % (
        time.time() - t0, t1 - t0, t2 - t1, time.time() - t2))


if __name__ == "__main__":
    main()
