#!/usr/bin/env bash
# Chapter 02 on one GPU: checks, benchmarks and the Triton variants sweep of fp8_quantize and
# fp8_gemm, results under $OUT (or ./gpu-out), the targets table last.
# Usage: bash benchmarks/fp8_gemm_gpu.sh [check|bench|variants|all]   (run from the repository root)
# The first CUTLASS build (csrc/fp8_gemm_cutlass.cu) takes a few minutes; it is cached under
# $KL_CACHE_DIR, so run `check` first on a fresh machine if a call has a time limit.
set -uo pipefail
OUT=${OUT:-gpu-out}
STAGE=${1:-all}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
run() { [ "$STAGE" = all ] || [ "$STAGE" = "$1" ]; }
$py -m grading info 2>&1 | tee "$OUT/info.txt" | tail -8
$py -m grading ceilings --json "$OUT/ceilings.json" 2>&1 | tail -8
if run check; then
  for k in fp8_quantize fp8_gemm; do
    $py -m grading check "$k" --solutions --seed 2026 --json "$OUT/${k}_check.json" > "$OUT/${k}_check.txt" 2>&1
    echo "check $k: exit $?"; grep -E "cases pass|tier|FAIL|ERROR|error" "$OUT/${k}_check.txt" | tail -25
  done
fi
if run bench; then
  for k in fp8_quantize fp8_gemm; do
    $py -m grading bench "$k" --json "$OUT/${k}_bench.json" --plot "$OUT/${k}_roofline.png" > "$OUT/${k}_bench.txt" 2>&1
    echo "bench $k: exit $?"; grep -iE "error|failed" "$OUT/${k}_bench.txt" | head -10
  done
fi
if run variants; then
  $py benchmarks/fp8_gemm_variants.py --json "$OUT/fp8_gemm_variants.json" > "$OUT/fp8_gemm_variants.txt" 2>&1
  echo "variants: exit $?"; sed -n '/^| M × N × K/,$p' "$OUT/fp8_gemm_variants.txt"
fi
$py benchmarks/fp8_gemm_variants.py --summary "$OUT"
