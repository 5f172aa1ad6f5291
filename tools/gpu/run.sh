#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (after tools/gpu/prepare.sh here, with target/gpu carried
# there): the GPU kernels and their anchors in one run on one GPU, one table at the end.
#   usage: tools/gpu/run.sh [gpu-bench options...]
# Anchors: CuTe's sgemm_2 (NT and TN, 5120x5120x4096), sgemm_sm80 and wgmma_tma_sm90 (TN, half in
# and out, 5120x5120x4096) built by tools/gpu/build-anchors.sh, PyTorch's cuBLAS fp32 (no TF32) and
# device-to-device copy (tools/gpu/torch_anchors.py, when PyTorch is installed), and inside
# gpu-bench itself cuBLAS through cudarc (cublasSgemm, cublasGemmEx fp16/bf16) and cuMemcpyDtoD.
# Results go to $OUT (or target/gpu-out): anchors.tsv, table.md, the logs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$ROOT/target/gpu
OUT=${OUT:-$ROOT/target/gpu-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/gpu.txt"
ANCHORS=$OUT/anchors.tsv
: > "$ANCHORS"
cute_sgemm() { # TRANS_A TRANS_B KEY
  "$G/cute_sgemm_2" 5120 5120 4096 "$1" "$2" > "$OUT/cute_sgemm_$3.log" 2>&1
  local v
  v=$(sed -n 's/.*\[ *\([0-9.]*\)\]GFlop\/s.*/\1/p' "$OUT/cute_sgemm_$3.log" | tail -1)
  if [ -n "$v" ]; then printf 'cute_sgemm_%s\t%s\tGFLOP/s\n' "$3" "$v" >> "$ANCHORS"; else echo "CuTe sgemm_2 $1$2 failed: $(tail -2 "$OUT/cute_sgemm_$3.log")"; fi
}
cute_sgemm N T nt
cute_sgemm T N tn
# CuTe's tensor-core GEMMs (TN, f16 in and out, f16 accumulators; their own timers): the anchors of
# hgemm_tn_f16 and hgemm_sm90_tn_f16, keyed as gpu-bench knows them. The last `[ X]GFlop/s` of the
# output is the timed figure (as tools/gpu/hgemm_bench.py reads it).
cute_tensor_core() { # BINARY KEY
  if [ ! -x "$G/$1" ]; then echo "CuTe $1: not built (tools/gpu/build-anchors.sh)"; return; fi
  "$G/$1" 5120 5120 4096 T N > "$OUT/$2.log" 2>&1
  local v
  v=$(sed -n 's/.*\[ *\([0-9.]*\)\]GFlop\/s.*/\1/p' "$OUT/$2.log" | tail -1)
  if [ -n "$v" ]; then printf '%s\t%s\tGFLOP/s\n' "$2" "$v" >> "$ANCHORS"; else echo "CuTe $1 failed: $(tail -2 "$OUT/$2.log")"; fi
}
cute_tensor_core cute_sgemm_sm80 cute_sgemm_sm80
cute_tensor_core cute_wgmma_tma_sm90 cute_wgmma_tma_sm90
if python3 -c 'import torch' 2> /dev/null; then
  python3 "$ROOT/tools/gpu/torch_anchors.py" 5120 5120 4096 8192 8192 >> "$ANCHORS" 2> "$OUT/torch.log" ||
    echo "PyTorch anchors failed: $(tail -2 "$OUT/torch.log")"
fi
cat "$ANCHORS"
# gpu-bench loads libcublas at run time: from the CUDA toolkit, or from PyTorch's wheels.
for d in /usr/local/cuda/lib64 $(python3 -c 'import glob, os, site; print(" ".join(sorted({os.path.dirname(p) for s in site.getsitepackages() for p in glob.glob(s + "/nvidia/**/libcublas.so*", recursive=True)})))' 2> /dev/null); do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH
"$G/gpu-bench" --ptx "$G/const_layout_kernels.ptx" --anchors "$ANCHORS" "$@" 2> "$OUT/gpu-bench.log" | tee "$OUT/table.md"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || { echo "gpu-bench failed ($status):"; tail -5 "$OUT/gpu-bench.log"; }
exit "$status"
