#!/usr/bin/env bash
# Thirty-fourth H200 session, call 5 (fresh machine, the session's last few minutes of device
# time): sweep build 18 beside the shipped build: 99 and 100 (128x64 swap-AB cooperative tiles,
# with and without a 1x2 cluster that multicasts the weight tile to both token tiles: cuBLASLt's
# tile at 128 x 8192 x 8192 and 28672) and 101 and 102 (44's and 48's kernels with 96-token
# tiles), beside the picks 44 and 48 and torch._scaled_mm at M = 128 and 96, 0.1 s a timing.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call5; mkdir -p $OUT
step m128 240 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,18 --configs 44,48,99,100,101,102 --ms 128,96 --target-s 0.1 --json $OUT/m128.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "built|fails|FAIL|failure|rror" $OUT/m128.txt | head -5
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/m128.txt; sed -n '/^summary/,$p' $OUT/m128.txt | head -4
