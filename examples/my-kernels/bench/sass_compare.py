#!/usr/bin/env python3
"""Static SASS comparison of the my-kernels kernels (ours, from the Rust PTX) and their CUDA C++
twins: instruction counts by class (tools/gpu/sass_stats.py's classes) of the whole kernel and of
the hot body, as a markdown table with the ratios ours / twin.

The kernels: softmax, layernorm, transpose (a pair missing from either file is noted, not an
error). The hot body: for softmax and layernorm the per-row loop (the largest loop, its back branch
predicated or not: the grid-stride loop); for the transpose (one matrix's tile a block, no loop)
the tile body, from its first global load through its last global store: the loads, shared
stores, the barrier, shared loads and stores, with the address arithmetic scheduled among them;
the rest of the whole kernel is the block's setup before it (indices, the Rust's checks) and the
fault path after its EXIT. Loops outside the hot body (a memcmp byte loop, say) are listed with
their counts: executed once per iteration.

usage: sass_compare.py OURS.cubin TWINS.cubin   (CUOBJDUMP: the cuobjdump to use)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "gpu"))
import sass_stats  # noqa: E402

PAIRS = [("softmax", "softmax_f32", "softmax_twin"), ("layernorm", "layernorm_f32", "layernorm_twin"),
         ("transpose", "transpose_batched_f32", "transpose_twin")]
KEYS = ["total", "int", "ffma", "fp", "lds", "sts", "ldg", "stg", "bar", "ctrl", "other"]


def loops(body):
    """[(start, end index, predicated)] of the backward branches."""
    addr = {a: i for i, (a, _, _, _) in enumerate(body)}
    out = []
    for i, (a, pred, op, text) in enumerate(body):
        if op.startswith("BRA"):
            target = text.split()[-1].rstrip(";").strip()
            try:
                t = int(target, 16)
            except ValueError:
                continue
            if t <= a and t in addr:
                out.append((addr[t], i, bool(pred)))
    return out


def hot(name, body):
    """(the hot body's instructions, [other loops' (start address, instructions)])."""
    ls = loops(body)
    if "transpose" in name:
        # The tile body: the first global load (LDG) through the last global store (STG).
        ldg = [i for i, (_, _, op, _) in enumerate(body) if op.startswith("LDG")]
        stg = [i for i, (_, _, op, _) in enumerate(body) if op.startswith("STG")]
        part = body[ldg[0]:stg[-1] + 1] if ldg and stg and ldg[0] <= stg[-1] else []
        others = [(body[s][0], body[s:e + 1]) for s, e, p in ls if p and e - s > 0]
        return part, others
    # The row loop's back branch is predicated, or unconditional with the exit test inside the
    # loop (`@P EXIT` ... `BRA` back, as LLVM may rotate a loop); a branch to itself
    # (the trailing `BRA` of the code's end) is no loop.
    cands = [(s, e) for s, e, p in ls if e > s]
    if not cands:
        return [], []
    s, e = max(cands, key=lambda x: x[1] - x[0])
    others = [(body[a][0], body[a:b + 1]) for a, b, p in ls if p and (a, b) != (s, e) and b - a > 0]
    return body[s:e + 1], others


def table(ours, twins):
    k_ours = dict(sass_stats.kernels(ours))
    k_twin = dict(sass_stats.kernels(twins))
    rows = ["| kernel | part | ours total | twin total | ours/twin | ours int | twin int | ours/twin int | ours (by class) | twin (by class) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for label, o, t in PAIRS:
        if o not in k_ours or t not in k_twin:
            notes.append(f"{label}: missing ({o} in ours: {o in k_ours}, {t} in twins: {t in k_twin})")
            continue
        bo, bt = k_ours[o], k_twin[t]
        (ho, oo), (ht, ot) = hot(o, bo), hot(t, bt)
        part = "tile body" if label == "transpose" else "row loop"
        for what, a, b in (("whole", bo, bt), (part, ho, ht)):
            ca, cb = sass_stats.counts(a), sass_stats.counts(b)
            r = lambda k: f"{ca.get(k, 0) / cb[k]:.2f}" if cb.get(k) else "-"
            rows.append(f"| {label} | {what} | {ca['total']} | {cb['total']} | {r('total')} | {ca.get('int', 0)} | "
                        f"{cb.get('int', 0)} | {r('int')} | {sass_stats.fmt(ca)} | {sass_stats.fmt(cb)} |")
        for side, others in (("ours", oo), ("twin", ot)):
            for addr, instrs in others:
                notes.append(f"{label} {side}: another loop at {addr:#06x}: {sass_stats.fmt(sass_stats.counts(instrs))}")
    return "\n".join(rows), notes


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    text, notes = table(sys.argv[1], sys.argv[2])
    print(text)
    for n in notes:
        print(f"- {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
