#!/usr/bin/env python3
"""Instruction statistics of the kernels in a cubin, from `cuobjdump -sass`: per kernel, the
instruction count by class, and for each loop (a backward branch) its body's count by class.

usage: sass_stats.py CUBIN [KERNEL_SUBSTRING ...]   (CUOBJDUMP: the cuobjdump to use)

Loops with tensor-core instructions also get their mix: HMMA/HGMMA, LDSM, LDGSTS/UTMALDG,
LDS, BAR, VOTE (the converged-warp checks) and ISETP counts.

Classes: ffma (FFMA), fp (other float), lds/sts (shared), ldg/stg (global, LDG/STG/LD/ST),
async (LDGSTS, cp.async), bar (BAR), int (integer and address arithmetic: IMAD, IADD3, LEA, SHF,
LOP3, ISETP, SEL, MOV, ...), ctrl (branches, EXIT, NOP), other. 'index' = int, the figure
compared with CuTe's kernel ("index/setup instructions").
"""
import os, re, subprocess, sys
from collections import Counter

LINE = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?);")
CLASSES = [
    ("ffma", ("FFMA",)),
    ("fp", ("FADD", "FMUL", "FSETP", "FMNMX", "FSEL", "MUFU", "FCHK")),
    ("lds", ("LDS", "LDSM")),
    ("sts", ("STS",)),
    ("ldg", ("LDG", "LD")),
    ("stg", ("STG", "ST")),
    ("async", ("LDGSTS", "LDGDEPBAR", "DEPBAR")),
    ("bar", ("BAR",)),
    ("ctrl", ("BRA", "EXIT", "NOP", "BSYNC", "BSSY", "WARPSYNC", "RET", "CALL", "BPT", "YIELD")),
    ("int", ("IMAD", "IADD3", "IADD", "LEA", "SHF", "LOP3", "ISETP", "SEL", "MOV", "IABS", "IMNMX",
             "VIADD", "VIMNMX", "PRMT", "S2R", "S2UR", "CS2R", "LDC", "ULDC", "UMOV", "UIADD3", "ULEA",
             "USHF", "ULOP3", "UIMAD", "UISETP", "USEL", "R2UR", "PLOP3", "P2R", "R2P", "POPC", "FLO",
             "BMSK", "SGXT", "I2F", "F2I", "IMNMX", "UPRMT", "USGXT", "UBMSK", "UFLO", "UPOPC", "ISCADD", "VOTEU", "VOTE")),
]


def classify(op):
    base = op.split(".")[0]
    for name, ops in CLASSES:
        if base in ops:
            return name
    return "other"


def kernels(cubin):
    tool = os.environ.get("CUOBJDUMP", "cuobjdump")
    out = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    name, body = None, []
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = LINE.match(line)
        if m and name:
            text = m.group(2).strip()
            pred = ""
            if text.startswith("@"):
                pred, text = text.split(None, 1)
            op = text.split()[0]
            body.append((int(m.group(1), 16), pred, op, text))
    if name:
        yield name, body


def counts(instrs):
    c = Counter(classify(op) for _, _, op, _ in instrs if op != "NOP")
    c["total"] = sum(v for k, v in c.items())
    return c


def fmt(c):
    keys = ["total", "ffma", "fp", "lds", "sts", "ldg", "stg", "async", "bar", "int", "ctrl", "other"]
    return " ".join(f"{k}={c.get(k, 0)}" for k in keys if c.get(k, 0))


MIX = ("HMMA", "HGMMA", "LDSM", "LDGSTS", "UTMALDG", "LDS", "BAR", "VOTE", "ISETP")


def mix(instrs):
    """A loop's tensor-core instruction mix (the issue's SASS table): the count of each opcode of
    MIX, if the loop has tensor-core instructions."""
    c = Counter(op.split(".")[0] for _, _, op, _ in instrs)
    if not (c["HMMA"] or c["HGMMA"]):
        return ""
    return " ".join(f"{o}={c[o]}" for o in MIX if c[o])


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    want = sys.argv[2:]
    for name, body in kernels(sys.argv[1]):
        if want and not any(w in name for w in want):
            continue
        print(f"{name[:100]}\n  whole: {fmt(counts(body))}")
        addr = {a: i for i, (a, _, _, _) in enumerate(body)}
        for i, (a, pred, op, text) in enumerate(body):
            if op == "BRA":
                m = re.search(r"0x([0-9a-f]+)", text)
                if m and int(m.group(1), 16) <= a and int(m.group(1), 16) in addr:
                    start = addr[int(m.group(1), 16)]
                    print(f"  loop {body[start][0]:#06x}..{a:#06x} ({pred or 'always'}): {fmt(counts(body[start:i + 1]))}")
                    m = mix(body[start:i + 1])
                    if m:
                        print(f"    tensor-core mix: {m}")


if __name__ == "__main__":
    main()
