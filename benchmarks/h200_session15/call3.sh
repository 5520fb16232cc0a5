#!/usr/bin/env bash
# Fifteenth H200 session, call 3: both Triton rmsnorm rungs checked with EXACT and W_EARLY on at
# few rows, then rmsnorm benched beside every other rung.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step check_rmsnorm 90 python3 -m grading check rmsnorm --rung triton --solutions --seed 2031
step check_fused 90 python3 -m grading check fused_add_rmsnorm --rung triton --solutions --seed 2031
step bench_rmsnorm $((590 - SECONDS)) python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
cp $OUT/rmsnorm_bench.* $OUT/rmsnorm_roofline_H200.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -hE "cases pass|tier|FAIL" $OUT/check_*.txt | tail -6
cut -c1-200 $OUT/rmsnorm_bench.md | head -22
