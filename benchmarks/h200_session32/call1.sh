#!/usr/bin/env bash
# Thirty-second H200 session, call 1 (fresh machine): the decode kernel without CUTLASS
# (csrc/fp8_gemm_decode.cuh: mma.sync from registers, 16, 32 or 64 weight rows a CTA as 83, 84,
# 85) against float64 and beside the decode picks 43, 64, 65 and torch._scaled_mm at M = 1-16,
# the six Llama weights (fp8_gemm_cutlass_check.py; the dispatch is unchanged).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step build 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step decode 200 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 43,64,65,83,84,85 --ms 1,4,8,16 --json $OUT/decode.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt
sed -n '/^correctness vs float64/,/^$/p' $OUT/decode.txt | head -30; grep -iE "failure|error" $OUT/decode.txt | head -5
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/decode.txt | head -30; sed -n '/^summary/,$p' $OUT/decode.txt
