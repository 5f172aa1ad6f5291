#!/usr/bin/env python3
"""The PyTorch anchors of the GPU kernels, in gpu-bench's anchors-file format (key, value, unit
separated by tabs): cuBLAS fp32 GEMM without TF32 in the NT and TN forms of the SGEMM, and a
device-to-device copy. Run on the GPU machine (PyTorch is there); timed with CUDA events, median
of 20 after 3 warm-ups, like gpu-bench.

usage: torch_anchors.py M N K COPY_M COPY_N
"""
import sys

import torch


def median_seconds(f, runs=20):
    for _ in range(3):
        f()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    return sorted(times)[len(times) // 2]


def main():
    m, n, k, cm, cn = (int(x) for x in sys.argv[1:6])
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    flops = 2.0 * m * n * k
    # C (m x n, column-major) = A B^T: as row-major tensors, C^T (n x m) = B A^T.
    # NT: A stored (m,k) column-major = a row-major (k,m) tensor; B likewise (k,n).
    a_km = torch.randn(k, m, device="cuda")
    b_kn = torch.randn(k, n, device="cuda")
    t = median_seconds(lambda: torch.mm(b_kn.t(), a_km))
    print(f"torch_cublas_sgemm_nt\t{flops / t / 1e9:.1f}\tGFLOP/s")
    # TN: A stored (m,k) row-major, B (n,k) row-major.
    a_mk = torch.randn(m, k, device="cuda")
    b_nk = torch.randn(n, k, device="cuda")
    t = median_seconds(lambda: torch.mm(b_nk, a_mk.t()))
    print(f"torch_cublas_sgemm_tn\t{flops / t / 1e9:.1f}\tGFLOP/s")
    x = torch.randn(cm * cn, device="cuda")
    y = torch.empty_like(x)
    t = median_seconds(lambda: y.copy_(x))
    print(f"torch_copy\t{2 * x.numel() * 4 / t / 1e9:.1f}\tGB/s")


if __name__ == "__main__":
    main()
