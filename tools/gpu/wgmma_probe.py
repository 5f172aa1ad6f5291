#!/usr/bin/env python3
"""The device layer's wgmma_probe on the GPU: do const-layout's 128-byte swizzled K-major gmma atom,
its wgmma descriptors (make_gmma_desc, advanced 32 bytes a k block) and the wgmma accumulator
layout (CLayout_64xN) match Hopper's tensor cores?

    python3 tools/gpu/wgmma_probe.py target/ptx/const_layout_kernels.ptx

Loads the PTX with CuPy, runs the one-warpgroup kernel `wgmma_probe` (D = A B^T, 64x64x64, four
wgmma.m64n64k16) for f16 and bf16 on integer inputs (the exact result must come back bit for
bit) and on random ones (against NumPy in double precision: f32 accumulation's error only), and
prints one line per case. Then the general interface (`wgmma::Batch`, kernel `wgmma_batch_probe`):
D = A B^T (+ C), 64 x N x 64 for N = 64, 128, 256, A from shared memory (SS) or registers (RS), B
K-major or MN-major (given as attention's V, 64 keys x N, stored as TMA stores it), with and
without scale_d (without, D starts as NaN in the registers), f16 and bf16, integers (bit for bit)
and random values (within f32 accumulation's error). Exits 1 on a mismatch.
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
    bad += batch(cp.RawModule(path=sys.argv[1]).get_function("wgmma_batch_probe"), rng)
    sys.exit(1 if bad else 0)


BATCH_RS, BATCH_B_MN, BATCH_SCALE_D = 1, 2, 4  # const_layout_device::wgmma_probe's flags


def batch(f, rng):
    """Every form of wgmma_batch_probe; the number of mismatches."""
    bad = 0
    for n in (64, 128, 256):
        for flags in range(8):
            for kind in ("f16", "bf16"):
                for case in ("integers", "random"):
                    if case == "integers":
                        a, b = rng.integers(-8, 9, (64, 64)), rng.integers(-8, 9, (n, 64))
                        c = rng.integers(-8, 9, (64, n))
                    else:
                        a, b, c = rng.standard_normal((64, 64)), rng.standard_normal((n, 64)), rng.standard_normal((64, n))
                    (ab, av), (bb, bv) = bits(a.astype(np.float32), kind), bits(b.astype(np.float32), kind)
                    c = c.astype(np.float32)
                    given = bb.T if flags & BATCH_B_MN else bb  # V: 64 keys x n
                    gb = np.ascontiguousarray(given).reshape(-1, 2).astype(np.uint32)
                    ga, gb = cp.asarray(words(ab)), cp.asarray((gb[:, 0] | (gb[:, 1] << 16)).ravel())
                    gc = cp.asarray(c.reshape(-1, order="F"))
                    gd = cp.zeros(64 * n, dtype=cp.float32)
                    f((1,), (128,), (ga, gb, gc, gd, np.uint32(kind == "bf16"), np.uint32(flags), np.uint32(n)))
                    cp.cuda.Device().synchronize()
                    d = cp.asnumpy(gd).reshape(64, n, order="F").astype(np.float64)
                    ref = av @ bv.T + (c.astype(np.float64) if flags & BATCH_SCALE_D else 0.0)
                    err = float(np.max(np.abs(d - ref)))
                    ok = err == 0.0 if case == "integers" else err <= 1e-5 * max(1.0, float(np.max(np.abs(ref))))
                    bad += not ok
                    form = ("RS" if flags & BATCH_RS else "SS") + (" B MN" if flags & BATCH_B_MN else " B K ")
                    sd = "scale_d" if flags & BATCH_SCALE_D else "D = AB "
                    print(f"wgmma_batch_probe N={n:3} {form} {sd} {kind:4} {case:8}: max |D - reference| = {err:.3g}  "
                          f"{'ok' if ok else 'MISMATCH'}")
    return bad


if __name__ == "__main__":
    main()
