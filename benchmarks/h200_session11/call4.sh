#!/usr/bin/env bash
# Eleventh H200 session, call 4: the CUDA rmsnorm rung as adopted from call 3 (cand_f's kernel:
# one row per block a template parameter, no division before the loads, 1/n from the host; with
# the tail kept, one pack per thread at few rows for rmsnorm, two for the fused kernel), checked
# (both kernels), then rmsnorm benched beside every other rung and the baselines.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
step check_rmsnorm_cuda 120 python3 -m grading check rmsnorm --rung cuda --solutions --seed 12 --json $OUT/check_rmsnorm_cuda.json
step check_fused_cuda 90 python3 -m grading check fused_add_rmsnorm --rung cuda --solutions --seed 12 --json $OUT/check_fused_cuda.json
step rmsnorm_bench $((520 - SECONDS)) python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
tail -3 $OUT/check_rmsnorm_cuda.txt $OUT/check_fused_cuda.txt; cat $OUT/rmsnorm_bench.md 2>/dev/null | cut -c1-200 | head -22
