#!/usr/bin/env bash
# Tenth H200 session, call 1: the Triton fp8_gemm prefill sweep around the v3 pick (promotion every
# 256 of K, Triton's warp specialization, wider tiles, fast accumulation as a ceiling); two CUDA
# rmsnorm candidates beside the reference build (cand_a: one barrier and broadcast reads of the
# warp sums in the block reduction; cand_b: the same with 2 packs per thread up to 4096 rows), at
# the decode sizes, the large sizes, and fused at the decode sizes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
for c in a b; do cand $c; done
CANDS=$C/cand_a,$C/cand_b
ONLY="ref cuda,ref triton,compile static,cuda from"
step fp8_gemm_variants_large 240 python3 benchmarks/fp8_gemm_variants.py --large --json $OUT/fp8_gemm_variants_large.json
step rmsnorm_small 120 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $CANDS --only "$ONLY" --json $OUT/rmsnorm_small.json
step rmsnorm_large 100 python3 benchmarks/rmsnorm_variants.py --cuda-from $CANDS --only "$ONLY" --json $OUT/rmsnorm_large.json
step fused_small $((570 - SECONDS)) python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $CANDS --only "$ONLY" --json $OUT/fused_small.json
tail -12 $OUT/fp8_gemm_variants_large.txt | cut -c1-260; grep "µs" $OUT/rmsnorm_small.txt $OUT/rmsnorm_large.txt $OUT/fused_small.txt | sed 's/benchmarks.h200_session10.//' | cut -c1-120
