#!/usr/bin/env bash
# Everything on the GPU machine in one call: the benchmark (bench.py: checks, timings, tables) and
# the executed-instruction comparison (ncu.sh), both into $OUT (default ./bench-out).
#   usage: examples/my-kernels/bench/run.sh PTX TWINS_DIR [bench.py options]
#   PTX: my_kernels.ptx; TWINS_DIR: examples/my-kernels/twins/build.sh's output (twins.cubin,
#   twins_nb.cubin). Exit status 1 if either part failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PTX=${1:?usage: run.sh PTX TWINS_DIR [bench.py options]}
TW=${2:?usage: run.sh PTX TWINS_DIR [bench.py options]}
shift 2
export OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"
python3 "$HERE/bench.py" --ptx "$PTX" --twins "$TW/twins.cubin" --twins-nb "$TW/twins_nb.cubin" "$@" 2>&1 | tee "$OUT/bench.log"
rc=${PIPESTATUS[0]}
if command -v "${NCU:-ncu}" > /dev/null; then
  bash "$HERE/ncu.sh" --ptx "$PTX" --twins "$TW/twins.cubin" 2>&1 | tee "$OUT/ncu.log"
  rc2=${PIPESTATUS[0]}
else
  echo "run.sh: no ncu on this machine: the executed-instruction comparison is skipped"
  rc2=1
fi
echo "run.sh: bench.py exit $rc, ncu.sh exit $rc2; outputs in $OUT"
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
