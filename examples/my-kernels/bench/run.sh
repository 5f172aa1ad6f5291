#!/usr/bin/env bash
# Everything on the GPU machine in one call: the benchmark (bench.py: checks, timings, the table)
# and the executed-instruction comparison (ncu.sh), both into $OUT (default ./bench-out), then the
# two tables again at the very end of the output (ncu's, then the benchmark's).
#   usage: examples/my-kernels/bench/run.sh PTX TWINS_DIR [bench.py options]
#   PTX: my_kernels.ptx (const-layout-builder's, e.g. target/gpu/my_kernels.ptx); TWINS_DIR:
#   examples/my-kernels/twins/build.sh's output (twins.cubin). Exit status 1 if either part failed.
# Time limits (seconds; about 1 minute each expected on an H200): BENCH_TIMEOUT (default 200) for
# bench.py, which on SIGTERM still prints and writes what it measured, and NCU_TIMEOUT (default
# 180) for ncu.sh's ncu runs: at most about 6.5 minutes in all. ncu failing or timing out loses
# nothing of the benchmark's.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PTX=${1:?usage: run.sh PTX TWINS_DIR [bench.py options]}
TW=${2:?usage: run.sh PTX TWINS_DIR [bench.py options]}
shift 2
export OUT=${OUT:-$PWD/bench-out}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
for f in "$PTX" "$TW/twins.cubin"; do
  [ -f "$f" ] || echo "run.sh: WARNING: $f is missing (its rows will say error)"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"
start=$SECONDS
timeout -k 15 "${BENCH_TIMEOUT:-200}" python3 "$HERE/bench.py" --ptx "$PTX" --twins "$TW/twins.cubin" "$@" 2>&1 \
  | tee "$OUT/bench.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 124 ] && echo "run.sh: bench.py stopped after ${BENCH_TIMEOUT:-200} s (what it measured is above)"
bench_s=$((SECONDS - start))
if command -v "${NCU:-ncu}" > /dev/null; then
  bash "$HERE/ncu.sh" --ptx "$PTX" --twins "$TW/twins.cubin" 2>&1 | tee "$OUT/ncu.log"
  rc2=${PIPESTATUS[0]}
else
  echo "run.sh: no ncu on this machine: the executed-instruction comparison is skipped"
  rc2=1
fi
echo
echo "## Nsight Compute: executed instructions, ours vs twin (bench.py --once; $OUT/ncu_once.md)"
echo
cat "$OUT/ncu_once.md" 2> /dev/null || echo "(no ncu table: see $OUT/ncu.log)"
echo
cat "$OUT/bench.md" 2> /dev/null || echo "(no benchmark table: see $OUT/bench.log)"
echo
echo "run.sh: bench.py exit $rc (${bench_s} s), ncu.sh exit $rc2 ($((SECONDS - start - bench_s)) s); outputs in $OUT"
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
