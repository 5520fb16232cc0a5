#!/usr/bin/env bash
# Thirty-sixth H200 session, call 4 (on call 3's machine, the CUTLASS library built): a bench with
# call 3's dispatch, `bench fp8_gemm --rungs triton cuda` (one round: the time left this session
# held no second; kept beside the two-round bench of record, see README.md), then chapter 02
# executed with its outputs saved.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call4
if ls .kl_cache/cuda/kl_fp8_gemm_cutlass_*/*.so >/dev/null 2>&1; then
  step bench 330 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
  cp $OUT/* $BACK/ 2>/dev/null
else
  echo "== no CUTLASS library in the cache: a fresh machine; bench skipped"
fi
OUT=$OUT NB_LIMIT=85 bash benchmarks/gpu_notebooks.sh ch02
cp $OUT/* $BACK/ 2>/dev/null
grep -E "timed " $OUT/bench.txt 2>/dev/null; ls $OUT
