#!/usr/bin/env bash
# Thirty-fifth H200 session, call 3 (on call 2's machine, the CUTLASS library built): the bench of
# record with 100, 101, 102 and 104 shipped and picked (call 2's rule), `bench fp8_gemm
# --rungs triton cuda --rounds 2`; then chapter 02 executed with its outputs saved. On a fresh
# machine (no library in the cache) only the notebook runs.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
if ls .kl_cache/cuda/kl_fp8_gemm_cutlass_*/*.so >/dev/null 2>&1; then
  step bench_r2 505 python3 -m grading bench fp8_gemm --rungs triton cuda --rounds 2 --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
  cp $OUT/* $BACK/ 2>/dev/null
else
  echo "== no CUTLASS library in the cache: a fresh machine; bench skipped"
fi
OUT=$OUT NB_LIMIT=85 bash benchmarks/gpu_notebooks.sh ch02
cp $OUT/* $BACK/ 2>/dev/null
grep -E "timed " $OUT/bench_r2.txt 2>/dev/null; ls $OUT
