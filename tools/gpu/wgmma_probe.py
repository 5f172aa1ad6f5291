#!/usr/bin/env python3
"""The device layer's wgmma_probe on the GPU: do const-layout's 128-byte swizzled K-major gmma atom,
its wgmma descriptors (make_gmma_desc, advanced 32 bytes a k block) and the wgmma accumulator
layout (CLayout_64xN) match Hopper's tensor cores?

    python3 tools/gpu/wgmma_probe.py target/ptx/const_layout_kernels.ptx

Loads the PTX with CuPy, runs the one-warpgroup kernel `wgmma_probe` (D = A B^T, 64x64x64, four
wgmma.m64n64k16) for f16 and bf16 on integer inputs (the exact result must come back bit for
bit) and on random ones (against NumPy in double precision: f32 accumulation's error only), and
prints one line per case. Exits 1 on a mismatch.
"""

import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mma_probe import bits  # noqa: E402  (the same 16-bit patterns)


def words(h):
    """64x64 halves, row-major, two to a word (low half first)."""
    h = h.reshape(64, 32, 2).astype(np.uint32)
    return (h[:, :, 0] | (h[:, :, 1] << 16)).reshape(2048)


def main():
    f = cp.RawModule(path=sys.argv[1]).get_function("wgmma_probe")
    rng = np.random.default_rng(20261127)
    bad = 0
    for kind in ("f16", "bf16"):
        for case in ("integers", "random"):
            if case == "integers":
                a = rng.integers(-8, 9, (64, 64)).astype(np.float32)
                b = rng.integers(-8, 9, (64, 64)).astype(np.float32)
            else:
                a, b = rng.standard_normal((64, 64)).astype(np.float32), rng.standard_normal((64, 64)).astype(np.float32)
            (ab, av), (bb, bv) = bits(a, kind), bits(b, kind)
            ga, gb = cp.asarray(words(ab)), cp.asarray(words(bb))
            gd = cp.zeros(4096, dtype=cp.float32)
            f((1,), (128,), (ga, gb, gd, np.uint32(kind == "bf16")))
            cp.cuda.Device().synchronize()
            d = cp.asnumpy(gd).reshape(64, 64, order="F").astype(np.float64)
            ref = av @ bv.T
            err = float(np.max(np.abs(d - ref)))
            ok = err == 0.0 if case == "integers" else err <= 1e-5 * max(1.0, float(np.max(np.abs(ref))))
            bad += not ok
            print(f"wgmma_probe {kind:4} {case:8}: max |D - reference| = {err:.3g}  {'ok' if ok else 'MISMATCH'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
