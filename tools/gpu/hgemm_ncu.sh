#!/usr/bin/env bash
# Shared-memory bank conflicts of the tensor-core HGEMMs and of CuTe's sgemm_sm80 and wgmma_tma_sm90, with Nsight
# Compute (ncu) on the GPU machine: one launch of each at 5120x5120x4096 TN, every bank-conflict
# counter this ncu has for shared memory (l1tex__data_bank_conflicts_pipe_lsu_mem_shared*), and the
# shared-memory wavefronts they are out of.
#   usage: tools/gpu/hgemm_ncu.sh PTX [CUTE_SGEMM_SM80 [CUTE_WGMMA_TMA_SM90]]   (OUT: where the CSVs go, default target/gpu-out)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/target/gpu-out}
mkdir -p "$OUT"
ncu --query-metrics > "$OUT/ncu_metrics.txt" 2>&1
METRICS=$(grep -o '^l1tex__data_\(bank_conflicts\|pipe_lsu_wavefronts\)_pipe_lsu_mem_shared[a-z_]*\|^l1tex__data_pipe_lsu_wavefronts_mem_shared[a-z_]*' "$OUT/ncu_metrics.txt" |
  sort -u | sed 's/$/.sum/' | paste -sd, -)
echo "ncu metrics: $METRICS"
profile() { # NAME KERNEL-REGEX COMMAND...
  local name=$1 kernel=$2
  shift 2
  ncu --clock-control none --csv --page raw --metrics "$METRICS" -k "regex:$kernel" --launch-count 1 "$@" \
    > "$OUT/ncu_bank_$name.csv" 2> "$OUT/ncu_bank_$name.log" || { echo "ncu $name failed: $(tail -3 "$OUT/ncu_bank_$name.log")"; return; }
  python3 - "$name" "$OUT/ncu_bank_$name.csv" << 'PY'
import csv, sys
name, path = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(open(path)) if r]
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
cols, vals = rows[head], rows[-1]
print(f"{name}: {vals[cols.index('Kernel Name')][:60]}")
for c, v in zip(cols, vals):
    if c.startswith("l1tex__") and c.endswith(".sum"):
        print(f"  {c:70} {v}")
PY
}
for e in tn_f32 tn_f16 nt_f32 nt_f16 sm90_tn_f32 sm90_tn_f16; do
  profile "ours_$e" "hgemm_$e" python3 "$ROOT/tools/gpu/hgemm_bench.py" --once "$1"
done
if [ $# -gt 1 ]; then
  profile cute gemm_device "$2" 5120 5120 4096 T N
fi
if [ $# -gt 2 ]; then
  profile cute_sm90 gemm_device "$3" 5120 5120 4096 T N
fi
