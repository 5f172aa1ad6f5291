#!/usr/bin/env bash
# Static SASS comparison, ours vs the CUDA C++ twins (no GPU): assembles our PTX with ptxas (with the
# launch bounds its comments declare applied, as `ours`; and as it is, as `ours_nb` when it had none)
# and compares both with the twins' cubins by instruction class, whole kernel and hot body
# (sass_compare.py).
#   usage: examples/my-kernels/bench/sass.sh [PTX] [TWINS_DIR]
#   PTX default: target/ptx-examples/nvptx64-nvidia-cuda/release/my_kernels.ptx; TWINS_DIR default
#   target/twins (examples/my-kernels/twins/build.sh's output); CUDA: the CUDA tools (default
#   target/gpu-tools/cuda). Writes TWINS_DIR/ours.cubin, ours_nb.cubin and sass_compare.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PTX=${1:-$ROOT/target/ptx-examples/nvptx64-nvidia-cuda/release/my_kernels.ptx}
TW=${2:-$ROOT/target/twins}
CUDA=${CUDA:-$ROOT/target/gpu-tools/cuda}
export CUOBJDUMP=$CUDA/bin/cuobjdump
python3 "$HERE/ptx_bounds.py" "$PTX" "$TW/ours.ptx"
"$CUDA/bin/ptxas" -arch=sm_90a -v "$TW/ours.ptx" -o "$TW/ours.cubin" 2>&1 | grep -E "Compiling|Used|spill"
"$CUDA/bin/ptxas" -arch=sm_90a "$PTX" -o "$TW/ours_nb.cubin"
{
  echo "## ours (declared launch bounds applied) vs twins.cubin"
  python3 "$HERE/sass_compare.py" "$TW/ours.cubin" "$TW/twins.cubin"
  echo
  echo "## ours_nb (the PTX as it is) vs twins_nb.cubin"
  python3 "$HERE/sass_compare.py" "$TW/ours_nb.cubin" "$TW/twins_nb.cubin"
} | tee "$TW/sass_compare.md"
