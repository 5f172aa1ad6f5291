#!/usr/bin/env python3
"""The device layer's mma_probe on the GPU: does const-layout's view of ldmatrix and mma.sync
(the atom layouts, the tiled copies built on them, the instruction wrappers) match the hardware?

    python3 tools/gpu/mma_probe.py target/ptx/const_layout_kernels.ptx

Loads the PTX with CuPy, runs the one-warp kernel `mma_probe` (D = A B^T + C, 16x16x16) for f16
and bf16 on integer inputs (the exact result must come back bit for bit) and on random ones
(against NumPy in double precision: f32 accumulation's error only), and prints one line per
case; then half a warp must trap at the converged-warp check before ldmatrix. Exits 1 on a
mismatch.
"""

import os
import sys

import cupy as cp
import numpy as np


def bits(x, kind):
    """16-bit patterns of x (float32 array) and the values they hold."""
    if kind == "f16":
        h = x.astype(np.float16)
        return h.view(np.uint16), h.astype(np.float64)
    b = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # truncation to bf16
    return b, (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def words(h):
    """16x16 halves, row-major, two to a word (low half first)."""
    h = h.reshape(16, 8, 2).astype(np.uint32)
    return (h[:, :, 0] | (h[:, :, 1] << 16)).reshape(128)


def main():
    mod = cp.RawModule(path=sys.argv[1])
    f = mod.get_function("mma_probe")
    rng = np.random.default_rng(20261127)
    bad = 0
    for kind in ("f16", "bf16"):
        for case in ("integers", "random"):
            if case == "integers":
                a = rng.integers(-8, 9, (16, 16)).astype(np.float32)
                b = rng.integers(-8, 9, (16, 16)).astype(np.float32)
                c = rng.integers(-64, 65, (16, 16)).astype(np.float32)
            else:
                a, b = rng.standard_normal((16, 16)).astype(np.float32), rng.standard_normal((16, 16)).astype(np.float32)
                c = rng.standard_normal((16, 16)).astype(np.float32)
            (ab, av), (bb, bv) = bits(a, kind), bits(b, kind)
            ga, gb = cp.asarray(words(ab)), cp.asarray(words(bb))
            gc = cp.asarray(c.flatten(order="F"))  # column-major: (m, n) at m + 16 n
            gd = cp.zeros(256, dtype=cp.float32)
            f((1,), (32,), (ga, gb, gc, gd, np.uint32(kind == "bf16"), np.uint32(32)))
            cp.cuda.Device().synchronize()
            d = cp.asnumpy(gd).reshape(16, 16, order="F").astype(np.float64)
            ref = av @ bv.T + c.astype(np.float64)
            err = float(np.max(np.abs(d - ref)))
            ok = err == 0.0 if case == "integers" else err <= 1e-5 * max(1.0, float(np.max(np.abs(ref))))
            bad += not ok
            print(f"mma_probe {kind:4} {case:8}: max |D - reference| = {err:.3g}  {'ok' if ok else 'MISMATCH'}")
    # The converged-warp check: half the warp leaves before ldmatrix; the other half must trap
    # (which ends the context, so this comes last).
    try:
        f((1,), (32,), (ga, gb, gc, gd, np.uint32(0), np.uint32(16)))
        cp.cuda.Device().synchronize()
        trapped = False
        print("mma_probe half a warp: ran to the end  MISMATCH (the check did not trap)")
    except Exception as e:  # CuPy raises the driver's launch failure
        trapped = True
        print(f"mma_probe half a warp: trapped ({type(e).__name__}: {str(e).splitlines()[0][:80]})  ok")
    bad += not trapped
    # The trap left the context unusable: exit without CuPy's teardown, which would report that.
    sys.stdout.flush()
    os._exit(1 if bad else 0)


if __name__ == "__main__":
    main()
