#!/usr/bin/env bash
# Twenty-eighth H200 session, call 3 (on the machine of call 2, the CUTLASS library built):
# `bench fp8_gemm --rungs triton cuda --rounds 2`, the dispatch as committed, every provider timed
# twice, the order reversed in the second round, each case keeping its median round.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step bench_r2 570 python3 -m grading bench fp8_gemm --rungs triton cuda --rounds 2 --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/* $BACK/ 2>/dev/null
grep -E "timed " $OUT/bench_r2.txt
