#!/usr/bin/env bash
# Executed instructions per thread of our my-kernels kernels and their CUDA C++ twins, with Nsight
# Compute, on the GPU machine: `bench.py --once` launches each of ours and the twins exactly once
# (16384 rows; 64 x 2048 x 2048), ncu profiles those six launches (no other kernel) and
# ncu_report.py prints inst/thread ours vs twin and the ratio (the goal: <= 1.05).
#   usage: examples/my-kernels/bench/ncu.sh [bench.py options: --ptx P --twins T ...]
# Writes $OUT (default ./bench-out): ncu_once.txt (ncu's CSV and bench.py's output together: the
# CSV lines are the quoted ones) and ncu_once.md (the table).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
NCU=${NCU:-ncu}
METRICS=launch__thread_count,smsp__sass_thread_inst_executed.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
KERNELS='regex:^(softmax_f32|layernorm_f32|transpose_batched_f32|softmax_twin|layernorm_twin|transpose_twin)$'
run_ncu() { # extra ncu options...
  "$NCU" --clock-control none --metrics "$METRICS" -k "$KERNELS" --csv --page raw "$@" \
    python3 "$HERE/bench.py" --once ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"} > "$OUT/ncu_once.txt" 2>&1
}
BENCH_ARGS=("$@")
run_ncu --print-units base
rc=$?
if ! grep -q launch__thread_count "$OUT/ncu_once.txt" 2> /dev/null; then
  echo "ncu.sh: no CSV with --print-units base (rc $rc): $(grep -m3 -i error "$OUT/ncu_once.txt"); again without it"
  run_ncu
  rc=$?
fi
echo "ncu.sh: ncu exit status $rc; bench.py --once said:"
grep -v '^"' "$OUT/ncu_once.txt" | grep -v '^==PROF==' | tail -n 20
python3 "$HERE/ncu_report.py" "$OUT/ncu_once.txt" | tee "$OUT/ncu_once.md"
exit "${PIPESTATUS[0]}"
