#!/usr/bin/env bash
# Static SASS comparison, ours vs the CUDA C++ twins (no GPU): assembles our PTX with ptxas (as
# const-layout-builder writes it, with its launch bounds; an older PTX with the bounds only in
# comments gets them applied by ptx_bounds.py) and compares it with the twins' cubin by
# instruction class, whole kernel and hot body (sass_compare.py).
#   usage: examples/my-kernels/bench/sass.sh [PTX] [TWINS_DIR]
#   PTX default: target/gpu/my_kernels.ptx; TWINS_DIR default target/gpu/twins
#   (examples/my-kernels/twins/build.sh's output); CUDA: the CUDA tools (default
#   target/gpu-tools/cuda). Writes TWINS_DIR/ours.ptx, ours.cubin and sass_compare.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PTX=${1:-$ROOT/target/gpu/my_kernels.ptx}
TW=${2:-$ROOT/target/gpu/twins}
CUDA=${CUDA:-$ROOT/target/gpu-tools/cuda}
export CUOBJDUMP=$CUDA/bin/cuobjdump
python3 "$HERE/ptx_bounds.py" "$PTX" "$TW/ours.ptx"
"$CUDA/bin/ptxas" -arch=sm_90a -v "$TW/ours.ptx" -o "$TW/ours.cubin" 2>&1 | grep -E "Compiling|Used|spill"
{
  echo "## ours (my_kernels.ptx, its launch bounds) vs twins.cubin"
  python3 "$HERE/sass_compare.py" "$TW/ours.cubin" "$TW/twins.cubin"
} | tee "$TW/sass_compare.md"
