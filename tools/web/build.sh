#!/usr/bin/env bash
# Builds the playground's WebAssembly module (the crate web/, the `layout` tool's commands) into
# web/site/const_layout_web.wasm, the file the page loads and `layout serve` embeds (checked in, so
# that `cargo build` needs no WebAssembly toolchain; CI rebuilds it and checks it is the same).
#
# rustup here has no wasm32 standard library and cannot download one, so this builds with Debian's
# rustc-web (1.96) and its library source (rust-web-src), `-Zbuild-std` (RUSTC_BOOTSTRAP=1, as the
# PTX build does), linked by Debian's wasm-ld of rustc's LLVM (lld-N). Packages missing are
# installed (apt-get: root). The paths of the sources are remapped, so the module is the same
# byte for byte whatever the checkout's directory.
#   usage: tools/web/build.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
SRC=/usr/lib/rustlib/src/rust/library
if [ ! -x "$RUSTC" ] || [ ! -x "$CARGO" ] || [ ! -d "$SRC/std" ]; then
  echo "web build: installing rustc-web, cargo-web, rust-web-src (Debian)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src > /dev/null
fi
LLVM_MAJOR=$("$RUSTC" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
LINKER=wasm-ld-$LLVM_MAJOR
if ! command -v "$LINKER" > /dev/null; then
  echo "web build: installing lld-$LLVM_MAJOR (Debian) for $LINKER" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "lld-$LLVM_MAJOR" > /dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "lld-$LLVM_MAJOR" > /dev/null; }
fi
CARGO_HOME_DIR=${CARGO_HOME:-$HOME/.cargo}
cd "$ROOT"
# The tool's evaluating thread has a 4 MiB stack (src/main.rs); the module's one stack gets the
# same. Size over speed (opt-level s: a third of the module at 3, and an update of the page is
# well under a millisecond either way), one codegen unit and LTO, no unwinding.
env RUSTC="$RUSTC" RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$ROOT/target/web" \
  RUSTFLAGS="-C link-arg=-zstack-size=4194304 --remap-path-prefix=$ROOT=/const-layout --remap-path-prefix=$CARGO_HOME_DIR=/cargo" \
  CARGO_PROFILE_RELEASE_OPT_LEVEL=s CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_PANIC=abort CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false \
  "$CARGO" build --quiet --locked --release -p const-layout-web --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort --config "target.wasm32-unknown-unknown.linker=\"$LINKER\""
install -m 644 target/web/wasm32-unknown-unknown/release/const_layout_web.wasm web/site/const_layout_web.wasm
echo "web/site/const_layout_web.wasm: $(wc -c < web/site/const_layout_web.wasm) bytes"
