#!/usr/bin/env python3
"""Generate tests/data/cute_composition_gaps.txt: CuTe C++ on the inputs of the algebra's former gaps.

Usage:  python3 tools/oracle/gen_composition_gaps.py [--scale X] [--keep-build DIR] [--jobs N] [--out FILE]

Three groups of cases, random operands of rank 1-3 and depth <= 2 that include one-mode tuples
`(x)`, static, runtime and mixed leaves:

- `rank1`: blocked_product, raked_product, logical/zipped/tiled/flat_product and
  logical/zipped/tiled/flat_divide, tile_to_shape, where a one-mode tuple meets a scalar (and some
  controls of higher rank). CuTe's zip does not compile for a tuple first element against a scalar
  (`blocked_product((_5):(_1), _6:_1)`): those rows say `refused` and carry the mathematical
  function, which the rank-1 result must be.
- `basis`: composition(A, B) with basis strides in B (`_1@1`, `_1@0@1`, `2@0`), CuTe's
  `ScaledBasis` right-hand side (`E<1>{}` ... in C++).
- `fit`: composition(A, B) with extents <= 8 and strides <= 40 (A), strides <= 12 (B); CuTe's
  answer is recorded with its verdict; the Rust test also brute-forces refusals.

The oracle and plumbing are gen_algebra_vectors.py's (imported, not changed): kernels with runtime
slots V(k), units compiled in parallel, static_assert failures dropped (here recorded as
`refused`), crashes dropped. Output format, one row per case, TAB-separated:

    group  expression  CuTe's print | refused  verdict (ok|wrong|refused)  truth

truth: the offsets of the mathematical result at i = 0, 1, ... (every row; `-` where the result
would have more than 1024 elements). Deterministic (fixed SEED); the file is replaced atomically.
"""

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from math import prod

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vectors as gv  # noqa: E402
import gen_algebra_vectors as ga  # noqa: E402
from gen_vectors import Leaf, is_leaf, leaves  # noqa: E402
from gen_algebra_vectors import Lay, Tiler, S, D, offs, ev  # noqa: E402

OUT_FILE = os.path.join(gv.DATA_DIR, "cute_composition_gaps.txt")
SEED = 20261124
MAX_TRUTH = 1024
GROUPS = ["rank1", "basis", "fit"]


# ---- operands -------------------------------------------------------------------------------

def rand_skel(rng, one_p=0.35, scalar_p=0.25):
    """Rank 1-3, depth <= 2: a scalar, a one-mode tuple, or 2-3 modes, each a leaf or a tuple of
    1-3 leaves."""
    r = rng.random()
    if r < scalar_p:
        return "x"
    if r < scalar_p + one_p:
        return ("x",) if rng.random() < 0.7 else (tuple("x" for _ in range(rng.randint(1, 3))),)
    return tuple("x" if rng.random() < 0.7 else tuple("x" for _ in range(rng.randint(1, 3)))
                 for _ in range(rng.randint(2, 3)))


def with_flags(rng, lay, mode):
    return ga.set_static(rng, lay, mode)


def compact_layout(rng, sk, max_size, smode="compact"):
    return ga.fill_layout(rng, sk, max_size=max_size, neg=False, zero=False, smode=smode,
                          ext=lambda r: r.choice([1, 2, 2, 3, 4, 4, 5, 6, 8]))


def flag_mode(rng):
    return rng.choice(["static", "static", "mixed", "dynamic"])


def truth_text(truth):
    if truth is None or len(truth) > MAX_TRUTH:
        return None
    return ",".join(str(x) for x in truth)


class Row:
    """A case with its truth (the Rust test reads it for every row)."""

    def __init__(self, group, case, truth):
        self.group, self.case, self.truth = group, case, truth


# ---- rank-1 products and divides --------------------------------------------------------------

PRODUCTS = ["blocked_product", "raked_product", "logical_product", "zipped_product", "tiled_product",
            "flat_product"]
DIVIDES = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]


def gen_rank1(rng, n):
    rows = []
    for i in range(n):
        kind = i % 3
        mode = flag_mode(rng)
        if kind == 0:  # products
            fn = PRODUCTS[(i // 3) % len(PRODUCTS)]
            ska, skb = rand_skel(rng), rand_skel(rng)
            if fn not in ("blocked_product", "raked_product") and rng.random() < 0.5:
                skb = "x"
            A = with_flags(rng, compact_layout(rng, ska, 32), mode)
            B = with_flags(rng, ga.fill_layout(rng, skb, max_size=16, neg=False, zero=False,
                                               ext=lambda r: r.choice([1, 2, 3, 4])), mode)
            if not is_leaf(A.shape) and len(list(leaves(A.shape))) > 1:
                A = Lay(A.shape, ga.restatic(A.stride, True))  # CuTe's complement: static strides
            if fn in ("blocked_product", "raked_product"):
                r = max(A.rank(), B.rank())
                if ga.cute_complement_rejects(ga.concat(ga.pad_modes(A, r))):
                    continue
                truth = ga.blocked_truth(A, B, fn == "raked_product")
            else:
                if ga.block_complement_rejects(A, Tiler("layout", lay=B)):
                    continue
                form = "logical" if fn.startswith("logical") else "zipped"
                truth = ga.tiled_truth(ga.prod_units, A, Tiler("layout", lay=B), form)
            if truth is None:
                continue  # no complement of the block: another part of the issue
            case = ga.product_case(fn, A, Tiler("layout", lay=B))
        elif kind == 1:  # divides by a layout tiler
            fn = DIVIDES[(i // 3) % len(DIVIDES)]
            A = with_flags(rng, compact_layout(rng, rand_skel(rng), 64, smode=rng.choice(["compact", "mixed"])), mode)
            T = compact_layout(rng, rand_skel(rng), 8)
            T = with_flags(rng, T, mode)
            if not is_leaf(T.shape) and len(list(leaves(T.shape))) > 1:
                T = Lay(T.shape, ga.restatic(T.stride, True))
            if ga.tiler_complement_rejects(Tiler("layout", lay=T)):
                continue
            form = "logical" if fn.startswith("logical") else "zipped"
            try:
                truth = ga.tiled_truth(ga.div_units, A, Tiler("layout", lay=T), form)
            except ga.Skip:
                continue
            if truth is None:
                continue
            case = ga.divide_case(fn, A, Tiler("layout", lay=T))
        else:  # tile_to_shape with one-mode tuples on either side
            L = compact_layout(rng, rand_skel(rng, scalar_p=0.4, one_p=0.4), 16)
            r = max(L.rank(), rng.choice([1, 1, 2]))
            blk = [m.size() for m in ga.pad_modes(L, r)]
            trg = tuple(Leaf(b * rng.choice([1, 2, 3]), True) for b in blk)
            if r == 1 and rng.random() < 0.5:
                trg = trg[0]  # an integer target
            L = with_flags(rng, L, mode)
            if not is_leaf(L.shape) and len(list(leaves(L.shape))) > 1:
                L = Lay(L.shape, ga.restatic(L.stride, True))
            if ga.cute_complement_rejects(ga.concat(ga.pad_modes(L, r))):
                continue
            trg_t = trg if isinstance(trg, tuple) else (trg,)
            truth = ga.blocked_truth(L, ga.ordered_layout([gv.size(t) // b for t, b in zip(trg_t, blk)],
                                                          list(range(r))), False)
            if truth is None:
                continue
            case = ga.call("rank1", "tile_to_shape", [("lay", L), ("node", trg)], lambda r: ("ok", None, None))
        case.family = "rank1"
        rows.append(Row("rank1", case, truth))
    return rows


# ---- basis-strided right operands ------------------------------------------------------------

class BasisEm(ga.Em):
    """Emits basis strides: a stride leaf is (value Leaf, path tuple)."""

    def bleaf(self, v, path):
        e = "E<%s>{}" % ",".join(str(p) for p in path)
        at = "".join("@%d" % p for p in reversed(path))
        if v.s:
            if v.v == 1:
                return "_1" + at, e
            return "_%d%s" % (v.v, at), "(Int<%d>{} * %s)" % (v.v, e)
        self.vals.append(v.v)
        return "%d%s" % (v.v, at), "(V(%d) * %s)" % (len(self.vals) - 1, e)

    def bnode(self, x):
        if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], Leaf) and isinstance(x[1], tuple) \
                and all(isinstance(p, int) for p in x[1]):
            return self.bleaf(*x)
        p = [self.bnode(e) for e in x]
        return "(" + ",".join(a for a, _ in p) + ")", "make_tuple(" + ",".join(b for _, b in p) + ")"


def sub_pairs(A, path):
    """The flat (extent, stride) pairs of mode `path` of A (a scalar's mode 0 is itself)."""
    s, d = A.shape, A.stride
    for p in path:
        if is_leaf(s):
            if p != 0:
                return None
            continue
        if p >= len(s):
            return None
        s, d = s[p], d[p]
    return Lay(s, d).pairs()


def basis_truth(A, bshape, bstride):
    """A(B(i)) for every i: B's leaves add c*k to the coordinate at their path; A reads each path
    as a 1-D index into that mode (its last leaf extending)."""
    bl = list(leaves(bshape))
    st = []

    def walk(x):
        if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], Leaf) and isinstance(x[1], tuple) \
                and all(isinstance(p, int) for p in x[1]):
            st.append(x)
        else:
            for e in x:
                walk(e)
    walk(bstride)
    n = prod(l.v for l in bl)
    out = []
    for i in range(n):
        comp, rest = {}, i
        for k, (e, (v, path)) in enumerate(zip(bl, st)):
            c = rest % e.v if k + 1 < len(bl) else rest
            rest //= e.v
            comp[path] = comp.get(path, 0) + c * v.v
        total = 0
        for path, x in comp.items():
            pairs = sub_pairs(A, path)
            if pairs is None:
                return None
            total += ev(pairs, x)
        out.append(total)
    return out


def gen_basis(rng, n):
    rows = []
    for i in range(n):
        mode = flag_mode(rng)
        ska = rand_skel(rng, one_p=0.1, scalar_p=0.05)
        A = with_flags(rng, ga.fill_layout(rng, ska, max_size=256, neg=False, zero=False,
                                           smode=rng.choice(["compact", "random"]),
                                           ext=lambda r: r.choice([2, 2, 3, 4, 4, 6, 8])), mode)
        # candidate paths: top modes, and the modes of tuple modes
        paths = []
        for k, m in enumerate(A.modes()):
            if is_leaf(m.shape):
                paths.append((k,))
            else:
                paths += [(k, j) for j in range(len(m.shape))]
                if rng.random() < 0.3:
                    paths.append((k,))
        # a set of paths none of which is a prefix of another
        rng.shuffle(paths)
        chosen = []
        for p in paths:
            if all(p[:len(q)] != q and q[:len(p)] != p for q in chosen):
                chosen.append(p)
        skb = rand_skel(rng, one_p=0.2, scalar_p=0.0)
        bl = list(ga.leaves_of_skel(skb))
        if len(bl) < 2 and skb != "x":
            pass
        exts = [rng.choice([1, 2, 2, 3, 4]) for _ in bl]
        vals = [rng.choice([1, 1, 1, 2, 3]) for _ in bl]
        it = iter(range(len(bl)))
        used = [rng.choice(chosen) for _ in bl]
        flags = [mode == "static" or (mode == "mixed" and rng.random() < 0.5) for _ in bl]

        def leaf(_):
            k = next(it)
            return (Leaf(exts[k], flags[k] or mode == "static"), (Leaf(vals[k], flags[k]), used[k]))
        pairs = ga.skel_map(skb, leaf)

        def part(p, k):
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], Leaf):
                return p[k]
            return tuple(part(e, k) for e in p)
        bshape, bstride = part(pairs, 0), part(pairs, 1)
        truth = basis_truth(A, bshape, bstride)
        if truth is None:
            continue
        em = BasisEm()
        ea, ca = em.lay(A)
        es, cs = em.node(bshape)
        ed, cd = em.bnode(bstride)
        expr = "composition(%s, %s:%s)" % (ea, es, ed)
        cxx = "composition(%s, make_layout(%s,%s))" % (ca, cs, cd)
        case = ga.Case("basis", expr, cxx, em.vals, lambda r: ("ok", None, None))
        rows.append(Row("basis", case, truth))
    return rows


# ---- compositions that the sufficient conditions refuse ---------------------------------------

def gen_fit(rng, n):
    rows = []
    for i in range(n):
        mode = flag_mode(rng)
        ext = lambda r: r.choice([1, 2, 2, 3, 4, 5, 6, 7, 8])  # noqa: E731
        A = ga.fill_layout(rng, rand_skel(rng, one_p=0.15, scalar_p=0.15), max_size=512, neg=False, zero=True,
                           smode="random", ext=ext)
        A = Lay(A.shape, gv.map_leaves(A.stride, lambda l: Leaf(rng.randint(0, 40), l.s)))
        B = ga.fill_layout(rng, rand_skel(rng, one_p=0.15, scalar_p=0.2), max_size=256, neg=False, zero=False,
                           smode="random", ext=ext)
        B = Lay(B.shape, gv.map_leaves(B.stride, lambda l: Leaf(rng.randint(1, 12), l.s)))
        A, B = with_flags(rng, A, mode), with_flags(rng, B, mode)
        truth = [ev(A.pairs(), x) for x in offs(B.pairs())]
        case = ga.call("fit", "composition", [("lay", A), ("lay", B)], lambda r: ("ok", None, None))
        case.family = "fit"
        rows.append(Row("fit", case, truth))
    return rows


GENERATORS = {"rank1": (gen_rank1, 1500), "basis": (gen_basis, 400), "fit": (gen_fit, 600)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--keep-build", metavar="DIR")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=OUT_FILE)
    args = ap.parse_args()
    t0 = time.time()
    inc, _ = gv.oracle_env()
    build_dir = args.keep_build or tempfile.mkdtemp(prefix="cute_gaps_")
    os.makedirs(build_dir, exist_ok=True)
    rows, seen = [], set()
    for g in GROUPS:
        gen, n = GENERATORS[g]
        rng = random.Random("%d-%s" % (SEED, g))
        for r in gen(rng, max(1, int(n * args.scale))):
            if r.case.expr in seen:
                continue
            seen.add(r.case.expr)
            rows.append(r)
    print("%d cases" % len(rows), flush=True)
    ga.FAMILIES = GROUPS  # build_and_run groups units by family
    for r in rows:
        r.case.family = r.group
    stats = ga.build_and_run([r.case for r in rows], inc, build_dir, args.jobs)
    out, counts = [], {}
    for r in rows:
        c = r.case
        truth = truth_text(r.truth)
        if c.result is None:
            # Dropped at compile time (a static_assert) or crashed: CuTe gives no answer.
            if c.expr in ga.CRASHED.get(r.group, []):
                continue
            cute, verdict = "refused", "refused"
        else:
            cute = c.result
            try:
                res = ga.parse_result(cute)
            except ValueError:
                continue
            if res[0] != "layout":
                continue
            lay = res[1]
            if prod(max(a.v, 0) for a in leaves(lay.shape)) > 65536 or ga.nnodes(lay.shape) > 64:
                continue
            verdict = "ok" if r.truth is not None and offs(lay.pairs()) == r.truth else "wrong"
        if truth is None:
            continue
        counts[(r.group, verdict)] = counts.get((r.group, verdict), 0) + 1
        out.append("\t".join([r.group, c.expr, cute, verdict, truth]))
    head = "".join("# %s\n" % l for l in [
        "Generated by tools/oracle/gen_composition_gaps.py from CuTe C++ (cutlass %s). Do not edit." % gv.CUTLASS_VERSION,
        "group<TAB>expression<TAB>CuTe's print or `refused`<TAB>verdict (ok|wrong|refused)<TAB>truth offsets",
    ])
    gv.write_atomically(args.out, head + "".join(l + "\n" for l in out))
    for k in sorted(counts):
        print("%-6s %-8s %5d" % (k[0], k[1], counts[k]))
    print(stats)
    if not args.keep_build:
        shutil.rmtree(build_dir, ignore_errors=True)
    print("done in %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
