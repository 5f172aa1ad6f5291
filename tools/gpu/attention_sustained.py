#!/usr/bin/env python3
"""The Hopper attention forward against CUTLASS's FMHA under the H200's power cap: short bursts
(what attention_bench.py times) and sustained runs (seconds of back-to-back launches, the clocks
settled), with the SM clock and the board power sampled by nvidia-smi during each sustained run.

The H200 holds a sustained attention run at its 700 W limit (`clocks_throttle_reasons.active`
0x4, the software power cap), with the SM clock near 1.6-1.7 GHz instead of 1.98: a kernel that
spends less energy a tile runs at a higher clock, and a burst after an idle GPU runs faster than
the same kernel sustained. Shape: b 4, h 16, seq 4096, d 128, fp16, non-causal and causal.

    python3 tools/gpu/attention_sustained.py PTX [PTX ...] [--cutlass target/gpu/cutlass_88_fmha]
        [--seconds 4]

Each PTX may carry `NAME=` in front. Prints per build and mask: the burst (20 launches after 3 s
idle) and the sustained TFLOP/s with the median clock (MHz), power (W) and throttle reasons;
CUTLASS's variants with --iterations=20 and with enough iterations for about the same seconds.
"""
import argparse
import math
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

B, H, S, D = 4, 16, 4096, 128


def sampler(samples, stop):
    """Append nvidia-smi's (clock MHz, power W, throttle reasons) every 0.1 s until `stop`."""
    q = "--query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active"
    while not stop.is_set():
        out = subprocess.run(["nvidia-smi", q, "--format=csv,noheader,nounits"], capture_output=True, text=True)
        samples.append(out.stdout.strip())
        time.sleep(0.1)


def sampled(f):
    """Run f() with the sampler on; return (f's result, the median sample of the middle half)."""
    samples, stop = [], threading.Event()
    th = threading.Thread(target=sampler, args=(samples, stop))
    th.start()
    try:
        r = f()
    finally:
        stop.set()
        th.join()
    mid = [x.split(", ") for x in samples[len(samples) // 4: 3 * len(samples) // 4] or samples]
    mid = [x for x in mid if len(x) == 3]
    if not mid:
        return r, "no samples"
    med = lambda i: sorted(float(x[i]) for x in mid)[len(mid) // 2]
    return r, f"{med(0):.0f}, {med(1):.1f}, {'/'.join(sorted({x[2] for x in mid}))}"


def flops(causal):
    return 4 * B * H * S * S * D / (2 if causal else 1)


def ours(name, path, seconds):
    import torch
    import attention_bench as ab
    att = ab.Attention(path)
    for causal in (False, True):
        q, k, v = ab.make_qkv(B, H, H, S, S, D, "float16")
        run, _, _ = att.launcher(q, k, v, causal, 1 / math.sqrt(D))
        for _ in range(5):
            run()
        torch.cuda.synchronize()
        time.sleep(3)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(20):
            run()
        e.record()
        torch.cuda.synchronize()
        burst = flops(causal) / (s.elapsed_time(e) / 20 * 1e-3) / 1e12

        def sustain():
            n, t0 = 0, time.time()
            s.record()
            while time.time() - t0 < seconds:
                for _ in range(20):
                    run()
                n += 20
                torch.cuda.synchronize()
            e.record()
            torch.cuda.synchronize()
            return flops(causal) / (s.elapsed_time(e) / n * 1e-3) / 1e12

        tf, smi = sampled(sustain)
        mask = "causal" if causal else "none"
        print(f"{name:>10} {mask:>6}  burst {burst:6.1f}  sustained {tf:6.1f} TFLOP/s  (MHz, W, reasons: {smi})",
              flush=True)


def cutlass(binary, seconds):
    for causal in (False, True):
        mask = "causal" if causal else "none"
        base = [binary, f"--b={B}", f"--h={H}", f"--q={S}", f"--k={S}", f"--d={D}", f"--mask={'causal' if causal else 'no'}"]
        burst = subprocess.run(base + ["--iterations=20"], capture_output=True, text=True).stdout
        # About `seconds` of launches: a launch takes about 1 ms at this shape (0.5 causal).
        iters = int(seconds * (1500 if causal else 750))
        out, smi = sampled(lambda: subprocess.run(base + [f"--iterations={iters}"], capture_output=True, text=True).stdout)
        for line in burst.splitlines():
            if "TFLOPS" in line:
                variant = line.split("]")[1].split(":")[0].strip()
                sus = [x for x in out.splitlines() if variant in x]
                tf = lambda x: x.split(":")[-1].split()[0]
                print(f"{'CUTLASS':>10} {mask:>6}  burst {tf(line):>6}  sustained {tf(sus[0]) if sus else '?':>6} TFLOP/s"
                      f"  {variant} (MHz, W, reasons: {smi})", flush=True)
        time.sleep(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx", nargs="+", help="PTX or NAME=PTX (PATH@N: a persistent grid, as attention_bench.py)")
    ap.add_argument("--cutlass", help="CUTLASS's 88_hopper_fmha binary (tools/gpu/build-fmha-anchor.sh)")
    ap.add_argument("--seconds", type=float, default=4.0)
    a = ap.parse_args()
    if a.cutlass:
        cutlass(a.cutlass, a.seconds)
    for spec in a.ptx:
        name, _, path = spec.rpartition("=")
        ours(name or os.path.basename(path), path, a.seconds)


if __name__ == "__main__":
    main()
