#!/usr/bin/env python3
"""What a key tile costs and what a query block costs once, for the Hopper attention forward and
CUTLASS's FMHA variants, on the GPU: each is timed (one process, median of 20 launches) at b 4,
seq_q 4096 and seq_k 512 to 8192 (non-causal, f16; head dims 128 with 16 heads and 64 with 32), and
the time fitted by least squares as `fixed + slope * seq_k / 128`. The slope is the key loop; the
fixed part is what every query block pays once (its loads' latency, the first tile's softmax
before any overlap, the last `P V`, the store of `O`), over all the blocks of the launch.

    python3 tools/gpu/attention_fit.py PTX --cutlass target/gpu/cutlass_88_fmha
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def fit(points):
    """Least squares `y = a + c x` over (x, y) points: (a, c)."""
    n = len(points)
    sx, sy = sum(x for x, _ in points), sum(y for _, y in points)
    sxx, sxy = sum(x * x for x, _ in points), sum(x * y for x, y in points)
    c = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - c * sx) / n, c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx")
    ap.add_argument("--cutlass", help="CUTLASS's 88_hopper_fmha binary (tools/gpu/build-fmha-anchor.sh)")
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    import attention_anchors as anchors
    import attention_bench as bench
    att = bench.Attention(a.ptx)
    keys = (512, 1024, 2048, 4096, 8192)
    for d, h in ((128, 16), (64, 32)):
        b, sq = 4, 4096
        times = {"ours": []}
        for sk in keys:
            q, k, v = bench.make_qkv(b, h, h, sq, sk, d, "float16")
            run, *_ = att.launcher(q, k, v, False, 1 / math.sqrt(d))
            times["ours"].append(anchors.median_seconds(run, runs=a.iters) * 1e6)
            fl = anchors.flops(b, h, sq, sk, d, False)
            if a.cutlass:
                c = anchors.cutlass_run(a.cutlass, b, h, sq, sk, d, False, a.iters)
                for name, tf in c["variants"].items():
                    if c["status"][name] != "FAIL" and tf and tf > 0:
                        times.setdefault(f"CUTLASS {name}", []).append(fl / (tf * 1e12) * 1e6)
            row = ", ".join(f"{n} {t[-1]:.1f}" for n, t in times.items() if len(t) == keys.index(sk) + 1)
            print(f"d {d}, seq_k {sk}: {row} us", flush=True)
        for name, t in times.items():
            if len(t) == len(keys):
                fixed, slope = fit([(sk / 128, y) for sk, y in zip(keys, t)])
                print(f"d {d} {name}: fixed {fixed:.1f} us, {slope:.2f} us a key tile of 128")


if __name__ == "__main__":
    main()
