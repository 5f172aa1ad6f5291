#!/usr/bin/env python3
"""The device layer's layer_probe on the GPU: do its shuffles, votes, warp and block reductions,
fast math, atomics, named barriers, rank-3 slices and swizzled shared tensors do on the hardware
what the emulator (and the device layer's documentation) says?

    python3 tools/gpu/layer_probe.py target/ptx/const_layout_kernels.ptx
    python3 tools/gpu/layer_probe.py --emulated DIR   # the emulator's run (below)

Loads the PTX with CuPy, launches the entry point `layer_probe` once (4 blocks of 128 threads) on
generated inputs, and checks every word it wrote against NumPy: exactly for the shuffles, votes,
reductions (whose f32 values are exact in any order), atomics, barriers, slices and the swizzled
tensor; within the documented bounds, in ulps of the exact value, for the math (2 ulp ex2, rsqrt,
sqrt.approx and div.approx; 1 ulp rcp.approx; 2 + floor(1.173 |x|) ulp exp; 2^-22 absolute in
[0.5, 2] and 2 ulp elsewhere lg2; 2^-10.987 relative tanh; correctly rounded rcp.rn, sqrt.rn and
fma; results below the normal range may flush to zero). Prints one table of checks; exits 1 on a
mismatch. The layout of the outputs is the module documentation of
`const_layout_device::layer_probe` (gpu/device/src/layer_probe.rs), whose constants are repeated
here; the test `the_layer_probe_matches_the_host_model` (gpu/device/tests/layer.rs) checks the
same values on the emulator, and with LAYER_PROBE_DUMP=DIR writes its inputs and outputs to DIR,
which `--emulated DIR` checks with this script's model (so the two models agree).
"""

import sys
from fractions import Fraction

import numpy as np

# const_layout_device::layer_probe's constants.
BLOCKS, THREADS = 4, 128
TOTAL = BLOCKS * THREADS
RECORD = 106
R_SHFL, R_VOTE, R_REDUCE, R_BLOCK, R_NAMED, R_ATOMIC, R_SLICE, R_SWIZZLE = 0, 26, 30, 84, 88, 90, 96, 98
BLOCK_RECORD = 64
SHFL_B = [0, 1, 7, 31, 32, 33]
REDUCE_MASKS = [0x1F, 0b00001, 0b00110, 0b10101, 0b11000, 0b01111]
ATOMIC_WORDS = 7
ATOMIC_INIT_U32 = [0, 0, 0, 0xFFFFFFFF, 0, 0, 0]
ATOMIC_INIT_I32 = [0, 0, -(2**31), 2**31 - 1, 0, -(2**31), 0]
MATH_N, MATH_FNS = 256, 11
BATCH_WORDS = 128
M32 = 0xFFFFFFFF


def s32(w):
    return w - (1 << 32) if w & 0x80000000 else w


def u32(v):
    return v & M32


def f32_of(w):
    """The f32 a word stands for in the reductions: (w >> 16) - 32768 in 256ths (exact sums)."""
    return ((w >> 16) - 32768) / 256.0


def f32_bits(x):
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def bits_f32(b):
    return float(np.array(b, dtype=np.uint32).view(np.float32))


def probe_hash(w):
    return u32(((w << 13) | (w >> 19)) ^ 0x9E3779B9)


def shfl_source(mode, lane, b):
    """PTX's shfl.sync: bval = b[4:0]; a source out of range reads the lane's own value."""
    b &= 31
    if mode == 0:
        return lane ^ b
    if mode == 1:
        return lane + b if lane + b <= 31 else lane
    if mode == 2:
        return lane - b if lane >= b else lane
    return b


def group(lane, mask):
    return [lane ^ s for s in range(32) if s & ~mask == 0]


class Checks:
    """One row a check: how many values, how many wrong, the first wrong one."""

    def __init__(self):
        self.rows = {}

    def add(self, name, ok, detail):
        n, bad, first = self.rows.get(name, (0, 0, ""))
        if not ok and not first:
            first = detail
        self.rows[name] = (n + 1, bad + (not ok), first)

    def report(self):
        width = max(len(k) for k in self.rows)
        print(f"{'check':{width}}  {'values':>7}  {'wrong':>6}  result")
        for name, (n, bad, first) in self.rows.items():
            print(f"{name:{width}}  {n:7}  {bad:6}  {'ok' if bad == 0 else 'MISMATCH: ' + first}")
        return sum(bad for _, bad, _ in self.rows.values())


def ulps(got, want):
    """|got - want| in ulps of want as an f32 (2^-149 below the normal range)."""
    if np.isnan(got) or np.isnan(want):
        return 0.0 if np.isnan(got) and np.isnan(want) else np.inf
    w = np.float32(want)
    if np.float32(got) == w:
        return 0.0
    if np.isinf(got) or np.isinf(w):
        return np.inf
    e = max(int(np.abs(w).view(np.uint32)) >> 23, 1)
    return abs(float(got) - float(want)) / 2.0 ** (e - 127 - 23)


def within(bound, x, got, want):
    if np.isnan(got) or np.isnan(want):
        return bool(np.isnan(got) and np.isnan(want))
    flushed = abs(want) < 2.0**-126 and got == 0.0
    kind, n = bound
    if kind == "ulps":
        return flushed or ulps(got, want) <= n
    if kind == "exp":
        return flushed or ulps(got, want) <= 2.0 + np.floor(1.173 * abs(float(x)))
    if kind == "lg2":
        if 0.5 <= x <= 2.0:
            return abs(float(got) - want) <= 2.0**-22
        return ulps(got, want) <= 2.0
    if kind == "relative":
        return float(got) == want or (np.isfinite(want) and abs(float(got) - want) <= n * abs(want))
    return np.float32(got) == np.float32(want)  # exact


def fma_ok(x, y, z, got):
    """fma.rn.f32: got is a nearest f32 to x y + z, computed exactly."""
    if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
        want = np.float32(float(x) * float(y) + float(z))
        return bool((np.isnan(got) and np.isnan(want)) or got == want)
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    big = Fraction(2) ** 128 - Fraction(2) ** 103  # past it, rounding to f32 overflows
    if abs(exact) >= big:
        return bool(np.isinf(got) and (got > 0) == (exact > 0))
    if not np.isfinite(got):
        return False
    g = np.float32(got)
    d = abs(Fraction(float(g)) - exact)
    up, down = np.nextafter(g, np.float32(np.inf)), np.nextafter(g, np.float32(-np.inf))
    return d <= abs(Fraction(float(up)) - exact) and d <= abs(Fraction(float(down)) - exact)


MATH = [
    ("ex2_approx", lambda x, y, z: np.exp2(x), ("ulps", 2.0)),
    ("exp_approx", lambda x, y, z: np.exp(x), ("exp", 0)),
    ("lg2_approx", lambda x, y, z: np.log2(x), ("lg2", 0)),
    ("rcp_approx", lambda x, y, z: 1.0 / x, ("ulps", 1.0)),
    ("rcp", lambda x, y, z: np.float32(1.0) / np.float32(x), ("exact", 0)),
    ("rsqrt_approx", lambda x, y, z: 1.0 / np.sqrt(x), ("ulps", 2.0)),
    ("sqrt_approx", lambda x, y, z: np.sqrt(x), ("ulps", 2.0)),
    ("sqrt", lambda x, y, z: np.sqrt(np.float32(x)), ("exact", 0)),
    ("tanh_approx", lambda x, y, z: np.tanh(x), ("relative", 2.0**-10.987)),
    ("div_approx", lambda x, y, z: x / y, ("ulps", 2.0)),
    ("fma", None, ("fma", 0)),
]


def math_inputs(rng):
    xs = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 4.0, 0.25, 3.0, 10.0, -10.0, 100.0, 1e-30, -1e-30, 1e30, -1e30,
          np.inf, -np.inf, np.nan, 128.0, -126.0, -130.0, 20.0, -20.0, 88.0, -87.0,
          1.0 + 2.0**-23, 1.0 - 2.0**-24]
    while len(xs) < MATH_N:
        k = len(xs) % 4
        if k == 0:
            xs.append(rng.uniform(-20, 20))
        elif k == 1:
            xs.append((-1.0) ** rng.integers(2) * 2.0 ** rng.uniform(-40, 40))
        elif k == 2:
            xs.append(rng.uniform(0.5, 2.0))
        else:
            xs.append(rng.uniform(-130, 130))
    return np.array(xs, dtype=np.float32)


def run_on_gpu(ptx):
    """The probe's inputs and outputs, launched with CuPy."""
    import cupy as cp

    kernel = cp.RawModule(path=ptx).get_function("layer_probe")
    rng = np.random.default_rng(20261128)
    inp = rng.integers(0, 2**32, TOTAL, dtype=np.uint64).astype(np.uint32)
    inp[32:64] |= 1  # a warp whose every w & 15 is nonzero (all)
    inp[64 + 5] &= ~np.uint32(63)  # one with a w & 63 zero (any)
    xs = math_inputs(rng)
    batch = rng.integers(0, 2**32, BATCH_WORDS, dtype=np.uint64).astype(np.uint32)
    init = np.zeros(48, dtype=np.uint32)
    init[:ATOMIC_WORDS] = ATOMIC_INIT_U32
    init[16:16 + ATOMIC_WORDS] = [u32(v) for v in ATOMIC_INIT_I32]
    g_in, g_xs, g_batch, g_atom = cp.asarray(inp), cp.asarray(xs), cp.asarray(batch), cp.asarray(init)
    g_out = cp.full(TOTAL * RECORD, 0xDEADBEEF, dtype=cp.uint32)
    g_blocks = cp.full(BLOCKS * BLOCK_RECORD, 0xDEADBEEF, dtype=cp.uint32)
    g_math = cp.zeros(MATH_FNS * MATH_N, dtype=cp.float32)
    kernel((BLOCKS,), (THREADS,), (g_in, g_xs, g_batch, g_out, g_blocks, g_math, g_atom))
    cp.cuda.Device().synchronize()
    return (inp, xs, batch, cp.asnumpy(g_out), cp.asnumpy(g_blocks), cp.asnumpy(g_atom), cp.asnumpy(g_math))


def read_emulated(folder):
    """The files the emulator test writes with LAYER_PROBE_DUMP=folder (raw little-endian words)."""
    read = lambda name, t: np.fromfile(f"{folder}/{name}.bin", dtype=t)
    return (read("input", "<u4"), read("xs", "<f4"), read("batch", "<u4"), read("out", "<u4"),
            read("blocks", "<u4"), read("atomics", "<u4"), read("math", "<f4"))


def check(inp, xs, batch, out, blocks, atom, maths):
    """Every check's row of the table; the number of mismatches."""
    out = [int(v) for v in out]
    blocks = [int(v) for v in blocks]
    atom = [int(v) for v in atom]
    w = [int(v) for v in inp]
    c = Checks()

    def rec(gid, k, want, name):
        got = out[gid * RECORD + k]
        c.add(name, got == want, f"thread {gid}: {got:#x}, not {want:#x}")

    for gid in range(TOTAL):
        lane, base, tid, blk = gid % 32, gid // 32 * 32, gid % THREADS, gid // THREADS
        warp = w[base:base + 32]
        for k, b in enumerate(SHFL_B):
            for mode, name in enumerate(["xor", "down", "up", "idx"]):
                rec(gid, R_SHFL + 6 * mode + k, warp[shfl_source(mode, lane, b)], f"shfl.sync.{name} b={b}")
        rec(gid, R_SHFL + 24, warp[(7 * lane + 3) % 32], "shfl.sync.idx b by lane")
        rec(gid, R_SHFL + 25, warp[lane ^ (5 * lane) % 32], "shfl.sync.bfly b by lane")
        rec(gid, R_VOTE, sum((x & 1) << l for l, x in enumerate(warp)), "vote.sync.ballot")
        rec(gid, R_VOTE + 1, int(all(x & 15 != 0 for x in warp)), "all")
        rec(gid, R_VOTE + 2, int(any(x & 63 == 0 for x in warp)), "any")
        rec(gid, R_VOTE + 3, M32, "activemask")
        for m, mask in enumerate(REDUCE_MASKS):
            g = [warp[l] for l in group(lane, mask)]
            fs = [f32_of(x) for x in g]
            at = R_REDUCE + 9 * m
            name = f"allreduce_lanes<{mask:#07b}>"
            rec(gid, at, u32(sum(g)), f"{name} Sum u32")
            rec(gid, at + 1, u32(sum(s32(x) for x in g)), f"{name} Sum i32")
            rec(gid, at + 2, f32_bits(sum(fs)), f"{name} Sum f32")
            rec(gid, at + 3, max(g), f"{name} Max u32")
            rec(gid, at + 4, u32(max(s32(x) for x in g)), f"{name} Max i32")
            rec(gid, at + 5, f32_bits(max(fs)), f"{name} Max f32")
            rec(gid, at + 6, min(g), f"{name} Min u32")
            rec(gid, at + 7, u32(min(s32(x) for x in g)), f"{name} Min i32")
            rec(gid, at + 8, f32_bits(min(fs)), f"{name} Min f32")
        bw = w[blk * THREADS:(blk + 1) * THREADS]
        rec(gid, R_BLOCK, f32_bits(sum(f32_of(x) for x in bw)), "block_allreduce Sum f32")
        rec(gid, R_BLOCK + 1, u32(sum(bw)), "block_allreduce Sum u32")
        rec(gid, R_BLOCK + 2, u32(max(s32(x) for x in bw)), "block_allreduce Max i32")
        rec(gid, R_BLOCK + 3, min(bw), "block_allreduce Min u32")
        a = [u32(3 * x + 1) for x in bw[:32]]
        rec(gid, R_NAMED, 0 if tid < 32 else u32(sum(a)), "named barrier 1 (128): warp 0 to 1-3")
        rec(gid, R_NAMED + 1, u32(sum(a[l] ^ bw[32 + l] for l in range(32))) if tid // 32 == 2 else 0,
            "named barrier 2 (64): warp 1 to 2")
        i, j, k = gid % 6, gid // 6 % 5, gid // 30
        want = int(batch[i + 8 * j + 44 * k]) if k < 3 else M32
        rec(gid, R_SLICE, want, "rank-3 slice_last")
        rec(gid, R_SLICE + 1, want, "rank-3 slice_first")
        for k in range(8):
            e = tid + THREADS * k
            rec(gid, R_SWIZZLE + k, (blk << 16) | ((e % 32) * 32 + e // 32), "Swizzle<3,2,3> shared tensor")

    def atomics(u, i, f, ids, old, where):
        ws = [w[g] for g in ids]
        n = len(ids)
        want_u = [u32(sum(x & 0xFFFF for x in ws)), u32(sum(x & 0xFF for x in ws)), max(ws), min(ws), u[4],
                  max(probe_hash(x) for x in ws), n]
        want_i = [u32(sum(s32(x) >> 16 for x in ws)), u32(sum(s32(x) >> 20 for x in ws)), u32(max(s32(x) for x in ws)),
                  u32(min(s32(x) for x in ws)), i[4], u32(max(s32(probe_hash(x)) for x in ws))]
        want_f = [f32_bits(sum((x >> 24) * 0.25 for x in ws)), f32_bits(sum(((x >> 16) & 0xFF) * 0.5 for x in ws))]
        names_u = ["atom.add", "red.add", "atom.max", "atom.min", "atom.exch", "atom.cas max loop", "atom.cas counter"]
        names_i = ["atom.add", "red.add", "atom.max", "atom.min", "atom.exch", "atom.cas max loop"]
        for k in range(16):
            c.add(f"{where} u32 {names_u[k] if k < 7 else 'untouched'}", u[k] == (want_u[k] if k < 7 else 0),
                  f"word {k}: {u[k]:#x}")
            c.add(f"{where} i32 {names_i[k] if k < 6 else 'untouched'}", i[k] == (want_i[k] if k < 6 else 0),
                  f"word {k}: {s32(i[k])}")
            c.add(f"{where} f32 {['atom.add', 'red.add'][k] if k < 2 else 'untouched'}",
                  f[k] == (want_f[k] if k < 2 else 0), f"word {k}: {bits_f32(f[k])}")
        olds = lambda k: [out[g * RECORD + old + k] for g in ids]
        c.add(f"{where} exch chain u32", sorted(olds(0) + [u[4]]) == list(range(n + 1)), "lost or repeated values")
        c.add(f"{where} CAS tickets", sorted(olds(1)) == list(range(n)), "not a permutation")
        c.add(f"{where} exch chain i32", sorted(s32(x) for x in olds(2) + [i[4]]) == list(range(-n, 1)),
              "lost or repeated values")

    atomics(atom[:16], atom[16:32], atom[32:48], list(range(TOTAL)), R_ATOMIC, "global")
    for b in range(BLOCKS):
        r = blocks[b * BLOCK_RECORD:(b + 1) * BLOCK_RECORD]
        atomics(r[:16], r[16:32], r[32:48], list(range(b * THREADS, (b + 1) * THREADS)), R_ATOMIC + 3, "shared")
        c.add("SmemAllocator 1024-byte alignment", r[48] == 0, f"block {b}: {r[48]} bytes past")

    with np.errstate(all="ignore"):
        for f, (name, exact, bound) in enumerate(MATH):
            for n in range(MATH_N):
                x, y, z = xs[n], xs[(n + 1) % MATH_N], xs[(n + 2) % MATH_N]
                got = maths[f * MATH_N + n]
                if name == "div_approx" and not (2.0**-126 <= abs(float(y)) <= 2.0**126):
                    continue
                if name == "fma":
                    ok = fma_ok(x, y, z, got)
                else:
                    want = exact(np.float64(x), np.float64(y), np.float64(z))
                    ok = within(bound, float(x), got, float(want))
                c.add(name, ok, f"{name}({x}, {y}, {z}) = {got} ({ulps(got, float(exact(np.float64(x), np.float64(y), np.float64(z))) if exact else 0):.3g} ulp)")

    return c.report()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--emulated":
        where, data = "the emulator", read_emulated(sys.argv[2])
    elif len(sys.argv) == 2:
        where, data = "the GPU", run_on_gpu(sys.argv[1])
    else:
        sys.exit("usage: layer_probe.py PTX | layer_probe.py --emulated FOLDER")
    bad = check(*data)
    print(f"layer_probe on {where}: {'all checks pass' if bad == 0 else f'{bad} mismatches'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
