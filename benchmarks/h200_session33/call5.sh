#!/usr/bin/env bash
# Thirty-third H200 session, call 5 (fresh machine): sweep build 17 (96-98: decode at N = 28672 in
# one wave of 256-row swap-AB cooperative tiles, as cuBLASLt's 256x64 kernel at 64 x 28672 x 8192,
# call 4) beside the shipped decode picks 41, 43, 65 and 92 and torch._scaled_mm at M = 1, 16 and
# 64 for the six Llama weights, 0.3 s a timing, every configuration checked against float64 first.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call5; mkdir -p $OUT
step wide 500 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,17 --configs 41,43,65,92,96,97,98 --ms 1,16,64 --target-s 0.3 --json $OUT/wide.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "built|fails|FAIL|failure|rror" $OUT/wide.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/wide.txt; sed -n '/^summary/,$p' $OUT/wide.txt | head -6
