#!/usr/bin/env bash
# Tenth H200 session, call 3: the Triton fp8_gemm prefill sweep around the promotion interval,
# loops not flattened (flattening cost the conditional promotion a quarter in call 2): every 2,
# 4, 8 steps of 128, 4-6 stages; every 2 and 4 steps of 256.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
step fp8_gemm_variants_large 240 python3 benchmarks/fp8_gemm_variants.py --large --json $OUT/fp8_gemm_variants_large.json
python3 $C/large_table.py $OUT/fp8_gemm_variants_large.json
