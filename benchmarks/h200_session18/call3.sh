#!/usr/bin/env bash
# Eighteenth H200 session, call 3: the Triton GEMM's candidate configurations beside its picks and
# torch._scaled_mm, at the decode shapes (--small: M = 1-128, where M = 64 and 128 miss the goal)
# and the prefill ones (--large: M >= 4096, 0.87-0.97x in call 2's bench against the 0.9x goal).
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step gemm_small 230 python3 benchmarks/fp8_gemm_variants.py --small --json $OUT/gemm_small.json
step gemm_large $((440 - SECONDS)) python3 benchmarks/fp8_gemm_variants.py --large --json $OUT/gemm_large.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -hvE "^\s*$" $OUT/gemm_small.txt | tail -45 | cut -c1-150
grep -hvE "^\s*$" $OUT/gemm_large.txt | tail -25 | cut -c1-150
