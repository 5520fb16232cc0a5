#!/usr/bin/env bash
# Tenth H200 session, call 2: the Triton fp8_gemm prefill sweep again, now around promotion
# intervals (the tensor cores carry 2, 4 or 8 K steps of 128 before the fp32 add; the loop
# flattened or not); CUDA rmsnorm cand_c (16 warps at few rows, one pack per thread with the
# weight held, as the Triton rung) beside the reference build, rmsnorm and fused, decode sizes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
for c in c; do cand $c; done
ONLY="ref cuda,ref triton,compile static,cuda from"
step fp8_gemm_variants_large 240 python3 benchmarks/fp8_gemm_variants.py --large --json $OUT/fp8_gemm_variants_large.json
step rmsnorm_small 120 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $C/cand_c --only "$ONLY" --json $OUT/rmsnorm_small.json
step fused_small 100 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $C/cand_c --only "$ONLY" --json $OUT/fused_small.json
python3 $C/large_table.py $OUT/fp8_gemm_variants_large.json
grep "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt | sed 's/benchmarks.h200_session10.//' | cut -c1-120
