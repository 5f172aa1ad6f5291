#!/usr/bin/env bash
# CuTe's static algebra anchor next to examples/static_suite.rs (the program computing the same 37
# results with `layout!` and printing them), examples/computed_suite.rs (the 31 layout-algebra ones
# through type parameters, the generic static path) and tests/computed_suite.rs (that program as a
# test with more tests), in one run: compile time and peak memory of
# each build (dependencies built first), CuTe's output written to tests/data/cute_static_suite.txt
# (the tests' expected values), and the program's output compared with it. Each Rust program is
# timed twice: through cargo (its check of the workspace included), and the compiler alone, the
# rustc command cargo runs for it (as g++ is timed: one compiler invocation, no build system).
# Each figure is the median of RUNS runs (5 unless set; the machine is shared and one run moves by
# a fifth), with the peak memory of that run.
set -euo pipefail
cd "$(dirname "$0")/.."
ANCHOR=${ANCHOR:?set ANCHOR to the path of the anchor program cute_static_suite.cpp}
# shellcheck source=oracle/include.sh
. tools/oracle/include.sh
out=$(mktemp -d)
RUNS=${RUNS:-5}
# Runs `$2...` RUNS times (`$1` a note for the line, a command run before each run in TOUCH) and
# prints the median time and its run's peak memory.
timed() {
  local note=$1; shift
  local i
  for i in $(seq "$RUNS"); do
    [ -n "${TOUCH:-}" ] && touch "$TOUCH"
    /usr/bin/time -o "$out/t" -f "%e %M" "$@" > /dev/null 2>&1
    cat "$out/t"
  done | sort -n | sed -n "$(((RUNS + 1) / 2))p" | awk -v n="$note" '{printf "   %s s, peak %s KB%s\n", $1, $2, n}'
}
# The rustc command cargo runs for example $1 (from `cargo build -v`), timed alone.
rustc_alone() {
  touch "examples/$1.rs"
  local cmd
  cmd=$(cargo build --release --example "$1" -v 2>&1 | grep "Running \`.*--crate-name $1 " | sed 's/^ *Running `//; s/`$//')
  TOUCH="examples/$1.rs" timed " (rustc alone)" bash -c "$cmd"
}
cargo build --release --example static_suite -q 2>/dev/null # dependencies first, untimed
cargo build --release --example computed_suite -q 2>/dev/null
cargo test --release --test computed_suite --no-run -q 2>/dev/null
echo "== g++ -O2 $ANCHOR"
# shellcheck disable=SC2086
timed "" g++ -std=c++17 -O2 $CUTE_INC "$ANCHOR" -o "$out/anchor"
"$out/anchor" | cut -d= -f2- | sed 's/^ //' > tests/data/cute_static_suite.txt
echo "== rustc -O examples/static_suite.rs (the same results, through layout!)"
TOUCH=examples/static_suite.rs timed " (cargo build)" cargo build --release --example static_suite -q
rustc_alone static_suite
if ./target/release/examples/static_suite | diff -q - tests/data/cute_static_suite.txt >/dev/null; then
  echo "   prints the anchor's $(wc -l < tests/data/cute_static_suite.txt) lines exactly"
else
  echo "   DIFFERS from the anchor's output:"; ./target/release/examples/static_suite | diff - tests/data/cute_static_suite.txt
fi
echo "== rustc -O examples/computed_suite.rs (the 31 layout-algebra results through type parameters, the generic path)"
TOUCH=examples/computed_suite.rs timed " (cargo build)" cargo build --release --example computed_suite -q
rustc_alone computed_suite
if ./target/release/examples/computed_suite | while IFS= read -r row; do
  line=${row%%: *}; want=$(sed -n "$((line + 1))p" tests/data/cute_static_suite.txt)
  [ "${row#*: }" = "$want" ] || { echo "   row $line: ${row#*: }, CuTe $want"; exit 1; }
done; then
  echo "   prints the anchor's rows exactly"
else
  echo "   DIFFERS from the anchor's output (above)"
fi
echo "== rustc -O tests/computed_suite.rs (the same program as a test, with more tests of that path)"
TOUCH=tests/computed_suite.rs timed " (cargo build)" cargo test --release --test computed_suite --no-run -q
cargo test --release --test computed_suite -q 2>&1 | grep "test result"
