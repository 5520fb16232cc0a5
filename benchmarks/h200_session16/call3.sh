#!/usr/bin/env bash
# Sixteenth H200 session, call 3: rmsnorm benched with programmatic dependent launch in both
# rungs' plans, then fused_add_rmsnorm's Triton and CUDA rungs checked by the grader (call 2's
# check of all four rungs side by side ran past its limit).
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step bench_rmsnorm 320 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
for r in triton cuda; do
  step check_fused_$r $((585 - SECONDS)) python3 -m grading check fused_add_rmsnorm --rung $r --solutions --no-speed --seed 2116
done
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -hE "cases pass|FAIL|fail " $OUT/check_*.txt | cut -c1-160 | head -20
cut -c1-200 $OUT/rmsnorm_bench.md 2>/dev/null | head -22
