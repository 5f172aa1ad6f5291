#!/usr/bin/env python3
"""Reads Nsight Compute's raw CSV (`ncu --csv --page raw`, ncu.sh's run of `bench.py --once`) and
prints, per kernel, the executed instructions per thread (smsp__sass_thread_inst_executed.sum /
launch__thread_count) and per warp (smsp__inst_executed.sum / warps) of ours and of the twin, their
ratio, and the DRAM bytes read and written against the bytes the kernel must move.

usage: ncu_report.py FILE [FILE ...]   (the first file with ncu's CSV header is read; ncu's own
                                       `==PROF==` lines and the application's output are skipped)
"""
import csv
import io
import sys

PAIRS = [("softmax", "softmax_f32", "softmax_twin", 2 * 16384 * 4096 * 4),
         ("layernorm", "layernorm_f32", "layernorm_twin", 2 * 16384 * 4096 * 4 + 2 * 4096 * 4),
         ("transpose", "transpose_batched_f32", "transpose_twin", 2 * 64 * 2048 * 2048 * 4)]
PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def number(text, unit=""):
    """A CSV value as a float (thousands separators dropped), scaled by a unit's SI prefix
    (`Mbyte`: 1e6); None if it is not a number."""
    t = (text or "").replace(",", "").strip()
    try:
        v = float(t)
    except ValueError:
        return None
    u = (unit or "").strip()
    if len(u) > 1 and u[0] in PREFIX and u[1:] in ("byte", "inst", "thread", "warp", "cycle"):
        v *= PREFIX[u[0]]
    return v


def read(paths):
    """[{column: value}] of the profiled kernels, values scaled to base units, from the first file
    with ncu's CSV header."""
    for path in paths:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        lines = [l for l in text.splitlines() if l.startswith('"')]
        head = next((i for i, l in enumerate(lines) if "launch__thread_count" in l and "Kernel Name" in l), None)
        if head is None:
            continue
        rows = list(csv.reader(io.StringIO("\n".join(lines[head:]))))
        keys = rows[0]
        units = {}
        out = []
        for r in rows[1:]:
            if len(r) != len(keys):
                continue
            v = dict(zip(keys, r))
            if not v.get("ID", "").strip().isdigit():  # the units row
                units = v
                continue
            out.append({k: (number(x, units.get(k, "")) if k.startswith(("launch__", "smsp__", "dram__")) else x)
                        for k, x in v.items()})
        return out
    return []


def per_kernel(rows):
    """{kernel name: its first profiled launch}."""
    out = {}
    for r in rows:
        name = r.get("Kernel Name", "").split("(")[0].strip()
        out.setdefault(name, r)
    return out


def figures(r):
    threads = r.get("launch__thread_count") or 0
    inst = r.get("smsp__sass_thread_inst_executed.sum")
    warp_inst = r.get("smsp__inst_executed.sum")
    return {
        "threads": threads,
        "inst_per_thread": inst / threads if inst is not None and threads else None,
        "inst_per_warp": warp_inst / (threads / 32) if warp_inst is not None and threads else None,
        "dram_read": r.get("dram__bytes_read.sum"),
        "dram_write": r.get("dram__bytes_write.sum"),
    }


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def report(rows):
    k = per_kernel(rows)
    lines = ["| kernel | threads | inst/thread ours | inst/thread twin | ours/twin | inst/warp ours | inst/warp twin | "
             "ours/twin | DRAM read+write MB ours | twin | ideal MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    missing = []
    for label, o, t, ideal in PAIRS:
        if o not in k or t not in k:
            missing.append(f"{label}: profiled {o}: {o in k}, {t}: {t in k}")
            continue
        a, b = figures(k[o]), figures(k[t])
        ratio = lambda x, y: "-" if x is None or not y else f"{x / y:.3f}"
        mb = lambda f: "-" if f["dram_read"] is None or f["dram_write"] is None else \
            f"{(f['dram_read'] + f['dram_write']) / 1e6:.1f}"
        lines.append(f"| {label} | {int(a['threads'])} | {fmt(a['inst_per_thread'])} | {fmt(b['inst_per_thread'])} | "
                     f"{ratio(a['inst_per_thread'], b['inst_per_thread'])} | {fmt(a['inst_per_warp'])} | "
                     f"{fmt(b['inst_per_warp'])} | {ratio(a['inst_per_warp'], b['inst_per_warp'])} | {mb(a)} | {mb(b)} | "
                     f"{ideal / 1e6:.1f} |")
    return "\n".join(lines), missing


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    rows = read(sys.argv[1:])
    if not rows:
        print(f"ncu_report: no ncu CSV with launch__thread_count in {sys.argv[1:]}")
        return 1
    text, missing = report(rows)
    print(text)
    for m in missing:
        print(f"- missing: {m}")
    print(f"- kernels profiled: {', '.join(sorted(per_kernel(rows)))}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
