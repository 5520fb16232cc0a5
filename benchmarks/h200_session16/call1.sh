#!/usr/bin/env bash
# Sixteenth H200 session, call 1: programmatic dependent launch (PDL) for both rmsnorm kernels.
# The Triton rung with the kernel's PDL switch on beside the plan as it was; the CUDA rung as
# committed now (every kernel launched with PDL) beside cand_old, the previous commit's
# rmsnorm.cu and launcher. All bench shapes, inputs rotated past L2 as the bench does.
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
ONLY="ref triton,triton PDL,ref cuda,cuda from,ref compiled"
for kind in rmsnorm fused; do
  flag=; [ $kind = fused ] && flag=--fused
  step ${kind}_large 200 python3 benchmarks/rmsnorm_variants.py $flag --only "$ONLY" --cuda-from $C/cand_old \
    --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192,32768x8192 --json $OUT/${kind}_large.json
  step ${kind}_small 150 python3 benchmarks/rmsnorm_variants.py --small $flag --only "$ONLY" --cuda-from $C/cand_old \
    --json $OUT/${kind}_small.json
done
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
for f in $OUT/*_large.txt $OUT/*_small.txt; do echo "-- $(basename $f)"; grep -E "µs|Error|error" $f | cut -c1-80; done
