#!/usr/bin/env python3
"""Generate tests/data/cute_swizzle_slice.txt: `slice` and `slice_and_offset` of swizzled
(composed) layouts, answered by CuTe C++ itself (cutlass 4.2.0.0 headers, compiled with g++).

    python3 tools/oracle/gen_swizzle_slice_vectors.py [--jobs 2] [--keep-build DIR] [--out FILE]

Deterministic: fixed seed `SEED`. Needs g++ (C++17) and the CuTe headers under $ORACLE
(default /tmp/oracle; `tools/oracle/setup.sh` installs them).

Cases: swizzles Sw<B,M,S> with B in 1..3, M in 0..4, S in +-(B..B+3); inner layouts are static
2-D tiles (row-major, column-major, one or both modes nested, rarely a padded leading stride)
whose size is near 2^(M+B+|S|), the span of the swizzle's bits; about 8% have an offset between
swizzle and layout (`composition(Sw<..>, _16, L)`, static or runtime). Coordinates fix one mode
(`(_,k)`, `(k,_)`), or leaves of nested modes (`(_,(k,_))`, `((_,k),j)`, ...), with static (`_k`)
or runtime (`k`) integers; a few are all `_` and a few fix everything (CuTe rejects these: it cannot
build the empty sliced layout; they are dropped and counted). Each case gives two rows: `slice`
and `slice_and_offset`.

Every case is compiled; cases CuTe rejects at compile time are found from g++'s diagnostics (the
line of the case) or by bisection, dropped, and counted in the header.

Row format (TAB-separated; lines starting with `#` are comments):

    op  expr  static  layout  offset_text  offset  values  exact  truth

op:          slice | slice_and_offset
expr:        the expression in `const_layout::eval::eval` syntax
static:      yes if every integer in the expression is static (`_N`), else no
layout:      CuTe's print of `slice(c, L)` or of `get<0>(slice_and_offset(c, L))`
offset_text: CuTe's print of `get<1>(slice_and_offset(c, L))` (`-` for slice)
offset:      its integer value (`-` for slice)
values:      the layout's values at i = 0 .. size-1 (space-separated), computed by CuTe
exact:       `yes` if CuTe's slice_and_offset of this case (offset + layout(i)) equals the original
             function Sw(offset0 + L(coord with i in the `_` modes)) for every i (computed here in
             Python), else `no` (CuTe's decay assumes the fixed part and the kept part of the offset
             never carry into each other; both rows of a case carry the same flag)
truth:       where exact is `no`, the original function's values at i = 0 .. size-1; else `-`
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

SEED = 20240611
N_CASES = 760          # each gives 2 rows
UNIT = 40              # cases per translation unit
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.environ.get("ORACLE", "/tmp/oracle")
INCS = [
    f"{ORACLE}/ext/nvidia/cuda_cccl/include",
    f"{ORACLE}/ext/cutlass_library/source/include",
    f"{ORACLE}/ext/nvidia/cuda_runtime/include",
    f"{ORACLE}/ext/nvidia/cuda_nvcc/include",
]

# ---- values ---------------------------------------------------------------------------------
# A layout is (shape, stride): nested tuples of ints (all static here).
# A coordinate is a nested tuple of leaves: None for `_`, or (value, is_static).


def leaves(t):
    if isinstance(t, tuple) and not (len(t) == 2 and isinstance(t[1], bool) and isinstance(t[0], int)):
        for x in t:
            yield from leaves(x)
    else:
        yield t


def fmt_shape(t):
    if isinstance(t, tuple):
        return "(" + ",".join(fmt_shape(x) for x in t) + ")"
    return f"_{t}"


def cpp_shape(t):
    if isinstance(t, tuple):
        return "make_shape(" + ",".join(cpp_shape(x) for x in t) + ")"
    return f"Int<{t}>{{}}"


def cpp_stride(t):
    if isinstance(t, tuple):
        return "make_stride(" + ",".join(cpp_stride(x) for x in t) + ")"
    return f"Int<{t}>{{}}"


def is_crd_leaf(c):
    return c is None or (isinstance(c, tuple) and len(c) == 2 and isinstance(c[1], bool))


def fmt_coord(c):
    if c is None:
        return "_"
    if is_crd_leaf(c):
        v, st = c
        return f"_{v}" if st else f"{v}"
    return "(" + ",".join(fmt_coord(x) for x in c) + ")"


def cpp_coord(c):
    if c is None:
        return "_"
    if is_crd_leaf(c):
        v, st = c
        return f"Int<{v}>{{}}" if st else f"{v}"
    return "make_coord(" + ",".join(cpp_coord(x) for x in c) + ")"


def swizzle_apply(b, m, s, x):
    msk = (1 << b) - 1
    yyy = msk << (m + max(0, s))
    y = x & yyy
    return x ^ (y >> s if s >= 0 else y << -s)


def coord_static(c):
    if c is None:
        return True
    if is_crd_leaf(c):
        return c[1]
    return all(coord_static(x) for x in c)


def kept_and_fixed(coord, shape, stride):
    """The kept leaves (extent, stride) in order and the fixed part of the offset."""
    kept, fixed = [], 0

    def walk(c, sh, st):
        nonlocal fixed
        if c is None:
            if isinstance(sh, tuple):
                for a, b in zip(flat(sh), flat(st)):
                    kept.append((a, b))
            else:
                kept.append((sh, st))
        elif is_crd_leaf(c):
            # An integer for a (possibly nested) mode: colexicographic.
            v = c[0]
            for a, b in zip(flat(sh), flat(st)):
                fixed += (v % a) * b
                v //= a
        else:
            for x, y, z in zip(c, sh, st):
                walk(x, y, z)

    walk(coord, shape, stride)
    return kept, fixed


def flat(t):
    if isinstance(t, tuple):
        out = []
        for x in t:
            out.extend(flat(x))
        return out
    return [t]


def original_values(case):
    b, m, s = case["sw"]
    kept, fixed = kept_and_fixed(case["coord"], case["shape"], case["stride"])
    n = 1
    for e, _ in kept:
        n *= e
    out = []
    for i in range(n):
        x, r = 0, i
        for e, d in kept:
            x += (r % e) * d
            r //= e
        out.append(swizzle_apply(b, m, s, case["off"][0] + fixed + x))
    return out


# ---- random cases -------------------------------------------------------------------------


def swizzles():
    out = []
    for b in range(1, 4):
        for m in range(0, 5):
            for a in range(b, b + 4):
                out.append((b, m, a))
                out.append((b, m, -a))
    return out


def split(rng, n, lo=1):
    """Split exponent n into two parts each >= lo (n >= 2*lo)."""
    a = rng.randint(lo, n - lo)
    return a, n - a


def rand_layout(rng, span):
    """A static 2-D tile of size 2^n, n near span; returns (shape, stride, kind)."""
    n = max(2, min(12, span + rng.choice([-1, 0, 0, 0, 1])))
    kind = rng.choice(["row", "row", "col", "col", "row_nested", "col_nested", "both_nested"])
    if kind in ("row_nested", "col_nested", "both_nested") and n < 3:
        kind = "row"
    if kind == "both_nested" and n < 4:
        kind = "row_nested"
    pad = 0
    if rng.random() < 0.04:
        pad = rng.choice([1, 2, 4, 8, 16])
    if kind == "row":
        a, c = split(rng, n)
        shape = (1 << a, 1 << c)
        stride = ((1 << c) + pad, 1)
    elif kind == "col":
        a, c = split(rng, n)
        shape = (1 << a, 1 << c)
        stride = (1, (1 << a) + pad)
    elif kind == "row_nested":
        # (R,(C0,C1)):(ld,(1,C0)) as (8,(8,8)):(64,(1,8))
        a, c = split(rng, n, 1)
        if c < 2:
            a, c = n - 2, 2
        c0, c1 = split(rng, c)
        shape = (1 << a, (1 << c0, 1 << c1))
        stride = ((1 << c) + pad, (1, 1 << c0))
    elif kind == "col_nested":
        # ((R0,R1),C):((1,R0),ld)
        a, c = split(rng, n, 1)
        if a < 2:
            a, c = 2, n - 2
        a0, a1 = split(rng, a)
        shape = ((1 << a0, 1 << a1), 1 << c)
        stride = ((1, 1 << a0), (1 << a) + pad)
    else:
        # ((R0,R1),(C0,C1)), row-major inside: ((C*?...)) -- rows strided by the row length,
        # columns contiguous; the two halves of each mode in either order.
        a, c = split(rng, n, 2)
        a0, a1 = split(rng, a)
        c0, c1 = split(rng, c)
        C = 1 << c
        if rng.random() < 0.5:
            shape = ((1 << a0, 1 << a1), (1 << c0, 1 << c1))
            stride = ((C + pad, (C + pad) << a0), (1, 1 << c0))
        else:
            # columns outermost-first: the second column half is contiguous
            shape = ((1 << a0, 1 << a1), (1 << c0, 1 << c1))
            stride = ((C + pad, (C + pad) << a0), (1 << c1, 1))
    return shape, stride, kind


def rand_int(rng, extent, st):
    return (rng.randrange(extent), st)


def size_of(t):
    n = 1
    for x in flat(t):
        n *= x
    return n


def rand_coord(rng, shape, stat_mode):
    """A slicing coordinate for a rank-2 shape. stat_mode: 'static', 'runtime' or 'mixed'."""

    def st():
        if stat_mode == "static":
            return True
        if stat_mode == "runtime":
            return False
        return rng.random() < 0.5

    def fix(mode):
        # fix a whole mode with an integer, or leaf-wise
        if isinstance(mode, tuple) and rng.random() < 0.5:
            return tuple(rand_int(rng, x, st()) for x in mode)
        return rand_int(rng, size_of(mode), st())

    def partial(mode):
        # a nested mode: some leaves `_`, some fixed (at least one of each if possible)
        k = rng.randrange(len(mode))
        return tuple(None if i == k else rand_int(rng, x, st()) for i, x in enumerate(mode))

    r = rng.random()
    m0, m1 = shape
    if r < 0.03:
        return (None, None)  # all `_`
    if r < 0.04:
        return (fix(m0), fix(m1))  # nothing kept: CuTe rejects (dropped)
    choices = [(None, fix(m1)), (fix(m0), None)]
    if isinstance(m1, tuple):
        choices += [(None, partial(m1)), (fix(m0), partial(m1))]
    if isinstance(m0, tuple):
        choices += [(partial(m0), None), (partial(m0), fix(m1))]
    if isinstance(m0, tuple) and isinstance(m1, tuple):
        choices += [(partial(m0), partial(m1))]
    return rng.choice(choices)


def make_cases():
    rng = random.Random(SEED)
    sws = swizzles()
    cases = []
    for k in range(N_CASES):
        b, m, s = sws[k % len(sws)] if k < 2 * len(sws) else rng.choice(sws)
        span = m + b + abs(s)
        shape, stride, kind = rand_layout(rng, span)
        stat_mode = rng.choice(["static", "static", "runtime", "mixed"])
        coord = rand_coord(rng, shape, stat_mode)
        off = (0, True)
        explicit_off = rng.random() < 0.08
        if explicit_off:
            off = (rng.randrange(0, 1 << min(span + 1, 13)), rng.random() < 0.6)
        cases.append(dict(id=k, sw=(b, m, s), shape=shape, stride=stride, kind=kind, coord=coord,
                          off=off, explicit_off=explicit_off))
    return cases


def expr_of(case, op):
    b, m, s = case["sw"]
    lay = f"{fmt_shape(case['shape'])}:{fmt_shape(case['stride'])}"
    if case["explicit_off"]:
        v, st = case["off"]
        comp = f"composition(Sw<{b},{m},{s}>, {'_' if st else ''}{v}, {lay})"
    else:
        comp = f"composition(Sw<{b},{m},{s}>, {lay})"
    return f"{op}({fmt_coord(case['coord'])}, {comp})"


def cpp_of(case):
    b, m, s = case["sw"]
    lay = f"make_layout({cpp_shape(case['shape'])}, {cpp_stride(case['stride'])})"
    if case["explicit_off"]:
        v, st = case["off"]
        comp = f"composition(Swizzle<{b},{m},{s}>{{}}, {'Int<%d>{}' % v if st else str(v)}, {lay})"
    else:
        comp = f"composition(Swizzle<{b},{m},{s}>{{}}, {lay})"
    return f"run({case['id']}, {cpp_coord(case['coord'])}, {comp});"


PRELUDE = r"""#include <cute/tensor.hpp>
#include <cstdio>
using namespace cute;
template <class X> void vals(X const& x) {
  printf("\t");
  for (int i = 0; i < int(size(x)); ++i) printf(i ? " %d" : "%d", int(x(i)));
  printf("\n");
}
template <class C, class L> void run(int id, C const& c, L const& l) {
  auto s = slice(c, l);
  printf("S\t%d\t", id); print(s); vals(s);
  auto r = slice_and_offset(c, l);
  printf("R\t%d\t", id); print(get<0>(r)); printf("\t"); print(get<1>(r)); printf("\t%d", int(get<1>(r))); vals(get<0>(r));
}
int main() {
"""


def compile_unit(cases, workdir, name):
    """Compile and run cases; returns (outputs by id, dropped ids). Drops what g++ rejects."""
    cases = list(cases)
    dropped = []
    while cases:
        src = os.path.join(workdir, name + ".cpp")
        exe = os.path.join(workdir, name)
        lines = PRELUDE.count("\n") + 1
        line_of = {}
        with open(src, "w") as f:
            f.write(PRELUDE)
            for i, c in enumerate(cases):
                line_of[lines + i] = c["id"]
                f.write("  " + cpp_of(c) + "\n")
            f.write("}\n")
        p = subprocess.run(["g++", "-std=c++17", "-O1", *sum((["-I", d] for d in INCS), []), src, "-o", exe],
                           capture_output=True, text=True)
        if p.returncode == 0:
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
            return parse_output(out), dropped
        bad = set()
        base = os.path.basename(src)
        for ln in p.stderr.splitlines():
            if ln.startswith(src + ":") or ln.startswith(base + ":"):
                try:
                    n = int(ln.split(":")[1])
                except ValueError:
                    continue
                if n in line_of:
                    bad.add(line_of[n])
        if not bad:
            if len(cases) == 1:
                dropped.append(cases[0]["id"])
                return {}, dropped
            h = len(cases) // 2
            a, da = compile_unit(cases[:h], workdir, name + "a")
            b, db = compile_unit(cases[h:], workdir, name + "b")
            a.update(b)
            return a, dropped + da + db
        dropped.extend(sorted(bad))
        cases = [c for c in cases if c["id"] not in bad]
    return {}, dropped


def parse_output(out):
    res = {}
    for ln in out.splitlines():
        f = ln.split("\t")
        cid = int(f[1])
        if f[0] == "S":
            res.setdefault(cid, {})["slice"] = (f[2], "-", "-", f[3])
        else:
            res.setdefault(cid, {})["slice_and_offset"] = (f[2], f[3], f[4], f[5])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep-build")
    ap.add_argument("--from-data", help="take CuTe's answers from an earlier output file instead of compiling "
                    "(for changing the format only)")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "cute_swizzle_slice.txt"))
    args = ap.parse_args()
    if not shutil.which("g++"):
        sys.exit("g++ not found")
    if not os.path.isfile(f"{ORACLE}/ext/cutlass_library/source/include/cute/tensor.hpp"):
        sys.exit(f"CuTe headers not found under {ORACLE}; run tools/oracle/setup.sh")
    t0 = time.time()
    cases = make_cases()
    workdir = args.keep_build or tempfile.mkdtemp(prefix="cute_swslice_")
    os.makedirs(workdir, exist_ok=True)
    units = [cases[i:i + UNIT] for i in range(0, len(cases), UNIT)]
    results, dropped = {}, []
    if args.from_data:
        by_expr = {}
        for ln in open(args.from_data):
            if not ln.startswith("#") and ln.strip():
                f = ln.rstrip("\n").split("\t")
                by_expr[f[1]] = (f[3], f[4], f[5], "" if f[6] == "-" else f[6])
        for c in cases:
            got = {op: by_expr.get(expr_of(c, op)) for op in ("slice", "slice_and_offset")}
            if all(got.values()):
                results[c["id"]] = got
            else:
                dropped.append(c["id"])
    else:
        with ThreadPoolExecutor(args.jobs) as ex:
            for r, d in ex.map(lambda iu: compile_unit(iu[1], workdir, f"u{iu[0]}"), enumerate(units)):
                results.update(r)
                dropped.extend(d)
    if not args.keep_build:
        shutil.rmtree(workdir, ignore_errors=True)

    rows = []
    n_offset_form = 0
    n_exact = [0, 0]
    for c in cases:
        if c["id"] in dropped:
            continue
        r = results.get(c["id"])
        if not r or set(r) != {"slice", "slice_and_offset"}:
            sys.exit(f"case {c['id']}: incomplete output {r}")
        if c["explicit_off"]:
            n_offset_form += 1
        static = coord_static(c["coord"]) and c["off"][1]
        orig = original_values(c)
        lay, otext, oval, vals = r["slice_and_offset"]
        ok = [int(oval) + int(v) for v in vals.split()] == orig
        n_exact[0 if ok else 1] += 1
        exact = "yes" if ok else "no"
        truth = "-" if ok else " ".join(str(v) for v in orig)
        for op in ("slice", "slice_and_offset"):
            lay, otext, oval, vals = r[op]
            rows.append("\t".join([op, expr_of(c, op), "yes" if static else "no", lay, otext, oval,
                                   vals if vals else "-", exact, truth]))
    elapsed = time.time() - t0
    dropped_fully_fixed = sum(1 for c in cases if c["id"] in dropped and not any(
        x is None for x in leaves(c["coord"])))
    head = [
        "# Generated by tools/oracle/gen_swizzle_slice_vectors.py from CuTe C++ (cutlass 4.2.0.0). Do not edit.",
        "# Regenerate with: python3 tools/oracle/gen_swizzle_slice_vectors.py   (format: see the script's docstring)",
        "# op<TAB>expr<TAB>static<TAB>layout<TAB>offset_text<TAB>offset<TAB>values<TAB>exact<TAB>truth",
        f"# seed {SEED}; {len(cases)} cases generated, {len(dropped)} dropped (rejected by CuTe at compile time; "
        f"{dropped_fully_fixed} of them fix every mode), {len(cases) - len(dropped)} kept = {len(rows)} rows",
        f"# {n_offset_form} kept cases use composition(Sw, offset, L) (an explicit offset)",
        f"# cases where CuTe's slice_and_offset (offset + layout) is the original function: {n_exact[0]}; not: {n_exact[1]}",
    ]
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(head + rows) + "\n")
    os.replace(tmp, args.out)
    print("\n".join(head))
    print(f"dropped ids: {sorted(dropped)}")
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes) in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
