#!/usr/bin/env bash
# Shared-memory bank conflicts and the main counters of the attention forward next to CUTLASS's
# FMHA, with Nsight Compute on the GPU machine: one launch of each (b 1, h 16, seq 4096, d 128, f16,
# non-causal): bank conflicts and wavefronts of shared memory (every l1tex counter this ncu has
# for it), tensor-pipe and SM throughput, registers.
#   usage: tools/gpu/attention_ncu.sh PTX CUTLASS_88_FMHA   (OUT: where the CSVs go)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/target/gpu-out}
mkdir -p "$OUT"
ncu --query-metrics > "$OUT/ncu_metrics.txt" 2>&1
METRICS=$(grep -o '^l1tex__data_\(bank_conflicts\|pipe_lsu_wavefronts\)_pipe_lsu_mem_shared[a-z_]*' "$OUT/ncu_metrics.txt" |
  sort -u | sed 's/$/.sum/' | paste -sd, -)
METRICS="$METRICS,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,gpu__time_duration.sum"
profile() { # NAME KERNEL-REGEX SKIP COMMAND...
  local name=$1 kernel=$2
  shift 2
  local skip=$1
  shift
  ncu --csv --page raw --metrics "$METRICS" -k "regex:$kernel" --launch-skip "$skip" --launch-count 1 "$@" \
    > "$OUT/ncu_attention_$name.csv" 2> "$OUT/ncu_attention_$name.log" || { echo "ncu $name failed: $(tail -3 "$OUT/ncu_attention_$name.log")"; return; }
  python3 - "$name" "$OUT/ncu_attention_$name.csv" << 'PY'
import csv, sys
name, path = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(open(path)) if r]
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
cols, vals = rows[head], rows[-1]
print(f"{name}: {vals[cols.index('Kernel Name')][:70]}")
for c, v in zip(cols, vals):
    if c.startswith(("l1tex__", "sm__", "launch__", "gpu__")):
        print(f"  {c:75} {v}")
PY
}
# Ours: attention_bench.py --once launches the kernel once; CUTLASS's first launch of its kernel
# (`device_kernel`) is a warm-up.
profile ours '^attention_sm90_d128$' 0 python3 "$ROOT/tools/gpu/attention_bench.py" "$1" --once
profile cutlass '^device_kernel$' 1 "$2" --b=1 --h=16 --q=4096 --k=4096 --d=128 --mask=no --iterations=2
# Per instruction (ncu's source page): shared-memory wavefronts against the ideal, summed by
# opcode, so that a raw `_op_st` conflict count can be told from the stores' own pattern (the
# raw counters also count the banks' arbitration with `wgmma` reads and TMA writes).
ncu --section SourceCounters -k 'regex:^attention_sm90_d128$' --launch-count 1 -o "$OUT/ncu_attention_source" -f \
  python3 "$ROOT/tools/gpu/attention_bench.py" "$1" --once > "$OUT/ncu_attention_source.log" 2>&1 &&
ncu -i "$OUT/ncu_attention_source.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_attention_source.csv" &&
python3 - "$OUT/ncu_attention_source.csv" << 'PY'
import csv, collections, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(i for i, r in enumerate(rows) if "Source" in r and "Address" in r)
ix = {h: i for i, h in enumerate(rows[head])}
keys = ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L1 Wavefronts Shared Excessive")
sums = collections.defaultdict(lambda: [0.0] * len(keys))
for r in rows[head + 1:]:
    if len(r) < len(ix):
        continue
    words = r[ix["Source"]].split()
    op = next((w for w in words if not w.startswith("@")), "").split(".")[0]
    for k, key in enumerate(keys):
        try:
            sums[op][k] += float(r[ix[key]].replace(",", ""))
        except ValueError:
            pass
print("ours, per instruction: opcode, shared wavefronts, ideal, excessive")
for op, (w, ideal, ex) in sorted(sums.items()):
    if w or ex:
        print(f"  {op:8} {w:14,.0f} {ideal:14,.0f} {ex:10,.0f}")
PY
