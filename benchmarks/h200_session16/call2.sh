#!/usr/bin/env bash
# Sixteenth H200 session, call 2: programmatic dependent launch on in the plans of both rmsnorm
# rungs and both quantizer rungs. Every rung of the three kernels checked by the grader
# (correctness only, side by side), then fused_add_rmsnorm benched.
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
for k in rmsnorm fused_add_rmsnorm fp8_quantize; do
  step check_$k 120 python3 -m grading check $k --solutions --no-speed --seed 2116
done
step bench_fused $((590 - SECONDS)) python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -hE "cases pass|FAIL|passed|failed" $OUT/check_*.txt | cut -c1-160 | head -30
cut -c1-220 $OUT/fused_add_rmsnorm_bench.md 2>/dev/null | head -22
