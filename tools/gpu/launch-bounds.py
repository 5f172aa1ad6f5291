#!/usr/bin/env python3
"""Writes CUDA's `__launch_bounds__` into the kernels' PTX: rustc has no attribute for it, so the
entry points declare theirs in a comment of gpu/ptx/src/lib.rs,

    // launch-bounds: NAME MAX_THREADS MIN_BLOCKS_PER_SM

and this script adds `.maxntid MAX_THREADS, 1, 1` and `.minnctapersm MIN_BLOCKS_PER_SM` between the
entry's parameter list and its body (PTX's performance-tuning directives, what nvcc emits for
`__launch_bounds__(MAX_THREADS, MIN_BLOCKS_PER_SM)`): ptxas then keeps the registers to what
that many blocks per multiprocessor allow.

usage: launch-bounds.py FILE.ptx gpu/ptx/src/lib.rs   (rewrites FILE.ptx in place)
"""
import re
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ptx_path, src_path = sys.argv[1], sys.argv[2]
    bounds = {m.group(1): (int(m.group(2)), int(m.group(3)))
              for m in re.finditer(r"^\s*// launch-bounds: (\w+) (\d+) (\d+)\s*$", open(src_path).read(), re.M)}
    lines = open(ptx_path).read().split("\n")
    out, entry, done = [], None, set()
    for line in lines:
        m = re.match(r"\.visible \.entry (\w+)\(", line)
        if m:
            entry = m.group(1)
        if entry and re.match(r"^\)(\s*//.*)?$", line):
            out.append(line)
            if entry in bounds:
                threads, blocks = bounds[entry]
                out.append(f".maxntid {threads}, 1, 1")
                out.append(f".minnctapersm {blocks}")
                done.add(entry)
            entry = None
            continue
        out.append(line)
    missing = set(bounds) - done
    if missing:
        print(f"launch-bounds: no entry point {', '.join(sorted(missing))} in {ptx_path}", file=sys.stderr)
        return 1
    open(ptx_path, "w").write("\n".join(out))
    for name in sorted(done):
        print(f"launch-bounds: {name}: {bounds[name][0]} threads, {bounds[name][1]} blocks per SM")
    return 0


if __name__ == "__main__":
    sys.exit(main())
