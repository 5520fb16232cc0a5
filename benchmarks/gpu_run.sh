#!/usr/bin/env bash
# One GPU session: checks and benchmarks for the given kernels, results under $OUT (or ./gpu-out).
# Usage: bash benchmarks/gpu_run.sh KERNEL...   (run from the repository root)
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
$py -m grading info 2>&1 | tee "$OUT/info.txt"
$py -m grading ceilings --json "$OUT/ceilings.json" 2>&1 | tail -12
for k in "$@"; do
  $py -m grading check "$k" --solutions --seed 2026 --json "$OUT/${k}_check.json" 2>&1 | tail -25
  $py -m grading bench "$k" --json "$OUT/${k}_bench.json" --plot "$OUT/${k}_roofline.png" 2>&1 | tail -30
done
