#!/usr/bin/env python3
"""The access model against the hardware: for every pattern below, the counts that the model
predicts (`layout conflicts` / `layout coalescing` on the pattern's explicit addresses) and the
ones Nsight Compute counts for the same instructions on the GPU, side by side, one line each.

    python3 tools/gpu/access_probe.py PROBE LAYOUT OUTDIR      (on the GPU machine; needs ncu)

PROBE is `access_probe` built from tools/gpu/access_probe.cu (`nvcc -O2 -arch=sm_90`), LAYOUT the
`layout` binary (or `-` to record the hardware's counts only). One launch a pattern, all under one
Nsight Compute session. Writes OUTDIR/probe.json (the patterns, addresses and counts) and prints
the table; exits 1 if the model and the hardware differ on any pattern.

A pattern is one warp: an operation, an access width and per-lane byte addresses for each of its
instructions (lanes left out of an instruction have no address).
"""

import csv
import json
import os
import subprocess
import sys

SKIP = None
OPS = {"ld": 0, "st": 1, "ldmatrix": 2, "stmatrix": 3, "cp.async": 4, "ld.global": 5, "st.global": 6}

# (pattern name, lane -> index): the lane's access is `index` widths from address 0.
SHARING = [
    ("distinct, consecutive", lambda l: l),
    ("every other access (stride 2)", lambda l: 2 * l),
    ("all share (broadcast)", lambda l: 0),
    ("pairs share (l, l^1)", lambda l: l // 2),
    ("quads share", lambda l: l // 4),
    ("octets share", lambda l: l // 8),
    ("halves share", lambda l: l // 16),
    ("l and l^2 share", lambda l: (l >> 2) * 2 + (l & 1)),
    ("l and l^4 share", lambda l: (l & 3) | ((l >> 3) << 2)),
    ("l and l^8 share", lambda l: (l & 7) | ((l >> 4) << 3)),
    ("l and l+16 share", lambda l: l & 15),
    ("even and odd lanes: two addresses", lambda l: l & 1),
    ("pairs share in lanes 0-15 only", lambda l: l // 2 if l < 16 else l - 8),
    ("pairs share but in quad 0", lambda l: l if l < 4 else 4 + (l - 4) // 2),
    ("pairs share in quads 0-3 only", lambda l: l // 2 if l < 16 else l - 8 if l < 24 else l - 8),
    ("three addresses a quad", lambda l: 3 * (l // 4) + [0, 0, 1, 2][l % 4]),
    ("pairs share, reversed", lambda l: 15 - l // 2),
    ("pairs share, lanes l and l^1 of odd quads only", lambda l: l // 2 * 2 if (l // 4) % 2 else l),
]

# (pattern name, lane -> byte address): conflicts by construction, any width.
CONFLICTS = [
    ("128 B apart", lambda l, w: 128 * l),
    ("pairs share, 128 B apart", lambda l, w: 128 * (l // 2)),
    ("pairs share, 64 B apart", lambda l, w: 64 * (l // 2)),
    ("quads share, 128 B apart", lambda l, w: 128 * (l // 4)),
    ("8 rows of 128 B, 4 accesses a row", lambda l, w: 128 * (l % 8) + w * (l // 8)),
    ("halves 128 B apart, consecutive within", lambda l, w: 128 * (l // 16) + w * (l % 16)),
]


def shared(op, w):
    out = []
    for name, f in SHARING:
        out.append((f"{op} {w} B, {name}", op, w, 0, [[w * f(l) for l in range(32)]]))
    for name, f in CONFLICTS:
        out.append((f"{op} {w} B, {name}", op, w, 0, [[f(l, w) for l in range(32)]]))
    return out


def narrow(op, w):
    return [
        (f"{op} {w} B, consecutive", op, w, 0, [[w * l for l in range(32)]]),
        (f"{op} {w} B, one word each", op, w, 0, [[4 * l for l in range(32)]]),
        (f"{op} {w} B, 128 B apart", op, w, 0, [[128 * l for l in range(32)]]),
        (f"{op} {w} B, broadcast", op, w, 0, [[0] * 32]),
        (f"{op} {w} B, 8 words on one bank, 4 lanes a word", op, w, 0,
         [[128 * (l // 4) + (w * l) % 4 for l in range(32)]]),
    ]


def partial(op, w):
    return [
        (f"{op} {w} B, lanes 0-15 only, consecutive", op, w, 0, [[w * l if l < 16 else SKIP for l in range(32)]]),
        (f"{op} {w} B, lane 0 only", op, w, 0, [[0 if l == 0 else SKIP for l in range(32)]]),
        (f"{op} {w} B, even lanes only, consecutive", op, w, 0, [[w * l // 2 if l % 2 == 0 else SKIP for l in range(32)]]),
    ]


def matrix(op, x, trans):
    t = ".trans" if trans else ""
    rows = [
        ("rows consecutive", lambda l: 16 * l),
        ("rows 128 B apart (8 x 64 halves)", lambda l: 128 * l),
        ("rows 128 B apart, Sw<3,4,3>", lambda l: 128 * l ^ ((l % 8) << 4)),
        ("rows 64 B apart", lambda l: 64 * l),
        ("all rows one address", lambda l: 0),
        ("pairs of rows share", lambda l: 16 * (l // 2)),
        ("rows of each matrix repeat matrix 0's", lambda l: 16 * (l % 8)),
        ("rows 256 B apart, Sw<3,4,3>", lambda l: 256 * l ^ ((l % 8) << 4)),
    ]
    return [(f"{op}.x{x}{t}, {name}", op, x, int(trans), [[f(l) for l in range(32)]]) for name, f in rows]


def cp_async():
    out = []
    for w in (4, 8, 16):
        out += [
            (f"cp.async {w} B, consecutive", "cp.async", w, 0, [[w * l for l in range(32)]]),
            (f"cp.async {w} B, 128 B apart", "cp.async", w, 0, [[128 * l for l in range(32)]]),
            (f"cp.async {w} B, 8 rows of 128 B", "cp.async", w, 0, [[128 * (l % 8) + w * (l // 8) for l in range(32)]]),
        ]
    return out


def coalescing():
    out = []
    for op in ("ld.global", "st.global"):
        out += [
            (f"{op} 4 B, consecutive", op, 4, 0, [[4 * l for l in range(32)]]),
            (f"{op} 4 B, stride 2", op, 4, 0, [[8 * l for l in range(32)]]),
            (f"{op} 4 B, a column of 32 x 32 f32 (transposed)", op, 4, 0, [[128 * l for l in range(32)]]),
            (f"{op} 4 B, misaligned by 4 B", op, 4, 0, [[4 + 4 * l for l in range(32)]]),
            (f"{op} 4 B, broadcast", op, 4, 0, [[0] * 32]),
            (f"{op} 1 B, consecutive", op, 1, 0, [[l for l in range(32)]]),
            (f"{op} 2 B, consecutive", op, 2, 0, [[2 * l for l in range(32)]]),
            (f"{op} 2 B, a column of 64-wide halves", op, 2, 0, [[128 * l for l in range(32)]]),
            (f"{op} 8 B, consecutive", op, 8, 0, [[8 * l for l in range(32)]]),
            (f"{op} 16 B, consecutive (vectorised)", op, 16, 0, [[16 * l for l in range(32)]]),
            (f"{op} 16 B, stride 2", op, 16, 0, [[32 * l for l in range(32)]]),
            (f"{op} 16 B, misaligned by 16 B", op, 16, 0, [[16 + 16 * l for l in range(32)]]),
            (f"{op} 4 B, 8 rows of 4, rows 512 B apart", op, 4, 0, [[512 * (l // 4) + 4 * (l % 4) for l in range(32)]]),
            (f"{op} 4 B, reversed", op, 4, 0, [[4 * (31 - l) for l in range(32)]]),
            (f"{op} 8 B, 24 B apart", op, 8, 0, [[24 * l for l in range(32)]]),
            (f"{op} 4 B, two instructions, consecutive", op, 4, 0, [[4 * l for l in range(32)], [128 + 4 * l for l in range(32)]]),
        ]
    return out


# Thread-value layouts over shared-memory layouts, as `layout conflicts TV SMEM` takes them: the
# model's side goes through the layouts (closed form or simulation), the probe's through their
# addresses. (name, TV layout, shared-memory layout, element bytes, values an access, op)
TF32_A = "((_4,_8),(_2,_2)):((_32,_1),(_8,_128))"  # lane l: m = l / 4, k = l % 4; values m + 8, k + 4
EVEN_ROWS = "((_8,_4),(_8,_2)):((_128,_8),(_1,_32))"  # lanes 0-7: rows 0, 2, .., 14
ROWS_0_7 = "((_8,_4),(_8,_2)):((_64,_8),(_1,_32))"  # lanes 0-7: rows 0..7
GENERAL = "linear((1,2,4,8,16,32,96,144),(264,544),10)"
LDSM = "((_8,_4),_8):((_1,_64),_8)"  # lane l: row l % 8 of 8 x 64 halves, 16-byte chunk l / 8
LAYOUTS = [
    ("a column of 32 x 32 f32", "(_32,_32):(_1,_32)", "(_32,_32):(_32,_1)", 4, 1, "ld"),
    ("a column of 32 x 32 f32, padded (32,32):(33,1)", "(_32,_32):(_1,_32)", "(_32,_32):(_33,_1)", 4, 1, "ld"),
    ("a column of 32 x 32 f32 under Sw<5,0,5>", "(_32,_32):(_1,_32)", "composition(Sw<5,0,5>, (_32,_32):(_32,_1))", 4, 1, "st"),
    ("a column of 24 x 20 halves, padded to 22", "(_24,_20):(_1,_24)", "(_24,_20):(_22,_1)", 2, 1, "ld"),
    ("a column of 24 x 20 halves, rows of 20", "(_24,_20):(_1,_24)", "(_24,_20):(_20,_1)", 2, 1, "ld"),
    ("48 threads down 48 x 36 f32 rows of 36", "(_48,_8):(_1,_48)", "(_48,_36):(_36,_1)", 4, 1, "st"),
    ("16 B rows of 8 x 64 halves, plain", LDSM, "(_8,_64):(_64,_1)", 2, 8, "ldmatrix.x4"),
    ("16 B rows of 8 x 64 halves, padded to 72", LDSM, "(_8,_64):(_72,_1)", 2, 8, "ldmatrix.x4"),
    ("16 B rows of 8 x 64 halves, Sw<3,3,3>", LDSM, "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", 2, 8, "ldmatrix.x4.trans"),
    ("16 B rows of 8 x 64 halves, Sw<2,3,3>", LDSM, "composition(Sw<2,3,3>, (_8,_64):(_64,_1))", 2, 8, "ld"),
    ("16 B rows of 8 x 64 halves, Sw<3,3,3> over rows padded to 72", LDSM, "composition(Sw<3,3,3>, (_8,_64):(_72,_1))", 2, 8, "ld"),
    ("cp.async-like row chunks, Sw<3,3,3>", "((_8,_4),_8):((_64,_1),_8)", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", 2, 8, "st"),
    ("MN-major ldmatrix.trans rows, plain", "((_8,_4),_8):((_64,_8),_1)", "(_64,_8):(_1,_64)", 2, 8, "ldmatrix.x4.trans"),
    ("MN-major ldmatrix.trans rows, Sw<3,3,3>", "((_8,_4),_8):((_64,_8),_1)", "composition(Sw<3,3,3>, (_64,_8):(_1,_64))", 2, 8, "ldmatrix.x4.trans"),
    ("tf32 MN-major A fragment, plain", TF32_A, "(_32,_8):(_1,_32)", 4, 1, "ld"),
    ("tf32 MN-major A fragment, CUTLASS Sw<3,2,3>", TF32_A, "composition(Sw<3,2,3>, (_32,_8):(_1,_32))", 4, 1, "ld"),
    ("tf32 MN-major A fragment, synthesized Sw<2,3,2>", TF32_A, "composition(Sw<2,3,2>, (_32,_8):(_1,_32))", 4, 1, "ld"),
    ("16 B rows, even rows a phase, Sw<3,3,3>", EVEN_ROWS, "composition(Sw<3,3,3>, _1024:_1)", 2, 8, "ld"),
    ("16 B rows, even rows a phase, synthesized F2 layout", EVEN_ROWS, GENERAL, 2, 8, "ld"),
    ("16 B rows, rows 0..7 a phase, synthesized F2 layout", ROWS_0_7, GENERAL, 2, 8, "st"),
    ("8 B, lanes 2k and 2k+1 share a vector", "((_2,_16),_2):((_0,_2),_1)", "_1024:_1", 4, 2, "ld"),
]


def layout_values(layout, expr):
    out = subprocess.run([layout, "eval", "--json", expr], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"layout eval {expr}: {out.stderr.strip()}")
    return json.loads(out.stdout)["values"]


def layout_patterns(layout):
    """The LAYOUTS patterns with their addresses: instruction i (each `vec` values), lane l at the
    offset of TV index l + threads (i vec), warps of 32 threads one after another."""
    out = []
    for name, tv, smem, eb, vec, op in LAYOUTS:
        tvv, offsets = layout_values(layout, tv), layout_values(layout, smem)
        size = subprocess.run([layout, "eval", f"size(get({tv}, 0))"], capture_output=True, text=True).stdout
        threads = int(size.strip().lstrip("_"))
        values = len(tvv) // threads
        instrs = []
        for first in range(0, threads, 32):
            for i in range(0, values, vec):
                lanes = [offsets[tvv[t + threads * i]] * eb for t in range(first, min(first + 32, threads))]
                instrs.append(lanes + [None] * (32 - len(lanes)))
        kind = op.split(".")[0] if op.startswith(("ldmatrix", "stmatrix")) else op
        w = int(op.split(".x")[1][0]) if kind in ("ldmatrix", "stmatrix") else eb * vec
        out.append((f"{op} {eb * vec} B, {name} (layouts)", kind, w, int(op.endswith(".trans")), instrs,
                    (tv, smem, eb, vec, op)))
    return out


def patterns():
    p = []
    for op in ("ld", "st"):
        for w in (4, 8, 16):
            p += shared(op, w)
        for w in (1, 2):
            p += narrow(op, w)
        for w in (4, 8, 16):
            p += partial(op, w)
    for op in ("ldmatrix", "stmatrix"):
        for x in (1, 2, 4):
            for trans in (False, True):
                p += matrix(op, x, trans)
    p += cp_async()
    p += coalescing()
    return p


def query_metrics():
    r = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True)
    names = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    keep = [n for n in names if n.startswith(("l1tex__data_pipe_lsu_wavefronts_mem_shared",
                                              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
                                              "l1tex__t_sectors_pipe_lsu_mem_global_op_",
                                              "l1tex__t_requests_pipe_lsu_mem_global_op_",
                                              "smsp__sass_inst_executed_op_shared",
                                              "smsp__sass_inst_executed_op_ldsm",
                                              "smsp__sass_inst_executed_op_stsm",
                                              "smsp__sass_inst_executed_op_ldgsts"))]
    return [n + ".sum" for n in keep], r.stdout


def model(layout, res):
    """The model's counts for a recorded pattern, from the `layout` binary: (wavefronts, extra)
    for shared memory, (requests, sectors) for global memory."""
    op, w, instrs = res["op"], res["bytes"], res["addresses"]
    if res.get("layouts"):
        tv, smem, eb, vec, kind = res["layouts"]
        out = subprocess.run([layout, "conflicts", tv, smem, "--bytes", str(eb), "--vec", str(vec), "--op", kind],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{res['name']}: {out.stderr.strip()}")
        words = out.stdout.split()
        return int(words[0]), int(words[0]) - int(words[2])
    lst = ";".join(",".join("-" if a is None else str(a) for a in ins) for ins in instrs)
    if op.endswith(".global"):
        out = subprocess.run([layout, "coalescing", "--addresses", lst, "--bytes", str(w)], capture_output=True, text=True)
        words = out.stdout.split()
        return int(words[0]), int(words[2])
    kind = op
    if op in ("ldmatrix", "stmatrix"):
        kind = f"{op}.x{w}" + (".trans" if res["trans"] else "")
        w = 16
    out = subprocess.run([layout, "conflicts", "--addresses", lst, "--op", kind, "--bytes", str(w)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{res['name']}: {out.stderr.strip()}")
    words = out.stdout.split()
    wavefronts, ideal = int(words[0]), int(words[2])
    return wavefronts, wavefronts - ideal


def hardware(res):
    """Nsight Compute's counts for the pattern, as `model` gives them."""
    n, op = res["ncu"], res["op"]
    if op.endswith(".global"):
        d = "ld" if op.startswith("ld") else "st"
        return n[f"l1tex__t_requests_pipe_lsu_mem_global_op_{d}.sum"], n[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{d}.sum"]
    if op == "cp.async":
        # No wavefront counter of its own; its bank conflicts counter follows another rule.
        return "-", n.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", 0)
    d = {"ld": "ld", "st": "st", "ldmatrix": "ld", "stmatrix": "st"}[op]
    return (n[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{d}.sum"],
            n[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{d}.sum"])


def table(layout, results, vectors=None):
    """The side-by-side table (Markdown) and the number of patterns where model and hardware
    differ (cp.async aside: no counter measures what the model counts)."""
    lines = ["| pattern | model | Nsight Compute | |", "|---|---|---|---|"]
    bad = 0
    vec = []
    for res in results:
        m, h = model(layout, res), hardware(res)
        glob = res["op"].endswith(".global")
        unit = "requests / sectors" if glob else "wavefronts / conflicts"
        if res["op"] == "cp.async":
            verdict = "not counted alike"
        else:
            verdict = "equal" if m == h else "DIFFERENT"
            bad += m != h
        lines.append(f"| {res['name']} | {m[0]} / {m[1]} | {h[0]} / {h[1]} {unit} | {verdict} |")
        lst = ";".join(",".join("-" if a is None else str(a) for a in ins) for ins in res["addresses"])
        vec.append(f"{res['op']} {res['bytes']} {int(res['trans'])} {h[0]} {h[1]} {lst}")
    if vectors:
        with open(vectors, "w") as f:
            f.write("# Nsight Compute on the H200, one launch a pattern (tools/gpu/access_probe.py):\n"
                    "# op bytes trans counts(wavefronts conflicts | requests sectors) addresses (instructions by ;, lanes by ,, - off)\n")
            f.write("\n".join(vec) + "\n")
    return "\n".join(lines), bad


def main():
    if sys.argv[1] == "--table":
        # python3 access_probe.py --table LAYOUT probe.json [VECTORS]: compare a recorded run.
        results = json.load(open(sys.argv[3]))
        text, bad = table(os.path.abspath(sys.argv[2]), results, sys.argv[4] if len(sys.argv) > 4 else None)
        print(text)
        print(f"{len(results)} patterns, {bad} different")
        sys.exit(1 if bad else 0)
    probe, layout, outdir = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.makedirs(outdir, exist_ok=True)
    pats = [p + (None,) for p in patterns()]
    if layout != "-":
        pats += layout_patterns(os.path.abspath(layout))
    with open(os.path.join(outdir, "patterns.txt"), "w") as f:
        for name, op, w, flags, instrs, _ in pats:
            if len(instrs) > 64:
                raise RuntimeError(f"{name}: {len(instrs)} instructions, the probe takes 64")
            addrs = [4294967295 if a is None else a for ins in instrs for a in ins]
            f.write(f"# {name}\n{OPS[op]} {w} {flags} {len(instrs)} {' '.join(map(str, addrs))}\n")
    metrics, listing = query_metrics()
    with open(os.path.join(outdir, "metrics.txt"), "w") as f:
        f.write(listing)
    r = subprocess.run(["ncu", "--csv", "--page", "raw", "--metrics", ",".join(metrics), "-k", "regex:probe",
                        probe, os.path.join(outdir, "patterns.txt")], capture_output=True, text=True)
    with open(os.path.join(outdir, "ncu.csv"), "w") as f:
        f.write(r.stdout)
    with open(os.path.join(outdir, "ncu.err"), "w") as f:
        f.write(r.stderr)
    rows = list(csv.reader([line for line in r.stdout.splitlines() if line.startswith('"')]))
    head = rows[0]
    data = [row for row in rows[1:] if len(row) == len(head) and row[0].isdigit()]
    results = []
    for (name, op, w, flags, instrs, lay), row in zip(pats, data):
        counts = {}
        for m in metrics:
            if m in head:
                v = row[head.index(m)].replace(",", "")
                try:
                    counts[m] = int(float(v))
                except ValueError:
                    counts[m] = v
        results.append({"name": name, "op": op, "bytes": w, "trans": bool(flags), "addresses": instrs, "ncu": counts,
                        "layouts": lay})
    with open(os.path.join(outdir, "probe.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"{len(pats)} patterns, {len(data)} profiled launches, {len(metrics)} metrics")
    if layout == "-":
        return
    text, bad = table(os.path.abspath(layout), results, os.path.join(outdir, "access_probe_h200.txt"))
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"{len(results)} patterns, {bad} different")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
