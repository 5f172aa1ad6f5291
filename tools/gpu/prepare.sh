#!/usr/bin/env bash
# Builds everything the GPU run needs, here (the GPU machine has no Rust and no network), into
# target/gpu: the kernels' PTX (tools/gpu/build-ptx.sh), the launcher gpu-bench (x86-64, links no
# CUDA library: cudarc loads libcuda and libcublas at run time) and CuTe's anchor kernel
# (tools/gpu/build-anchors.sh). Then carry target/gpu to the GPU machine and run
# tools/gpu/run.sh there.
#   usage: tools/gpu/prepare.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$ROOT/target/gpu
mkdir -p "$G"
bash "$ROOT/tools/gpu/build-ptx.sh"
cp "$ROOT/target/ptx/const_layout_kernels.ptx" "$G/"
(cd "$ROOT" && cargo build --release --locked -p const-layout-gpu)
cp "$ROOT/target/release/gpu-bench" "$G/"
[ -x "$G/cute_sgemm_2" ] && [ -x "$G/cute_sgemm_sm80" ] && [ -x "$G/cute_wgmma_tma_sm90" ] ||
  bash "$ROOT/tools/gpu/build-anchors.sh" "$G"
ls -la "$G"
