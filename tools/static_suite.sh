#!/usr/bin/env bash
# CuTe's static algebra anchor next to examples/static_suite.rs (the program computing the same 37
# results with `layout!` and printing them), examples/computed_suite.rs (the 31 layout-algebra ones
# through type parameters, the generic static path) and tests/computed_suite.rs (that program as a
# test with more tests), in one run: compile time and peak memory of
# each build (dependencies built first), CuTe's output written to tests/data/cute_static_suite.txt
# (the tests' expected values), and the program's output compared with it.
set -euo pipefail
cd "$(dirname "$0")/.."
ANCHOR=${ANCHOR:?set ANCHOR to the path of the anchor program cute_static_suite.cpp}
# shellcheck source=oracle/include.sh
. tools/oracle/include.sh
out=$(mktemp -d)
cargo build --release --example static_suite -q 2>/dev/null # dependencies first, untimed
cargo build --release --example computed_suite -q 2>/dev/null
cargo test --release --test computed_suite --no-run -q 2>/dev/null
echo "== g++ -O2 $ANCHOR"
# shellcheck disable=SC2086
/usr/bin/time -f "   %e s, peak %M KB" g++ -std=c++17 -O2 $CUTE_INC "$ANCHOR" -o "$out/anchor"
"$out/anchor" | cut -d= -f2- | sed 's/^ //' > tests/data/cute_static_suite.txt
echo "== rustc -O examples/static_suite.rs (the same results, through layout!)"
touch examples/static_suite.rs
/usr/bin/time -f "   %e s, peak %M KB" cargo build --release --example static_suite -q
if ./target/release/examples/static_suite | diff -q - tests/data/cute_static_suite.txt >/dev/null; then
  echo "   prints the anchor's $(wc -l < tests/data/cute_static_suite.txt) lines exactly"
else
  echo "   DIFFERS from the anchor's output:"; ./target/release/examples/static_suite | diff - tests/data/cute_static_suite.txt
fi
echo "== rustc -O examples/computed_suite.rs (the 31 layout-algebra results through type parameters, the generic path)"
touch examples/computed_suite.rs
/usr/bin/time -f "   %e s, peak %M KB" cargo build --release --example computed_suite -q
if ./target/release/examples/computed_suite | while IFS= read -r row; do
  line=${row%%: *}; want=$(sed -n "$((line + 1))p" tests/data/cute_static_suite.txt)
  [ "${row#*: }" = "$want" ] || { echo "   row $line: ${row#*: }, CuTe $want"; exit 1; }
done; then
  echo "   prints the anchor's rows exactly"
else
  echo "   DIFFERS from the anchor's output (above)"
fi
echo "== rustc -O tests/computed_suite.rs (the same program as a test, with more tests of that path)"
touch tests/computed_suite.rs
/usr/bin/time -f "   %e s, peak %M KB" cargo test --release --test computed_suite --no-run -q 2>&1 | grep -v Executable
cargo test --release --test computed_suite -q 2>&1 | grep "test result"
