#!/usr/bin/env bash
# Runtime index math and algebra next to CuTe's, in one run: CuTe's anchor program
# cute_dyn_algebra.cpp (path in $ANCHOR; g++ -O2, needs the oracle of tools/oracle/setup.sh),
# then `cargo bench --bench dyn_index` and `--bench algebra` (criterion groups are named after the
# anchor's lines). Prints one table: ns per operation, CuTe's and each variant's, and the ratio.
# Wall-clock needs a quiet machine; tools/algebra_counts.sh counts the algebra's instructions and
# cycles per operation reproducibly.
set -euo pipefail
cd "$(dirname "$0")/.."
ANCHOR=${ANCHOR:?set ANCHOR to the path of the anchor program cute_dyn_algebra.cpp}
# shellcheck source=oracle/include.sh
. tools/oracle/include.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo bench --bench dyn_index --bench algebra --no-run 2>/dev/null
# shellcheck disable=SC2086
g++ -std=c++17 -O2 $CUTE_INC "$ANCHOR" -o "$out/anchor"
"$out/anchor" | tee "$out/cute.txt"
# Operations per criterion iteration, per bench (see each bench's OPS).
cargo bench --bench dyn_index -- --warm-up-time 1 --measurement-time 3 2>&1 | tee "$out/dyn_index.txt"
cargo bench --bench algebra -- --warm-up-time 1 --measurement-time 3 2>&1 | tee "$out/algebra.txt"
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
unit = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
cute = {}
for line in open(f"{out}/cute.txt"):
    m = re.match(r"(.*?)\s+([\d.]+) ns/op", line)
    if m:
        cute[m.group(1).strip()] = float(m.group(2))
rows = []
for bench, ops in (("dyn_index", 65536), ("algebra", 256)):
    text = open(f"{out}/{bench}.txt").read()
    for m in re.finditer(r"^(\S[^\n]*?)\s*\n?\s*time:\s+\[\S+ \S+ ([\d.]+) (\S+) \S+ \S+\]", text, re.M):
        name, t, u = m.group(1).strip(), float(m.group(2)), m.group(3)
        group, _, variant = name.rpartition("/")
        rows.append((group, variant, t * unit[u] / ops))
print()
print(f"| {'operation (anchor line)':44} | {'CuTe ns/op':>10} | {'variant':18} | {'ns/op':>10} | {'ratio':>7} |")
print(f"|{'-'*46}|{'-'*12}|{'-'*20}|{'-'*12}|{'-'*9}|")
for group, variant, ns in rows:
    c = cute.get(group)
    ratio = f"{ns / c:.3f}" if c else "-"
    print(f"| {group:44} | {c if c else float('nan'):10.2f} | {variant:18} | {ns:10.2f} | {ratio:>7} |")
PY
