#!/usr/bin/env bash
# Thirty-third H200 session, call 4 (fresh machine, no CUTLASS build): what cuBLASLt and the Triton
# rung run at the decode shapes both rungs still miss (fp8_gemm_trace.py: every kernel on the
# stream per call, its duration from the profiler, inputs rotated past L2).
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step trace 300 python3 benchmarks/fp8_gemm_trace.py --impls torch._scaled_mm,triton --shapes 64x28672x8192,128x28672x8192,128x8192x28672,128x8192x8192,128x4096x14336,1x28672x8192,16x8192x28672
cp $OUT/* $BACK/ 2>/dev/null
cat $OUT/trace.txt | cut -c1-220 | tail -60
