#!/usr/bin/env bash
# Instructions per operation of the typed runtime algebra next to CuTe's, on the loops of the anchor
# ../shared/anchors/cute_dyn_algebra.cpp (tools/algebra_counts/cute.cpp, g++ -O2; and
# examples/algebra_counts.rs, --release, whose operations are benches/anchor/ops.rs), counted by
# callgrind: reproducible where wall-clock time on a shared machine is not. Each loop runs at two
# iteration counts; the difference over the extra iterations is one operation with its share of
# the loop, without start-up. Where `perf` can count user-mode cycles, also cycles per operation
# (each process's own cycles, so other load matters little; not a wall-clock figure).
#
#   bash tools/algebra_counts.sh     # needs valgrind and the oracle (tools/oracle/include.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=oracle/include.sh
. tools/oracle/include.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release -q --example algebra_counts
# shellcheck disable=SC2086
g++ -std=c++17 -O2 $CUTE_INC tools/algebra_counts/cute.cpp -o "$out/cute"
ours=target/release/examples/algebra_counts
N1=${N1:-2000} N2=${N2:-12000} CYCLES_N=${CYCLES_N:-50000000}
ir() { # binary op iters
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$1" "$2" "$3" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
cycles() { # binary op: cycles per operation, or - without perf
  perf stat -x, -e cycles:u "$1" "$2" "$CYCLES_N" 2>&1 >/dev/null |
    awk -F, -v n="$CYCLES_N" '/cycles/ && $1 ~ /^[0-9]+$/ { printf "%.2f", $1 / n; f = 1 } END { if (!f) printf "-" }'
}
div() { python3 -c "import sys; a, b = sys.argv[1:]; print(f'{float(a)/float(b):.2f}' if '-' not in (a, b) else '-')" "$1" "$2"; }
per_op() { # binary op
  python3 -c "print(f'{($(ir "$1" "$2" "$N2") - $(ir "$1" "$2" "$N1")) / ($N2 - $N1):.1f}')"
}
printf '%-24s %8s %8s %6s   %8s %8s %6s\n' operation 'CuTe Ir' 'ours Ir' ratio 'CuTe cy' 'ours cy' ratio
for op in composition logical_divide:logical_divide logical_divide:logical_divide_static complement; do
  cute_op=${op%%:*} ours_op=${op##*:}
  ci=$(per_op "$out/cute" "$cute_op") oi=$(per_op "$ours" "$ours_op")
  cc=$(cycles "$out/cute" "$cute_op") oc=$(cycles "$ours" "$ours_op")
  printf '%-24s %8s %8s %6s   %8s %8s %6s\n' "$ours_op" "$ci" "$oi" "$(div "$oi" "$ci")" "$cc" "$oc" "$(div "$oc" "$cc")"
done
