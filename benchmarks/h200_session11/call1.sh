#!/usr/bin/env bash
# Eleventh H200 session, call 1: where the CUDA rmsnorm rung's 0.1-0.4 µs at 1-256 x 4096 goes.
# Three candidates beside the reference build, each smaller than the last in machine code:
# cand_d (session 10: no integer division before the loads, 1/n from the host), cand_e (cand_d
# without the scalar tail: the vector path only when n is a multiple of the pack), cand_f (cand_e
# with "one row per block" a template parameter). Decode sizes, fused at decode sizes, large sizes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
(C=benchmarks/h200_session10; cand d)
for c in e f; do cand $c; done
CANDS=benchmarks/h200_session10/cand_d,$C/cand_e,$C/cand_f
ONLY="ref cuda,ref triton,compile static,cuda from"
step rmsnorm_small 150 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $CANDS --only "$ONLY" --json $OUT/rmsnorm_small.json
step fused_small 150 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $CANDS --only "$ONLY" --json $OUT/fused_small.json
step rmsnorm_large $((560 - SECONDS)) python3 benchmarks/rmsnorm_variants.py --cuda-from $CANDS --only "$ONLY" --json $OUT/rmsnorm_large.json
grep "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt $OUT/rmsnorm_large.txt | sed 's/benchmarks.h200_session1[01].//' | cut -c1-120
