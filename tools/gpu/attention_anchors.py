#!/usr/bin/env python3
"""The anchors of the attention forward kernel: NVIDIA's own attention forwards on one
GPU, in one process, at the issue's shapes, in TFLOP/s.

  * PyTorch's scaled_dot_product_attention under sdpa_kernel(SDPBackend.CUDNN_ATTENTION) (cuDNN's
    fused attention) and SDPBackend.FLASH_ATTENTION (FlashAttention-2 as built into PyTorch),
    fp16 and bf16; timed with CUDA events, `--warmup` untimed calls, then the median of `--iters`
    calls timed one by one. Called as a user calls it: inputs without grad, so cuDNN does not
    write the LSE (FA2 always does).
  * CUTLASS 4.2's example 88_hopper_fmha (built by tools/gpu/build-fmha-anchor.sh; fp16 only, or a
    bf16 build patched from it, --cutlass-bf16), run once per shape with --iterations=ITERS: it
    times one untimed launch then ITERS back to back between two CUDA events and prints the mean
    per variant (d=128: "tma ws cooperative 128x128x128" and "tma ws ping-pong 128x128x128"; d=64:
    "tma 64x128x64", "tma ws cooperative 128x64x64", "tma ws ping-pong 128x64x64"). "best" is the
    highest TFLOP/s over the variants it ran (and that did not fail).

Shapes: batch x seq = 16k tokens (seq 4096/8192/16384 with batch 4/2/1), heads x dim = 2048 (d 128
with 16 heads, d 64 with 32, d 256 with 8), causal and not; q, k, v and o contiguous (b, h, s, d). FLOPs =
4*b*h*sq*sk*d, halved for causal (the CUTLASS example counts the same way).

Each torch result is checked (unless --no-check) with check() against an f32 reference. Output:
DIR/attention_anchors.json, DIR/attention_anchors.tsv (gpu-bench's anchors format: key, value,
unit), and a markdown table on stdout.

usage: attention_anchors.py [--out DIR] [--cutlass BIN] [--cutlass-bf16 BIN] [--quick]
                            [--iters N] [--warmup N] [--no-check] [--cutlass-verify]

Importable (torch is imported lazily, so --help and the import work without it):
    from attention_anchors import sdpa_time, check, shapes, flops, measure, table, median_seconds
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

SEQS = ((4096, 4), (8192, 2), (16384, 1))  # (seq, batch): 16k tokens
DIMS = ((128, 16), (64, 32), (256, 8))  # (head dim, heads): 2048
DTYPES = ("float16", "bfloat16")  # torch's names (getattr(torch, dtype))
SHORT = {"float16": "fp16", "bfloat16": "bf16"}
BACKENDS = ("cudnn", "flash")  # SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION (FA2)


def shapes(quick=False):
    """The issue's shapes, one dict per (dtype, d, causal, seq): b, h, sq, sk, d, causal, dtype
    ("float16" or "bfloat16"), and the same as batch, heads, seq, dim. quick: one per (dtype, d,
    causal) group, seq 4096 (batch 4)."""
    out = []
    for dtype in DTYPES:
        for d, h in DIMS:
            for causal in (False, True):
                for s, b in SEQS[:1] if quick else SEQS:
                    out.append(dict(b=b, h=h, sq=s, sk=s, d=d, causal=causal, dtype=dtype,
                                    batch=b, heads=h, seq=s, dim=d))
    return out


def flops(b, h, sq, sk, d, causal):
    """4*b*h*sq*sk*d (QK^T and PV, 2 FLOPs a multiply-add), halved for causal."""
    f = 4.0 * b * h * sq * sk * d
    return f / 2 if causal else f


def _torch():
    import torch  # noqa: deferred so that --help and the import work without torch
    return torch


def _dtype(name):
    torch = _torch()
    return {"fp16": torch.float16, "bf16": torch.bfloat16, "float16": torch.float16,
            "bfloat16": torch.bfloat16}[name] if isinstance(name, str) else name


def _backend(name):
    from torch.nn.attention import SDPBackend
    return {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "math": SDPBackend.MATH, "efficient": SDPBackend.EFFICIENT_ATTENTION}[name]


def inputs(b, h, sq, sk, d, dtype, seed=0):
    """q (b,h,sq,d), k and v (b,h,sk,d): standard normal, contiguous, on the GPU."""
    torch = _torch()
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = _dtype(dtype)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dt, generator=g)
    k = torch.randn(b, h, sk, d, device="cuda", dtype=dt, generator=g)
    v = torch.randn(b, h, sk, d, device="cuda", dtype=dt, generator=g)
    return q, k, v


def sdpa(backend, q, k, v, causal, scale=None):
    """F.scaled_dot_product_attention restricted to one backend ("cudnn", "flash", "math", ...)."""
    torch = _torch()
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(_backend(backend)):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)


def sdpa_with_lse(backend, q, k, v, causal, scale=None):
    """(out, lse (b,h,sq) f32 natural log, or None) through the backend's aten op, for checking."""
    torch = _torch()
    try:
        if backend == "flash":
            r = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False, scale=scale)
        elif backend == "cudnn":
            r = torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 0.0, causal, False,
                                                                   scale=scale)
        else:
            raise ValueError(backend)
        out, lse = r[0], r[1]
        if lse is not None and lse.dim() == 4:  # cuDNN's stats may be (b, h, sq, 1)
            lse = lse.squeeze(-1)
        return out, lse
    except Exception as e:  # an op whose signature moved: check the output alone
        print(f"attention_anchors: no LSE from {backend} ({type(e).__name__}: {e})", file=sys.stderr)
        return sdpa(backend, q, k, v, causal, scale), None


def median_seconds(f, runs=20, warmup=5):
    """time_ms in seconds."""
    return time_ms(f, runs, warmup) / 1e3


def time_ms(f, iters=20, warmup=5):
    """Median milliseconds of f() over iters calls, each between two CUDA events, after warmup."""
    return time_ms_interleaved([f], iters, warmup)[0]


def time_ms_interleaved(fs, iters=20, warmup=5):
    """Median milliseconds of each of fs over iters rounds, each round calling every f once in
    turn between two CUDA events, after warmup rounds: variants compared side by side see the same
    clocks and the same neighbours on a shared machine (timing one after the other, a variant's
    figure moved by up to 8% between runs of the same build)."""
    torch = _torch()
    for _ in range(warmup):
        for f in fs:
            f()
    torch.cuda.synchronize()
    times = [[] for _ in fs]
    for _ in range(iters):
        for f, t in zip(fs, times):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            f()
            e.record()
            e.synchronize()
            t.append(s.elapsed_time(e))
    return [statistics.median(t) for t in times]


def sdpa_time(backend, b, h, sq, sk, d, dtype="fp16", causal=False, iters=20, warmup=5, scale=None,
              qkv=None):
    """Times SDPA on one backend at one shape: dict(ms=median milliseconds, tflops=TFLOP/s)."""
    q, k, v = qkv if qkv is not None else inputs(b, h, sq, sk, d, dtype)
    ms = time_ms(lambda: sdpa(backend, q, k, v, causal, scale), iters, warmup)
    return dict(ms=ms, tflops=flops(b, h, sq, sk, d, causal) / (ms * 1e-3) / 1e12)


def _f32_reference(q, k, v, causal, scale, budget=1 << 30):
    """(o, lse) in f32: SDPA with the MATH backend on float32 inputs (no TF32), per batch and block
    of query rows (an explicit causal mask per block, aligned top left as torch's is_causal), and
    the LSE (natural log) of the same scaled, masked scores."""
    torch = _torch()
    from torch.nn.attention import sdpa_kernel, SDPBackend
    b, h, sq, d = q.shape
    sk = k.shape[2]
    qb = max(16, min(sq, budget // (4 * h * sk)))  # f32 scores of one block: <= budget bytes
    o = torch.empty(b, h, sq, v.shape[3], device=q.device, dtype=torch.float32)
    lse = torch.empty(b, h, sq, device=q.device, dtype=torch.float32)
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        with sdpa_kernel(SDPBackend.MATH):
            for i in range(b):
                kf, vf = k[i:i + 1].float(), v[i:i + 1].float()
                for r0 in range(0, sq, qb):
                    r1 = min(sq, r0 + qb)
                    qf = q[i:i + 1, :, r0:r1].float()
                    mask = None
                    if causal:
                        rows = torch.arange(r0, r1, device=q.device)[:, None]
                        mask = torch.arange(sk, device=q.device)[None, :] <= rows
                    o[i:i + 1, :, r0:r1] = torch.nn.functional.scaled_dot_product_attention(
                        qf, kf, vf, attn_mask=mask, scale=scale)
                    s = torch.matmul(qf, kf.transpose(-1, -2)) * scale
                    if mask is not None:
                        s.masked_fill_(~mask, float("-inf"))
                    lse[i:i + 1, :, r0:r1] = torch.logsumexp(s, dim=-1)
                    del s
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return o, lse


# Tolerances against the f32 reference, by the output's element type: the CUTLASS example's own for
# fp16 (max 1e-2, mean 1e-3, on O and LSE alike), 4x those for bf16 (3 fewer mantissa bits).
TOLERANCES = {"fp16": dict(o_max=1e-2, o_mean=1e-3, lse_max=1e-2, lse_mean=1e-3),
              "bf16": dict(o_max=4e-2, o_mean=4e-3, lse_max=1e-2, lse_mean=1e-3)}


def check(out, lse, q, k, v, causal, scale=None, layout="bhsd", lse_log2=False, tol=None):
    """Checks an attention forward against an f32 reference (SDPA, MATH backend, float32 inputs).

    out: (b,h,sq,d) like q ("bhsd"), or (b,sq,h,d) for all of out, q, k, v with layout="bshd"; k
    and v may have fewer heads (grouped-query, h a multiple of theirs);
    lse: (b,h,sq) log-sum-exp of the scaled (masked) scores per query row, natural log (log2 with
    lse_log2=True), or None to check out alone; scale: None for 1/sqrt(d); causal: aligned top left
    (row i sees keys 0..i), as torch's is_causal. tol: dict overriding TOLERANCES[dtype of out].
    Returns dict(ok, o_max, o_mean, lse_max, lse_mean, tol): absolute errors (f32 arithmetic)."""
    torch = _torch()
    if layout == "bshd":
        out, q, k, v = (x.transpose(1, 2) for x in (out, q, k, v))
    elif layout != "bhsd":
        raise ValueError(f"layout {layout!r}: bhsd or bshd")
    if k.shape[1] != q.shape[1]:  # grouped-query: each kv head serves h/hk query heads
        k, v = (x.repeat_interleave(q.shape[1] // x.shape[1], dim=1) for x in (k, v))
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    name = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(out.dtype, "bf16")
    t = dict(TOLERANCES[name], **(tol or {}))
    ro, rl = _f32_reference(q, k, v, causal, scale)
    err = (out.float() - ro).abs()
    r = dict(o_max=err.max().item(), o_mean=err.mean().item(), lse_max=None, lse_mean=None, tol=t)
    ok = math.isfinite(r["o_max"]) and r["o_max"] < t["o_max"] and r["o_mean"] < t["o_mean"]
    if lse is not None:
        got = lse.float().reshape(rl.shape)
        if lse_log2:
            got = got * math.log(2.0)
        # Rows with every key masked have lse -inf on both sides; compare the finite ones.
        fin = torch.isfinite(rl)
        e = (got[fin] - rl[fin]).abs()
        r["lse_max"], r["lse_mean"] = e.max().item(), e.mean().item()
        ok = ok and math.isfinite(r["lse_max"]) and r["lse_max"] < t["lse_max"] and r["lse_mean"] < t["lse_mean"]
    r["ok"] = bool(ok)
    return r


CUTLASS_LINE = re.compile(r"^\s*\[(OK|--|FAIL)\]\s+(.*?)\s*:\s*(\S+)\s+TFLOPS/s")


def cutlass_run(binary, b, h, sq, sk, d, causal, iters=20, verify=False, timeout=600):
    """Runs the CUTLASS 88 example at one shape; dict(variants={name: TFLOP/s}, status={name: OK|--|FAIL},
    best, best_variant, log)."""
    cmd = [binary, f"--b={b}", f"--h={h}", f"--q={sq}", f"--k={sk}", f"--d={d}",
           f"--mask={'causal' if causal else 'no'}", f"--iterations={iters}"]
    if verify:
        cmd.append("--verify")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    variants, status = {}, {}
    for line in p.stdout.splitlines():
        m = CUTLASS_LINE.match(line)
        if m:
            try:
                variants[m.group(2)] = float(m.group(3))
            except ValueError:
                variants[m.group(2)] = float("nan")
            status[m.group(2)] = m.group(1)
    good = {n: t for n, t in variants.items() if status[n] != "FAIL" and math.isfinite(t) and t > 0}
    best = max(good, key=good.get) if good else None
    return dict(cmd=" ".join(cmd), rc=p.returncode, variants=variants, status=status,
                best=good.get(best), best_variant=best, log=(p.stdout + p.stderr)[-4000:])


def _key(s):
    return (f"d{s['d']}_h{s['h']}_b{s['b']}_s{s['sq']}_{'causal' if s['causal'] else 'full'}_"
            f"{SHORT.get(s['dtype'], s['dtype'])}")


def measure(shape, q=None, k=None, v=None, scale=None, cutlass=None, cutlass_bf16=None, iters=20, warmup=5,
            check_outputs=False, cutlass_verify=False):
    """The anchors at one shape (a dict of shapes()): flat keys, for a row of table():
    cudnn, flash (TFLOP/s), cudnn_ms, flash_ms, [cudnn_check, flash_check (check()'s dicts) with
    check_outputs], cutlass (best TFLOP/s over its variants), cutlass_variant, cutlass_variants,
    cutlass_cmd; X_error where one failed. q, k, v: the inputs to time on (made by inputs() when
    None). CUTLASS runs its own inputs: the fp16 binary `cutlass` for float16 rows, `cutlass_bf16`
    for bfloat16 ones."""
    torch = _torch()
    s = shape
    b, h, sq, sk, d, causal = (s[x] for x in ("b", "h", "sq", "sk", "d", "causal"))
    if q is None:
        q, k, v = inputs(b, h, sq, sk, d, s["dtype"])
    row = {}
    for be in BACKENDS:
        try:
            t = sdpa_time(be, b, h, sq, sk, d, s["dtype"], causal, iters, warmup, scale, qkv=(q, k, v))
            row[be], row[be + "_ms"] = t["tflops"], t["ms"]
            if check_outputs:
                o, lse = sdpa_with_lse(be, q, k, v, causal, scale)
                row[be + "_check"] = check(o, lse, q, k, v, causal, scale)
                del o, lse
        except Exception as e:
            row[be], row[be + "_error"] = None, f"{type(e).__name__}: {e}"[:500]
        torch.cuda.empty_cache()
    binary = cutlass if _dtype(s["dtype"]) == torch.float16 else cutlass_bf16
    if binary:
        if scale is not None and abs(scale - 1.0 / math.sqrt(d)) > 1e-6:
            row["cutlass_error"] = "CUTLASS 88 scales by 1/sqrt(d) only"
        try:
            c = cutlass_run(binary, b, h, sq, sk, d, causal, iters, cutlass_verify)
            row.update(cutlass=c["best"], cutlass_variant=c["best_variant"], cutlass_variants=c["variants"],
                       cutlass_status=c["status"], cutlass_cmd=c["cmd"])
            if c["best"] is None or c["rc"]:
                row["cutlass_error"] = f"rc {c['rc']}: {c['log'][-600:]}"
        except Exception as e:
            row["cutlass"], row["cutlass_error"] = None, f"{type(e).__name__}: {e}"[:500]
    return row


def table(rows, ours=None):
    """Markdown: one line per row (shape keys and measure()'s), TFLOP/s; `ours`: the key of an
    extra column (e.g. "ours") put first, with its ratio to the best anchor."""
    def num(r, key):
        x = r.get(key)
        if x is None:
            return "error" if r.get(key + "_error") else "-"
        c = r.get(key + "_check")
        return f"{x:.1f}" + ("" if c is None or c["ok"] else " (check FAILED)")
    head = "| dtype | d | h | b x seq | mask |" + (f" {ours} | {ours} / best |" if ours else "")
    head += " cuDNN | FA2 | CUTLASS 88 best | CUTLASS variant |"
    lines = [head, "|" + "---|" * head.count(" |")]
    for r in rows:
        line = (f"| {SHORT.get(r['dtype'], r['dtype'])} | {r['d']} | {r['h']} | {r['b']} x {r['sq']} | "
                f"{'causal' if r['causal'] else 'none'} |")
        if ours:
            best = max([r[x] for x in ("cudnn", "flash", "cutlass") if r.get(x)] or [0])
            mine = r.get(ours)
            line += f" {num(r, ours)} | {f'{mine / best:.2f}' if mine and best else '-'} |"
        line += (f" {num(r, 'cudnn')} | {num(r, 'flash')} | {num(r, 'cutlass')} | "
                 f"{r.get('cutlass_variant') or '-'} |")
        lines.append(line)
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="target/gpu-out", help="folder for attention_anchors.json/.tsv")
    ap.add_argument("--cutlass", help="CUTLASS 88_hopper_fmha binary (fp16), e.g. target/gpu/cutlass_88_fmha")
    ap.add_argument("--cutlass-bf16", help="its bf16 build (FMHA_BF16=1 tools/gpu/build-fmha-anchor.sh)")
    ap.add_argument("--quick", action="store_true", help="one shape per group (seq 4096, batch 4)")
    ap.add_argument("--iters", type=int, default=20, help="timed calls (median) / CUTLASS --iterations")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--no-check", action="store_true", help="skip checking torch's outputs against f32")
    ap.add_argument("--cutlass-verify", action="store_true",
                    help="pass --verify to CUTLASS (its naive reference kernel: slow at 16k)")
    a = ap.parse_args(argv)

    torch = _torch()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.cuda.get_device_properties(0)
    meta = dict(device=dev.name, sm=f"{dev.major}.{dev.minor}", torch=torch.__version__,
                cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(), iters=a.iters,
                warmup=a.warmup, flops="4*b*h*sq*sk*d, /2 causal")
    print(f"# {meta['device']} (sm {meta['sm']}), torch {meta['torch']}, CUDA {meta['cuda']}, "
          f"cuDNN {meta['cudnn']}", file=sys.stderr)
    results = []
    for s in shapes(a.quick):
        q, k, v = inputs(s["b"], s["h"], s["sq"], s["sk"], s["d"], s["dtype"])
        row = dict(s)
        row.update(measure(s, q, k, v, cutlass=a.cutlass, cutlass_bf16=a.cutlass_bf16, iters=a.iters,
                           warmup=a.warmup, check_outputs=not a.no_check, cutlass_verify=a.cutlass_verify))
        del q, k, v
        torch.cuda.empty_cache()
        results.append(row)
        print(f"{_key(s)}: " + ", ".join(f"{x} {row[x]:.1f}" if row.get(x) else f"{x} -"
                                          for x in BACKENDS + ("cutlass",)), file=sys.stderr, flush=True)

    with open(os.path.join(a.out, "attention_anchors.json"), "w") as f:
        json.dump(dict(meta=meta, results=results), f, indent=1)
    with open(os.path.join(a.out, "attention_anchors.tsv"), "w") as f:
        for r in results:
            for x, name in (("cudnn", "cudnn"), ("flash", "fa2"), ("cutlass", "cutlass88")):
                if r.get(x):
                    f.write(f"attn_{name}_{_key(r)}\t{r[x]:.1f}\tTFLOP/s\n")

    print(f"Attention forward, TFLOP/s (4*b*h*sq*sk*d, /2 causal; median of {a.iters} (CUTLASS: mean); "
          f"{meta['device']}, torch {meta['torch']}, cuDNN {meta['cudnn']})\n")
    print(table(results))
    bad = 0
    for r in results:
        for x in BACKENDS + ("cutlass",):
            if r.get(x + "_error"):
                print(f"\n{_key(r)} {x}: {r[x + '_error']}")
            c = r.get(x + "_check")
            if c and not c["ok"]:
                bad += 1
                print(f"\n{_key(r)} {x}: check FAILED {c}")
            elif c:
                print(f"\n{_key(r)} {x}: check ok (max|O-ref| {c['o_max']:.2e}, max|lse-ref| "
                      f"{'-' if c['lse_max'] is None else format(c['lse_max'], '.2e')})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
