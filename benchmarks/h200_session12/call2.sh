#!/usr/bin/env bash
# Twelfth H200 session, call 2: the CUDA rmsnorm rung as adopted from call 1 (cand_i's one barrier
# per row and cand_m's two packs per thread past kFewRows, both on cand_h's 32-bit offsets within
# a row), checked for both kernels, then fused_add_rmsnorm benched beside every other rung.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT  # at most 8 files come back: the logs travel as one archive
step check_rmsnorm_cuda 120 python3 -m grading check rmsnorm --rung cuda --solutions --seed 21 --json $OUT/check_rmsnorm_cuda.json
step check_fused_cuda 90 python3 -m grading check fused_add_rmsnorm --rung cuda --solutions --seed 21 --json $OUT/check_fused_cuda.json
step fused_bench $((560 - SECONDS)) python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
cp $OUT/*.json $OUT/*.png $OUT/*.md $BACK/ 2>/dev/null; tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 3 $OUT/check_rmsnorm_cuda.txt $OUT/check_fused_cuda.txt; cut -c1-200 $OUT/fused_add_rmsnorm_bench.md 2>/dev/null | head -22
