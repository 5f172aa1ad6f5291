#!/usr/bin/env bash
# Instruction counts of the example kernels, each written with tensors next to its hand-written
# twin, counted by callgrind (reproducible, unlike time on a shared machine): only the kernel
# function itself is collected (`--toggle-collect`), at a size that runs in seconds.
#
#   bash tools/kernel_counts.sh            # needs valgrind (Debian: apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --example transpose --example sgemm
out=$(mktemp -d)
count() { # example kernel size
  valgrind --tool=callgrind --callgrind-out-file="$out/$1.$2" "--toggle-collect=*$1_$2*" \
    "target/release/examples/$1" "$2" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-28s %14s %14s %8s\n' kernel const-layout hand-written ratio
for spec in "transpose 1024" "sgemm 128"; do
  set -- $spec
  l=$(count "$1" layout "$2")
  h=$(count "$1" hand "$2")
  printf '%-28s %14s %14s %8s\n' "$1 ($2)" "$l" "$h" "$(python3 -c "print(f'{$l/$h:.3f}')")"
done
