#!/usr/bin/env python3
"""The launch bounds of a kernel crate's PTX: those its entry points carry (`applied`), those it
declares in comments (`declared`), and the directives added where they are declared only (`apply`).

`kernel!`'s `#[launch_bounds(T, B)]` (const_layout_device::launch_bounds!) leaves a comment in
the PTX, `// const-layout: launch_bounds NAME T B`, and the PTX builder is to turn it into
`.maxntid T, 1, 1` and `.minnctapersm B` after the entry's parameter list (what nvcc emits for
`__launch_bounds__(T, B)`). const-layout-builder does that step: its PTX carries the directives
and `apply` adds nothing. A PTX built without that step has only the comments: ptxas then does not
know the bounds (more registers, fewer blocks a multiprocessor). `apply` adds the directives to the
entries that lack them (an entry that has a `.maxntid` is left as it is).

usage: ptx_bounds.py IN.ptx OUT.ptx   (prints what it added)
"""
import re
import sys

MARKER = re.compile(r"//\s*const-layout: launch_bounds (\w+) (\d+) (\d+)")


def declared(ptx):
    """{entry: (threads, blocks)} from the markers."""
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in MARKER.finditer(ptx)}


ENTRY = re.compile(r"\.visible\s+\.entry\s+(\w+)\s*\(")


def applied(ptx):
    """{entry: (maxntid x, minnctapersm or None)} of the entries that carry a `.maxntid` between
    their parameter list and their body."""
    out = {}
    for m in ENTRY.finditer(ptx):
        body = ptx.find("{", m.end())
        close = ptx.rfind(")", m.end(), body)
        head = ptx[close + 1:body] if close >= 0 and body >= 0 else ""
        head = "\n".join(line.split("//")[0] for line in head.split("\n"))
        t = re.search(r"\.maxntid\s+(\d+)", head)
        b = re.search(r"\.minnctapersm\s+(\d+)", head)
        if t:
            out[m.group(1)] = (int(t.group(1)), int(b.group(1)) if b else None)
    return out


def apply(ptx):
    """(new PTX text, {entry: (threads, blocks)} added)."""
    bounds = declared(ptx)
    lines = ptx.split("\n")
    out, added = [], {}
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*\.visible\s+\.entry\s+(\w+)\s*\(", line)
        if not m or m.group(1) not in bounds:
            out.append(line)
            i += 1
            continue
        name = m.group(1)
        # The parameter list ends at the first line that is `)` (with a comment, maybe).
        j = i
        while j < len(lines) and not re.match(r"^\s*\)(\s*//.*)?\s*$", lines[j]):
            j += 1
        if j == len(lines):  # no such line: leave the rest untouched
            out.extend(lines[i:])
            break
        out.extend(lines[i:j + 1])
        # Directives already there (between `)` and `{`)?
        k = j + 1
        has = False
        while k < len(lines) and not lines[k].lstrip().startswith("{"):
            if ".maxntid" in lines[k] or ".minnctapersm" in lines[k]:
                has = True
            k += 1
        if not has:
            threads, blocks = bounds[name]
            out.append(f".maxntid {threads}, 1, 1")
            out.append(f".minnctapersm {blocks}")
            added[name] = bounds[name]
        i = j + 1
    return "\n".join(out), added


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    text, added = apply(open(sys.argv[1]).read())
    open(sys.argv[2], "w").write(text)
    for name, (t, b) in sorted(added.items()):
        print(f"ptx_bounds: {name}: .maxntid {t}, 1, 1; .minnctapersm {b}")
    if not added:
        print("ptx_bounds: nothing to add")
    return 0


if __name__ == "__main__":
    sys.exit(main())
