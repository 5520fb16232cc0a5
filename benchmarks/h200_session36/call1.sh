#!/usr/bin/env bash
# Thirty-sixth H200 session, call 1 (fresh machine): sweep build 18's 105 and 106 (101 and 102
# with 80-token tiles) at 72 and 80 tokens, 107 (48 with 112-token tiles) and 108 (41 with
# 56-token tiles) at 104-120 tokens, beside the picks 41, 44, 48, 100, 101 and 102 and
# torch._scaled_mm, 0.1 s a timing.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call1
step sweep 560 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,18 --configs 41,44,48,100,101,102,105,106,107,108 --ms 72,80,104,112,120 --target-s 0.1 --json $OUT/sweep.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "built|fails|FAIL|failure|rror|not timed" $OUT/sweep.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/sweep.txt
