#!/usr/bin/env bash
# Builds the anchors the GPU kernels are measured against: CuTe's own tutorial kernel
# `sgemm_2.cu` (CUTLASS 4.2, nvcc 13.0, -O3 -arch=sm_90a, as the project's GPU anchor figures
# were taken), from NVIDIA's wheels on PyPI, so nothing of CuTe is kept in this repository.
#   usage: tools/gpu/build-anchors.sh [OUT]   (OUT: default target/gpu)
# Writes OUT/cute_sgemm_2, OUT/cute_sgemm_sm80, OUT/cute_tiled_copy and OUT/cutlass_88_fmha (static CUDA runtime; they run on any CUDA 13
# driver) and their cubins for SASS comparisons; leaves the CUDA tools (nvcc, ptxas, cuobjdump) in
# target/gpu-tools/cuda/bin for tools/gpu/sass.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/target/gpu}
TOOLS=$ROOT/target/gpu-tools
mkdir -p "$OUT" "$TOOLS/wheels"
if [ ! -x "$TOOLS/cuda/bin/nvcc" ] || [ ! -d "$TOOLS/cutlass/include/cute" ]; then
  python3 -m pip download -q --no-deps -d "$TOOLS/wheels" nvidia-cutlass==4.2.0.0 nvidia-cuda-nvcc==13.0.88 \
    nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 nvidia-cuda-crt==13.0.88 \
    nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
  rm -rf "$TOOLS/ext" && mkdir -p "$TOOLS/ext"
  for w in "$TOOLS"/wheels/*.whl; do unzip -q -o "$w" -d "$TOOLS/ext"; done
  rm -rf "$TOOLS/cuda" "$TOOLS/cutlass"
  ln -s "$TOOLS/ext/nvidia/cu13" "$TOOLS/cuda"
  ln -s "$TOOLS/ext/cutlass_library/source" "$TOOLS/cutlass"
fi
CUDA=$TOOLS/cuda
W=$TOOLS/cutlass
FLAGS=(-O3 -std=c++17 -arch=sm_90a --expt-relaxed-constexpr -I "$W/include" -I "$W/tools/util/include" -I "$CUDA/include/cccl")
T=$W/examples/cute/tutorial
"$CUDA/bin/nvcc" "${FLAGS[@]}" -L "$CUDA/lib" -o "$OUT/cute_sgemm_2" "$T/sgemm_2.cu" &
"$CUDA/bin/nvcc" "${FLAGS[@]}" -cubin -o "$OUT/cute_sgemm_2.cubin" "$T/sgemm_2.cu" &
wait
"$CUDA/bin/nvcc" "${FLAGS[@]}" -L "$CUDA/lib" -o "$OUT/cute_tiled_copy" "$T/tiled_copy.cu" &
"$CUDA/bin/nvcc" "${FLAGS[@]}" -cubin -o "$OUT/cute_tiled_copy.cubin" "$T/tiled_copy.cu" &
wait
# The tensor-core anchor: sgemm_sm80.cu (half in and out; its TN path is cp.async,
# ldmatrix and mma.sync).
"$CUDA/bin/nvcc" "${FLAGS[@]}" -L "$CUDA/lib" -o "$OUT/cute_sgemm_sm80" "$T/sgemm_sm80.cu"
# Its Hopper anchor: hopper/wgmma_tma_sm90.cu (TMA, mbarriers, wgmma; f16 in, out and accumulators),
# its tensor maps encoded through the runtime's driver entry points.
"$CUDA/bin/nvcc" "${FLAGS[@]}" -L "$CUDA/lib" -o "$OUT/cute_wgmma_tma_sm90" "$T/hopper/wgmma_tma_sm90.cu"
# The attention anchor: CUTLASS's examples/88_hopper_fmha (kept once built; FORCE=1
# rebuilds; FMHA_BF16=1 adds a bf16 build patched from it).
bash "$ROOT/tools/gpu/build-fmha-anchor.sh" "$OUT"
echo "build-anchors: $OUT/cute_sgemm_2 (nvcc $("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), CUTLASS 4.2)"
