#!/usr/bin/env bash
# Thirty-fifth H200 session, call 2 (fresh machine): the shipped build with 100, 101, 102 and 104
# moved in from sweep build 18 and the dispatch picking them as call 1 measured (104 at 33-48
# tokens where 92 was picked; 101 and 102 at 65-96 tokens, 101 where 41 or 44 was picked, 102
# where 48 was; 100 at 97-128 tokens where its 128x64 tiles make one wave over 3/4 of the SMs or
# more). The grader's CUDA-rung check; fp8_gemm_cutlass_check.py: every configuration against
# float64, then the pick beside 41, 44, 48, 92, 100-102, 104 and torch._scaled_mm at 40-128
# tokens, 0.1 s a timing. Call 3 (the bench of record) follows on this machine.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2038 --json $OUT/check_cuda.json
step mid 200 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 41,44,48,92,100,101,102,104 --ms 40,48,72,96,112,128 --target-s 0.1 --json $OUT/mid.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror" $OUT/mid.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/mid.txt
