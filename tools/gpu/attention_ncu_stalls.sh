#!/usr/bin/env bash
# Where the attention forward's time goes next to CUTLASS's FMHA, with Nsight Compute at its fixed
# clocks (so no power cap moves the figures), on the GPU machine (b 1, h 16, d 128, f16, non-causal):
#   1. each kernel's time at 4096 queries and 1024 to 8192 keys, fitted as `fixed + slope * tiles`
#      (a key tile of 128): the part each query block pays once against the key loop's;
#   2. the warp stall reasons per instruction issued, for both (ncu's WarpStateStats section);
#   3. both kernels' source pages (PC samples and stall reasons a SASS instruction) as CSVs, for
#      tools/gpu/attention_stall_regions.py, which sums them by region of the code.
#   usage: tools/gpu/attention_ncu_stalls.sh PTX CUTLASS_88_FMHA   (OUT: where the files go)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/target/gpu-out}
mkdir -p "$OUT"
PTX=$1
CUTLASS=$2
# One metric list of one launch (ours: the only launch; CUTLASS's first is a warm-up), as `name value` lines.
raw() { # KERNEL-REGEX SKIP ARGS... -- COMMAND...
  local kernel=$1 skip=$2
  shift 2
  local args=()
  while [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  ncu --csv --page raw "${args[@]}" -k "regex:$kernel" --launch-skip "$skip" --launch-count 1 "$@" 2> /dev/null |
    python3 -c '
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if r]
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
for c, v in zip(rows[head], rows[-1]):
    print(c, v)'
}
echo "== 1. time at ncu's fixed clocks, 4096 queries (us)"
for k in 1024 2048 4096 8192; do
  a=$(raw '^attention_sm90_d128$' 0 --metrics gpu__time_duration.sum -- python3 "$ROOT/tools/gpu/attention_bench.py" "$PTX" --once --once-seq-k "$k" | awk '$1=="gpu__time_duration.sum"{print $2}')
  c=$(raw '^device_kernel$' 1 --metrics gpu__time_duration.sum -- "$CUTLASS" --b=1 --h=16 --q=4096 --k="$k" --d=128 --mask=no --iterations=2 | awk '$1=="gpu__time_duration.sum"{print $2}')
  echo "keys $k ours $a cutlass $c" | tee -a "$OUT/ncu_fit.txt"
done
python3 - "$OUT/ncu_fit.txt" << 'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("keys")]
def num(x):
    return float(x.replace(",", ""))
for name, col in (("ours", 3), ("cutlass", 5)):
    pts = [(int(r[1]) / 128, num(r[col]) / 1e3) for r in rows if len(r) > col and r[col]]
    n = len(pts)
    if n < 2:
        continue
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    print(f"fit {name}: fixed {my - slope * mx:.1f} us, {slope:.3f} us a key tile ({n} points; 512 query blocks, 3.9 waves)")
PY
echo "== 2. warp states (per instruction issued), seq 4096"
for who in ours cutlass; do
  if [ $who = ours ]; then
    raw '^attention_sm90_d128$' 0 --section WarpStateStats --section SchedulerStats --section InstructionStats -- python3 "$ROOT/tools/gpu/attention_bench.py" "$PTX" --once
  else
    raw '^device_kernel$' 1 --section WarpStateStats --section SchedulerStats --section InstructionStats -- "$CUTLASS" --b=1 --h=16 --q=4096 --k=4096 --d=128 --mask=no --iterations=2
  fi > "$OUT/ncu_states_$who.txt"
done
python3 - "$OUT/ncu_states_ours.txt" "$OUT/ncu_states_cutlass.txt" << 'PY'
import sys
def read(p):
    d = {}
    for l in open(p):
        k, _, v = l.strip().partition(" ")
        d[k] = v
    return d
a, b = read(sys.argv[1]), read(sys.argv[2])
for k in sorted(set(a) | set(b)):
    if any(w in k for w in ("stall", "inst_executed", "issue_active", "warps_active", "cycles")):
        print(f"  {k:90} {a.get(k, ''):>16} {b.get(k, ''):>16}")
PY
echo "== 3. source pages (PC samples a SASS instruction)"
ncu --section SourceCounters --section WarpStateStats -k 'regex:^attention_sm90_d128$' --launch-count 1 \
  -o "$OUT/stalls_ours" -f python3 "$ROOT/tools/gpu/attention_bench.py" "$PTX" --once > /dev/null 2>&1 &&
  ncu -i "$OUT/stalls_ours.ncu-rep" --page source --csv --print-source sass > "$OUT/source_ours.csv"
ncu --section SourceCounters --section WarpStateStats -k 'regex:^device_kernel$' --launch-skip 1 --launch-count 1 \
  -o "$OUT/stalls_cutlass" -f "$CUTLASS" --b=1 --h=16 --q=4096 --k=4096 --d=128 --mask=no --iterations=2 > /dev/null 2>&1 &&
  ncu -i "$OUT/stalls_cutlass.ncu-rep" --page source --csv --print-source sass > "$OUT/source_cutlass.csv"
rm -f "$OUT"/stalls_*.ncu-rep
ls -la "$OUT"
head -c 1500 "$OUT/source_ours.csv"
