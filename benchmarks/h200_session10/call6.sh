#!/usr/bin/env bash
# Tenth H200 session, call 6: the promotion interval at M = 64 and 128 (the v5 streaming kernel):
# the pick, now promoting every 1024 of K from 64-token tiles on, beside the same configuration
# promoting every K step and every 512 of K, at the decode goal's shapes; then the grader's check.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
step fp8_gemm_variants_promote 150 python3 benchmarks/fp8_gemm_variants.py --promote --json $OUT/fp8_gemm_variants_promote.json
step check_fp8_gemm_triton 90 python3 -m grading check fp8_gemm --rung triton --solutions --seed 11 --json $OUT/check_fp8_gemm_triton.json
python3 $C/large_table.py $OUT/fp8_gemm_variants_promote.json; tail -5 $OUT/check_fp8_gemm_triton.txt
