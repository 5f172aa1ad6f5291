#!/usr/bin/env bash
# Installs the Rust -> PTX toolchain this project builds its GPU kernels with, from Debian's packages
# alone (no rustup component can be downloaded here), into target/ptx-toolchain: the script that
# const-layout-builder ships and `const-layout-ptx install-toolchain` runs (gpu/builder/ptx-toolchain.sh:
# Debian's rustc 1.96 with its library source, LLVM's tools, llvm-bitcode-linker built from source).
#   usage: tools/gpu/ptx-toolchain.sh [DIR]   (default target/ptx-toolchain)
# Prints the directory to put first on PATH. tools/gpu/build-ptx.sh calls it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$ROOT/gpu/builder/ptx-toolchain.sh" "${1:-$ROOT/target/ptx-toolchain}"
