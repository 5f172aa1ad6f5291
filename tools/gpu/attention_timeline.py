#!/usr/bin/env python3
"""Where a query block's time goes in the Hopper attention forward: a timeline from an
instrumented build, each consumer warpgroup's `globaltimer()` at eight points of its query block
and its `smid()`, written over its log-sum-exp rows m0..m0+9 (so the build's lse is not a
log-sum-exp, and attention_bench.py's checks fail on it).

    git apply tools/gpu/attention_timeline.patch      # the instrumentation (gpu/kernels)
    bash tools/gpu/build-ptx.sh --no-install && cp target/ptx/const_layout_kernels.ptx target/gpu/timeline.ptx
    git apply -R tools/gpu/attention_timeline.patch
    python3 tools/gpu/attention_timeline.py target/gpu/timeline.ptx     # on the GPU machine

For four shapes (f16; d 128 non-causal and causal, d 64, and a short d 128 one), after five
launches: each segment's median, mean and 90th percentile over the warpgroups (setup: the
kernel's start to the consumers' register split; q_wait: Q's load; k0+S0: the first key tile's
wait and S; softmax0; loop: the other key tiles; lastPV: the last P V; epi_smem: O / l to shared
memory; stores: O out), and the gap between a block's last warpgroup's end and the next block's
start on the same multiprocessor."""
import math, sys
sys.path.insert(0, "tools/gpu")
import attention_bench as bench
import numpy as np
import torch

att = bench.Attention(sys.argv[1])
NAMES = ["setup", "q_wait", "k0+S0", "softmax0", "loop", "lastPV", "epi_smem", "stores"]
for (b, h, s, d, causal) in [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True), (4, 32, 4096, 64, False),
                             (4, 16, 512, 128, False)]:
    q, k, v = bench.make_qkv(b, h, h, s, s, d, "float16")
    run, o, lse = att.launcher(q, k, v, causal, 1 / math.sqrt(d))
    for _ in range(5):
        run()
    torch.cuda.synchronize()
    raw = lse.contiguous().view(torch.int32).cpu().numpy().astype(np.int64) & 0xffffffff
    bm = {64: 192, 128: 128, 256: 128}[d]
    nwg = bm // 64
    rows = []
    for bi in range(b):
        for hi in range(h):
            for qb in range((s + bm - 1) // bm):
                for w in range(nwg):
                    m0 = qb * bm + 64 * w
                    if m0 + 10 <= s:
                        rows.append([bi, hi, qb, w] + list(raw[bi, hi, m0:m0 + 10]))
    a = np.array(rows, dtype=np.int64)
    t = a[:, 4:13]
    base = t[:, 0].min()
    t = (t - base) % (1 << 32)
    sm = a[:, 13]
    dur = np.diff(t, axis=1)
    total = t[:, 8] - t[:, 0]
    print(f"\n== b {b} h {h} s {s} d {d} causal {causal}: {len(a)} warpgroup records, launch span {t[:, 8].max() / 1e3:.1f} us")
    for i, n in enumerate(NAMES):
        print(f"  {n:9s} median {np.median(dur[:, i]) / 1e3:7.3f} us  mean {dur[:, i].mean() / 1e3:7.3f} us  p90 {np.percentile(dur[:, i], 90) / 1e3:7.3f}")
    print(f"  {'total':9s} median {np.median(total) / 1e3:7.3f} us  mean {total.mean() / 1e3:7.3f} us")
    # Per block (warpgroup 0's start, the last warpgroup's end), gaps between blocks on one SM.
    blocks = {}
    for r, tt, m in zip(a, t, sm):
        key = (r[0], r[1], r[2])
        st, en, mm = blocks.get(key, (1 << 62, 0, m))
        blocks[key] = (min(st, tt[0]), max(en, tt[8]), m)
    by_sm = {}
    for st, en, m in blocks.values():
        by_sm.setdefault(m, []).append((st, en))
    gaps, firsts, lasts = [], [], []
    for m, lst in by_sm.items():
        lst.sort()
        firsts.append(lst[0][0])
        lasts.append(lst[-1][1])
        for (s0, e0), (s1, e1) in zip(lst, lst[1:]):
            gaps.append(s1 - e0)
    gaps = np.array(gaps)
    print(f"  SMs {len(by_sm)}, blocks {len(blocks)}; gap between a block's end and the next start on its SM: "
          f"median {np.median(gaps) / 1e3:.3f} us mean {gaps.mean() / 1e3:.3f} us p10 {np.percentile(gaps, 10) / 1e3:.3f} p25 {np.percentile(gaps, 25) / 1e3:.3f} p75 {np.percentile(gaps, 75) / 1e3:.3f}; "
          f"first starts spread {(max(firsts) - min(firsts)) / 1e3:.2f} us, last ends spread {(max(lasts) - min(lasts)) / 1e3:.2f} us")
    del q, k, v, o, lse
    torch.cuda.empty_cache()
