#!/usr/bin/env bash
# The typed runtime algebra next to CuTe, on the loops of CuTe's anchor program
# cute_dyn_algebra.cpp (tools/algebra_counts/cute.cpp, g++ -O2; and
# examples/algebra_counts.rs, --release, whose operations are benches/anchor/ops.rs), in one run:
# - instructions per operation, counted by callgrind (reproducible where time on a shared machine
#   is not): each loop runs at two iteration counts, and the difference over the extra iterations
#   is one operation with its share of the loop, without start-up;
# - wall-clock time per operation: CuTe's loop and ours run in turn, ROUNDS times each (5 million
#   operations a run, the anchor's count), and the table gives the median and the minimum of each
#   side and the ratio of the medians. Interleaving makes both sides meet the same load; the
#   median of several runs keeps one disturbed run from deciding the figure.
#
#   bash tools/algebra_counts.sh     # needs valgrind and the oracle (tools/oracle/include.sh)
#   ROWS='complement:dyn_complement' ROUNDS=3 bash tools/algebra_counts.sh   # some rows
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
N1=${N1:-2000} N2=${N2:-12000} ITERS=${ITERS:-5000000} ROUNDS=${ROUNDS:-9}
# The runtime-structured rows' own loop runs fewer operations (each takes far longer than CuTe's).
DYN_ITERS=${DYN_ITERS:-200000}
ir() { # binary op iters
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$1" "$2" "$3" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_op() { # binary op
  python3 -c "print(f'{($(ir "$1" "$2" "$N2") - $(ir "$1" "$2" "$N1")) / ($N2 - $N1):.1f}')"
}
ns() { # binary op [iters]: one timed run's ns per operation
  "$1" "$2" "${3:-$ITERS}" 2>&1 >/dev/null | sed -n 's/^ns\/op \([0-9.]*\)$/\1/p'
}
stats() { # "median min" of the numbers on stdin
  python3 -c 'import statistics, sys; v = [float(x) for x in sys.stdin.read().split()]; print(f"{statistics.median(v):.2f} {min(v):.2f}")'
}
printf '%-22s %7s %7s %5s   %9s %9s %9s %9s %5s\n' operation 'CuTe Ir' 'ours Ir' ratio \
  'CuTe med' 'CuTe min' 'ours med' 'ours min' ratio
# ROWS picks rows (all by default); a row is CUTE_OP:OUR_OP. The dyn_ rows are the runtime-structured
# algebra (`algebra` on `DynLayout`) on the same loops.
ROWS=${ROWS:-composition logical_divide:logical_divide logical_divide:logical_divide_static complement composition:dyn_composition logical_divide:dyn_logical_divide complement:dyn_complement}
for op in $ROWS; do
  cute_op=${op%%:*} ours_op=${op##*:}
  ci=$(per_op "$out/cute" "$cute_op") oi=$(per_op "$ours" "$ours_op")
  : > "$out/c" ; : > "$out/o"
  for _ in $(seq "$ROUNDS"); do
    ns "$out/cute" "$cute_op" >> "$out/c"
    case $ours_op in dyn_*) ns "$ours" "$ours_op" "$DYN_ITERS" ;; *) ns "$ours" "$ours_op" ;; esac >> "$out/o"
  done
  read -r cm cn < <(stats < "$out/c")
  read -r om on < <(stats < "$out/o")
  printf '%-22s %7s %7s %5s   %9s %9s %9s %9s %5s\n' "$ours_op" "$ci" "$oi" \
    "$(python3 -c "print(f'{$oi/$ci:.2f}')")" "$cm" "$cn" "$om" "$on" "$(python3 -c "print(f'{$om/$cm:.2f}')")"
done
