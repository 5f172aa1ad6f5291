#!/usr/bin/env python3
"""The Hopper GEMM's configurations over issue 38's sweep, next to cuBLAS (PyTorch), in one run.

    python3 tools/gpu/gemm_sweep.py PTX [--shapes sweep,llm] [--dtypes bf16,fp16] [--configs a,b]
                                        [--json OUT] [--no-check]

Every configuration the PTX module has (an entry `hgemm_sm90_<name>_config` beside its
`hgemm_sm90_<name>_tn_f32`; the landed `hgemm_sm90_tn_f32` as `landed`) is run on every shape:

- **sweep**: m, n in {512, 1024, 2048, 4096, 8192}, k in {1024, 4096, 8192};
- **llm**: m in {16, 64, 128} against (n, k) in {(4096, 4096), (4096, 14336), (14336, 4096),
  (6144, 4096)} (a decoder's projections at small batch).

A and B are k-contiguous (TN: `C = A B^T`), f16 or bf16; ours accumulate in f32 and write f32 C;
cuBLAS is `torch.matmul(a, b.T)` with the same inputs (bf16/f16 out, f32 accumulation). Before
each timed launch a 256 MiB buffer is zeroed (untimed) so that no operand is in the L2 cache (the
memset also covers the launch's CPU time); the time is CUDA events around the launch alone, the median of 5 to 20 launches (as many as fit in
about 50 ms, at least 5) after 2 warm-up ones.

Before timing, each configuration is checked against PyTorch in double precision at sizes with
residues in m, n and k (`--no-check` skips it): the largest error relative to the largest value
within 1e-5.

Prints a table per dtype (TFLOP/s, each configuration's ratio to cuBLAS, the best) and writes
`--json` (what tools/gpu/gemm_choose.py reads to make the chooser's table). Exits 1 if a check
fails.
"""

import argparse
import json
import math
import os
import re
import sys

import cupy as cp
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gpu", "launch", "python"))
import const_layout_launch as cl  # noqa: E402
from hgemm_bench import Sm90, c_param, words  # noqa: E402  (tensor maps from the module's boxes)

SWEEP = [(m, n, k) for m in (512, 1024, 2048, 4096, 8192) for n in (512, 1024, 2048, 4096, 8192)
         for k in (1024, 4096, 8192)]
LLM = [(m, n, k) for m in (16, 64, 128) for (n, k) in ((4096, 4096), (4096, 14336), (14336, 4096), (6144, 4096))]
CHECK_SIZES = [(128, 128, 64), (333, 200, 264), (1000, 777, 1000), (16, 4096, 4096), (600, 8, 2056)]
FLUSH_BYTES = 256 << 20


class Config(Sm90):
    """A configuration's launch: its config words (boxes; threads, shared memory, tile; raster,
    persistent, stages, consumers), its entry, its grid."""

    def __init__(self, mod, name, entry, config_entry, sms):
        out = cp.zeros(16, dtype=cp.uint32)
        cl.launch(mod.get_function(config_entry), (1,), (1,), 0, [cl.tensor_param_of(out, cl.CONFIG_WORDS, 16, 1)],
                  kernel=config_entry)
        cp.cuda.Device().synchronize()
        c = [int(x) for x in cp.asnumpy(out)]
        self.words = c
        self.boxes = {"a": c[0:4], "b": c[4:8]}
        self.threads, self.smem, self.bm, self.bn, self.raster = c[8:13]
        self.persistent, self.stages, self.consumers = c[13:16]
        import ctypes
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.maps = {}
        self.name, self.sms = name, sms
        self.f = mod.get_function(entry)
        self.entry = entry

    def grid(self, m, n):
        rows, cols = -(-m // self.bm), -(-n // self.bn)
        if self.persistent:
            return (min(rows * cols, self.sms), 1, 1)
        return (min(rows, self.raster), cols, -(-rows // self.raster))

    def prepare(self, a, b, c, m, n, bf16):
        """The launch, checked once: each call of the result is one cuLaunchKernel."""
        args = [words(a, "row"), words(b, "row"), c_param(c, "f32"), cl.u64(self(a, "a")), cl.u64(self(b, "b")),
                cl.f32(1.0), cl.f32(0.0), cl.u32(bf16)]
        return cl.prepare(self.f, self.grid(m, n), (self.threads,), self.smem, args, kernel=self.entry)

    def launch(self, a, b, c, m, n, bf16):
        self.prepare(a, b, c, m, n, bf16)()

    def describe(self):
        return (f"{self.bm}x{self.bn}, {self.stages or 4} stages, {self.consumers or 2} consumer warpgroups"
                f"{', persistent' if self.persistent else ''}")


def configs(path, sms, only):
    """Every configuration of the module at `path`: (name, Config)."""
    text = open(path).read()
    names = sorted(set(re.findall(r"\.entry\s+hgemm_sm90_(\w+?)_config\b", text)))
    mod = cp.RawModule(path=path)
    out = []
    if re.search(r"\.entry\s+hgemm_sm90_tn_f32\b", text) and re.search(r"\.entry\s+hgemm_sm90_config\b", text):
        out.append(("landed", Config(mod, "landed", "hgemm_sm90_tn_f32", "hgemm_sm90_config", sms)))
    for name in names:
        if re.search(rf"\.entry\s+hgemm_sm90_{name}_tn_f32\b", text):
            out.append((name, Config(mod, name, f"hgemm_sm90_{name}_tn_f32", f"hgemm_sm90_{name}_config", sms)))
    return [(n, c) for n, c in out if not only or n in only]


def timed(f, flush):
    """Median seconds of `f` alone, the L2 cache flushed before each launch."""
    def once():
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / 1e3
    once()
    first = once()
    runs = max(5, min(20, int(0.05 / max(first, 1e-6))))
    times = sorted(once() for _ in range(runs))
    return times[len(times) // 2]


def check(cfgs):
    bad = 0
    for name, cfg in cfgs:
        for dtype, bf16 in ((torch.float16, 0), (torch.bfloat16, 1)):
            for (m, n, k) in CHECK_SIZES:
                a = torch.randn(m, k, device="cuda").to(dtype)
                b = torch.randn(n, k, device="cuda").to(dtype)
                c = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float32)
                cfg.launch(a, b, c, m, n, bf16)
                torch.cuda.synchronize()
                ref = a.double() @ b.double().T
                err = ((c.T.double() - ref).abs().max() / ref.abs().max()).item()
                ok = err < 1e-5
                bad += not ok
                if not ok:
                    print(f"check {name} {str(dtype)[6:]} {m}x{n}x{k}: max rel. error {err:.2e}  MISMATCH")
        print(f"check {name} ({cfg.describe()}): {'ok' if not bad else 'MISMATCHES'}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx")
    ap.add_argument("--shapes", default="sweep,llm")
    ap.add_argument("--dtypes", default="bf16,fp16")
    ap.add_argument("--configs", default="")
    ap.add_argument("--json")
    ap.add_argument("--no-check", action="store_true")
    a = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    only = set(x for x in a.configs.split(",") if x)
    cfgs = configs(a.ptx, sms, only)
    if not cfgs:
        sys.exit(f"gemm_sweep: no configuration in {a.ptx}")
    torch.manual_seed(0)
    bad = 0 if a.no_check else check(cfgs)
    shapes = (SWEEP if "sweep" in a.shapes else []) + (LLM if "llm" in a.shapes else [])
    flush = torch.empty(FLUSH_BYTES // 4, device="cuda", dtype=torch.float32)
    report = {"device": torch.cuda.get_device_name(0), "sms": sms,
              "configs": {n: {"describe": c.describe(), "words": c.words} for n, c in cfgs}, "results": []}
    for dname in a.dtypes.split(","):
        dtype, bf16 = {"bf16": (torch.bfloat16, 1), "fp16": (torch.float16, 0)}[dname]
        print(f"\n{dname}: TFLOP/s (L2 flushed before each launch); ratio = ours / cuBLAS")
        print(f"  {'m x n x k':>20} {'cuBLAS':>8} " + " ".join(f"{n:>12}" for n, _ in cfgs) + "   best")
        for (m, n, k) in shapes:
            x = torch.randn(m, k, device="cuda").to(dtype)
            y = torch.randn(n, k, device="cuda").to(dtype)
            c = torch.empty((n, m), device="cuda", dtype=torch.float32)
            flops = 2.0 * m * n * k
            row = {"dtype": dname, "m": m, "n": n, "k": k,
                   "cublas": flops / timed(lambda: torch.matmul(x, y.T), flush) / 1e12, "ours": {}}
            for name, cfg in cfgs:
                row["ours"][name] = flops / timed(cfg.prepare(x, y, c, m, n, bf16), flush) / 1e12
            best = max(row["ours"], key=row["ours"].get)
            row["best"] = best
            report["results"].append(row)
            cells = " ".join(f"{v:6.1f} {v / row['cublas']:4.2f}" for v in row["ours"].values())
            print(f"  {f'{m}x{n}x{k}':>20} {row['cublas']:8.1f} {cells}   {best} {row['ours'][best] / row['cublas']:.3f}")
            del x, y, c
        rows = [r for r in report["results"] if r["dtype"] == dname]
        for name, _ in cfgs + [("best", None)]:
            ratios = [(r["ours"][r["best"]] if name == "best" else r["ours"][name]) / r["cublas"] for r in rows]
            gm = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
            print(f"  {dname} {name}: geometric mean {gm:.3f} of cuBLAS, lowest {min(ratios):.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
