#!/usr/bin/env bash
# Builds the attention anchor: CUTLASS 4.2's own Hopper FMHA example
# `examples/88_hopper_fmha` (as shipped in the nvidia-cutlass wheel), forward and backward in one
# binary, fp16 (the example's only 16-bit element type), -O3 for sm_90a with the flags its CMake
# build gives it: CUTLASS's standard nvcc flags plus the example's own --use_fast_math.
#   usage: tools/gpu/build-fmha-anchor.sh [OUT]   (OUT: default target/gpu)
# Needs the CUDA tools and CUTLASS that tools/gpu/build-anchors.sh downloads (it calls this script
# at its end). Adds the curand headers of the nvidia-curand wheel of CUDA 13.0 (the example's
# device-side random fill includes <curand_kernel.h>). Writes OUT/cutlass_88_fmha (static CUDA
# runtime: runs on any CUDA 13 driver, about 10 MiB). Skips the build when the binary is already
# there (a build takes 10+ minutes on 2 cores); FORCE=1 rebuilds.
#   FMHA_BF16=1 also builds OUT/cutlass_88_fmha_bf16: the same source with the forward runner's
#   element type patched from cutlass::half_t to cutlass::bfloat16_t (NOT NVIDIA's example as
#   shipped: the example has no bf16 target or define).
# The binary's options (see tools/gpu/attention_anchors.py, which runs it):
#   --b=B --h=H --q=SQ --k=SK --d=D   problem (defaults: d=128, h=2048/d, q=k=1024, b=16384/k)
#   --mask=no|causal|residual         no mask (default), causal (lower-left aligned), or residual
#                                     (masks only the ragged tail of k)
#   --iterations=N                    timed launches (default 3): one untimed launch, then N
#                                     back to back between two CUDA events; reports the mean
#   --verify                          checks O and LSE against its own reference kernel
#   --verbose                         also prints time (ms) and shared memory per variant
#   --bwd                             the backward pass instead of the forward
#   a comma in a value runs each (e.g. --q=4096,8192)
# It runs every variant instantiated for the head dim: d=64: "tma 64x128x64", "tma ws cooperative
# 128x64x64", "tma ws ping-pong 128x64x64"; d=128: "tma ws cooperative 128x128x128", "tma ws
# ping-pong 128x128x128"; printing per variant "[OK]|[--]|[FAIL] NAME : T TFLOPS/s" with
# FLOPs = 4*b*h*q*k*d (halved for causal).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/target/gpu}
TOOLS=$ROOT/target/gpu-tools
CUDA=$TOOLS/cuda
W=$TOOLS/cutlass
EX=$W/examples/88_hopper_fmha
if [ ! -x "$CUDA/bin/nvcc" ] || [ ! -f "$EX/88_hopper_fmha.cu" ]; then
  echo "build-fmha-anchor: run tools/gpu/build-anchors.sh first (no $CUDA/bin/nvcc or $EX)" >&2
  exit 1
fi
mkdir -p "$OUT"
if [ ! -f "$TOOLS/curand/include/curand_kernel.h" ]; then
  mkdir -p "$TOOLS/curand-wheel"
  python3 -m pip download -q --no-deps -d "$TOOLS/curand-wheel" nvidia-curand==10.4.0.35
  rm -rf "$TOOLS/curand" && mkdir -p "$TOOLS/curand"
  unzip -q -o "$TOOLS"/curand-wheel/nvidia_curand-10.4.0.35-*.whl 'nvidia/cu13/include/*' -d "$TOOLS/curand-ext"
  mv "$TOOLS/curand-ext/nvidia/cu13/include" "$TOOLS/curand/include" && rm -rf "$TOOLS/curand-ext"
fi
# CUTLASS's CMake (Release): -O3 -DNDEBUG, C++17, --expt-relaxed-constexpr, packed cute::tuple,
# its test/trace defines, tensor-core mma; cubin and PTX for sm_90a; the example adds --use_fast_math.
FLAGS=(-O3 -DNDEBUG -std=c++17 --expt-relaxed-constexpr --use_fast_math
  "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]"
  -DCUTE_USE_PACKED_TUPLE=1 -DCUTLASS_ENABLE_TENSOR_CORE_MMA=1 -DCUTLASS_TEST_LEVEL=0
  -DCUTLASS_TEST_ENABLE_CACHED_RESULTS=1 -DCUTLASS_CONV_UNIT_TEST_RIGOROUS_SIZE_ENABLED=1
  -DCUTLASS_DEBUG_TRACE_LEVEL=0 -Xcompiler=-fno-strict-aliasing
  -I "$W/include" -I "$W/tools/util/include" -I "$W/examples/common" -I "$EX"
  -I "$CUDA/include/cccl" -I "$TOOLS/curand/include" -L "$CUDA/lib" --split-compile=0)
build() { # SRC BIN
  if [ -x "$2" ] && [ "${FORCE:-0}" != 1 ]; then echo "build-fmha-anchor: $2 (kept; FORCE=1 rebuilds)"; return; fi
  local t0=$SECONDS
  "$CUDA/bin/nvcc" "${FLAGS[@]}" -o "$2.tmp" "$1"
  mv "$2.tmp" "$2"
  echo "build-fmha-anchor: $2 ($(( SECONDS - t0 )) s, $(du -h "$2" | cut -f1))"
}
build "$EX/88_hopper_fmha.cu" "$OUT/cutlass_88_fmha"
if [ "${FMHA_BF16:-0}" = 1 ]; then
  P=$TOOLS/fmha-bf16
  rm -rf "$P" && cp -r "$EX" "$P"
  # The forward runner's (first) `using Element = cutlass::half_t;`; the backward runner's stays.
  sed -i '0,/^  using Element = cutlass::half_t;$/s//  using Element = cutlass::bfloat16_t;/' "$P/88_hopper_fmha.cu"
  grep -q 'using Element = cutlass::bfloat16_t;' "$P/88_hopper_fmha.cu"
  FLAGS=("${FLAGS[@]/#$EX/$P}")
  build "$P/88_hopper_fmha.cu" "$OUT/cutlass_88_fmha_bf16"
fi
