#!/usr/bin/env bash
# Thirty-ninth H200 session, call 1 (fresh machine): the CUTLASS file built as seven translation
# units side by side (KL_BUILD_PARTS, torch's ninja build), timed, with ninja's log of each unit;
# the grader's CUDA-rung check on that build; sweep build 19 compiled during the check; then
# 119 and 120 (115 and 41 in a 1x2 cluster that multicasts each weight tile) and 121 (111 with
# 72-token tiles) beside 41, 111, 115, 116, the pick and torch._scaled_mm at 72-128 tokens.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call1
nproc > $OUT/nproc.txt
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
cp .kl_cache/cuda/kl_fp8_gemm_cutlass_*/.ninja_log $OUT/ninja_log.txt 2>/dev/null
python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,19 --build-only > $OUT/build19.txt 2>&1 &
step check_cuda 150 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2041 --json $OUT/check_cuda.json
wait
step sweep 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,19 --configs 41,111,115,116,119,120,121 --ms 72,80,96,104,112,120,128 --target-s 0.1 --json $OUT/sweep.json
cp $OUT/* $BACK/ 2>/dev/null
echo "cores $(cat $OUT/nproc.txt)"; tail -1 $OUT/build.txt; tail -1 $OUT/build19.txt
awk 'NR>1 {printf "%s %.1f s\n", $4, ($2-$1)/1000}' $OUT/ninja_log.txt
grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror|not timed" $OUT/sweep.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/sweep.txt
