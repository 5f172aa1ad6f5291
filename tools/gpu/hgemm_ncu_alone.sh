#!/usr/bin/env bash
# The sm80 HGEMM's shared-load bank-conflict counter with a block alone on its multiprocessor and
# with two (the timed configuration): one launch of hgemm_tn_{f32,f16} each, 5120x5120 with k = 64
# (one k tile) and k = 4096, the dynamic shared memory as the kernel needs it (two blocks a
# multiprocessor) or 200,000 bytes (one), under Nsight Compute on the GPU machine.
#   usage: tools/gpu/hgemm_ncu_alone.sh PTX
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,sm__warps_active.avg.per_cycle_active"
for k in 64 4096; do
  for spec in "$1" "$1:128:200000"; do
    for e in hgemm_tn_f32 hgemm_tn_f16; do
      echo "== $e k=$k $( [ "$spec" = "$1" ] && echo 'two blocks a multiprocessor' || echo 'one block a multiprocessor')"
      ncu --clock-control none --csv --page raw --metrics "$M" -k "regex:^$e\$" --launch-count 1 \
        python3 "$ROOT/tools/gpu/hgemm_bench.py" --once "$spec" 5120 5120 "$k" 2>/dev/null | python3 -c "
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if r]
h = next(i for i, r in enumerate(rows) if 'Kernel Name' in r)
for c, v in zip(rows[h], rows[-1]):
    if c.endswith(('.sum', 'per_cycle_active')) and c.startswith(('l1tex', 'sm__warps_active.avg')):
        print(f'  {c:70} {v}')"
    done
  done
done
