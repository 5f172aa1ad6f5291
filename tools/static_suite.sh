#!/usr/bin/env bash
# CuTe's static algebra anchor next to tests/static_suite.rs (the same 37 results with `layout!`)
# and tests/computed_suite.rs (31 of them through type parameters, the generic static path), in
# one run: compile time and peak memory of each, and CuTe's output written to
# tests/data/cute_static_suite.txt (the tests' expected values).
set -euo pipefail
cd "$(dirname "$0")/.."
ANCHOR=${ANCHOR:-../shared/anchors/cute_static_suite.cpp}
ORACLE=${ORACLE:-/tmp/oracle}
INC="-I $ORACLE/ext/nvidia/cuda_cccl/include -I $ORACLE/ext/cutlass_library/source/include -I $ORACLE/ext/nvidia/cuda_runtime/include -I $ORACLE/ext/nvidia/cuda_nvcc/include"
out=$(mktemp -d)
cargo test --release --test static_suite --test computed_suite --no-run -q 2>/dev/null # dependencies first, untimed
echo "== g++ -O2 $ANCHOR"
# shellcheck disable=SC2086
/usr/bin/time -f "   %e s, peak %M KB" g++ -std=c++17 -O2 $INC "$ANCHOR" -o "$out/anchor"
"$out/anchor" | cut -d= -f2- | sed 's/^ //' > tests/data/cute_static_suite.txt
echo "== rustc -O tests/static_suite.rs (the same results, through layout!)"
touch tests/static_suite.rs
/usr/bin/time -f "   %e s, peak %M KB" cargo test --release --test static_suite --no-run -q 2>&1 | grep -v Executable
cargo test --release --test static_suite -q 2>&1 | grep "test result"
echo "== rustc -O tests/computed_suite.rs (31 results through type parameters, and more tests of that path)"
touch tests/computed_suite.rs
/usr/bin/time -f "   %e s, peak %M KB" cargo test --release --test computed_suite --no-run -q 2>&1 | grep -v Executable
cargo test --release --test computed_suite -q 2>&1 | grep "test result"
