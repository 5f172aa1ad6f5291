#!/usr/bin/env bash
# The algebra's runtime cost next to CuTe's, in one run: CuTe's anchor
# (../shared/anchors/cute_dyn_algebra.cpp, g++ -O2, needs the oracle of tools/oracle/setup.sh),
# then `cargo bench --bench algebra`. Prints both; compare the ns/op lines.
set -euo pipefail
cd "$(dirname "$0")/.."
ANCHOR=${ANCHOR:-../shared/anchors/cute_dyn_algebra.cpp}
ORACLE=${ORACLE:-/tmp/oracle}
INC="-I $ORACLE/ext/nvidia/cuda_cccl/include -I $ORACLE/ext/cutlass_library/source/include -I $ORACLE/ext/nvidia/cuda_runtime/include -I $ORACLE/ext/nvidia/cuda_nvcc/include"
out=$(mktemp -d)
# shellcheck disable=SC2086
g++ -std=c++17 -O2 $INC "$ANCHOR" -o "$out/anchor"
echo "== CuTe anchor ($ANCHOR)"
"$out/anchor"
echo "== const-layout (cargo bench --bench algebra)"
cargo bench --bench algebra -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "^algebra|time:"
