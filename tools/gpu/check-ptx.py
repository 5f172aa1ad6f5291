#!/usr/bin/env python3
"""Checks the kernels' PTX for what zero-cost index math forbids, and prints a line per kernel.

usage: check-ptx.py FILE.ptx

Fails (exit 1, naming the kernel and the line) on:
- `div` or `rem` instructions: static extents divide by multiply-shift, runtime ones by
  FastDivmod; a division in a kernel means index math that did not fold (`div.approx.f32`, the
  device layer's `math::div_approx`, a reciprocal and a multiply, is allowed);
- local memory (`.local`, `local_depot`, `ld.local`/`st.local`): a register array spilled or
  indexed at run time;
- `call`: every device function is inlined; a call is a missed inlining (or a panic path);
- an entry point whose parameters differ from the launcher's ABI (gpu/launcher/src/kernels.rs):
  `TensorParam`s are 64-byte, 8-aligned byte arrays, scalars `.f32`.
"""
import re
import sys

FORBIDDEN = [
    (re.compile(r"^\s*(@%p\d+\s+)?(div(?!\.approx\.)|rem)\.[a-z0-9.]+\s"), "a division or remainder instruction"),
    (re.compile(r"\.local\b|local_depot"), "local memory"),
    (re.compile(r"^\s*(@%p\d+\s+)?call(\.uni)?\b"), "a call"),
]


# The ABI gpu-bench launches with: each entry point's parameters, in order.
TENSOR = ".param .align 8 .b8 {name}[64]"
ABI = {
    "copy_f32": ["tensor", "tensor"],
    "transpose_f32": ["tensor", "tensor"],
    "sgemm_nt_f32": ["tensor", "tensor", "tensor", "f32", "f32"],
    "sgemm_tn_f32": ["tensor", "tensor", "tensor", "f32", "f32"],
}


def params(text, entry):
    """The parameter kinds of `entry` ('tensor', 'f32', or the raw declaration)."""
    start = next(i for i, l in enumerate(text) if re.match(rf"\.visible \.entry {entry}\(", l))
    kinds = []
    for line in text[start + 1:]:
        if line.startswith(")"):
            break
        decl = line.strip().rstrip(",")
        if re.fullmatch(rf"\.param \.align 8 \.b8 {entry}_param_\d+\[64\]", decl):
            kinds.append("tensor")
        elif re.fullmatch(rf"\.param \.f32 {entry}_param_\d+", decl):
            kinds.append("f32")
        else:
            kinds.append(decl)
    return kinds


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    text = open(sys.argv[1]).read().splitlines()
    entry, counts, failures = None, {}, []
    for n, line in enumerate(text, 1):
        m = re.match(r"\.visible \.entry (\w+)\(", line)
        if m:
            entry = m.group(1)
            counts[entry] = 0
            continue
        if entry is None or line.lstrip().startswith("//"):
            continue
        counts[entry] += bool(line.strip()) and not line.strip().startswith(("//", "{", "}", ".reg", "$L"))
        for pattern, what in FORBIDDEN:
            if pattern.search(line):
                failures.append(f"{sys.argv[1]}:{n}: {entry}: {what}: {line.strip()}")
    if not counts:
        failures.append(f"{sys.argv[1]}: no kernel entry point")
    for entry, want in ABI.items():
        if entry not in counts:
            failures.append(f"{sys.argv[1]}: no entry point {entry}")
        elif params(text, entry) != want:
            failures.append(f"{sys.argv[1]}: {entry} takes {params(text, entry)}, the launcher passes {want}")
    for name, c in counts.items():
        print(f"check-ptx: {name}: {c} PTX instructions")
    for f in failures:
        print(f"check-ptx: {f}", file=sys.stderr)
    if failures:
        return 1
    print(f"check-ptx: {len(counts)} kernels, no division, local memory or call; parameters as the launcher passes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
