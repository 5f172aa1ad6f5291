#!/usr/bin/env bash
# Builds the GPU kernels' PTX module (gpu/ptx) for sm_90a (wgmma needs it) with Debian's rustc and checks it.
#   usage: tools/gpu/build-ptx.sh [--no-install]
# Installs the toolchain first if it is missing (tools/gpu/ptx-toolchain.sh; needs root for apt
# unless --no-install). Writes target/ptx/const_layout_kernels.ptx with the entry points' launch
# bounds (tools/gpu/launch-bounds.py), then runs
# tools/gpu/check-ptx.py on it (no division or remainder instruction, no local memory, no call).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = "--no-install" ]; then
  BIN=$ROOT/target/ptx-toolchain/bin
  [ -x "$BIN/llvm-bitcode-linker" ] || { echo "build-ptx: no toolchain in $BIN (run tools/gpu/ptx-toolchain.sh)" >&2; exit 1; }
else
  BIN=$(bash "$ROOT/tools/gpu/ptx-toolchain.sh")
fi
OUT=$ROOT/target/ptx
cd "$ROOT/gpu/ptx"
# rustup's proxies come first on PATH; this build is Debian's rustc (1.96, with core's source).
# The crate is a member of the root workspace (its host build declares the entry points for the
# launcher), so this build's release settings are given here, for it alone.
PATH="$BIN:/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$OUT" \
  CARGO_PROFILE_RELEASE_OPT_LEVEL=3 CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_PANIC=abort CARGO_PROFILE_RELEASE_DEBUG=false \
  /usr/bin/cargo build --release --locked -p const-layout-ptx --target nvptx64-nvidia-cuda -Zbuild-std=core \
  --config 'target.nvptx64-nvidia-cuda.rustflags=["-Ctarget-cpu=sm_90a", "-Ctarget-feature=+ptx83"]'
cp "$OUT/nvptx64-nvidia-cuda/release/const_layout_ptx.ptx" "$OUT/const_layout_kernels.ptx"
python3 "$ROOT/tools/gpu/launch-bounds.py" "$OUT/const_layout_kernels.ptx" "$ROOT/gpu/ptx/src/lib.rs"
python3 "$ROOT/tools/gpu/check-ptx.py" "$OUT/const_layout_kernels.ptx"
