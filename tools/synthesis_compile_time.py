#!/usr/bin/env python3
"""The compile time of static swizzle-synthesis queries (the goal: at most 20 ms of `cargo
build` each). Writes a crate under target/synthesis-compile-time with 50 `const` queries of
`const_layout::synthesis::best_swizzle` (K-major and MN-major 16-bit tiles of 8 to 128 rows,
vector widths 1 to 8, and 32-bit tiles) and a twin with none, builds each (debug, after one warm-up
build of the dependencies), best of 3, and prints the difference per query. With `--general`,
the queries are `best_linear` (the general F2 layout, which runs `best_swizzle` first); with
`--hard` as well, 50 queries that no `Sw<B,M,S>` serves (writes whose phases read rows 0..7, reads
whose phases read the even or the odd rows, tiles of 16 to 1024 rows of 64 halves), so that every
one builds a general layout.

    python3 tools/synthesis_compile_time.py [--general [--hard]]
"""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "synthesis-compile-time")


def bits(parts):
    return [base << i for base, n in parts for i in range(n)]


def k_major(rows):
    """(tile bits, write bases, read bases) of a rows x 64 tile of halves, row-major."""
    rb = rows.bit_length() - 1
    tb = min(rb, 4)
    w = bits([(8, 3), (64, tb)]) + bits([(1, 3)]) + bits([(64 << tb, rb - tb)])
    r = bits([(64, 3), (8, 2)]) + bits([(1, 3), (32, 1), (512, rb - 3)])
    return 6 + rb, (w, 3 + tb), (r, 5)


def queries():
    out = []
    for rows in (8, 16, 32, 64, 128):
        for vw in (8, 4):
            for vr in (8, 4, 2, 1):
                tile, (w, wt), (r, rt) = k_major(rows)
                out.append((tile, 2, w, wt, vw, r, rt, vr))
    for vw in (8, 4, 2, 1):
        for vr in (8, 4):
            out.append((9, 2, bits([(8, 3), (64, 2)]) + bits([(1, 3), (256, 1)]), 5, vw,
                        bits([(64, 3), (8, 2)]) + bits([(1, 3), (32, 1)]), 5, vr))
    for vw, vr in ((4, 2), (4, 1)):
        out.append((8, 4, bits([(4, 3), (32, 2)]) + bits([(1, 2), (128, 1)]), 5, vw,
                    bits([(32, 3), (2, 2)]) + bits([(1, 1), (8, 2)]), 5, vr))
    return out[:50]


def hard_queries():
    out = []
    for rb in range(4, 11):
        more = bits([(1024, rb - 4)])
        for vw in (8, 4, 2, 1):
            for vr in (8, 4):
                w = bits([(64, 3), (8, 2), (512, 1)]) + more + bits([(1, 3), (32, 1)])
                r = bits([(128, 3), (8, 2), (64, 1)]) + more + bits([(1, 3), (32, 1)])
                out.append((6 + rb, 2, w, 6 + rb - 4, vw, r, 6 + rb - 4, vr))
    return out[:50]


GENERAL = "--general" in sys.argv[1:]
HARD = GENERAL and "--hard" in sys.argv[1:]
FUNC, CHOICE, ANSWER = ("best_linear", "LinearChoice", "conflicts()") if GENERAL else ("best_swizzle", "Choice", "swizzle")


def write_crate(path, n):
    os.makedirs(os.path.join(path, "src"), exist_ok=True)
    with open(os.path.join(path, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "{os.path.basename(path)}"\nversion = "0.1.0"\nedition = "2024"\n'
                f'[dependencies]\nconst-layout = {{ path = "{ROOT}" }}\n[workspace]\n')
    lines = [
        "use const_layout::bank::{AccessKind, NVIDIA};",
        "use const_layout::linear::LinearLayout;",
        f"use const_layout::synthesis::{{{FUNC}, Access, {CHOICE}}};",
        "#[allow(dead_code)]",
        "const fn l(basis: &[u32], bits: u32) -> LinearLayout { match LinearLayout::new(basis, bits) { Ok(l) => l, Err(_) => panic!(\"bases\") } }",
        "#[allow(dead_code)]",
        f"const fn c(r: Result<{CHOICE}, const_layout::LayoutError>) -> {CHOICE} {{ match r {{ Ok(c) => c, Err(_) => panic!(\"query\") }} }}",
    ]
    names = []
    for i, (tile, eb, w, wt, vw, r, rt, vr) in enumerate((hard_queries() if HARD else queries())[:n]):
        lines.append(f"const Q{i}: {CHOICE} = c({FUNC}(&NVIDIA, &LinearLayout::identity({tile}), {eb}, "
                     f"&Access {{ kind: AccessKind::Store, tv: l(&{w}, {tile}), thread_bits: {wt}, vec: {vw} }}, "
                     f"&Access {{ kind: AccessKind::Load, tv: l(&{r}, {tile}), thread_bits: {rt}, vec: {vr} }}));")
        names.append(f"Q{i}.{ANSWER}")
    lines.append("fn main() {")
    for name in names:
        lines.append(f'    println!("{{}}", {name});')
    lines.append("}")
    with open(os.path.join(path, "src", "main.rs"), "w") as f:
        f.write("\n".join(lines) + "\n")


def build(path):
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(OUT, "target"))
    subprocess.run(["cargo", "build", "-q"], cwd=path, env=env, check=True)
    best = float("inf")
    for _ in range(3):
        os.utime(os.path.join(path, "src", "main.rs"))
        t = time.perf_counter()
        subprocess.run(["cargo", "build", "-q"], cwd=path, env=env, check=True)
        best = min(best, time.perf_counter() - t)
    return best


def main():
    with_q, without = os.path.join(OUT, "queries-hard" if HARD else "queries-general" if GENERAL else "queries"), os.path.join(OUT, "none")
    write_crate(with_q, 50)
    write_crate(without, 0)
    a, b = build(with_q), build(without)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(OUT, "target"))
    answers = subprocess.run(["cargo", "run", "-q"], cwd=with_q, env=env, capture_output=True, text=True).stdout.split()
    print(f"{len((hard_queries() if HARD else queries())[:50])} {FUNC}{' (hard)' if HARD else ''} queries: {a:.3f} s; none: {b:.3f} s; {1000 * (a - b) / 50:.2f} ms a query "
          f"(best of 3 builds each); answers: {' '.join(sorted(set(answers)))}")
    sys.exit(0 if (a - b) / 50 <= 0.020 else 1)


if __name__ == "__main__":
    main()
