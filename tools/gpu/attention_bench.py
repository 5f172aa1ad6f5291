#!/usr/bin/env python3
"""The Hopper attention forward (gpu/kernels/src/attention_sm90.rs) on the GPU from Python: checked
against PyTorch's SDPA in float32 math, then timed next to its anchors in the same process: cuDNN and
FlashAttention-2 through SDPA's backends and CUTLASS's examples/88_hopper_fmha (tools/gpu/attention_anchors.py).

    python3 tools/gpu/attention_bench.py PTX [--cutlass BIN] [--quick] [--out DIR] [--check-only]
                                             [--also NAME=PTX ...]

--also times another build of the module (a variant being tried) in the same process, interleaved
with this one (a call of each in turn, so that both see the same clocks), checked the
same way, as column NAME next to "ours".

The module's `attention_sm90_config` says how to launch (the TMA box from the stage's layout, the
block, the shared memory of each head dim); the tensor maps are encoded here with the driver's
cuTensorMapEncodeTiled for PyTorch's (batch, heads, seq, dim) tensors as rank-4 tensors (dim, seq,
heads, batch) of any strides, and the tensor parameters by gpu/launch/python/const_layout_launch.py
with the checks and layout types Rust uses. Exits 1 if a check fails.
"""
import argparse
import ctypes
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "gpu", "launch", "python"))

# The entry points' tensor types (gpu/ptx/src/lib.rs): halves two to a word, (seq, dim/2, heads,
# batch) with the head dim contiguous; the log-sum-exp (seq, heads, batch) in f32.
HEAD_WORDS = "(u32,u32,u32,u32):(u32,_1,u32,u32)"
HEAD_F32 = "(u32,u32,u32):(u32,u32,u32)"


class Attention:
    """One PTX module's attention entry points, launched on PyTorch tensors."""

    def __init__(self, path):
        import cupy as cp
        import numpy as np
        import const_layout_launch as cl
        self.cp, self.np, self.cl = cp, np, cl
        self.mod = cp.RawModule(path=path)
        out = cp.zeros(16, dtype=cp.uint32)
        cl.launch(self.mod.get_function("attention_sm90_config"), (1,), (1,), 0,
                  [cl.tensor_param_of(out, cl.CONFIG_WORDS, 16, 1)], kernel="attention_sm90_config")
        cp.cuda.Device().synchronize()
        c = [int(x) for x in cp.asnumpy(out)]
        self.box = c[0:4]
        self.threads = {64: c[4], 128: c[6]}
        self.bm = {64: c[5], 128: c[7]}
        self.smem = {64: c[8], 128: c[9]}
        # The rows of k's and v's box: q's at head dims 64 and 128, words 12..15 at 256 (a build
        # before head dim 256 writes zeros there and has no such entry point).
        self.kv_rows = {64: c[1], 128: c[1]}
        if c[12]:
            self.threads[256], self.bm[256], self.smem[256], self.kv_rows[256] = c[12:16]
        assert self.box[2] == 16, c
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.functions = {d: self.mod.get_function(f"attention_sm90_d{d}") for d in self.threads}
        self.maps = {}

    def tensor_map(self, t, outer=None):
        """The CUtensorMap of a (batch, heads, seq, dim) tensor of halves as the rank-4 tensor
        (dim, seq, heads, batch), with the module's box (64 x 128, 128-byte swizzle; `outer` rows
        instead of 128 where given), zero fill."""
        inner, rows, _, swizzle = self.box
        outer = outer or rows
        key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), outer)
        if key not in self.maps:
            b, h, s, d = t.shape
            host = (ctypes.c_uint64 * 24)()
            at = ctypes.addressof(host) + (-ctypes.addressof(host)) % 64
            # 16-bit elements are moved as they are: UINT16 for f16 and bf16 alike.
            UINT16, INTERLEAVE_NONE, L2_256B, OOB_ZERO = 1, 0, 3, 0
            r = self.cuda.cuTensorMapEncodeTiled(
                ctypes.c_void_p(at), UINT16, 4, ctypes.c_void_p(t.data_ptr()), (ctypes.c_uint64 * 4)(d, s, h, b),
                (ctypes.c_uint64 * 3)(2 * t.stride(2), 2 * t.stride(1), 2 * t.stride(0)),
                (ctypes.c_uint32 * 4)(inner, outer, 1, 1), (ctypes.c_uint32 * 4)(1, 1, 1, 1),
                INTERLEAVE_NONE, swizzle, L2_256B, OOB_ZERO)
            if r != 0:
                raise RuntimeError(f"cuTensorMapEncodeTiled: CUresult {r} for {tuple(t.shape)} {tuple(t.stride())}")
            self.maps[key] = self.cp.asarray(self.np.frombuffer(ctypes.string_at(at, 128), dtype=self.np.uint8))
        return self.maps[key].data.ptr

    def words(self, t):
        b, h, s, d = t.shape
        st = t.stride()
        assert st[3] == 1 and all(x % 2 == 0 for x in st[:3]), "the head dim contiguous, strides even"
        return self.cl.tensor_param_of(t, HEAD_WORDS, (s, d // 2, h, b), (st[2] // 2, 1, st[1] // 2, st[0] // 2))

    def outputs(self, q):
        import torch
        b, h, s, d = q.shape
        o = torch.empty_like(q)
        lse = torch.empty((b, h, s), device=q.device, dtype=torch.float32)
        return o, lse

    def launcher(self, q, k, v, causal, scale, o=None, lse=None):
        """A function that runs the kernel once, writing (o, lse) (made here unless given)."""
        import torch
        cl = self.cl
        b, h, s, d = q.shape
        if o is None:
            o, lse = self.outputs(q)
        params = [self.words(q), self.words(k), self.words(v), self.words(o),
                  cl.tensor_param_of(lse, HEAD_F32, (s, h, b), (lse.stride(2), lse.stride(1), lse.stride(0))),
                  cl.u64(self.tensor_map(q)), cl.u64(self.tensor_map(k, self.kv_rows[d])),
                  cl.u64(self.tensor_map(v, self.kv_rows[d])),
                  cl.f32(scale), cl.u32(1 if causal else 0), cl.u32(1 if q.dtype == torch.bfloat16 else 0)]
        grid = ((s + self.bm[d] - 1) // self.bm[d], h, b)
        # Checked once; each call then only queues the launch (const_layout_launch.prepare).
        run = cl.prepare(self.functions[d], grid, (self.threads[d],), self.smem[d], params, kernel=f"attention_sm90_d{d}")
        run.keep = (q, k, v, o, lse)
        return run, o, lse


CHECKS = [
    # (batch, heads, kv_heads, seq_q, seq_k, dim, causal, dtype)
    (1, 1, 1, 128, 128, 64, False, "float16"),
    (2, 4, 4, 1000, 1000, 128, False, "float16"),
    (2, 4, 4, 1000, 1000, 128, True, "bfloat16"),
    (1, 8, 2, 333, 517, 64, True, "bfloat16"),     # GQA, odd lengths, more keys than queries
    (1, 4, 1, 257, 129, 128, True, "float16"),      # MQA, fewer keys than queries
    (2, 4, 2, 1000, 777, 256, True, "float16"),     # head dim 256 (key tiles of 64), GQA
    (1, 8, 8, 333, 1031, 256, False, "bfloat16"),
    (1, 16, 16, 2048, 2048, 256, True, "bfloat16"),
    (3, 2, 2, 77, 1031, 64, False, "float16"),
    (1, 16, 16, 4096, 4096, 128, True, "float16"),
    (1, 32, 8, 2048, 2048, 64, False, "bfloat16"),
]


def make_qkv(b, h, hk, sq, sk, d, dtype, seed=0):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = getattr(torch, dtype)
    q = torch.randn((b, h, sq, d), device="cuda", dtype=dt, generator=g)
    k = torch.randn((b, hk, sk, d), device="cuda", dtype=dt, generator=g)
    v = torch.randn((b, hk, sk, d), device="cuda", dtype=dt, generator=g)
    return q, k, v


def reference(q, k, v, causal, scale):
    """O and the log-sum-exp in float32 math (PyTorch's top-left causal mask, GQA by repetition)."""
    import torch
    qf, kf, vf = q.float(), k.float(), v.float()
    group = q.shape[1] // k.shape[1]
    kf, vf = kf.repeat_interleave(group, dim=1), vf.repeat_interleave(group, dim=1)
    s = torch.einsum("bhqd,bhkd->bhqk", qf, kf) * scale
    if causal:
        sq, sk = s.shape[-2:]
        mask = torch.ones(sq, sk, dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    o = torch.einsum("bhqk,bhkd->bhqd", torch.softmax(s, dim=-1), vf)
    return o, lse


def check_all(att):
    import torch
    bad = 0
    rows = []
    for (b, h, hk, sq, sk, d, causal, dtype) in CHECKS:
        if d not in att.functions:
            continue
        q, k, v = make_qkv(b, h, hk, sq, sk, d, dtype)
        scale = 1.0 / math.sqrt(d)
        run, o, lse = att.launcher(q, k, v, causal, scale)
        run()
        torch.cuda.synchronize()
        ro, rl = reference(q, k, v, causal, scale)
        # The kernel's own rounding (P and O to the element type) against float32 math; SDPA's
        # backends at the same shape, measured the same way, for scale.
        err_o = (o.float() - ro).abs().max().item()
        err_l = (lse - rl).abs().max().item()
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            try:
                fo = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, scale=scale, enable_gqa=(h != hk))
                err_fa = (fo.float() - ro).abs().max().item()
            except RuntimeError:
                err_fa = float("nan")
        tol = 2e-2 if dtype == "bfloat16" else 4e-3
        ok = err_o <= tol and err_l <= 1e-3 and not math.isnan(err_o)
        bad += not ok
        rows.append(dict(shape=[b, h, hk, sq, sk, d], causal=causal, dtype=dtype, err_o=err_o, err_lse=err_l,
                         err_fa2=err_fa, ok=ok))
        print(f"check b{b} h{h}/{hk} sq{sq} sk{sk} d{d} causal={causal} {dtype}: max|O - ref| {err_o:.2e} "
              f"(FA2 {err_fa:.2e}), max|lse - ref| {err_l:.2e} {'ok' if ok else 'FAILED'}", flush=True)
    return bad, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx")
    ap.add_argument("--cutlass", help="CUTLASS's 88_hopper_fmha binary (tools/gpu/build-fmha-anchor.sh)")
    ap.add_argument("--cutlass-bf16", help="the same example built for bf16 (FMHA_BF16=1: its element type patched)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--once", action="store_true", help="one launch (b 1, h 16, seq 4096, d 128, f16), nothing else: for ncu")
    ap.add_argument("--once-seq-k", type=int, default=4096, help="the keys of --once's launch (its queries stay 4096)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PTX",
                    help="another PTX module to check and time in the same run, as column NAME")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--dims", default="64,128,256", help="the head dims to time (comma-separated)")
    a = ap.parse_args()
    import torch
    import attention_anchors as anchors
    att = Attention(a.ptx)
    if a.once:
        q, k, v = make_qkv(1, 16, 16, 4096, a.once_seq_k, 128, "float16")
        run, o, lse = att.launcher(q, k, v, False, 1.0 / math.sqrt(128))
        run()
        torch.cuda.synchronize()
        return
    bad, checks = check_all(att)
    also = []
    for spec in a.also:
        name, _, path = spec.partition("=")
        if not name or not path:
            sys.exit(f"attention_bench: --also takes NAME=PTX, not {spec!r}")
        other = Attention(path)
        other_bad, other_checks = check_all(other)
        bad = bad or other_bad
        checks = checks + [dict(c, module=name) for c in other_checks]
        also.append((name, other))
    results = {"checks": checks, "timings": []}
    if not a.check_only:
        for shape in anchors.shapes(quick=a.quick):
            b, h, s, d, causal, dtype = (shape[x] for x in ("batch", "heads", "seq", "dim", "causal", "dtype"))
            if d not in att.functions or str(d) not in a.dims.split(","):
                continue
            q, k, v = make_qkv(b, h, h, s, s, d, dtype)
            scale = 1.0 / math.sqrt(d)
            run, o, lse = att.launcher(q, k, v, causal, scale)
            # This build and the --also builds (those with this head dim) interleaved, a call of
            # each a round.
            others = [(name, other) for name, other in also if d in other.functions]
            runs = [run] + [other.launcher(q, k, v, causal, scale)[0] for _, other in others]
            ms = anchors.time_ms_interleaved(runs, iters=a.iters)
            flops = anchors.flops(b, h, s, s, d, causal)
            row = dict(shape)
            row["ours"] = flops / (ms[0] * 1e-3) / 1e12
            for (name, _), t in zip(others, ms[1:]):
                row[name] = flops / (t * 1e-3) / 1e12
            row.update(anchors.measure(shape, q, k, v, scale, cutlass=a.cutlass, cutlass_bf16=a.cutlass_bf16,
                                      iters=a.iters))
            results["timings"].append(row)
            print(json.dumps(row), flush=True)
            del q, k, v, o, lse
            torch.cuda.empty_cache()
        print(anchors.table(results["timings"], ours="ours"))
        for name, _ in also:
            print(anchors.table(results["timings"], ours=name))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "attention.json"), "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
