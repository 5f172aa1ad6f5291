#!/usr/bin/env bash
# Regenerates every generated test file, in dependency order (the CuTe data first, then the Rust
# tests generated from it), so that `git diff --exit-code` afterwards shows whether the checked-in
# files are what their generators write. Every generator is deterministic (fixed seeds, no
# network once the oracle is installed).
#
#   bash tools/regen.sh [--repo-only] [--full] [--no-cargo]
#
#   (default)    what takes seconds: CuTe's pictures and static suite, and everything generated
#                from the repository alone (CI runs this, then `git diff --exit-code`)
#   --full       also the CuTe data that takes minutes: every generated file
#   --repo-only  only what needs nothing outside the repository (no CuTe oracle, no anchor)
#   --no-cargo   leave out the two kinds of files that `cargo test` itself compares with what the
#                code prints (UI `.stderr`, SVG golden files): CI's `cargo test` has checked them
#
# What writes what, and how long it took here (2 cores shared with three other builds, load
# about 12: wall time, then the CPU time, which is what a quiet 2-core machine divides by two):
#   needs the CuTe oracle (CuTe C++ headers + pycute, `tools/oracle/setup.sh` installs them into
#   $ORACLE, default /tmp/oracle; g++):
#     tools/oracle/gen_latex.sh                 tests/data/latex/                    8-26 s
#     $ANCHOR (CuTe's anchor program cute_static_suite.cpp, g++ -O2; tools/static_suite.sh times it)
#                                               tests/data/cute_static_suite.txt     6 s
#     tools/oracle/gen_gmma_vectors.py          tests/data/cute_gmma.txt             27 s
#    --full only (times of the run of 2026-11-27, --jobs 2, the machine otherwise idle but for
#    builds of this repository now and then):
#     tools/oracle/gen_algebra_vectors.py       tests/data/cute_algebra_<family>.txt, all 13
#                                               families: 549 s (CPU 15 min)
#     tools/oracle/gen_swizzle_slice_vectors.py tests/data/cute_swizzle_slice.txt   230 s
#     tools/oracle/gen_composition_gaps.py      tests/data/cute_composition_gaps.txt 180 s
#     tools/oracle/gen_identity_vectors.py      tests/data/cute_identity.txt        256 s
#     tools/oracle/gen_vectors.py               tests/data/cute_layouts.txt, cute_int_tuples.txt:
#                                               402 s
#     tools/oracle/gen_atom_vectors.py          tests/data/cute_atoms.txt            257 s (one
#                                               g++ -O0 of CuTe's MMA and copy traits, 123 tilings and
#                                               70 tiled copies)
#   needs only the repository (seconds):
#     tools/gen_typed_vectors.py                tests/typed/typed_vectors.rs
#     tools/gen_ordered_vectors.py + rustfmt    tests/typed/ordered_vectors.rs
#     tools/gen_computed_tests.py               tests/typed/computed_vectors.rs
#     tools/gpu/gen_warp_asm.py + rustfmt       gpu/device/src/backend/ptx/warp.rs
#     tools/gpu/gemm_choose.py                  gpu/kernels/src/hgemm_sm90_choice.rs (from tools/gpu/data/gemm_sweep_h200.json)
#     TRYBUILD=overwrite cargo test -p const-layout-ui-tests   ui-tests/*/*.stderr (rustc 1.95: rust-toolchain.toml)
#     UPDATE_GOLDEN=1 cargo test --test tool    tests/data/svg/
# Run here and byte-identical with the checked-in files: all of the above (the --full generators
# on 2026-11-27 at d36adf0, one after another; the rest by every CI run).
# If the oracle (or the anchor) cannot be had, this says so on one line and exits 3, unless
# --repo-only is given.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

repo_only=0 full=0 cargo=1
for a in "$@"; do
  case "$a" in
    --repo-only) repo_only=1 ;;
    --full) full=1 ;;
    --no-cargo) cargo=0 ;;
    *) echo "usage: bash tools/regen.sh [--repo-only] [--full] [--no-cargo]" >&2; exit 2 ;;
  esac
done

step() { # name command...: run one generator, its output kept out of the way unless it fails
  local name=$1 log start
  shift
  log=$(mktemp)
  start=$(date +%s)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "regen: $name failed" >&2
    exit 1
  fi
  rm -f "$log"
  echo "regen: $name ($(($(date +%s) - start)) s)"
}

if [ "$repo_only" = 0 ]; then
  ANCHOR=${ANCHOR:-}
  ORACLE=${ORACLE:-/tmp/oracle}
  export ORACLE
  why=
  if ! command -v g++ >/dev/null; then
    why="g++ is not installed"
  elif ! bash tools/oracle/setup.sh >/dev/null 2>&1; then
    why="tools/oracle/setup.sh could not install it into $ORACLE"
  fi
  if [ -n "$why" ]; then
    echo "regen: the CuTe oracle cannot be had: $why; --repo-only regenerates what needs only the repository" >&2
    exit 3
  fi
  # shellcheck source=oracle/include.sh
  . tools/oracle/include.sh
  step "CuTe pictures" bash tools/oracle/gen_latex.sh
  if [ "$full" = 1 ]; then
    step "CuTe algebra" python3 tools/oracle/gen_algebra_vectors.py --jobs 2
    step "CuTe swizzle slices" python3 tools/oracle/gen_swizzle_slice_vectors.py --jobs 2
    step "CuTe composition gaps" python3 tools/oracle/gen_composition_gaps.py --jobs 2
    step "CuTe identity layouts" python3 tools/oracle/gen_identity_vectors.py --jobs 2
    step "CuTe layouts and int tuples" python3 tools/oracle/gen_vectors.py --jobs 2
    step "CuTe atoms and tiled MMAs" python3 tools/oracle/gen_atom_vectors.py
  fi
  static_suite() {
    local out
    out=$(mktemp -d)
    # shellcheck disable=SC2086
    g++ -std=c++17 -O2 $CUTE_INC "$ANCHOR" -o "$out/anchor"
    # The anchor prints `name = value`; the test compares the values.
    "$out/anchor" | cut -d= -f2- | sed 's/^ //' >tests/data/cute_static_suite.txt
    rm -rf "$out"
  }
  # The static suite's anchor is CuTe's program, not the repository's: regenerated where ANCHOR
  # names it, left as checked in otherwise.
  if [ -f "$ANCHOR" ]; then
    step "CuTe static suite" static_suite
  else
    echo "regen: CuTe static suite: skipped (set ANCHOR to cute_static_suite.cpp to regenerate it)"
  fi
  step "CuTe wgmma atoms and descriptors" python3 tools/oracle/gen_gmma_vectors.py
fi

step "typed vectors" python3 tools/gen_typed_vectors.py
# The checked-in file is rustfmt's output of what the generator writes.
step "ordered vectors" bash -c 'python3 tools/gen_ordered_vectors.py && rustfmt --edition 2024 tests/typed/ordered_vectors.rs'
step "computed vectors" python3 tools/gen_computed_tests.py
step "warp asm batches" bash -c 'python3 tools/gpu/gen_warp_asm.py && rustfmt --edition 2024 gpu/device/src/backend/ptx/warp.rs'
# The Hopper GEMM's chooser, from the checked-in sweep (the sweep itself needs the device:
# tools/gpu/gemm_sweep.py --json tools/gpu/data/gemm_sweep_h200.json).
step "GEMM chooser" python3 tools/gpu/gemm_choose.py tools/gpu/data/gemm_sweep_h200.json

if [ "$cargo" = 1 ]; then
  step "UI .stderr" env TRYBUILD=overwrite cargo test -q -p const-layout-ui-tests
  step "SVG golden files" env UPDATE_GOLDEN=1 cargo test -q --test tool svg_golden_files
fi
echo "regen: done; \`git diff --exit-code\` shows whether anything changed ($ROOT)"
