#!/usr/bin/env bash
# Thirty-fifth H200 session, call 1 (fresh machine): sweep build 18 timed beside the shipped
# build: 99 and 100 (128x64 swap-AB cooperative tiles, with and without a 1x2 cluster) at M = 128;
# 101 and 102 (44's and 48's kernels with 96-token tiles) at 65-127 tokens; 103 and 104 (41's and
# 92's kernels with 48-token tiles) at 33-48 tokens; beside the picks 41, 44, 48 and 92 and
# torch._scaled_mm, 0.1 s a timing.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step sweep 560 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,18 --configs 41,44,48,92,99,100,101,102,103,104 --ms 128,112,96,80,48,40 --target-s 0.1 --json $OUT/sweep.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "built|fails|FAIL|failure|rror|not timed" $OUT/sweep.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/sweep.txt
