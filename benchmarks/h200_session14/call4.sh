#!/usr/bin/env bash
# Fourteenth H200 session, call 4: rmsnorm benched on the current rungs (Triton: evict_first at
# few rows; CUDA: kExact and kNoL1).
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step bench_rmsnorm 330 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
cp $OUT/rmsnorm_bench.* $OUT/rmsnorm_roofline_H200.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
cut -c1-200 $OUT/rmsnorm_bench.md | head -22
