#!/usr/bin/env bash
# Builds the GPU kernels' PTX module (gpu/ptx) for sm_90a (wgmma needs it) with Debian's rustc, and
# checks it: const-layout-builder's tool (gpu/builder, `const-layout-ptx build`) writes the entry
# points' launch bounds (`launch_bounds!` in gpu/ptx/src/lib.rs) and fails on a division or
# remainder, local memory, a call, or an entry point whose parameters differ from its source.
#   usage: tools/gpu/build-ptx.sh [--no-install]
# Installs the toolchain first if it is missing (tools/gpu/ptx-toolchain.sh; needs root for apt
# unless --no-install). Writes target/ptx/const_layout_kernels.ptx and prints its report.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = "--no-install" ]; then
  BIN=$ROOT/target/ptx-toolchain/bin
  [ -x "$BIN/llvm-bitcode-linker" ] || { echo "build-ptx: no toolchain in $BIN (run tools/gpu/ptx-toolchain.sh)" >&2; exit 1; }
else
  BIN=$(bash "$ROOT/tools/gpu/ptx-toolchain.sh")
fi
cd "$ROOT"
CONST_LAYOUT_PTX_TOOLCHAIN=$BIN cargo run --quiet --release --locked -p const-layout-builder --bin const-layout-ptx -- \
  build --toolchain debian --target-cpu sm_90a --locked --target-dir target/ptx -o target/ptx/const_layout_kernels.ptx gpu/ptx
