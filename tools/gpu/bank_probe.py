#!/usr/bin/env python3
"""const_layout::bank's model against the hardware: for each access pattern below, the wavefronts
the model predicts (`layout conflicts`) and the ones Nsight Compute counts for the same loads on the
GPU (the PTX module's `bank_probe`: one warp, one load instruction per `vec` values of each thread),
side by side, one line each.

    python3 tools/gpu/bank_probe.py LAYOUT_BINARY PTX        (on the GPU machine; needs ncu)

A pattern is a thread-value layout (32 threads in mode 0) into a tile and the tile's shared-memory
layout, as `layout conflicts` takes them; the addresses come from `layout eval --json` of their
composition, so the model and the probe see the same accesses. Exits 1 if any count differs.
"""

import json
import os
import subprocess
import sys

# The TV layouts and the synthesized layout of the last patterns.
TF32_A = "((_4,_8),(_2,_2)):((_32,_1),(_8,_128))"  # lane l: m = l / 4, k = l % 4; values m + 8, k + 4
EVEN_ROWS = "((_8,_4),(_8,_2)):((_128,_8),(_1,_32))"  # lanes 0-7: rows 0, 2, .., 14
ROWS_0_7 = "((_8,_4),(_8,_2)):((_64,_8),(_1,_32))"  # lanes 0-7: rows 0..7
GENERAL = "linear((1,2,4,8,16,32,96,144),(264,544),10)"

# (name, TV layout, shared-memory layout, element bytes, values an access)
PATTERNS = [
    ("4 B, consecutive words", "(_32,_1):(_1,_0)", "(_1024):(_1)", 4, 1),
    ("4 B, every other word (2-way)", "(_32,_1):(_2,_0)", "(_1024):(_1)", 4, 1),
    ("4 B, a column of 32 x 32 f32 (32-way)", "(_32,_1):(_1,_0)", "(_32,_32):(_32,_1)", 4, 1),
    ("4 B, the column under Sw<5,0,5>", "(_32,_1):(_1,_0)", "composition(Sw<5,0,5>, (_32,_32):(_32,_1))", 4, 1),
    ("4 B, one word for all (broadcast)", "(_32,_1):(_0,_0)", "(_1024):(_1)", 4, 1),
    ("4 B, 8 rows x 4 words of a 32-word-wide array (8-way)", "((_8,_4),_1):((_32,_1),_0)", "(_1024):(_1)", 4, 1),
    ("8 B, consecutive (2 phases)", "(_32,_2):(_2,_1)", "(_1024):(_1)", 4, 2),
    ("8 B, 128-byte stride (16-way a phase)", "(_32,_2):(_32,_1)", "(_1024):(_1)", 4, 2),
    ("16 B, consecutive (4 phases)", "(_32,_4):(_4,_1)", "(_1024):(_1)", 4, 4),
    ("16 B ldmatrix rows of 8 x 64 halves, plain (8-way)", "((_8,_4),_8):((_1,_64),_8)", "(_8,_64):(_64,_1)", 2, 8),
    ("16 B ldmatrix rows, Sw<3,3,3>", "((_8,_4),_8):((_1,_64),_8)", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", 2, 8),
    ("16 B ldmatrix rows, Sw<2,3,3> (2-way)", "((_8,_4),_8):((_1,_64),_8)", "composition(Sw<2,3,3>, (_8,_64):(_64,_1))", 2, 8),
    ("16 B cp.async-like row chunks, Sw<3,3,3>", "((_8,_4),_8):((_64,_1),_8)", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", 2, 8),
    ("16 B MN-major ldmatrix.trans rows, plain (8-way)", "((_8,_4),_8):((_64,_8),_1)", "(_64,_8):(_1,_64)", 2, 8),
    ("16 B MN-major ldmatrix.trans rows, Sw<3,3,3>", "((_8,_4),_8):((_64,_8),_1)", "composition(Sw<3,3,3>, (_64,_8):(_1,_64))", 2, 8),
    # SM80 tf32 MN-major: the m16n8k8 A fragment's scalar loads from CUTLASS's atom (32, 8):(1, 32).
    ("4 B tf32 MN-major A fragment, plain (4-way)", TF32_A, "(_32,_8):(_1,_32)", 4, 1),
    ("4 B tf32 MN-major A fragment, CUTLASS Sw<3,2,3> (2-way)", TF32_A, "composition(Sw<3,2,3>, (_32,_8):(_1,_32))", 4, 1),
    ("4 B tf32 MN-major A fragment, synthesized Sw<2,3,2>", TF32_A, "composition(Sw<2,3,2>, (_32,_8):(_1,_32))", 4, 1),
    # 16 x 64 halves: rows 0..7 a phase for the write, the even rows for the read; the best Sw
    # against the synthesized linear layout (`layout swizzle-for`, which no Sw<B,M,S> equals).
    ("16 B rows, even rows a phase, Sw<3,3,3> (2-way)", EVEN_ROWS, "composition(Sw<3,3,3>, _1024:_1)", 2, 8),
    ("16 B rows, even rows a phase, synthesized F2 layout", EVEN_ROWS, GENERAL, 2, 8),
    ("16 B rows, rows 0..7 a phase, synthesized F2 layout", ROWS_0_7, GENERAL, 2, 8),
]

METRICS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"


def layout(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"layout {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def addresses(binary, tv, smem, element_bytes, vec):
    """Instruction-major byte addresses: instruction i, lane l at the offset of (l, i vec)."""
    values = json.loads(layout(binary, "eval", "--json", f"composition({smem}, {tv})"))["values"]
    threads = 32
    instructions = len(values) // threads // vec
    return [values[l + threads * (i * vec)] * element_bytes for i in range(instructions) for l in range(threads)], instructions


def model(binary, tv, smem, element_bytes, vec):
    out = layout(binary, "conflicts", tv, smem, "--bytes", str(element_bytes), "--vec", str(vec))
    wavefronts, ideal = int(out.split()[0]), int(out.split()[2])
    return wavefronts, wavefronts - ideal


def run_one(ptx, k, binary):
    import cupy as cp
    import numpy as np
    name, tv, smem, eb, vec = PATTERNS[k]
    addrs, n = addresses(binary, tv, smem, eb, vec)
    f = cp.RawModule(path=ptx).get_function("bank_probe")
    a = cp.asarray(np.array(addrs, dtype=np.uint32))
    out = cp.zeros(32, dtype=cp.uint32)
    f((1,), (32,), (a, np.uint32(n), np.uint32(eb * vec), out))
    cp.cuda.Device().synchronize()


def main():
    if sys.argv[1] == "--one":
        run_one(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    binary, ptx = os.path.abspath(sys.argv[1]), sys.argv[2]
    bad = 0
    print(f"{'pattern':52} {'model: wavefronts / extra':>26} {'ncu: wavefronts / extra':>24}")
    for k, (name, tv, smem, eb, vec) in enumerate(PATTERNS):
        want = model(binary, tv, smem, eb, vec)
        r = subprocess.run(["ncu", "--csv", "--page", "raw", "--metrics", METRICS, "-k", "regex:^bank_probe$",
                            "--launch-count", "1", sys.executable, os.path.abspath(__file__), "--one", ptx, str(k), binary],
                           capture_output=True, text=True)
        rows = [line for line in r.stdout.splitlines() if line.startswith('"')]
        import csv
        table = list(csv.reader(rows))
        try:
            head = next(i for i, row in enumerate(table) if "Kernel Name" in row)
            cols, vals = table[head], table[-1]
            got = (int(vals[cols.index(METRICS.split(",")[0])].replace(",", "")),
                   int(vals[cols.index(METRICS.split(",")[1])].replace(",", "")))
        except (StopIteration, ValueError) as e:
            print(f"{name}: ncu gave no counts ({e}): {r.stderr.strip()[-300:]}")
            bad += 1
            continue
        ok = got == want
        bad += not ok
        print(f"{name:52} {want[0]:>17} / {want[1]:<7} {got[0]:>15} / {got[1]:<7} {'ok' if ok else 'DIFFERENT'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
