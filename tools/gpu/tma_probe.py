#!/usr/bin/env python3
"""The device layer's tma_probe on the GPU: do TMA loads of rank 3 and 4 (`TmaTensor`, through maps
the Python helper encodes with `tensor_map_of` for CuPy arrays of any strides) land as the emulator
places them? The emulator's rule, the CUDA guide's: element (r, c) of an `inner x outer` box is the
tensor's (c0 + c, c1 + r, c2, c3), zero outside the tensor, at byte 2 (inner r + c) of the box
swizzled as Swizzle<B,4,3> on bytes (B = 1, 2, 3 for 32-, 64-, 128-byte swizzles).

    python3 tools/gpu/tma_probe.py target/ptx/const_layout_kernels.ptx

Cases: attention's q of shape (batch, heads, seq, dim) stored as (b, s, h, d) (a transposed view,
non-monotonic strides), a contiguous (heads, seq, dim) tensor, boxes with every swizzle, boxes
reaching past the sequence (zero fill). Prints one line per case; exits 1 on a mismatch.
"""

import os
import sys

import cupy as cp
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "gpu", "launch", "python"))
import const_layout_launch as cl  # noqa: E402

CFG_WORDS = 20  # const_layout_device::tma_probe::CFG_WORDS


def expected(x, box, coords):
    """The box's 16-bit values as the emulator places them (see the module)."""
    inner, outer, _, swizzle = box
    dims = list(reversed(x.shape))
    tensor = np.asarray(cp.asnumpy(x))  # indexed (.., dim 1, dim 0)
    out = np.zeros(inner * outer, dtype=np.uint16)
    mask = ((1 << swizzle) - 1) << 4
    for r in range(outer):
        for c in range(inner):
            at = [coords[0] + c, coords[1] + r] + list(coords[2:])
            v = tensor[tuple(reversed(at))] if all(a < d for a, d in zip(at, dims)) else 0
            byte = 2 * (inner * r + c)
            byte ^= (byte >> 3) & mask
            out[byte // 2] = v
    return out


def run(f, x, box, coords):
    m = cl.tensor_map_of(x, box)
    keep, param = cl.tensor_map_param(m, like=x)
    addr, words, dims, strides = cl.tma_tensor_of(x)
    cfg = np.zeros(CFG_WORDS, dtype=np.uint32)
    cfg[0:4] = [len(dims), box.inner, box.outer, box.swizzle]
    cfg[4:4 + len(dims)] = dims
    cfg[8:8 + len(coords)] = coords
    for i, s in enumerate(strides):
        cfg[12 + 2 * i], cfg[13 + 2 * i] = s & 0xFFFFFFFF, s >> 32
    gcfg = cp.asarray(cfg)
    out = cp.zeros(8192, dtype=cp.uint32)
    f((1,), (32,), (np.uint64(param.value), np.uint64(addr), np.uint32(words), gcfg, out))
    cp.cuda.Device().synchronize()
    del keep
    return cp.asnumpy(out)[: box.bytes() // 4].view(np.uint16)


def main():
    f = cp.RawModule(path=sys.argv[1]).get_function("tma_probe")
    rng = np.random.default_rng(20261129)
    b, h, s, d = 2, 3, 70, 128
    # q (b, h, s, d) as a view of (b, s, h, d) storage: strides (s h d, d, h d, 1).
    q = cp.asarray(rng.integers(1, 1 << 16, (b, s, h, d), dtype=np.uint16)).transpose(0, 2, 1, 3)
    k = cp.asarray(rng.integers(1, 1 << 16, (4, 100, 64), dtype=np.uint16))  # (heads, seq, dim)
    B128, B64, B32, NONE = cl.TMA_SWIZZLE_128B, cl.TMA_SWIZZLE_64B, cl.TMA_SWIZZLE_32B, cl.TMA_SWIZZLE_NONE
    cases = [
        (q, cl.TmaBox(64, 64, 16, B128), [64, 32, 1, 1]),   # past the sequence: rows 70.. zero
        (q, cl.TmaBox(64, 128, 16, B128), [0, 0, 2, 0]),
        (q, cl.TmaBox(32, 64, 16, B64), [96, 40, 0, 1]),
        (q, cl.TmaBox(16, 32, 16, B32), [120, 60, 2, 1]),   # past dim and seq
        (q, cl.TmaBox(64, 16, 16, NONE), [0, 8, 1, 0]),
        (k, cl.TmaBox(64, 128, 16, B128), [0, 0, 3]),
        (k, cl.TmaBox(64, 64, 16, B128), [0, 90, 1]),
        (k, cl.TmaBox(64, 256, 16, B128), [0, 0, 0]),        # a 32 KiB box
    ]
    bad = 0
    for x, box, coords in cases:
        got, want = run(f, x, box, coords), expected(x, box, coords)
        differ = int(np.count_nonzero(got != want))
        bad += differ != 0
        print(f"tma_probe rank {len(coords)} shape {tuple(x.shape)} strides {tuple(s // 2 for s in x.strides)} "
              f"box {box.inner}x{box.outer} swizzle {box.swizzle} at {coords}: "
              f"{'ok' if differ == 0 else f'MISMATCH ({differ} of {want.size} elements)'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
