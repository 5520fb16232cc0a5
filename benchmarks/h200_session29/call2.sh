#!/usr/bin/env bash
# Twenty-ninth H200 session, call 2 (on call 1's machine, the CUTLASS library built): `bench
# fp8_gemm --rungs triton cuda --rounds 2` with the dispatch as committed (64 and 65 at M <= 16
# where 43's tiles outnumber the SMs), every provider timed twice, the order reversed in round 2.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step bench_r2 580 python3 -m grading bench fp8_gemm --rungs triton cuda --rounds 2 --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/* $BACK/ 2>/dev/null
grep -E "timed " $OUT/bench_r2.txt
