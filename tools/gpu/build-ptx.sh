#!/usr/bin/env bash
# Builds the GPU kernels' PTX module (gpu/ptx) for sm_90a (wgmma needs it) with Debian's rustc, and
# checks it: const-layout-builder's tool (gpu/builder, `const-layout-ptx build`) writes the entry
# points' launch bounds (`launch_bounds!` in gpu/ptx/src/lib.rs) and fails on a division or
# remainder, local memory, a call, or an entry point whose parameters differ from its source.
#   usage: tools/gpu/build-ptx.sh [--no-install]
# Installs the toolchain first if it is missing (tools/gpu/ptx-toolchain.sh; needs root for apt
# unless --no-install). Writes target/ptx/const_layout_kernels.ptx and the example kernel crate's
# target/ptx/my_kernels.ptx, and prints their reports.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = "--no-install" ]; then
  BIN=$ROOT/target/ptx-toolchain/bin
  [ -x "$BIN/llvm-bitcode-linker" ] || { echo "build-ptx: no toolchain in $BIN (run tools/gpu/ptx-toolchain.sh)" >&2; exit 1; }
else
  BIN=$(bash "$ROOT/tools/gpu/ptx-toolchain.sh")
fi
cd "$ROOT"
# ptxas's registers and spills in the reports where the CUDA tools are here (tools/gpu/build-anchors.sh).
[ -z "${CUDA_HOME:-}" ] && [ -x "$ROOT/target/gpu-tools/cuda/bin/ptxas" ] && export CUDA_HOME=$ROOT/target/gpu-tools/cuda
ptx() { # CRATE OUT
  CONST_LAYOUT_PTX_TOOLCHAIN=$BIN cargo run --quiet --release --locked -p const-layout-builder --bin const-layout-ptx -- \
    build --toolchain debian --target-cpu sm_90a --locked --target-dir target/ptx -o "$2" "$1"
}
ptx gpu/ptx target/ptx/const_layout_kernels.ptx
# The example kernel crate, written as a user's would be (examples/my-kernels): the same command.
ptx examples/my-kernels/kernels target/ptx/my_kernels.ptx
