#!/usr/bin/env bash
# Chapter 03 on one GPU: check --solutions, bench (all rungs + SDPA on an unpaged cache), the
# variants sweep, then the goal table. Results under $OUT (or ./gpu-out). About 6-8 minutes on an H200.
# Usage: bash benchmarks/paged_decode_gpu.sh   (run from the repository root)
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
bash benchmarks/gpu_run.sh paged_decode 2>&1 | tee "$OUT/paged_decode_run_log.txt"
$py benchmarks/paged_decode_variants.py --json "$OUT/paged_decode_variants.json" \
    --bench "$OUT/paged_decode_bench.json" 2>&1 | tee "$OUT/paged_decode_variants.txt" | tail -40
