#!/usr/bin/env bash
# Thirty-first H200 session, call 4 (on call 3's machine, the CUTLASS library built): the bench of
# record, `bench fp8_gemm --rungs triton cuda --rounds 2`, with 81 and 82 in the dispatch; then
# chapter 02 executed with its outputs saved, its scoreboard from this bench and its power-roof
# table from call 3's steady state. On a fresh machine (no library in the cache) the bench would
# not fit beside the build: only the notebook runs then.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
if ls .kl_cache/cuda/kl_fp8_gemm_cutlass_*/*.so >/dev/null 2>&1; then
  step bench_r2 500 python3 -m grading bench fp8_gemm --rungs triton cuda --rounds 2 --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
  cp $OUT/* $BACK/ 2>/dev/null
  cp $OUT/fp8_gemm_bench.json $OUT/fp8_gemm_roofline_H200.png benchmarks/ 2>/dev/null
else
  echo "== no CUTLASS library in the cache: a fresh machine; bench skipped"
fi
cp /tmp/call3/steady.json benchmarks/fp8_gemm_steady_H200.json 2>/dev/null
OUT=$OUT NB_LIMIT=240 bash benchmarks/gpu_notebooks.sh ch02
cp $OUT/* $BACK/ 2>/dev/null
grep -E "timed " $OUT/bench_r2.txt 2>/dev/null; ls $OUT
