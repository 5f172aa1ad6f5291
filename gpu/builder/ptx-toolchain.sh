#!/usr/bin/env bash
# Installs Debian's route to PTX for const-layout-builder: Debian's rustc 1.96 or newer with its
# library source (for `-Zbuild-std=core`), LLVM's tools of the same major version, and the nvptx
# target's linker (`llvm-bitcode-linker`, built from the Rust source Debian ships). Idempotent;
# apt-get needs root, and runs only for what is missing.
#   usage: ptx-toolchain.sh DIR   (DIR: where the linker and the links to LLVM's tools go, in DIR/bin)
# Prints DIR/bin, where const-layout-builder looks (`const-layout-ptx install-toolchain` runs this
# script with $CARGO_HOME/const-layout-ptx; const-layout's repository, with target/ptx-toolchain).
set -euo pipefail
DIR=${1:?usage: ptx-toolchain.sh DIR}
mkdir -p "$DIR/bin"
RUSTC=/usr/bin/rustc
# (The version is read into a variable first: `grep -q` on a pipe would end rustc with SIGPIPE.)
have_rustc() {
  local v
  v=$("$RUSTC" -vV 2> /dev/null) || return 1
  grep -q '^release: 1\.\(9[6-9]\|[1-9][0-9][0-9]\)' <<< "$v"
}
if ! have_rustc; then
  echo "ptx-toolchain: installing rustc-web, cargo-web, rust-web-src (Debian)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src > /dev/null
fi
have_rustc || { echo "ptx-toolchain: /usr/bin/rustc is not 1.96 or newer" >&2; exit 1; }
VERSION=$("$RUSTC" -vV)
LLVM_MAJOR=$(sed -n 's/^LLVM version: \([0-9]*\).*/\1/p' <<< "$VERSION")
if [ ! -x "/usr/lib/llvm-$LLVM_MAJOR/bin/llc" ]; then
  echo "ptx-toolchain: installing llvm-$LLVM_MAJOR (Debian)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "llvm-$LLVM_MAJOR" > /dev/null
fi
SRC=$(readlink -f "$("$RUSTC" --print sysroot)/lib/rustlib/src/rust")
[ -d "$SRC/library/core" ] || { echo "ptx-toolchain: no core source under $SRC (package rust-web-src)" >&2; exit 1; }
if [ ! -x "$DIR/bin/llvm-bitcode-linker" ]; then
  echo "ptx-toolchain: building llvm-bitcode-linker from $SRC" >&2
  rm -rf "$DIR/lbl" && cp -r "$SRC/src/tools/llvm-bitcode-linker" "$DIR/lbl"
  printf '\n[workspace]\n' >> "$DIR/lbl/Cargo.toml"
  (cd "$DIR/lbl" && RUSTC=$RUSTC CARGO_TARGET_DIR="$DIR/lbl-target" /usr/bin/cargo build --release --quiet)
  cp "$DIR/lbl-target/release/llvm-bitcode-linker" "$DIR/bin/"
fi
for t in llvm-link opt llc; do ln -sf "/usr/lib/llvm-$LLVM_MAJOR/bin/$t" "$DIR/bin/$t"; done
echo "$DIR/bin"
