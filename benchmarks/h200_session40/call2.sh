#!/usr/bin/env bash
# Fortieth session's plan, call 2 (right after call 1, on its machine): the bench of record on the
# shipped build, `bench fp8_gemm --rungs triton cuda --rounds 2` (the CUTLASS library built in
# parallel first, unless call 1's machine still holds it), then chapter 02 executed with its
# outputs saved. h200_session39/call2.sh with the roofline named after the GPU it ran on (an H100
# is H100-SXM) and that GPU's ceilings measured first where the repository has none.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call2
ceilings_here
step build 300 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step bench_r2 480 python3 -m grading bench fp8_gemm --rungs triton cuda --rounds 2 --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_$GPU.png
cp $OUT/* $BACK/ 2>/dev/null
left=$((590 - SECONDS))
if [ $left -gt 80 ]; then OUT=$OUT NB_LIMIT=$left bash benchmarks/gpu_notebooks.sh ch02; else echo "== $left s left: chapter 02 not run"; fi
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "timed " $OUT/bench_r2.txt; ls $OUT
