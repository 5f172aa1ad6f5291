#!/usr/bin/env bash
# Builds the CUDA C++ twins of the my-kernels kernels (nvcc -O3 -arch=sm_90a, NVIDIA's pip nvcc
# 13.0 as tools/gpu/build-anchors.sh gets it): OUT_DIR/twins.cubin and OUT_DIR/twins.ptx.
#   usage: examples/my-kernels/twins/build.sh OUT_DIR
# The CUDA tools: $CUDA if set, else target/gpu-tools/cuda of this checkout (downloaded from PyPI
# as tools/gpu/build-anchors.sh does when missing), else nvcc on the PATH.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${1:?usage: build.sh OUT_DIR}
mkdir -p "$OUT"
if [ -z "${CUDA:-}" ]; then
  TOOLS=$ROOT/target/gpu-tools
  if [ -x "$TOOLS/cuda/bin/nvcc" ]; then
    CUDA=$TOOLS/cuda
  elif command -v nvcc > /dev/null; then
    CUDA=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
  else
    mkdir -p "$TOOLS/wheels" "$TOOLS/ext"
    python3 -m pip download -q --no-deps -d "$TOOLS/wheels" nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 \
      nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 nvidia-cuda-crt==13.0.88 \
      nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
    for w in "$TOOLS"/wheels/nvidia_cuda_*.whl "$TOOLS"/wheels/nvidia_nvvm*.whl; do unzip -q -o "$w" -d "$TOOLS/ext"; done
    ln -sfn "$TOOLS/ext/nvidia/cu13" "$TOOLS/cuda"
    CUDA=$TOOLS/cuda
  fi
fi
FLAGS=(-O3 -std=c++17 -arch=sm_90a -I "$CUDA/include/cccl")
"$CUDA/bin/nvcc" "${FLAGS[@]}" -cubin -Xptxas -v -o "$OUT/twins.cubin" "$HERE/twins.cu"
"$CUDA/bin/nvcc" "${FLAGS[@]}" -ptx -o "$OUT/twins.ptx" "$HERE/twins.cu"
echo "build.sh: $OUT/twins.cubin, $OUT/twins.ptx (nvcc $("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
