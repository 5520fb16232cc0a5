#!/usr/bin/env bash
# Fortieth H200 session, call 1 (fresh machine): the shipped CUTLASS file (twenty-five kernels,
# with 119 and 120) built as seven units, the grader's checks of the CUDA and Triton rungs on it,
# then the picks at 88-128 tokens timed again beside their neighbours and torch._scaled_mm
# (96 tokens: 101 or 119; 128: 120 at N = 4096, 100 and 116 past it).
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call1
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
cp .kl_cache/cuda/kl_fp8_gemm_cutlass_*/.ninja_log $OUT/ninja_log.txt 2>/dev/null
step check_cuda 150 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 4040 --json $OUT/check_cuda.json
step check_triton 150 python3 -m grading check fp8_gemm --rung triton --solutions --no-speed --seed 4041 --json $OUT/check_triton.json
step sweep 200 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --configs 44,48,100,101,116,119,120 --ms 88,96,104,128 --target-s 0.1 --json $OUT/sweep.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt
awk 'NR>1 {printf "%s %.1f s\n", $4, ($2-$1)/1000}' $OUT/ninja_log.txt
grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt $OUT/check_triton.txt | head -6
grep -E "fails|FAIL|failure|rror|not timed" $OUT/sweep.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/sweep.txt
