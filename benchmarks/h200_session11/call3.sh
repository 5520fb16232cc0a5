#!/usr/bin/env bash
# Eleventh H200 session, call 3: Nsight Compute (call 2) put the CUDA rung's extra time at 1 x 4096
# inside the kernel, in each warp's path: 8 warps of ~330 instructions against the Triton rung's 16
# of ~150, at a similar number of cycles per instruction. cand_g is cand_f with one pack per thread
# at few rows (up to 1024 threads, the weight still loaded with the row), beside cand_f and the
# reference build, rmsnorm and fused, decode sizes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
for c in f g; do cand $c; done
CANDS=$C/cand_f,$C/cand_g
ONLY="ref cuda,ref triton,compile static,cuda from"
step rmsnorm_small 150 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $CANDS --only "$ONLY" --json $OUT/rmsnorm_small.json
step fused_small 150 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $CANDS --only "$ONLY" --json $OUT/fused_small.json
grep "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt | sed 's/benchmarks.h200_session11.//' | cut -c1-120
