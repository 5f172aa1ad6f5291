#!/usr/bin/env python3
"""The tensor-core HGEMM (gpu/kernels/src/hgemm.rs) on the GPU, next to cuBLAS and CuTe, in one run.

    python3 tools/gpu/hgemm_bench.py PTX[:THREADS:SMEM] ... [target/gpu/cute_sgemm_sm80]
    python3 tools/gpu/hgemm_bench.py --once PTX     (one launch of each entry at the timed size, for ncu)

Each PTX is a build of the kernels (variants of hgemm.rs side by side: give each its block size
and dynamic shared memory if they differ from the current source's); CuTe's binary, if given,
runs before and after them.

1. Correctness: `hgemm_tn_f32` (f16 and bf16) against PyTorch (`A.float() @ B.float().T`) on
   sizes with residues; the largest relative error must stay at f32 accumulation's level.
2. Time at 5120x5120x4096, TN (A and B k-contiguous), the median of 20 launches after 3 warm-up
   ones (CUDA events, `torch_anchors.median_seconds`): ours (f16 and bf16 in, f32 out), cuBLAS through PyTorch (f16 and bf16 in and
   out, f32 accumulation), and CuTe's `sgemm_sm80` (half in and out, its own timer) when given.
Prints one table; exits 1 if a correctness check fails.
"""

import os
import re
import subprocess
import sys

import cupy as cp
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_anchors import median_seconds as timed  # noqa: E402  (the same timing as the anchors)

SMEM = 2 * 3 * 128 * 32 * 4  # hgemm::SMEM_BYTES
THREADS = 128  # hgemm::THREADS
M, N, K = 5120, 5120, 4096


def kernel(spec):
    """`PTX[:THREADS:SMEM]` -> (label, launch of hgemm_tn_f32, launch of hgemm_tn_f16 or None)."""
    path, *rest = spec.split(":")
    threads, smem = (int(rest[0]), int(rest[1])) if rest else (THREADS, SMEM)
    mod = cp.RawModule(path=path)

    def entry(name):
        try:
            f = mod.get_function(name)
        except Exception:  # an older build without this entry point
            return None
        # Past 48 KiB of dynamic shared memory a kernel must opt in (CUDA's
        # cudaFuncAttributeMaxDynamicSharedMemorySize).
        f.max_dynamic_shared_size_bytes = smem
        return f

    f32, f16 = entry("hgemm_tn_f32"), entry("hgemm_tn_f16")

    def grid(m, n):
        return ((m + 127) // 128, (n + 127) // 128)

    def launch32(a, b, c, m, n, k, bf16):
        f32(grid(m, n), (threads,), (a.data_ptr(), b.data_ptr(), c.data_ptr(), np.uint32(m), np.uint32(n), np.uint32(k),
                                     np.float32(1.0), np.float32(0.0), np.uint32(bf16)), shared_mem=smem)

    def launch16(a, b, c, m, n, k):
        f16(grid(m, n), (threads,), (a.data_ptr(), b.data_ptr(), c.data_ptr(), np.uint32(m), np.uint32(n), np.uint32(k),
                                     np.float32(1.0), np.float32(0.0)), shared_mem=smem)

    return os.path.basename(path), launch32, (launch16 if f16 else None)


def cute(binary, m, n, k):
    out = subprocess.run([binary, str(m), str(n), str(k), "T", "N"], capture_output=True, text=True).stdout
    v = re.findall(r"\[\s*([0-9.]+)\]GFlop/s", out)
    return float(v[-1]) / 1e3 if v else float("nan")


def main():
    args = sys.argv[1:]
    if args[0] == "--once":
        _, launch, launch16 = kernel(args[1])
        a = torch.randn(M, K, device="cuda").half()
        b = torch.randn(N, K, device="cuda").half()
        c = torch.empty(N, M, device="cuda", dtype=torch.float32)
        launch(a, b, c, M, N, K, 0)
        if launch16 is not None:
            launch16(a, b, torch.empty(M, N, device="cuda", dtype=torch.float16), M, N, K)
        torch.cuda.synchronize()
        return
    anchor = args.pop() if not args[-1].endswith(".ptx") and ".ptx:" not in args[-1] else None
    kernels = [kernel(s) for s in args]
    bad = 0
    torch.manual_seed(0)
    rows = []
    for label, launch, launch16 in kernels:
        for dtype, bf16 in ((torch.float16, 0), (torch.bfloat16, 1)):
            for (m, n, k) in ((128, 128, 64), (333, 200, 264), (1000, 777, 1024), (256, 384, 4096)):
                a = torch.randn(m, k, device="cuda").to(dtype)
                b = torch.randn(n, k, device="cuda").to(dtype)
                c = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float32)  # column-major m x n; NaN where unwritten
                launch(a, b, c, m, n, k, bf16)
                torch.cuda.synchronize()
                ref = (a.double() @ b.double().T)
                err = ((c.T.double() - ref).abs().max() / ref.abs().max()).item()
                ok = err < 1e-5
                bad += not ok
                print(f"check {label} {str(dtype)[6:]:8} {m}x{n}x{k}: max rel. error {err:.2e}  {'ok' if ok else 'MISMATCH'}")
        if launch16 is None:
            continue
        # f16 accumulators: exact on small integers (every partial sum an integer below 2048), and
        # within f16 accumulation's error on random data.
        for (m, n, k, exact) in ((128, 128, 64, True), (333, 200, 264, True), (1000, 778, 1024, True), (512, 512, 4096, False)):
            if exact:
                a = torch.randint(0, 3, (m, k), device="cuda").half()
                b = torch.randint(0, 2, (n, k), device="cuda").half()
            else:
                a = torch.randn(m, k, device="cuda").half()
                b = torch.randn(n, k, device="cuda").half()
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)  # row-major m x n
            launch16(a, b, c, m, n, k)
            torch.cuda.synchronize()
            ref = (a.double() @ b.double().T)
            err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            ok = err == 0 if exact else err < 1e-2
            bad += not ok
            what = "integers" if exact else "random"
            print(f"check {label} f16 accumulators {m}x{n}x{k} ({what}): max rel. error {err:.2e}  {'ok' if ok else 'MISMATCH'}")
    m, n, k = M, N, K
    flops = 2 * m * n * k
    if anchor and os.path.exists(anchor):
        rows.append(("CuTe sgemm_sm80 TN half -> half (before)", cute(anchor, m, n, k)))
    for dtype, bf16 in ((torch.float16, 0), (torch.bfloat16, 1)):
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(n, k, device="cuda").to(dtype)
        c = torch.empty(n, m, device="cuda", dtype=torch.float32)
        for label, launch, launch16 in kernels:
            t = timed(lambda: launch(a, b, c, m, n, k, bf16))
            rows.append((f"ours {label} {str(dtype)[6:]} -> f32", flops / t / 1e12))
            if launch16 is not None and bf16 == 0:
                c16 = torch.empty(m, n, device="cuda", dtype=torch.float16)
                t = timed(lambda: launch16(a, b, c16, m, n, k))
                rows.append((f"ours {label} f16 -> f16 (f16 accumulators)", flops / t / 1e12))
        t = timed(lambda: torch.matmul(a, b.T))
        rows.append((f"cuBLAS (PyTorch) {str(dtype)[6:]} -> {str(dtype)[6:]}", flops / t / 1e12))
    if anchor and os.path.exists(anchor):
        rows.append(("CuTe sgemm_sm80 TN half -> half (after)", cute(anchor, m, n, k)))
    print(f"\n{m}x{n}x{k}, TN, median of 20 (TFLOP/s):")
    for name, v in rows:
        print(f"  {name:52} {v:8.1f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
