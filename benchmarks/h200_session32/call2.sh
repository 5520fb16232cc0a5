#!/usr/bin/env bash
# Thirty-second H200 session, call 2 (fresh machine): the shipped code as committed (the decode
# candidate of call 1 set aside), its CUTLASS library built; the grader's CUDA-rung check; the
# decode picks for M = 64 and 128 (41, 44, 48) beside 29 and 36 and torch._scaled_mm at the six
# Llama weights (fp8_gemm_cutlass_check.py). Call 3 follows on this machine.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2033 --json $OUT/check_cuda.json
step m128 120 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 29,36,41,44,48 --ms 64,128 --json $OUT/m128.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -iE "failure|error" $OUT/m128.txt | head -3
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/m128.txt; sed -n '/^summary/,$p' $OUT/m128.txt
