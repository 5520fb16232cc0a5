#!/usr/bin/env bash
# Fourteenth H200 session, call 3: the Triton rung's few-rows loads now carry evict_first (call 2).
# Both Triton rungs checked on the GPU, then the fused kernel's bench (the CUDA rung on kNoL1).
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step check_rmsnorm_triton 90 python3 -m grading check rmsnorm --rung triton --solutions --seed 52 --json $OUT/check_rmsnorm_triton.json
step check_fused_triton 90 python3 -m grading check fused_add_rmsnorm --rung triton --solutions --seed 52 --json $OUT/check_fused_triton.json
step bench_fused 420 python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
cp $OUT/fused_add_rmsnorm_bench.* $OUT/fused_add_rmsnorm_roofline_H200.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
grep -h "solutions:" $OUT/check_*.txt
cut -c1-200 $OUT/fused_add_rmsnorm_bench.md | head -22
