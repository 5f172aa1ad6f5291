#!/usr/bin/env bash
# Instruction counts of benches/ck_move.rs's walks and copies, counted by callgrind (reproducible,
# unlike time on a shared machine): only the walk function itself is collected
# (`--toggle-collect`). The walks run at batch 4 and 8 (3,600 and 7,200 positions), so the
# difference gives the instructions per position without the descriptor's construction.
#
#   bash tools/ck_move_counts.sh            # needs valgrind (Debian: apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cargo bench --bench ck_move --no-run --message-format=json -q 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "ck_move" and m.get("executable"):
        print(m["executable"])')
count() { # function batch
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "--toggle-collect=*ck_move::$1*" "$bin" --callgrind "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
i4=$(count incremental 4); i8=$(count incremental 8); r4=$(count recompute 4); r8=$(count recompute 8)
printf '%-34s %12s %12s %8s\n' walk incremental recompute ratio
printf '%-34s %12s %12s %8s\n' "whole walk, 3,600 positions" "$i4" "$r4" "$(python3 -c "print(f'{$i4/$r4:.3f}')")"
printf '%-34s %12s %12s %8s\n' "per position (batch 8 - batch 4)" \
  "$(python3 -c "print(f'{($i8-$i4)/3600:.2f}')")" "$(python3 -c "print(f'{($r8-$r4)/3600:.2f}')")" \
  "$(python3 -c "print(f'{($i8-$i4)/($r8-$r4):.3f}')")"
cv=$(count copy_vectors 4); ce=$(count copy_elements 4)
printf '%-34s %12s %12s %8s\n' "copy 64x64 into rows of 72" "$cv" "$ce" "$(python3 -c "print(f'{$cv/$ce:.3f}')")"
