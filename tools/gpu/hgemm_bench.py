#!/usr/bin/env python3
"""The tensor-core HGEMMs (gpu/kernels/src/hgemm.rs, hgemm_sm90.rs) on the GPU from Python, next to
cuBLAS and CuTe, in one run. gpu-bench (tools/gpu/run.sh) checks and times the same kernels from
Rust and is the reference measurement; this script stays for Nsight Compute (`--once`, used by
tools/gpu/hgemm_ncu.sh and hgemm_ncu_alone.sh: one launch of each entry point, of PTX variants with
other block sizes and shared memory) and as the Python launch path's user: its parameters are
built and launched by gpu/launch/python/const_layout_launch.py (`tensor_param_of`, `launch`).

    python3 tools/gpu/hgemm_bench.py PTX[:THREADS:SMEM] ... [target/gpu/cute_sgemm_sm80 [target/gpu/cute_wgmma_tma_sm90]]
    python3 tools/gpu/hgemm_bench.py --once PTX [M N K]   (one launch of each entry, for ncu)

Each PTX is a build of the kernels (variants of hgemm.rs side by side: give each its block size
and dynamic shared memory if they differ from the current source's); CuTe's binaries, if given,
run before and after them. The Hopper entries (`hgemm_sm90_tn_*`, layout "sm90" below: TN) take
TMA tensor maps, encoded here with the driver's cuTensorMapEncodeTiled for the box and swizzle mode
the module's `hgemm_sm90_config` reports (the stage layouts', `make_tma_box`), with its block, shared
memory and grid.

1. Correctness against PyTorch in double precision, on sizes with residues: `hgemm_{tn,nt}_f32`
   (f16 and bf16 in, f32 accumulators) within f32 accumulation's error; `hgemm_{tn,nt}_f16` (f16
   accumulators and C) exact on small integers, within f16 accumulation's error on random data.
2. Time at 5120x5120x4096, the median of 20 launches after 3 warm-up ones (CUDA events,
   `torch_anchors.median_seconds`): ours, cuBLAS through PyTorch (f16 and bf16 in and out, f32
   accumulation), and CuTe's `sgemm_sm80` (TN, half in and out, f16 accumulators, its own timer)
   when given. TN: A and B k-contiguous; NT: A and B column-major (m and n contiguous).
Prints one table; exits 1 if a correctness check fails.
"""

import ctypes
import os
import re
import subprocess
import sys

import cupy as cp
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gpu", "launch", "python"))
from torch_anchors import median_seconds as timed  # noqa: E402  (the same timing as the anchors)
import const_layout_launch as cl  # noqa: E402  (tensor parameters as Rust builds them, cuLaunchKernel)

SMEM = 2 * 3 * 128 * 32 * 4  # hgemm::SMEM_BYTES
THREADS = 128  # hgemm::THREADS
M, N, K = 5120, 5120, 4096


def words(t, layout):
    """The tensor parameter of a half tensor as the entry points take it, two halves to a word:
    "row" a row-major (rows, cols) tensor as RowWords (rows, cols/2); "col" a row-major (k, rows)
    tensor, i.e. a column-major rows x k one, as ColWords (rows/2, k)."""
    r, c = t.shape
    if layout == "row":
        return cl.tensor_param_of(t, cl.ROW_WORDS, (r, c // 2), (t.stride(0) // 2, 1))
    return cl.tensor_param_of(t, cl.COL_WORDS, (c // 2, r), (1, t.stride(0) // 2))


def c_param(c, acc):
    """C's tensor parameter: f32 column-major (an (n, m) row-major tensor) or f16 row-major words."""
    if acc == "f32":
        n, m = c.shape
        return cl.tensor_param_of(c, cl.COL_MAJOR, (m, n), (1, c.stride(0)))
    m, n = c.shape
    return cl.tensor_param_of(c, cl.ROW_WORDS, (m, n // 2), (c.stride(0) // 2, 1))


def operands(layout, m, n, k, make):
    """A (m x k) and B (n x k) as the kernel takes them, and the same as m x k / n x k views."""
    if layout in ("tn", "sm90"):
        a, b = make(m, k), make(n, k)
        return a, b, a, b
    at, bt = make(k, m), make(k, n)  # column-major m x k, n x k
    return at, bt, at.T, bt.T


class Sm90:
    """What the module's `hgemm_sm90_config` reports (the TMA boxes of A and B, from the stages'
    layouts; threads, shared memory, tile, raster group), and CUtensorMaps of 16-bit row-major
    tensors encoded with those boxes, kept on the device (64-byte aligned: CuPy's allocations are
    256-byte aligned), one per tensor."""

    def __init__(self, mod):
        out = cp.zeros(16, dtype=cp.uint32)
        cl.launch(mod.get_function("hgemm_sm90_config"), (1,), (1,), 0, [cl.tensor_param_of(out, cl.CONFIG_WORDS, 16, 1)],
                  kernel="hgemm_sm90_config")
        cp.cuda.Device().synchronize()
        c = [int(x) for x in cp.asnumpy(out)]
        self.boxes = {"a": c[0:4], "b": c[4:8]}
        self.threads, self.smem, self.bm, self.bn, self.raster = c[8:13]
        assert c[2] == c[6] == 16, c
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.maps = {}

    def grid(self, m, n):
        rows = (m + self.bm - 1) // self.bm  # hgemm_sm90::grid: groups of RASTER tile rows
        return (min(rows, self.raster), (n + self.bn - 1) // self.bn, (rows + self.raster - 1) // self.raster)

    def __call__(self, t, operand):
        rows, cols = t.shape
        key = (t.data_ptr(), rows, cols, operand)
        if key not in self.maps:
            inner, outer, _, swizzle = self.boxes[operand]
            host = (ctypes.c_uint64 * 24)()  # 128 bytes at a 64-byte aligned address inside
            at = ctypes.addressof(host) + (-ctypes.addressof(host)) % 64
            u64x2, u32x2 = ctypes.c_uint64 * 2, ctypes.c_uint32 * 2
            UINT16, INTERLEAVE_NONE, L2_256B, OOB_ZERO = 1, 0, 3, 0  # CU_TENSOR_MAP_L2_PROMOTION_L2_256B is 3
            r = self.cuda.cuTensorMapEncodeTiled(
                ctypes.c_void_p(at), UINT16, 2, ctypes.c_void_p(t.data_ptr()), u64x2(cols, rows),
                (ctypes.c_uint64 * 1)(2 * t.stride(0)), u32x2(inner, outer), u32x2(1, 1),
                INTERLEAVE_NONE, swizzle, L2_256B, OOB_ZERO)
            if r != 0:
                raise RuntimeError(f"cuTensorMapEncodeTiled: CUresult {r}")
            self.maps[key] = cp.asarray(np.frombuffer(ctypes.string_at(at, 128), dtype=np.uint8))
        return self.maps[key].data.ptr


def kernel(spec):
    """`PTX[:THREADS:SMEM]` -> (label, {(layout, acc): launch(a, b, c, m, n, k, bf16)})."""
    path, *rest = spec.split(":")
    threads, smem = (int(rest[0]), int(rest[1])) if rest else (THREADS, SMEM)
    mod = cp.RawModule(path=path)
    entries = {}
    for layout in ("tn", "nt"):
        for acc in ("f32", "f16"):
            try:
                f = mod.get_function(f"hgemm_{layout}_{acc}")
            except Exception:  # an older build without this entry point
                continue

            def launch(a, b, c, m, n, k, bf16, f=f, acc=acc, layout=layout):
                grid = ((m + 127) // 128, (n + 127) // 128)
                stored = "row" if layout == "tn" else "col"
                args = [words(a, stored), words(b, stored), c_param(c, acc), cl.f32(1.0), cl.f32(0.0)]
                if acc == "f32":
                    args.append(cl.u32(bf16))
                cl.launch(f, grid, (threads,), smem, args, kernel=f"hgemm_{layout}_{acc}")

            entries[(layout, acc)] = launch
    for acc in ("f32", "f16"):
        try:
            f = mod.get_function(f"hgemm_sm90_tn_{acc}")
        except Exception:
            continue
        cfg = Sm90(mod)

        def launch(a, b, c, m, n, k, bf16, f=f, acc=acc, cfg=cfg):
            args = [words(a, "row"), words(b, "row"), c_param(c, acc), cl.u64(cfg(a, "a")), cl.u64(cfg(b, "b")),
                    cl.f32(1.0), cl.f32(0.0)]
            if acc == "f32":
                args.append(cl.u32(bf16))
            cl.launch(f, cfg.grid(m, n), (cfg.threads,), cfg.smem, args, kernel=f"hgemm_sm90_tn_{acc}")

        entries[("sm90", acc)] = launch
    return os.path.basename(path), entries


def cute(binary, m, n, k):
    out = subprocess.run([binary, str(m), str(n), str(k), "T", "N"], capture_output=True, text=True).stdout
    v = re.findall(r"\[\s*([0-9.]+)\]GFlop/s", out)
    return float(v[-1]) / 1e3 if v else float("nan")


def output(acc, m, n):
    """C as the kernel writes it (f32 column-major, f16 row-major), and its m x n view."""
    if acc == "f32":
        c = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float32)
        return c, c.T
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    return c, c


def check(label, entries):
    bad = 0
    for (layout, acc), launch in entries.items():
        kinds = ((torch.float16, 0), (torch.bfloat16, 1)) if acc == "f32" else ((torch.float16, 0),)
        for dtype, bf16 in kinds:
            # Residues everywhere the layout allows: TN takes any m and n (f16 C: n even), NT m and
            # n multiples of 8 and any k.
            if layout == "sm90":  # TMA: k a multiple of 8
                sizes = [(128, 128, 64), (333, 200, 264), (1000, 777 if acc == "f32" else 778, 1000), (256, 384, 4096)]
            elif layout == "nt":
                sizes = [(128, 128, 64), (336, 200, 260), (1000, 776, 1020), (256, 384, 4096)]
            else:
                sizes = [(128, 128, 64), (333, 200, 264), (1000, 777 if acc == "f32" else 778, 1024), (256, 384, 4096)]
            for (m, n, k) in sizes:
                for exact in ((False,) if acc == "f32" else (True, False)):
                    if exact:  # small integers: every partial sum an integer below 2048
                        def make(r, c):
                            return torch.randint(0, 2, (r, c), device="cuda").to(dtype)
                        if k > 1024:
                            continue
                    else:
                        def make(r, c):
                            return torch.randn(r, c, device="cuda").to(dtype)
                    a, b, av, bv = operands(layout, m, n, k, make)
                    c, cv = output(acc, m, n)
                    launch(a, b, c, m, n, k, bf16)
                    torch.cuda.synchronize()
                    ref = av.double() @ bv.double().T
                    err = ((cv.double() - ref).abs().max() / ref.abs().max()).item()
                    ok = err == 0 if exact else err < (1e-5 if acc == "f32" else 1e-2)
                    bad += not ok
                    what = "integers" if exact else "random"
                    print(f"check {label} {layout} {str(dtype)[6:]} -> {acc} acc. {m}x{n}x{k} ({what}): "
                          f"max rel. error {err:.2e}  {'ok' if ok else 'MISMATCH'}")
    return bad


def main():
    args = sys.argv[1:]
    if args[0] == "--once":
        _, entries = kernel(args[1])
        m, n, k = (int(x) for x in args[2:5]) if len(args) >= 5 else (M, N, K)
        for (layout, acc), launch in entries.items():
            a, b, _, _ = operands(layout, m, n, k, lambda r, c: torch.randn(r, c, device="cuda").half())
            c, _ = output(acc, m, n)
            launch(a, b, c, m, n, k, 0)
        torch.cuda.synchronize()
        return
    anchors = []
    while not args[-1].endswith(".ptx") and ".ptx:" not in args[-1]:
        anchors.insert(0, args.pop())
    anchor, anchor90 = (anchors + [None, None])[:2]
    kernels = [kernel(s) for s in args]
    torch.manual_seed(0)
    bad = sum(check(label, entries) for label, entries in kernels)
    m, n, k = M, N, K
    flops = 2 * m * n * k
    rows = []
    def anchors_row(when):
        if anchor and os.path.exists(anchor):
            rows.append((f"CuTe sgemm_sm80 TN f16 -> f16 (f16 acc.), {when}", cute(anchor, m, n, k)))
        if anchor90 and os.path.exists(anchor90):
            rows.append((f"CuTe wgmma_tma_sm90 TN f16 -> f16 (f16 acc.), {when}", cute(anchor90, m, n, k)))
    anchors_row("before")
    for layout in ("sm90", "tn", "nt"):
        for dtype, bf16 in ((torch.float16, 0), (torch.bfloat16, 1)):
            name = str(dtype)[6:]
            a, b, av, bv = operands(layout, m, n, k, lambda r, c: torch.randn(r, c, device="cuda").to(dtype))
            for label, entries in kernels:
                for acc in ("f32", "f16"):
                    launch = entries.get((layout, acc))
                    if launch is None or (acc == "f16" and bf16):
                        continue
                    c, _ = output(acc, m, n)
                    t = timed(lambda: launch(a, b, c, m, n, k, bf16))
                    rows.append((f"ours {label} {layout.upper()} {name} -> {acc} ({acc} acc.)", flops / t / 1e12))
            if layout != "sm90":
                t = timed(lambda: torch.matmul(av, bv.T))
                rows.append((f"cuBLAS (PyTorch) {layout.upper()} {name} -> {name}", flops / t / 1e12))
    anchors_row("after")
    print(f"\n{m}x{n}x{k}, median of 20 (TFLOP/s):")
    for name, v in rows:
        print(f"  {name:56} {v:8.1f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
