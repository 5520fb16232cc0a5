#!/usr/bin/env bash
# Thirty-sixth H200 session, call 3 (fresh machine): the shipped build with 109-112, 115 and 116
# moved in from sweep build 19 (CuTe's extended wgmma shapes on) and the dispatch picking them as
# call 2 measured (109 and 110 at 33-48 tokens, 111 and 112 at 65-80, 115 at 97-112 tokens where
# 41 was picked, 116 at 97-128 tokens where 112-wide tiles fill two rounds to 95%). The grader's
# CUDA-rung check; fp8_gemm_cutlass_check.py: every shipped configuration against float64, then
# the pick beside the picks it replaced and torch._scaled_mm at 40, 72, 112 and 128 tokens.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call3
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2039 --json $OUT/check_cuda.json
step mid 200 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 41,48,92,101,102 --ms 40,72,112,128 --target-s 0.1 --json $OUT/mid.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror" $OUT/mid.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/mid.txt
