#!/usr/bin/env bash
# Thirty-third H200 session, call 6 (fresh machine): 92 (picked at
# M = 17-64 where 41's tiles are more than twice the SMs, measured only at M = 64 so far) and 96
# (sweep build 17) beside 41 and torch._scaled_mm at M = 24 and 48, 0.1 s a timing.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call6; mkdir -p $OUT
step mid 195 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,17 --configs 41,92,96 --ms 24,48 --json $OUT/mid.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "built|fails|FAIL|failure|rror" $OUT/mid.txt | head -5
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/mid.txt; sed -n '/^summary/,$p' $OUT/mid.txt | head -4
