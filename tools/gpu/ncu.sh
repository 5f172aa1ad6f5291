#!/usr/bin/env bash
# Instructions executed per thread, by class, in our kernels and in CuTe's, with Nsight Compute
# (ncu) on the GPU machine: the "zero cost" comparison (index and setup arithmetic per thread,
# ours against CuTe's own kernel). Run after tools/gpu/prepare.sh, like tools/gpu/run.sh.
#   usage: tools/gpu/ncu.sh [M N K]   (GEMM size for both, default 2048 2048 2048)
# Writes $OUT/ncu_*.csv and prints per-thread figures (metric sum / launched threads).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$ROOT/target/gpu
OUT=${OUT:-$ROOT/target/gpu-out}
mkdir -p "$OUT"
M=${1:-2048} N=${2:-2048} K=${3:-2048}
# The instruction-class counters this ncu knows (names differ between versions).
ncu --query-metrics > "$OUT/ncu_metrics.txt" 2>&1
WANT="launch__thread_count,smsp__sass_thread_inst_executed.sum"
for c in integer fp32 memory control bit conversion uniform misc inter_thread_communication; do
  if grep -q "^smsp__sass_thread_inst_executed_op_${c}_pred_on " "$OUT/ncu_metrics.txt"; then
    WANT="$WANT,smsp__sass_thread_inst_executed_op_${c}_pred_on.sum"
  fi
done
echo "ncu metrics: $WANT"
profile() { # NAME KERNEL-REGEX COMMAND...
  local name=$1 kernel=$2
  shift 2
  ncu --csv --page raw --metrics "$WANT" -k "regex:$kernel" --launch-count 1 "$@" > "$OUT/ncu_$name.csv" 2> "$OUT/ncu_$name.log" ||
    { echo "ncu $name failed: $(tail -3 "$OUT/ncu_$name.log")"; return; }
  python3 - "$name" "$OUT/ncu_$name.csv" << 'PY'
import csv, sys
name, path = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(open(path)) if r]
head = next(i for i, r in enumerate(rows) if "launch__thread_count" in r)
keys, data = rows[head], rows[head + 2:]
for r in data:
    v = dict(zip(keys, r))
    threads = float(v["launch__thread_count"].replace(",", ""))
    parts = [f"{k.replace('smsp__sass_thread_inst_executed', 'inst').replace('_pred_on.sum', '')}="
             f"{float(v[k].replace(',', '')) / threads:.1f}" for k in keys if k.startswith("smsp__")]
    print(f"{name}: {v.get('Kernel Name', '?')[:40]}: per thread: " + " ".join(parts))
PY
}
profile cute_sgemm_nt gemm_device "$G/cute_sgemm_2" "$M" "$N" "$K" N T
profile cute_sgemm_tn gemm_device "$G/cute_sgemm_2" "$M" "$N" "$K" T N
profile ours_sgemm_nt sgemm_nt "$G/gpu-bench" --ptx "$G/const_layout_kernels.ptx" --only sgemm --size-gemm "$M" "$N" "$K" --check-only
profile ours_sgemm_tn sgemm_tn "$G/gpu-bench" --ptx "$G/const_layout_kernels.ptx" --only sgemm --size-gemm "$M" "$N" "$K" --check-only
profile cute_copy copy_kernel "$G/cute_tiled_copy"
profile ours_copy copy_f32 "$G/gpu-bench" --ptx "$G/const_layout_kernels.ptx" --only copy --size-copy 256 512 --check-only
profile ours_transpose transpose_f32 "$G/gpu-bench" --ptx "$G/const_layout_kernels.ptx" --only transpose --size-copy 8192 8192 --check-only
