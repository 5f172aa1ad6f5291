#!/usr/bin/env bash
# Executed instructions per thread of our my-kernels kernels and their CUDA C++ twins, with Nsight
# Compute, on the GPU machine: `bench.py --once` launches each of ours and the twins exactly once
# (16384 rows; 64 x 2048 x 2048), ncu profiles those launches (no other kernel: -k; at most 6
# launches, -c: ours and twin of 3 cases, softmax, layernorm and the transpose) and ncu_report.py
# prints inst/thread ours vs twin and the ratio (the goal: <= 1.05).
#   usage: examples/my-kernels/bench/ncu.sh [bench.py options: --ptx P --twins T ...]
# Writes $OUT (default ./bench-out): ncu_once.txt (ncu's CSV and bench.py's output together: the
# CSV lines are the quoted ones) and ncu_once.md (the table). The ncu runs together are limited to
# NCU_TIMEOUT seconds (default 180; about 1 minute expected).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
NCU=${NCU:-ncu}
METRICS=launch__thread_count,smsp__sass_thread_inst_executed.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
KERNELS='regex:^((softmax|layernorm)_f32|transpose_batched_f32|(softmax|layernorm|transpose)_twin)$'
BUDGET=${NCU_TIMEOUT:-180}
run_ncu() { # seconds, extra ncu options...
  local limit=$1
  shift
  timeout -k 15 "$limit" "$NCU" --clock-control none --metrics "$METRICS" -k "$KERNELS" -c 6 --csv \
    --page raw "$@" python3 "$HERE/bench.py" --once ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"} > "$OUT/ncu_once.txt" 2>&1
}
BENCH_ARGS=("$@")
rm -f "$OUT/ncu_once.md"
run_ncu "$BUDGET" --print-units base
rc=$?
left=$((BUDGET - SECONDS))
if [ "$rc" != 124 ] && ! grep -q launch__thread_count "$OUT/ncu_once.txt" 2> /dev/null; then
  if [ "$left" -ge 30 ]; then
    echo "ncu.sh: no CSV with --print-units base (rc $rc): $(grep -m3 -i error "$OUT/ncu_once.txt"); again without it"
    run_ncu "$left"
    rc=$?
  else
    echo "ncu.sh: no CSV (rc $rc) and ${left} s left of NCU_TIMEOUT: not run again"
  fi
fi
[ "$rc" = 124 ] && echo "ncu.sh: ncu stopped by NCU_TIMEOUT (${BUDGET} s)"
echo "ncu.sh: ncu exit status $rc; bench.py --once said:"
grep -v '^"' "$OUT/ncu_once.txt" | grep -v '^==PROF==' | tail -n 20
python3 "$HERE/ncu_report.py" "$OUT/ncu_once.txt" | tee "$OUT/ncu_once.md"
rc2=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
